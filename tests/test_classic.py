"""Classic-control tasks against gymnasium's own implementations.

envpool_core does not reproduce NumPy's random generator, so each gymnasium env
is given envpool_core's state (`state_in_info=True`) whenever an episode
starts, including the pool's next-step auto-resets; from there on both are
stepped with the same actions and must agree at every step: observation,
reward, terminated, truncated, and the float64 internal state.
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
import pytest

import envpool_core as ep

# gymnasium warns that CartPole-v0 is out of date; it is still a task to match.
pytestmark = pytest.mark.filterwarnings("ignore:.*CartPole-v0 is out of date")

NUM_ENVS = 4
NUM_STEPS = 800  # batched steps per task: 3200 env steps, many episodes
OPTION_STEPS = 300  # for the option cases, which only need to show the option's effect

TASKS = [
    "CartPole-v0",
    "CartPole-v1",
    "Pendulum-v1",
    "MountainCar-v0",
    "MountainCarContinuous-v0",
    "Acrobot-v1",
]

TERM, TRUNC = "terminated", "truncated"

# (task id, options given to both envpool_core and gymnasium.make, batched
# steps, the kinds of episode end the policy below must reach so that both are
# compared). Pendulum never terminates, CartPole's random play rarely lasts
# to the limit, and MountainCarContinuous needs a shorter limit to truncate.
CASES = [
    ("CartPole-v0", {}, NUM_STEPS, {TERM}),
    ("CartPole-v1", {}, NUM_STEPS, {TERM}),
    ("Pendulum-v1", {}, NUM_STEPS, {TRUNC}),
    ("MountainCar-v0", {}, NUM_STEPS, {TERM, TRUNC}),
    ("MountainCarContinuous-v0", {}, NUM_STEPS, {TERM}),
    ("Acrobot-v1", {}, NUM_STEPS, {TERM, TRUNC}),
    # Task options, with non-default values.
    ("Pendulum-v1", {"g": 9.81}, OPTION_STEPS, {TRUNC}),
    ("MountainCar-v0", {"goal_velocity": 0.02}, OPTION_STEPS, {TERM, TRUNC}),
    (
        "MountainCarContinuous-v0",
        {"goal_velocity": 0.01, "max_episode_steps": 120},
        OPTION_STEPS,
        {TERM, TRUNC},
    ),
]


def _actions(task_id: str, obs: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Random actions, biased towards the goal where random play rarely reaches it.

    Env 0 plays at random, so it also runs into the time limit; the others pump
    energy in and reach the goal, with a random action one step in five.
    """
    n = len(obs)
    explore = rng.random(n) < 0.2
    explore[0] = True
    if task_id.startswith("CartPole"):
        return rng.integers(0, 2, n, dtype=np.int32)
    if task_id == "Pendulum-v1":
        # Also beyond the bounds: the env clips the torque, as gymnasium does.
        return rng.uniform(-3.0, 3.0, (n, 1)).astype(np.float32)
    if task_id == "MountainCar-v0":
        # Pushing along the velocity pumps energy in and reaches the goal.
        pump = np.where(obs[:, 1] > 0, 2, 0)
        return np.where(explore, rng.integers(0, 3, n), pump).astype(np.int32)
    if task_id == "MountainCarContinuous-v0":
        # Magnitudes above 1 exercise the force clipping (rewards use the raw value).
        pump = np.where(obs[:, 1] >= 0, 1.0, -1.0) * rng.uniform(0.5, 1.5, n)
        action = np.where(explore, rng.uniform(-1.5, 1.5, n), pump)
        return action.astype(np.float32)[:, None]
    if task_id == "Acrobot-v1":
        # Torque along the second joint's velocity swings the tip up.
        pump = np.where(obs[:, 5] > 0, 2, 0)
        return np.where(explore, rng.integers(0, 3, n), pump).astype(np.int32)
    raise AssertionError(task_id)


def _gym_obs(ref: gymnasium.Env) -> np.ndarray:
    """The observation gymnasium's env would return for its current state."""
    env = ref.unwrapped
    if hasattr(env, "_get_obs"):  # Pendulum
        return env._get_obs()
    if hasattr(env, "_get_ob"):  # Acrobot
        return env._get_ob()
    return np.array(env.state, dtype=np.float32)


def _load_state(ref: gymnasium.Env, state: np.ndarray) -> np.ndarray:
    """Starts gymnasium's episode from envpool_core's state; returns its first observation.

    The state keeps the dtype gymnasium's own reset gives it (float32 for Acrobot),
    and that conversion must be exact: the reset distributions round the same way.
    """
    ref.reset()
    dtype = np.asarray(ref.unwrapped.state).dtype
    copied = state.astype(dtype)
    np.testing.assert_array_equal(copied, state)
    ref.unwrapped.state = copied
    return _gym_obs(ref)


def _assert_same_space(space: gymnasium.Space, ref: gymnasium.Space) -> None:
    assert type(space) is type(ref)
    if isinstance(ref, gymnasium.spaces.Discrete):
        assert (space.n, space.start) == (ref.n, ref.start)
        return
    assert space.shape == ref.shape
    assert space.dtype == ref.dtype
    np.testing.assert_array_equal(space.low, ref.low)
    np.testing.assert_array_equal(space.high, ref.high)


@pytest.mark.parametrize("task_id", TASKS)
def test_spaces_and_limit_match_gymnasium(task_id: str) -> None:
    env = ep.make(task_id, num_envs=1)
    ref = gymnasium.make(task_id)
    _assert_same_space(env.observation_space, ref.observation_space)
    _assert_same_space(env.action_space, ref.action_space)
    assert env.config["max_episode_steps"] == ref.spec.max_episode_steps
    env.close()
    ref.close()


@pytest.mark.parametrize("task_id", TASKS)
def test_state_in_info_is_opt_in(task_id: str) -> None:
    """The whole float64 state is opt-in; by default only Acrobot has info["state"]: its two
    angles as float32, as EnvPool's Acrobot gives them."""
    env = ep.make(task_id, num_envs=2, seed=3)
    obs, info = env.reset()
    if task_id.startswith("Acrobot"):
        assert info["state"].dtype == np.float32 and info["state"].shape == (2, 2)
        np.testing.assert_allclose(info["state"][:, 0], np.arctan2(obs[:, 1], obs[:, 0]),
                                   atol=1e-6)
        np.testing.assert_allclose(info["state"][:, 1], np.arctan2(obs[:, 3], obs[:, 2]),
                                   atol=1e-6)
        full = ep.make(task_id, num_envs=2, seed=3, state_in_info=True).reset()[1]["state"]
        assert full.dtype == np.float64 and full.shape == (2, 4)
        np.testing.assert_array_equal(info["state"], full[:, :2].astype(np.float32))
    else:
        assert "state" not in info
    env.close()


@pytest.mark.parametrize(("task_id", "kwargs", "num_steps", "must_end"), CASES, ids=str)
def test_aligned_with_gymnasium(
    task_id: str, kwargs: dict[str, Any], num_steps: int, must_end: set[str]
) -> None:
    env = ep.make(task_id, num_envs=NUM_ENVS, seed=0, state_in_info=True, **kwargs)
    refs = [gymnasium.make(task_id, **kwargs) for _ in range(NUM_ENVS)]
    for i, ref in enumerate(refs):
        ref.reset(seed=i)  # gymnasium's draw is replaced by envpool_core's below
    rng = np.random.default_rng(0)
    env_ids = np.arange(NUM_ENVS)

    obs, info = env.reset()
    expected = np.stack([_load_state(ref, info["state"][i]) for i, ref in enumerate(refs)])
    np.testing.assert_allclose(obs, expected, rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(info["elapsed_step"], 0)

    ended = np.zeros(NUM_ENVS, dtype=bool)
    elapsed = np.zeros(NUM_ENVS, dtype=np.int64)
    endings = {TERM: 0, TRUNC: 0}
    for _ in range(num_steps):
        action = _actions(task_id, obs, rng)
        obs, reward, terminated, truncated, info = env.step(action)
        np.testing.assert_array_equal(info["env_id"], env_ids)

        exp_obs = np.empty_like(obs)
        exp_reward = np.zeros(NUM_ENVS, dtype=np.float32)
        exp_term = np.zeros(NUM_ENVS, dtype=bool)
        exp_trunc = np.zeros(NUM_ENVS, dtype=bool)
        exp_state = np.empty_like(info["state"])
        for i, ref in enumerate(refs):
            if ended[i]:
                # Next-step auto-reset: the action is ignored, a new episode starts.
                exp_obs[i] = _load_state(ref, info["state"][i])
                elapsed[i] = 0
            else:
                ref_action = int(action[i]) if action.ndim == 1 else action[i]
                ref_obs, ref_reward, ref_term, ref_trunc, _ = ref.step(ref_action)
                exp_obs[i] = ref_obs
                exp_reward[i] = ref_reward
                exp_term[i] = ref_term
                # gymnasium's TimeLimit also truncates a terminating step;
                # the engine reports such a step as terminated only.
                exp_trunc[i] = ref_trunc and not ref_term
                elapsed[i] += 1
            exp_state[i] = ref.unwrapped.state

        # With glibc's libm the states agree bit for bit; the tolerance leaves
        # room for a last-bit difference of another libm's sin/cos/pow.
        np.testing.assert_allclose(obs, exp_obs, rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose(info["state"], exp_state, rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(reward, exp_reward, rtol=1e-6, atol=1e-6)
        np.testing.assert_array_equal(terminated, exp_term)
        np.testing.assert_array_equal(truncated, exp_trunc)
        np.testing.assert_array_equal(info["elapsed_step"], elapsed)
        endings[TERM] += int(terminated.sum())
        endings[TRUNC] += int(truncated.sum())
        ended = terminated | truncated

    # The comparison above covered every kind of episode end the task has.
    assert {k for k, count in endings.items() if count} >= must_end, endings
    env.close()
    for ref in refs:
        ref.close()


@pytest.mark.parametrize(("alias", "task_id"), [("phys2d/CartPole-v0", "CartPole-v0"),
                                                ("phys2d/CartPole-v1", "CartPole-v1"),
                                                ("phys2d/Pendulum-v0", "Pendulum-v0")])
def test_envpools_aliases_are_the_same_task(alias: str, task_id: str) -> None:
    # EnvPool registers these ids too (its own make test makes them).
    assert alias in ep.list_all_envs()
    assert {**ep.make_spec(alias).config_dict, "task_id": task_id} == \
        ep.make_spec(task_id).config_dict
    outputs = []
    for name in (alias, task_id):
        env = ep.make(name, num_envs=2, seed=3)
        rng = np.random.default_rng(0)
        outputs.append([env.reset()[0]])
        for _ in range(50):
            action = (rng.integers(0, 2, 2, dtype=np.int32) if "CartPole" in name
                      else rng.uniform(-2.0, 2.0, (2, 1)).astype(np.float32))
            outputs[-1].append(env.step(action)[0])
        env.close()
    np.testing.assert_array_equal(outputs[0], outputs[1])


def test_pendulum_v0_moves_by_the_velocity_before_the_clip() -> None:
    # gym's Pendulum-v0 (EnvPool's version=0): the angle moves by the new velocity before it is
    # clipped to 8 rad/s; v1 (gymnasium's) moves by the clipped one. A strong gravity makes the
    # clip engage.
    states = {}
    for task_id in ("Pendulum-v0", "Pendulum-v1"):
        env = ep.make(task_id, num_envs=1, seed=0, g=200.0, state_in_info=True)
        assert env.config["version"] == (0 if task_id == "Pendulum-v0" else 1)
        before = [env.reset()[1]["state"][0].copy()]
        for _ in range(20):
            before.append(env.step(np.full((1, 1), 2.0, np.float32))[-1]["state"][0].copy())
        states[task_id] = np.array(before)
        env.close()
    for task_id, state in states.items():
        th, thdot = state[:-1, 0], state[:-1, 1]
        newthdot = thdot + (3 * 200.0 / 2 * np.sin(th) + np.float32(3.0) * 2.0) * 0.05
        clipped = np.clip(newthdot, -8, 8)
        assert (np.abs(newthdot) > 8).sum() >= 3  # the clip engaged
        moved_by = newthdot if task_id == "Pendulum-v0" else clipped
        # The angle is as the step moved it, wrapped into [-pi, pi) only in the observation.
        np.testing.assert_allclose(state[1:, 0], th + moved_by * 0.05, rtol=0, atol=1e-12)
        np.testing.assert_allclose(state[1:, 1], clipped, rtol=0, atol=1e-12)
    assert ep.make_spec("Pendulum-v1", version=0).config.version == 0
