"""Code written for EnvPool runs unchanged with `import envpool_core as envpool`.

The same EnvPool-style script runs on upstream envpool and on envpool_core; the
structure of everything it gets back (types, keys, shapes, dtypes) must match.
"""

from __future__ import annotations

from typing import Any

import dm_env
import gym
import gymnasium
import numpy as np
import pytest
import tree

import envpool_core

upstream = pytest.importorskip("envpool")


def envpool_script(envpool: Any) -> list:
    """Typical EnvPool usage: gymnasium sync, async send/recv, dm, spec."""
    seen: list = []
    env = envpool.make("CartPole-v1", env_type="gymnasium", num_envs=4, seed=0)
    seen += [env.observation_space, env.action_space, len(env), env.config["num_envs"]]
    obs, info = env.reset()
    seen.append((obs, info))
    for _ in range(3):
        seen.append(env.step(np.zeros(4, dtype=np.int32)))
    seen.append(env.step(np.ones(2, dtype=np.int32), np.array([3, 1])))

    env = envpool.make_gymnasium("CartPole-v1", num_envs=6, batch_size=3, seed=0)
    env.async_reset()
    for _ in range(5):
        obs, rew, term, trunc, info = env.recv()
        env.send(np.ones(len(info["env_id"]), dtype=np.int32), info["env_id"])
        seen.append((obs, rew, term, trunc, info))

    dm = envpool.make_dm("CartPole-v1", num_envs=2)
    ts = dm.reset()
    seen.append((ts.step_type, ts.reward, ts.discount, ts.observation.obs,
                 ts.observation.env_id, ts.observation.players.env_id))
    ts = dm.step(np.array([0, 1], dtype=np.int32))
    seen.append((ts.step_type, ts.reward, ts.discount, ts.observation.obs))
    spec = envpool.make_spec("CartPole-v1", num_envs=3)
    seen += [spec.config.num_envs, spec.config.max_episode_steps, spec.observation_space,
             spec.action_space]
    return seen


def structure(x: Any) -> Any:
    if isinstance(x, np.ndarray):
        return ("array", x.shape, x.dtype)
    if isinstance(x, dict):
        return {k: structure(v) for k, v in x.items()}
    if isinstance(x, (tuple, list)):
        return [structure(v) for v in x]
    return x


def test_envpool_script_runs_unchanged() -> None:
    ours = envpool_script(envpool_core)
    theirs = envpool_script(upstream)
    assert structure(ours) == structure(theirs)


def acme_style_client(envpool: Any, task: str) -> tuple:
    """What an Acme-style client does with a dm pool: the four specs of dm_env.Environment
    (acme.specs.make_environment_spec), each spec and value cast to single precision with
    tree (acme.wrappers.SinglePrecisionWrapper), then stepping until some episode ends."""
    env = envpool.make_dm(task, num_envs=3, seed=0, max_episode_steps=20)
    assert isinstance(env, dm_env.Environment)
    specs = (env.observation_spec(), env.action_spec(), env.reward_spec(), env.discount_spec())

    def single(x: Any) -> Any:
        dtype = getattr(x, "dtype", None)
        if dtype == np.float64:
            return x.replace(dtype=np.float32) if hasattr(x, "replace") else x.astype(np.float32)
        return x

    single_specs = tree.map_structure(single, specs)
    rng = np.random.default_rng(0)
    action_spec = specs[1]
    timesteps = [tree.map_structure(single, env.reset())]
    with env:
        while not any(timesteps[-1].last()):
            if isinstance(action_spec, dm_env.specs.DiscreteArray):
                action = rng.integers(action_spec.num_values, size=3, dtype=action_spec.dtype)
            else:
                action = rng.uniform(action_spec.minimum, action_spec.maximum,
                                     (3, *action_spec.shape)).astype(action_spec.dtype)
            timesteps.append(tree.map_structure(single, env.step(action)))
    return specs, single_specs, timesteps


def spec_structure(spec: Any) -> Any:
    return tree.map_structure(
        lambda s: (isinstance(s, dm_env.specs.BoundedArray), s.shape, s.dtype), spec)


# EnvPool bounds MuJoCo's float64 info fields by float64's range, which overflows float32.
@pytest.mark.filterwarnings("ignore:overflow encountered in cast:RuntimeWarning")
@pytest.mark.parametrize("task", ["CartPole-v1", "Pendulum-v1", "Hopper-v4", "Breakout-v5"])
def test_acme_style_client_runs_unchanged(task: str) -> None:
    specs, single_specs, timesteps = acme_style_client(envpool_core, task)
    upstream_specs = acme_style_client(upstream, task)[0]
    # Each field of one env's row conforms to its spec (shape, dtype, bounds), before and
    # after the cast, and reward and discount have the dtypes TimeStep has (EnvPool says
    # float64 for float32 arrays); the run ends some episode, whose next step is a FIRST.
    observation_spec, _, reward_spec, discount_spec = single_specs
    for ts in timesteps:
        tree.map_structure(lambda s, v: [s.validate(row) for row in v], observation_spec,
                           ts.observation)
        for reward, discount in zip(ts.reward, ts.discount, strict=True):
            reward_spec.validate(reward)
            discount_spec.validate(discount)
    assert specs[2].dtype == specs[3].dtype == np.float32 == timesteps[0].reward.dtype
    assert timesteps[-1].step_type.tolist().count(dm_env.StepType.LAST) >= 1
    # As EnvPool's: every spec bounded, the same shapes and dtypes for the fields both have
    # and the same action spec.
    ours, theirs = specs[0]._asdict(), upstream_specs[0]._asdict()
    for name in set(ours) & set(theirs):
        assert spec_structure(ours[name]) == spec_structure(theirs[name]), name
    assert [f for f in ours if f in theirs] == [f for f in theirs if f in ours]  # same order
    # make_spec's observation_spec() is the pool's, as EnvPool's (EnvPool's examples read
    # make_spec(task).observation_spec().obs).
    assert repr(envpool_core.make_spec(task).observation_spec()) == repr(specs[0])
    assert spec_structure(specs[1]) == spec_structure(upstream_specs[1])
    assert type(specs[1]) is type(upstream_specs[1])
    np.testing.assert_array_equal(np.broadcast_to(specs[1].minimum, specs[1].shape),
                                  np.broadcast_to(upstream_specs[1].minimum, specs[1].shape))


class GymnasiumRecordEpisodeStatistics(gymnasium.Wrapper):
    """CleanRL's RecordEpisodeStatistics for EnvPool, with `gym` read as `gymnasium` (what a
    port of its EnvPool scripts to current EnvPool, which speaks only gymnasium, does)."""

    def reset(self, **kwargs: Any) -> Any:
        self.episode_returns = np.zeros(self.env.num_envs, dtype=np.float32)
        return super().reset(**kwargs)

    def step(self, action: Any) -> Any:
        obs, reward, terminated, truncated, info = super().step(action)
        self.episode_returns += info["reward"]
        info["r"] = self.episode_returns.copy()
        self.episode_returns *= 1 - info["terminated"]
        return obs, reward, terminated, truncated, info


def wrapped_gymnasium_client(envpool: Any) -> list:
    envs = GymnasiumRecordEpisodeStatistics(envpool.make(
        "Breakout-v5", env_type="gymnasium", num_envs=4, episodic_life=True, reward_clip=True))
    seen: list = [envs.unwrapped is envs.env, isinstance(envs.env, gymnasium.vector.VectorEnv),
                  envs.action_space, envs.observation_space, envs.render_mode]
    obs, info = envs.reset()
    seen.append((obs, sorted(info)))
    rng = np.random.default_rng(0)
    for _ in range(200):
        obs, reward, terminated, truncated, info = envs.step(rng.integers(0, 4, 4))
        seen.append((obs, reward, terminated, truncated, sorted(info)))
    seen.append(envs.get_wrapper_attr("num_envs"))
    assert str(envs).startswith(f"<{type(envs).__name__}")
    envs.close()
    return seen


def test_gymnasium_wrapper_wraps_a_pool_as_envpools() -> None:
    # EnvPool's gymnasium pools are gymnasium.Env too, so gymnasium.Wrapper accepts them; here
    # it raised TypeError ("Expected env to be a gymnasium.Env").
    ours, theirs = wrapped_gymnasium_client(envpool_core), wrapped_gymnasium_client(upstream)
    assert structure(ours) == structure(theirs)
    assert ours[0] and ours[1]


def test_gym_wrapper_unwraps_to_the_pool() -> None:
    # gym 0.23's Wrapper.unwrapped asks the env for its own, as EnvPool 0.6-0.8's gym.Env had.
    pool = envpool_core.make("CartPole-v1", env_type="gym", num_envs=2)
    assert gym.Wrapper(gym.Wrapper(pool)).unwrapped is pool


def test_reward_threshold_is_envpools() -> None:
    # Gymnasium's registered thresholds, which are EnvPool's but for Hopper (EnvPool 6000).
    upstream_ids = set(upstream.list_all_envs())
    differ = {}
    for task in envpool_core.list_all_envs():
        ours = envpool_core.make_spec(task).reward_threshold
        if task in upstream_ids and ours != upstream.make_spec(task).reward_threshold:
            differ[task] = ours
    assert differ == {"Hopper-v4": 3800.0, "Hopper-v5": 3800.0}
    assert envpool_core.make("CartPole-v1", num_envs=1).spec.reward_threshold == 475.0
    assert envpool_core.make_spec("Pong-v5").reward_threshold is None


@pytest.mark.parametrize(("task", "options", "steps"), [
    ("Breakout-v5", {}, 700),
    ("Pong-v5", {"seed": 7}, 1100),  # a game lasts about 950 steps
    ("SpaceInvaders-v5", {"episodic_life": True, "reward_clip": True, "seed": 3}, 700),
])
def test_atari_plays_envpools_games(task: str, options: dict, steps: int) -> None:
    # The same seed and actions give EnvPool's games, with the default no-op starts and sticky
    # actions: every reward, flag, info and frame, but the newest frame of a game's last step.
    # There the frame skip stopped early, and envpool_core's observation is gymnasium's
    # AtariPreprocessing's (test_atari.py), EnvPool's one unpooled screen.
    ours = envpool_core.make(task, env_type="gymnasium", num_envs=3, **options)
    theirs = upstream.make(task, env_type="gymnasium", num_envs=3, **options)
    np.testing.assert_array_equal(ours.reset()[0], theirs.reset()[0])
    rng = np.random.default_rng(0)
    game_overs = 0
    for t in range(steps):
        action = rng.integers(0, ours.action_space.n, 3).astype(np.int32)
        obs, reward, terminated, truncated, info = ours.step(action)
        their_obs, their_reward, their_terminated, their_truncated, their_info = theirs.step(action)
        for key in ("lives", "reward", "elapsed_step", "terminated", "env_id"):
            np.testing.assert_array_equal(info[key], their_info[key], err_msg=f"{key} at {t}")
        np.testing.assert_array_equal(reward, their_reward, err_msg=f"reward at {t}")
        np.testing.assert_array_equal(terminated, their_terminated, err_msg=f"terminated at {t}")
        np.testing.assert_array_equal(truncated, their_truncated, err_msg=f"truncated at {t}")
        game_over = info["terminated"].astype(bool)
        np.testing.assert_array_equal(obs[~game_over], their_obs[~game_over], err_msg=f"obs at {t}")
        np.testing.assert_array_equal(obs[:, :-1], their_obs[:, :-1], err_msg=f"obs at {t}")
        game_overs += int(game_over.sum())
    assert game_overs >= 1


CLASSIC = ["CartPole-v0", "CartPole-v1", "Pendulum-v1", "MountainCar-v0",
           "MountainCarContinuous-v0", "Acrobot-v1"]


@pytest.mark.parametrize("task", CLASSIC)
def test_classic_tasks_start_as_envpools(task: str) -> None:
    # Start states are drawn as EnvPool draws them: a seed gives EnvPool's, reset after reset.
    ours = envpool_core.make(task, env_type="gymnasium", num_envs=4, seed=5)
    theirs = upstream.make(task, env_type="gymnasium", num_envs=4, seed=5)
    exact = task in ("CartPole-v0", "CartPole-v1", "MountainCar-v0")
    for _ in range(3):
        # Acrobot's observation (cosines and sines of the state) may differ in the last bit.
        np.testing.assert_allclose(ours.reset()[0], theirs.reset()[0], rtol=0,
                                   atol=0 if exact else 1e-7)
    if not exact:
        # EnvPool's float arithmetic differs from gymnasium's in the last bits there (and its
        # Pendulum moves with the unclipped velocity); envpool_core's is gymnasium's
        # (test_classic.py), so the trajectories part, as chaotic ones do.
        return
    rng = np.random.default_rng(0)  # then, with the same actions, EnvPool's episodes
    for t in range(1500):
        action = rng.integers(0, ours.action_space.n, 4).astype(np.int32)
        for ours_out, their_out in zip(ours.step(action)[:4], theirs.step(action)[:4],
                                       strict=True):
            np.testing.assert_array_equal(ours_out, their_out, err_msg=f"step {t}")


MUJOCO = [f"{family}-{version}" for version in ("v4", "v5") for family in (
    "Ant", "HalfCheetah", "Hopper", "Humanoid", "HumanoidStandup", "InvertedDoublePendulum",
    "InvertedPendulum", "Pusher", "Reacher", "Swimmer", "Walker2d")]


@pytest.mark.parametrize("task", MUJOCO)
def test_mujoco_tasks_start_as_envpools(task: str) -> None:
    # The reset noise is drawn as EnvPool draws it: a seed gives EnvPool's start states, reset
    # after reset. The Humanoids' observations also hold quantities MuJoCo derives from the
    # state (cinert, ...), which EnvPool's own MuJoCo build computes in other last bits; the
    # steps that follow differ from EnvPool's in the last bits for the same reason.
    ours = envpool_core.make(task, env_type="gymnasium", num_envs=3, seed=11)
    theirs = upstream.make(task, env_type="gymnasium", num_envs=3, seed=11)
    atol = 1e-13 if task.startswith("Humanoid") else 0
    for _ in range(3):
        np.testing.assert_allclose(ours.reset()[0], theirs.reset()[0], rtol=0, atol=atol)


# EnvPool's pool-level and internal settings, and reward_threshold (the test below).
POOL_KEYS = {"num_envs", "batch_size", "num_threads", "thread_affinity_offset", "seed",
             "max_num_players", "base_path", "env_seed", "gym_reset_return_info",
             "max_episode_steps", "reward_threshold"}


@pytest.mark.parametrize("task", ["CartPole-v0", "CartPole-v1", "Pendulum-v1", "MountainCar-v0",
                                  "MountainCarContinuous-v0", "Acrobot-v1", "Pong-v5",
                                  "Breakout-v5", "MontezumaRevenge-v5"])
def test_every_envpool_option_is_taken_or_refused_with_a_reason(task: str) -> None:
    # MuJoCo's: tests/test_envpool_mujoco_options.py. An option EnvPool has is taken with
    # EnvPool's default as ours, or refused with what to do instead (Pendulum's version,
    # Atari's task: the ROM, which the task id fixes).
    theirs = upstream.make_spec(task).config._asdict()
    ours = envpool_core.make_spec(task).config._asdict()
    for name in sorted(set(theirs) - POOL_KEYS):
        try:
            config = envpool_core.make_spec(task, **{name: theirs[name]}).config._asdict()
        except TypeError as e:
            reasons = ("(an EnvPool option: ", "(fixed by the task id: ")
            assert any(r in str(e) for r in reasons), f"{task} {name}: no reason given: {e}"
            continue
        assert config == ours, f"{task} {name}={theirs[name]!r} is not our default"


def test_reward_threshold_option_is_envpools() -> None:
    # EnvPool's make_spec/make take reward_threshold on the tasks that have one, and show it in
    # the config; Atari's have none, and there it is an unknown option on both.
    for task in ("CartPole-v1", "Hopper-v4"):
        for envpool in (envpool_core, upstream):
            spec = envpool.make_spec(task, reward_threshold=123.0)
            assert spec.reward_threshold == spec.config.reward_threshold == 123.0, envpool
        assert envpool_core.make(task, reward_threshold=7).spec.reward_threshold == 7.0
        assert envpool_core.make_spec(task).config.reward_threshold == \
            envpool_core.make_spec(task).reward_threshold
    for envpool in (envpool_core, upstream):
        with pytest.raises(TypeError):
            envpool.make_spec("Pong-v5", reward_threshold=1.0)
    with pytest.raises(TypeError, match="reward_threshold must be a number"):
        envpool_core.make_spec("CartPole-v1", reward_threshold="high")


@pytest.mark.parametrize("env_type", ["gymnasium", "gym", "dm"])
def test_seed_after_creation_warns_and_changes_nothing(env_type: str) -> None:
    # EnvPool's seed() warns and returns: gym-style clients that call env.seed(s) run. Here it
    # raised RuntimeError. The seeds stay those given to make, on both.
    for envpool in (envpool_core, upstream):
        fresh = envpool.make("CartPole-v1", env_type=env_type, num_envs=3, seed=5)
        reseeded = envpool.make("CartPole-v1", env_type=env_type, num_envs=3, seed=5)
        with pytest.warns(UserWarning, match="seed"):
            assert reseeded.seed(123) is None
        first = [tree.flatten(pool.reset()) for pool in (fresh, reseeded)]
        for ours, theirs in zip(*first, strict=True):
            np.testing.assert_array_equal(ours, theirs)


@pytest.mark.parametrize("task", ["CartPole-v1", "Pendulum-v1", "Hopper-v4", "Breakout-v5"])
def test_spec_has_envpools_gymnasium_spaces(task: str) -> None:
    # EnvPool's spec also names its spaces gymnasium_observation_space/_action_space, which
    # clients (vector-env factories) read before making a pool: AttributeError here before.
    ours, theirs = envpool_core.make_spec(task), upstream.make_spec(task)
    assert ours.gymnasium_observation_space == ours.observation_space
    assert ours.gymnasium_action_space == ours.action_space
    assert ours.gymnasium_observation_space == theirs.gymnasium_observation_space
    assert ours.gymnasium_action_space == theirs.gymnasium_action_space


def test_envpools_public_names_exist() -> None:
    # Clients annotate with EnvPool's classes (envpool.DMEnvPool was DmEnvPool here, so a module
    # annotating with it failed at import). register() is left out: it registers EnvPool's own
    # C++ env classes, which envpool_core cannot step (docs/drop-in.md).
    missing = [name for name in upstream.__all__ if not hasattr(envpool_core, name)]
    assert missing == ["register"]
    # In EnvPool's order, which its own typing test checks as a subsequence.
    assert envpool_core.__all__[:len(upstream.__all__) - 1] == upstream.__all__[1:]
    assert isinstance(envpool_core.make_dm("CartPole-v1", num_envs=1), envpool_core.DMEnvPool)
    assert isinstance(envpool_core.make_gymnasium("CartPole-v1", num_envs=1),
                      envpool_core.GymnasiumEnvPool)
    assert isinstance(envpool_core.make_spec("CartPole-v1"), envpool_core.EnvSpec)


@pytest.mark.parametrize("task", ["CartPole-v1", "Pendulum-v1", "Hopper-v4", "Breakout-v5",
                                  "CheetahRun-v1"])
def test_spec_has_envpools_array_tables(task: str) -> None:
    # EnvPool's spec.state_array_spec / action_array_spec, which its tests and some clients
    # read (`spec.action_array_spec["action"].maximum + 1` actions): AttributeError here before.
    ours, theirs = envpool_core.make_spec(task), upstream.make_spec(task)
    for table in ("state_array_spec", "action_array_spec"):
        mine, upstreams = getattr(ours, table), getattr(theirs, table)
        assert list(mine) == list(upstreams), table
        for key, spec in upstreams.items():
            assert mine[key].dtype == spec.dtype, (table, key)
            if -1 not in spec.shape:  # EnvPool's -1: one per player, a row's () here
                assert mine[key].shape == list(spec.shape), (table, key)
            if spec.dtype.kind == "f" and np.all(spec.minimum == np.finfo(spec.dtype).tiny):
                # EnvPool's "unbounded" float (its smallest positive number as the minimum);
                # the dtype's range, +-inf, here (docs/drop-in.md).
                assert (mine[key].minimum, mine[key].maximum) == (-np.inf, np.inf), key
                continue
            for bound in ("minimum", "maximum"):
                np.testing.assert_array_equal(getattr(mine[key], bound),
                                              getattr(spec, bound), err_msg=f"{table} {key}")
                assert np.ndim(getattr(mine[key], bound)) == np.ndim(getattr(spec, bound)), key


def test_dm_bounds_shared_by_every_element_are_scalars_as_envpools() -> None:
    # EnvPool's Atari observation spec has maximum 255 (its own test compares it with ==); an
    # array of 255s made `spec.maximum == 255` ambiguous.
    for task in ("Pong-v5", "Pendulum-v1"):
        ours, theirs = envpool_core.make_spec(task), upstream.make_spec(task)
        for mine, upstreams in ((ours.observation_spec().obs, theirs.observation_spec().obs),
                                (ours.action_spec(), theirs.action_spec())):
            assert np.shape(mine.maximum) == np.shape(upstreams.maximum), task
            np.testing.assert_array_equal(mine.minimum, upstreams.minimum)
            np.testing.assert_array_equal(mine.maximum, upstreams.maximum)
    assert envpool_core.make_spec("Pong-v5").observation_spec().obs.maximum == 255


def test_package_is_typed_and_makers_name_their_pools() -> None:
    # PEP 561's marker, and the classes the makers return, as EnvPool's package has them.
    from pathlib import Path
    from typing import get_type_hints

    assert Path(envpool_core.__file__).with_name("py.typed").is_file()
    hints = {name: get_type_hints(getattr(envpool_core, name))["return"]
             for name in ("make_spec", "make_dm", "make_gymnasium", "make_gym")}
    assert hints["make_spec"] is envpool_core.EnvSpec
    assert hints["make_dm"] is envpool_core.DMEnvPool
    assert hints["make_gymnasium"] is envpool_core.GymnasiumEnvPool
    # make_gym follows the installed gym: gymnasium's API, or gym's old one (docs/drop-in.md).
    assert set(hints["make_gym"].__args__) == {envpool_core.GymnasiumEnvPool,
                                              envpool_core.LegacyGymEnvPool}
