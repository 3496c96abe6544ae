"""EnvPool's MuJoCo options on envpool_core: EnvPool code that passes them runs unchanged.

envpool_core's MuJoCo options are gymnasium's constructor arguments. EnvPool 1.2.5 has others
for the same tasks: other names for some of them (Reacher's `ctrl_cost_weight` is gymnasium's
`reward_control_weight`), knobs of its own (reset ranges, observation clips), and switches with
which it builds a -v5 task out of its -v4 code (`legacy_healthy_reward`, `post_constraint`, ...).
Every one of them is either taken, with EnvPool's default and meaning, or refused with an error
that says what to do instead (for a switch: which task id has which value).

Meanings are checked against gymnasium stepped from the same state (as tests/test_mujoco.py
does): the option's effect is computed from gymnasium's state by the formula of EnvPool's code,
and, where an option only changes the reset, from the start states over many resets.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import envpool as upstream
import numpy as np
import pytest
from test_mujoco import TASKS, _mujoco_log_in_tmp, make_gym  # noqa: F401

import envpool_core as ep

pytestmark = pytest.mark.filterwarnings("ignore:.*is out of date")

# EnvPool's pool-level and internal settings, and reward_threshold (its Hopper's differs from
# gymnasium's): tests/test_envpool_compat.py covers these.
POOL_KEYS = {"num_envs", "batch_size", "num_threads", "thread_affinity_offset", "seed",
             "max_num_players", "base_path", "env_seed", "gym_reset_return_info", "frame_stack",
             "max_episode_steps", "reward_threshold"}


@pytest.mark.parametrize("task_id", TASKS)
def test_every_envpool_option_is_taken_or_refused_with_a_reason(task_id: str) -> None:
    theirs = upstream.make_spec(task_id).config._asdict()
    ours = ep.make_spec(task_id).config._asdict()
    taken = 0
    for name in sorted(set(theirs) - POOL_KEYS):
        try:
            config = ep.make_spec(task_id, **{name: theirs[name]}).config._asdict()
        except TypeError as e:
            assert "(an EnvPool option: " in str(e), f"{task_id} {name}: no reason given: {e}"
            continue
        taken += 1
        # EnvPool's default is ours: passing it changes nothing.
        assert config == ours, f"{task_id} {name}={theirs[name]!r} is not our default"
    assert taken > 0


# (task, EnvPool's name, gymnasium's name, a value other than the default)
ALIASES = [
    ("Ant-v4", "use_contact_force", "use_contact_forces", True),
    ("Reacher-v4", "dist_cost_weight", "reward_dist_weight", 2.0),
    ("Reacher-v5", "ctrl_cost_weight", "reward_control_weight", 0.5),
    ("Pusher-v4", "near_cost_weight", "reward_near_weight", 1.5),
    ("Pusher-v5", "dist_cost_weight", "reward_dist_weight", 2.0),
    ("Pusher-v5", "ctrl_cost_weight", "reward_control_weight", 0.5),
    ("HumanoidStandup-v4", "forward_reward_weight", "uph_cost_weight", 2.0),
    ("HumanoidStandup-v5", "contact_cost_weight", "impact_cost_weight", 1e-5),
    ("HumanoidStandup-v5", "contact_cost_max", "impact_cost_max", 1e-3),
]


def rollout(task_id: str, steps: int = 60, **options: Any) -> tuple[np.ndarray, ...]:
    env = ep.make(task_id, num_envs=2, seed=3, **options)
    rng = np.random.default_rng(0)
    obs, _ = env.reset()
    observations, rewards = [obs], []
    for _ in range(steps):
        low, high = env.action_space.low, env.action_space.high
        action = rng.uniform(low, high, (2, *env.action_space.shape))
        obs, reward, *_ = env.step(action)
        observations.append(obs)
        rewards.append(reward)
    env.close()
    return np.array(observations), np.array(rewards)


@pytest.mark.parametrize(("task_id", "envpool_name", "name", "value"), ALIASES)
def test_envpool_names_set_the_same_options(task_id: str, envpool_name: str, name: str,
                                            value: Any) -> None:
    config = ep.make_spec(task_id, **{envpool_name: value}).config._asdict()
    assert config[name] == value and envpool_name not in config
    by_alias, by_name = rollout(task_id, **{envpool_name: value}), rollout(task_id, **{name: value})
    for a, b in zip(by_alias, by_name, strict=True):
        np.testing.assert_array_equal(a, b)
    assert not np.array_equal(by_alias[1], rollout(task_id)[1]), "the option changed nothing"
    with pytest.raises(ValueError, match=f"'{envpool_name}' and '{name}' both set"):
        ep.make_spec(task_id, **{envpool_name: value, name: value})


@pytest.mark.parametrize(("task_id", "option", "message"), [
    ("Hopper-v4", "legacy_healthy_reward", "Hopper-v4 is legacy_healthy_reward=True, Hopper-v5 is "
     "legacy_healthy_reward=False"),
    ("Reacher-v5", "obs_include_z_distance", "Reacher-v4 is obs_include_z_distance=True"),
    ("HalfCheetah-v5", "post_constraint", "mj_rnePostConstraint"),
    ("Ant-v5", "use_contact_force", "include_cfrc_ext_in_observation"),
    ("InvertedPendulum-v4", "healthy_reward", "EnvPool takes it and does not use it"),
])
def test_refused_envpool_options_say_what_to_do(task_id: str, option: str, message: str) -> None:
    with pytest.raises(TypeError, match=f"unknown option '{option}'.*{message}"):
        ep.make(task_id, **{option: True})


Check = Callable[[np.ndarray, float, bool, dict[str, Any], Any, tuple[Any, ...]], bool]


def step_against_gymnasium(task_id: str, options: dict[str, Any], check: Check,
                           steps: int = 300) -> int:
    """Steps envpool_core (with `options`) and gymnasium (defaults) from the same states, with
    the same actions; `check(obs, reward, terminated, info, raw, gymnasium_step)` asserts what
    the options change, from gymnasium's state `raw` after the step, and returns whether our
    episode ended. Returns the number of episodes that ended."""
    env = ep.make(task_id, num_envs=1, seed=7, reset_state_in_info=True, max_episode_steps=100,
                  **options)
    genv = make_gym(task_id, max_episode_steps=100)
    raw = genv.unwrapped
    rng = np.random.default_rng(7)
    obs, info = env.reset()
    genv.reset(seed=7)
    raw.set_state(info["qpos0"][0].copy(), info["qvel0"][0].copy())
    ends = 0
    for _ in range(steps):
        action = rng.uniform(env.action_space.low, env.action_space.high)
        obs, reward, term, trunc, info = env.step(action[None])
        result = genv.step(action.copy())
        if check(obs[0], float(reward[0]), bool(term[0]), info, raw, result) or trunc[0]:
            ends += 1
            obs, _, _, _, info = env.step(action[None])  # the auto-reset step
            genv.reset()
            raw.set_state(info["qpos0"][0].copy(), info["qvel0"][0].copy())
    env.close()
    genv.close()
    return ends


def test_velocity_min_max_clip_the_observed_velocities() -> None:
    def check(obs: np.ndarray, reward: float, term: bool, info: dict, raw: Any,
              result: tuple) -> bool:
        gobs, greward, gterm = result[:3]
        np.testing.assert_array_equal(obs[:5], gobs[:5])
        np.testing.assert_array_equal(obs[5:], np.clip(raw.data.qvel, -0.5, 1.0))
        assert reward == np.float32(greward) and term == gterm
        return term

    assert step_against_gymnasium("Hopper-v4", {"velocity_min": -0.5, "velocity_max": 1.0},
                                  check) >= 2
    obs, _ = rollout("Walker2d-v5", velocity_min=-0.5, velocity_max=1.0)
    assert obs[:, :, 8:].min() == -0.5 and obs[:, :, 8:].max() == 1.0


def test_inverted_double_pendulum_options() -> None:
    """v4 with EnvPool's options: the tip height that ends the episode, the clip of the
    observed velocities and constraint forces, and the alive bonus (v4 pays it every step)."""
    def check(obs: np.ndarray, reward: float, term: bool, info: dict, raw: Any,
              result: tuple) -> bool:
        gobs, greward = result[:2]
        np.testing.assert_array_equal(obs[:5], gobs[:5])
        np.testing.assert_array_equal(obs[5:8], np.clip(raw.data.qvel, -2.0, 2.0))
        np.testing.assert_array_equal(obs[8:], np.clip(raw.data.qfrc_constraint, -2.0, 2.0))
        assert term == bool(raw.data.site_xpos[0, 2] <= 1.1)
        np.testing.assert_allclose(reward, greward - 10.0 + 4.0, rtol=1e-6)
        return term

    options = {"healthy_z_max": 1.1, "observation_min": -2.0, "observation_max": 2.0,
               "healthy_reward": 4.0}
    assert step_against_gymnasium("InvertedDoublePendulum-v4", options, check) >= 5


def test_inverted_pendulum_angle_range() -> None:
    def check(obs: np.ndarray, reward: float, term: bool, info: dict, raw: Any,
              result: tuple) -> bool:
        np.testing.assert_array_equal(obs, result[0])
        angle = raw.data.qpos[1]
        assert term == (not -0.05 <= angle <= 0.1) and reward == 1.0
        return term

    options = {"healthy_z_min": -0.05, "healthy_z_max": 0.1}
    assert step_against_gymnasium("InvertedPendulum-v4", options, check) >= 5


def test_reward_terms_that_gymnasiums_v4_fixes() -> None:
    """Ant-v4's forward_reward_weight, Humanoid-v4's use_contact_force (the contact cost of
    gymnasium's v3: min(weight * sum(cfrc_ext ** 2), max)), HumanoidStandup-v4's healthy_reward
    (the constant 1 of its reward) and Reacher-v4's weights: our reward from gymnasium's terms."""
    def ant(obs: np.ndarray, reward: float, term: bool, info: dict, raw: Any,
            result: tuple) -> bool:
        gobs, greward, _, _, ginfo = result
        np.testing.assert_array_equal(obs, gobs)
        np.testing.assert_allclose(reward, greward + ginfo["x_velocity"], rtol=1e-5, atol=1e-5)
        return term

    def humanoid(obs: np.ndarray, reward: float, term: bool, info: dict, raw: Any,
                 result: tuple) -> bool:
        gobs, greward = result[:2]
        np.testing.assert_array_equal(obs, gobs)
        contact_cost = min(1e-6 * np.sum(np.square(raw.data.cfrc_ext)), 0.5)
        np.testing.assert_allclose(reward, greward - contact_cost, rtol=1e-5, atol=1e-5)
        return term

    def standup(obs: np.ndarray, reward: float, term: bool, info: dict, raw: Any,
                result: tuple) -> bool:
        np.testing.assert_array_equal(obs, result[0])
        np.testing.assert_allclose(reward, result[1] + 2.0, rtol=1e-6)
        return term

    def reacher(obs: np.ndarray, reward: float, term: bool, info: dict, raw: Any,
                result: tuple) -> bool:
        gobs, _, _, _, ginfo = result
        np.testing.assert_array_equal(obs, gobs)
        for key in ("reward_dist", "reward_ctrl"):  # v4 reports the unweighted terms
            np.testing.assert_allclose(info[key][0], ginfo[key], rtol=1e-12)
        expected = 2.0 * ginfo["reward_dist"] + 0.5 * ginfo["reward_ctrl"]
        np.testing.assert_allclose(reward, expected, rtol=1e-6)
        return term

    step_against_gymnasium("Ant-v4", {"forward_reward_weight": 2.0}, ant, steps=100)
    step_against_gymnasium("Humanoid-v4", {"use_contact_force": True, "contact_cost_weight": 1e-6,
                                           "contact_cost_max": 0.5}, humanoid, steps=100)
    step_against_gymnasium("HumanoidStandup-v4", {"healthy_reward": 3.0}, standup, steps=100)
    step_against_gymnasium("Reacher-v4", {"dist_cost_weight": 2.0, "ctrl_cost_weight": 0.5},
                           reacher, steps=100)


def reset_states(task_id: str, **options: Any) -> tuple[np.ndarray, np.ndarray]:
    _, info = ep.make(task_id, num_envs=512, seed=0, reset_state_in_info=True, **options).reset()
    return info["qpos0"], info["qvel0"]


def test_arm_reset_ranges() -> None:
    """Reacher's reset_qpos_scale, reset_qvel_scale and reset_goal_scale; Pusher's cylinder box,
    cylinder_dist_min and reset_qvel_scale. Each bound is reached (within 10%), not passed."""
    init_qpos = make_gym("Reacher-v4").unwrapped.init_qpos
    qpos, qvel = reset_states("Reacher-v4", reset_qpos_scale=0.3, reset_qvel_scale=0.05,
                              reset_goal_scale=0.05)
    arm = np.abs(qpos[:, :2] - init_qpos[:2])
    assert arm.max() <= 0.3 and arm.max() > 0.27
    goal = np.linalg.norm(qpos[:, 2:], axis=1)
    assert goal.max() < 0.05 and goal.max() > 0.045
    assert np.abs(qvel[:, :2]).max() <= 0.05 and np.abs(qvel[:, :2]).max() > 0.045
    assert np.all(qvel[:, 2:] == 0)
    box = {"cylinder_x_min": 0.1, "cylinder_x_max": 0.3, "cylinder_y_min": -0.1,
           "cylinder_y_max": 0.0, "cylinder_dist_min": 0.25, "reset_qvel_scale": 0.01}
    qpos, qvel = reset_states("Pusher-v5", **box)
    x, y = qpos[:, -4], qpos[:, -3]
    assert x.min() >= 0.1 and x.max() <= 0.3 and y.min() >= -0.1 and y.max() <= 0.0
    assert np.hypot(x, y).min() > 0.25 and np.hypot(x, y).min() < 0.26
    assert np.abs(qvel[:, :7]).max() <= 0.01 and np.abs(qvel[:, :7]).max() > 0.009
    # The same options on EnvPool's Reacher give goals in the same disc (obs[4:6]).
    envpool_reacher = upstream.make("Reacher-v4", env_type="gymnasium", num_envs=512,
                                    reset_goal_scale=0.05)
    obs, _ = envpool_reacher.reset()
    assert np.linalg.norm(obs[:, 4:6], axis=1).max() < 0.05


def test_unsatisfiable_reset_ranges_are_refused() -> None:
    with pytest.raises(ValueError, match="reset_goal_scale' must be > 0"):
        ep.make("Reacher-v5", reset_goal_scale=0.0)
    with pytest.raises(ValueError, match=r"cylinder_dist_min \(1\.0+\) leaves no point"):
        ep.make("Pusher-v4", cylinder_dist_min=1.0)
    with pytest.raises(ValueError, match="ordered ranges"):
        ep.make("Pusher-v4", cylinder_x_min=0.1, cylinder_x_max=-0.1)
