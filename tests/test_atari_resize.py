"""The Atari frame resize equals OpenCV's on real game frames.

With frame_skip=1 and stack_num=1 an observation is one resized screen, so
stepping our env next to ale-py's emulator compares our resize with cv2.resize
frame by frame: bit for bit for INTER_AREA (the default), within 1 for
bilinear. Pooyan's screen is 220 rows and Pacman's 250, not 210.
"""

from __future__ import annotations

import ale_py
import cv2
import numpy as np
import pytest
from ale_py import roms as ale_roms

import envpool_core as ep

pytestmark = pytest.mark.skipif(
    "Pong-v5" not in ep.list_all_envs(), reason="envpool_core built without Atari"
)


def frames(task: str, rom: str, steps: int, gray: bool, size: tuple[int, int], area: bool):
    """Yields (our observation, ale-py screen) after each of `steps` random actions."""
    h, w = size
    env = ep.make(task, frame_skip=1, stack_num=1, img_height=h, img_width=w, noop_max=0,
                  use_fire_reset=False, gray_scale=gray, use_inter_area_resize=area, seed=0)
    ale = ale_py.ALEInterface()
    ale.setLoggerMode(ale_py.LoggerMode.Error)
    ale.setInt("random_seed", 0)
    ale.setFloat("repeat_action_probability", 0.0)
    ale.loadROM(ale_roms.get_rom_path(rom))
    actions = ale.getMinimalActionSet()
    screen = ale.getScreenGrayscale if gray else ale.getScreenRGB
    obs, _ = env.reset()
    ale.reset_game()
    yield obs[0], screen()
    rng = np.random.default_rng(0)
    for _ in range(steps):
        a = int(rng.integers(len(actions)))
        obs, _, term, trunc, _ = env.step(np.array([a], np.int32))
        ale.act(actions[a])
        yield obs[0], screen()
        if term[0] or trunc[0]:
            break
    env.close()


def as_channels_first(img: np.ndarray) -> np.ndarray:
    return img[None] if img.ndim == 2 else img.transpose(2, 0, 1)


@pytest.mark.parametrize("size", [(84, 84), (64, 64), (100, 120), (210, 80), (47, 159)])
@pytest.mark.parametrize("task,rom", [("Pong-v5", "pong"), ("MsPacman-v5", "ms_pacman"),
                                      ("Seaquest-v5", "seaquest"), ("Pooyan-v5", "pooyan"),
                                      ("Pacman-v5", "pacman")])
def test_area_resize_equals_cv2_inter_area(task: str, rom: str, size: tuple[int, int]) -> None:
    n = 0
    for obs, screen in frames(task, rom, 120, True, size, True):
        want = cv2.resize(screen, size[::-1], interpolation=cv2.INTER_AREA)
        np.testing.assert_array_equal(obs, want[None])
        n += 1
    assert n > 50


# Integer scales take OpenCV's other INTER_AREA path (block sums; 2 x 2 blocks round half up),
# and a side kept at the screen's is not resized.
@pytest.mark.parametrize("task,rom,size,gray", [
    ("Pong-v5", "pong", (105, 80), True), ("Pong-v5", "pong", (70, 32), True),
    ("MsPacman-v5", "ms_pacman", (105, 80), False), ("Pacman-v5", "pacman", (125, 80), True),
    ("Pacman-v5", "pacman", (125, 80), False), ("Pacman-v5", "pacman", (50, 40), True),
    ("Pacman-v5", "pacman", (250, 84), True), ("Pacman-v5", "pacman", (84, 160), True)])
def test_area_resize_integer_scales_and_kept_sides(task: str, rom: str, size: tuple[int, int],
                                                   gray: bool) -> None:
    n = 0
    for obs, screen in frames(task, rom, 40, gray, size, True):
        want = cv2.resize(screen, size[::-1], interpolation=cv2.INTER_AREA)
        np.testing.assert_array_equal(obs, as_channels_first(want))
        n += 1
    assert n > 20


@pytest.mark.parametrize("task,rom", [("MsPacman-v5", "ms_pacman"), ("Pacman-v5", "pacman")])
def test_area_resize_rgb_equals_cv2_inter_area(task: str, rom: str) -> None:
    for obs, screen in frames(task, rom, 80, False, (84, 84), True):
        want = cv2.resize(screen, (84, 84), interpolation=cv2.INTER_AREA)
        np.testing.assert_array_equal(obs, as_channels_first(want))


@pytest.mark.parametrize("gray", [True, False])
@pytest.mark.parametrize("task,rom", [("MsPacman-v5", "ms_pacman"), ("Pacman-v5", "pacman")])
def test_bilinear_resize_is_close_to_cv2_inter_linear(task: str, rom: str, gray: bool) -> None:
    differ = total = 0
    for obs, screen in frames(task, rom, 60, gray, (84, 84), False):
        want = as_channels_first(cv2.resize(screen, (84, 84), interpolation=cv2.INTER_LINEAR))
        diff = np.abs(obs.astype(int) - want.astype(int))
        assert diff.max() <= 1
        differ += int((diff > 0).sum())
        total += diff.size
    assert differ <= total // 100
