"""MuJoCo tasks against gymnasium's own implementations (v4 and v5).

envpool_core does not reproduce NumPy's random generator, so the reset noise
differs; instead each gymnasium env is given envpool_core's post-reset state
whenever an episode starts (`reset_state_in_info=True` exposes it as info
`qpos0`/`qvel0`, copied with `env.unwrapped.set_state`), including the pool's
next-step auto-resets. From there on both are stepped with the same random
actions and must agree at every step: observation, reward, terminated,
truncated and every info term gymnasium reports.

Both sides run the same libmujoco (the `mujoco` pip package) and compute in the
same order, so observations, info terms and rewards are compared exactly
(rewards are float32 in envpool_core, as in EnvPool: equal to gymnasium's
float64 reward rounded to float32). The one exception is `SUMMED_TERMS`, see
there.

Truncation follows EnvPool: `truncated` is set when the time limit is reached
and the step did not terminate; gymnasium's TimeLimit also sets it on a
terminating last step, so gymnasium's flag is compared as `truncated and not
terminated`.

Pusher-v4: gymnasium refuses it on MuJoCo >= 3 (its pusher.xml behaves
differently there, gymnasium issue #950) with an ImportError raised by a
version check in `PusherEnv.__init__`. The closest reference available is
gymnasium's own v4 code on the installed MuJoCo: the test patches the MuJoCo
version string that check reads (nothing else), so `gymnasium.make("Pusher-v4")`
builds the v4 env on pusher.xml, and envpool_core's Pusher-v4 is aligned
against it like every other task.
"""

from __future__ import annotations

import inspect
from typing import Any
from unittest import mock

import envpool as upstream  # EnvPool's options for the same tasks (requirements.txt)
import gymnasium
import numpy as np
import pytest

import envpool_core as ep
from envpool_core import _core

# gymnasium warns that every v4 MuJoCo task is out of date; they are still tasks to match.
pytestmark = pytest.mark.filterwarnings("ignore:.*is out of date")

FAMILIES = [
    "Ant", "HalfCheetah", "Hopper", "Humanoid", "HumanoidStandup", "InvertedDoublePendulum",
    "InvertedPendulum", "Pusher", "Reacher", "Swimmer", "Walker2d",
]
TASKS = [f"{family}-{version}" for family in FAMILIES for version in ("v4", "v5")]

ALIGN_STEPS = 1000
OPTION_STEPS = 300
# Options that only envpool_core has (pool options, the alignment hook).
OURS_ONLY = {"num_envs", "batch_size", "num_threads", "thread_affinity_offset", "seed",
             "max_episode_steps", "reset_state_in_info", "render_width", "render_height",
             "render_camera_id", "from_pixels", "frame_stack"}
# gymnasium constructor arguments that are not simulation options.
GYM_ONLY = {"self", "kwargs", "default_camera_config"}


@pytest.fixture(autouse=True)
def _mujoco_log_in_tmp(tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """MuJoCo's default warning handler appends to MUJOCO_LOG.TXT in the working
    directory (gymnasium's half_cheetah.xml uses a deprecated attribute): keep it
    out of the checkout."""
    monkeypatch.chdir(tmp_path)


def make_gym(task_id: str, **kwargs: Any) -> gymnasium.Env:
    """`gymnasium.make`, with Pusher-v4's MuJoCo version check passed (see the module doc)."""
    if task_id == "Pusher-v4":
        import gymnasium.envs.mujoco.pusher_v4 as pusher_v4

        with mock.patch.object(pusher_v4.mujoco, "__version__", "2.3.7"):
            return gymnasium.make(task_id, disable_env_checker=True, **kwargs)
    return gymnasium.make(task_id, disable_env_checker=True, **kwargs)


def option_defaults(task_id: str) -> dict[str, Any]:
    return {o["name"]: o["default"] for o in _core.task_options(task_id)}


def gym_options(task_id: str, options: dict[str, Any]) -> dict[str, Any]:
    """envpool_core options -> gymnasium kwargs: `x_min`/`x_max` pairs become `x_range`."""
    values = {**option_defaults(task_id), **options}
    out: dict[str, Any] = {}
    for name, value in options.items():
        if name in OURS_ONLY:
            continue
        if name.endswith(("_min", "_max")):
            base = name[:-4]
            out[f"{base}_range"] = (values[f"{base}_min"], values[f"{base}_max"])
        else:
            out[name] = value
    return out


# Info terms that are sums of squares (control, contact and impact costs, the double
# pendulum's penalties): gymnasium sums them with numpy (pairwise, vectorised), the engine in
# a plain loop, so they may differ in the last bits (measured: at most 9e-16 absolute, on
# Humanoid-v5's reward_contact). So may the norms (distance_from_origin, Reacher's and
# Pusher's reward_dist and reward_near): gymnasium's np.linalg.norm goes through BLAS's ddot,
# whose kernel depends on the CPU (on an AVX-512 AMD EPYC it differs from sqrt(x * x + y * y)
# in 1 ulp for 8% of random 2-vectors; on the earlier CI machines it did not). They are
# compared to 1e-12 relative. Every other quantity is computed in the same order on both sides
# and compared exactly.
SUMMED_TERMS = {"reward_ctrl", "reward_contact", "reward_quadctrl", "reward_impact",
                "distance_penalty", "velocity_penalty", "distance_from_origin", "reward_dist",
                "reward_near"}
SUMMED_RTOL = 1e-12


def assert_same(ours: Any, ref: Any, what: str, key: str = "") -> None:
    """Exact equality, except for `SUMMED_TERMS` (see there)."""
    ours, ref = np.asarray(ours), np.asarray(ref)
    assert ours.shape == ref.shape, f"{what}: shape {ours.shape} != {ref.shape}"
    if key in SUMMED_TERMS:
        np.testing.assert_allclose(ours, ref, rtol=SUMMED_RTOL, atol=0, err_msg=what)
    else:
        np.testing.assert_array_equal(ours, ref, err_msg=what)


def sync_reset(task_id: str, genv: gymnasium.Env, obs: np.ndarray, info: dict[str, Any],
               seed: int | None) -> None:
    """Resets gymnasium, copies envpool_core's start state into it and compares."""
    genv.reset(seed=seed)
    raw = genv.unwrapped
    raw.set_state(info["qpos0"][0].copy(), info["qvel0"][0].copy())
    assert_same(obs[0], raw._get_obs(), f"{task_id} reset obs")
    assert info["elapsed_step"][0] == 0
    for key, value in raw._get_reset_info().items():
        assert_same(info[key][0], value, f"{task_id} reset info[{key!r}]", key)


def run_alignment(task_id: str, steps: int, options: dict[str, Any] | None = None,
                  seed: int = 0) -> dict[str, int]:
    """Steps one envpool_core env and gymnasium side by side; returns episode-end counts."""
    options = dict(options or {})
    env = ep.make(task_id, num_envs=1, seed=seed, reset_state_in_info=True, **options)
    limit = env.config["max_episode_steps"]
    genv = make_gym(task_id, max_episode_steps=limit, **gym_options(task_id, options))
    rng = np.random.default_rng(seed)
    low, high = env.action_space.low, env.action_space.high
    ends = {"terminated": 0, "truncated": 0}
    obs, info = env.reset()
    sync_reset(task_id, genv, obs, info, seed)
    for t in range(steps):
        action = rng.uniform(low, high)
        obs, reward, term, trunc, info = env.step(action[None])
        gobs, greward, gterm, gtrunc, ginfo = genv.step(action.copy())
        where = f"{task_id} step {t}"
        assert_same(obs[0], gobs, f"{where} obs")
        assert_same(reward[0], np.float32(greward), f"{where} reward")
        assert bool(term[0]) == gterm, f"{where} terminated"
        assert bool(trunc[0]) == (gtrunc and not gterm), f"{where} truncated"
        for key, value in ginfo.items():
            assert key in info, f"{task_id}: info lacks {key!r}"
            assert_same(info[key][0], value, f"{where} info[{key!r}]", key)
        if term[0] or trunc[0]:
            ends["terminated" if term[0] else "truncated"] += 1
            # Next-step auto-reset: the action is ignored and the first obs returned.
            obs, reward, term, trunc, info = env.step(action[None])
            assert reward[0] == 0 and not term[0] and not trunc[0]
            sync_reset(task_id, genv, obs, info, None)
    env.close()
    genv.close()
    return ends


# Limits short enough for several episodes in ALIGN_STEPS steps of tasks
# that never terminate (or rarely do, under random actions).
ALIGN_LIMITS = {"HalfCheetah": 250, "Swimmer": 250, "HumanoidStandup": 250, "Ant": 250}


@pytest.mark.parametrize("task_id", TASKS)
def test_alignment(task_id: str) -> None:
    family = task_id.split("-")[0]
    options = {}
    if family in ALIGN_LIMITS:
        options["max_episode_steps"] = ALIGN_LIMITS[family]
    ends = run_alignment(task_id, ALIGN_STEPS, options)
    assert sum(ends.values()) >= 3, f"too few episodes compared: {ends}"


# Non-default options (termination off, positions included, custom weights,
# other ranges, frame skips, observation parts left out).
OPTION_CASES = [
    ("Ant-v4", {"terminate_when_unhealthy": False,
                "exclude_current_positions_from_observation": False,
                "use_contact_forces": True, "ctrl_cost_weight": 0.3, "contact_cost_weight": 1e-3,
                "healthy_reward": 2.0, "healthy_z_min": 0.3, "healthy_z_max": 0.9,
                "contact_force_min": -0.5, "contact_force_max": 0.5, "reset_noise_scale": 0.2,
                "max_episode_steps": 100}),
    ("Ant-v5", {"terminate_when_unhealthy": False,
                "exclude_current_positions_from_observation": False,
                "include_cfrc_ext_in_observation": False, "forward_reward_weight": 2.0,
                "contact_cost_weight": 1e-3, "main_body": 2, "frame_skip": 4,
                "healthy_z_min": 0.3, "max_episode_steps": 100}),
    ("Ant-v5", {"healthy_z_min": 0.45, "contact_force_max": 0.3}),  # terminates often
    ("HalfCheetah-v4", {"forward_reward_weight": 2.0, "ctrl_cost_weight": 0.2,
                        "reset_noise_scale": 0.3,
                        "exclude_current_positions_from_observation": False,
                        "max_episode_steps": 100}),
    ("HalfCheetah-v5", {"frame_skip": 3, "ctrl_cost_weight": 0.05,
                        "exclude_current_positions_from_observation": False,
                        "max_episode_steps": 100}),
    ("Hopper-v4", {"terminate_when_unhealthy": False,
                   "exclude_current_positions_from_observation": False,
                   "healthy_angle_min": -0.5, "healthy_state_max": 50.0,
                   "ctrl_cost_weight": 0.01, "reset_noise_scale": 0.05,
                   "max_episode_steps": 100}),
    ("Hopper-v5", {"terminate_when_unhealthy": False, "healthy_z_min": 0.9,
                   "healthy_reward": 3.0, "frame_skip": 5, "forward_reward_weight": 0.5,
                   "max_episode_steps": 100}),
    ("Walker2d-v4", {"terminate_when_unhealthy": False,
                     "exclude_current_positions_from_observation": False,
                     "healthy_angle_max": 0.5, "max_episode_steps": 100}),
    ("Walker2d-v5", {"healthy_z_min": 0.9, "frame_skip": 3, "forward_reward_weight": 0.5,
                     "ctrl_cost_weight": 0.01}),
    ("Humanoid-v4", {"terminate_when_unhealthy": False,
                     "exclude_current_positions_from_observation": False,
                     "healthy_reward": 2.0, "healthy_z_min": 0.8, "max_episode_steps": 100}),
    ("Humanoid-v5", {"terminate_when_unhealthy": False,
                     "exclude_current_positions_from_observation": False,
                     "include_cinert_in_observation": False, "include_cvel_in_observation": False,
                     "contact_cost_weight": 1e-6, "contact_cost_max": 0.01,
                     "max_episode_steps": 100}),
    ("HumanoidStandup-v5", {"include_cfrc_ext_in_observation": False,
                            "include_qfrc_actuator_in_observation": False,
                            "exclude_current_positions_from_observation": False,
                            "impact_cost_max": 1e-3, "ctrl_cost_weight": 0.2,
                            "max_episode_steps": 100}),
    ("InvertedDoublePendulum-v5", {"healthy_reward": 5.0, "reset_noise_scale": 0.2}),
    ("InvertedPendulum-v5", {"reset_noise_scale": 0.05, "frame_skip": 3}),
    ("Pusher-v5", {"reward_near_weight": 1.0, "reward_dist_weight": 2.0,
                   "reward_control_weight": 0.5}),
    ("Reacher-v5", {"reward_dist_weight": 2.0, "reward_control_weight": 0.5}),
    ("Swimmer-v4", {"exclude_current_positions_from_observation": False,
                    "forward_reward_weight": 2.0, "max_episode_steps": 100}),
    ("Swimmer-v5", {"ctrl_cost_weight": 1e-2, "reset_noise_scale": 0.3, "max_episode_steps": 100}),
]


@pytest.mark.parametrize(("task_id", "options"), OPTION_CASES,
                         ids=[f"{t}-{i}" for i, (t, _) in enumerate(OPTION_CASES)])
def test_alignment_options(task_id: str, options: dict[str, Any]) -> None:
    ends = run_alignment(task_id, OPTION_STEPS, options, seed=7)
    assert sum(ends.values()) >= 2, f"too few episodes compared: {ends}"


@pytest.mark.parametrize("task_id", TASKS)
def test_spaces_and_defaults(task_id: str) -> None:
    env = ep.make(task_id, num_envs=1)
    genv = make_gym(task_id)
    raw = genv.unwrapped
    # Observations: float64, unbounded, gymnasium's shape.
    assert env.observation_space.dtype == np.float64
    assert env.observation_space.shape == genv.observation_space.shape
    assert np.all(env.observation_space.low == -np.inf)
    assert np.all(env.observation_space.high == np.inf)
    # Actions: float64 Box from the actuator ctrlrange (gymnasium casts it to float32).
    space = env.action_space
    assert space.dtype == np.float64 and space.shape == genv.action_space.shape
    np.testing.assert_array_equal(space.low, raw.model.actuator_ctrlrange[:, 0])
    np.testing.assert_array_equal(space.high, raw.model.actuator_ctrlrange[:, 1])
    np.testing.assert_array_equal(space.low.astype(np.float32), genv.action_space.low)
    np.testing.assert_array_equal(space.high.astype(np.float32), genv.action_space.high)
    obs, _ = env.reset()
    assert obs.dtype == np.float64 and obs.shape == (1, *genv.observation_space.shape)
    # Episode limit, frame skip and model file.
    config = env.config
    assert config["max_episode_steps"] == genv.spec.max_episode_steps
    assert config["frame_skip"] == raw.frame_skip
    assert config["xml_file"] == raw.fullpath.rsplit("/", 1)[-1]
    # Every constructor argument of gymnasium's env is an option with its default.
    ours = option_defaults(task_id)
    params = inspect.signature(type(raw).__init__).parameters
    for name, param in params.items():
        if name in GYM_ONLY or param.kind == param.VAR_KEYWORD:
            continue
        if name.endswith("_range"):
            base = name[: -len("_range")]
            assert (ours[f"{base}_min"], ours[f"{base}_max"]) == tuple(param.default), name
        else:
            assert name in ours, f"{task_id} lacks gymnasium's option {name!r}"
            assert ours[name] == param.default, f"{task_id} {name}: {ours[name]} != {param.default}"
    # ... and every task option of ours is one of gymnasium's arguments (of this version or, for
    # a v4 task, v5's name for the same knob) or one of EnvPool's for this task
    # (tests/test_envpool_mujoco_options.py checks those).
    v5_env = make_gym(task_id.replace("-v4", "-v5")).unwrapped
    gym_names = set(params) | set(inspect.signature(type(v5_env).__init__).parameters)
    envpool_options = set(upstream.make_spec(task_id).config._fields)
    for name in set(ours) - OURS_ONLY - envpool_options:
        gym_name = f"{name[:-4]}_range" if name.endswith(("_min", "_max")) else name
        assert gym_name in gym_names, f"{task_id}: {name!r} is neither gymnasium's nor EnvPool's"
    env.close()
    genv.close()


def test_all_tasks_registered() -> None:
    assert set(TASKS) <= set(ep.list_all_envs())


def test_reference_sizes() -> None:
    """Observation sizes stated in the design notes."""
    sizes = {"Ant-v4": 27, "Ant-v5": 105, "Humanoid-v4": 376, "Humanoid-v5": 348,
             "Reacher-v4": 11, "Reacher-v5": 10, "InvertedDoublePendulum-v4": 11,
             "InvertedDoublePendulum-v5": 9}
    for task_id, size in sizes.items():
        assert ep.make_spec(task_id).observation_space.shape == (size,), task_id


@pytest.mark.parametrize("task_id", ["Ant-v4", "Hopper-v5", "Humanoid-v5", "Pusher-v4"])
def test_deterministic_across_num_threads(task_id: str) -> None:
    """Same seed and actions give the same outputs whatever the thread count."""
    runs = []
    for num_threads in (1, 2):
        env = ep.make(task_id, num_envs=4, num_threads=num_threads, seed=11, max_episode_steps=30)
        rng = np.random.default_rng(0)
        out = [env.reset()[0].copy()]
        for _ in range(80):  # crosses auto-resets
            space = env.action_space
            action = rng.uniform(space.low, space.high, (4, *space.shape))
            obs, rew, term, trunc, _ = env.step(action)
            out += [obs.copy(), rew.copy(), term.copy(), trunc.copy()]
        env.close()
        runs.append(out)
    for a, b in zip(*runs, strict=True):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("task_id", TASKS)
def test_seeds_differ(task_id: str) -> None:
    """Different seeds (and the envs of one pool, seeded seed + i) start differently."""
    a = ep.make(task_id, num_envs=2, seed=0).reset()[0]
    b = ep.make(task_id, num_envs=2, seed=1).reset()[0]
    assert not np.array_equal(a[0], a[1])
    assert not np.array_equal(a[0], b[0])
    np.testing.assert_array_equal(a[1], b[0])  # env 1 of seed 0 is seeded 1


# The v5 tasks with a reset_noise_scale option.
NOISE_TASKS = [t for t in TASKS if t.endswith("v5") and not t.startswith(("Pusher", "Reacher"))]


@pytest.mark.parametrize("task_id", NOISE_TASKS)
def test_zero_reset_noise_matches_gymnasium(task_id: str) -> None:
    """With reset_noise_scale=0 the first observation needs no state copy at all."""
    obs, info = ep.make(task_id, reset_noise_scale=0.0, reset_state_in_info=True).reset()
    genv = make_gym(task_id, reset_noise_scale=0.0)
    gobs, ginfo = genv.reset(seed=0)
    np.testing.assert_array_equal(obs[0], gobs)
    raw = genv.unwrapped
    np.testing.assert_array_equal(info["qpos0"][0], raw.init_qpos)
    np.testing.assert_array_equal(info["qvel0"][0], raw.init_qvel)
    for key, value in ginfo.items():
        np.testing.assert_array_equal(info[key][0], value)


def test_reset_noise_distributions() -> None:
    """Uniform noise stays in [-scale, scale]; Ant's velocity noise is normal(0, scale)."""
    n = 256
    ant = ep.make("Ant-v5", num_envs=n, reset_state_in_info=True, reset_noise_scale=0.1)
    _, info = ant.reset()
    init = make_gym("Ant-v5").unwrapped.init_qpos
    dq = info["qpos0"] - init
    assert np.all(np.abs(dq) <= 0.1) and np.abs(dq).max() > 0.09
    std = info["qvel0"].std()
    assert 0.09 < std < 0.11 and np.abs(info["qvel0"]).max() > 0.2  # not uniform(-0.1, 0.1)
    hopper = ep.make("Hopper-v5", num_envs=n, reset_state_in_info=True, reset_noise_scale=0.3)
    _, info = hopper.reset()
    assert np.all(np.abs(info["qvel0"]) <= 0.3) and np.abs(info["qvel0"]).max() > 0.25
    # Reacher's goal lies in the disc of radius 0.2; Pusher's cylinder away from the goal.
    _, info = ep.make("Reacher-v5", num_envs=n, reset_state_in_info=True).reset()
    assert np.all(np.linalg.norm(info["qpos0"][:, -2:], axis=1) < 0.2)
    assert np.all(info["qvel0"][:, -2:] == 0)
    _, info = ep.make("Pusher-v5", num_envs=n, reset_state_in_info=True).reset()
    cylinder = info["qpos0"][:, -4:-2]
    assert np.all(np.linalg.norm(cylinder, axis=1) > 0.17)
    assert np.all((cylinder[:, 0] >= -0.3) & (cylinder[:, 0] <= 0))
    assert np.all(info["qpos0"][:, -2:] == 0) and np.all(info["qvel0"][:, -4:] == 0)


@pytest.mark.parametrize("task_id", ["Ant-v4", "Humanoid-v5", "InvertedPendulum-v5"])
@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_non_finite_actions_raise(task_id: str, bad: float) -> None:
    """Documented: NaN/inf actions raise ValueError before reaching MuJoCo; the pool lives on."""
    env = ep.make(task_id, num_envs=2)
    env.reset()
    action = np.zeros((2, *env.action_space.shape))
    action[1, 0] = bad
    with pytest.raises(ValueError, match="non-finite"):
        env.step(action)
    obs, rew, *_ = env.step(np.zeros_like(action))
    assert np.isfinite(obs).all() and np.isfinite(rew).all()
    env.close()


def test_reset_state_info_is_opt_in() -> None:
    _, info = ep.make("Ant-v5").reset()
    assert "qpos0" not in info and "qvel0" not in info
    _, info = ep.make("Ant-v5", reset_state_in_info=True).reset()
    assert info["qpos0"].shape == (1, 15) and info["qvel0"].shape == (1, 14)


def test_xml_file_option(tmp_path: Any) -> None:
    """xml_file: a name in gymnasium's assets dir, or a path (here a modified copy)."""
    raw = make_gym("Ant-v5").unwrapped
    source = raw.fullpath
    text = open(source).read()
    assert 'ctrlrange="-1.0 1.0"' in text
    custom = tmp_path / "weak_ant.xml"
    custom.write_text(text.replace('ctrlrange="-1.0 1.0"', 'ctrlrange="-0.5 0.5"'))
    env = ep.make("Ant-v5", xml_file=str(custom))
    assert np.all(env.action_space.high == 0.5)
    run_alignment("Ant-v5", 50, {"xml_file": str(custom)})  # gymnasium on the same file
    with pytest.raises(ValueError, match="does not exist"):
        ep.make("Ant-v5", xml_file="no_such_model.xml")
    broken = tmp_path / "broken.xml"
    broken.write_text("<mujoco><worldbody><body></mujoco>")
    with pytest.raises(ValueError, match="cannot load MuJoCo model"):
        ep.make("Ant-v5", xml_file=str(broken))
    # gymnasium's Hopper-v4 has no xml_file; EnvPool's has, and so has ours.
    assert ep.make("Hopper-v4", xml_file="hopper.xml").config["xml_file"] == "hopper.xml"


def test_invalid_options() -> None:
    with pytest.raises(ValueError, match="main_body"):
        ep.make("Ant-v5", main_body=99)
    with pytest.raises(ValueError, match="frame_skip"):
        ep.make("Ant-v5", frame_skip=0)
    with pytest.raises(ValueError, match="reset_noise_scale"):
        ep.make("Hopper-v5", reset_noise_scale=-1.0)


def test_uph_cost_weight_is_applied() -> None:
    """HumanoidStandup-v5's uph_cost_weight weighs reward_linup as gymnasium documents
    (gymnasium's code ignores it; the default 1 gives the same rewards)."""
    infos = []
    for weight in (1.0, 2.0):
        env = ep.make("HumanoidStandup-v5", uph_cost_weight=weight, seed=3)
        env.reset()
        _, rew, _, _, info = env.step(np.zeros((1, 17)))
        infos.append((info["reward_linup"][0], rew[0]))
    assert infos[1][0] == 2 * infos[0][0]
    # Rewards are float32: their difference carries the rounding of both (an ulp each, about
    # 6e-8 relative), so it is compared to the float64 term with a tolerance.
    assert np.isclose(infos[1][1] - infos[0][1], infos[0][0], rtol=1e-6)


def test_async_mode() -> None:
    env = ep.make("Hopper-v5", num_envs=4, batch_size=2, seed=5, max_episode_steps=20)
    env.async_reset()
    seen = set()
    for _ in range(60):
        obs, _, _, _, info = env.recv()
        assert obs.shape == (2, 11) and np.isfinite(obs).all()
        seen.update(info["env_id"].tolist())
        env.send(np.zeros((2, 3)), info["env_id"])
    assert seen == {0, 1, 2, 3}
    env.close()


@pytest.mark.parametrize("task_id", ["HalfCheetah-v5", "Walker2d-v4", "CheetahRun-v1"])
def test_frame_stack_stacks_states_as_envpool(task_id: str) -> None:
    # EnvPool's frame_stack without from_pixels: each observation array becomes its last k
    # states, (k, *shape), oldest first; a reset fills the stack with its first state. Checked
    # against the unstacked pool with the same seed and actions, across auto-resets.
    k, num_envs = 3, 2
    stacked = ep.make(task_id, num_envs=num_envs, seed=3, frame_stack=k, max_episode_steps=4)
    plain = ep.make(task_id, num_envs=num_envs, seed=3, max_episode_steps=4)

    def arrays(tree: Any) -> dict[str, Any]:
        return dict(tree) if isinstance(tree, dict | gymnasium.spaces.Dict) else {"obs": tree}

    plain_spaces = arrays(plain.observation_space)
    for name, space in arrays(stacked.observation_space).items():
        assert space.shape == (k, *plain_spaces[name].shape)
    history = [arrays(plain.reset()[0])] * k  # a reset repeats its first state
    got = arrays(stacked.reset()[0])
    rng = np.random.default_rng(0)
    ended = np.zeros(num_envs, bool)
    resets = 0
    for step in range(11):  # episodes of 4 steps: two auto-resets per env
        for name in got:
            expected = np.stack([h[name] for h in history[-k:]], axis=1)
            np.testing.assert_array_equal(got[name], expected, err_msg=f"{name}, step {step}")
        action = rng.uniform(-1, 1, (num_envs, *plain.action_space.shape))
        plain_out, stacked_out = plain.step(action), stacked.step(action)
        obs, got = arrays(plain_out[0]), arrays(stacked_out[0])
        # An env that ended resets on this step: its history restarts from its first state.
        history = [{n: np.where(ended.reshape(-1, *[1] * (v.ndim - 1)), obs[n], v)
                    for n, v in h.items()} for h in history] + [obs]
        resets += int(ended.sum())
        ended = plain_out[2] | plain_out[3]
    assert resets == 2 * num_envs
    stacked.close()
    plain.close()
