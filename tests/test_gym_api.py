"""env_type="gym" speaks the installed gym's API; vector-env attributes; one column table.

gym==0.23.1 (CleanRL's pin, in requirements.txt) is installed, so env_type="gym" gets the
old API here; the gym >= 0.26 and no-gym cases are checked by making the pool believe so.
"""

from __future__ import annotations

import types
import warnings

import gymnasium
import numpy as np
import pytest

import envpool_core as ep
from envpool_core import _core

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    import gym


def test_gym_is_the_old_one() -> None:
    assert gym.__version__ == "0.23.1"


def test_old_api_matches_the_gymnasium_pool_step_for_step() -> None:
    kwargs = dict(num_envs=4, seed=3, max_episode_steps=12)
    old = ep.make("CartPole-v1", env_type="gym", **kwargs)
    new = ep.make("CartPole-v1", env_type="gymnasium", **kwargs)
    assert isinstance(old, ep.LegacyGymEnvPool)
    obs = old.reset()
    assert isinstance(obs, np.ndarray)
    np.testing.assert_array_equal(obs, new.reset()[0])
    seen_trunc = seen_term = False
    for t in range(40):
        action = np.array([0, t % 2, (t + 1) % 2, 0], np.int32)  # falls / balances
        result = old.step(action)
        assert len(result) == 4
        obs, reward, done, info = result
        obs2, reward2, term, trunc, info2 = new.step(action)
        np.testing.assert_array_equal(obs, obs2)
        np.testing.assert_array_equal(reward, reward2)
        np.testing.assert_array_equal(done, term | trunc)
        np.testing.assert_array_equal(info["TimeLimit.truncated"], trunc)
        np.testing.assert_array_equal(info["env_id"], info2["env_id"])
        seen_trunc |= trunc.any()
        seen_term |= term.any()
    assert seen_trunc and seen_term  # both kinds of episode end were compared


def test_old_api_reset_return_info_and_async_recv() -> None:
    env = ep.make("CartPole-v1", env_type="gym", num_envs=4, gym_reset_return_info=True)
    obs, info = env.reset()
    assert obs.shape == (4, 4) and list(info["env_id"]) == [0, 1, 2, 3]
    assert not info["TimeLimit.truncated"].any()
    assert env.config["gym_reset_return_info"] is True
    env = ep.make("CartPole-v1", env_type="gym", num_envs=4, batch_size=2)
    env.async_reset()
    obs, reward, done, info = env.recv()
    assert obs.shape == (2, 4) and done.dtype == np.bool_ and reward.dtype == np.float32
    env.send(np.zeros(2, dtype=np.int32), info["env_id"])
    assert len(env.recv()) == 4


def test_old_api_spaces_are_gym_spaces() -> None:
    env = ep.make("Breakout-v5", env_type="gym", num_envs=1)
    assert isinstance(env.action_space, gym.spaces.Discrete) and env.action_space.n == 4
    assert isinstance(env.observation_space, gym.spaces.Box)
    assert env.observation_space.shape == (4, 84, 84)
    assert env.observation_space.dtype == np.uint8
    assert isinstance(ep.make("Hopper-v4", env_type="gym").action_space, gym.spaces.Box)


class RecordEpisodeStatistics(gym.Wrapper):
    """CleanRL's wrapper from its EnvPool scripts (gym 0.23 API)."""

    def __init__(self, env: object) -> None:
        super().__init__(env)
        self.num_envs = getattr(env, "num_envs", 1)

    def reset(self, **kwargs: object) -> np.ndarray:
        observations = super().reset(**kwargs)
        self.episode_returns = np.zeros(self.num_envs, dtype=np.float32)
        self.episode_lengths = np.zeros(self.num_envs, dtype=np.int32)
        self.returned_episode_returns = np.zeros(self.num_envs, dtype=np.float32)
        self.returned_episode_lengths = np.zeros(self.num_envs, dtype=np.int32)
        return observations

    def step(self, action: np.ndarray) -> tuple:
        observations, rewards, dones, infos = super().step(action)
        self.episode_returns += infos["reward"]
        self.episode_lengths += 1
        self.returned_episode_returns[:] = self.episode_returns
        self.returned_episode_lengths[:] = self.episode_lengths
        self.episode_returns *= 1 - infos["terminated"]
        self.episode_lengths *= 1 - infos["terminated"]
        infos["r"] = self.returned_episode_returns
        infos["l"] = self.returned_episode_lengths
        return observations, rewards, dones, infos


def test_cleanrl_style_ppo_rollout_on_gym_0_23() -> None:
    """The env side of CleanRL's ppo_atari_envpool.py, verbatim in what it asks of the pool."""
    num_envs, num_steps, gamma, lam = 2, 48, 0.99, 0.95
    envs = ep.make("Breakout-v5", env_type="gym", num_envs=num_envs, episodic_life=True,
                   reward_clip=True, seed=1, max_episode_steps=30)
    envs.num_envs = num_envs
    envs.single_action_space = envs.action_space
    envs.single_observation_space = envs.observation_space
    envs = RecordEpisodeStatistics(envs)
    assert isinstance(envs.action_space, gym.spaces.Discrete), "only discrete action space"
    obs_buf = np.zeros((num_steps, num_envs, *envs.single_observation_space.shape), np.float32)
    rewards = np.zeros((num_steps, num_envs), np.float32)
    dones = np.zeros((num_steps, num_envs), np.float32)
    values = np.zeros((num_steps, num_envs), np.float32)
    weights = np.random.default_rng(0).normal(size=(84 * 84, envs.single_action_space.n))
    next_obs = envs.reset()
    next_done = np.zeros(num_envs, np.float32)
    finished = []
    for step in range(num_steps):
        obs_buf[step], dones[step] = next_obs, next_done
        logits = next_obs[:, -1].reshape(num_envs, -1) / 255.0 @ weights
        values[step] = logits.mean(axis=1)
        action = logits.argmax(axis=1)
        next_obs, reward, next_done, info = envs.step(action)
        rewards[step] = reward
        next_done = next_done.astype(np.float32)
        for idx, d in enumerate(next_done):
            if (d and info["lives"][idx] == 0) or info["TimeLimit.truncated"][idx]:
                finished.append((info["r"][idx], info["l"][idx]))
    advantages = np.zeros_like(rewards)
    lastgaelam = 0.0
    for t in reversed(range(num_steps)):
        nextnonterminal = 1.0 - (next_done if t == num_steps - 1 else dones[t + 1])
        nextvalues = values[t] if t == num_steps - 1 else values[t + 1]
        delta = rewards[t] + gamma * nextvalues * nextnonterminal - values[t]
        advantages[t] = lastgaelam = delta + gamma * lam * nextnonterminal * lastgaelam
    assert np.isfinite(advantages).all() and obs_buf.max() > 0
    # The time limit (30 agent steps; life-loss resets are extra rows) ended the episodes.
    assert finished and all(length >= 30 for _, length in finished)


def test_gym_0_26_and_no_gym(monkeypatch: pytest.MonkeyPatch) -> None:
    new_gym = types.SimpleNamespace(__version__="0.26.2", spaces=gym.spaces)
    monkeypatch.setattr(ep, "installed_gym", lambda: new_gym)
    env = ep.make("CartPole-v1", env_type="gym", num_envs=2)
    assert isinstance(env, ep.GymEnvPool) and isinstance(env.action_space, gym.spaces.Discrete)
    assert len(env.reset()) == 2 and len(env.step(np.zeros(2, np.int32))) == 5
    monkeypatch.setattr(ep, "installed_gym", lambda: None)
    env = ep.make("CartPole-v1", env_type="gym", num_envs=2)
    assert type(env) is ep.GymnasiumEnvPool
    assert isinstance(env.action_space, gymnasium.spaces.Discrete)


ALL_TYPES = ("gymnasium", "gym", "dm")


@pytest.mark.parametrize("env_type", ALL_TYPES)
def test_vector_env_attributes(env_type: str) -> None:
    env = ep.make("CartPole-v1", env_type=env_type, num_envs=3, batch_size=2)
    assert env.single_observation_space == env.observation_space
    assert env.single_action_space == env.action_space
    assert env.is_vector_env is True
    assert env.metadata["autoreset_mode"] == gymnasium.vector.AutoresetMode.NEXT_STEP
    # What clients assign: the pool's own values are accepted ...
    env.num_envs = 3
    env.batch_size = 2
    env.is_vector_env = True
    env.single_action_space = env.action_space
    env.single_observation_space = env.observation_space
    env.metadata = dict(env.metadata)
    assert (env.num_envs, env.batch_size) == (3, 2)
    # ... and any other value is refused, naming the attribute and the pool's value.
    with pytest.raises(ValueError, match=r"num_envs to 4: this pool's num_envs is 3 .*cannot"):
        env.num_envs = 4
    with pytest.raises(ValueError, match="batch_size"):
        env.batch_size = 3
    with pytest.raises(ValueError, match="single_action_space"):
        env.single_action_space = gymnasium.spaces.Discrete(5)
    with pytest.raises(ValueError, match="observation_space"):
        env.observation_space = gymnasium.spaces.Box(0, 1, (4,))
    with pytest.raises(ValueError, match="metadata"):
        env.metadata = {"autoreset_mode": gymnasium.vector.AutoresetMode.SAME_STEP}
    with pytest.raises(ValueError, match="is_vector_env"):
        env.is_vector_env = False
    assert env.num_envs == 3 and len(env) == 3


def test_gymnasium_pools_are_vector_envs() -> None:
    env = ep.make("CartPole-v1", num_envs=2)
    assert isinstance(env, gymnasium.vector.VectorEnv)
    assert not isinstance(ep.make("CartPole-v1", env_type="dm"), gymnasium.vector.VectorEnv)
    assert len(env.reset()) == 2 and len(env.step(np.zeros(2, np.int32))) == 5
    env.close()
    assert env.closed


def test_columns_come_from_the_engine() -> None:
    common = _core.COMMON_COLUMNS
    assert common == ("env_id", "players.env_id", "elapsed_step", "reward", "done", "trunc",
                      "discount", "step_type")
    env = ep.make("Breakout-v5", env_type="dm", num_envs=3)
    names = [c["name"] for c in env.spec.columns]
    assert names == list(env._pool.columns)
    assert names == [*common, "obs", *(s["name"] for s in env.spec.info_specs)]
    env.reset()
    env._pool.send(np.array([1, 2, 3], np.int32), np.array([2, 0, 1], np.int32))
    raw = env._pool.recv()
    col = dict(zip(names[:len(common)], raw, strict=False))  # Atari's info has a "reward" too
    col.update(zip(names[len(common):], raw[len(common):], strict=True))
    col["reward"] = raw[names.index("reward")]
    # Values that identify each column: the Python layer must read them by the engine's names.
    assert list(col["env_id"]) == [2, 0, 1] and list(col["players.env_id"]) == [2, 0, 1]
    assert list(col["elapsed_step"]) == [1, 1, 1] and list(col["step_type"]) == [1, 1, 1]
    assert list(col["discount"]) == [1, 1, 1] and not col["done"].any()
    ts = env._arrange(raw, reset=False)
    for field, name in [("step_type", "step_type"), ("reward", "reward"),
                        ("discount", "discount")]:
        assert getattr(ts, field) is col[name]
    assert ts.observation.obs is col["obs"] and ts.observation.lives is col["lives"]
    assert ts.observation.env_id is col["env_id"]
    assert ts.observation.elapsed_step is col["elapsed_step"]
    obs, reward, _, trunc, info = ep.make("CartPole-v1")._arrange(
        tuple(np.array([i]) for i in range(9)), reset=False)
    assert (obs[0], reward[0], trunc[0], info["elapsed_step"][0]) == (8, 3, 5, 2)


def test_action_spec_and_action_space_agree_for_every_task() -> None:
    checked = 0
    for task_id in ep.list_all_envs():
        try:
            spec = ep.make_spec(task_id)
        except ValueError as e:  # a few listed ROMs are not games ALE supports
            assert "ROM" in str(e), task_id
            continue
        checked += 1
        space, dm_spec = spec.action_space, spec.action_spec()
        if isinstance(space, gymnasium.spaces.Discrete):
            assert dm_spec.minimum == space.start, task_id
            assert dm_spec.maximum == space.start + space.n - 1, task_id
        else:
            np.testing.assert_array_equal(dm_spec.minimum, space.low, err_msg=task_id)
            np.testing.assert_array_equal(dm_spec.maximum, space.high, err_msg=task_id)
            assert dm_spec.dtype == space.dtype, task_id
        assert dm_spec.shape == space.shape, task_id
    assert checked > 50


def test_rl_games_style_calls() -> None:
    """The calls rl_games' EnvPool wrapper makes (gymnasium API, env ids passed explicitly)."""
    num_actors = 3
    env = ep.make_gymnasium("Pong-v5", num_envs=num_actors, batch_size=num_actors,
                            episodic_life=True, reward_clip=True)
    ids = np.arange(0, num_actors)  # int64, as rl_games makes them
    obs, info = env.reset(ids)
    assert obs.shape == (num_actors, *env.observation_space.shape)
    assert gymnasium.spaces.flatten_space(env.observation_space).shape == (4 * 84 * 84,)
    for _ in range(3):
        obs, reward, terminated, truncated, info = env.step(np.zeros(num_actors, np.int64), ids)
    is_done = terminated | truncated
    assert is_done.dtype == np.bool_ and list(info["env_id"]) == [0, 1, 2]
    assert info["reward"].shape == info["lives"].shape == reward.shape == (num_actors,)
    assert obs.dtype == np.uint8


def test_gymnasium_vector_wrappers_and_reset_keywords() -> None:
    # gymnasium's vector wrappers call reset(seed=..., options=...): accepted as EnvPool does.
    env = gymnasium.wrappers.vector.RecordEpisodeStatistics(
        ep.make("CartPole-v1", num_envs=4, seed=0, max_episode_steps=20))
    env.reset()
    episodes = ended = 0
    for _ in range(30):
        _, _, terminated, truncated, info = env.step(np.zeros(4, np.int32))
        ended += int((terminated | truncated).sum())
        episodes += int(info.get("_episode", np.zeros(4, bool)).sum())
    assert episodes == ended > 0
    assert list(info["env_id"]) == [0, 1, 2, 3]

    pool = ep.make("CartPole-v1", num_envs=4, seed=0)
    pool.reset()
    obs, info = pool.reset(options={"reset_mask": np.array([False, True, False, True])})
    assert list(info["env_id"]) == [1, 3] and obs.shape == (2, 4)
    reseeded, _ = pool.reset(seed=7)  # reseeds as gymnasium's vector envs do: env i gets 7 + i
    np.testing.assert_array_equal(reseeded, ep.make("CartPole-v1", num_envs=4, seed=7).reset()[0])
    with pytest.raises(ValueError, match="unknown reset options"):
        pool.reset(options={"foo": 1})
    with pytest.raises(ValueError, match="reset_mask must be a bool array of shape"):
        pool.reset(options={"reset_mask": [1, 0, 0, 0]})
    with pytest.raises(ValueError, match="selects no env"):
        pool.reset(options={"reset_mask": np.zeros(4, bool)})
    # EnvPool takes gym_reset_return_info with every env_type; only gym's old API uses it.
    assert len(ep.make("CartPole-v1", gym_reset_return_info=True).reset()) == 2
    ep.make("CartPole-v1", env_type="dm", gym_reset_return_info=True).reset()


@pytest.mark.parametrize(("task", "options", "fps"), [
    ("Hopper-v4", {}, 125.0),  # gymnasium's metadata: round(1 / (timestep x frame_skip))
    ("HalfCheetah-v4", {}, 20.0),
    ("Humanoid-v5", {"frame_skip": 10}, 1 / 0.03),  # follows the frame skip option
    ("Pong-v5", {}, 15.0),  # the console's 60 Hz over frame skip 4: real time
    ("Pong-v5", {"frame_skip": 2}, 30.0),
    ("CartPole-v1", {}, 50.0),  # classic control: gymnasium's metadata
    ("Acrobot-v1", {}, 15.0),
])
def test_render_fps_is_the_tasks_real_time_rate(task: str, options: dict, fps: float) -> None:
    env = ep.make(task, env_type="gymnasium", num_envs=1, **options)
    assert env.metadata["render_fps"] == pytest.approx(fps)
    assert ep.make_spec(task, **options).render_fps == pytest.approx(fps)
    if task.endswith("-v4"):
        assert round(env.metadata["render_fps"]) == gymnasium.make(task).metadata["render_fps"]
