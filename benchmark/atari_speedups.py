"""Where the main job's time goes, and what candidate speed-ups buy, side by side in one run.

    OMP_NUM_THREADS=1 python benchmark/atari_speedups.py --cleanrl /path/to/cleanrl
    OMP_NUM_THREADS=1 python benchmark/atari_speedups.py --variants fp32 bf16 --rounds 3

Two parts, both on Breakout-v5 with the main job's shape (8 envs x 128 steps per iteration,
4 epochs of 4 minibatches, CleanRL's Nature CNN):

- scripts: steps/s (the last `charts/SPS`, which counts from the first step, updates
  included) of `ppo_atari_envpool.py` (fp32, and with `--bf16`), its async twin and, with
  `--cleanrl`, CleanRL's own
  `ppo_atari_envpool.py` with its import line changed to envpool_core, each with its defaults
  for `--script-steps` steps;
- variants: the script's iteration rebuilt from its own `make_env` and `Agent`, timed by
  phase (env: `step()`; inference: the policy's forward pass and sampling; update: the epochs;
  other: GAE and copies), for `fp32` (the script as it is) and each candidate speed-up alone
  and combined: `bf16` (the script's `--bf16`: its CNN under `torch.autocast` to bfloat16),
  `channels_last` (the network and its inputs in NHWC), `compile_policy` / `compile_update`
  (`torch.compile` of the forward pass used while acting / while updating),
  `torch_threads_2` (torch on 2 threads beside the engine's), `engine_threads_1` (the engine on
  1 thread), and combinations of them (`--combined a,b c,d`: variants `a+b` and `c+d`).

Each measurement runs in a process of its own (torch.compile's caches and torch's thread count
are per process); the first `--warmup` iterations (compilation) are not timed. Rounds
interleave everything in a shuffled order, so drift in machine speed affects all alike; each
figure is the median over rounds. Writes atari_speedups.{json,md} to --out (default
benchmark/out/, git-ignored).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import ModuleType, SimpleNamespace

sys.path.insert(0, str(Path(__file__).resolve().parent))
from cleanrl_clients import IMPORT_LINE, OUR_IMPORT, read_script

ROOT = Path(__file__).resolve().parents[1]
OUT = Path(__file__).resolve().parent / "out"
ENV_ID, NUM_ENVS, NUM_STEPS, EPOCHS, MINIBATCHES = "Breakout-v5", 8, 128, 4, 4
VARIANTS: dict[str, dict] = {
    "fp32": {},
    "bf16": {"bf16": True},
    "channels_last": {"channels_last": True},
    "compile_policy": {"compile_policy": True},
    "compile_update": {"compile_update": True},
    "torch_threads_2": {"torch_threads": 2},
    "engine_threads_1": {"engine_threads": 1},
}
PHASES = ("env", "inference", "update", "other")


def load_script(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, ROOT / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def time_iterations(options: dict, iterations: int, warmup: int) -> dict:
    """Runs warmup + iterations of the main job's iteration with `options`; returns the timed
    iterations' seconds per phase (lists, one entry per iteration)."""
    import numpy as np
    import torch

    script = load_script("ppo_atari_envpool")
    torch.set_num_threads(options.get("torch_threads", torch.get_num_threads()))
    torch.manual_seed(1)
    if "engine_threads" in options:  # the script's make_env, with the engine's thread count
        make = script.envpool.make
        script.envpool = SimpleNamespace(make=lambda *a, **k: make(
            *a, num_threads=options["engine_threads"], **k))
    envs = script.make_env(ENV_ID, NUM_ENVS, NUM_ENVS, 1)
    agent = script.Agent(envs, bf16=options.get("bf16", False))  # the script's own --bf16
    fmt = torch.channels_last if options.get("channels_last") else torch.contiguous_format
    agent = agent.to(memory_format=fmt)
    optimizer = torch.optim.Adam(agent.parameters(), lr=2.5e-4, eps=1e-5)
    act = agent.get_action_and_value
    evaluate = agent.get_action_and_value
    if options.get("compile_policy"):
        act = torch.compile(agent.get_action_and_value)
    if options.get("compile_update"):
        evaluate = torch.compile(agent.get_action_and_value)
    obs = torch.zeros((NUM_STEPS, NUM_ENVS, *envs.observation_space.shape), dtype=torch.uint8)
    actions = torch.zeros((NUM_STEPS, NUM_ENVS), dtype=torch.long)
    logprobs = torch.zeros((NUM_STEPS, NUM_ENVS))
    values = np.zeros((NUM_STEPS, NUM_ENVS), dtype=np.float32)
    rewards = np.zeros((NUM_STEPS, NUM_ENVS), dtype=np.float32)
    dones = np.zeros((NUM_STEPS, NUM_ENVS), dtype=bool)
    next_obs = torch.as_tensor(envs.reset()[0])
    times = {phase: [] for phase in PHASES}
    for iteration in range(warmup + iterations):
        spent = dict.fromkeys(PHASES, 0.0)
        start = time.perf_counter()
        for step in range(NUM_STEPS):
            obs[step] = next_obs
            t0 = time.perf_counter()
            with torch.no_grad():
                action, logprob, _, value = act(next_obs.to(memory_format=fmt))
            actions[step], logprobs[step] = action, logprob
            values[step] = value.flatten().numpy()
            t1 = time.perf_counter()
            next_obs, reward, terminated, truncated, _ = envs.step(action.numpy())
            t2 = time.perf_counter()
            rewards[step], dones[step] = reward, terminated | truncated
            next_obs = torch.as_tensor(next_obs)
            spent["inference"] += t1 - t0
            spent["env"] += t2 - t1
        with torch.no_grad():
            next_value = act(next_obs.to(memory_format=fmt))[3].flatten().numpy()
        advantages = script.compute_gae(rewards, values, dones, np.zeros_like(dones), next_value,
                                        0.99, 0.95)
        b_obs = obs.reshape(-1, *obs.shape[2:]).to(memory_format=fmt)
        b_actions, b_logprobs = actions.reshape(-1), logprobs.reshape(-1)
        b_advantages = torch.as_tensor(advantages.reshape(-1))
        b_returns = b_advantages + torch.as_tensor(values.reshape(-1))
        t_update = time.perf_counter()
        for _ in range(EPOCHS):
            for mb in np.array_split(np.random.permutation(NUM_STEPS * NUM_ENVS), MINIBATCHES):
                _, newlogprob, entropy, newvalue = evaluate(b_obs[mb], b_actions[mb])
                ratio = (newlogprob - b_logprobs[mb]).exp()
                adv = b_advantages[mb]
                adv = (adv - adv.mean()) / (adv.std() + 1e-8)
                pg_loss = torch.max(-adv * ratio, -adv * ratio.clamp(0.9, 1.1)).mean()
                v_loss = 0.5 * ((newvalue.view(-1) - b_returns[mb]) ** 2).mean()
                loss = pg_loss - 0.01 * entropy.mean() + 0.5 * v_loss
                optimizer.zero_grad()
                loss.backward()
                torch.nn.utils.clip_grad_norm_(agent.parameters(), 0.5)
                optimizer.step()
        end = time.perf_counter()
        spent["update"] = end - t_update
        spent["other"] = (end - start) - spent["env"] - spent["inference"] - spent["update"]
        if iteration >= warmup:
            for phase in PHASES:
                times[phase].append(spent[phase])
    envs.close()
    return times


def run_variant(name: str, options: dict, iterations: int, warmup: int) -> dict:
    """One measurement of a variant, in a child process."""
    proc = subprocess.run([sys.executable, __file__, "--child", json.dumps(options),
                           "--iterations", str(iterations), "--warmup", str(warmup)],
                          capture_output=True, text=True, timeout=3600)
    if proc.returncode != 0:
        raise RuntimeError(f"variant {name} failed:\n{proc.stderr[-3000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def last_sps(run_dir: Path) -> float:
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    acc = EventAccumulator(str(run_dir))
    acc.Reload()
    return float(acc.Scalars("charts/SPS")[-1].value)


def run_script(name: str, source: Path, steps: int, extra: list[str]) -> float:
    """A script's steps/s over `steps` steps with its defaults, in a fresh folder."""
    with tempfile.TemporaryDirectory() as workdir:
        args = [sys.executable, str(source), "--env-id", ENV_ID, "--total-timesteps", str(steps),
                *extra]
        proc = subprocess.run(args, cwd=workdir, capture_output=True, text=True, timeout=3600)
        if proc.returncode != 0:
            raise RuntimeError(f"{name} failed:\n{proc.stderr[-3000:]}")
        (run_dir,) = (Path(workdir) / "runs").iterdir()
        return last_sps(run_dir)


def machine() -> dict:
    import platform

    import torch

    flags = Path("/proc/cpuinfo").read_text() if Path("/proc/cpuinfo").exists() else ""
    model = next((line.split(":", 1)[1].strip() for line in flags.splitlines()
                  if line.startswith("model name")), platform.processor())
    return {"cpu": model, "cores": os.cpu_count(), "avx512_bf16": "avx512_bf16" in flags,
            "torch": torch.__version__, "omp_num_threads": os.environ.get("OMP_NUM_THREADS")}


def median_over_rounds(per_round: list[list[float]]) -> float:
    return statistics.median([value for values in per_round for value in values])


def report(data: dict) -> str:
    lines = [f"# The main job's speed on {ENV_ID}: scripts, phases and candidate speed-ups", "",
             f"Produced by `benchmark/atari_speedups.py`; {data['rounds']} interleaved rounds, "
             f"medians. Machine: {data['machine']['cpu']}, {data['machine']['cores']} cores, "
             f"AVX512-BF16 {'yes' if data['machine']['avx512_bf16'] else 'no'}, torch "
             f"{data['machine']['torch']}, OMP_NUM_THREADS={data['machine']['omp_num_threads']}.",
             ""]
    if data["scripts"]:
        lines += ["| script | steps/s (median, min-max) |", "|---|---:|"]
        for name, values in data["scripts"].items():
            lines.append(f"| {name} | {statistics.median(values):,.0f} "
                         f"({min(values):,.0f}-{max(values):,.0f}) |")
        lines.append("")
    base = median_over_rounds(data["variants"]["fp32"]["total"]) \
        if "fp32" in data["variants"] else None
    lines += ["| variant | steps/s | vs fp32 | env s/iter | inference s/iter | update s/iter | "
              "other s/iter |", "|---|---:|---:|---:|---:|---:|---:|"]
    for name, per_round in data["variants"].items():
        total = median_over_rounds(per_round["total"])
        row = [f"{median_over_rounds(per_round[phase]):.2f}" for phase in PHASES]
        ratio = f"{base / total:.2f}x" if base else "-"
        lines.append(f"| {name} | {NUM_STEPS * NUM_ENVS / total:,.0f} | {ratio} | "
                     + " | ".join(row) + " |")
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--variants", nargs="+", default=list(VARIANTS),
                        help=f"from {list(VARIANTS)}")
    parser.add_argument("--combined", nargs="*",
                        default=["bf16,torch_threads_2", "bf16,channels_last,torch_threads_2"],
                        help="combinations to measure too, each variants joined by commas")
    parser.add_argument("--iterations", type=int, default=2, help="timed iterations each")
    parser.add_argument("--warmup", type=int, default=1, help="untimed iterations first")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--cleanrl", type=Path, help="a CleanRL checkout: adds its own script")
    parser.add_argument("--script-steps", type=int, default=4096,
                        help="steps of each script run (0: no script runs)")
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child is not None:
        print(json.dumps(time_iterations(json.loads(args.child), args.iterations, args.warmup)))
        return
    groups = [group.split(",") for group in args.combined]
    named = [*args.variants, *(name for group in groups for name in group)]
    unknown = [name for name in named if name not in VARIANTS]
    if unknown:
        parser.error(f"unknown variants {unknown}; choose from {list(VARIANTS)}")
    variants = {name: VARIANTS[name] for name in args.variants}
    for group in groups:
        variants["+".join(group)] = {k: v for name in group for k, v in VARIANTS[name].items()}

    with tempfile.TemporaryDirectory() as tmp:
        scripts: dict[str, tuple[Path, list[str]]] = {}
        if args.script_steps:
            scripts["ppo_atari_envpool.py"] = (ROOT / "ppo_atari_envpool.py", [])
            scripts["ppo_atari_envpool.py --bf16"] = (ROOT / "ppo_atari_envpool.py", ["--bf16"])
            scripts["ppo_atari_envpool_async.py"] = (ROOT / "ppo_atari_envpool_async.py", [])
            if args.cleanrl:
                copy = Path(tmp) / "cleanrl_ppo_atari_envpool.py"
                copy.write_text(read_script(args.cleanrl, "ppo_atari_envpool.py")
                                .replace(IMPORT_LINE, OUR_IMPORT, 1))
                scripts["CleanRL's ppo_atari_envpool.py on envpool_core"] = (copy, ["--no-cuda"])
        jobs = [("script", name) for name in scripts] + [("variant", name) for name in variants]
        results = {"scripts": {name: [] for name in scripts},
                   "variants": {name: {p: [] for p in (*PHASES, "total")} for name in variants}}
        rng = random.Random(0)
        for round_index in range(args.rounds):
            rng.shuffle(jobs)
            for kind, name in jobs:
                if kind == "script":
                    source, extra = scripts[name]
                    results["scripts"][name].append(run_script(name, source, args.script_steps,
                                                                extra))
                else:
                    times = run_variant(name, variants[name], args.iterations, args.warmup)
                    for phase in PHASES:
                        results["variants"][name][phase].append(times[phase])
                    results["variants"][name]["total"].append(
                        [sum(t) for t in zip(*(times[p] for p in PHASES), strict=True)])
                print(f"round {round_index + 1}: {kind} {name} done", file=sys.stderr)
    data = {"rounds": args.rounds, "machine": machine(), "variants_options": variants, **results}
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "atari_speedups.json").write_text(json.dumps(data, indent=1))
    text = report(data)
    (args.out / "atari_speedups.md").write_text(text)
    print(text)


if __name__ == "__main__":
    main()
