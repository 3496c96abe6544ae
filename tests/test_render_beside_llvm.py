"""MuJoCo's renderer and a library that carries its own LLVM live in one process, in either
order. Mesa (which renders where there is no GPU) brings LLVM into the process's global
symbol table; triton, which torch.compile and torch._dynamo import, exports the symbols of
its own LLVM and, imported after a render, used to bind them to Mesa's copy and crash
(rc -11). The engine loads such libraries before EGL (egl_context.h). Each order runs in a
child process, since a crash takes the whole process down."""

import subprocess
import sys

import pytest

pytest.importorskip("torch")

MAKE_AND_RENDER = (
    "import envpool_core\n"
    "pool = envpool_core.make('Ant-v4', env_type='gymnasium', num_envs=1)\n"
    "pool.reset()\n"
    "assert pool.render().shape == (1, 480, 480, 3)\n"
)
IMPORT_DYNAMO = "import torch._dynamo\n"

ORDERS = {
    "render_then_dynamo": MAKE_AND_RENDER + IMPORT_DYNAMO,
    "dynamo_then_render": IMPORT_DYNAMO + MAKE_AND_RENDER,
    # A second render after the import: the renderer still works beside triton's LLVM.
    "render_dynamo_render": MAKE_AND_RENDER + IMPORT_DYNAMO + "assert pool.render().any()\n",
    # Another renderer loaded Mesa (and its LLVM) first: triton is then not loaded early, which
    # would itself crash.
    "dm_control_then_render": (
        "import os\nos.environ['MUJOCO_GL'] = 'egl'\nfrom dm_control import suite\n"
        "suite.load('cartpole', 'swingup').physics.render(32, 32)\n" + MAKE_AND_RENDER
    ),
}


@pytest.mark.egl
@pytest.mark.parametrize("order", sorted(ORDERS))
def test_render_and_torch_dynamo_in_one_process(order: str) -> None:
    if order.startswith("dm_control"):
        pytest.importorskip("dm_control")
    proc = subprocess.run([sys.executable, "-c", ORDERS[order]], capture_output=True, text=True,
                          timeout=240)
    assert proc.returncode == 0, f"rc {proc.returncode}: {proc.stderr[-2000:]}"


def test_triton_is_loaded_before_egl_when_installed() -> None:
    """The library list the renderer loads first names triton's LLVM-carrying library exactly
    when triton is installed (PyPI's default torch build installs it)."""
    from envpool_core import registry

    try:
        import triton
    except ImportError:
        assert registry._libraries_loaded_before_egl() == []
        return
    paths = registry._libraries_loaded_before_egl()
    assert len(paths) == 1 and paths[0].startswith(triton.__path__[0])
    assert paths[0].endswith("libtriton.so")
