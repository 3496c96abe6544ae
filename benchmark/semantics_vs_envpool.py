"""Does a task mean the same on envpool_core as on EnvPool? Reset states, step-by-step
divergence under the same actions, and the statistics of many episodes under the same random
policy (episode lengths, returns, rewards per step, terminations against time limits).

    python benchmark/semantics_vs_envpool.py --task Ant-v4 --out benchmark/results/semantics_ant

A learning curve that differs between the engines at equal steps has two possible causes:
the env (reward, termination or observation semantics) or chance. This separates them without
training: with the same seed both engines start from the same states; the same actions then
give states that drift apart as chaotic contact dynamics amplify differences in arithmetic
(EnvPool 1.2.5 is built on MuJoCo 3.6.0; envpool_core on 4.0.1, where it matches gymnasium
exactly), and the episode statistics of a random policy are compared with two-sample
Kolmogorov–Smirnov tests. Writes OUT.json and OUT.md
(OUT defaults to benchmark/out/semantics_<task>, git-ignored).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import envpool
import numpy as np
from scipy import stats

import envpool_core

ROOT = Path(__file__).resolve().parents[1]


def make(module, task: str, num_envs: int, seed: int):
    return module.make(task, env_type="gymnasium", num_envs=num_envs, batch_size=num_envs,
                       seed=seed)


def divergence(task: str, seed: int, steps: int) -> dict:
    """Both engines from the same seed, the same uniform random actions: the largest absolute
    difference of the observations and rewards at each step, until an episode end differs."""
    envs = [make(m, task, 8, seed) for m in (envpool, envpool_core)]
    first = [e.reset()[0] for e in envs]
    rng = np.random.default_rng(seed)
    low, high = envs[0].action_space.low, envs[0].action_space.high
    obs_diff, reward_diff, ends_agree = [], [], True
    for _ in range(steps):
        action = rng.uniform(low, high, (8, *low.shape))
        out = [e.step(action) for e in envs]
        obs_diff.append(float(np.abs(out[0][0] - out[1][0]).max()))
        reward_diff.append(float(np.abs(out[0][1] - out[1][1]).max()))
        if not all((out[0][k] == out[1][k]).all() for k in (2, 3)):
            ends_agree = False
            break
    return {"reset_obs_max_diff": float(np.abs(first[0] - first[1]).max()),
            "obs_max_diff": obs_diff, "reward_max_diff": reward_diff,
            "ends_agree_for_steps": len(obs_diff) if ends_agree else len(obs_diff) - 1}


def episode_statistics(module, task: str, seed: int, num_envs: int, steps: int,
                       action_scale: float) -> dict:
    """Episodes of a uniform random policy (actions scaled by action_scale)."""
    envs = make(module, task, num_envs, seed)
    envs.reset()
    rng = np.random.default_rng(seed)
    low, high = envs.action_space.low, envs.action_space.high
    running = np.zeros(num_envs)
    lengths, returns, rewards, terminated_count, truncated_count = [], [], [], 0, 0
    for _ in range(steps):
        action = action_scale * rng.uniform(low, high, (num_envs, *low.shape))
        _, reward, terminated, truncated, info = envs.step(action)
        running += reward
        rewards.append(reward.copy())
        for i in np.flatnonzero(terminated | truncated):
            lengths.append(int(info["elapsed_step"][i]))
            returns.append(float(running[i]))
            running[i] = 0.0
        terminated_count += int(terminated.sum())
        truncated_count += int(truncated.sum())
    rewards = np.concatenate(rewards)
    return {"lengths": lengths, "returns": returns, "terminated": terminated_count,
            "truncated": truncated_count, "reward_mean": float(rewards.mean()),
            "reward_std": float(rewards.std())}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--task", default="Ant-v4")
    parser.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3])
    parser.add_argument("--num-envs", type=int, default=64)
    parser.add_argument("--steps", type=int, default=3000, help="steps of each pool per seed")
    parser.add_argument("--action-scale", type=float, default=0.5)
    parser.add_argument("--out", default=None)
    args = parser.parse_args()
    out = Path(args.out or ROOT / "benchmark" / "out" / f"semantics_{args.task.lower()}")
    out.parent.mkdir(parents=True, exist_ok=True)

    result = {"task": args.task, "divergence": divergence(args.task, args.seeds[0], 200),
              "episodes": {}}
    for name, module in (("envpool", envpool), ("envpool_core", envpool_core)):
        runs = [episode_statistics(module, args.task, seed, args.num_envs, args.steps,
                                   args.action_scale) for seed in args.seeds]
        # Per episode: every seed's episodes together; per run: one value per seed.
        result["episodes"][name] = {key: [x for r in runs for x in r[key]] if isinstance(
            runs[0][key], list) else [r[key] for r in runs] for key in runs[0]}
    a, b = result["episodes"]["envpool"], result["episodes"]["envpool_core"]
    result["ks_pvalue"] = {key: float(stats.ks_2samp(a[key], b[key]).pvalue)
                           for key in ("lengths", "returns")}
    out.with_suffix(".json").write_text(json.dumps(result, indent=1))

    d = result["divergence"]
    at = [k for k in (0, 1, 2, 5, 10, 50) if k < len(d["obs_max_diff"])]
    lines = [
        f"# {args.task}: envpool_core against EnvPool {envpool.__version__}",
        "",
        f"Same seed ({args.seeds[0]}), 8 envs: reset observations differ by at most "
        f"{d['reset_obs_max_diff']:.3g}. Under the same random actions the largest observation "
        "difference after k steps is " + ", ".join(
            f"{d['obs_max_diff'][k]:.2g} (k={k + 1})" for k in at)
        + f"; episode ends agree for {d['ends_agree_for_steps']} steps.",
        "",
        f"Random policy (uniform actions x {args.action_scale}), {args.num_envs} envs x "
        f"{args.steps} steps, seeds {', '.join(map(str, args.seeds))}:",
        "",
        "| engine | episodes | terminated | truncated | mean length | mean return "
        "| reward per step (mean +- std) |",
        "|-|-|-|-|-|-|-|",
    ]
    for name, e in result["episodes"].items():
        lines.append(
            f"| {name} | {len(e['lengths'])} | {sum(e['terminated'])} | {sum(e['truncated'])} "
            f"| {np.mean(e['lengths']):.1f} | {np.mean(e['returns']):.1f} "
            f"| {np.mean(e['reward_mean']):.4f} +- {np.mean(e['reward_std']):.4f} |")
    lines += ["", "Two-sample Kolmogorov–Smirnov p-values, envpool_core against EnvPool: "
              + ", ".join(f"episode {k} {v:.2f}" for k, v in result["ks_pvalue"].items()), ""]
    out.with_suffix(".md").write_text("\n".join(lines))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
