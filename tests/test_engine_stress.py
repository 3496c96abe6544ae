"""The engine without Python in the loop: builds and runs the C++ tests.

- engine_stress (envpool_core/csrc/tests/engine_stress.cc) steps the test task
  FaultInjection-v0 (no fault; its reward is its action) for hundreds of thousands of batches
  in sync and async mode, with more workers than this machine class has cores, and checks
  that every row is written once by the env it names, that each env steps with the action sent
  to it although the caller overwrites its one action buffer as soon as send() returns, and
  that every env is served in proportion and until the end of the run (an env lost mid-run
  fails it even while the others keep batches completing). A lost env in sync mode shows up
  as a hang, so the run has a time limit.
- hot_path_alloc_test replaces the global operator new with a counting one and steps CartPole
  in sync and async mode (sends of at most and of more than 64 env ids, auto-resets on the
  way): after a warm-up, send / recv / release and the workers' steps must make no
  allocation on any thread.
- env_id_queue_test, stepper_queues_test and output_block_test are unit tests of the engine's
  env-id queue, its per-worker queues with stealing (async mode's env homes) and its
  output-block pool (wrap-around, full ring, many producers and consumers, stealing order,
  block recycling, reference counting, blocks outliving their pool).
- grayscale_table_test_{scalar,ssse3,avx2} test the Atari grayscale (every palette index, the
  odd ones of PAL screens among them, with and without the max-pool) once per code path,
  where this CPU runs it; they need no ALE.

The sanitizer builds (docs/development.md) run the same programs.
"""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

SOURCE = Path(__file__).resolve().parents[1] / "envpool_core"
PROGRAMS = ["engine_stress", "hot_path_alloc_test", "env_id_queue_test", "stepper_queues_test",
            "output_block_test", "grayscale_table_test_scalar", "grayscale_table_test_ssse3",
            "grayscale_table_test_avx2"]
# A hang detector, not a speed test: each program takes seconds on an idle 2-core machine.
TIME_LIMIT_S = 240


@pytest.fixture(scope="module")
def build_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    cmake = shutil.which("cmake")
    assert cmake, "cmake is needed to build the C++ tests (pip install -r requirements.txt)"
    build = tmp_path_factory.mktemp("stress_build")
    generator = ["-G", "Ninja"] if shutil.which("ninja") else []
    subprocess.run(
        [cmake, "-S", str(SOURCE), "-B", str(build), *generator, "-DCMAKE_BUILD_TYPE=Release",
         f"-DPython_EXECUTABLE={sys.executable}", "-DENVPOOL_CORE_MODULE=OFF",
         "-DENVPOOL_CORE_STRESS=ON", "-DENVPOOL_CORE_WITH_ATARI=OFF",
         "-DENVPOOL_CORE_WITH_MUJOCO=OFF"],
        check=True, capture_output=True)
    subprocess.run([cmake, "--build", str(build), "-j2"], check=True, capture_output=True)
    return build


def cpu_flags() -> set[str]:
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        return set()
    return {flag for line in text.splitlines() if line.startswith("flags")
            for flag in line.split(":", 1)[1].split()}


@pytest.mark.timeout(600)  # the build (first test) plus the program
@pytest.mark.parametrize("program", PROGRAMS)
def test_cc_program_passes(build_dir: Path, program: str) -> None:
    path = program.removeprefix("grayscale_table_test_")
    if program.startswith("grayscale_table_test_") and path != "scalar":
        if path not in cpu_flags():
            pytest.skip(f"this CPU has no {path.upper()}")
        assert (build_dir / program).exists(), f"{program} was not built: no -m{path}?"
    try:
        done = subprocess.run([str(build_dir / program)], capture_output=True, text=True,
                              timeout=TIME_LIMIT_S)
    except subprocess.TimeoutExpired:
        pytest.fail(f"{program} did not finish in {TIME_LIMIT_S} s: it hung (a batch never "
                    "completed, or a queue lost a value)")
    assert done.returncode == 0, done.stderr
    assert f"{program}: ok" in done.stdout
