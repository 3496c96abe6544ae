"""Which tasks exist: registers the env families and looks task ids up."""

from __future__ import annotations

import difflib
import importlib.util
from pathlib import Path

from envpool_core import _core


def _package_dir(name: str) -> Path | None:
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


def _libraries_loaded_before_egl() -> list[str]:
    """The installed libraries that carry their own LLVM with its symbols exported: the first
    render loads them before Mesa puts its LLVM in the global symbol table, so that they bind
    to their own copy when they are imported later (egl_context.h). Found without importing."""
    triton_dir = _package_dir("triton")
    if triton_dir is None or not (triton_dir / "_C" / "libtriton.so").is_file():
        return []
    return [str(triton_dir / "_C" / "libtriton.so")]


def _register_families() -> None:
    """Registers the Atari, MuJoCo and DeepMind Control Suite tasks from the installed data
    packages (ale_py's ROMs, gymnasium's and dm_control's MuJoCo models), and reads the image
    of Pendulum's picture from gymnasium's classic-control assets."""
    gym_dir = _package_dir("gymnasium")
    arrow = gym_dir / "envs" / "classic_control" / "assets" / "clockwise.png" if gym_dir else None
    if arrow is not None and arrow.is_file():
        _core.load_classic_control_assets(str(arrow.parent))
    if hasattr(_core, "register_atari_tasks"):
        ale_dir = _package_dir("ale_py")
        if ale_dir is not None and (ale_dir / "roms").is_dir():
            _core.register_atari_tasks(str(ale_dir / "roms"))
    if hasattr(_core, "register_mujoco_tasks"):
        _core.set_libraries_loaded_before_egl(_libraries_loaded_before_egl())
        if gym_dir is not None:
            _core.register_mujoco_tasks(str(gym_dir / "envs" / "mujoco" / "assets"))
        # Found without importing dm_control (its import loads MuJoCo's Python bindings).
        dm_control_dir = _package_dir("dm_control")
        if dm_control_dir is not None and (dm_control_dir / "suite").is_dir():
            _core.register_dm_control_tasks(str(dm_control_dir / "suite"))


_register_families()
_TASK_IDS: list[str] = list(_core.list_tasks())
_FAULT_INJECTION_ID = "FaultInjection-v0"
_hidden_ids: set[str] = set()


def register_fault_injection_task() -> str:
    """Registers the test-only task that throws on request (the engine's failure tests use
    it; `list_all_envs()` never lists it) and returns its id. Its options: `fail_in` (the
    method that throws: "reset", "step", "render" or "seed"), `fail_env_id` (-1: every env),
    `fail_after` (calls before the one that throws), `fail_with` ("exception" or "non_std"),
    `episode_length` (steps before it terminates; 0: never). Its reward is its action."""
    _core.register_fault_injection_task()
    _hidden_ids.add(_FAULT_INJECTION_ID)
    return _FAULT_INJECTION_ID


def list_all_envs() -> list[str]:
    """Returns every task id this build can make, sorted."""
    return list(_TASK_IDS)


def check_task_id(task_id: str) -> None:
    """Raises ValueError for an unknown task id, suggesting close names."""
    if not isinstance(task_id, str):
        raise TypeError(f"task_id must be a str, got {type(task_id).__name__}")
    if task_id in _TASK_IDS or task_id in _hidden_ids:
        return
    close = difflib.get_close_matches(task_id, _TASK_IDS, n=3, cutoff=0.5)
    hint = f"; did you mean {', '.join(repr(c) for c in close)}?" if close else ""
    raise ValueError(
        f"unknown task id {task_id!r}{hint} (envpool_core.list_all_envs() lists all"
        f" {len(_TASK_IDS)})"
    )
