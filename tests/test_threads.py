"""The GIL is released while the engine works, Ctrl-C interrupts a long recv(), and threads
sharing a pool are serialised."""

from __future__ import annotations

import os
import queue
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import ClassVar

import numpy as np
import pytest

import envpool_core as ep

ROOT = Path(__file__).resolve().parents[1]

# With a switch interval this long, a thread waiting for the GIL cannot force its holder to
# drop it within the test (CPython forces a switch only after the interval), so the waiting
# thread gets to run only if recv() releases the GIL itself.
LONG_SWITCH_INTERVAL_S = 30.0


def test_gil_released_during_recv() -> None:
    # Humanoid with frame_skip 2000: one step of 4 envs is a batch of a few tenths of a second
    # (one worker, plus the caller, which steps envs while it waits).
    env = ep.make("Humanoid-v5", num_envs=4, num_threads=1, frame_skip=2000)
    env.reset()
    target = 200_000  # counter increments: a few ms of Python
    ticks = 0
    go = threading.Event()

    def count() -> None:
        nonlocal ticks
        go.wait()
        while ticks < target:
            ticks += 1

    interval = sys.getswitchinterval()
    sys.setswitchinterval(LONG_SWITCH_INTERVAL_S)
    thread = threading.Thread(target=count)
    try:
        thread.start()
        env.send(np.zeros((4, 17)))
        go.set()  # the counter now waits for the GIL, which the main thread holds
        env.recv()
        during = ticks
    finally:
        go.set()
        sys.setswitchinterval(interval)
        thread.join()
    # Released: the counter took the GIL while recv() waited, and recv() could only return
    # once the counter let it go again, at its target. Held: the counter never ran.
    assert during == target, f"the counter ran {during} of {target} steps while recv() waited"
    env.close()


# The child steps a batch of 1000 Humanoids, each step made to take about 0.05 s on this machine
# (frame_skip scaled from a probe), so the batch takes about 25 s on its two threads (the worker
# and the caller, which steps envs while it waits), whatever the machine's speed. It says
# "waiting" each time it is about to call recv(). A SIGINT that lands inside recv() must raise
# KeyboardInterrupt there within a tenth of the batch; one that lands just before the call
# (possible on a loaded machine) only makes it say "waiting" again.
SLOW_RECV = """
import os, signal, sys, time, traceback
import numpy as np, envpool_core as ep
# A child inherits an ignored SIGINT (pytest started as a shell's background job), and Python
# then leaves it ignored: without its handler the SIGINT would never reach recv().
signal.signal(signal.SIGINT, signal.default_int_handler)
probe = ep.make("Humanoid-v5", num_envs=1, frame_skip=500)
probe.reset()
start = time.perf_counter()
probe.step(np.zeros((1, 17)))
frame_skip = max(500, int(0.05 * 500 / (time.perf_counter() - start)))
env = ep.make("Humanoid-v5", num_envs=1000, num_threads=1, frame_skip=frame_skip)
env.reset()
env.send(np.zeros((1000, 17)))
print("batch", 1000 * 0.05 / 2, flush=True)
while True:
    try:  # print() too: a SIGINT can land before the call, even before print() returns
        print("waiting", flush=True)
        env.recv()
    except KeyboardInterrupt:
        frame = traceback.extract_tb(sys.exc_info()[2])[-1]
        if frame.name != "recv":
            continue  # landed before the call
        print("interrupted in", frame.name, frame.filename, flush=True)
        os._exit(0)  # without waiting for the batch in close()
    print("recv returned", flush=True)
    os._exit(1)
"""


def test_ctrl_c_interrupts_recv() -> None:
    proc = subprocess.Popen([sys.executable, "-c", SLOW_RECV], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    lines: queue.Queue[str] = queue.Queue()
    reader = threading.Thread(target=lambda: [lines.put(line.strip()) for line in proc.stdout],
                              daemon=True)
    reader.start()
    said = []
    try:
        said.append(lines.get(timeout=120))  # making 1000 Humanoids: seconds
        assert said[0].startswith("batch"), (said, proc.stderr.read())
        bound = float(said[0].split()[1]) / 10
        for _ in range(20):
            try:
                said.append(lines.get(timeout=60))
            except queue.Empty:
                pytest.fail(f"no answer from the child in 60 s after {said}: recv() did not "
                            f"return to Python on SIGINT (exit code {proc.poll()})")
            if said[-1] != "waiting":
                break
            time.sleep(0.2)  # let it enter recv(); landing earlier only costs a retry
            sent = time.monotonic()
            proc.send_signal(signal.SIGINT)
        latency = time.monotonic() - sent
        assert proc.wait(timeout=60) == 0, (said, proc.stderr.read())
    finally:
        proc.kill()
        proc.wait()
    # The innermost Python frame of the interrupt is the pool's recv(), and it came long
    # before the batch could have finished.
    words = said[-1].split()
    assert words[:3] == ["interrupted", "in", "recv"] and "envpool_core" in words[3], said
    assert latency < bound, f"the interrupt took {latency:.1f} s (bound {bound:.1f} s)"


# Two tests for a child pytest run with this suite's pytest.ini: the first waits in recv() for a
# batch of minutes under a 3-second time limit, the second just passes.
HANGING_TESTS = """
import numpy as np, pytest, envpool_core as ep

@pytest.mark.timeout(3)
def test_waits_too_long():
    env = ep.make("Humanoid-v5", num_envs=200, num_threads=1, frame_skip=20000)
    env.reset()
    env.step(np.zeros((200, 17)))

def test_after_it():
    pass
"""


def test_a_hang_fails_only_its_test(tmp_path: Path) -> None:
    (tmp_path / "test_hanging.py").write_text(HANGING_TESTS)
    out = subprocess.run([sys.executable, "-m", "pytest", "-c", str(ROOT / "pytest.ini"),
                          "--rootdir", str(tmp_path), "-p", "no:cacheprovider", str(tmp_path)],
                         capture_output=True, text=True, timeout=240)
    assert "Timeout (>3.0s)" in out.stdout and "1 failed, 1 passed" in out.stdout, out.stdout


class _TrackedBuffer(bytearray):
    """A buffer that records the thread its last reference dies on."""

    died_on: ClassVar[list[str]] = []

    def __del__(self) -> None:
        self.died_on.append(threading.current_thread().name)


def test_send_keeps_no_reference_to_the_actions() -> None:
    # send() copies the actions: the caller's array is free the moment send() returns.
    env = ep.make("CartPole-v1", num_envs=8, batch_size=2, num_threads=2)
    env.async_reset()
    _, _, _, _, info = env.recv()
    action = np.frombuffer(_TrackedBuffer(8), dtype=np.int32)  # two int32 actions, zeros
    env.send(action, info["env_id"])
    del action
    assert _TrackedBuffer.died_on == [threading.main_thread().name]
    env.close()


def test_threads_stepping_one_pool_get_their_own_rows() -> None:
    # recv() waits without the GIL, so the GIL alone does not keep two threads' send and recv
    # apart: before the pool took its own lock, one thread got the other's rows or an error.
    env = ep.make("CartPole-v1", num_envs=8, num_threads=2)
    env.reset()
    problems: list = []

    def step_envs(env_ids: np.ndarray) -> None:
        for _ in range(1000):
            try:
                info = env.step(np.zeros(len(env_ids), np.int32), env_ids)[-1]
            except Exception as e:  # collected: a thread cannot raise to the test
                problems.append(repr(e))
                return
            if not np.array_equal(info["env_id"], env_ids):
                problems.append(("rows of", info["env_id"].tolist(), "for", env_ids.tolist()))

    threads = [threading.Thread(target=step_envs, args=(np.arange(4 * k, 4 * k + 4),))
               for k in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert not any(thread.is_alive() for thread in threads) and not problems, problems[:3]
    env.close()


def test_close_from_another_thread_ends_a_recv_loop_cleanly() -> None:
    # Before the lock, close() freed the envs under a recv() in progress: a segfault.
    env = ep.make("Hopper-v4", num_envs=16, batch_size=4, num_threads=1)
    env.async_reset()
    ended: list = []

    def loop() -> None:
        try:
            while True:
                info = env.recv()[-1]
                env.send(np.zeros((4, 3)), info["env_id"])
        except RuntimeError as e:
            ended.append(str(e))

    thread = threading.Thread(target=loop)
    thread.start()
    time.sleep(0.5)
    env.close()
    thread.join(30)
    assert not thread.is_alive() and ended and "closed" in ended[0], ended


@pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="needs two usable CPUs")
def test_threads_and_pinning_follow_the_process_affinity_mask() -> None:
    # Under taskset (or a container's cpuset) the process may run on fewer CPUs than the
    # machine has: the default thread count is min(batch_size, those CPUs), and offset k pins
    # worker t to the ((k + t) mod n)-th of them, not to CPU k + t of the machine.
    last = max(os.sched_getaffinity(0))
    out = subprocess.run([sys.executable, "-c", f"""
import os, time, envpool_core as ep
os.sched_setaffinity(0, {{{last}}})
pool = ep.make("CartPole-v1", num_envs=4, thread_affinity_offset=0)
def workers():
    return [t for t in os.listdir("/proc/self/task")
            if open(f"/proc/self/task/{{t}}/comm").read().strip() == "envpool-worker"]
while len(workers()) < pool.config["num_threads"]:  # each names itself when it first runs
    time.sleep(0.01)
print(pool.config["num_threads"], sorted({{
    open(f"/proc/self/task/{{t}}/status").read().split("Cpus_allowed_list:")[1].split()[0]
    for t in workers()}}))
"""], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["1", f"['{last}']"]
