"""EnvSpec: a task's resolved config and its single-env spaces, built from the C++ specs."""

from __future__ import annotations

from collections import namedtuple
from typing import Any

import dm_env
import gymnasium
import numpy as np

from envpool_core import _core
from envpool_core.registry import check_task_id


def _bounds(spec: dict[str, Any]) -> tuple[Any, Any]:
    dtype = np.dtype(spec["dtype"])
    low, high = spec["low"], spec["high"]
    if low:
        shape = spec["shape"]
        if len(low) == 1:  # one bound for every element
            lo, hi = np.full(shape, low[0]), np.full(shape, high[0])
        else:
            lo, hi = np.reshape(low, shape), np.reshape(high, shape)
        return lo.astype(dtype), hi.astype(dtype)
    if dtype == np.bool_:
        return 0, 1
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return info.min, info.max
    return -np.inf, np.inf


def _box(spec: dict[str, Any]) -> gymnasium.spaces.Box:
    dtype = np.dtype(spec["dtype"])
    low, high = _bounds(spec)
    return gymnasium.spaces.Box(low=low, high=high, shape=spec["shape"], dtype=dtype)


def _has_option(task_id: str, name: str) -> bool:
    return any(o["name"] == name for o in _core.task_options(task_id))


def _registered_reward_threshold(task_id: str) -> float | None:
    try:
        return gymnasium.spec(task_id).reward_threshold
    except gymnasium.error.Error:  # an id gymnasium does not know: Atari's are "ALE/..."
        return None


def _number(name: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise TypeError(f"{name} must be a number, got {value!r}")
    return float(value)


def _scalar_bounds(spec: dict[str, Any]) -> tuple[Any, Any]:
    """`_bounds`, but one bound for every element stays a scalar, as EnvPool's specs have it
    (an Atari observation's dm `maximum` is 255, not an array of 255s)."""
    low, high = spec["low"], spec["high"]
    dtype = np.dtype(spec["dtype"])
    if not low:  # the dtype's range
        return tuple(dtype.type(bound) for bound in _bounds(spec))
    if len(set(low)) == 1 and len(set(high)) == 1:
        return dtype.type(low[0]), dtype.type(high[0])
    return _bounds(spec)


# EnvPool's keys of the arrays every task outputs, in its order.
_ENVPOOL_COMMON = ("info:env_id", "info:players.env_id", "elapsed_step", "done", "reward",
                   "discount", "step_type", "trunc")


class ArraySpec:
    """One array of EnvPool's `state_array_spec` / `action_array_spec`: its dtype, shape (a
    list, one env's row) and bounds (scalars where one bound holds for every element)."""

    def __init__(self, spec: dict[str, Any], is_discrete: bool = False) -> None:
        """The spec of the engine's array `spec` (a dict of name, dtype, shape, low, high)."""
        self.dtype = np.dtype(spec["dtype"])
        self.shape: list[int] = list(spec["shape"])
        self.minimum, self.maximum = _scalar_bounds(spec)
        self.is_discrete = is_discrete

    def __repr__(self) -> str:
        return (f"ArraySpec(shape={self.shape}, dtype={self.dtype}, minimum={self.minimum}, "
                f"maximum={self.maximum})")


def _dm_array(spec: dict[str, Any], name: str | None = None) -> dm_env.specs.BoundedArray:
    # Always bounded, as EnvPool's specs: an array without bounds of its own gets its dtype's
    # (client code may read `.minimum` of any field).
    low, high = _scalar_bounds(spec)
    return dm_env.specs.BoundedArray(shape=spec["shape"], dtype=np.dtype(spec["dtype"]),
                                     minimum=low, maximum=high, name=name or spec["name"])


def _discrete_range(spec: dict[str, Any]) -> tuple[int, int] | None:
    """`(low, high)` of a discrete action (an int32 scalar with bounds), else None."""
    if spec["dtype"] == "int32" and spec["shape"] == () and spec["low"]:
        return int(spec["low"][0]), int(spec["high"][0])
    return None


class EnvSpec:
    """The spec of a task made with given options: config, observation and action spaces."""

    def __init__(self, task_id: str, **kwargs: Any) -> None:
        check_task_id(task_id)
        if kwargs.get("from_pixels") is True and _has_option(task_id, "render_width"):
            # As EnvPool: pixel observations are 84 x 84 unless a size is given.
            kwargs = {"render_width": 84, "render_height": 84, **kwargs}
        self._seed = kwargs.get("seed", 42)
        # EnvPool's render options, kept by the pool rather than the envs.
        self.render_mode: str | None = kwargs.pop("render_mode", None)
        self.render_env_id: int = kwargs.pop("render_env_id", 0)
        self._reward_threshold = _registered_reward_threshold(task_id)
        if self._reward_threshold is not None and "reward_threshold" in kwargs:
            # EnvPool's option, on the tasks that have a threshold (Atari's have none: there it
            # is an unknown option, as on EnvPool).
            self._reward_threshold = _number("reward_threshold", kwargs.pop("reward_threshold"))
        self._core = _core.Spec.make(task_id, kwargs)
        self.task_id = task_id
        self.obs_specs: list[dict[str, Any]] = self._core.obs
        self.info_specs: list[dict[str, Any]] = self._core.info
        # The engine's action column (name, dtype, shape, bounds).
        self.action_column: dict[str, Any] = self._core.action
        self.render_shape: list[int] = self._core.render_shape
        # Agent steps per second of simulated time; 0.0 for a task without render().
        self.render_fps: float = self._core.render_fps
        self._check_render_options()
        # Every output column (common, obs, info) as the engine lays them out.
        self.columns: list[dict[str, Any]] = self._core.columns
        # A dm TimeStep's observation, in EnvPool's order (elapsed_step added at the end).
        arrays = [s["name"] for s in [*self.obs_specs, *self.info_specs]]
        self.state_type = namedtuple("State", ["env_id", "players", *arrays, "elapsed_step"])
        self.players_type = namedtuple("Players", ["env_id"])

    def _check_render_options(self) -> None:
        if self.render_mode not in (None, "rgb_array"):
            raise ValueError(f"render_mode must be None or 'rgb_array' (render() returns frames; "
                             f"there are no windows), got {self.render_mode!r}")
        if self.render_mode is not None and not self.render_shape:
            raise ValueError(f"{self.task_id} has no render(), so no render_mode "
                             "(Atari and MuJoCo tasks render)")
        num_envs = self._core.config["num_envs"]
        env_id = self.render_env_id
        if isinstance(env_id, bool) or not isinstance(env_id, (int, np.integer)) \
                or not 0 <= env_id < num_envs:
            raise ValueError(f"render_env_id must be an env id in [0, {num_envs}), got {env_id!r}")
        self.render_env_id = int(env_id)

    @property
    def config_dict(self) -> dict[str, Any]:
        """The resolved options as a dict (what `env.config` returns)."""
        config = self._core.config
        config["seed"] = self._seed  # as given: an int or a per-env sequence
        if self._reward_threshold is not None:  # in the config too, as EnvPool's
            config["reward_threshold"] = self._reward_threshold
        return config

    @property
    def config(self) -> tuple:
        """The resolved options as a namedtuple (`spec.config.num_envs`), as EnvPool's spec."""
        config = self.config_dict
        return namedtuple("Config", sorted(config))(**{k: config[k] for k in sorted(config)})

    @property
    def state_array_spec(self) -> dict[str, ArraySpec]:
        """EnvPool's table of every output array, keyed as EnvPool keys them: its common
        arrays (`info:env_id`, `info:players.env_id`, `elapsed_step`, `done`, `reward`,
        `discount`, `step_type`, `trunc`), then `obs` (`obs:<name>` for several arrays) and
        `info:<name>` for each info array."""
        columns = {c["name"]: c for c in self.columns}
        table = {key: ArraySpec(columns[key.removeprefix("info:")]) for key in _ENVPOOL_COMMON}
        for s in self.obs_specs:
            table["obs" if len(self.obs_specs) == 1 else f"obs:{s['name']}"] = ArraySpec(s)
        for s in self.info_specs:
            table[f"info:{s['name']}"] = ArraySpec(s)
        return table

    @property
    def action_array_spec(self) -> dict[str, ArraySpec]:
        """EnvPool's table of the action arrays: `env_id`, `players.env_id` and `action`."""
        env_id = next(c for c in self.columns if c["name"] == "env_id")
        return {"env_id": ArraySpec(env_id), "players.env_id": ArraySpec(env_id),
                "action": ArraySpec(self.action_column,
                                    _discrete_range(self.action_column) is not None)}

    @property
    def reward_threshold(self) -> float | None:
        """The return at which the task counts as solved: the `reward_threshold` option, by
        default gymnasium's for the same id (as EnvPool's spec has it); None where gymnasium
        registers none."""
        return self._reward_threshold

    @property
    def observation_space(self) -> gymnasium.Space:
        """Single-env observation space: a Box, or a Dict of Boxes for several arrays."""
        if len(self.obs_specs) == 1:
            return _box(self.obs_specs[0])
        return gymnasium.spaces.Dict({s["name"]: _box(s) for s in self.obs_specs})

    @property
    def action_space(self) -> gymnasium.Space:
        """Single-env action space: Discrete for int32 actions, Box otherwise."""
        discrete = _discrete_range(self.action_column)
        if discrete is not None:
            low, high = discrete
            return gymnasium.spaces.Discrete(high - low + 1, start=low)
        return _box(self.action_column)

    @property
    def gymnasium_observation_space(self) -> gymnasium.Space:
        """`observation_space`, under the name EnvPool's spec also gives it."""
        return self.observation_space

    @property
    def gymnasium_action_space(self) -> gymnasium.Space:
        """`action_space`, under the name EnvPool's spec also gives it."""
        return self.action_space

    def observation_spec(self) -> Any:
        """dm_env observation spec, with the structure of a dm TimeStep's observation (as
        EnvPool's): a `state_type` of the specs of env_id, players, each observation and info
        array and elapsed_step, each of one env's row."""
        return self.state_type(
            self.column_spec("env_id", "env_id"),
            self.players_type(self.column_spec("players.env_id", "env_id")),
            *(_dm_array(s) for s in [*self.obs_specs, *self.info_specs]),
            self.column_spec("elapsed_step", "elapsed_step"),
        )

    def column_spec(self, column: str, name: str) -> dm_env.specs.BoundedArray:
        """dm_env spec, named `name`, of one row of the engine's output column `column`."""
        return _dm_array(next(c for c in self.columns if c["name"] == column), name)

    def action_spec(self) -> dm_env.specs.Array:
        """dm_env action spec, with the bounds of `action_space`."""
        discrete = _discrete_range(self.action_column)
        if discrete is not None and discrete[0] == 0:
            return dm_env.specs.DiscreteArray(
                num_values=discrete[1] + 1, dtype=np.int32, name="action"
            )
        return _dm_array(self.action_column)

    def __repr__(self) -> str:
        return f"EnvSpec({self.task_id!r}, {self.config_dict})"
