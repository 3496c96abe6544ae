"""envpool_core: batched environments stepped in C++, behind EnvPool's Python API.

    import envpool_core as envpool
    envs = envpool.make("Pong-v5", env_type="gymnasium", num_envs=8)
    obs, info = envs.reset()
    obs, reward, terminated, truncated, info = envs.step(actions)
"""

from __future__ import annotations

from typing import Any, cast

from envpool_core._core import EnvError
from envpool_core.gym_api import installed_gym, is_dict_space, uses_old_api
from envpool_core.pool import (
    DMEnvPool,
    EnvPool,
    GymEnvPool,
    GymnasiumEnvPool,
    LegacyGymEnvPool,
)
from envpool_core.registry import list_all_envs
from envpool_core.spec import EnvSpec

# EnvPool's names in EnvPool's order (but `register`: its tests check the order), then
# envpool_core's own.
__all__ = [  # noqa: RUF022
    "make", "make_dm", "make_gym", "make_gymnasium", "make_spec", "list_all_envs",
    "EnvSpec", "EnvPool", "DMEnvPool", "GymnasiumEnvPool",
    "EnvError", "GymEnvPool", "LegacyGymEnvPool",
]
__version__ = "0.1.0"

_ENV_TYPES = ("gymnasium", "gym", "dm")


def make_spec(task_id: str, **kwargs: Any) -> EnvSpec:
    """Returns the spec (config, spaces) of `task_id` made with `kwargs`, without making envs."""
    return EnvSpec(task_id, **kwargs)


def make(task_id: str, env_type: str = "gymnasium", **kwargs: Any) -> EnvPool:
    """Makes a pool of `task_id` envs.

    `env_type`: "gymnasium"; "dm" (dm_env TimeSteps); or "gym", which speaks the
    API of the installed gym as EnvPool 0.6-0.8 did: gym < 0.26 gets the old API
    (`reset() -> obs`, `step() -> (obs, reward, done, info)`, gym spaces;
    `gym_reset_return_info=True` makes reset return `(obs, info)`), gym >= 0.26
    the 5-tuple API with gym spaces, and without gym it is "gymnasium". Tasks
    with dict observations (the DeepMind Control Suite) have gymnasium's spaces
    in every view, as EnvPool 1.2.5 gives them.
    """
    if env_type not in _ENV_TYPES:
        raise ValueError(f"env_type must be one of {sorted(_ENV_TYPES)}, got {env_type!r}")
    # Accepted with every env_type, as EnvPool does; only gym's old API has a choice.
    reset_return_info = bool(kwargs.pop("gym_reset_return_info", False))
    if env_type != "gym":
        return (DMEnvPool if env_type == "dm" else GymnasiumEnvPool)(make_spec(task_id, **kwargs))
    spec = make_spec(task_id, **kwargs)
    gym = installed_gym()
    if gym is None:
        return GymnasiumEnvPool(spec)
    # gym's spaces where EnvPool 0.6-0.8's clients check for them (CleanRL's scripts assert
    # isinstance against gym 0.23's Discrete); gymnasium's for dict observations, as EnvPool
    # 1.2.5's: rl_games flattens those with gymnasium.spaces.flatten_space.
    spaces = None if is_dict_space(spec.observation_space) else gym.spaces
    if uses_old_api(gym):
        return LegacyGymEnvPool(spec, spaces, reset_return_info)
    return GymEnvPool(spec, spaces)


def make_gymnasium(task_id: str, **kwargs: Any) -> GymnasiumEnvPool:
    """`make(task_id, env_type="gymnasium", ...)`."""
    return cast(GymnasiumEnvPool, make(task_id, env_type="gymnasium", **kwargs))


def make_gym(task_id: str, **kwargs: Any) -> GymnasiumEnvPool | LegacyGymEnvPool:
    """`make(task_id, env_type="gym", ...)`: the API of the installed gym (see `make`)."""
    return cast(GymnasiumEnvPool | LegacyGymEnvPool, make(task_id, env_type="gym", **kwargs))


def make_dm(task_id: str, **kwargs: Any) -> DMEnvPool:
    """`make(task_id, env_type="dm", ...)`: dm_env TimeSteps."""
    return cast(DMEnvPool, make(task_id, env_type="dm", **kwargs))
