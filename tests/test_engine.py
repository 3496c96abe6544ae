"""The engine and the Python API, exercised on CartPole (it steps in nanoseconds)."""

from __future__ import annotations

import gc
import os
import resource
import subprocess
import sys
import time

import numpy as np
import pytest

import envpool_core as ep


def rollout(num_threads: int, steps: int = 300, seed: int = 3, num_envs: int = 6) -> list:
    env = ep.make("CartPole-v1", num_envs=num_envs, num_threads=num_threads, seed=seed)
    rng = np.random.default_rng(0)
    obs, _ = env.reset()
    out = [obs.copy()]
    for _ in range(steps):
        obs, rew, term, trunc, info = env.step(rng.integers(0, 2, num_envs))
        out += [obs.copy(), rew.copy(), term.copy(), trunc.copy(), info["elapsed_step"].copy()]
    env.close()
    return out


def test_registry_and_spec() -> None:
    assert {"CartPole-v0", "CartPole-v1"} <= set(ep.list_all_envs())
    spec = ep.make_spec("CartPole-v1", num_envs=4)
    assert spec.config.num_envs == 4
    assert spec.config.batch_size == 4
    assert spec.config.max_episode_steps == 500
    assert ep.make_spec("CartPole-v0").config.max_episode_steps == 200
    assert spec.action_space.n == 2
    assert spec.observation_space.shape == (4,)
    env = ep.make("CartPole-v1", num_envs=4, batch_size=2)
    assert (len(env), env.num_envs, env.batch_size, env.is_async) == (4, 4, 2, True)
    assert env.config["num_envs"] == 4 and env.config["seed"] == 42


def test_env_types() -> None:
    # env_type="gym" follows the installed gym: tests/test_gym_api.py.
    for make in (ep.make_gymnasium, lambda t, **k: ep.make(t, **k)):
        env = make("CartPole-v1", num_envs=2)
        obs, info = env.reset()
        assert obs.shape == (2, 4) and obs.dtype == np.float32
        assert set(info) == {"env_id", "players", "elapsed_step"}
        assert list(info["players"]["env_id"]) == [0, 1]
        result = env.step(np.array([0, 1]))
        assert len(result) == 5
    dm = ep.make_dm("CartPole-v1", num_envs=2)
    ts = dm.reset()
    assert list(ts.step_type) == [0, 0]
    assert ts.observation.obs.shape == (2, 4)
    ts = dm.step(np.array([1, 1]))
    assert list(ts.step_type) == [1, 1] and list(ts.discount) == [1, 1]
    assert dm.action_spec().num_values == 2
    # observation_spec() has TimeStep.observation's structure, as EnvPool's (tree utilities
    # such as dm-tree's assert_same_structure rely on it).
    spec = dm.observation_spec()
    assert spec._fields == ts.observation._fields and spec.obs.shape == (4,)
    for field, value in zip(spec._fields, ts.observation, strict=True):
        leaf = getattr(spec, field)
        if field == "players":
            leaf, value = leaf.env_id, value.env_id
        assert value.shape[1:] == leaf.shape and value.dtype == leaf.dtype, field
    with pytest.raises(ValueError, match="env_type"):
        ep.make("CartPole-v1", env_type="torch")


def test_determinism_across_threads() -> None:
    ref = rollout(1)
    for threads in (2, 4):
        for a, b in zip(ref, rollout(threads), strict=False):
            np.testing.assert_array_equal(a, b)


def test_seeds() -> None:
    a, b = rollout(2, steps=5, seed=1), rollout(2, steps=5, seed=2)
    assert not np.array_equal(a[0], b[0])
    # Per-env seed list: env i with seed s_i equals a single-env pool with seed s_i.
    pool = ep.make("CartPole-v1", num_envs=3, seed=[7, 100, 7])
    obs, _ = pool.reset()
    np.testing.assert_array_equal(obs[0], obs[2])
    single = ep.make("CartPole-v1", num_envs=1, seed=100)
    np.testing.assert_array_equal(single.reset()[0][0], obs[1])
    # seed + i
    pool = ep.make("CartPole-v1", num_envs=2, seed=10)
    np.testing.assert_array_equal(pool.reset()[0][1], ep.make("CartPole-v1", seed=11).reset()[0][0])


def test_sync_order_and_subsets() -> None:
    env = ep.make("CartPole-v1", num_envs=8, num_threads=3)
    env.reset()
    order = np.array([5, 2, 7, 0, 1, 6, 3, 4], dtype=np.int32)
    for _ in range(20):
        _, _, _, _, info = env.step(np.ones(8, np.int32), order)
        np.testing.assert_array_equal(info["env_id"], order)
    subset = np.array([6, 1, 3])
    for _ in range(20):
        obs, rew, _, _, info = env.step(np.zeros(3, np.int32), subset)
        assert obs.shape == (3, 4) and rew.shape == (3,)
        np.testing.assert_array_equal(info["env_id"], subset)
    # Partial reset returns only those envs, in order.
    obs, info = env.reset(np.array([4, 2]))
    np.testing.assert_array_equal(info["env_id"], [4, 2])
    np.testing.assert_array_equal(info["elapsed_step"], [0, 0])


def test_auto_reset_next_step() -> None:
    env = ep.make("CartPole-v1", num_envs=1, seed=0)
    env.reset()
    steps = 0
    while True:
        obs, rew, term, trunc, info = env.step(np.array([1]))
        steps += 1
        assert info["elapsed_step"][0] == steps
        if term[0]:
            break
    # The action after a terminal step is ignored and the env resets.
    obs, rew, term, trunc, info = env.step(np.array([1]))
    assert info["elapsed_step"][0] == 0 and rew[0] == 0 and not term[0] and not trunc[0]
    assert np.all(np.abs(obs) <= 0.05)
    dm = ep.make_dm("CartPole-v1", num_envs=1, seed=0)
    dm.reset()
    while True:
        ts = dm.step(np.array([1]))
        if ts.step_type[0] == 2:
            assert ts.discount[0] == 0
            break
    assert dm.step(np.array([1])).step_type[0] == 0


def test_truncation() -> None:
    env = ep.make("CartPole-v1", num_envs=4, max_episode_steps=5, seed=1)
    env.reset()
    for t in range(1, 6):
        _, _, term, trunc, info = env.step(np.array([0, 1, 0, 1]))
        assert not term.any()
        assert trunc.all() == (t == 5)
    _, rew, _, _, info = env.step(np.zeros(4, np.int32))
    assert (info["elapsed_step"] == 0).all() and (rew == 0).all()
    dm = ep.make_dm("CartPole-v1", num_envs=1, max_episode_steps=2)
    dm.reset()
    dm.step(np.array([0]))
    ts = dm.step(np.array([0]))
    assert ts.step_type[0] == 2 and ts.discount[0] == 1  # truncation keeps the discount


def test_async_serves_every_env_while_the_workers_get_no_cpu() -> None:
    # With every core busy elsewhere, recv()'s caller steps the envs itself. It used to take
    # them always from one worker's queue, so the other queue's envs never came back: here
    # envs 1, 3 and 5 were missing from all 40 batches, every time.
    busy = [subprocess.Popen([sys.executable, "-c", "while True: pass"])
            for _ in range(os.cpu_count() or 2)]
    try:
        time.sleep(0.5)
        env = ep.make("CartPole-v1", num_envs=6, batch_size=3, num_threads=2, seed=5)
        env.async_reset()
        served = np.zeros(6, int)
        for _ in range(40):
            obs, *_, info = env.recv()
            served[info["env_id"]] += 1
            env.send((obs[:, 2] < 0).astype(np.int32), info["env_id"])
    finally:
        for process in busy:
            process.kill()
    assert served.min() >= 5, served


def test_async_serves_every_env() -> None:
    num_envs, batch = 10, 4
    env = ep.make("CartPole-v1", num_envs=num_envs, batch_size=batch, num_threads=2, seed=5)
    env.async_reset()
    served = np.zeros(num_envs, int)
    last_elapsed = np.full(num_envs, -1)
    rng = np.random.default_rng(1)
    for _ in range(3000):
        _obs, _rew, _term, _trunc, info = env.recv()
        ids = info["env_id"]
        assert len(ids) == batch and len(set(ids.tolist())) == batch
        elapsed = info["elapsed_step"]
        # Every action sent is applied exactly once: elapsed advances by one or restarts.
        ok = (elapsed == last_elapsed[ids] + 1) | (elapsed == 0)
        assert ok.all()
        last_elapsed[ids] = elapsed
        served[ids] += 1
        env.send(rng.integers(0, 2, batch), ids)
    # In-flight count stays num_envs; everyone got served a fair share.
    assert served.sum() == 3000 * batch
    assert served.min() > 0.5 * served.mean()


def test_async_reset_then_step_with_env_id_default() -> None:
    # env_id omitted in async mode: the actions go to the envs of the last batch, in the order
    # that batch listed them. The test task's reward is the action it stepped with.
    from envpool_core.registry import register_fault_injection_task

    env = ep.make(register_fault_injection_task(), num_envs=6, batch_size=3, num_actions=100)
    obs, info = env.reset()
    assert obs.shape == (3,)
    batch = info["env_id"].copy()
    sent = dict(zip(batch.tolist(), (10, 20, 30), strict=True))
    env.send(np.array([10, 20, 30], np.int32))
    stepped = {}
    while len(stepped) < 3:  # until each of those envs is back from its step
        _, reward, _, _, info = env.recv()
        for env_id, elapsed, r in zip(info["env_id"], info["elapsed_step"], reward, strict=True):
            if elapsed == 1 and int(env_id) in sent:  # its first step: the one sent above
                stepped[int(env_id)] = int(r)
        env.send(np.zeros(3, np.int32), info["env_id"])
    assert stepped == sent, (batch, stepped)


def test_dict_action_and_dtype_casting() -> None:
    env = ep.make("CartPole-v1", num_envs=3)
    env.reset()
    _, _, _, _, info = env.step({"action": np.array([1, 0, 1]), "env_id": np.array([2, 0, 1])})
    np.testing.assert_array_equal(info["env_id"], [2, 0, 1])
    env.step(np.array([1, 0, 1], dtype=np.int64))  # int64 from torch is fine
    env.step([1, 0, 1])  # lists too


def test_errors() -> None:
    with pytest.raises(ValueError, match="did you mean 'CartPole-v1'"):
        ep.make("CartPol-v1")
    with pytest.raises(TypeError, match=r"unknown option 'foo'.*allowed options"):
        ep.make("CartPole-v1", foo=1)
    with pytest.raises(ValueError, match="num_envs"):
        ep.make("CartPole-v1", num_envs=0)
    with pytest.raises(ValueError, match="batch_size"):
        ep.make("CartPole-v1", num_envs=2, batch_size=3)
    with pytest.raises(ValueError, match="num_threads"):
        ep.make("CartPole-v1", num_threads=-1)
    with pytest.raises(ValueError, match="seed"):
        ep.make("CartPole-v1", num_envs=3, seed=[1, 2])
    with pytest.raises(ValueError, match="num_envs"):
        ep.make("CartPole-v1", num_envs="3")
    with pytest.raises(ValueError, match="max_episode_steps"):
        ep.make("CartPole-v1", max_episode_steps=0)
    for seed in (2**63, np.uint64(2**63), [2**64]):
        with pytest.raises(ValueError, match=r"'seed' = .* signed 64-bit"):
            ep.make("CartPole-v1", num_envs=1, seed=seed)
    # EnvPool's range, a C++ int: the envs use a seed's low 32 bits, so 2**32 + 5 would
    # silently play seed 5's episodes.
    for seed in (2**31, -(2**31) - 1, 2**32 + 5, [5, 2**32]):
        with pytest.raises(ValueError, match=r"invalid value -?\d+ for 'seed'.*"
                                             r"\[-2147483648, 2147483647\]"):
            ep.make("CartPole-v1", num_envs=2, seed=seed)
    for seed in (-(2**31), 2**31 - 1, [-(2**31), 2**31 - 1]):
        ep.make("CartPole-v1", num_envs=2, seed=seed).close()

    env = ep.make("CartPole-v1", num_envs=4)
    with pytest.raises(RuntimeError, match="nothing in flight"):
        env.recv()
    env.reset()
    with pytest.raises(ValueError, match="shape"):
        env.step(np.zeros((4, 2), np.int32))
    with pytest.raises(ValueError, match="got 3 actions"):
        env.step(np.zeros(3, np.int32))
    # Whole-valued floats are the actions they equal, as EnvPool casts them; fractions are
    # refused, not truncated to another action.
    assert env.step(np.zeros(4, np.float32))[0].shape == (4, 4)
    with pytest.raises(ValueError, match=r"action 0.5 is not a whole number"):
        env.step(np.array([0, 0.5, 1, 1]))
    with pytest.raises(ValueError, match=r"action nan is not a whole number"):
        env.step(np.array([0, np.nan, 1, 1]))
    with pytest.raises(ValueError, match="out of range"):
        env.step(np.array([0.0, 2.0, 1.0, 1.0]))
    with pytest.raises(TypeError, match="dtype"):
        env.step(np.zeros(4, np.complex64))
    with pytest.raises(ValueError, match="out of range"):
        env.step(np.array([0, 1, 2, 0]))
    with pytest.raises(ValueError, match="out of range"):
        env.step(np.array([0, 1, -1, 0], dtype=np.int32))
    with pytest.raises(ValueError, match="env_id 9 is out of range"):
        env.step(np.zeros(2, np.int32), np.array([0, 9]))
    with pytest.raises(ValueError, match="appears twice"):
        env.step(np.zeros(2, np.int32), np.array([1, 1]))
    # Out of int32's range: not wrapped onto another env (2**32 + 1 would be env 1).
    with pytest.raises(ValueError, match=r"env_id 4294967297 is out of range \[0, 4\)"):
        env.step(np.zeros(2, np.int32), np.array([0, 2**32 + 1]))
    with pytest.raises(ValueError, match="out of range"):
        env.reset(np.array([2**40]))
    with pytest.raises(TypeError, match="env_id must be integers"):
        env.step(np.zeros(2, np.int32), np.array([0.0, 1.0]))
    # The pool is still usable after every error above.
    env.step(np.zeros(4, np.int32))
    env.send(np.zeros(2, np.int32), np.array([0, 1]))
    with pytest.raises(ValueError, match=r"already has an action in flight: recv\(\) its "
                                         r"result before the next send\(\)"):
        env.send(np.zeros(1, np.int32), np.array([1]))
    env.recv()

    async_env = ep.make("CartPole-v1", num_envs=4, batch_size=2)
    async_env.async_reset()
    with pytest.raises(ValueError, match=r"in flight: recv\(\) its result before the next reset"):
        async_env.async_reset()
    _, _, _, _, info = async_env.recv()
    async_env.recv()
    async_env.send(np.zeros(1, np.int32), info["env_id"][:1])
    with pytest.raises(RuntimeError, match="wait forever"):
        async_env.recv()
    # A reset no recv() could return is refused before it is queued: nothing stays in flight.
    async_env = ep.make("CartPole-v1", num_envs=4, batch_size=2)
    with pytest.raises(RuntimeError, match="wait forever"):
        async_env.reset(np.array([3]))
    async_env.async_reset()
    async_env.recv()

    env.close()
    env.close()  # idempotent
    # The error names the call that was refused.
    for name, call in [("reset", env.reset), ("reset", env.async_reset), ("recv", env.recv),
                       ("send", lambda: env.step(np.zeros(4, np.int32)))]:
        with pytest.raises(RuntimeError, match=f"cannot {name}: the pool is closed"):
            call()
    with pytest.raises(RuntimeError, match="cannot render: the pool is closed"):
        env.render()


@pytest.mark.parametrize("num_envs", [4, 100])  # sends of at most and of more than 64 ids
def test_repeated_env_ids_are_refused_and_leave_the_pool_usable(num_envs: int) -> None:
    env = ep.make("CartPole-v1", env_type="gymnasium", num_envs=num_envs)
    env.reset()
    actions = np.zeros(num_envs, np.int32)
    for first, second in [(0, num_envs - 1), (num_envs - 2, num_envs - 1), (1, 2)]:
        ids = np.arange(num_envs)
        ids[second] = ids[first]
        with pytest.raises(ValueError, match=f"env_id {first} appears twice"):
            env.step(actions, ids)
        # A refused send changes nothing: the same envs step next, each once, in order.
        _, _, _, _, info = env.step(actions, np.arange(num_envs))
        np.testing.assert_array_equal(info["env_id"], np.arange(num_envs))
    for _ in range(3):  # each send checks afresh: ids seen by the last one are not repeats
        env.step(actions, np.arange(num_envs)[::-1])
    env.close()


def test_zero_copy_and_lifetime() -> None:
    env = ep.make("CartPole-v1", num_envs=4)
    obs0, _ = env.reset()
    first = obs0.copy()
    obs1, _rew1, *_ = env.step(np.zeros(4, np.int32))
    # Results view engine memory (no copy) and never alias each other while alive.
    assert not obs0.flags.owndata and not obs1.flags.owndata
    assert not np.shares_memory(obs0, obs1)
    for _ in range(10):
        env.step(np.zeros(4, np.int32))
    np.testing.assert_array_equal(obs0, first)  # an old result is never overwritten
    kept = obs1.copy()
    del env
    gc.collect()
    np.testing.assert_array_equal(obs1, kept)  # results outlive the pool


def rss_mb() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * resource.getpagesize() / 2**20


def test_memory_is_stable() -> None:
    for _ in range(200):  # warm up allocators
        ep.make("CartPole-v1", num_envs=4).close()
    start = rss_mb()
    for i in range(2000):
        env = ep.make("CartPole-v1", num_envs=4, num_threads=2)
        env.reset()
        env.step(np.zeros(4, np.int32))
        if i % 2:
            env.close()
        del env
    assert rss_mb() - start < 20

    env = ep.make("CartPole-v1", num_envs=8)
    env.reset()
    action = np.zeros(8, np.int32)
    for _ in range(10_000):
        env.step(action)
    start = rss_mb()
    for _ in range(125_000):  # a million env steps
        env.step(action)
    assert rss_mb() - start < 5


def _thread_ids() -> set[int]:
    return {int(tid) for tid in os.listdir("/proc/self/task")}


def _worker_affinities(**kwargs: object) -> list[set[int]]:
    """The CPU sets of a new pool's worker threads: the threads that appear when it is made
    and are gone once it is closed (its workers are joined in close())."""
    before = _thread_ids()
    env = ep.make("CartPole-v1", **kwargs)
    env.reset()
    # A worker pins itself when it first runs, which a loaded machine may delay past reset()
    # (the caller steps envs too): wait for that, up to a bound that only a missing pin hits.
    deadline = time.monotonic() + 60
    while True:
        during = _thread_ids() - before
        affinities = {tid: os.sched_getaffinity(tid) for tid in during}
        settled = all(len(cpus) == 1 for cpus in affinities.values())
        if kwargs.get("thread_affinity_offset", -1) < 0 or settled or time.monotonic() > deadline:
            break
        time.sleep(0.01)
    env.close()
    # A joined thread's /proc entry can outlive the join by a moment: wait for the workers'.
    while during & _thread_ids() and time.monotonic() < deadline + 60:
        time.sleep(0.01)
    return [affinities[tid] for tid in sorted(during - _thread_ids())]


@pytest.mark.skipif(not hasattr(os, "sched_getaffinity"), reason="Linux thread affinity")
def test_thread_affinity() -> None:
    # Worker t is pinned to the ((offset + t) mod n)-th of the n CPUs the process may run on.
    cpus = sorted(os.sched_getaffinity(0))
    for num_threads, offset in ((2, 0), (3, 1)):
        pinned = _worker_affinities(num_envs=4, num_threads=num_threads,
                                    thread_affinity_offset=offset)
        assert len(pinned) == num_threads
        assert sorted(pinned, key=min) == sorted(
            ({cpus[(offset + t) % len(cpus)]} for t in range(num_threads)), key=min), pinned
    # Without an offset the workers keep the process's CPU set.
    free = _worker_affinities(num_envs=4, num_threads=2)
    assert free == [os.sched_getaffinity(0)] * 2
    with pytest.raises(ValueError, match="thread_affinity_offset"):
        ep.make("CartPole-v1", thread_affinity_offset=-2)
