"""The pool object users step: EnvPool's Python API over the C++ engine.

The C++ engine returns a flat tuple of numpy arrays (views of one output block,
no copies); this module only names them and arranges them into gymnasium's
`(obs, reward, terminated, truncated, info)` or dm_env's `TimeStep`.
"""

from __future__ import annotations

from collections import namedtuple
from typing import Any

import dm_env
import numpy as np

from envpool_core import _core
from envpool_core.spec import EnvSpec

# The engine's common columns, in order, before the obs and info columns.
_COMMON = ("env_id", "players.env_id", "elapsed_step", "reward", "done", "trunc",
           "discount", "step_type")


class EnvPool:
    """A batch of environments stepped by C++ worker threads.

    Sync mode (`batch_size == num_envs`): `step(action)` returns one row per env,
    in the order of `env_id`. Async mode (`batch_size < num_envs`): `recv()`
    returns the first `batch_size` envs to finish; `info["env_id"]` says which.
    """

    def __init__(self, spec: EnvSpec) -> None:
        self.spec = spec
        self._pool = _core.EnvPool(spec._core)
        self._num_obs = len(spec.obs_specs)
        self._obs_names = [s["name"] for s in spec.obs_specs]
        self._info_names = [s["name"] for s in spec.info_specs]
        action = spec.action_array_spec
        self._action_dtype = np.dtype(action["dtype"])
        self._action_discrete = self._action_dtype.kind == "i" and bool(action["low"])
        self._action_low = action["low"][0] if action["low"] else None
        self._action_high = action["high"][0] if action["high"] else None
        self._all_env_ids = np.arange(self._pool.num_envs, dtype=np.int32)
        self._last_env_id = self._all_env_ids
        self.config: dict[str, Any] = spec.config_dict
        self.observation_space = spec.observation_space
        self.action_space = spec.action_space

    # -- EnvPool attributes -------------------------------------------------------
    @property
    def num_envs(self) -> int:
        """Number of environments in the pool."""
        return self._pool.num_envs

    @property
    def batch_size(self) -> int:
        """Number of envs each recv() returns."""
        return self._pool.batch_size

    @property
    def is_async(self) -> bool:
        """True in async mode (batch_size < num_envs)."""
        return self.batch_size < self.num_envs

    @property
    def all_env_ids(self) -> np.ndarray:
        """`np.arange(num_envs)` as int32."""
        return self._all_env_ids

    def __len__(self) -> int:
        return self.num_envs

    # -- stepping -----------------------------------------------------------------
    def _env_ids(self, env_id: Any, count: int | None) -> np.ndarray:
        if env_id is None:
            if count is None or count == self.num_envs:
                return self._all_env_ids
            if count == len(self._last_env_id):
                return self._last_env_id
            raise ValueError(
                f"got {count} actions but env_id is None: pass env_id (the envs to step), "
                f"or one action per env ({self.num_envs})"
            )
        ids = np.asarray(env_id)
        if ids.dtype.kind not in "iu":
            raise TypeError(f"env_id must be integers, got dtype {ids.dtype}")
        return np.ascontiguousarray(ids, dtype=np.int32).reshape(-1)

    def _action_array(self, action: Any) -> np.ndarray:
        action = np.asarray(action)
        want = self._action_dtype
        if action.dtype != want:
            if not np.can_cast(action.dtype, want, casting="same_kind"):
                raise TypeError(
                    f"action dtype {action.dtype} cannot be used as {want} "
                    f"(action space {self.action_space})"
                )
            if self._action_discrete and action.size and (
                action.min() < self._action_low or action.max() > self._action_high
            ):
                bad = action[(action < self._action_low) | (action > self._action_high)][0]
                raise ValueError(
                    f"action {bad} is out of range [{int(self._action_low)}, "
                    f"{int(self._action_high)}]"
                )
            action = action.astype(want)
        return np.ascontiguousarray(action)

    def send(self, action: Any, env_id: Any = None) -> None:
        """Queues one action per env in `env_id` (all envs, or the last batch's, by default).

        `action` may also be EnvPool's dict form `{"action": ..., "env_id": ...}`.
        """
        if isinstance(action, dict):
            env_id = action.get("env_id", env_id)
            action = action["action"]
        action = self._action_array(action)
        ids = self._env_ids(env_id, action.shape[0] if action.ndim else None)
        self._pool.send(action, ids)

    def recv(self, reset: bool = False) -> Any:
        """Waits for the next batch and returns it (gymnasium tuple or dm TimeStep)."""
        return self._to(self._pool.recv(), reset)

    def step(self, action: Any, env_id: Any = None) -> Any:
        """`send(action, env_id)` then `recv()`."""
        self.send(action, env_id)
        return self.recv()

    def async_reset(self) -> None:
        """Queues a reset of every env; collect the batches with recv()."""
        self._pool.reset(self._all_env_ids)

    def reset(self, env_id: Any = None) -> Any:
        """Resets the envs in `env_id` (all by default) and returns their first batch."""
        self._pool.reset(self._env_ids(env_id, None))
        return self.recv(reset=True)

    def render(self, env_ids: Any = None) -> np.ndarray:
        """RGB frames (N x H x W x 3, uint8) of envs that are not in flight (env 0 by default)."""
        ids = self._env_ids(0 if env_ids is None else env_ids, None)
        return self._pool.render(ids)

    def close(self) -> None:
        """Stops the worker threads and frees the envs. Further calls raise RuntimeError."""
        self._pool.close()

    def seed(self, seed: Any = None) -> None:
        """Not supported: seeds are fixed at creation (`make(..., seed=...)`)."""
        raise RuntimeError("seeds are set at creation: envpool_core.make(task_id, seed=...)")

    # -- output conversion --------------------------------------------------------
    def _split(self, arrays: tuple) -> tuple[Any, dict[str, Any]]:
        self._last_env_id = arrays[0]
        n = len(_COMMON)
        if self._num_obs == 1:
            obs: Any = arrays[n]
        else:
            obs = dict(zip(self._obs_names, arrays[n:n + self._num_obs], strict=False))
        info = dict(zip(self._info_names, arrays[n + self._num_obs:], strict=False))
        info["env_id"] = arrays[0]
        info["players"] = {"env_id": arrays[1]}
        info["elapsed_step"] = arrays[2]
        return obs, info

    def _to(self, arrays: tuple, reset: bool) -> Any:
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.spec.task_id!r}, num_envs={self.num_envs}, " \
               f"batch_size={self.batch_size})"


class GymnasiumEnvPool(EnvPool):
    """Gymnasium API: reset -> (obs, info); step -> (obs, reward, terminated, truncated, info)."""

    def _to(self, arrays: tuple, reset: bool) -> Any:
        obs, info = self._split(arrays)
        if reset:
            return obs, info
        done, trunc = arrays[4], arrays[5]
        return obs, arrays[3], done & ~trunc, trunc, info


class DmEnvPool(EnvPool):
    """dm_env API: every call returns a `dm_env.TimeStep` whose observation holds obs and info."""

    def __init__(self, spec: EnvSpec) -> None:
        super().__init__(spec)
        fields = [*self._obs_names, *self._info_names, "env_id", "players", "elapsed_step"]
        self._state_type = namedtuple("State", fields)
        self._players_type = namedtuple("Players", ["env_id"])

    def observation_spec(self) -> Any:
        """dm_env observation spec."""
        return self.spec.observation_spec()

    def action_spec(self) -> Any:
        """dm_env action spec."""
        return self.spec.action_spec()

    def _to(self, arrays: tuple, reset: bool) -> dm_env.TimeStep:
        obs, info = self._split(arrays)
        obs_values = [obs] if self._num_obs == 1 else [obs[k] for k in self._obs_names]
        state = self._state_type(
            *obs_values, *(info[k] for k in self._info_names), arrays[0],
            self._players_type(arrays[1]), arrays[2],
        )
        return dm_env.TimeStep(step_type=arrays[7], reward=arrays[3], discount=arrays[6],
                               observation=state)
