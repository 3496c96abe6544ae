"""The DeepMind Control Suite against dm_control, its reference, and EnvPool's structure.

Alignment: env i of a pool made with `seed=s` starts where dm_control's
`suite.load(domain, task, task_kwargs={"random": s + i})` starts (our reset draws numpy's
RandomState numbers in dm_control's order), and the same actions give the same
observations (every key), rewards, discounts and step types, through a whole episode, the
time limit and the auto-reset into the next episode, which dm_control starts from the same
RandomState. The comparison is exact (`assert_array_equal`): both sides run the same
libmujoco calls in the same order on the same model, and the task arithmetic is
dm_control's, term by term; a task that needs a tolerance states it in `ATOL` with why.

Structure: the dm_env, gymnasium and gym-era views have EnvPool 1.2.5's keys, shapes and
dtypes and its options (taken, or fixed by the id); the observation bounds are the one
difference (EnvPool's spec says [2.2e-308, 1.8e308], which excludes every negative value
its own envs return; ours are unbounded).
"""

from __future__ import annotations

import os
import shutil
import struct
import subprocess
from pathlib import Path
from typing import Any

import dm_env
import numpy as np
import pytest

import envpool_core as ep

# dm_control picks its OpenGL backend when imported: EGL, which our renderer uses too (and
# which needs no display).
os.environ["MUJOCO_GL"] = "egl"
suite = pytest.importorskip("dm_control.suite")

# id -> (domain, task) in dm_control.
TASKS = {
    "CheetahRun-v1": ("cheetah", "run"),
    "WalkerStand-v1": ("walker", "stand"),
    "WalkerWalk-v1": ("walker", "walk"),
    "WalkerRun-v1": ("walker", "run"),
    "CartpoleBalance-v1": ("cartpole", "balance"),
    "CartpoleBalanceSparse-v1": ("cartpole", "balance_sparse"),
    "CartpoleSwingup-v1": ("cartpole", "swingup"),
    "CartpoleSwingupSparse-v1": ("cartpole", "swingup_sparse"),
    "CartpoleTwoPoles-v1": ("cartpole", "two_poles"),
    "CartpoleThreePoles-v1": ("cartpole", "three_poles"),
    "HopperStand-v1": ("hopper", "stand"),
    "HopperHop-v1": ("hopper", "hop"),
    "PendulumSwingup-v1": ("pendulum", "swingup"),
    "BallInCupCatch-v1": ("ball_in_cup", "catch"),
    "AcrobotSwingup-v1": ("acrobot", "swingup"),
    "AcrobotSwingupSparse-v1": ("acrobot", "swingup_sparse"),
    "FingerSpin-v1": ("finger", "spin"),
    "FingerTurnEasy-v1": ("finger", "turn_easy"),
    "FingerTurnHard-v1": ("finger", "turn_hard"),
    "ReacherEasy-v1": ("reacher", "easy"),
    "ReacherHard-v1": ("reacher", "hard"),
    "PointMassEasy-v1": ("point_mass", "easy"),
    "PointMassHard-v1": ("point_mass", "hard"),
    "FishUpright-v1": ("fish", "upright"),
    "FishSwim-v1": ("fish", "swim"),
    "HumanoidStand-v1": ("humanoid", "stand"),
    "HumanoidWalk-v1": ("humanoid", "walk"),
    "HumanoidRun-v1": ("humanoid", "run"),
    "HumanoidRunPureState-v1": ("humanoid", "run_pure_state"),
    "HumanoidCMUStand-v1": ("humanoid_CMU", "stand"),
    "HumanoidCMUWalk-v1": ("humanoid_CMU", "walk"),
    "HumanoidCMURun-v1": ("humanoid_CMU", "run"),
    "SwimmerSwimmer6-v1": ("swimmer", "swimmer6"),
    "SwimmerSwimmer15-v1": ("swimmer", "swimmer15"),
    "ManipulatorBringBall-v1": ("manipulator", "bring_ball"),
    "ManipulatorBringPeg-v1": ("manipulator", "bring_peg"),
    "ManipulatorInsertBall-v1": ("manipulator", "insert_ball"),
    "ManipulatorInsertPeg-v1": ("manipulator", "insert_peg"),
    "QuadrupedWalk-v1": ("quadruped", "walk"),
    "QuadrupedRun-v1": ("quadruped", "run"),
    "QuadrupedFetch-v1": ("quadruped", "fetch"),
    "QuadrupedEscape-v1": ("quadruped", "escape"),
    "DogStand-v1": ("dog", "stand"),
    "DogWalk-v1": ("dog", "walk"),
    "DogTrot-v1": ("dog", "trot"),
    "DogRun-v1": ("dog", "run"),
    "DogFetch-v1": ("dog", "fetch"),
    "LqrLqr21-v1": ("lqr", "lqr_2_1"),
    "LqrLqr62-v1": ("lqr", "lqr_6_2"),
    "StackerStack2-v1": ("stacker", "stack_2"),
    "StackerStack4-v1": ("stacker", "stack_4"),
}
# Absolute tolerances, per task and observation key, where the arithmetic is not the same as
# dm_control's: observations that dm_control computes with numpy's own vectorised
# transcendental functions, which differ from the C library's in the last bit (8.9e-16 seen),
# and that nothing else reads, so the trajectory stays exact: `touch` (np.log1p of the touch
# sensors: hopper, finger, manipulator, stacker) and the quadruped's `force_torque` (np.arcsinh of
# force and torque sensors, values up to about 20, whose last bit is up to 3.6e-15), and the
# quadruped escape's `rangefinder` (np.tanh of the rangefinders, values below 1).
ATOL: dict[str, dict[str, float]] = {
    **{
        task_id: {"touch": 1e-14}
        for task_id in TASKS
        if task_id.startswith(("Hopper", "Finger", "Manipulator", "Stacker"))
    },
    **{task_id: {"force_torque": 1e-13} for task_id in TASKS if task_id.startswith("Quadruped")},
}
ATOL["QuadrupedEscape-v1"]["rangefinder"] = 1e-15
# Tasks whose reference is slow (dm_control's escape casts 20 rays at a heightfield each step;
# the dog has 38 actuators on 73 hinges): their episodes here are shorter, (steps,
# dm_control's control timestep); both sides end them at the same step (dm_control with a
# time limit of steps - 0.5 control steps). The dog's model takes a second to load: one env.
SHORT_EPISODES: dict[str, tuple[int, float]] = {
    "QuadrupedEscape-v1": (60, 0.02),
    **{task_id: (30, 0.015) for task_id in TASKS if task_id.startswith("Dog")},
}
ONE_ENV = {task_id for task_id in TASKS if task_id.startswith("Dog")}
# Tasks whose dm_control reference needs an OpenGL context to reset: the escape task uploads
# its new terrain to the renderer (dm_control makes the context when asked whether it has
# one).
NEEDS_GL = {"QuadrupedEscape-v1"}
# The steps of an episode (every task's time limit is 1000 control steps).
EPISODE = 1000


def load(task_id: str, seed: int, **environment_kwargs: Any) -> Any:
    """dm_control's environment for `task_id` with random=seed. The LQR tasks have no time
    limit in dm_control (EnvPool's, and ours, is 1000 steps): there the reference gets 29.99 s,
    999.67 of its 0.03 s control steps, so that its episodes end at the same step."""
    domain, task = TASKS[task_id]
    task_kwargs: dict[str, Any] = {"random": seed}
    if domain == "lqr":
        task_kwargs["time_limit"] = 29.99
    if task_id in SHORT_EPISODES:
        steps, control_timestep = SHORT_EPISODES[task_id]
        task_kwargs["time_limit"] = (steps - 0.5) * control_timestep
    return suite.load(
        domain, task, task_kwargs=task_kwargs, environment_kwargs=environment_kwargs or None
    )


@pytest.fixture(autouse=True)
def _mujoco_log_in_tmp(tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """MuJoCo's default warning handler (cheetah.xml has a deprecated attribute) appends to
    MUJOCO_LOG.TXT in the working directory: keep it out of the checkout."""
    monkeypatch.chdir(tmp_path)


def assert_close(task_id: str, ours: Any, theirs: Any, what: str, key: str = "") -> None:
    atol = ATOL.get(task_id, {}).get(key, 0.0)
    if atol == 0.0:
        np.testing.assert_array_equal(ours, theirs, err_msg=f"{task_id} {what}")
    else:
        np.testing.assert_allclose(ours, theirs, rtol=0, atol=atol, err_msg=f"{task_id} {what}")


NOT_OBSERVATION = {"env_id", "players", "elapsed_step"}


def compare_timestep(
    task_id: str, ts: dm_env.TimeStep, i: int, ref: dm_env.TimeStep, t: int
) -> None:
    """Env i of our batched TimeStep against dm_control's TimeStep at step t."""
    assert int(ts.step_type[i]) == int(ref.step_type), f"{task_id} step {t}: step type"
    # Keys dm_control's task lacks and EnvPool gives every task of the domain are zeros.
    for key in set(ts.observation._fields) - set(ref.observation) - NOT_OBSERVATION:
        assert not np.asarray(getattr(ts.observation, key))[i].any(), f"{task_id} {key}"
    for key, value in ref.observation.items():
        assert_close(
            task_id,
            np.asarray(getattr(ts.observation, key))[i],
            value,
            f"step {t}: observation {key!r}",
            key,
        )
    if ref.first():  # dm_control's first TimeStep has no reward or discount; EnvPool's 0, 1
        assert (ts.reward[i], ts.discount[i]) == (0.0, 1.0)
        return
    assert_close(task_id, ts.reward[i], np.float32(ref.reward), f"step {t}: reward")
    assert ts.discount[i] == np.float32(ref.discount), f"{task_id} step {t}: discount"


def with_gl_marks(task_ids: list[str]) -> list[Any]:
    """`task_ids` as parameters, those whose reference needs OpenGL marked `egl`."""
    return [pytest.param(t, marks=pytest.mark.egl) if t in NEEDS_GL else t for t in task_ids]


@pytest.mark.timeout(600)
@pytest.mark.parametrize("task_id", with_gl_marks(list(TASKS)))
def test_steps_as_dm_control(task_id: str) -> None:
    seed, num_envs = 7, 1 if task_id in ONE_ENV else 2
    episode = SHORT_EPISODES.get(task_id, (EPISODE, 0.0))[0]
    env = ep.make_dm(task_id, num_envs=num_envs, seed=seed, max_episode_steps=episode)
    refs = [load(task_id, seed + i) for i in range(num_envs)]
    action_spec = refs[0].action_spec()
    rng = np.random.default_rng(0)
    ts = env.reset()
    ref_ts = [ref.reset() for ref in refs]
    # A whole episode, its last step, and the first steps of the next one.
    for t in range(episode + 5):
        for i in range(num_envs):
            compare_timestep(task_id, ts, i, ref_ts[i], t)
        # Actions beyond the bounds too: MuJoCo clamps them on both sides (an unlimited
        # actuator, the LQR's, is bounded by +-1e10: drawn in [-1, 1] there).
        low = np.maximum(action_spec.minimum, -1.0)
        high = np.minimum(action_spec.maximum, 1.0)
        action = rng.uniform(1.2 * low, 1.2 * high, (num_envs, *action_spec.shape))
        ts = env.step(action)
        ref_ts = [ref.step(a) for ref, a in zip(refs, action, strict=True)]
        if t == episode - 1:
            assert all(r.last() for r in ref_ts) and ts.last().all(), f"{task_id}: episode end"


@pytest.mark.parametrize("task_id", ["CheetahRun-v1", "WalkerWalk-v1", "LqrLqr62-v1"])
def test_reset_with_seed_restarts_as_dm_control(task_id: str) -> None:
    # gymnasium's reset(seed=s) reseeds env i as a new env of seed s + i: its episode starts
    # where dm_control's task with that seed starts (the LQR's springs, drawn when dm_control
    # makes the environment, redrawn too).
    env = ep.make_gymnasium(task_id, num_envs=2, seed=0)
    env.reset()
    env.step(np.zeros((2, *env.action_space.shape)))
    obs, _ = env.reset(seed=123)
    for i in range(2):
        ref = load(task_id, 123 + i).reset()
        for key, value in ref.observation.items():
            assert_close(task_id, obs[key][i], value, f"env {i} {key!r} after reset(seed=)", key)


# -- structure against EnvPool 1.2.5 ----------------------------------------------------------

upstream = pytest.importorskip("envpool")
STRUCTURE_TASKS = list(TASKS)


def layout(space_or_spec: Any) -> Any:
    """Names, shapes and dtypes (not bounds) of a spec, space or value tree."""
    if hasattr(space_or_spec, "_asdict"):
        return {k: layout(v) for k, v in space_or_spec._asdict().items()}
    if isinstance(space_or_spec, dict) or hasattr(space_or_spec, "spaces"):
        items = (
            space_or_spec.items()
            if isinstance(space_or_spec, dict)
            else space_or_spec.spaces.items()
        )
        return {k: layout(v) for k, v in items}
    return (tuple(space_or_spec.shape), np.dtype(space_or_spec.dtype))


@pytest.mark.parametrize("task_id", STRUCTURE_TASKS)
@pytest.mark.parametrize("from_pixels", [False, True])
def test_dm_structure_is_envpools(task_id: str, from_pixels: bool) -> None:
    options = {"from_pixels": True} if from_pixels else {}
    ours = ep.make_spec(task_id, **options)
    theirs = upstream.make_spec(task_id, **options)
    our_obs, their_obs = layout(ours.observation_spec()), layout(theirs.observation_spec())
    assert our_obs.pop("elapsed_step") == ((), np.dtype(np.int32))  # ours adds it, as elsewhere
    assert our_obs == their_obs
    assert list(our_obs) == list(their_obs)  # EnvPool's key order
    for a, b in ((ours.action_spec(), theirs.action_spec()),):
        assert type(a) is type(b) and a.shape == b.shape and a.dtype == b.dtype
        np.testing.assert_array_equal(a.minimum, b.minimum)
        np.testing.assert_array_equal(a.maximum, b.maximum)
    assert layout(ours.observation_space) == layout(theirs.observation_space)
    assert ours.action_space == theirs.action_space
    if not from_pixels:
        # The one difference: bounds. EnvPool's lower bound is the smallest positive float64.
        assert all(np.all(s.low == -np.inf) for s in ours.observation_space.spaces.values())


@pytest.mark.parametrize("task_id", STRUCTURE_TASKS)
def test_every_envpool_option_is_taken(task_id: str) -> None:
    theirs = upstream.make_spec(task_id).config._asdict()
    ours = ep.make_spec(task_id).config._asdict()
    pool_keys = {
        "num_envs",
        "batch_size",
        "num_threads",
        "thread_affinity_offset",
        "seed",
        "max_num_players",
        "base_path",
        "env_seed",
        "gym_reset_return_info",
    }
    for name in sorted(set(theirs) - pool_keys):
        assert ours[name] == theirs[name], name
        if name == "task_name":  # fixed by the id, as Atari's task
            with pytest.raises(TypeError, match="fixed by the task id"):
                ep.make_spec(task_id, task_name="walk")
        else:
            assert ep.make_spec(task_id, **{name: theirs[name]}).config._asdict() == ours
    pixels = upstream.make_spec(task_id, from_pixels=True).config._asdict()
    ours = ep.make_spec(task_id, from_pixels=True).config._asdict()
    for name in ("render_width", "render_height", "render_camera_id", "frame_stack"):
        assert ours[name] == pixels[name], name


# The dog's walk, trot and run have stand's views (their reward alone differs): the views are
# compared on stand and fetch, sparing three loads of EnvPool's dog.
VIEW_TASKS = [t for t in STRUCTURE_TASKS if t not in {"DogWalk-v1", "DogTrot-v1", "DogRun-v1"}]


@pytest.mark.parametrize("task_id", VIEW_TASKS)
def test_gymnasium_and_gym_views_are_envpools(task_id: str) -> None:
    seen = {}
    for name, envpool in (("ours", ep), ("theirs", upstream)):
        env = envpool.make_gymnasium(task_id, num_envs=3, seed=1)
        obs, info = env.reset()
        step = env.step(np.zeros((3, *env.action_space.shape)))
        # gym-era reset returns (obs, info) as EnvPool's default does (ours: when asked).
        gym_env = envpool.make_gym(task_id, num_envs=3, seed=1, gym_reset_return_info=True)
        gym_reset = gym_env.reset()
        gym_step = gym_env.step(np.zeros((3, *gym_env.action_space.shape)))
        seen[name] = (
            {k: (v.shape, v.dtype) for k, v in obs.items()},
            {k: (v.shape, v.dtype) for k, v in step[0].items()},
            [np.asarray(x).dtype for x in step[1:4]],
            type(gym_reset).__name__,
            {k: (v.shape, v.dtype) for k, v in gym_reset[0].items()},
            {k: (v.shape, v.dtype) for k, v in gym_step[0].items()},
            [np.asarray(x).dtype for x in gym_step[1:3]],
            # The gym view's spaces are gymnasium's, as EnvPool 1.2.5's (rl_games flattens the
            # Dict with gymnasium.spaces.flatten_space).
            [type(s).__module__ for s in (gym_env.observation_space, gym_env.action_space)],
        )
        assert set(info) >= {"env_id", "players", "elapsed_step"}
    assert seen["ours"] == seen["theirs"]


def test_step_counts_and_time_limit_option() -> None:
    env = ep.make_dm("WalkerWalk-v1", num_envs=1, max_episode_steps=3)
    ts = env.reset()
    for _ in range(3):
        ts = env.step(np.zeros((1, 6)))
    assert ts.last().all() and ts.discount[0] == 1.0  # truncation keeps the discount
    assert env.step(np.zeros((1, 6))).first().all()


def test_frame_skip_is_dm_controls_n_sub_steps() -> None:
    # WalkerWalk's control timestep is 10 physics steps, CheetahRun's one; frame_skip=3 is
    # dm_control's environment with n_sub_steps=3.
    assert ep.make_spec("WalkerWalk-v1").config.frame_skip == 10
    assert ep.make_spec("CheetahRun-v1").config.frame_skip == 1
    env = ep.make_dm("CheetahRun-v1", num_envs=1, seed=4, frame_skip=3)
    ref = suite.load(
        "cheetah", "run", task_kwargs={"random": 4}, environment_kwargs={"n_sub_steps": 3}
    )
    ts, ref_ts = env.reset(), ref.reset()
    for t in range(20):
        compare_timestep("CheetahRun-v1", ts, 0, ref_ts, t)
        action = np.full(6, 0.5)
        ts, ref_ts = env.step(action[None]), ref.step(action)


# -- pixels ------------------------------------------------------------------------------------

PIXEL_TASKS = [
    "CheetahRun-v1",
    "WalkerWalk-v1",
    "CartpoleSwingup-v1",
    "FingerSpin-v1",
    "FishSwim-v1",
    "ReacherHard-v1",
]


@pytest.mark.egl
@pytest.mark.parametrize("task_id", PIXEL_TASKS)
@pytest.mark.parametrize("camera_id", [-1, 0])
def test_pixels_are_dm_controls_frames(task_id: str, camera_id: int) -> None:
    # from_pixels: the observation 'pixels' is dm_control's physics.render(84, 84, camera_id)
    # of the same state, channel first, pixel for pixel (the same libmujoco renders on both
    # sides, through EGL); render() is physics.render()'s default 320 x 240 frame.
    domain, task = TASKS[task_id]
    env = ep.make_dm(
        task_id, num_envs=1, seed=5, from_pixels=True, render_camera_id=camera_id, frame_stack=2
    )
    ref = suite.load(domain, task, task_kwargs={"random": 5})
    ts = env.reset()
    ref.reset()
    rng = np.random.default_rng(1)
    frames = []
    for t in range(4):
        frames.append(ref.physics.render(84, 84, camera_id=camera_id).transpose(2, 0, 1))
        pixels = np.asarray(ts.observation.pixels)[0]
        assert pixels.shape == (6, 84, 84) and pixels.dtype == np.uint8
        np.testing.assert_array_equal(pixels[3:], frames[-1], err_msg=f"{task_id} step {t}")
        np.testing.assert_array_equal(pixels[:3], frames[max(t - 1, 0)])  # the one before
        action = rng.uniform(-1, 1, ref.action_spec().shape)
        ts = env.step(action[None])
        ref.step(action)
    state = ep.make_gymnasium(
        task_id, num_envs=1, seed=5, render_mode="rgb_array", render_camera_id=camera_id
    )
    state.reset()
    ref = suite.load(domain, task, task_kwargs={"random": 5})
    ref.reset()
    np.testing.assert_array_equal(state.render()[0], ref.physics.render(camera_id=camera_id))


@pytest.mark.egl
def test_escape_frames_show_each_episodes_terrain() -> None:
    # The escape task draws a new terrain at every reset; the renderer made for the first
    # episode's frames uploads the next episode's terrain too, as dm_control's does. Its
    # rangefinders' rays are hidden, as dm_control's scene option hides them.
    env = ep.make_dm(
        "QuadrupedEscape-v1", num_envs=1, seed=5, from_pixels=True, max_episode_steps=2
    )
    ref = suite.load("quadruped", "escape", task_kwargs={"random": 5, "time_limit": 1.5 * 0.02})
    ts, ref_ts = env.reset(), ref.reset()
    action = np.zeros(12)
    for _ in range(3):  # two steps, then the first of the next episode
        ts, ref_ts = env.step(action[None]), ref.step(action)
    assert ts.first().all() and ref_ts.first()
    frame = ref.physics.render(84, 84).transpose(2, 0, 1)
    np.testing.assert_array_equal(np.asarray(ts.observation.pixels)[0], frame)


CSRC = Path(__file__).resolve().parents[1] / "envpool_core" / "csrc"


def test_escape_terrain_zoom_is_scipys(tmp_path: Path) -> None:
    # The escape task smooths its bumps with scipy.ndimage.zoom; the engine's SplineZoom
    # (dm_control/spline_zoom.cc) must give scipy's doubles to the last bit, which the episode
    # comparison cannot see (MuJoCo keeps the terrain as float32). It is compiled here as the
    # module compiles it (-ffp-contract=off), for this CPU (FMA where it has one), and fed the
    # escape's bumps of 100 seeds and 60 random arrays and zoom factors.
    ndimage = pytest.importorskip("scipy.ndimage")
    compiler = shutil.which("c++") or shutil.which("g++")
    if compiler is None:
        pytest.skip("no C++ compiler")
    program = tmp_path / "spline_zoom_check"
    sources = [CSRC / "tests" / "spline_zoom_check.cc", CSRC / "dm_control" / "spline_zoom.cc"]
    flags = ["-std=c++17", "-O2", "-ffp-contract=off", f"-I{CSRC}", "-o", str(program)]
    native = subprocess.run([compiler, "-march=native", *flags, *map(str, sources)])
    if native.returncode != 0:  # a compiler without -march=native
        subprocess.run([compiler, *flags, *map(str, sources)], check=True)
    cases = [
        (np.random.RandomState(seed).uniform(0.15, 1, (30, 30)), 201 / 30.0) for seed in range(100)
    ]
    rng = np.random.RandomState(0)
    while len(cases) < 160:
        shape, factor = rng.randint(2, 40, 2), float(rng.uniform(0.6, 8))
        if min(round(shape[0] * factor), round(shape[1] * factor)) >= 2:
            cases.append((rng.uniform(-3, 3, shape), factor))
    records = b"".join(struct.pack("iid", *x.shape, f) + x.tobytes() for x, f in cases)
    out = subprocess.run([str(program)], input=records, capture_output=True, check=True).stdout
    offset = 0
    for x, factor in cases:
        rows, cols = struct.unpack_from("ii", out, offset)
        ours = np.frombuffer(out, np.float64, rows * cols, offset + 8).reshape(rows, cols)
        offset += 8 + 8 * rows * cols
        np.testing.assert_array_equal(ours, ndimage.zoom(x, factor), err_msg=f"{x.shape} {factor}")
    assert offset == len(out)


@pytest.mark.parametrize(("domain", "task"), [("cartpole", "swingup"), ("cheetah", "run"),
                                              ("walker", "walk"), ("reacher", "hard"),
                                              ("swimmer", "swimmer6"), ("point_mass", "hard")])
def test_reset_state_in_info_lets_dm_control_start_where_the_env_started(
        domain: str, task: str) -> None:
    # What EnvPool's align tests do with its test build's qpos0/qvel0: dm_control's own env,
    # reset with another random stream, is put in the env's start state (cheetah's qpos0 is
    # the drawn start, before its 200 settling steps, which the test repeats) and then steps
    # as the env does.
    from dm_control import suite

    task_id = "".join(part.capitalize() for part in f"{domain}_{task}".split("_")) + "-v1"
    env = ep.make_dm(task_id, seed=11, reset_state_in_info=True)
    ref = suite.load(domain, task, task_kwargs={"random": 99})
    assert env.observation_spec().qpos0.shape == (ref.physics.model.nq,)
    assert env.observation_spec().qvel0.shape == (ref.physics.model.nv,)
    ts = env.reset()
    ref.reset()
    with ref.physics.reset_context():
        ref.physics.data.qpos[:] = ts.observation.qpos0[0]
        ref.physics.data.qvel[:] = ts.observation.qvel0[0]
        if domain == "cheetah":
            for _ in range(200):
                ref.physics.step()
            ref.physics.data.time = 0
        # The per-episode draws that are in the model, from EnvPool's other test-build infos.
        named = ref.physics.named.model
        if domain == "reacher":
            named.geom_pos["target", ["x", "y"]] = ts.observation.target[0]
        elif domain == "swimmer":
            named.geom_pos["target", ["x", "y"]] = ts.observation.target0[0]
            named.light_pos["target_light", ["x", "y"]] = ts.observation.target0[0]
        elif domain == "point_mass":
            ref.physics.model.wrap_prm[:] = ts.observation.wrap_prm[0]
    rng = np.random.default_rng(0)
    action_spec = ref.action_spec()
    for _ in range(20):
        action = rng.uniform(action_spec.minimum, action_spec.maximum)
        ours, theirs = env.step(action[None]), ref.step(action)
        for name, value in theirs.observation.items():
            np.testing.assert_allclose(getattr(ours.observation, name)[0], value,
                                       rtol=1e-7, atol=1e-9, err_msg=name)
        np.testing.assert_allclose(ours.reward[0], theirs.reward, rtol=1e-6, atol=1e-7)
        # The start state stays in info for the whole episode.
        np.testing.assert_array_equal(ours.observation.qpos0, ts.observation.qpos0)
    assert "qpos0" not in ep.make_dm(env.spec.task_id).observation_spec()._fields
