"""The engine alone (`pip install ./envpool_core`, for EnvPool users who want the drop-in
without the scripts' torch, JAX or rl_games) imports and steps every family with nothing but
its declared dependencies: a child interpreter sees only the standard library, envpool_core
and the distributions its pyproject.toml requires (and theirs, recursively)."""

import importlib.metadata
import subprocess
import sys
from pathlib import Path

import pytest
import tomllib
from packaging.requirements import Requirement

import envpool_core

ROOT = Path(__file__).resolve().parents[1]

CHILD = """
import sys
sys.path[:0] = [sys.argv[1]]
import numpy as np
import envpool_core
for absent in ("torch", "jax", "rl_games", "dm_control", "gym", "envpool"):
    try:
        __import__(absent)
    except ImportError:
        continue
    raise SystemExit(f"{absent} is importable: the child is not isolated")
for task_id in ("CartPole-v1", "Pong-v5", "Ant-v4"):
    pool = envpool_core.make(task_id, env_type="gymnasium", num_envs=2)
    pool.reset()
    action = np.stack([pool.action_space.sample() for _ in range(2)])
    obs, reward, terminated, truncated, info = pool.step(action)
    assert reward.shape == (2,), task_id
    pool.close()
print("stepped")
"""


def dependency_closure(requirements: list[str]) -> set[str]:
    """The installed distributions that `requirements` need, recursively, extras included."""
    seen: set[str] = set()
    pending = [(Requirement(r), frozenset()) for r in requirements]
    while pending:
        requirement, extras = pending.pop()
        if requirement.marker is not None and not any(
            requirement.marker.evaluate({"extra": extra}) for extra in extras or {""}
        ):
            continue
        name = requirement.name.lower().replace("_", "-")
        key = f"{name}[{','.join(sorted(requirement.extras))}]"
        if key in seen:
            continue
        seen.add(key)
        dist = importlib.metadata.distribution(name)
        wanted = frozenset(requirement.extras)
        pending += [(Requirement(r), wanted) for r in dist.requires or []]
    return {key.split("[")[0] for key in seen}


def isolated_path(folder: Path) -> Path:
    """Links every top-level entry (package, module, shared-library folder, metadata) of
    envpool_core and of each distribution it needs into `folder`, and returns it."""
    pyproject = tomllib.loads((ROOT / "envpool_core" / "pyproject.toml").read_text())
    names = dependency_closure(pyproject["project"]["dependencies"])
    assert {"numpy", "gymnasium", "ale-py", "mujoco"} <= names
    for name in names:
        dist = importlib.metadata.distribution(name)
        for top in {Path(str(f)).parts[0] for f in dist.files or []}:
            source = Path(dist.locate_file(top))
            target = folder / top
            if source.exists() and not target.exists() and top not in ("..", "bin"):
                target.symlink_to(source)
    (folder / "envpool_core").symlink_to(Path(envpool_core.__file__).parent)
    return folder


def test_the_engine_steps_with_only_its_declared_dependencies(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-I", "-S", "-c", CHILD, str(isolated_path(tmp_path))],
        capture_output=True, text=True, timeout=240,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.strip().endswith("stepped")


def test_the_child_notices_a_framework_it_should_not_see(tmp_path: Path) -> None:
    """Without -I -S the child sees this environment's site-packages, where the scripts'
    frameworks are installed, and says so: its isolation check is live."""
    pytest.importorskip("torch")
    proc = subprocess.run([sys.executable, "-c", CHILD, str(isolated_path(tmp_path))],
                          capture_output=True, text=True, timeout=240)
    assert proc.returncode != 0 and "is importable" in proc.stderr
