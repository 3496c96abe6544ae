"""Shared pytest settings, and the training scripts as importable modules."""

import ctypes
import functools
import importlib.util
import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

# Keep numpy/torch from starting thread pools that compete with the engine's workers.
os.environ.setdefault("OMP_NUM_THREADS", "1")

ROOT = Path(__file__).resolve().parents[1]



def _load_llvm_carrying_libraries_before_any_renderer() -> None:
    """Loads triton's library (PyPI's default torch installs it) before any test renders.
    envpool_core's renderer does this itself on its first frame, but some tests render with
    dm_control's or MuJoCo's own Python renderer, which puts Mesa's LLVM into the process
    first; importing triton afterwards (torch._dynamo does) then crashes the whole test run,
    with or without envpool_core (docs/troubleshooting.md)."""
    from envpool_core import registry

    for path in registry._libraries_loaded_before_egl():
        ctypes.CDLL(path, mode=os.RTLD_LOCAL)


_load_llvm_carrying_libraries_before_any_renderer()

EGL_CHECK = "import envpool_core as ep; ep.make('InvertedPendulum-v4', from_pixels=True).reset()"


@functools.cache
def egl_problem() -> str | None:
    """Why MuJoCo cannot render on this machine (no usable EGL), or None if it can. Checked
    once, in a child process, so that the test process makes no OpenGL context of its own."""
    proc = subprocess.run([sys.executable, "-c", EGL_CHECK], capture_output=True, text=True)
    return None if proc.returncode == 0 else (proc.stderr.strip().splitlines() or ["?"])[-1]


def pytest_runtest_setup(item: pytest.Item) -> None:
    """Tests marked `egl` render MuJoCo frames: without EGL they skip, saying what is missing
    (CI installs EGL and runs them)."""
    if item.get_closest_marker("egl") and egl_problem():
        pytest.skip(f"MuJoCo rendering needs EGL (Debian: libegl1 libgl1-mesa-dri): "
                    f"{egl_problem()}")


def load_script(name: str) -> ModuleType:
    """A training script at the repository root, imported as a module (its `__main__` guard
    keeps the training loop from running), so tests can call its functions."""
    spec = importlib.util.spec_from_file_location(name, ROOT / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="session")
def atari() -> ModuleType:
    return load_script("ppo_atari_envpool")


@pytest.fixture(scope="session")
def mujoco() -> ModuleType:
    return load_script("ppo_mujoco_envpool")


@pytest.fixture(scope="session")
def impala() -> ModuleType:
    return load_script("impala_atari")


@pytest.fixture(scope="session")
def ppo() -> ModuleType:
    return load_script("ppo_distributed")


@pytest.fixture(scope="session")
def atari_async() -> ModuleType:
    return load_script("ppo_atari_envpool_async")
