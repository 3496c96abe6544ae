"""The Cleanba-style JAX scripts, impala_atari.py and ppo_distributed.py.

- V-trace and GAE against straightforward loops written from the papers' sums, on random
  inputs with terminations and truncations.
- Learning: on CartPole-v1 with the MLP torso (16 global envs, 2 gradient shards, a few tens of
  thousands of steps), each script reaches returns a random policy (about 22) cannot, on 1
  device and on 2 learner devices; the saved model reloads to bitwise the same parameters and
  plays the same evaluation episodes.
- Reproducibility: the same run split as 2 virtual CPU devices (actor and learner apart, 2
  learner devices) and as 2 processes on localhost through jax.distributed gives bitwise the
  same per-update metrics and final parameters, and the 2 processes' run, saved and evaluated
  by process 0 after the distributed runtime is shut down, plays the same evaluation episodes.
  As every split reduces the same gradient shards, a reduction that is wrong the same way
  everywhere would pass that check: the learning threshold catches a sign error, and each
  script (both average their shards' gradients, as Cleanba's pmean over learner devices) must
  move its parameters in one update on 2 learner devices by half of what each shard's envs
  alone move them, which a dropped shard, a sum or a device that keeps its own gradient breaks.
- Tiny runs: a Breakout-v5 run with the ResNet (--capture-video alone: an evaluation with
  video, no checkpoint), async pools without concurrency, TensorBoard tags, argument errors.
- Flags refused before anything starts or is written, each with an `error:` line (counts,
  duplicate device ids, process flags, a missing --results-file folder); the library's own
  exceptions (an unknown task, a missing checkpoint, one whose parameters are not the
  network's) also come before anything is written; the
  docstrings' several-device command passes every check with the defaults; when one of 2
  processes fails (Ctrl-C), both exit in seconds.

The scripts run as subprocesses in temporary directories, at most two processes at a time (the
CI machine has 2 cores); their top-level functions are imported by loading each file as a
module (the `__main__` guard keeps the training loop from running).
"""

from __future__ import annotations

import atexit
import os
import runpy
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPTS = {"impala": ROOT / "impala_atari.py", "ppo": ROOT / "ppo_distributed.py"}
# The learning run: 16 global envs (2 actor threads x 8, or 2 processes x 1 thread x 8),
# 2 gradient shards. A random policy's CartPole return is about 22.
LEARN = {
    "impala": {"--num-steps": "16", "--total-timesteps": "61440", "--learning-rate": "5e-3",
               "--num-minibatches": "1"},
    "ppo": {"--num-steps": "32", "--total-timesteps": "40960", "--learning-rate": "2.5e-3",
            "--num-minibatches": "4", "--update-epochs": "8", "--clip-coef": "0.2"},
}
LEARN_COMMON = {"--env-id": "CartPole-v1", "--num-grad-shards": "2", "--hiddens": "64 64",
                "--seed": "1"}
# The mean return of the last tenth of the updates, and of the evaluation, must reach this:
# over so many episodes a random policy stays below 30. Measured (seed 1, this CPU): IMPALA
# 118.3 in training, 137.4 in evaluation; PPO (--concurrency off, its default) 362.1 and 444.4.
THRESHOLD = 75.0
EVAL_EPISODES = 8
# Learning runs take minutes on a loaded 2-core machine; each job has its own 600 s limit.
pytestmark = pytest.mark.timeout(1500)
TWO_DEVICES = {"XLA_FLAGS": "--xla_force_host_platform_device_count=2"}


# ------------------------------------------------------------- V-trace and GAE, reference loops


def random_rollout(rng, T=9, B=6):
    terms = rng.random((T, B)) < 0.15
    truncs = ~terms & (rng.random((T, B)) < 0.15)
    return dict(v_tm1=rng.normal(size=(T, B)), v_t=rng.normal(size=(T, B)),
                rewards=rng.normal(size=(T, B)), terms=terms, truncs=truncs,
                rhos=np.exp(rng.normal(scale=0.7, size=(T, B))))


def vtrace_reference(v_tm1, v_t, rewards, terms, truncs, rhos, gamma, lam, rho_bar, c_bar, pg_bar):
    """Espeholt et al. 2018, eq. (1): v_s = V(x_s) + sum_t gamma^(t-s) (prod_{i<t} c_i) rho_t
    delta_t, the sum stopping at the episode's end; a truncated episode bootstraps from the
    value of its final obs, a terminated one from 0."""
    T, B = v_tm1.shape
    vs, adv = np.zeros((T, B)), np.zeros((T, B))
    for b in range(B):
        for s in range(T):
            total, weight = 0.0, 1.0
            for t in range(s, T):
                discount = 0.0 if terms[t, b] else gamma
                delta = min(rho_bar, rhos[t, b]) * (rewards[t, b] + discount * v_t[t, b]
                                                     - v_tm1[t, b])
                total += weight * delta
                if terms[t, b] or truncs[t, b]:
                    break
                weight *= gamma * lam * min(c_bar, rhos[t, b])
            vs[s, b] = v_tm1[s, b] + total
        for s in range(T):
            discount = 0.0 if terms[s, b] else gamma
            if terms[s, b] or truncs[s, b] or s == T - 1:
                q_next = v_t[s, b]
            else:
                q_next = lam * vs[s + 1, b] + (1 - lam) * v_t[s, b]
            adv[s, b] = min(pg_bar, rhos[s, b]) * (rewards[s, b] + discount * q_next - v_tm1[s, b])
    return vs, adv


def gae_reference(values, next_values, rewards, terms, truncs, gamma, lam):
    """Schulman et al. 2016: A_t = sum_l (gamma lambda)^l delta_t+l within the episode."""
    T, B = values.shape
    adv = np.zeros((T, B))
    for b in range(B):
        for t in range(T):
            total, weight = 0.0, 1.0
            for k in range(t, T):
                discount = 0.0 if terms[k, b] else gamma
                total += weight * (rewards[k, b] + discount * next_values[k, b] - values[k, b])
                if terms[k, b] or truncs[k, b]:
                    break
                weight *= gamma * lam
            adv[t, b] = total
    return adv


def flags(r, gamma):
    return gamma * (1.0 - r["terms"]), 1.0 - (r["terms"] | r["truncs"])


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("hyper", [(1.0, 1.0, 1.0, 1.0), (0.7, 1.3, 0.8, 1.1)])
def test_vtrace_matches_reference_loop(impala, seed, hyper) -> None:
    rng = np.random.default_rng(seed)
    r = random_rollout(rng)
    lam, rho_bar, c_bar, pg_bar = hyper
    discounts, conts = flags(r, 0.97)
    vs, adv = impala.vtrace(*(np.float32(x) for x in (r["v_tm1"], r["v_t"], r["rewards"],
                                                       discounts, conts, r["rhos"])),
                            lam, rho_bar, c_bar, pg_bar)
    ref_vs, ref_adv = vtrace_reference(r["v_tm1"], r["v_t"], r["rewards"], r["terms"],
                                       r["truncs"], r["rhos"], 0.97, lam, rho_bar, c_bar, pg_bar)
    np.testing.assert_allclose(np.asarray(vs), ref_vs, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(np.asarray(adv), ref_adv, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("lam", [0.95, 1.0])
def test_gae_matches_reference_loop(ppo, seed, lam) -> None:
    rng = np.random.default_rng(seed)
    r = random_rollout(rng)
    discounts, conts = flags(r, 0.99)
    adv = ppo.compute_gae(*(np.float32(x) for x in (r["v_tm1"], r["v_t"], r["rewards"],
                                                     discounts, conts)), lam)
    ref = gae_reference(r["v_tm1"], r["v_t"], r["rewards"], r["terms"], r["truncs"], 0.99, lam)
    np.testing.assert_allclose(np.asarray(adv), ref, rtol=1e-5, atol=1e-5)


def test_truncation_bootstraps_and_termination_does_not(impala, ppo) -> None:
    # One env, 3 steps, rewards 1, V = 10 everywhere. Step 1 reaches the episode's final obs:
    # truncated, it is worth r + gamma * V(final obs); terminated, just r. Neither trace
    # reaches step 2, which belongs to the next episode.
    gamma, values = 0.9, np.full((3, 1), 10.0, np.float32)
    rewards = np.ones((3, 1), np.float32)
    for terminated, expected in ((False, 1 + gamma * 10 - 10), (True, 1 - 10)):
        discounts = np.full((3, 1), gamma, np.float32)
        discounts[1] = 0.0 if terminated else gamma
        conts = np.array([[1.0], [0.0], [1.0]], np.float32)
        adv = np.asarray(ppo.compute_gae(values, values, rewards, discounts, conts, 0.95))
        assert adv[1, 0] == pytest.approx(expected)
        assert adv[0, 0] == pytest.approx(1 + gamma * 10 - 10 + gamma * 0.95 * expected)
        vs, pg_adv = impala.vtrace(values, values, rewards, discounts, conts, np.ones_like(values))
        assert np.asarray(vs)[1, 0] == pytest.approx(10 + expected)
        assert np.asarray(pg_adv)[1, 0] == pytest.approx(expected)


def test_atari_envs_follow_cleanbas_current_protocol(impala, ppo) -> None:
    # Machado et al. 2018, as Cleanba's cleanba_ppo.py and cleanba_impala.py make their envs.
    machado = {"episodic_life": False, "repeat_action_probability": 0.25, "noop_max": 1,
               "full_action_space": True, "reward_clip": True, "max_episode_steps": 27000}
    for script in (impala, ppo):
        envs = script.make_env("Breakout-v5", 2, 2, 0)
        assert {name: envs.config[name] for name in machado} == machado
        assert envs.action_space.n == 18
        envs.close()


@pytest.mark.parametrize("seed", range(3))
def test_rollouts_keep_every_envs_steps_in_order_with_async_batches(impala, seed) -> None:
    # The actors' storage (the same text in both scripts): each recv() batch is a random subset
    # of the envs, so some run many steps ahead; their obs and logits stay on the device. Every
    # value encodes (env, step); each rollout must hand env e's steps k*T ... (k+1)*T in order,
    # and the steps past it must start the next rollout.
    import jax.numpy as jnp

    rng, num_envs, num_steps = np.random.default_rng(seed), 5, 4
    storage = impala.new_storage(type("Envs", (), {"num_envs": num_envs}), 2 * num_steps + 2)
    on_device, num_kept, rows = [], 0, np.zeros(num_envs, np.int64)
    steps = np.zeros(num_envs, np.int64)  # each env's global step count
    ahead = 0  # the most steps an env collected past a rollout's last row
    for rollout in range(4):
        while rows.min() < num_steps + 1:
            env_id = np.flatnonzero(rng.random(num_envs) < 0.5) if rows.min() else (
                np.arange(num_envs))
            env_id = env_id if len(env_id) else np.array([int(rows.argmin())])
            code = (env_id * 1000 + steps[env_id]).astype(np.float32)
            storage, num_kept = impala.store(
                storage, on_device, num_kept, rows, env_id,
                (jnp.asarray(code[:, None, None] + np.zeros((1, 2, 2))),
                 jnp.asarray(code[:, None] * np.ones((1, 3))), code, code, np.zeros_like(code),
                 np.zeros_like(code)))
            assert num_kept == sum(len(batch_obs) for batch_obs, _ in on_device)
            steps[env_id] += 1
        obs, logits = (jnp.concatenate(arrays) for arrays in zip(*on_device, strict=True))
        data = impala.transitions(storage, obs, logits, num_steps)
        expected = np.arange(num_envs) * 1000 + np.arange(num_steps + 1)[:, None] + (
            rollout * num_steps)
        np.testing.assert_array_equal(np.asarray(data["obs"])[..., 0, 0], expected)
        np.testing.assert_array_equal(np.asarray(data["logits"])[..., 0], expected[:-1])
        np.testing.assert_array_equal(data["actions"], expected[:-1])
        np.testing.assert_array_equal(data["rewards"], expected[1:])
        ahead = max(ahead, int(rows.max()) - num_steps - 1)
        storage, on_device, num_kept = impala.carry_over(storage, obs, logits, rows, num_steps)
    assert ahead >= 2  # an env ran steps ahead of the rollout: carried over, in order


# ------------------------------------------------------------------------- end-to-end runs


def learn_args(name: str, **overrides: str) -> list[str]:
    """The learning run's command line, with `overrides` ({"--flag": "value"})."""
    options = {**LEARN_COMMON, **LEARN[name], **overrides}
    return [word for flag, value in options.items() for word in (flag, *value.split())]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def jobs_for(name: str) -> dict[str, tuple[list[list[str]], dict[str, str]]]:
    """name -> (argument lists, one per process; extra environment)."""
    learn = [*learn_args(name), "--results-file", "results.npz"]
    threads = ["--local-num-envs", "8", "--num-actor-threads", "2"]
    port = free_port()
    two_processes = [[*learn, "--local-num-envs", "8", "--num-actor-threads", "1",
                      "--save-model", "--eval-episodes", str(EVAL_EPISODES),
                      "--distributed", "--coordinator-address", f"127.0.0.1:{port}",
                      "--num-processes", "2", "--process-id", str(i)] for i in range(2)]
    atari = ["--env-id", "Breakout-v5", "--local-num-envs", "4", "--num-actor-threads", "1",
             "--num-steps", "8", "--total-timesteps", "64", "--num-minibatches", "2",
             "--channels", "2", "2", "2", "--hiddens", "16", "--capture-video",
             "--eval-episodes", "1", *(["--update-epochs", "1"] if name == "ppo" else [])]
    conv = ["--env-id", "Breakout-v5", "--local-num-envs", "4", "--num-actor-threads", "1",
            "--num-steps", "8", "--total-timesteps", "64", "--num-grad-shards", "2",
            "--channels", "2", "2", "2", "--hiddens", "16", "--results-file", "results.npz",
            *(["--num-minibatches", "2"] if name == "impala" else [])]
    jobs = {  # the longest first: the others share the second core meanwhile
        "one_device": ([[*learn, *threads, "--save-model",
                         "--eval-episodes", str(EVAL_EPISODES)]], {}),
        "two_learners": ([[*learn, *threads, "--actor-device-ids", "0",
                           "--learner-device-ids", "0", "1"]], TWO_DEVICES),
        "actor_learner_split": ([[*learn, *threads, "--actor-device-ids", "0",
                                  "--learner-device-ids", "1"]], TWO_DEVICES),
        "two_processes": (two_processes, {}),
        "atari": ([atari], {}),
        # The ResNet on 1 and on 2 learner devices, 2 gradient shards: the same bits. PPO's
        # 16 minibatches a rollout dispatch 49 steps, past the 32 XLA:CPU queues per device.
        "conv_one_learner": ([conv], {}),
        "conv_two_learners": ([[*conv, "--actor-device-ids", "0", "--learner-device-ids", "0",
                                "1"]], TWO_DEVICES),
        # The same with the learner that accelerators get: one compiled program per update.
        "conv_one_learner_compiled": ([[*conv, "--learner-loop", "compiled"]], {}),
        "conv_two_learners_compiled": ([[*conv, "--learner-loop", "compiled",
                                         "--actor-device-ids", "0", "--learner-device-ids", "0",
                                         "1"]], TWO_DEVICES),
        "async": ([["--env-id", "CartPole-v1", "--num-steps", "8", "--total-timesteps", "192",
                    "--num-minibatches", "2", "--local-num-envs", "8", "--async-batch-size", "4",
                    "--num-actor-threads", "1", "--no-concurrency",
                    "--results-file", "results.npz"]], {}),
    }
    return jobs


def run_all(script: Path, jobs: dict, root: Path, slots: int = 2) -> dict:
    """Runs the jobs, at most `slots` processes at a time; returns name -> (dir, [procs])."""
    pending, running, done = list(jobs.items()), [], {}
    while pending or running:
        while pending and sum(len(p) for _, _, p in running) + len(pending[0][1][0]) <= slots:
            name, (arg_lists, extra_env) = pending.pop(0)
            cwd = root / name
            cwd.mkdir()
            env = {**os.environ, "OMP_NUM_THREADS": "1", **extra_env}
            procs = []
            for i, a in enumerate(arg_lists):
                with open(cwd / f"out{i}.txt", "w") as out:
                    procs.append(subprocess.Popen([sys.executable, str(script), *a], cwd=cwd,
                                                  env=env, stdout=out, stderr=subprocess.STDOUT))
            running.append((name, cwd, procs))
        time.sleep(0.2)
        for job in list(running):
            if all(p.poll() is not None for p in job[2]):
                running.remove(job)
                done[job[0]] = (job[1], job[2])
            elif any(p.poll() not in (None, 0) for p in job[2]):  # one failed: stop the rest
                for p in job[2]:
                    if p.poll() is None:
                        p.kill()
    return done


@pytest.fixture(scope="module", params=["impala", "ppo"])
def runs(request, tmp_path_factory):
    name = request.param
    root = tmp_path_factory.mktemp(name)
    done = run_all(SCRIPTS[name], jobs_for(name), root)
    return name, done


def output(runs, job: str) -> str:
    cwd, procs = runs[1][job]
    return "\n".join((cwd / f"out{i}.txt").read_text() for i in range(len(procs)))


def ok(runs, job: str) -> Path:
    cwd, procs = runs[1][job]
    codes = [p.returncode for p in procs]
    assert codes == [0] * len(procs), f"{runs[0]} {job}: {codes}\n{output(runs, job)[-4000:]}"
    return cwd


def results(runs, job: str) -> dict[str, np.ndarray]:
    with np.load(ok(runs, job) / "results.npz") as f:
        return dict(f)


def scalars(run_dir: Path) -> dict[str, list[float]]:
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    acc = EventAccumulator(str(run_dir))
    acc.Reload()
    return {tag: [e.value for e in acc.Scalars(tag)] for tag in acc.Tags()["scalars"]}


def eval_returns(text: str) -> list[float]:
    """The returns of the `eval_episode=i, episodic_return=r, ...` lines, in order."""
    lines = [x for x in text.splitlines() if x.startswith("eval_episode=")]
    return [float(x.split("episodic_return=")[1].split(",")[0]) for x in lines]


def mean_return(r: dict[str, np.ndarray], updates: slice) -> float:
    """The mean return of the episodes that ended in these updates, in every env."""
    return r["metric/episode_return"][updates].sum() / r["metric/episode_count"][updates].sum()


def test_one_device_run_logs_cleanrl_tags(runs) -> None:
    cwd = ok(runs, "one_device")
    assert "actors on [CpuDevice(id=0)], learners on [CpuDevice(id=0)]" in output(runs,
                                                                                 "one_device")
    (run_dir,) = (cwd / "runs").iterdir()
    tags = scalars(run_dir)
    for tag in ("charts/episodic_return", "charts/episodic_length", "charts/SPS",
                "charts/learning_rate", "losses/loss", "losses/policy_loss", "losses/value_loss",
                "losses/entropy", "stats/rollout_queue_size", "stats/params_queue_size",
                "stats/rollout_queue_get_time", "stats/training_time", "stats/rollout_time",
                "stats/inference_time", "stats/params_queue_get_time", "eval/episodic_return"):
        assert tag in tags, f"{tag} missing from {sorted(tags)}"
    batch = 16 * int(LEARN[runs[0]]["--num-steps"])
    num_updates = int(LEARN[runs[0]]["--total-timesteps"]) // batch
    assert len(tags["charts/SPS"]) == num_updates
    r = results(runs, "one_device")
    assert np.isfinite(r["metric/loss"]).all()
    assert list(r["metric/global_step"]) == [batch * (i + 1) for i in range(num_updates)]
    # One point per finished episode (as the PyTorch scripts log), at a step of the run.
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    events = EventAccumulator(str(run_dir))
    events.Reload()
    for tag, total in (("return", "episode_return"), ("length", "episode_length")):
        points = events.Scalars(f"charts/episodic_{tag}")
        count = r["metric/episode_count"].sum()
        assert len(points) == count > num_updates, f"{tag}: {len(points)} points, {count} episodes"
        assert sum(p.value for p in points) == pytest.approx(r[f"metric/{total}"].sum(), rel=1e-5)
        assert all(0 < p.step <= num_updates * batch for p in points)


@pytest.mark.parametrize("job", ["one_device", "two_learners"])
def test_learns_cartpole(runs, job) -> None:
    r = results(runs, job)
    tenth = len(r["metric/episode_count"]) // 10
    first, last = mean_return(r, slice(None, tenth)), mean_return(r, slice(-tenth, None))
    assert first < 40, f"{runs[0]} {job}: starts at {first:.1f}, not near random play"
    assert last >= THRESHOLD, f"{runs[0]} {job}: {first:.1f} -> {last:.1f} < {THRESHOLD}"


@pytest.mark.parametrize("job", ["actor_learner_split", "two_learners", "two_processes"])
def test_same_global_configuration_is_bitwise_identical(runs, job) -> None:
    reference, other = results(runs, "one_device"), results(runs, job)
    assert sorted(reference) == sorted(other)
    differ = [k for k in reference if not np.array_equal(reference[k], other[k])]
    assert not differ, f"{job} differs from one_device in {differ}"
    text = output(runs, job)
    if job == "actor_learner_split":
        assert "actors on [CpuDevice(id=0)], learners on [CpuDevice(id=1)]" in text
    if job == "two_learners":
        assert "learners on [CpuDevice(id=0), CpuDevice(id=1)]" in text
    if job == "two_processes":
        assert "process 0/2" in text and "process 1/2" in text
        assert text.count("model saved to") == 1
        assert eval_returns(text) == eval_returns(output(runs, "one_device"))


def sgd_step_of_update(name: str, batch: dict, num_devices: int) -> list[np.ndarray]:
    """The change of every parameter leaf in one update of script `name` (1 epoch, 1
    minibatch, plain SGD with step 1, so the change is minus the reduced gradient) of `batch`,
    one gradient shard of 2 envs per learner device, on the first `num_devices` devices."""

    import jax
    import optax
    from conftest import load_script
    from flax.training.train_state import TrainState
    from jax.sharding import Mesh, NamedSharding
    from jax.sharding import PartitionSpec as P

    script = load_script({"ppo": "ppo_distributed", "impala": "impala_atari"}[name])
    epochs = {"update_epochs": 1} if name == "ppo" else {}  # IMPALA passes over a batch once
    args = script.Args(num_steps=4, num_minibatches=1, **epochs)
    agent = script.Agent(2, (), (8,))
    params = agent.init(jax.random.PRNGKey(0), np.zeros((1, 3), np.float32))
    mesh = Mesh(np.array(jax.devices()[:num_devices]), ("learner",))
    state = jax.device_put(TrainState.create(apply_fn=None, params=params, tx=optax.sgd(1.0)),
                           NamedSharding(mesh, P()))
    specs = {name: P(None, "learner") if name in script.TIME_MAJOR else P("learner")
             for name in batch}
    batch = {name: jax.device_put(x, NamedSharding(mesh, specs[name])) for name, x in batch.items()}
    if name == "ppo":
        update = script.make_learner_update(agent, args, mesh, 1, np.asarray(jax.random.PRNGKey(1)))
        new_state, _ = update(state, batch, np.uint32(1))
    else:
        new_state, _ = script.make_learner_update(agent, args, mesh, 1)(state, batch)
    return [np.asarray(new) - np.asarray(old) for new, old in
            zip(jax.tree.leaves(new_state.params), jax.tree.leaves(params), strict=True)]


def shard_update_check(name: str, out: str) -> None:
    """Run on 2 devices, for script `name`: for each of the 2 shards, the update of a batch in
    which only that shard's steps count (the other's masks are 0, so its gradient is 0), and
    the update of that shard's envs alone on 1 device; saved to `out`."""
    rng = np.random.default_rng(0)
    steps, envs = 4, 4
    batch = dict(obs=rng.normal(size=(steps + 1, envs, 3)).astype(np.float32),
                 actions=rng.integers(0, 2, (steps, envs)).astype(np.int32),
                 logits=rng.normal(size=(steps, envs, 2)).astype(np.float32),
                 rewards=rng.normal(size=(steps, envs)).astype(np.float32),
                 terminations=(rng.random((steps, envs)) < 0.2).astype(np.float32),
                 truncations=np.zeros((steps, envs), np.float32),
                 masks=np.ones((steps, envs), np.float32),
                 **{name: np.zeros(envs, np.float32)
                    for name in ("episode_return", "episode_length", "episode_count")})
    saved = {}
    for shard, (mine, other) in enumerate([(slice(0, 2), slice(2, 4)), (slice(2, 4), slice(0, 2))]):
        only_this_shard = {name: x.copy() for name, x in batch.items()}
        only_this_shard["masks"][:, other] = 0.0
        alone = {name: x[:, mine] if x.ndim > 1 else x[mine] for name, x in batch.items()}
        for kind, delta in (("both", sgd_step_of_update(name, only_this_shard, 2)),
                            ("alone", sgd_step_of_update(name, alone, 1))):
            saved |= {f"{shard}/{kind}/{i}": leaf for i, leaf in enumerate(delta)}
    np.savez(out, **saved)


def on_two_devices(check: str, name: str, tmp_path: Path) -> Path:
    """Runs this module's function `check(name, out)` in a process with 2 XLA CPU devices;
    returns `out`, the .npz it saved."""
    out = tmp_path / f"{check}.npz"
    code = (f"import sys; sys.path.insert(0, {str(ROOT / 'tests')!r}); "
            f"import test_cleanba_scripts as t; t.{check}({name!r}, {str(out)!r})")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=600, env={**os.environ, "OMP_NUM_THREADS": "1", **TWO_DEVICES})
    assert proc.returncode == 0, proc.stderr[-3000:]
    return out


def compiled_split_check(name: str, out: str) -> None:
    """Run on 2 devices, for script `name`: the compiled learner's update (2 minibatches, 2
    gradient shards, PPO 2 epochs) of 10 random CartPole-shaped batches on 1 and on 2 learner
    devices; the new parameters and the metrics saved to `out`."""
    import jax
    import optax
    from conftest import load_script
    from flax.training.train_state import TrainState
    from jax.sharding import Mesh, NamedSharding
    from jax.sharding import PartitionSpec as P

    script = load_script({"ppo": "ppo_distributed", "impala": "impala_atari"}[name])
    epochs = {"update_epochs": 2} if name == "ppo" else {}
    args = script.Args(num_steps=16, num_minibatches=2, learner_loop="compiled", **epochs)
    agent = script.Agent(2, (), (64, 64))
    # on the host: the compiled update donates (deletes) the state it is given
    params = jax.device_get(agent.init(jax.random.PRNGKey(0), np.zeros((1, 4), np.float32)))
    steps, envs, saved = 16, 16, {}
    for devices in (1, 2):
        mesh = Mesh(np.array(jax.devices()[:devices]), ("learner",))
        if name == "ppo":
            ppo_update = script.make_learner_update(agent, args, mesh, 2 // devices,
                                                    np.asarray(jax.random.PRNGKey(1)))
            update = lambda state, batch, f=ppo_update: f(state, batch, np.uint32(1))  # noqa: E731
        else:
            update = script.make_learner_update(agent, args, mesh, 2 // devices)
        for seed in range(10):
            rng = np.random.default_rng(seed)
            batch = dict(obs=rng.normal(size=(steps + 1, envs, 4)).astype(np.float32),
                         actions=rng.integers(0, 2, (steps, envs)).astype(np.int32),
                         logits=rng.normal(size=(steps, envs, 2)).astype(np.float32),
                         rewards=np.ones((steps, envs), np.float32),
                         terminations=(rng.random((steps, envs)) < 0.05).astype(np.float32),
                         truncations=np.zeros((steps, envs), np.float32),
                         masks=np.ones((steps, envs), np.float32),
                         **{n: np.ones(envs, np.float32) for n in script.EPISODE_SUMS})
            state = jax.device_put(TrainState.create(apply_fn=None, params=params,
                                                     tx=optax.adam(1e-3)),
                                   NamedSharding(mesh, P()))
            state, metrics = update(state, {n: jax.device_put(x, NamedSharding(
                mesh, script.BATCH_SPECS[n])) for n, x in batch.items()})
            saved |= {f"{seed}/{devices}/param/{i}": np.asarray(x)
                      for i, x in enumerate(jax.tree.leaves(state.params))}
            saved |= {f"{seed}/{devices}/metric/{k}": np.asarray(v) for k, v in metrics.items()}
    np.savez(out, **saved)


@pytest.mark.parametrize("name", ["impala", "ppo"])
def test_compiled_learner_gives_the_same_parameters_on_every_split(name, tmp_path) -> None:
    # The compiled loop (accelerators' default) on 1 and 2 learner devices: bitwise the same
    # parameters and metrics. Shown failing: with IMPALA's loss terms summed by .sum() instead
    # of dot products with the mask, 18 of its metric arrays differ (XLA:CPU compiles the
    # one-device program, both shards in it, a little differently); the parameters still match.
    with np.load(on_two_devices("compiled_split_check", name, tmp_path)) as saved:
        one = {k.split("/", 2)[0] + "/" + k.split("/", 2)[2]: saved[k] for k in saved
               if k.split("/")[1] == "1"}
        two = {k.split("/", 2)[0] + "/" + k.split("/", 2)[2]: saved[k] for k in saved
               if k.split("/")[1] == "2"}
    assert sorted(one) == sorted(two) and len(one) > 20
    for key, value in one.items():
        assert np.array_equal(value, two[key]), f"{name}: {key} differs on 2 devices"


@pytest.mark.parametrize("name", ["impala", "ppo"])
def test_an_update_averages_every_shards_gradient(name, tmp_path) -> None:
    # Both scripts average their shards' gradients, as Cleanba averages over its learner
    # devices (pmean). With 2 shards on 2 learner devices, a batch where only shard k's steps
    # count must move the parameters by half of what shard k's envs alone move them: a dropped
    # shard, a sum, a device that keeps its own gradient (no all_gather) all break it.
    with np.load(on_two_devices("shard_update_check", name, tmp_path)) as deltas:
        for shard in (0, 1):
            leaves = {key.rsplit("/", 1)[1] for key in deltas if key.startswith(f"{shard}/")}
            assert leaves
            for leaf in leaves:
                both, alone = deltas[f"{shard}/both/{leaf}"], deltas[f"{shard}/alone/{leaf}"]
                assert np.abs(alone).max() > 1e-3  # the shard's gradient is not 0
                np.testing.assert_allclose(both, 0.5 * alone, rtol=1e-4, atol=1e-6,
                                           err_msg=f"shard {shard}, leaf {leaf}")


def test_checkpoint_reloads_bitwise_and_plays_the_same_episodes(runs, impala, ppo) -> None:
    import jax

    cwd = ok(runs, "one_device")
    (model,) = (cwd / "runs").glob("*/*.cleanrl_model")
    saved_args, params = (impala if runs[0] == "impala" else ppo).load_checkpoint(model)
    assert saved_args.env_id == "CartPole-v1" and saved_args.hiddens == [64, 64]
    trained = results(runs, "one_device")
    leaves = jax.tree_util.tree_flatten_with_path(params)[0]
    assert sorted(f"param/{jax.tree_util.keystr(p)}" for p, _ in leaves) == sorted(
        k for k in trained if k.startswith("param/"))
    for path, value in leaves:
        reference = trained[f"param/{jax.tree_util.keystr(path)}"]
        assert value.dtype == reference.dtype and np.array_equal(value, reference), path

    after_training = eval_returns(output(runs, "one_device"))
    assert len(after_training) == EVAL_EPISODES
    assert np.mean(after_training) >= THRESHOLD, after_training
    proc = subprocess.run([sys.executable, str(SCRIPTS[runs[0]]), "--eval-checkpoint", str(model),
                           "--eval-episodes", str(EVAL_EPISODES), "--seed", LEARN_COMMON["--seed"]],
                          cwd=cwd, capture_output=True, text=True, timeout=600,
                          env={**os.environ, "OMP_NUM_THREADS": "1"})
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert eval_returns(proc.stdout) == after_training


def test_checkpoint_that_is_not_the_networks_fails_before_writing(runs, tmp_path,
                                                                  monkeypatch) -> None:
    # Hand-edited files: flax names the parameter that is missing or of another shape, as
    # PyTorch's load_state_dict does, before the evaluation writes anything.
    import flax.errors
    import flax.serialization
    import jax

    (model,) = (ok(runs, "one_device") / "runs").glob("*/*.cleanrl_model")
    saved = flax.serialization.msgpack_restore(model.read_bytes())
    leaves, tree = jax.tree_util.tree_flatten(saved["params"])
    variants = {
        "no_parameters": ({**saved, "params": {"params": {}}}, flax.errors.ScopeCollectionNotFound),
        "a_kernel_cut": ({**saved, "params": tree.unflatten([leaves[0][:1], *leaves[1:]])},
                         flax.errors.ScopeParamShapeError),
    }
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("XLA_FLAGS", os.environ.get("XLA_FLAGS", ""))  # the script appends to it
    for name, (checkpoint, error) in variants.items():
        path = tmp_path / f"{name}.cleanrl_model"
        path.write_bytes(flax.serialization.msgpack_serialize(checkpoint))
        monkeypatch.setattr(sys, "argv", [str(SCRIPTS[runs[0]]), "--eval-checkpoint", str(path)])
        with pytest.raises(error):
            runpy.run_path(str(SCRIPTS[runs[0]]), run_name="__main__")
    assert not (tmp_path / "runs").exists()


@pytest.mark.parametrize("loop", ["", "_compiled"])
def test_conv_net_on_two_learner_devices_is_bitwise_identical(runs, loop) -> None:
    one, two = results(runs, f"conv_one_learner{loop}"), results(runs, f"conv_two_learners{loop}")
    assert list(one["metric/global_step"]) == [32, 64]
    differ = [k for k in one if not np.array_equal(one[k], two[k])]
    assert not differ, f"{runs[0]}{loop}: 2 learner devices differ from 1 in {differ}"
    text = output(runs, f"conv_two_learners{loop}")
    assert "learners on [CpuDevice(id=0), CpuDevice(id=1)]" in text


def test_compiled_learner_is_another_program_with_the_same_training(runs) -> None:
    # The two loops compile differently (the last bits of the parameters differ), but it is
    # the same algorithm: the same updates, and losses equal to float32 rounding.
    python, compiled = results(runs, "conv_one_learner"), results(runs, "conv_one_learner_compiled")
    assert sorted(python) == sorted(compiled)
    for name in python:
        np.testing.assert_allclose(compiled[name], python[name], rtol=1e-3, atol=1e-5,
                                   err_msg=f"{runs[0]}: {name}")


def test_async_pools_without_concurrency_train(runs) -> None:
    r = results(runs, "async")
    assert list(r["metric/global_step"]) == [64, 128, 192]
    assert np.isfinite(r["metric/loss"]).all() and r["metric/episode_count"].sum() > 0


def test_atari_run_with_resnet_video_and_evaluation(runs) -> None:
    cwd = ok(runs, "atari")
    assert not list(cwd.glob("runs/*/*.cleanrl_model"))  # --capture-video evaluates, no saving
    (video,) = cwd.glob("videos/*/episode-0.mp4")
    assert video.stat().st_size > 1000
    (run_dir,) = [d for d in (cwd / "runs").iterdir() if d.is_dir()]
    assert len(scalars(run_dir)["eval/episodic_return"]) == 1


# --------------------------------------------------------------------------- argument errors


def test_bad_arguments_fail_clearly(tmp_path) -> None:
    # The scripts' own checks print an `error:` line; the rest is the library's own exception.
    (tmp_path / "wandb").mkdir()  # a wandb that fails to import, whether or not one is installed
    (tmp_path / "wandb" / "__init__.py").write_text("raise ImportError('no wandb')")
    env = {**os.environ, "OMP_NUM_THREADS": "1", "PYTHONPATH": str(tmp_path),
           "XLA_FLAGS": "--xla_force_host_platform_device_count=3"}
    cases = [
        (SCRIPTS["ppo"], ["--env-id", "CartPole-v1", "--track"], "ImportError: no wandb"),
        (SCRIPTS["impala"], ["--env-id", "CartPole-v1", "--local-num-envs", "16",
                             "--num-actor-threads", "1", "--learner-device-ids", "0", "1", "2"],
         "error: the global envs (local_num_envs 16 x num_actor_threads 1 x 1 actor devices x 1 "
         "processes = 16) must divide into 3 gradient shards"),
        (SCRIPTS["impala"], ["--env-id", "CartPol-v1"], "unknown task id 'CartPol-v1'"),
        (SCRIPTS["ppo"], ["--env-id", "Pendulum-v1"], "error: Pendulum-v1 has continuous actions"),
        (SCRIPTS["ppo"], ["--env-id", "CartPole-v1", "--local-num-envs", "4",
                          "--num-grad-shards", "3"], "= 8) must divide into 3 gradient shards"),
        (SCRIPTS["impala"], ["--env-id", "CartPole-v1", "--local-num-envs", "2",
                             "--num-actor-threads", "1", "--num-minibatches", "4"],
         "error: a shard's 2 envs must divide into --num-minibatches 4"),
        (SCRIPTS["ppo"], ["--eval-checkpoint", "missing.cleanrl_model"],
         "No such file or directory: 'missing.cleanrl_model'"),
        # jax.distributed.initialize's own messages, before it connects (in a new interpreter:
        # it must run before anything else in JAX)
        (SCRIPTS["impala"], ["--distributed", "--coordinator-address", "127.0.0.1:1"],
         "error: --distributed: Number of processes must be defined"),
        (SCRIPTS["ppo"], ["--distributed", "--coordinator-address", "127.0.0.1:1",
                          "--num-processes", "2", "--process-id", "2"],
         "error: --distributed: process_id and num_processes must be"),
    ]
    for script, args, message in cases:
        proc = subprocess.run([sys.executable, str(script), *args], cwd=tmp_path, env=env,
                              capture_output=True, text=True, timeout=600)
        assert proc.returncode != 0 and message in proc.stderr, (
            args, proc.stdout[-2000:], proc.stderr[-2000:])
        assert not (tmp_path / "runs").exists(), args


# Small enough that a case the scripts failed to refuse trains one update in a second, not hours.
TINY = {"--env-id": "CartPole-v1", "--local-num-envs": "4", "--num-actor-threads": "1",
        "--num-steps": "4", "--num-minibatches": "1", "--total-timesteps": "16", "--hiddens": "8"}
REFUSED = [  # (flags over TINY, what the error line says)
    ({"--num-minibatches": "0"}, "--num-minibatches must be at least 1"),
    ({"--num-minibatches": "-2"}, "--num-minibatches must be at least 1"),
    ({"--local-num-envs": "0"}, "--local-num-envs must be at least 1"),
    ({"--local-num-envs": "-4"}, "--local-num-envs must be at least 1"),
    ({"--num-actor-threads": "0"}, "--num-actor-threads must be at least 1"),
    ({"--num-steps": "0"}, "--num-steps must be at least 1"),
    ({"--num-grad-shards": "-1"}, "--num-grad-shards -1 must be a positive multiple of the 1 "),
    ({"--learner-device-ids": "0 0"}, "--learner-device-ids [0, 0] must be distinct"),
    ({"--actor-device-ids": "0 0"}, "--actor-device-ids [0, 0] must be distinct"),
    ({"--coordinator-address": "127.0.0.1:1"}, "--coordinator-address: only with --distributed"),
    ({"--num-processes": "2", "--process-id": "1"},
     "error: --num-processes, --process-id: only with --distributed"),
    ({"--distributed": "", "--coordinator-address": "nonsense", "--num-processes": "1",
      "--process-id": "0"}, "error: --distributed: "),
    ({"--results-file": "missing/results.npz"}, "the folder of --results-file"),
]


@pytest.mark.parametrize(
    ("name", "flags", "message"),
    [(name, flags, message) for name in SCRIPTS for flags, message in REFUSED]
    + [("ppo", {"--update-epochs": "0"}, "--update-epochs must be at least 1"),
       ("ppo", {"--num-minibatches": "16"}, "--num-minibatches 16 of at least 2 samples each")],
    ids=lambda x: " ".join(f"{k} {v}".strip() for k, v in x.items()) if isinstance(x, dict)
    else x if x in SCRIPTS else "")
def test_bad_flags_are_refused_before_training(name, flags, message, tmp_path,
                                               monkeypatch) -> None:
    # In this process, where the script's imports are already loaded: milliseconds, not the
    # seconds of a new interpreter.
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "argv", [str(SCRIPTS[name]), *(
        word for flag, value in {**TINY, **flags}.items() for word in (flag, *value.split()))])
    monkeypatch.setenv("XLA_FLAGS", os.environ.get("XLA_FLAGS", ""))  # the script appends to it
    # A refused run leaves no exit handler behind (a distributed run's os._exit(1) once made
    # this very pytest process exit 1 after every test had passed).
    registered, register = [], atexit.register
    monkeypatch.setattr(atexit, "register", lambda function, *args, **kwargs: (
        registered.append(function.__name__), register(function, *args, **kwargs))[1])
    with pytest.raises(SystemExit) as exited:
        runpy.run_path(str(SCRIPTS[name]), run_name="__main__")
    assert "leave_at_once" not in registered
    assert str(exited.value.code).startswith("error: ") and message in str(exited.value.code), (
        exited.value.code)
    assert not list(tmp_path.iterdir())


@pytest.mark.parametrize("name", SCRIPTS)
def test_docstring_example_with_several_devices_starts(name, tmp_path) -> None:
    # The docstring's second command, with the defaults, on as many virtual CPU devices as it
    # names: it must pass every check (the line below is printed after them), then is stopped.
    (line,) = [x for x in SCRIPTS[name].read_text().splitlines() if "--learner-device-ids" in x
               and x.lstrip().startswith("python")]
    words = line.split("#")[0].split()[2:]
    num_devices = max(int(word) for word in words if word.isdigit()) + 1
    env = {**os.environ, "OMP_NUM_THREADS": "1",
           "XLA_FLAGS": f"--xla_force_host_platform_device_count={num_devices}"}
    proc = subprocess.Popen([sys.executable, str(SCRIPTS[name]), *words], cwd=tmp_path, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    lines = []
    try:
        for text in proc.stdout:  # until that line, or the exit
            lines.append(text)
            if text.startswith("process 0/1: "):
                break
    finally:
        proc.kill()
        proc.wait()
    assert lines and lines[-1].startswith("process 0/1: "), "".join(lines)[-3000:]


def start_processes(tmp_path, name: str, flags_per_process: list[dict]) -> list:
    """Starts one process of a --distributed run of script `name` per entry of
    flags_per_process, on a free localhost port; process i writes to tmp_path/out{i}.txt."""
    port = free_port()
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    procs = []
    for i, flags in enumerate(flags_per_process):
        words = [word for flag, value in flags.items() for word in (flag, value)]
        with open(tmp_path / f"out{i}.txt", "w") as out:
            procs.append(subprocess.Popen(
                [sys.executable, str(SCRIPTS[name]), *words, "--distributed",
                 "--coordinator-address", f"127.0.0.1:{port}", "--num-processes",
                 str(len(flags_per_process)), "--process-id", str(i)], cwd=tmp_path, env=env,
                stdout=out, stderr=subprocess.STDOUT))
    return procs


def test_a_failing_process_stops_every_process_at_once(tmp_path) -> None:
    # 2 processes on localhost train for long; once their collectives are connected, process 1
    # gets a KeyboardInterrupt (SIGINT). It must print its traceback and leave at once, and so
    # must process 0 when its next all_gather fails (not wait 5 minutes in jax.distributed's
    # shutdown barrier, then abort). The main loop is the same text in both scripts: one is run.
    long_run = {**TINY, "--total-timesteps": "100000000"}
    # A child inherits an ignored SIGINT (pytest run as a shell's background job), not a handler.
    previous_handler = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        procs = start_processes(tmp_path, "impala", [long_run, long_run])
    finally:
        signal.signal(signal.SIGINT, previous_handler)
    try:
        deadline = time.time() + 300
        while "[Gloo] Rank 1 is connected" not in (tmp_path / "out1.txt").read_text():
            assert time.time() < deadline and all(p.poll() is None for p in procs), (
                (tmp_path / "out0.txt").read_text()[-2000:])
            time.sleep(0.2)
        time.sleep(1.0)  # well inside the training loop
        procs[1].send_signal(signal.SIGINT)
        # A KeyboardInterrupt that lands in a gc callback (JAX has one) is only printed,
        # "Exception ignored in: ...": then Ctrl-C is pressed again, as a user would.
        for _ in range(5):
            try:
                procs[1].wait(timeout=20)
                break
            except subprocess.TimeoutExpired:
                text = (tmp_path / "out1.txt").read_text()
                if text.count("Exception ignored") < text.count("KeyboardInterrupt"):
                    break  # one was taken: the process is leaving
                procs[1].send_signal(signal.SIGINT)
        for p in procs:
            p.wait(timeout=60)
    finally:
        for p in procs:
            p.kill()
            p.wait()
    outputs = [(tmp_path / f"out{i}.txt").read_text() for i in range(2)]
    assert 0 not in [p.returncode for p in procs], [text[-2000:] for text in outputs]
    assert "KeyboardInterrupt" in outputs[1]
    assert "Traceback" in outputs[0], outputs[0][-2000:]  # process 0 says what it saw


def test_processes_with_different_flags_are_refused(tmp_path) -> None:
    # Process 1 is given another --num-steps: both must say so and stop, not train on rollouts
    # of two shapes and then hang in the shutdown barrier.
    procs = start_processes(tmp_path, "ppo", [{**TINY, "--num-steps": num_steps}
                                              for num_steps in ("4", "8")])
    try:
        for p in procs:
            p.wait(timeout=240)
    finally:
        for p in procs:
            p.kill()
            p.wait()
    for i, p in enumerate(procs):
        text = (tmp_path / f"out{i}.txt").read_text()
        assert p.returncode != 0 and "error: --distributed: the processes were given different " \
            "flags" in text, text[-2000:]
    assert not (tmp_path / "runs").exists()
