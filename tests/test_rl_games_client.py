"""rl_games (a real EnvPool client) trains on envpool_core with its own code and configs.

rl_games' `Envpool` vec env does `import envpool` itself; the only change a user makes is to
give it envpool_core under that name. Each case runs rl_games' own YAML config from its
package, shrunk to a few epochs on the CPU, in a subprocess (rl_games sets torch's threads and
seeds process-wide). The pool's step() is recorded from outside rl_games, so the test can say
that rl_games saw the episodes the engine produced: the number of frames it counts, and the
mean of the episode returns it reports, are those of the recorded steps.
"""

import json
import subprocess
import sys

import pytest

RUN_RL_GAMES = r"""
import json, os, sys
import numpy as np
import yaml
import envpool_core

recorded = []  # (reward, done) of every step the pool returned
make = envpool_core.make


def recording_make(*args, **kwargs):
    pool = make(*args, **kwargs)
    step = pool.step

    def recording_step(*step_args):
        result = step(*step_args)
        done = result[2] if len(result) == 4 else result[2] | result[3]
        recorded.append((np.array(result[1], np.float64), np.array(done)))
        return result

    pool.step = recording_step
    return pool


envpool_core.make = recording_make
sys.modules["envpool"] = envpool_core  # the user's one change: rl_games imports envpool

import rl_games
from rl_games.common.algo_observer import DefaultAlgoObserver
from rl_games.torch_runner import Runner

config_name, overrides = sys.argv[1], json.loads(sys.argv[2])
with open(os.path.join(os.path.dirname(rl_games.__file__), "configs", config_name)) as f:
    config = yaml.safe_load(f)
config["params"]["config"]["env_config"].update(overrides.pop("env_config", {}))
config["params"]["config"].update(overrides, device="cpu", device_name="cpu",
                                  train_dir=os.getcwd())


class KeepAlgo(DefaultAlgoObserver):
    def after_init(self, algo):
        super().after_init(algo)
        KeepAlgo.algo = algo


runner = Runner(algo_observer=KeepAlgo())
runner.load(config)
runner.run({"train": True, "play": False})

algo = KeepAlgo.algo
returns, running = [], np.zeros(algo.num_actors)
for reward, done in recorded:
    running += reward
    returns += list(running[done])
    running[done] = 0.0
print("RESULT " + json.dumps({
    "pool": type(algo.vec_env.env).__module__,
    "frames": algo.frame,
    "steps": len(recorded),
    "episodes": len(returns),
    "mean_return": float(np.mean(returns)) if returns else None,
    "rl_games_episodes": len(algo.game_rewards),
    "rl_games_mean_return": float(algo.game_rewards.get_mean()[0]),
}))
"""


@pytest.mark.parametrize(("config", "overrides"), [
    # rl_games' discrete PPO on Atari; Breakout's games end within the run (Pong's do not).
    ("atari/ppo_pong_envpool.yaml", {"env_config": {"env_name": "Breakout-v5"}}),
    # Its continuous PPO on MuJoCo; episodes of a random Hopper are a few dozen steps long.
    # rl_games asks for the gym API by default (the installed gym 0.23's: 4-tuple steps);
    # it also speaks gymnasium's.
    ("mujoco/hopper_envpool.yaml", {}),
    ("mujoco/hopper_envpool.yaml", {"env_config": {"env_type": "gymnasium"}}),
    # Its PPO on the DeepMind Control Suite (cheetah_walk.yaml runs CheetahRun-v1): rl_games
    # flattens the dict observation (`flatten_obs: True`) with gymnasium's flatten_space, which
    # takes the gym view's spaces because they are gymnasium's, as EnvPool 1.2.5's. Episodes
    # are 1000 steps long, cut here to 50 so that some end within the run. The configs as they
    # are ask for the gym view; the gymnasium view runs too.
    ("dm_control/cheetah_walk.yaml", {"env_config": {"max_episode_steps": 50}}),
    ("dm_control/walker_walk.yaml", {"env_config": {"max_episode_steps": 50}}),
    ("dm_control/cheetah_walk.yaml", {"env_config": {"max_episode_steps": 50,
                                                     "env_type": "gymnasium"}}),
], ids=["breakout-gym", "hopper-gym", "hopper-gymnasium", "cheetah-run-gym", "walker-walk-gym",
        "cheetah-run-gymnasium"])
def test_rl_games_trains_on_envpool_core_with_its_own_config(tmp_path, config, overrides):
    num_actors, horizon, epochs = 4, 32, 8
    overrides.update(num_actors=num_actors, horizon_length=horizon, minibatch_size=32,
                     max_epochs=epochs)
    completed = subprocess.run([sys.executable, "-c", RUN_RL_GAMES, config, json.dumps(overrides)],
                               cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert completed.returncode == 0, completed.stderr[-3000:]
    line = next(line for line in completed.stdout.splitlines() if line.startswith("RESULT "))
    result = json.loads(line[len("RESULT "):])

    assert result["pool"].startswith("envpool_core")
    assert result["steps"] == epochs * horizon
    assert result["frames"] == epochs * horizon * num_actors
    # rl_games counted the episodes the engine ended, with the engine's rewards.
    assert result["episodes"] > 0
    assert result["rl_games_episodes"] == min(result["episodes"], 100)
    if result["episodes"] <= 100:
        assert result["rl_games_mean_return"] == pytest.approx(result["mean_return"], rel=1e-5)
