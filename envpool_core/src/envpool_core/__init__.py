"""envpool_core: batched environments stepped in C++, behind EnvPool's Python API.

    import envpool_core as envpool
    envs = envpool.make("Pong-v5", env_type="gymnasium", num_envs=8)
    obs, info = envs.reset()
    obs, reward, terminated, truncated, info = envs.step(actions)
"""

from __future__ import annotations

from typing import Any

from envpool_core.pool import DmEnvPool, EnvPool, GymnasiumEnvPool
from envpool_core.registry import list_all_envs
from envpool_core.spec import EnvSpec

__all__ = [
    "DmEnvPool", "EnvPool", "EnvSpec", "GymnasiumEnvPool", "list_all_envs", "make",
    "make_dm", "make_gym", "make_gymnasium", "make_spec",
]
__version__ = "0.1.0"

_ENV_TYPES = {"gymnasium": GymnasiumEnvPool, "gym": GymnasiumEnvPool, "dm": DmEnvPool}


def make_spec(task_id: str, **kwargs: Any) -> EnvSpec:
    """Returns the spec (config, spaces) of `task_id` made with `kwargs`, without making envs."""
    return EnvSpec(task_id, **kwargs)


def make(task_id: str, env_type: str = "gymnasium", **kwargs: Any) -> EnvPool:
    """Makes a pool of `task_id` envs; `env_type` is "gymnasium", "gym" (the same) or "dm"."""
    if env_type not in _ENV_TYPES:
        raise ValueError(f"env_type must be one of {sorted(_ENV_TYPES)}, got {env_type!r}")
    return _ENV_TYPES[env_type](make_spec(task_id, **kwargs))


def make_gymnasium(task_id: str, **kwargs: Any) -> EnvPool:
    """`make(task_id, env_type="gymnasium", ...)`."""
    return make(task_id, env_type="gymnasium", **kwargs)


def make_gym(task_id: str, **kwargs: Any) -> EnvPool:
    """`make(task_id, env_type="gym", ...)`: the gymnasium API, as EnvPool with gym >= 0.26."""
    return make(task_id, env_type="gym", **kwargs)


def make_dm(task_id: str, **kwargs: Any) -> EnvPool:
    """`make(task_id, env_type="dm", ...)`: dm_env TimeSteps."""
    return make(task_id, env_type="dm", **kwargs)
