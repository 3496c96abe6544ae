"""The pool object users step: EnvPool's Python API over the C++ engine.

The C++ engine returns a flat tuple of numpy arrays (views of one output block,
no copies); this module only names them and arranges them into gymnasium's
`(obs, reward, terminated, truncated, info)`, gym's `(obs, reward, done, info)`
or dm_env's `TimeStep`. The arrangement is pure, so `xla()` applies the same
code to the JAX arrays of its recv.
"""

from __future__ import annotations

import numbers
import warnings
from types import ModuleType
from typing import Any

import dm_env
import gymnasium
import numpy as np
from gymnasium.vector import AutoresetMode

from envpool_core import _core
from envpool_core.gym_api import convert_space
from envpool_core.spec import EnvSpec

# Where the engine puts its common columns (names and order defined once, in C++).
_COLUMN = {name: i for i, name in enumerate(_core.COMMON_COLUMNS)}
_ENV_ID = _COLUMN["env_id"]
_PLAYERS_ENV_ID = _COLUMN["players.env_id"]
_ELAPSED_STEP = _COLUMN["elapsed_step"]
_REWARD = _COLUMN["reward"]
_DONE = _COLUMN["done"]
_TRUNC = _COLUMN["trunc"]
_DISCOUNT = _COLUMN["discount"]
_STEP_TYPE = _COLUMN["step_type"]


_UNSET = object()

def _same(a: Any, b: Any) -> bool:
    if a is b:
        return True
    try:
        return bool(a == b)
    except (TypeError, ValueError):  # e.g. arrays of another shape
        return False


class _Fixed:
    """A pool attribute that clients may assign, but only the value it already has.

    Vector-env clients assign attributes such as `envs.num_envs = n` to pools
    that lack them; the pool has them all, and refuses a value that would make
    it lie about itself. The value lives in the private attribute `_<name>`,
    which the pool's own code reads (a plain attribute costs less per step).
    """

    def __init__(self, doc: str) -> None:
        self.__doc__ = doc

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name
        self.private = "_" + name

    def __get__(self, obj: Any, owner: type | None = None) -> Any:
        if obj is None:
            return self
        return getattr(obj, self.private)

    def __set__(self, obj: Any, value: Any) -> None:
        current = getattr(obj, self.private, _UNSET)
        if current is _UNSET:  # the pool's own value, set once by __init__
            setattr(obj, self.private, value)
        elif not _same(value, current):
            raise ValueError(
                f"cannot set {self.name} to {value!r}: this pool's {self.name} is {current!r} "
                "and the pool cannot change it (make a new pool with envpool_core.make(...))"
            )


class EnvPool:
    """A batch of environments stepped by C++ worker threads.

    Sync mode (`batch_size == num_envs`): `step(action)` returns one row per env,
    in the order of `env_id`. Async mode (`batch_size < num_envs`): `recv()`
    returns the first `batch_size` envs to finish; `info["env_id"]` says which.
    """

    num_envs = _Fixed("Number of environments in the pool.")
    batch_size = _Fixed("Number of envs each recv() returns.")
    is_vector_env = _Fixed("True: a pool is a vector env (for gym-era clients).")
    observation_space = _Fixed("Single-env observation space (EnvPool's convention).")
    action_space = _Fixed("Single-env action space (EnvPool's convention).")
    single_observation_space = _Fixed("Single-env observation space.")
    single_action_space = _Fixed("Single-env action space.")
    metadata = _Fixed("Vector-env metadata: next-step auto-reset; render modes and fps where "
                      "render() works.")

    def __init__(self, spec: EnvSpec, spaces: ModuleType | None = None) -> None:
        """Makes the pool of `spec`; its spaces are from `spaces` (gymnasium's by default)."""
        self.spec = spec
        self._pool = _core.EnvPool(spec._core)
        self._num_obs = len(spec.obs_specs)
        self._first_obs = len(_COLUMN)
        self._obs_names = [s["name"] for s in spec.obs_specs]
        self._info_names = [s["name"] for s in spec.info_specs]
        action = spec.action_column
        self._action_dtype = np.dtype(action["dtype"])
        self._action_discrete = self._action_dtype.kind == "i" and bool(action["low"])
        self._action_low = action["low"][0] if action["low"] else None
        self._action_high = action["high"][0] if action["high"] else None
        self._all_env_ids = np.arange(self._pool.num_envs, dtype=np.int32)
        self._last_env_id = self._all_env_ids
        self.config: dict[str, Any] = spec.config_dict
        observation_space, action_space = spec.observation_space, spec.action_space
        if spaces is not None:
            observation_space = convert_space(observation_space, spaces)
            action_space = convert_space(action_space, spaces)
        self.num_envs = self._pool.num_envs
        self.batch_size = self._pool.batch_size
        self.is_vector_env = True
        self.observation_space = self.single_observation_space = observation_space
        self.action_space = self.single_action_space = action_space
        # gymnasium's keys; where render() works, its mode and fps (real time, for recorders).
        rendering = {"render_modes": ["rgb_array"], "render_fps": spec.render_fps}
        self.metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP,
                         **(rendering if spec.render_shape else {})}
        self.render_mode = spec.render_mode  # render() works without it too

    # -- EnvPool attributes -------------------------------------------------------
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
            if count is None or count == self._num_envs:
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
        # Checked before the cast to int32, which would wrap 2**32 + 1 to 1.
        outside = (ids < 0) | (ids >= self.num_envs)
        if outside.any():
            raise ValueError(f"env_id {ids[outside].flat[0]} is out of range [0, {self.num_envs})")
        return np.ascontiguousarray(ids, dtype=np.int32).reshape(-1)

    def _check_action_dtype(self, dtype: Any) -> None:
        """A lossless cast (same kind: int64 -> int32) is accepted; float for int is not."""
        if not np.can_cast(dtype, self._action_dtype, casting="same_kind"):
            raise TypeError(
                f"action dtype {dtype} cannot be used as {self._action_dtype} "
                f"(action space {self.action_space})"
            )

    def _action_array(self, action: Any) -> np.ndarray:
        action = np.asarray(action)
        want = self._action_dtype
        if action.dtype != want:
            if self._action_discrete and action.dtype.kind == "f":
                # As EnvPool, which casts them: `np.zeros(n)` is a batch of action 0. A
                # fraction (or NaN) is refused rather than truncated to another action.
                whole = np.isfinite(action) & (action == np.round(action))
                if not whole.all():
                    raise ValueError(f"action {action[~whole].flat[0]} is not a whole number: "
                                     f"a discrete action space takes integers "
                                     f"(action space {self.action_space})")
            else:
                self._check_action_dtype(action.dtype)
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

    def _action_and_env_ids(self, action: Any, env_id: Any) -> tuple[np.ndarray, np.ndarray]:
        if isinstance(action, dict):  # EnvPool's dict form
            env_id = action.get("env_id", env_id)
            action = action["action"]
        action = self._action_array(action)
        return action, self._env_ids(env_id, action.shape[0] if action.ndim else None)

    def send(self, action: Any, env_id: Any = None) -> None:
        """Queues one action per env in `env_id` (all envs, or the last batch's, by default).

        The actions are copied: `action` may be reused as soon as send() returns. It may
        also be EnvPool's dict form `{"action": ..., "env_id": ...}`. An empty send does
        nothing.
        """
        self._pool.send(*self._action_and_env_ids(action, env_id))

    def recv(self, reset: bool = False) -> Any:
        """Waits for the next batch and returns it, arranged for this pool's env_type."""
        return self._received(self._pool.recv(), reset)

    def step(self, action: Any, env_id: Any = None) -> Any:
        """`send(action, env_id)` then `recv()`, as one call: threads sharing the pool each
        get their own envs' rows."""
        return self._received(self._pool.step(*self._action_and_env_ids(action, env_id)))

    def _received(self, arrays: tuple, reset: bool = False) -> Any:
        self._last_env_id = arrays[_ENV_ID]
        return self._arrange(arrays, reset)

    def async_reset(self) -> None:
        """Queues a reset of every env; collect the batches with recv()."""
        self._pool.reset(self._all_env_ids)

    def reset(self, env_id: Any = None) -> Any:
        """Resets the envs in `env_id` (all by default) and returns their first batch."""
        return self._received(self._pool.reset_recv(self._env_ids(env_id, None), None), reset=True)

    def render(self, env_ids: Any = None, camera_id: int | None = None) -> np.ndarray:
        """RGB frames (N x H x W x 3, uint8) of envs that are not in flight (by default
        `render_env_id`, 0 unless given to make). The camera is the `render_camera_id` the pool
        was made with; `camera_id`, as in EnvPool, may only repeat it."""
        camera = self.config.get("render_camera_id")
        if camera_id is not None and camera_id != camera:
            if camera is None:
                raise ValueError(f"{self.spec.task_id} has one view: no camera_id to choose")
            raise ValueError(f"this pool renders camera {camera}; the camera is set at creation: "
                             f"make(..., render_camera_id={camera_id})")
        ids = self._env_ids(self.spec.render_env_id if env_ids is None else env_ids, None)
        return self._pool.render(ids)

    def close(self) -> None:
        """Stops the worker threads and frees the envs. Further calls raise RuntimeError.

        Pools still open when the interpreter exits are closed then (by the engine's atexit
        hook, so that no worker steps or renders while the libraries below it unload); closing
        them again, from a `__del__` say, does nothing."""
        self._pool.close()

    @property
    def closed(self) -> bool:
        """True once close() was called."""
        return self._pool.closed

    def xla(self) -> tuple:
        """`(handle, recv, send, step)`: this pool's send/recv as JAX functions (see xla.py)."""
        from envpool_core.xla import make_xla

        return make_xla(self)

    def seed(self, seed: Any = None) -> None:
        """Does nothing but warn, as EnvPool's: seeds are fixed at creation (`make(..., seed=)`).
        Old gym-style clients call `env.seed(s)` after creating the env; they run, unseeded."""
        warnings.warn("seed() is ignored: seeds are set at creation, "
                      "envpool_core.make(task_id, seed=...)", stacklevel=2)

    # -- output arrangement (pure: numpy arrays here, JAX arrays under xla()) -----
    def _split(self, arrays: tuple) -> tuple[Any, dict[str, Any]]:
        n = self._first_obs
        if self._num_obs == 1:
            obs: Any = arrays[n]
        else:
            obs = dict(zip(self._obs_names, arrays[n:n + self._num_obs], strict=False))
        info = dict(zip(self._info_names, arrays[n + self._num_obs:], strict=False))
        info["env_id"] = arrays[_ENV_ID]
        info["players"] = {"env_id": arrays[_PLAYERS_ENV_ID]}
        info["elapsed_step"] = arrays[_ELAPSED_STEP]
        return obs, info

    def _arrange(self, arrays: tuple, reset: bool) -> Any:
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.spec.task_id!r}, num_envs={self.num_envs}, " \
               f"batch_size={self.batch_size})"

    __str__ = __repr__  # not gymnasium.Env's, which reads a gymnasium EnvSpec's id


def _check_seed_range(seeds: list[int]) -> None:
    """The range make() takes, EnvPool's (a C++ int): the envs use a seed's low 32 bits, so a
    larger seed would silently replay another seed's episodes."""
    low, high = -(2**31), 2**31 - 1
    bad = [s for s in seeds if not low <= s <= high]
    if bad:
        raise ValueError(f"invalid value {bad[0]} for 'seed': expected a value in "
                         f"[{low}, {high}] (as make()'s)")


class GymnasiumEnvPool(EnvPool, gymnasium.vector.VectorEnv, gymnasium.Env):
    """Gymnasium API: reset -> (obs, info); step -> (obs, reward, terminated, truncated, info).

    An instance of `gymnasium.vector.VectorEnv`, with EnvPool's conventions where
    they differ: `observation_space`/`action_space` are single-env spaces. Also a
    `gymnasium.Env`, as EnvPool's pools, so that a `gymnasium.Wrapper` can wrap it.
    """

    def reset(self, env_id: Any = None, *, seed: Any = None,
              options: dict[str, Any] | None = None) -> Any:
        """Resets the envs in `env_id` (all by default), or gymnasium's
        `options={"reset_mask": mask}`, and returns their first batch.

        `seed` reseeds them first, as gymnasium's vector envs and ale-py's do: an int `s`
        gives env i the seed `s + i` (the seeds `make(..., seed=s)` gives), a sequence one
        seed per env reset (with `reset_mask`, one per env of the pool, as gymnasium's).
        A reseeded env plays what a new env of that seed plays. `None` keeps the envs'
        random streams going."""
        mask = None
        if options:
            unknown = sorted(set(options) - {"reset_mask"})
            if unknown:
                raise ValueError(f"unknown reset options {unknown}; allowed: reset_mask")
            mask = np.asarray(options["reset_mask"])
            if mask.dtype != bool or mask.shape != (self.num_envs,):
                raise ValueError(f"reset_mask must be a bool array of shape ({self.num_envs},), "
                                 f"got {mask.dtype} {mask.shape}")
            if env_id is not None:
                raise ValueError("pass env_id or options['reset_mask'], not both")
            env_id = np.flatnonzero(mask)
            if not len(env_id):
                raise ValueError("reset_mask selects no env")
        ids = self._env_ids(env_id, None)
        seeds = None if seed is None else self._reset_seeds(seed, ids, mask)
        return self._received(self._pool.reset_recv(ids, seeds), reset=True)

    def _reset_seeds(self, seed: Any, ids: np.ndarray, mask: np.ndarray | None) -> np.ndarray:
        """One uint64 seed per env of `ids`, as make() turns `seed` into the envs' seeds."""
        if isinstance(seed, numbers.Integral) and not isinstance(seed, bool):
            _check_seed_range([int(seed)])
            seeds = [int(seed) + int(i) for i in ids]
        else:
            values = np.asarray(seed)
            if values.ndim != 1 or values.dtype.kind not in "iu":
                raise TypeError(f"seed must be an int or a sequence of ints, got {seed!r}")
            expected = self.num_envs if mask is not None else len(ids)
            if len(values) != expected:
                per = "env of the pool (reset_mask)" if mask is not None else "env reset"
                raise ValueError(f"seed has {len(values)} values; give one per {per}: {expected}")
            seeds = [int(v) for v in (values[ids] if mask is not None else values)]
            _check_seed_range(seeds)
        # As make()'s seeds reach the envs: int64 taken as uint64.
        return np.array(seeds, dtype=np.int64).view(np.uint64)

    def _arrange(self, arrays: tuple, reset: bool) -> Any:
        obs, info = self._split(arrays)
        if reset:
            return obs, info
        trunc = arrays[_TRUNC]
        return obs, arrays[_REWARD], arrays[_DONE] & ~trunc, trunc, info


class GymEnvPool(GymnasiumEnvPool):
    """`env_type="gym"` with gym >= 0.26 installed: the 5-tuple API with `gym.spaces`
    (gymnasium's for dict observations, as EnvPool 1.2.5's)."""


class LegacyGymEnvPool(EnvPool):
    """`env_type="gym"` with gym < 0.26 installed: gym's old API, as EnvPool 0.6-0.8.

    reset -> obs (`(obs, info)` with `gym_reset_return_info=True`);
    step/recv -> `(obs, reward, done, info)`, `done = terminated | truncated`
    and `info["TimeLimit.truncated"]`. Spaces are `gym.spaces` (gymnasium's for dict
    observations, as EnvPool 1.2.5's).
    """

    def __init__(self, spec: EnvSpec, spaces: ModuleType | None, reset_return_info: bool) -> None:
        """Makes the pool of `spec` with spaces from `spaces` (gym's; None: gymnasium's)."""
        super().__init__(spec, spaces)
        self._reset_return_info = reset_return_info
        self.config["gym_reset_return_info"] = reset_return_info

    @property
    def unwrapped(self) -> LegacyGymEnvPool:
        """The pool itself, as gym.Env's: where `gym.Wrapper.unwrapped` ends."""
        return self

    def _arrange(self, arrays: tuple, reset: bool) -> Any:
        obs, info = self._split(arrays)
        # The engine's done column is already terminated | truncated.
        info["TimeLimit.truncated"] = arrays[_TRUNC]
        if reset:
            return (obs, info) if self._reset_return_info else obs
        return obs, arrays[_REWARD], arrays[_DONE], info


class DMEnvPool(EnvPool, dm_env.Environment):
    """dm_env API: every call returns a `dm_env.TimeStep` whose observation holds obs and info.

    A `dm_env.Environment`, as EnvPool's dm pools, so dm_env clients (Acme's
    `make_environment_spec`, `with env:`) find what they expect; every spec is of one env's row.
    """

    def observation_spec(self) -> Any:
        """dm_env observation spec, with the structure of `TimeStep.observation`: a State of
        the env_id, players, obs, info and elapsed_step specs (as EnvPool's)."""
        return self.spec.observation_spec()

    def reward_spec(self) -> dm_env.specs.Array:
        """dm_env reward spec: one env's reward, of the dtype `TimeStep.reward` has (float32)."""
        return self.spec.column_spec("reward", "reward")

    def discount_spec(self) -> dm_env.specs.BoundedArray:
        """dm_env discount spec: one env's discount in [0, 1], of `TimeStep.discount`'s dtype."""
        dtype = self.spec.column_spec("discount", "discount").dtype
        return dm_env.specs.BoundedArray((), dtype, minimum=0.0, maximum=1.0, name="discount")

    def action_spec(self) -> Any:
        """dm_env action spec."""
        return self.spec.action_spec()

    def _arrange(self, arrays: tuple, reset: bool) -> dm_env.TimeStep:
        state = self.spec.state_type(  # the obs and info columns are the last ones, in order
            arrays[_ENV_ID], self.spec.players_type(arrays[_PLAYERS_ENV_ID]),
            *arrays[self._first_obs:], arrays[_ELAPSED_STEP],
        )
        return dm_env.TimeStep(step_type=arrays[_STEP_TYPE], reward=arrays[_REWARD],
                               discount=arrays[_DISCOUNT], observation=state)
