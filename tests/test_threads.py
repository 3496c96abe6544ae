"""The GIL is released while the engine works, and Ctrl-C interrupts a long recv()."""

from __future__ import annotations

import signal
import subprocess
import sys
import threading
import time
from typing import ClassVar

import numpy as np

import envpool_core as ep


def test_gil_released_during_step() -> None:
    # Humanoid steps cost ~0.2 ms; 64 envs on one worker keep recv() busy for ~10 ms.
    env = ep.make("Humanoid-v4", num_envs=64, num_threads=1)
    env.reset()
    action = np.zeros((64, 17))
    ticks = 0
    stop = False

    def count() -> None:
        nonlocal ticks
        while not stop:
            ticks += 1

    thread = threading.Thread(target=count)
    thread.start()
    try:
        time.sleep(0.01)
        before = ticks
        for _ in range(10):
            env.step(action)
        during = ticks - before
    finally:
        stop = True
        thread.join()
    # With the GIL held through recv() the counter could not move at all.
    assert during > 1000


SLOW_LOOP = """
import numpy as np, envpool_core as ep, sys
env = ep.make("Humanoid-v4", num_envs=4000, num_threads=1)
env.reset()
print("ready", flush=True)
while True:
    env.step(np.zeros((4000, 17)))
"""


def test_ctrl_c_interrupts_recv() -> None:
    proc = subprocess.Popen([sys.executable, "-c", SLOW_LOOP], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    assert proc.stdout.readline().strip() == "ready"
    time.sleep(1.0)  # a step of 4000 Humanoids takes about a second: we are inside recv()
    sent = time.monotonic()
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert time.monotonic() - sent < 2.0, "Ctrl-C should not wait for the batch to finish"
    assert "KeyboardInterrupt" in err and "recv" in err.splitlines()[-3]
    assert proc.returncode != 0


class _TrackedBuffer(bytearray):
    """A buffer that records the thread its last reference dies on."""

    died_on: ClassVar[list[str]] = []

    def __del__(self) -> None:
        self.died_on.append(threading.current_thread().name)


def test_close_releases_in_flight_actions_with_the_gil() -> None:
    env = ep.make("CartPole-v1", num_envs=8, batch_size=2, num_threads=2)
    env.async_reset()
    _, _, _, _, info = env.recv()
    action = np.frombuffer(_TrackedBuffer(8), dtype=np.int32)  # two int32 actions, zeros
    env.send(action, info["env_id"])
    del action
    env.close()  # the action may still be held by the engine: it must be dropped under the GIL
    assert _TrackedBuffer.died_on == [threading.main_thread().name]
