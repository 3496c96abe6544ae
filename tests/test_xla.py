"""`pool.xla()`: send/recv as JAX FFI calls inside jit and lax.scan, bit-identical to Python."""

from __future__ import annotations

import gc
from collections import defaultdict
from typing import Any

import numpy as np
import pytest

import envpool_core as ep

jax = pytest.importorskip("jax")
jnp = jax.numpy

STEPS = 40


def policy(xp: Any, obs: Any, t: Any) -> Any:
    """A deterministic CartPole policy computed the same way in numpy and jax.numpy."""
    return ((obs[:, 2] > 0) ^ (t % 3 == 0)).astype(xp.int32)


def python_rollout(env_type: str, **kwargs: Any) -> list:
    env = ep.make("CartPole-v1", env_type=env_type, **kwargs)
    first = env.reset()
    obs = first.observation.obs if env_type == "dm" else first
    if env_type == "gymnasium":
        obs = first[0]
    outs = []
    for t in range(STEPS):
        out = env.step(policy(np, obs, t))
        outs.append(out)
        obs = out.observation.obs if env_type == "dm" else out[0]
    return outs


def xla_rollout(env_type: str, **kwargs: Any) -> Any:
    env = ep.make("CartPole-v1", env_type=env_type, **kwargs)
    handle, *_, step = env.xla()
    first = env.reset()  # CleanRL's order: xla() first, then a Python reset
    obs = first.observation.obs if env_type == "dm" else first
    if env_type == "gymnasium":
        obs = first[0]

    def body(carry: Any, t: Any) -> Any:
        handle, obs = carry
        handle, out = step(handle, policy(jnp, obs, t))
        next_obs = out.observation.obs if env_type == "dm" else out[0]
        return (handle, next_obs), out

    rollout = jax.jit(lambda h, o: jax.lax.scan(body, (h, o), jnp.arange(STEPS)))
    (_, _), outs = rollout(handle, jnp.asarray(obs))
    return env, outs


@pytest.mark.parametrize("env_type", ["gymnasium", "gym", "dm"])
def test_sync_scan_is_bit_identical_to_the_python_loop(env_type: str) -> None:
    kwargs = dict(num_envs=4, seed=7, max_episode_steps=15)
    expected = python_rollout(env_type, **kwargs)
    _, got = xla_rollout(env_type, **kwargs)
    # The same structure as the pool's own recv(), every leaf stacked over the steps.
    stacked = jax.tree.map(lambda *xs: np.stack(xs), *expected)
    got_leaves, _ = jax.tree_util.tree_flatten_with_path(got)
    want_leaves, _ = jax.tree_util.tree_flatten_with_path(stacked)
    assert [jax.tree_util.keystr(p) for p, _ in got_leaves] == \
        [jax.tree_util.keystr(p) for p, _ in want_leaves]
    assert type(got).__name__ == type(stacked).__name__
    for (path, a), (_, b) in zip(got_leaves, want_leaves, strict=True):
        assert a.dtype == b.dtype and a.shape == b.shape, jax.tree_util.keystr(path)
        np.testing.assert_array_equal(np.asarray(a), b, err_msg=jax.tree_util.keystr(path))
    obs = stacked.observation.obs if env_type == "dm" else stacked[0]
    assert obs.std() > 0
    if env_type == "gym":
        done, info = stacked[2], stacked[3]
        assert done.any() and info["TimeLimit.truncated"].any()  # resets happened inside scan


def per_env_trajectories(batches: list[tuple]) -> dict[int, list]:
    trajectories: dict[int, list] = defaultdict(list)
    for obs, reward, term, trunc, env_id in batches:
        for row, i in enumerate(env_id):
            trajectories[int(i)].append((obs[row], reward[row], term[row], trunc[row]))
    return trajectories


def test_async_scan_matches_the_python_loop_per_env() -> None:
    """Async batches come in any order; each env's own trajectory is deterministic."""
    kwargs = dict(num_envs=6, batch_size=3, num_threads=2, seed=5, max_episode_steps=12)
    env = ep.make("CartPole-v1", **kwargs)
    env.async_reset()
    python_batches = []
    for _ in range(STEPS):
        obs, reward, term, trunc, info = env.recv()
        python_batches.append((obs.copy(), reward, term, trunc, info["env_id"]))
        env.send(policy(np, obs, 1), info["env_id"])

    env = ep.make("CartPole-v1", **kwargs)
    handle, recv, send, _ = env.xla()
    env.async_reset()

    def body(handle: Any, _: Any) -> Any:
        handle, (obs, reward, term, trunc, info) = recv(handle)
        handle = send(handle, policy(jnp, obs, 1), info["env_id"])
        return handle, (obs, reward, term, trunc, info["env_id"])

    _, outs = jax.jit(lambda h: jax.lax.scan(body, h, None, length=STEPS))(handle)
    xla_batches = [tuple(np.asarray(x[t]) for x in outs) for t in range(STEPS)]
    ours, theirs = per_env_trajectories(xla_batches), per_env_trajectories(python_batches)
    assert sorted(ours) == sorted(theirs) == list(range(6))
    for i in range(6):
        n = min(len(ours[i]), len(theirs[i]))
        assert n >= 5
        for a, b in zip(ours[i][:n], theirs[i][:n], strict=True):
            for x, y in zip(a, b, strict=True):
                np.testing.assert_array_equal(x, y)


def test_python_and_xla_calls_interleave() -> None:
    """xla() steps and Python steps of one pool continue the same episodes."""
    actions = [np.array([t % 2, 1, 0], np.int32) for t in range(10)]
    ref = ep.make("CartPole-v1", num_envs=3, seed=2)
    ref.reset()
    expected = [ref.step(a)[0] for a in actions]
    env = ep.make("CartPole-v1", num_envs=3, seed=2)
    handle, _, _, step = env.xla()
    env.reset()
    jstep = jax.jit(step)
    got = []
    for t, a in enumerate(actions):
        if t % 3 == 1:
            got.append(env.step(a)[0])
        else:
            handle, out = jstep(handle, a)
            got.append(np.asarray(out[0]))
    np.testing.assert_array_equal(np.stack(got), np.stack(expected))


def test_atari_old_api_through_xla_as_cleanrl_reads_it() -> None:
    kwargs = dict(num_envs=2, episodic_life=True, reward_clip=True, seed=1)
    ref = ep.make("Breakout-v5", env_type="gym", **kwargs)
    env = ep.make("Breakout-v5", env_type="gym", **kwargs)
    handle, _, _, step_env = env.xla()
    ref.reset()
    env.reset()
    step = jax.jit(step_env)
    for t in range(4):
        action = np.array([t % 4, 1], np.int32)
        handle, (obs, reward, done, info) = step(handle, action)
        obs2, reward2, done2, info2 = ref.step(action)
        assert obs.dtype == jnp.uint8 and obs.shape == (2, 4, 84, 84)
        for a, b in [(obs, obs2), (reward, reward2), (done, done2)]:
            np.testing.assert_array_equal(np.asarray(a), b)
        for key in ("reward", "terminated", "lives", "TimeLimit.truncated"):
            np.testing.assert_array_equal(np.asarray(info[key]), info2[key])


def test_float64_envs_under_default_jax_use_float32() -> None:
    ref = ep.make("Hopper-v4", num_envs=2, seed=0)
    env = ep.make("Hopper-v4", num_envs=2, seed=0)
    handle, _, _, step = env.xla()
    ref.reset()
    env.reset()
    action = np.full((2, 3), 0.25)
    handle, out = jax.jit(step)(handle, action)
    expected = ref.step(action)
    assert out[0].dtype == jnp.float32
    np.testing.assert_array_equal(np.asarray(out[0]), expected[0].astype(np.float32))


def test_errors() -> None:
    env = ep.make("CartPole-v1", num_envs=2)
    handle, _, send, step = env.xla()
    env.reset()
    with pytest.raises(ValueError, match="vmap"):
        jax.vmap(lambda a: step(handle, a)[1][1])(jnp.zeros((3, 2), jnp.int32))
    with pytest.raises(ValueError, match="env_id is None"):
        send(handle, jnp.zeros(1, jnp.int32))
    with pytest.raises(ValueError, match="shape"):
        send(handle, jnp.zeros((2, 2), jnp.int32))
    with pytest.raises(TypeError, match="action dtype float32 cannot be used as int32"):
        send(handle, jnp.array([0.7, 1.9]))  # as the Python path: not truncated to [0, 1]
    with pytest.raises(Exception, match=r"out of range \[0, 1\]"):
        jax.block_until_ready(send(handle, jnp.array([0, 5], jnp.int32)))
    with pytest.raises(Exception, match="another pool"):
        other = ep.make("CartPole-v1", num_envs=2).xla()[0]
        jax.block_until_ready(send(other, jnp.zeros(2, jnp.int32)))
    jitted = jax.jit(step)
    handle, _ = jitted(handle, jnp.zeros(2, jnp.int32))
    env.close()
    with pytest.raises(RuntimeError, match="closed"):
        env.xla()
    with pytest.raises(Exception, match="closed"):
        jax.block_until_ready(jitted(handle, jnp.zeros(2, jnp.int32)))


def test_compiled_step_after_the_pool_is_gone() -> None:
    env = ep.make("CartPole-v1", num_envs=2)
    functions = env.xla()
    handle = functions[0]
    env.reset()
    compiled = jax.jit(functions[3]).lower(handle, jnp.zeros(2, jnp.int32)).compile()
    del env, functions
    gc.collect()
    with pytest.raises(Exception, match="garbage-collected"):
        jax.block_until_ready(compiled(handle, jnp.zeros(2, jnp.int32)))


def test_jax_too_old(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(jax, "__version__", "0.4.30")
    with pytest.raises(RuntimeError, match=r"jax >= 0\.4\.38"):
        ep.make("CartPole-v1").xla()
