"""The engine under load, without Python in the loop: builds and runs engine_stress.

engine_stress (envpool_core/csrc/tests/engine_stress.cc) steps CartPole for hundreds of
thousands of batches in sync and async mode, with more workers than this machine class has
cores, and checks that every env keeps being served. A lost env shows up as a hang, so the
run has a time limit. The sanitizer builds (README, "Sanitizers") run the same driver.
"""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

SOURCE = Path(__file__).resolve().parents[1] / "envpool_core"
TIME_LIMIT_S = 120


@pytest.fixture(scope="module")
def engine_stress(tmp_path_factory: pytest.TempPathFactory) -> Path:
    cmake = shutil.which("cmake")
    assert cmake, "cmake is needed to build engine_stress (pip install -r requirements.txt)"
    build = tmp_path_factory.mktemp("stress_build")
    generator = ["-G", "Ninja"] if shutil.which("ninja") else []
    subprocess.run(
        [cmake, "-S", str(SOURCE), "-B", str(build), *generator, "-DCMAKE_BUILD_TYPE=Release",
         f"-DPython_EXECUTABLE={sys.executable}", "-DENVPOOL_CORE_MODULE=OFF",
         "-DENVPOOL_CORE_STRESS=ON", "-DENVPOOL_CORE_WITH_ATARI=OFF",
         "-DENVPOOL_CORE_WITH_MUJOCO=OFF"],
        check=True, capture_output=True)
    subprocess.run([cmake, "--build", str(build), "--target", "engine_stress", "-j2"],
                   check=True, capture_output=True)
    return build / "engine_stress"


def test_engine_stress_serves_every_env_without_hanging(engine_stress: Path) -> None:
    try:
        done = subprocess.run([str(engine_stress)], capture_output=True, text=True,
                              timeout=TIME_LIMIT_S)
    except subprocess.TimeoutExpired:
        pytest.fail(f"engine_stress did not finish in {TIME_LIMIT_S} s: a batch never completed")
    assert done.returncode == 0, done.stderr
    assert "engine_stress: ok" in done.stdout
