"""Classic control's render(): gymnasium's frame sizes and rates, frames close to gymnasium's
rgb_array frames of the same state (drawn by pygame), and no effect on stepping."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest

import envpool_core as ep

pytest.importorskip("pygame")

# task id: (height, width, render_fps), gymnasium's.
TASKS = {
    "CartPole-v0": (400, 600, 50),
    "CartPole-v1": (400, 600, 50),
    "Pendulum-v1": (500, 500, 30),
    "MountainCar-v0": (400, 600, 30),
    "MountainCarContinuous-v0": (400, 600, 30),
    "Acrobot-v1": (500, 500, 15),
}
# The frames are compared after these many steps from the first reset.
COMPARED_STEPS = (0, 1, 5, 20, 60)
# Measured over COMPARED_STEPS and seeds 0 to 4 with pygame-ce 2.5.8 (requirements.txt): every
# frame equal to gymnasium's, pixel for pixel, on every task (Pendulum with its torque arrow).
# EnvPool's own test allows a mean difference of 4.0. The bounds leave room for a
# vertex that another libm rounds to the next pixel, not for a broken shape: Pendulum's axle
# moved by one pixel makes 11 pixels differ by more than 32, MountainCar's wheels a pixel
# smaller 54, Acrobot's joints without their anti-aliased rim 88.
MAX_MEAN_DIFF = 0.05
MAX_MISMATCHED_PIXELS = 4


def _frames_differ(ours: np.ndarray, theirs: np.ndarray) -> tuple[float, int]:
    diff = np.abs(ours.astype(np.int16) - theirs.astype(np.int16))
    return float(diff.mean()), int((diff.max(axis=-1) > 32).sum())


def _actions(env, rng: np.random.Generator) -> np.ndarray:
    space = env.action_space
    if isinstance(space, gymnasium.spaces.Discrete):
        return rng.integers(0, space.n, size=env.num_envs).astype(np.int32)
    # Beyond the bounds too: the envs clip the action, and Pendulum's arrow shows the clipped one.
    return rng.uniform(2 * space.low, 2 * space.high, size=(env.num_envs, *space.shape)).astype(
        np.float32)


def compare_with_gymnasium(task_id: str, seed: int, steps=COMPARED_STEPS,
                           policy=None) -> list[tuple[int, float, int]]:
    """(step, mean difference, mismatched pixels) of our frame against gymnasium's frame of
    the same state, at each of `steps`; the actions are random unless `policy(step)` gives
    them."""
    env = ep.make(task_id, num_envs=1, seed=seed, state_in_info=True, max_episode_steps=1000)
    ref = gymnasium.make(task_id, render_mode="rgb_array")
    ref.reset(seed=seed)
    rng = np.random.default_rng(seed)
    results = []
    last_u = None  # Pendulum's last torque, which its picture draws as an arrow
    try:
        _, info = env.reset()
        for step in range(max(steps) + 1):
            if step in steps:
                ref.unwrapped.state = np.array(info["state"][0], dtype=np.float64)
                ref.unwrapped.last_u = last_u
                ours = env.render()[0]
                results.append((step, *_frames_differ(ours, ref.render())))
            action = _actions(env, rng) if policy is None else policy(step)
            _, _, _, _, info = env.step(action)
            last_u = np.clip(action[0, 0], -2.0, 2.0) if action.ndim == 2 else None
    finally:
        env.close()
        ref.close()
    return results


@pytest.mark.parametrize("task_id", TASKS)
def test_render_shape_dtype_and_fps_are_gymnasiums(task_id: str) -> None:
    height, width, fps = TASKS[task_id]
    env = ep.make(task_id, num_envs=2, render_mode="rgb_array")
    env.reset()
    frames = env.render(env_ids=[0, 1])
    assert frames.shape == (2, height, width, 3)
    assert frames.dtype == np.uint8
    assert env.metadata["render_fps"] == fps
    assert ep.make_spec(task_id).render_shape == [height, width]
    ref = gymnasium.make(task_id, render_mode="rgb_array")
    ref.reset(seed=0)
    assert ref.render().shape == (height, width, 3)
    assert ref.metadata["render_fps"] == fps
    env.close()


@pytest.mark.parametrize("task_id", ["phys2d/CartPole-v1", "Pendulum-v0", "phys2d/Pendulum-v0"])
def test_other_ids_render_as_their_gymnasium_task(task_id: str) -> None:
    assert ep.make_spec(task_id).render_shape in ([400, 600], [500, 500])


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("task_id", TASKS)
def test_frames_match_gymnasiums_for_the_same_state(task_id: str, seed: int) -> None:
    for step, mean, mismatched in compare_with_gymnasium(task_id, seed):
        assert mean < MAX_MEAN_DIFF, (step, mean, mismatched)
        assert mismatched <= MAX_MISMATCHED_PIXELS, (step, mean, mismatched)


def test_frames_match_where_the_car_leaves_the_frame() -> None:
    # Rocked left then right, the car reaches the left wall (steps 117 to 124 lie partly
    # outside the frame), where its outline is clipped to the frame's edge.
    def rock(step: int) -> np.ndarray:
        return np.array([2 if (step // 40) % 2 else 0], np.int32)

    results = compare_with_gymnasium("MountainCar-v0", 0, range(100, 140), rock)
    for step, mean, mismatched in results:
        assert mean < MAX_MEAN_DIFF, (step, mean, mismatched)
        assert mismatched <= MAX_MISMATCHED_PIXELS, (step, mean, mismatched)


@pytest.mark.parametrize("task_id", TASKS)
def test_render_does_not_change_stepping(task_id: str) -> None:
    rendered = ep.make(task_id, num_envs=3, seed=5)
    plain = ep.make(task_id, num_envs=3, seed=5)
    rng = np.random.default_rng(0)
    obs_r, _ = rendered.reset()
    obs_p, _ = plain.reset()
    np.testing.assert_array_equal(obs_r, obs_p)
    for _ in range(30):
        rendered.render(env_ids=[0, 1, 2])
        action = _actions(rendered, rng)
        out_r = rendered.step(action)
        out_p = plain.step(action)
        for a, b in zip(out_r[:4], out_p[:4], strict=True):
            np.testing.assert_array_equal(a, b)
    rendered.close()
    plain.close()


@pytest.mark.parametrize("task_id", TASKS)
def test_render_of_some_envs_is_those_rows_of_all(task_id: str) -> None:
    env = ep.make(task_id, num_envs=3, seed=7)
    env.reset()
    env.step(_actions(env, np.random.default_rng(1)))
    every = env.render(env_ids=[0, 1, 2])
    np.testing.assert_array_equal(env.render(env_ids=[2]), every[2:])
    np.testing.assert_array_equal(env.render(env_ids=[2, 0]), every[[2, 0]])
    np.testing.assert_array_equal(env.render(), every[:1])
    # Different start states draw different pictures.
    assert not np.array_equal(every[0], every[1])
    env.close()
