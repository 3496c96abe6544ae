"""`reset(seed=s)` on the gymnasium interface reseeds as gymnasium's vector envs and ale-py's
do (env i gets `s + i`; a sequence, one seed per env reset): a reseeded env plays exactly what
a new env made with that seed plays."""

from __future__ import annotations

import inspect

import numpy as np
import pytest

import envpool_core as ep

# One task of each family and random stream: the classic start states, MuJoCo's reset noise
# (uniform and normal), Atari's no-op starts and, with sticky actions, ALE's own RNG.
TASKS = {
    "CartPole-v1": {},
    "Acrobot-v1": {},
    "MountainCarContinuous-v0": {},
    "Pendulum-v1": {},
    "Hopper-v4": {},
    "Humanoid-v4": {},
    "Pong-v5": {},
    "Breakout-v5": {"repeat_action_probability": 0.25},
}


def _actions(pool: ep.EnvPool, steps: int, n: int) -> list[np.ndarray]:
    rng = np.random.default_rng(0)
    space = pool.single_action_space
    if hasattr(space, "n"):
        return [rng.integers(0, space.n, n).astype(np.int32) for _ in range(steps)]
    return [rng.uniform(space.low, space.high, (n, *space.shape)) for _ in range(steps)]


def _play(pool: ep.EnvPool, first_obs: np.ndarray, actions: list[np.ndarray]) -> list:
    """The first observations and those of stepping with `actions`, copied."""
    seen = [np.array(first_obs)]
    for action in actions:
        obs, reward, terminated, truncated, _ = pool.step(action)
        seen += [np.array(obs), np.array(reward), np.array(terminated), np.array(truncated)]
    return seen


def _assert_same(got: list, want: list) -> None:
    assert len(got) == len(want)
    for i, (a, b) in enumerate(zip(got, want, strict=True)):
        np.testing.assert_array_equal(a, b, err_msg=f"entry {i}")


@pytest.mark.parametrize("task", sorted(TASKS))
def test_a_reseeded_pool_plays_what_a_new_pool_of_that_seed_plays(task: str) -> None:
    options = {"num_envs": 3, "num_threads": 1, **TASKS[task]}
    pool = ep.make(task, seed=1, **options)
    pool.reset()
    actions = _actions(pool, 40, 3)
    for action in actions[:25]:  # the envs' random streams move on
        pool.step(action)
    reseeded = _play(pool, pool.reset(seed=10)[0], actions)
    fresh = ep.make(task, seed=10, **options)
    _assert_same(reseeded, _play(fresh, fresh.reset()[0], actions))
    # Again, from where the streams stand now: the same episode.
    _assert_same(_play(pool, pool.reset(seed=10)[0], actions), reseeded)
    pool.close()
    fresh.close()


def _first_obs(task: str, seed: int) -> np.ndarray:
    pool = ep.make(task, num_envs=1, seed=seed)
    obs = pool.reset()[0][0]
    pool.close()
    return obs


def test_seeds_of_a_subset_an_int_a_sequence_and_a_mask() -> None:
    pool = ep.make("Hopper-v4", num_envs=4, seed=0)
    pool.reset()
    # An int s gives env i the seed s + i, as make(seed=s) does: env 3 gets 5 + 3.
    obs, info = pool.reset(env_id=[3, 1], seed=5)
    np.testing.assert_array_equal(info["env_id"], [3, 1])
    np.testing.assert_array_equal(obs, [_first_obs("Hopper-v4", 8), _first_obs("Hopper-v4", 6)])
    # A sequence: one seed per env reset, in the order of env_id.
    obs, _ = pool.reset(env_id=[2, 0], seed=[7, 11])
    np.testing.assert_array_equal(obs, [_first_obs("Hopper-v4", 7), _first_obs("Hopper-v4", 11)])
    # With gymnasium's reset_mask, a sequence has one seed per env of the pool.
    obs, info = pool.reset(seed=[20, 21, 22, 23],
                           options={"reset_mask": np.array([False, True, False, True])})
    np.testing.assert_array_equal(info["env_id"], [1, 3])
    np.testing.assert_array_equal(obs, [_first_obs("Hopper-v4", 21), _first_obs("Hopper-v4", 23)])
    pool.close()


def test_no_seed_keeps_the_random_streams_going() -> None:
    pool = ep.make("CartPole-v1", num_envs=2, seed=0)
    first = pool.reset()[0].copy()
    assert not np.array_equal(pool.reset()[0], first)  # the next start states
    np.testing.assert_array_equal(pool.reset(seed=0)[0], first)  # the seed's first again
    pool.close()


def test_bad_seeds_are_refused() -> None:
    pool = ep.make("CartPole-v1", num_envs=3)
    with pytest.raises(ValueError, match="give one per env reset: 2"):
        pool.reset(env_id=[0, 1], seed=[1, 2, 3])
    with pytest.raises(ValueError, match="one per env of the pool"):
        pool.reset(seed=[1], options={"reset_mask": np.array([True, False, False])})
    with pytest.raises(TypeError, match="seed must be an int or a sequence of ints"):
        pool.reset(seed=1.5)
    with pytest.raises(TypeError, match="seed must be an int or a sequence of ints"):
        pool.reset(seed=True)
    # make()'s range, EnvPool's (a C++ int), for the seeds given.
    for seed in (2**31, 2**32 + 5, -(2**31) - 1, [1, 2, 2**32]):
        with pytest.raises(ValueError, match=r"invalid value -?\d+ for 'seed'.*\(as make\(\)'s\)"):
            pool.reset(seed=seed)
    pool.reset(seed=2**31 - 1)
    pool.reset(seed=[-(2**31), 0, 2**31 - 1])
    pool.close()


def test_dm_and_gym_era_resets_take_no_seed() -> None:
    # dm_env's reset() and gym < 0.26's take none, as EnvPool's: their seeds are make()'s.
    for env_type in ("dm", "gym"):
        pool = ep.make("CartPole-v1", env_type=env_type, num_envs=2)
        if env_type == "gym" and not isinstance(pool, ep.LegacyGymEnvPool):
            continue  # without gym < 0.26 installed, env_type="gym" speaks gymnasium's API
        assert "seed" not in inspect.signature(pool.reset).parameters, env_type
        pool.close()
