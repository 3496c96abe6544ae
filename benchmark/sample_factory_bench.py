"""Sample-Factory's rows of the EnvPool paper's table: their virtual environments and runners.

Sample-Factory cannot share this project's environment (numpy 2, gymnasium 1.x), so each
version gets a virtual environment of its own, built once under ~/.cache/envpool_core, and is
measured there in a subprocess. The host side of this file is standard library only; run by
Sample-Factory 2.1.1's Python with `--run`, the same file is that version's measurement.

    python benchmark/sample_factory_bench.py --version 1 --setup     # build or check a venv
    python benchmark/sample_factory_bench.py --version 1 --workers 2 --envs-per-worker 1

Version 1 is what the paper measured (EnvPool's benchmark/README.md and requirements.txt):
Sample-Factory 1.123.0's `DUMMY_SAMPLER` on `atari_pong` (PongNoFrameskip-v4 of gym 0.23.1 and
ale-py 0.7.5): sampling with random actions, no policy, no learner, FPS counting the frame skip
of 4. ale-py 0.7.5 has wheels up to Python 3.10 only, so this venv needs a Python 3.10.

Version 2 is the latest release, 2.1.1 (numpy < 2, gymnasium < 1.0, ale-py 0.8.1). It has no
dummy sampler; the nearest is its sampling API (`SyncSamplingAPI`, as in
`sf_examples/sampler/use_simplified_sampling_api.py`): its rollout workers and inference worker
without the learner. Its inference worker runs Sample-Factory's Atari policy network (on the CPU
here) at every step, so that figure includes the forward pass. We run it with
`--benchmark=True`, which in 2.1.1 skips experience decorrelation and the inference cache
clean-up. `--train SECONDS` runs 2.1.1's own benchmark mode instead, the training entry point
with `--benchmark=True`: the whole APPO loop, learner included (on the CPU here), and the FPS its
runner reports; a training figure, not a sampling one.
"""

from __future__ import annotations

import argparse
import glob
import importlib.metadata
import importlib.util
import json
import math
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

CACHE = Path.home() / ".cache" / "envpool_core"
TORCH_CPU_INDEX = "https://download.pytorch.org/whl/cpu"
READY = "envpool_core_ready.json"
RESULT_FILE = "sf_result.json"
# Pins per Sample-Factory version; torch comes from `torch_requirement`.
PINS = {
    # EnvPool's benchmark/requirements.txt; numpy < 1.24 because DUMMY_SAMPLER uses np.bool.
    "1": ("sample-factory==1.123.0", "gym==0.23.1", "ale-py==0.7.5", "numpy<1.24"),
    # gymnasium[atari] of that era brings ale-py 0.8.1 through shimmy.
    "2": ("sample-factory==2.1.1", "numpy<2", "gymnasium[atari]<1.0"),
}
CHECK = {"1": "import sample_factory.run_algorithm",
         "2": "import sample_factory, sf_examples.atari.train_atari"}
PACKAGES = {"1": ("sample-factory", "gym", "ale-py", "numpy", "torch"),
            "2": ("sample-factory", "gymnasium", "ale-py", "numpy", "torch")}
# DUMMY_SAMPLER's report, once a second: "[2026-11-30 22:32:18,003][pid] Sampling FPS: (...).
# Total frames collected: 21080" (frames count the frame skip).
# 2.1.1's runner, every 5 s: "Fps is (10 sec: 409.6, 60 sec: 254.1, 300 sec: 254.1)."
TRAIN_FPS = re.compile(r"Fps is \(10 sec: ([\d.na]+), 60 sec: ([\d.na]+), 300 sec: ([\d.na]+)\)")
REPORT = re.compile(r"\[\d{4}-\d\d-\d\d (\d\d):(\d\d):(\d\d),(\d{3})\]\[\d+\] Sampling FPS: .*?"
                    r"Total frames collected: (\d+)")


class SampleFactoryUnavailable(RuntimeError):
    """Sample-Factory cannot run here; the message says why."""


def default_venv(version: str) -> Path:
    """Where a version's virtual environment lives unless told otherwise."""
    return CACHE / f"sample-factory-{version}-venv"


def base_python(version: str) -> str:
    """The interpreter a version's venv is made from.

    Version 2: this one. Version 1: a Python 3.10 (`python3.10` on PATH, or pyenv's).
    """
    if version == "2":
        return sys.executable
    found = [shutil.which("python3.10"),
             *sorted(glob.glob(str(Path.home() / ".pyenv" / "versions" / "3.10*" / "bin" /
                                   "python3.10")))]
    for python in filter(None, found):
        proc = subprocess.run([python, "-c", "import sys; print(sys.version_info[:2])"],
                              capture_output=True, text=True)
        if proc.returncode == 0 and proc.stdout.strip() == "(3, 10)":
            return python
    raise SampleFactoryUnavailable(
        "Sample-Factory 1.123.0 needs a Python 3.10 (the paper's ale-py 0.7.5 has no wheel for "
        "newer ones); none found (python3.10 on PATH or ~/.pyenv/versions/3.10*)")


def cpu_index() -> list[str]:
    """pip's arguments for PyTorch's CPU-only wheels (~200 MB against PyPI's CUDA builds), when
    that index answers; an unreachable index would cost pip retries for every package."""
    try:
        with urllib.request.urlopen(TORCH_CPU_INDEX + "/torch/", timeout=5):
            return ["--extra-index-url", TORCH_CPU_INDEX]
    except (OSError, ValueError):
        return []


def torch_requirement(version: str) -> str:
    """The torch to install in a venv.

    Version 2 runs on this Python: the host's torch version without its local label, which
    matches a CPU build (`2.13.0+cpu`, preferred over the plain one) wherever pip finds one (a
    local wheel like the host's, PyTorch's CPU index), else PyPI's build. Version 1 only imports
    torch: 1.12.1, the last release whose PyPI wheel for Python 3.10 needs no separate CUDA
    packages.
    """
    if version == "1":
        return "torch==1.12.1"
    try:
        return f"torch=={importlib.metadata.version('torch').split('+')[0]}"
    except importlib.metadata.PackageNotFoundError:
        return "torch"


def rom_dir() -> Path:
    """A folder with Pong's ROM, for the venvs' ale-py (0.7.5, 0.8.1), which ship none.

    Their own route, AutoROM, downloads the ROMs from outside PyPI at install time; the host's
    ale-py (0.9 and later) bundles them, and the old ones read `ALE_PY_ROM_DIR`.
    """
    if os.environ.get("ALE_PY_ROM_DIR"):
        path = Path(os.environ["ALE_PY_ROM_DIR"])
    else:
        spec = importlib.util.find_spec("ale_py")
        if spec is None or not spec.submodule_search_locations:
            raise SampleFactoryUnavailable(
                "no Atari ROMs: ale-py is not installed here; set ALE_PY_ROM_DIR to a folder "
                "holding pong.bin")
        path = Path(next(iter(spec.submodule_search_locations))) / "roms"
    if not (path / "pong.bin").is_file():
        raise SampleFactoryUnavailable(f"no pong.bin in {path}; set ALE_PY_ROM_DIR to a folder "
                                       "holding Atari ROMs")
    return path


def ensure_venv(version: str, venv: Path | None = None, log: Any = sys.stderr) -> Path:
    """Builds a version's venv on first use (minutes, 1-2 GB); returns its Python.

    Reused while its record of pins matches. Raises `SampleFactoryUnavailable`, with pip's own
    last lines, when it cannot be built.
    """
    if version not in PINS:
        raise ValueError(f"Sample-Factory version {version!r}: must be one of {sorted(PINS)}")
    venv = venv or default_venv(version)
    python = venv / "bin" / "python"
    torch_req = torch_requirement(version)
    wanted = {"pins": [*PINS[version], torch_req]}
    ready = venv / READY
    if ready.is_file() and json.loads(ready.read_text()) == wanted:
        return python
    if venv.exists() and any(venv.iterdir()) and not (venv / "pyvenv.cfg").is_file():
        raise SampleFactoryUnavailable(f"{venv} exists and is not a virtual environment")
    print(f"building Sample-Factory {version}'s venv in {venv} (once; minutes)", file=log)
    steps = [
        [base_python(version), "-m", "venv", "--clear", str(venv)],
        [str(python), "-m", "pip", "install", "--quiet", *cpu_index(), *PINS[version],
         torch_req],
        [str(python), "-c", CHECK[version]],
    ]
    for cmd in steps:
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=3600)
        except (OSError, subprocess.TimeoutExpired) as e:
            raise SampleFactoryUnavailable(f"`{' '.join(cmd[:4])} ...` failed: {e}") from e
        if proc.returncode != 0:
            tail = " ".join((proc.stderr or proc.stdout).strip().splitlines()[-3:])
            raise SampleFactoryUnavailable(f"`{' '.join(cmd[:4])} ...` failed: {tail}")
    ready.write_text(json.dumps(wanted))
    return python


def _venv_env() -> dict[str, str]:
    """The environment for a venv's subprocess: no host paths, the ROMs, no GPU."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    env["ALE_PY_ROM_DIR"] = str(rom_dir())
    env["CUDA_VISIBLE_DEVICES"] = ""
    return env


def _run_group(cmd: list[str], cwd: str, limit: float, stop_after: float | None = None,
               ) -> tuple[int | None, str]:
    """Runs `cmd` in a process group of its own; returns (exit status, stdout + stderr).

    With `stop_after`, sends SIGINT (Sample-Factory's own way to stop) to the group after that
    many seconds. Past `limit` seconds the exit status is None. Sample-Factory's worker
    processes are killed with the group in every case, so none outlives the measurement.
    """
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            cwd=cwd, env=_venv_env(), start_new_session=True)
    try:
        try:
            out, _ = proc.communicate(timeout=stop_after if stop_after is not None else limit)
            return proc.returncode, out
        except subprocess.TimeoutExpired:
            if stop_after is None:
                raise
        os.killpg(proc.pid, signal.SIGINT)
        out, _ = proc.communicate(timeout=max(1.0, limit - stop_after))
        return proc.returncode, out
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        return None, proc.communicate()[0]
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def _versions(python: Path, version: str) -> dict[str, str]:
    """The venv's versions of the packages that matter."""
    code = ("import importlib.metadata as m, json; "
            f"print(json.dumps({{p: m.version(p) for p in {list(PACKAGES[version])!r}}}))")
    proc = subprocess.run([str(python), "-c", code], capture_output=True, text=True, check=True)
    return json.loads(proc.stdout)


def rate_after_warmup(log: str, warmup: float) -> tuple[float, float]:
    """(frames per second, seconds) between DUMMY_SAMPLER's first report `warmup` seconds in
    and its last one."""
    points = []
    for h, m, sec, ms, frames in REPORT.findall(log):
        t = int(h) * 3600 + int(m) * 60 + int(sec) + int(ms) / 1000
        if points and t < points[-1][0]:
            t += 86400  # past midnight
        points.append((t, int(frames)))
    after = [p for p in points if p[0] >= points[0][0] + warmup] if points else []
    if len(after) < 2:
        raise RuntimeError(f"Sample-Factory reported {len(points)} times, too few after the "
                           f"{warmup} s warm-up")
    (t0, f0), (t1, f1) = after[0], after[-1]
    return (f1 - f0) / (t1 - t0), t1 - t0


def measure_sample_factory(version: str, python: Path, workers: int, envs_per_worker: int,
                           seconds: float, warmup: float = 5.0) -> dict[str, Any]:
    """One Sample-Factory sampling run in its venv.

    Returns steps_per_s (env steps of 4 frames), fps (frames: steps x 4), frameskip, versions,
    the command, and for version 2 cpu_us_per_step (all its processes).
    """
    with tempfile.TemporaryDirectory(prefix="sf_bench_") as cwd:
        if version == "1":
            # Its clock starts once every worker has reset its envs; it reports the frames
            # collected every second and stops after --timeout_seconds.
            cmd = [str(python), "-m", "sample_factory.run_algorithm", "--algo=DUMMY_SAMPLER",
                   "--env=atari_pong", "--env_frameskip=4", f"--num_workers={workers}",
                   f"--num_envs_per_worker={envs_per_worker}",
                   f"--timeout_seconds={math.ceil(warmup + seconds) + 1}",
                   "--sample_env_frames=1000000000000", "--experiment=sf_bench",
                   f"--train_dir={cwd}/train_dir"]
        else:
            cmd = [str(python), str(Path(__file__).resolve()), "--run", "--workers",
                   str(workers), "--envs-per-worker", str(envs_per_worker), "--seconds",
                   str(seconds), "--warmup", str(warmup)]
        limit = 180 + 2 * (seconds + warmup)
        status, out = _run_group(cmd, cwd, limit)
        # Version 2 writes its result to a file: its processes share the output stream.
        written = Path(cwd) / RESULT_FILE
        result = json.loads(written.read_text()) if written.is_file() else None
    tail = " ".join(out.strip().splitlines()[-3:])
    if status is None:
        raise RuntimeError(f"Sample-Factory did not finish within {limit:.0f} s: {tail}")
    if version == "1":
        if status != 0:
            raise RuntimeError(f"Sample-Factory exited with {status}: {tail}")
        fps, elapsed = rate_after_warmup(out, warmup)
        result = {"steps_per_s": fps / 4, "fps": fps, "frameskip": 4, "seconds": elapsed,
                  "workers": workers, "envs_per_worker": envs_per_worker,
                  "versions": _versions(python, version)}
    elif result is None:
        raise RuntimeError(f"Sample-Factory exited with {status}, no result: {tail}")
    result["command"] = " ".join(Path(c).name if c == str(python) else c for c in cmd
                                 if not c.startswith("--train_dir"))
    return result


def measure_training(python: Path, workers: int, envs_per_worker: int,
                     seconds: int) -> dict[str, Any]:
    """2.1.1's benchmark mode: its Atari training entry point with --benchmark=True on the CPU,
    stopped after `seconds` (start-up included) with SIGINT, as its --train_for_seconds did not
    stop it here; returns the last FPS figures its runner reported (frames, skip counted)."""
    cmd = [str(python), "-m", "sf_examples.atari.train_atari", "--env=atari_pong",
           "--device=cpu", "--benchmark=True", f"--num_workers={workers}",
           f"--num_envs_per_worker={envs_per_worker}", "--experiment=sf_bench",
           "--restart_behavior=overwrite"]
    with tempfile.TemporaryDirectory(prefix="sf_train_") as cwd:
        status, out = _run_group([*cmd, f"--train_dir={cwd}/train_dir"], cwd, seconds + 120,
                                 stop_after=seconds)
    found = TRAIN_FPS.findall(out)
    if not found:
        tail = " ".join(out.strip().splitlines()[-3:])
        raise RuntimeError(f"Sample-Factory training exited with {status}, no FPS: {tail}")
    last = found[-1]
    return {"fps_10s": float(last[0]), "fps_60s": float(last[1]), "fps_300s": float(last[2]),
            "seconds": seconds, "workers": workers, "envs_per_worker": envs_per_worker,
            "versions": _versions(python, "2"),
            "command": " ".join(["python", *cmd[1:]])}


def _process_tree_cpu(psutil: Any) -> float:
    """User + system CPU seconds of this process and all its live descendants."""
    me = psutil.Process()
    total = 0.0
    for p in [me, *me.children(recursive=True)]:
        try:
            t = p.cpu_times()
            total += t.user + t.system
        except psutil.NoSuchProcess:
            continue
    return total


def run_in_venv(workers: int, envs_per_worker: int, seconds: float, warmup: float) -> None:
    """Version 2's measurement; runs under its venv's Python, in the folder where it writes
    RESULT_FILE."""
    import psutil
    from sample_factory.algo.sampling.simplified_sampling_api import SyncSamplingAPI
    from sample_factory.algo.utils.env_info import obtain_env_info_in_a_separate_process
    from sample_factory.algo.utils.rl_utils import samples_per_trajectory
    from sf_examples.atari.train_atari import parse_atari_args, register_atari_components

    # Double buffering (two halves of a worker's envs alternate with inference) needs an even
    # count; one env per worker is the paper's setting.
    splits = 2 if envs_per_worker % 2 == 0 else 1
    register_atari_components()
    cfg = parse_atari_args(argv=[
        "--env=atari_pong", "--device=cpu", "--benchmark=True", f"--num_workers={workers}",
        f"--num_envs_per_worker={envs_per_worker}", f"--worker_num_splits={splits}",
        "--experiment=sf_bench", f"--train_dir={Path.cwd() / 'train_dir'}",
        "--restart_behavior=overwrite"])
    sampler = SyncSamplingAPI(cfg, obtain_env_info_in_a_separate_process(cfg))
    sampler.start()
    try:
        # Whole trajectories (128 steps of one env) arrive at a time, so the window is long.
        end_warmup = time.perf_counter() + warmup
        while time.perf_counter() < end_warmup:
            if sampler.get_trajectories_sync() is None:
                raise RuntimeError("sampler stopped during warm-up")
        start, cpu_start, steps = time.perf_counter(), _process_tree_cpu(psutil), 0
        while time.perf_counter() - start < seconds:
            traj = sampler.get_trajectories_sync()
            if traj is None:
                raise RuntimeError("sampler stopped while measuring")
            steps += samples_per_trajectory(traj)
        cpu = _process_tree_cpu(psutil) - cpu_start
        elapsed = time.perf_counter() - start
    finally:
        sampler.stop()
    Path(RESULT_FILE).write_text(json.dumps({
        "steps_per_s": steps / elapsed, "fps": steps * cfg.env_frameskip / elapsed,
        "frameskip": cfg.env_frameskip, "cpu_us_per_step": 1e6 * cpu / steps,
        "workers": workers, "envs_per_worker": envs_per_worker, "worker_num_splits": splits,
        "seconds": elapsed,
        "versions": {name: importlib.metadata.version(name) for name in PACKAGES["2"]}}))


def _cpu_model() -> str:
    """The CPU's model name, for the record."""
    try:
        with open("/proc/cpuinfo") as f:
            return next(ln.split(":", 1)[1].strip() for ln in f if ln.startswith("model name"))
    except (OSError, StopIteration):
        return "unknown"


def main() -> None:
    """Command line: build a venv, or measure one setting (from the host, or in the venv)."""
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", choices=sorted(PINS), default="1",
                        help="1: 1.123.0's DUMMY_SAMPLER (the paper's); 2: 2.1.1's sampler")
    parser.add_argument("--setup", action="store_true", help="only build or check the venv")
    parser.add_argument("--run", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--venv", type=Path, default=None,
                        help="the venv's folder (default ~/.cache/envpool_core/...)")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1,
                        help="rollout worker processes")
    parser.add_argument("--envs-per-worker", type=int, default=1)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--warmup", type=float, default=5.0)
    parser.add_argument("--train", type=int, default=None, metavar="SECONDS",
                        help="version 2: its --benchmark=True training run for SECONDS instead")
    parser.add_argument("--json", type=Path, default=None, help="also write the result here")
    args = parser.parse_args()
    if args.workers < 1 or args.envs_per_worker < 1:
        parser.error("--workers and --envs-per-worker must be at least 1")
    if args.run:
        run_in_venv(args.workers, args.envs_per_worker, args.seconds, args.warmup)
        return
    python = ensure_venv(args.version, args.venv)
    if args.setup:
        print(python)
        return
    if args.train is not None:
        if args.version != "2":
            parser.error("--train runs version 2's training entry point: pass --version 2")
        result = measure_training(python, args.workers, args.envs_per_worker, args.train)
    else:
        result = measure_sample_factory(args.version, python, args.workers, args.envs_per_worker,
                                        args.seconds, args.warmup)
    result["machine"] = {"cpu": _cpu_model(), "cores": os.cpu_count(),
                         "load_average_after": os.getloadavg()}
    text = json.dumps(result, indent=2)
    if args.json is not None:
        args.json.write_text(text + "\n")
    print(text)


if __name__ == "__main__":
    main()
