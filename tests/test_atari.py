"""Atari tasks (ALE): EnvPool's options and semantics, aligned with ale-py.

Two references:
- gymnasium's AtariPreprocessing + FrameStackObservation over ale-py's env
  (the standard pipeline), with its randomness disabled (noop_max=0, no FIRE
  reset, no sticky actions);
- `Replica`, a few lines of Python over ale_py.ALEInterface + cv2 that spell out
  EnvPool's semantics (FIRE reset, episodic life, reward clip, sticky actions
  with the same ALE seed, truncation), for the options gymnasium lacks.
"""

from __future__ import annotations

import shutil
from typing import Any

import ale_py
import cv2
import gymnasium as gym
import numpy as np
import pytest
from ale_py import roms as ale_roms
from ale_py.registration import rom_id_to_name

import envpool_core as ep
from envpool_core import _core

pytestmark = pytest.mark.skipif(
    "Pong-v5" not in ep.list_all_envs(), reason="envpool_core built without Atari"
)
gym.register_envs(ale_py)


def rom_id(task: str) -> str:
    return {rom_id_to_name(r): r for r in ale_roms.get_all_rom_ids()}[task.removesuffix("-v5")]


def first(x: Any) -> Any:
    return np.asarray(x)[0]


class Replica:
    """EnvPool's Atari semantics in Python on ale-py's emulator (one env).

    No-op starts are fixed at `noops` frames (minus one with FIRE), so it only
    matches envs made with noop_max 0 or 1.
    """

    def __init__(self, task: str, seed: int, *, noop_max: int = 0, use_fire_reset: bool = True,
                 frame_skip: int = 4, stack_num: int = 4, img_height: int = 84,
                 img_width: int = 84, gray_scale: bool = True, episodic_life: bool = False,
                 zero_discount_on_life_loss: bool = False, reward_clip: bool = False,
                 repeat_action_probability: float = 0.0, max_episode_steps: int = 27000,
                 full_action_space: bool = False) -> None:
        assert noop_max in (0, 1)
        self.ale = ale_py.ALEInterface()
        self.ale.setLoggerMode(ale_py.LoggerMode.Error)
        self.ale.setInt("random_seed", seed % 2**31)
        self.ale.setFloat("repeat_action_probability", repeat_action_probability)
        self.ale.loadROM(ale_roms.get_rom_path(rom_id(task)))
        self.actions = (self.ale.getLegalActionSet() if full_action_space
                        else self.ale.getMinimalActionSet())
        self.fire = use_fire_reset and ale_py.Action.FIRE in self.actions
        self.noops = noop_max
        self.frame_skip, self.stack_num = frame_skip, stack_num
        self.size, self.gray = (img_width, img_height), gray_scale
        self.episodic_life, self.zero_discount = episodic_life, zero_discount_on_life_loss
        self.reward_clip, self.max_steps = reward_clip, max_episode_steps
        self.continue_game, self.steps, self.elapsed, self.lives = False, 0, 0, 0
        self.stack: list[np.ndarray] = []
        self.buffers: list[np.ndarray] = [self.screen(), np.zeros_like(self.screen())]

    def screen(self) -> np.ndarray:
        return self.ale.getScreenGrayscale() if self.gray else self.ale.getScreenRGB()

    def push(self, frame: np.ndarray, fill: bool) -> np.ndarray:
        small = cv2.resize(frame, self.size, interpolation=cv2.INTER_AREA)
        small = small[None] if self.gray else small.transpose(2, 0, 1)
        self.stack = [small] * self.stack_num if fill else [*self.stack[1:], small]
        return np.concatenate(self.stack)

    def reset(self) -> dict[str, Any]:
        restart = not self.continue_game or self.ale.game_over() or self.steps >= self.max_steps
        self.continue_game = False
        if restart:
            self.ale.reset_game()
        for action in [ale_py.Action.NOOP] * max(0, self.noops - self.fire) + (
                [ale_py.Action.FIRE] if self.fire else []):
            self.ale.act(action)
            if self.ale.game_over():
                self.ale.reset_game()
                restart = True
        if restart:
            self.steps = self.elapsed = 0
        self.lives = self.ale.lives()
        self.buffers = [self.screen(), np.zeros_like(self.screen())]
        return dict(obs=self.push(self.screen(), restart), reward=0.0, terminated=False,
                    trunc=False, discount=1.0, lives=self.lives, info_reward=0.0,
                    game_over=False, elapsed_step=self.elapsed)

    def step(self, action: int) -> dict[str, Any]:
        # Gymnasium's two buffers: second-to-last frame -> [1], last -> [0], pooled into [0];
        # a game over mid frame-skip captures nothing more.
        reward, over = 0, False
        for f in range(self.frame_skip):
            reward += self.ale.act(self.actions[action])
            over = self.ale.game_over()
            if over:
                break
            if f == self.frame_skip - 2:
                self.buffers[1] = self.screen()
            elif f == self.frame_skip - 1:
                self.buffers[0] = self.screen()
        if self.frame_skip > 1:
            self.buffers[0] = np.maximum(self.buffers[0], self.buffers[1])
        obs = self.push(self.buffers[0], False)
        self.steps += 1
        self.elapsed += 1
        lives = self.ale.lives()
        lost = lives < self.lives
        life_end = (self.episodic_life and lost and lives > 0 and not over
                    and self.elapsed < self.max_steps)
        terminated = over or life_end
        self.continue_game = life_end
        trunc = not terminated and self.elapsed >= self.max_steps
        discount = 0.0 if terminated or (self.zero_discount and lost) else 1.0
        self.lives = lives
        return dict(obs=obs, reward=float(np.sign(reward)) if self.reward_clip else float(reward),
                    terminated=terminated, trunc=trunc, discount=discount, lives=lives,
                    info_reward=float(reward), game_over=over, elapsed_step=self.elapsed)


def dm_row(ts: Any) -> dict[str, Any]:
    o = ts.observation
    return dict(obs=first(o.obs), reward=float(first(ts.reward)),
                terminated=bool(first(ts.step_type) == 2 and first(ts.discount) == 0.0),
                trunc=bool(first(ts.step_type) == 2 and first(ts.discount) != 0.0),
                discount=float(first(ts.discount)), lives=int(first(o.lives)),
                info_reward=float(first(o.reward)), game_over=bool(first(o.terminated)),
                elapsed_step=int(first(o.elapsed_step)))


def run_against_replica(task: str, steps: int, seed: int = 3, **options: Any) -> dict[str, int]:
    """Steps our env and the replica with the same random actions; returns event counts."""
    options.setdefault("noop_max", 0)
    env = ep.make_dm(task, num_envs=1, seed=seed, **options)
    ref = Replica(task, seed, **options)
    rng = np.random.default_rng(seed)
    n = env.action_space.n
    assert n == len(ref.actions)
    counts = dict(done=0, terminated=0, trunc=0, game_over=0, clipped=0, zero_discount=0)
    ours, theirs = dm_row(env.reset()), ref.reset()
    done = False

    def check(t: int) -> None:
        for key, want in theirs.items():
            got = ours[key]
            assert np.array_equal(got, want), f"step {t}: {key} differs: {got} != {want}"

    for t in range(steps):
        check(t)
        if done:
            theirs = ref.reset()
            action = np.array([0], np.int32)  # ignored: the env resets
        else:
            action = rng.integers(0, n, size=1).astype(np.int32)
            theirs = ref.step(int(action[0]))
        ours = dm_row(env.step(action))
        done = theirs["terminated"] or theirs["trunc"]
        counts["done"] += done
        counts["terminated"] += theirs["terminated"]
        counts["trunc"] += theirs["trunc"]
        counts["game_over"] += theirs["game_over"]
        counts["clipped"] += theirs["reward"] != theirs["info_reward"]
        counts["zero_discount"] += theirs["discount"] == 0.0 and not done
    check(steps)
    env.close()
    return counts


# -- registration -----------------------------------------------------------------------


# ale-py ships these ROMs, but ALE has no game settings (reward, game over) for them: they are
# two-player games, and ale-py's gymnasium registration skips them too.
TWO_PLAYER_ROMS = {"combat", "joust", "maze_craze", "warlords"}

# Games whose screen is not 210 x 160, with its height.
TALL_SCREENS = {"Adventure-v5": 250, "AirRaid-v5": 250, "Carnival-v5": 214,
                "JourneyEscape-v5": 230, "KeystoneKapers-v5": 250, "KingKong-v5": 250,
                "Klax-v5": 250, "LaserGates-v5": 250, "MrDo-v5": 250, "Pacman-v5": 250,
                "Pooyan-v5": 220, "SirLancelot-v5": 250, "SpaceWar-v5": 250}


def atari_ids() -> list[str]:
    roms = {f"{rom_id_to_name(r)}-v5" for r in ale_roms.get_all_rom_ids()}
    return sorted(roms & set(ep.list_all_envs()))


def test_every_rom_is_a_task() -> None:
    # The same games as ale-py's gymnasium ids ALE/<Game>-v5.
    gym_ids = {k.removeprefix("ALE/") for k in gym.registry
               if k.startswith("ALE/") and k.endswith("-v5")}
    ids = atari_ids()
    assert set(ids) == gym_ids and len(ids) > 100
    for r in TWO_PLAYER_ROMS:
        assert f"{rom_id_to_name(r)}-v5" not in ep.list_all_envs()
    for name in ("Pong-v5", "Breakout-v5", "MontezumaRevenge-v5", "SpaceInvaders-v5",
                 "MsPacman-v5", "TicTacToe3D-v5", "Pitfall2-v5", *TALL_SCREENS):
        assert name in ids
    # Every one can be made and stepped.
    for task in ids:
        env = ep.make(task, num_envs=1, noop_max=0)
        obs, _ = env.reset()
        for a in range(3):
            obs, *_ = env.step(np.array([a % env.action_space.n], np.int32))
        assert obs.shape == (1, 4, 84, 84), task
        assert env.render().shape == (1, TALL_SCREENS.get(task, 210), 160, 3), task
        env.close()


@pytest.mark.parametrize("task", sorted(TALL_SCREENS))
def test_tall_screens_are_ales(task: str) -> None:
    # The full screen (no resize) and render() are ale-py's, at the game's own size.
    h = TALL_SCREENS[task]
    assert list(ep.make_spec(task).render_shape) == [h, 160]
    env = ep.make(task, stack_num=1, img_height=h, img_width=160, noop_max=0,
                  use_fire_reset=False)
    obs, _ = env.reset()
    ale = Replica(task, 0, use_fire_reset=False).ale
    ale.reset_game()
    assert ale.getScreen().shape == (h, 160)
    np.testing.assert_array_equal(obs[0, 0], ale.getScreenGrayscale())
    np.testing.assert_array_equal(env.render()[0], ale.getScreenRGB())
    env.close()


def test_pal_screens_with_odd_palette_indices_are_ales() -> None:
    # AirRaid is a PAL game: unlike NTSC games', its screens hold odd palette indices (about
    # half its frames, 255 among them), which the engine's vectorised grayscale converts pixel
    # by pixel. ale-py reads entry p + 1 of its palette for index p, past the end for 255 (0
    # in its wheels; the engine gives 0 without reading there). Full-size frames, so every
    # pixel is compared, with the max-pool (frame skip 4) and without it.
    ale = Replica("AirRaid-v5", 0).ale
    odd: set[int] = set()
    for t in range(100):
        ale.act(ale.getMinimalActionSet()[t % 3])
        screen = ale.getScreen()
        odd |= set(np.unique(screen[screen % 2 == 1]).tolist())
    assert 255 in odd and len(odd) > 5, odd
    for frame_skip in (1, 4):
        run_against_replica("AirRaid-v5", 300, frame_skip=frame_skip, stack_num=1,
                            img_height=250, img_width=160)


@pytest.mark.parametrize("task", ["TicTacToe3D-v5", "MontezumaRevenge-v5", "Pitfall2-v5"])
def test_uncommon_games_step(task: str) -> None:
    env = ep.make(task, num_envs=2, noop_max=0)
    obs, _ = env.reset()
    assert obs.shape == (2, 4, 84, 84) and obs.dtype == np.uint8
    for _ in range(5):
        obs, *_ = env.step(np.zeros(2, np.int32))
    assert obs.shape == (2, 4, 84, 84)
    env.close()


def test_unknown_game_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match=r"unknown task id 'Pongg-v5'.*Pong-v5"):
        ep.make("Pongg-v5")


def test_missing_or_unknown_rom_is_a_clear_error(tmp_path: Any) -> None:
    # ROMs ALE has no game settings for, by name or MD5, are no tasks.
    (tmp_path / "not_a_game.bin").write_bytes(b"\0" * 4096)
    shutil.copy(ale_roms.get_rom_path("combat"), tmp_path / "my_combat.bin")
    for name in ("pong", "breakout"):
        shutil.copy(ale_roms.get_rom_path("pong"), tmp_path / f"copied_{name}.bin")
    shutil.copy(ale_roms.get_rom_path("pong"), tmp_path / "vanished_game.bin")
    _core.register_atari_tasks(str(tmp_path))
    tasks = set(_core.list_tasks())
    assert "NotAGame-v5" not in tasks and "MyCombat-v5" not in tasks
    # A known ROM under another name is found by its MD5.
    assert _core.Spec.make("CopiedPong-v5", {}).action["high"] == [5.0]
    # Files that change after registration are checked again.
    (tmp_path / "vanished_game.bin").unlink()
    with pytest.raises(ValueError, match="not found"):
        _core.Spec.make("VanishedGame-v5", {})
    (tmp_path / "copied_breakout.bin").write_bytes(b"\0" * 4096)
    with pytest.raises(ValueError, match="not a game ALE supports"):
        _core.Spec.make("CopiedBreakout-v5", {})
    with pytest.raises(ValueError, match="not found"):
        _core.register_atari_tasks(str(tmp_path / "nowhere"))


def test_spec_and_defaults() -> None:
    env = ep.make("Pong-v5", num_envs=2)
    cfg = env.config
    defaults = dict(img_height=84, img_width=84, stack_num=4, gray_scale=True, frame_skip=4,
                    noop_max=30, episodic_life=False, zero_discount_on_life_loss=False,
                    reward_clip=False, repeat_action_probability=0.0, use_fire_reset=True,
                    full_action_space=False, max_episode_steps=27000,
                    use_inter_area_resize=True, task="pong")
    for key, value in defaults.items():
        assert cfg[key] == value, key
    assert env.observation_space.shape == (4, 84, 84)
    assert env.observation_space.dtype == np.uint8
    assert env.action_space.n == 6
    obs, info = env.reset()
    assert obs.shape == (2, 4, 84, 84) and obs.dtype == np.uint8
    assert info["lives"].dtype == np.int32
    assert info["reward"].dtype == np.float32
    assert info["terminated"].dtype == np.int32  # as EnvPool's
    assert ep.make_spec("Pong-v5", full_action_space=True).action_space.n == 18
    env.close()


@pytest.mark.parametrize("kwargs", [dict(img_height=211), dict(img_width=161), dict(img_height=0),
                                    dict(stack_num=0), dict(frame_skip=0), dict(noop_max=-1),
                                    dict(repeat_action_probability=1.5)])
def test_invalid_options(kwargs: dict[str, Any]) -> None:
    with pytest.raises(ValueError, match=next(iter(kwargs))):
        ep.make("Pong-v5", **kwargs)


def test_observation_size_is_bounded_by_the_games_screen() -> None:
    # Downscaling only: up to the game's own screen, which is taller in some games.
    with pytest.raises(ValueError, match=r"'img_height'.*\[1, 210\], Pong-v5's screen height"):
        ep.make_spec("Pong-v5", img_height=220)
    with pytest.raises(ValueError, match=r"'img_height'.*\[1, 220\], Pooyan-v5's screen height"):
        ep.make_spec("Pooyan-v5", img_height=221)
    with pytest.raises(ValueError, match=r"'img_width'.*\[1, 160\], Pooyan-v5's screen width"):
        ep.make_spec("Pooyan-v5", img_width=161)
    assert ep.make_spec("Pooyan-v5", img_height=220).observation_space.shape == (4, 220, 84)


def test_rgb_and_custom_shapes() -> None:
    env = ep.make("Breakout-v5", num_envs=2, gray_scale=False, stack_num=3, img_height=100,
                  img_width=64)
    assert env.observation_space.shape == (9, 100, 64)
    obs, _ = env.reset()
    assert obs.shape == (2, 9, 100, 64)
    obs, *_ = env.step(np.ones(2, np.int32))
    assert obs.shape == (2, 9, 100, 64)
    env.close()
    env = ep.make("Breakout-v5", stack_num=1, img_height=210, img_width=160, noop_max=0,
                  use_fire_reset=False)
    obs, _ = env.reset()
    assert obs.shape == (1, 1, 210, 160)
    ale = Replica("Breakout-v5", 0, use_fire_reset=False).ale
    ale.reset_game()
    np.testing.assert_array_equal(obs[0, 0], ale.getScreenGrayscale())


# -- alignment with gymnasium's Atari pipeline ------------------------------------------------


# Steps enough for at least one game over in each (the action sequence is fixed). Pooyan's
# screen is 220 rows, Pacman's 250.
# The last rows play game variants (mode, difficulty), which gymnasium's AtariEnv sets as ALE's.
@pytest.mark.parametrize("task,steps,variant", [
    ("Pong-v5", 1000, {}), ("Breakout-v5", 1000, {}), ("SpaceInvaders-v5", 1000, {}),
    ("MsPacman-v5", 1100, {}), ("Pooyan-v5", 700, {}), ("Pacman-v5", 500, {}),
    ("Breakout-v5", 1000, {"mode": 12, "difficulty": 1}),
    ("SpaceInvaders-v5", 1000, {"mode": 5, "difficulty": 1}),
])
def test_matches_gymnasium_atari_preprocessing(task: str, steps: int, variant: dict) -> None:
    gray = task not in ("MsPacman-v5", "Pacman-v5")  # two games in RGB
    env = ep.make(task, num_envs=1, seed=0, noop_max=0, use_fire_reset=False,
                  repeat_action_probability=0.0, gray_scale=gray, **variant)
    ref = gym.make(f"ALE/{task}", frameskip=1, repeat_action_probability=0.0,
                   full_action_space=False, obs_type="grayscale" if gray else "rgb", **variant)
    ref = gym.wrappers.AtariPreprocessing(ref, noop_max=0, frame_skip=4, screen_size=84,
                                          grayscale_obs=gray, terminal_on_life_loss=False)
    ref = gym.wrappers.FrameStackObservation(ref, 4)
    assert env.action_space.n == ref.action_space.n

    def ours_obs(o: np.ndarray) -> np.ndarray:
        return o[0] if gray else o[0].reshape(4, 3, 84, 84).transpose(0, 2, 3, 1)

    # ALE's episode frame count at reset: 0, but ALE's own reset plays a few counted frames in
    # some games (1 in Pooyan, 16 in Pacman).
    reset_frames = 0

    def check(got: tuple, want: tuple, elapsed: int, where: str) -> None:
        """Every field of a step (or reset: reward 0, not done) against gymnasium's."""
        obs, rew, term, trunc, info = got
        want_obs, want_rew, want_term, want_trunc, want_info = want
        np.testing.assert_array_equal(ours_obs(obs), want_obs, err_msg=where)
        assert rew[0] == want_rew and info["reward"][0] == want_rew, where
        assert term[0] == want_term and trunc[0] == want_trunc, where
        assert info["terminated"][0] == want_term, where
        assert info["lives"][0] == want_info["lives"], where
        np.testing.assert_array_equal(info["ram"][0], ref.unwrapped.ale.getRAM(), err_msg=where)
        # A game over mid frame-skip ends the step early: round the frame count up.
        frames = want_info["episode_frame_number"] - reset_frames
        assert info["elapsed_step"][0] == elapsed == -(-frames // 4), where
        np.testing.assert_array_equal(info["env_id"], [0])

    def ref_reset(**kwargs: Any) -> tuple:
        nonlocal reset_frames
        want_obs, want_info = ref.reset(**kwargs)
        reset_frames = want_info["episode_frame_number"]
        return want_obs, 0.0, False, False, want_info

    obs, info = env.reset()
    check((obs, np.zeros(1), np.zeros(1, bool), np.zeros(1, bool), info), ref_reset(seed=0), 0,
          "reset")
    rng = np.random.default_rng(0)
    episodes = 0
    elapsed = 0
    for t in range(steps):
        action = rng.integers(0, env.action_space.n)
        want = ref.step(action)
        elapsed += 1
        check(env.step(np.array([action], np.int32)), want, elapsed, f"step {t}")
        if want[2]:
            episodes += 1
            # Next-step auto-reset: the action is ignored; all fields are the reset's.
            check(env.step(np.zeros(1, np.int32)), ref_reset(), 0, f"reset after {t}")
            elapsed = 0
    assert episodes >= 1
    env.close()
    ref.close()


def test_mode_and_difficulty() -> None:
    # Each variant is a different game (its RAM at reset differs from the default's), and -1
    # is the default, as in EnvPool's config.
    def reset_ram(**variant: int) -> np.ndarray:
        return ep.make("Breakout-v5", num_envs=1, seed=0, **variant).reset()[1]["ram"][0]

    default = reset_ram()
    np.testing.assert_array_equal(reset_ram(mode=-1, difficulty=-1), default)
    np.testing.assert_array_equal(reset_ram(mode=0, difficulty=0), default)
    assert (reset_ram(mode=12) != default).any() and (reset_ram(difficulty=1) != default).any()
    config = ep.make_spec("Breakout-v5").config
    assert (config.mode, config.difficulty) == (-1, -1)
    with pytest.raises(ValueError, match=r"invalid value 3 for 'mode': Breakout-v5 has modes "
                                         r"\[0, 4, 8, .*, 44\], or -1 for its default"):
        ep.make_spec("Breakout-v5", mode=3)
    with pytest.raises(ValueError, match=r"'difficulty': Pong-v5 has difficulties \[0, 1, 2, 3\]"):
        ep.make("Pong-v5", difficulty=4)
    with pytest.raises(ValueError, match="expected a value >= -1"):
        ep.make_spec("Pong-v5", mode=-2)


# -- EnvPool's semantics, against the replica ----------------------------------------------


def test_fire_reset_and_noop() -> None:
    counts = run_against_replica("Breakout-v5", 400, noop_max=1, use_fire_reset=True)
    assert counts["done"] >= 1
    # A game without FIRE ignores use_fire_reset; one no-op frame on reset.
    run_against_replica("Freeway-v5", 50, noop_max=1, use_fire_reset=True)


def test_fire_reset_presses_fire() -> None:
    def reset_frame(**kwargs: Any) -> np.ndarray:
        env = ep.make("Breakout-v5", noop_max=0, **kwargs)
        obs, _ = env.reset()
        for _ in range(30):  # the ball is launched only after FIRE
            obs, *_ = env.step(np.zeros(1, np.int32))
        env.close()
        return obs[0, -1]

    assert not np.array_equal(reset_frame(use_fire_reset=True), reset_frame(use_fire_reset=False))


def test_episodic_life() -> None:
    counts = run_against_replica("Breakout-v5", 1200, noop_max=1, episodic_life=True,
                                 reward_clip=True)
    assert counts["terminated"] > counts["game_over"] >= 1  # life losses end episodes
    # The game continues after a life loss; elapsed_step keeps counting.
    env = ep.make("Breakout-v5", noop_max=0, episodic_life=True, seed=1)
    env.reset()
    rng = np.random.default_rng(1)
    for _ in range(2000):
        _, _, term, _, info = env.step(rng.integers(0, 4, size=1).astype(np.int32))
        if term[0]:
            break
    assert term[0] and not info["terminated"][0]
    lives, elapsed = info["lives"][0], info["elapsed_step"][0]
    assert 0 < lives < 5
    info = env.step(np.zeros(1, np.int32))[-1]  # the reset
    assert info["lives"][0] == lives and info["elapsed_step"][0] == elapsed
    info = env.step(np.zeros(1, np.int32))[-1]
    assert info["elapsed_step"][0] == elapsed + 1
    env.close()


def test_zero_discount_on_life_loss_and_reward_clip() -> None:
    counts = run_against_replica("SpaceInvaders-v5", 700, noop_max=0,
                                 zero_discount_on_life_loss=True, reward_clip=True)
    assert counts["zero_discount"] >= 1 and counts["clipped"] >= 1


def test_truncation_restarts_the_game_with_episodic_life() -> None:
    counts = run_against_replica("Breakout-v5", 600, noop_max=1, episodic_life=True,
                                 max_episode_steps=120)
    assert counts["trunc"] >= 2 and counts["terminated"] >= 2


def test_truncation_at_max_episode_steps() -> None:
    env = ep.make("Pong-v5", num_envs=2, max_episode_steps=25, noop_max=0)
    env.reset()
    for t in range(1, 26):
        _, _, term, trunc, info = env.step(np.zeros(2, np.int32))
        assert list(info["elapsed_step"]) == [t, t]
        assert not term.any()
        assert trunc.all() == (t == 25)
    _, rew, term, trunc, info = env.step(np.zeros(2, np.int32))
    assert list(info["elapsed_step"]) == [0, 0] and not trunc.any() and not rew.any()
    env.close()


def test_options_against_replica() -> None:
    run_against_replica("Pong-v5", 300, frame_skip=3, stack_num=2, img_height=64,
                        img_width=48, noop_max=1)
    run_against_replica("Seaquest-v5", 200, gray_scale=False, frame_skip=1, stack_num=3,
                        full_action_space=True)


def test_sticky_actions_are_ales() -> None:
    # The same ALE seed (seed mod 2**31) gives ale-py's sticky actions exactly.
    run_against_replica("Breakout-v5", 400, seed=5, repeat_action_probability=0.25)

    def frames(p: float, actions: np.ndarray) -> np.ndarray:
        env = ep.make("Breakout-v5", noop_max=0, repeat_action_probability=p, seed=5)
        env.reset()
        out = [env.step(a[None])[0][0, -1] for a in actions]
        env.close()
        return np.array(out)

    rng = np.random.default_rng(0)
    moves = rng.integers(2, 4, size=60).astype(np.int32)  # LEFT/RIGHT
    noops = np.zeros(60, np.int32)
    # Probability 1: the emulator repeats the reset's NOOP forever.
    np.testing.assert_array_equal(frames(1.0, moves), frames(1.0, noops))
    assert not np.array_equal(frames(0.0, moves), frames(0.0, noops))
    assert not np.array_equal(frames(0.25, moves), frames(0.0, moves))


# -- seeds, threads, render -------------------------------------------------------------------


def noop_start_frames(task: str, limit: int) -> list[np.ndarray]:
    """The resized screen after k = 0..limit no-op frames from a fresh reset."""
    ale = Replica(task, 0).ale
    ale.reset_game()
    out = []
    for _ in range(limit + 1):
        out.append(cv2.resize(ale.getScreenGrayscale(), (84, 84), interpolation=cv2.INTER_AREA))
        ale.act(ale_py.Action.NOOP)
    return out


def test_noop_starts_differ_across_seeds() -> None:
    # Freeway's screen changes on every one of its first frames, which tells
    # how many no-ops each reset made.
    env = ep.make("Freeway-v5", num_envs=8, seed=0, noop_max=30)
    obs, _ = env.reset()
    refs = noop_start_frames("Freeway-v5", 31)
    assert len({f.tobytes() for f in refs}) == 32
    counts = []
    for i in range(8):
        k = [k for k, f in enumerate(refs) if np.array_equal(obs[i, -1], f)]
        assert len(k) == 1 and 1 <= k[0] <= 30, k
        counts.append(k[0])
        # the stack is filled with the first frame
        assert all(np.array_equal(obs[i, j], obs[i, -1]) for j in range(4))
    assert len(set(counts)) > 2
    env.close()


def test_deterministic_across_threads_and_seeds_differ() -> None:
    def rollout(num_threads: int, seed: int) -> list[np.ndarray]:
        env = ep.make("Breakout-v5", num_envs=4, num_threads=num_threads, seed=seed,
                      repeat_action_probability=0.25)
        out = list(env.reset())
        rng = np.random.default_rng(0)
        for _ in range(150):
            obs, rew, term, trunc, info = env.step(rng.integers(0, 4, 4).astype(np.int32))
            out += [obs.copy(), rew, term, trunc, info["lives"]]
        env.close()
        return out[:1] + out[2:]

    a, b = rollout(1, 7), rollout(2, 7)
    for x, y in zip(a, b, strict=True):
        np.testing.assert_array_equal(x, y)
    c = rollout(2, 8)
    assert any(not np.array_equal(x, y) for x, y in zip(a, c, strict=True))


def test_render_is_the_rgb_screen() -> None:
    env = ep.make("MsPacman-v5", num_envs=2, noop_max=0, use_fire_reset=False, seed=3)
    ref = Replica("MsPacman-v5", 3, use_fire_reset=False)
    env.reset()
    ref.reset()
    for a in [0, 1, 2, 3, 4] * 6:
        env.step(np.array([a, a], np.int32))
        ref.step(a)
    frames = env.render([0, 1])
    assert frames.shape == (2, 210, 160, 3) and frames.dtype == np.uint8
    np.testing.assert_array_equal(frames[0], ref.ale.getScreenRGB())
    np.testing.assert_array_equal(frames[1], frames[0])
    assert env.render().shape == (1, 210, 160, 3)
    env.close()
    # A closed pool says so (this task renders, so no other error can stand in for it).
    with pytest.raises(RuntimeError, match="cannot render: the pool is closed"):
        env.render()


def test_async_pool() -> None:
    env = ep.make("Pong-v5", num_envs=6, batch_size=3, num_threads=2)
    env.async_reset()
    seen = set()
    for _ in range(30):
        obs, *_, info = env.recv()
        assert obs.shape == (3, 4, 84, 84)
        seen.update(info["env_id"].tolist())
        env.send(np.ones(3, np.int32), info["env_id"])
    env.recv()
    assert seen == set(range(6))
    env.close()


def test_every_game_end_is_reported_with_episodic_life() -> None:
    # A game restart shows on the reset row as elapsed_step 0 (after a lost life the game goes
    # on, and its step count with it). Each restart must follow a step that reported the game's
    # end, as info["terminated"] (game over) or truncated, also when a life is lost on the time
    # limit's step: the game restarts then, so that step is the game's truncation.
    limit, num_envs = 72, 8
    env = ep.make("Breakout-v5", num_envs=num_envs, episodic_life=True, max_episode_steps=limit,
                  seed=2)
    _, info = env.reset()
    rng = np.random.default_rng(0)
    lives, ended, game_ended = info["lives"], np.zeros(num_envs, bool), np.zeros(num_envs, bool)
    restarts = lives_lost_at_limit = 0
    for _ in range(1500):
        _, _, terminated, truncated, info = env.step(rng.integers(0, 4, num_envs, np.int32))
        restarted = ended & (info["elapsed_step"] == 0)
        np.testing.assert_array_equal(restarted, ended & game_ended)
        restarts += int(restarted.sum())
        lives_lost_at_limit += int(((info["elapsed_step"] == limit) & (info["lives"] < lives)
                                    & (info["lives"] > 0)).sum())
        lives, ended = info["lives"], terminated | truncated
        game_ended = info["terminated"] | truncated
    assert restarts >= 50 and lives_lost_at_limit >= 1, (restarts, lives_lost_at_limit)
    env.close()
