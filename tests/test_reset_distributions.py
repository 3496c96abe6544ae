"""Reset distributions against gymnasium's, over many seeds.

The alignment tests (test_classic.py, test_mujoco.py) copy envpool_core's start state into
gymnasium, so they cannot see a wrong start distribution. Here the start states of
`CLASSIC_SEEDS` / `MUJOCO_SEEDS` seeds of each task are drawn on both sides (envpool_core:
one reset-only pool, env i seeded i; gymnasium: `reset(seed=i)`) and compared coordinate by
coordinate:

- range: every start state lies inside the support gymnasium's reset code draws from
  (`CLASSIC_SUPPORT` and `support()` below, read off gymnasium's source); where it is
  bounded, our samples reach as far as gymnasium's to within 5% of their spread on both sides
  (so a range drawn too narrow fails too); coordinates gymnasium never randomises equal its
  value exactly;
- distribution: a two-sample Kolmogorov-Smirnov test per randomised coordinate
  (`scipy.stats.ks_2samp`) at a family-wise level of 0.001 per task, Bonferroni-corrected
  over the task's coordinates. The seeds are fixed, so the outcome is deterministic: the level
  says how unlikely a pass/fail flip is between two correct generators, not a flaky rate.

MuJoCo tasks are compared at their default `reset_noise_scale` and, where the task has that
option, at three times the default.
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
import pytest
from scipy import stats

# MuJoCo's log kept out of the checkout (an autouse fixture), gymnasium's tasks made as there.
from test_mujoco import _mujoco_log_in_tmp, make_gym  # noqa: F401

import envpool_core as ep
from envpool_core import _core

pytestmark = pytest.mark.filterwarnings("ignore:.*is out of date")

# Seeds per side. Classic resets cost microseconds; MuJoCo ones (a pool of hundreds of
# models) more. The range checks catch draws outside the support and a range a few percent
# too narrow; the KS test catches a change of shape inside the range when the two cumulative
# distributions differ by more than about 2.1-2.4 * sqrt(2 / n): 0.07 for classic control,
# 0.17-0.2 for MuJoCo.
CLASSIC_SEEDS = 2000
MUJOCO_SEEDS = 300
FAMILY_LEVEL = 1e-3
REACH = 0.05  # bounded coordinates: ours reach as far as gymnasium's, to 5% of the spread

# -- classic control ---------------------------------------------------------------------------

# gymnasium's reset draws (uniform on these boxes; equal bounds: a constant).
CLASSIC_SUPPORT = {
    "CartPole-v0": ([-0.05] * 4, [0.05] * 4),
    "CartPole-v1": ([-0.05] * 4, [0.05] * 4),
    "Pendulum-v1": ([-np.pi, -1.0], [np.pi, 1.0]),
    "MountainCar-v0": ([-0.6, 0.0], [-0.4, 0.0]),
    "MountainCarContinuous-v0": ([-0.6, 0.0], [-0.4, 0.0]),
    "Acrobot-v1": ([-0.1] * 4, [0.1] * 4),
}


def compare(name: str, ours: np.ndarray, ref: np.ndarray, low: np.ndarray,
            high: np.ndarray, reference: str = "gymnasium") -> None:
    """Support, reach and two-sample KS per coordinate (columns of `ours` and `ref`)."""
    assert ours.shape == ref.shape, f"{name}: shape {ours.shape} != {ref.shape}"
    constant = low == high
    # Coordinates gymnasium never randomises are exactly its value, on both sides.
    np.testing.assert_array_equal(ref[:, constant], np.broadcast_to(low, ref.shape)[:, constant])
    np.testing.assert_array_equal(ours[:, constant], ref[:, constant], err_msg=name)
    for side, sample in ((reference, ref), ("envpool_core", ours)):
        outside = (sample < low) | (sample > high)
        assert not outside.any(), (
            f"{name}: {side} start state outside {reference}'s support in coordinates "
            f"{sorted(set(np.nonzero(outside)[1].tolist()))}")
    # A range drawn too narrow stays inside the support: on bounded coordinates our samples
    # must reach as far as gymnasium's do, up to REACH of the spread. (The extremes of normal
    # draws vary too much for this; the KS test below covers their scale.)
    bounded = ~constant & np.isfinite(low) & np.isfinite(high)
    spread = ref.max(0) - ref.min(0)
    short_low = bounded & (ours.min(0) > ref.min(0) + REACH * spread)
    short_high = bounded & (ours.max(0) < ref.max(0) - REACH * spread)
    assert not (short_low | short_high).any(), (
        f"{name}: start states do not reach as far as {reference}'s in coordinates "
        f"{np.nonzero(short_low | short_high)[0].tolist()} (range drawn too narrow)")
    random = np.nonzero(~constant)[0]
    level = FAMILY_LEVEL / len(random)
    for c in random:
        p = stats.ks_2samp(ours[:, c], ref[:, c]).pvalue
        assert p >= level, (
            f"{name}: coordinate {c} differs from {reference}'s (KS p = {p:.2e} < {level:.1e}); "
            f"ours mean {ours[:, c].mean():.4g} std {ours[:, c].std():.4g}, "
            f"{reference}'s mean {ref[:, c].mean():.4g} std {ref[:, c].std():.4g}")


@pytest.mark.parametrize("task_id", list(CLASSIC_SUPPORT))
def test_classic_reset_distribution(task_id: str) -> None:
    env = ep.make(task_id, num_envs=CLASSIC_SEEDS, seed=0, state_in_info=True)
    _, info = env.reset()
    ours = np.asarray(info["state"], dtype=np.float64)
    env.close()
    ref_env = gymnasium.make(task_id)
    ref = []
    for seed in range(CLASSIC_SEEDS):
        ref_env.reset(seed=seed)
        ref.append(np.asarray(ref_env.unwrapped.state, dtype=np.float64))
    ref_env.close()
    low, high = (np.array(b, dtype=np.float64) for b in CLASSIC_SUPPORT[task_id])
    # Acrobot's state is float32 in gymnasium: its bounds are float32 too.
    if task_id == "Acrobot-v1":
        low, high = low.astype(np.float32).astype(np.float64), high.astype(np.float32).astype(
            np.float64)
    compare(task_id, ours, np.array(ref), low, high)


# -- MuJoCo ------------------------------------------------------------------------------------

FAMILIES = [
    "Ant", "HalfCheetah", "Hopper", "Humanoid", "HumanoidStandup", "InvertedDoublePendulum",
    "InvertedPendulum", "Pusher", "Reacher", "Swimmer", "Walker2d",
]
TASKS = [f"{family}-{version}" for family in FAMILIES for version in ("v4", "v5")]
# Tasks whose velocity noise is normal(0, scale) instead of uniform(-scale, scale).
NORMAL_QVEL = {"Ant", "HalfCheetah", "InvertedDoublePendulum"}
# Noise scales written into gymnasium's v4 code (no reset_noise_scale option there).
FIXED_SCALE = {"HumanoidStandup-v4": 0.01, "InvertedDoublePendulum-v4": 0.1,
               "InvertedPendulum-v4": 0.01}


def noise_option_default(task_id: str) -> float | None:
    for option in _core.task_options(task_id):
        if option["name"] == "reset_noise_scale":
            return float(option["default"])
    return None


CASES = [(task_id, {}) for task_id in TASKS] + [
    (task_id, {"reset_noise_scale": 3 * noise_option_default(task_id)})
    # gymnasium's v4 tasks of FIXED_SCALE take no reset_noise_scale (EnvPool's and ours do).
    for task_id in TASKS if noise_option_default(task_id) is not None and task_id not in FIXED_SCALE
]


def support(task_id: str, raw: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(qpos low, qpos high, qvel low, qvel high) of gymnasium's `reset_model` draws."""
    family = task_id.split("-")[0]
    qpos, qvel = raw.init_qpos.astype(np.float64), raw.init_qvel.astype(np.float64)
    if family == "Pusher":  # arm at rest; cylinder in a box (away from the goal); goal at 0
        qpos_lo, qpos_hi = qpos.copy(), qpos.copy()
        qpos_lo[-4:-2], qpos_hi[-4:-2] = [-0.3, -0.2], [0.0, 0.2]
        qpos_lo[-2:] = qpos_hi[-2:] = 0.0
        qvel_lo, qvel_hi = qvel - 0.005, qvel + 0.005
        qvel_lo[-4:] = qvel_hi[-4:] = 0.0
        return qpos_lo, qpos_hi, qvel_lo, qvel_hi
    if family == "Reacher":  # arm noise 0.1; goal in the disc of radius 0.2
        qpos_lo, qpos_hi = qpos - 0.1, qpos + 0.1
        qpos_lo[-2:], qpos_hi[-2:] = -0.2, 0.2
        qvel_lo, qvel_hi = qvel - 0.005, qvel + 0.005
        qvel_lo[-2:] = qvel_hi[-2:] = 0.0
        return qpos_lo, qpos_hi, qvel_lo, qvel_hi
    scale = FIXED_SCALE.get(task_id, getattr(raw, "_reset_noise_scale", None))
    assert scale is not None, f"{task_id}: no noise scale known"
    if family in NORMAL_QVEL:
        return qpos - scale, qpos + scale, np.full_like(qvel, -np.inf), np.full_like(qvel, np.inf)
    return qpos - scale, qpos + scale, qvel - scale, qvel + scale


@pytest.mark.parametrize(("task_id", "options"), CASES,
                         ids=[f"{t}-{'-'.join(f'{k}={v:g}' for k, v in o.items()) or 'default'}"
                              for t, o in CASES])
def test_mujoco_reset_distribution(task_id: str, options: dict[str, float]) -> None:
    env = ep.make(task_id, num_envs=MUJOCO_SEEDS, seed=0, reset_state_in_info=True, **options)
    _, info = env.reset()
    ours = np.concatenate([info["qpos0"], info["qvel0"]], axis=1)
    env.close()
    genv = make_gym(task_id, **options)
    raw = genv.unwrapped
    ref = []
    for seed in range(MUJOCO_SEEDS):
        genv.reset(seed=seed)
        ref.append(np.concatenate([raw.data.qpos, raw.data.qvel]))
    qpos_lo, qpos_hi, qvel_lo, qvel_hi = support(task_id, raw)
    genv.close()
    name = f"{task_id} {options or 'default'}"
    compare(name, ours, np.array(ref), np.concatenate([qpos_lo, qvel_lo]),
            np.concatenate([qpos_hi, qvel_hi]))


# -- DeepMind Control Suite ------------------------------------------------------------------

# id -> (domain, task) in dm_control, as tests/test_dm_control.py.
from test_dm_control import ATOL as DM_CONTROL_ATOL  # noqa: E402
from test_dm_control import TASKS as DM_CONTROL_TASKS  # noqa: E402
from test_dm_control import with_gl_marks  # noqa: E402

DM_CONTROL_SEEDS = 200
# Fewer starts where a reset is slow on both sides (the escape's terrain and its search for a
# start height over it; the dog's model takes a second to load).
DM_CONTROL_SEEDS_OF = {"QuadrupedEscape-v1": 16, "DogFetch-v1": 100}
# One task per start-state code of each domain (tasks that differ only in their reward share
# their starts).
DM_CONTROL_DISTRIBUTION_TASKS = [
    "CheetahRun-v1", "WalkerWalk-v1", "CartpoleBalance-v1", "CartpoleSwingup-v1",
    "CartpoleThreePoles-v1", "HopperHop-v1", "PendulumSwingup-v1", "BallInCupCatch-v1",
    "AcrobotSwingup-v1", "FingerSpin-v1", "FingerTurnHard-v1", "ReacherHard-v1",
    "PointMassHard-v1", "FishSwim-v1", "HumanoidRun-v1", "HumanoidCMURun-v1",
    "SwimmerSwimmer6-v1", "ManipulatorBringBall-v1", "ManipulatorInsertPeg-v1",
    "QuadrupedRun-v1", "QuadrupedFetch-v1", "QuadrupedEscape-v1", "LqrLqr62-v1",
    "StackerStack4-v1", "DogFetch-v1",
]


def dm_control_first_obs(env: Any) -> np.ndarray:
    """The first observation of dm_control's `env`, its keys' arrays concatenated."""
    return np.concatenate([np.ravel(v) for v in env.reset().observation.values()])


@pytest.mark.timeout(600)
@pytest.mark.parametrize("task_id", with_gl_marks(DM_CONTROL_DISTRIBUTION_TASKS))
def test_dm_control_reset_distribution(task_id: str) -> None:
    # dm_control's start states are its tasks' draws from RandomState(seed) (joint angles in
    # their ranges, then, for the cheetah, 200 steps to settle): their support is not a box
    # of the observation, so the comparison is the KS test per coordinate, with the
    # coordinates dm_control never varies equal to its value on both sides. Ours are
    # seeds 0..n-1, dm_control's n resets of one env seeded n, so the samples are independent; the
    # first seeds are also drawn on both sides with the same seed, which must give the same
    # start state exactly (our resets draw numpy's numbers in dm_control's order).
    from dm_control import suite

    domain, task = DM_CONTROL_TASKS[task_id]
    n = DM_CONTROL_SEEDS_OF.get(task_id, DM_CONTROL_SEEDS)
    env = ep.make_dm(task_id, num_envs=n, seed=0)
    first = env.reset().observation
    ref_keys = list(suite.load(domain, task, task_kwargs={"random": 0}).reset().observation)
    ours = np.concatenate([np.asarray(getattr(first, k)).reshape(n, -1)
                           for k in ref_keys], axis=1)
    env.close()
    for seed in range(3):
        same = dm_control_first_obs(suite.load(domain, task, task_kwargs={"random": seed}))
        atol = max(DM_CONTROL_ATOL.get(task_id, {}).values(), default=0.0)  # as there
        np.testing.assert_allclose(ours[seed], same, rtol=0, atol=atol,
                                   err_msg=f"{task_id} seed {seed}")
    # One dm_control env reset n times: each reset draws anew from its RandomState, so these
    # are n independent starts too, without n loads of the model (minutes over the tasks).
    reference_env = suite.load(domain, task, task_kwargs={"random": n})
    ref = np.array([dm_control_first_obs(reference_env) for _ in range(n)])
    constant = np.all(ref == ref[0], axis=0)
    assert np.isfinite(ours).all() and np.isfinite(ref).all(), task_id
    low = np.where(constant, ref[0], -np.inf)
    high = np.where(constant, ref[0], np.inf)
    compare(task_id, ours, ref, low, high, reference="dm_control")
