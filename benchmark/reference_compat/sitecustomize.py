"""Lets CleanRL's and Cleanba's own scripts run on the packages installed here, unmodified.

`benchmark/training.py` puts this folder on PYTHONPATH and sets REFERENCE_COMPAT=1 for
reference-script runs; Python then imports this module at start-up, which adapts two APIs:

- Their envpool scripts were written for EnvPool 0.6-0.8 with gym 0.23: `reset()` returns
  only the observation and `step()`/`recv()` return `(obs, reward, done, info)`, with gym
  spaces. EnvPool 1.2.5 returns the gymnasium-style `(obs, info)` and 5-tuples, so
  `envpool.make(..., env_type="gym")` is wrapped to speak the old API. The conversion is one
  `logical_or` per step, so the speed measured is EnvPool's and the script's own.
- CleanRL's `ppo_continuous_action.py` calls `TransformObservation(env, func)`, which every
  gymnasium 1.x rejects (its `observation_space` argument has no default); it gets None,
  which means "unchanged", as the script intends.
- The same script reads finished episodes from `infos["final_info"]`, a list with one info
  dict (or None) per env, and expects the env reset in the step that ends an episode: gymnasium
  0.29's vector API. gymnasium 1.x's `SyncVectorEnv` resets on the next step by default and,
  in its same-step mode, gives `final_info` as one dict of arrays; it is made to reset in the
  same step and to hand `final_info` over as 0.29 did.
"""

from __future__ import annotations

import os
from typing import Any


def _adapt_transform_observation() -> None:
    import gymnasium

    base = gymnasium.wrappers.TransformObservation

    class TransformObservation(base):  # type: ignore[misc, valid-type]
        """gymnasium's TransformObservation with `observation_space` defaulting to None."""

        def __init__(self, env: Any, func: Any, observation_space: Any = None) -> None:
            super().__init__(env, func, observation_space)

    gymnasium.wrappers.TransformObservation = TransformObservation


def _adapt_sync_vector_env() -> None:
    import gymnasium
    import numpy as np

    base = gymnasium.vector.SyncVectorEnv

    def _per_env(info: dict[str, Any], i: int) -> dict[str, Any]:
        """Env i's entries of a gymnasium 1.x vector info dict (its "_key" masks left out)."""
        return {k: _per_env(v, i) if isinstance(v, dict) else v[i]
                for k, v in info.items() if not k.startswith("_")}

    class SyncVectorEnv(base):  # type: ignore[misc, valid-type]
        """gymnasium's SyncVectorEnv, resetting in the same step, with 0.29's `final_info`."""

        def __init__(self, env_fns: Any, **kwargs: Any) -> None:
            kwargs.setdefault("autoreset_mode", gymnasium.vector.AutoresetMode.SAME_STEP)
            super().__init__(env_fns, **kwargs)

        def step(self, actions: Any) -> Any:
            obs, reward, terminated, truncated, info = super().step(actions)
            if "final_info" in info:
                done = info["_final_info"]
                info["final_info"] = np.array(
                    [_per_env(info["final_info"], i) if done[i] else None
                     for i in range(self.num_envs)], dtype=object)
            return obs, reward, terminated, truncated, info

    gymnasium.vector.SyncVectorEnv = SyncVectorEnv


def _adapt_envpool() -> None:
    try:
        import envpool
        import gym
    except ImportError:  # a script that needs neither
        return
    import gymnasium
    import numpy as np

    def _gym_space(space: Any) -> Any:
        """The gym 0.2x space equal to a gymnasium space (Discrete and Box are all we meet)."""
        if isinstance(space, gymnasium.spaces.Discrete):
            return gym.spaces.Discrete(int(space.n))
        if isinstance(space, gymnasium.spaces.Box):
            return gym.spaces.Box(space.low, space.high, dtype=space.dtype)
        return space

    class LegacyGymPool:
        """An EnvPool 1.2.5 pool seen through the gym 0.23 API."""

        def __init__(self, pool: Any) -> None:
            self._pool = pool
            self.action_space = _gym_space(pool.action_space)
            self.observation_space = _gym_space(pool.observation_space)

        def __getattr__(self, name: str) -> Any:
            return getattr(self._pool, name)

        def reset(self, *args: Any, **kwargs: Any) -> Any:
            """Observation only, as gym 0.23."""
            return self._pool.reset(*args, **kwargs)[0]

        @staticmethod
        def _four(out: tuple[Any, ...]) -> tuple[Any, Any, Any, Any]:
            obs, reward, terminated, truncated, info = out
            return obs, reward, np.logical_or(terminated, truncated), info

        def step(self, *args: Any, **kwargs: Any) -> tuple[Any, Any, Any, Any]:
            """(obs, reward, done, info), as gym 0.23."""
            return self._four(self._pool.step(*args, **kwargs))

        def recv(self, *args: Any, **kwargs: Any) -> tuple[Any, Any, Any, Any]:
            """(obs, reward, done, info), as gym 0.23."""
            return self._four(self._pool.recv(*args, **kwargs))

    _make = envpool.make

    def make(task_id: str, env_type: str, **kwargs: Any) -> Any:
        """envpool.make, with env_type="gym" pools wrapped in the old API."""
        pool = _make(task_id, env_type=env_type, **kwargs)
        return LegacyGymPool(pool) if env_type == "gym" else pool

    envpool.make = make


if os.environ.get("REFERENCE_COMPAT") == "1":
    _adapt_transform_observation()
    _adapt_sync_vector_env()
    _adapt_envpool()
