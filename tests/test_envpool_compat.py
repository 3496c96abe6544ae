"""Code written for EnvPool runs unchanged with `import envpool_core as envpool`.

The same EnvPool-style script runs on upstream envpool and on envpool_core; the
structure of everything it gets back (types, keys, shapes, dtypes) must match.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import envpool_core

upstream = pytest.importorskip("envpool")


def envpool_script(envpool: Any) -> list:
    """Typical EnvPool usage: gymnasium sync, async send/recv, dm, spec."""
    seen: list = []
    env = envpool.make("CartPole-v1", env_type="gymnasium", num_envs=4, seed=0)
    seen += [env.observation_space, env.action_space, len(env), env.config["num_envs"]]
    obs, info = env.reset()
    seen.append((obs, info))
    for _ in range(3):
        seen.append(env.step(np.zeros(4, dtype=np.int32)))
    seen.append(env.step(np.ones(2, dtype=np.int32), np.array([3, 1])))

    env = envpool.make_gymnasium("CartPole-v1", num_envs=6, batch_size=3, seed=0)
    env.async_reset()
    for _ in range(5):
        obs, rew, term, trunc, info = env.recv()
        env.send(np.ones(len(info["env_id"]), dtype=np.int32), info["env_id"])
        seen.append((obs, rew, term, trunc, info))

    dm = envpool.make_dm("CartPole-v1", num_envs=2)
    ts = dm.reset()
    seen.append((ts.step_type, ts.reward, ts.discount, ts.observation.obs,
                 ts.observation.env_id, ts.observation.players.env_id))
    ts = dm.step(np.array([0, 1], dtype=np.int32))
    seen.append((ts.step_type, ts.reward, ts.discount, ts.observation.obs))
    spec = envpool.make_spec("CartPole-v1", num_envs=3)
    seen += [spec.config.num_envs, spec.config.max_episode_steps, spec.observation_space,
             spec.action_space]
    return seen


def structure(x: Any) -> Any:
    if isinstance(x, np.ndarray):
        return ("array", x.shape, x.dtype)
    if isinstance(x, dict):
        return {k: structure(v) for k, v in x.items()}
    if isinstance(x, (tuple, list)):
        return [structure(v) for v in x]
    return x


def test_envpool_script_runs_unchanged() -> None:
    ours = envpool_script(envpool_core)
    theirs = envpool_script(upstream)
    assert structure(ours) == structure(theirs)
