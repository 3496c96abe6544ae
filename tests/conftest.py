"""Shared pytest settings, and the training scripts as importable modules."""

import importlib.util
import os
from pathlib import Path
from types import ModuleType

import pytest

# Keep numpy/torch from starting thread pools that compete with the engine's workers.
os.environ.setdefault("OMP_NUM_THREADS", "1")

ROOT = Path(__file__).resolve().parents[1]


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
