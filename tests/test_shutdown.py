"""Closing, deleting or collecting a pool at any moment of interpreter shutdown exits promptly.

Each scenario runs in a child process that makes, for every family (classic, Atari, MuJoCo,
dm_control), one pool that has rendered (its workers hold OpenGL contexts where the family
renders) and one that has not, some with actions still in flight, and leaves them to be closed
from a `__del__` of a module-level object, an `atexit` hook, a reference cycle that the
collector breaks at exit, or while daemon threads step them. The child must exit with status 0
within its time limit, having printed what its finalisers did, with no exception ignored on the
way out: a hang, an abort or a finaliser that raised fails its test.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

# The child's common part: `make_pools()` makes the pools, each reset, stepped and (every
# other one) rendered, then sent one more step that is still in flight when the child exits.
PRELUDE = """
import atexit, gc, sys, threading, time
import numpy as np
import envpool_core as ep

TASKS = {"CartPole-v1": {}, "Pong-v5": {},
         "Hopper-v5": {"render_width": 32, "render_height": 32},
         "CartpoleBalance-v1": {"render_width": 32, "render_height": 32}}
TASKS = {task: kwargs for task, kwargs in TASKS.items() if task in ep.list_all_envs()}

def actions(pool, n):
    return np.stack([pool.single_action_space.sample() for _ in range(n)])

def make_pools(batch_size=4):
    pools = []
    for task, kwargs in TASKS.items():
        for render in (False, True):
            pool = ep.make(task, num_envs=4, batch_size=batch_size, num_threads=2, **kwargs)
            if batch_size == 4:
                pool.reset()
                pool.step(actions(pool, 4))
                if render and task != "CartPole-v1":
                    pool.render(np.arange(4))
                pool.send(actions(pool, 4))
            else:
                pool.async_reset()
            pools.append(pool)
    return pools

class Holder:
    # What users write: an object that closes its pools when it goes away.
    def __init__(self, name, pools):
        self.name, self.pools = name, pools
    def __del__(self):
        for pool in self.pools:
            pool.close()
        print(self.name, "closed", flush=True)
"""

SCENARIOS = {
    # A module-level object: its __del__ runs while the interpreter finalises, after the
    # pools were closed at exit, so its close() is a second one.
    "module_level_del": (
        """
        holder = Holder("module", make_pools())
        """,
        ["module closed"],
    ),
    # An object in a reference cycle, collected during finalisation.
    "cycle_collected_at_exit": (
        """
        gc.disable()
        holder = Holder("cycle", make_pools())
        holder.self = holder
        del holder
        """,
        ["cycle closed"],
    ),
    # A reference cycle collected before exit, from the collector (not a close() of the user's).
    "cycle_collected_now": (
        """
        holder = Holder("cycle", make_pools())
        holder.self = holder
        del holder
        gc.collect()
        """,
        ["cycle closed"],
    ),
    # atexit hooks registered after envpool_core (they run before its own) and before it (they
    # run after it, when the bindings already shut down).
    "atexit_hooks": (
        """
        pools = make_pools()
        atexit.register(lambda: print("before", [p.close() for p in pools] and "closed",
                                      flush=True))
        """,
        ["before closed", "after closed"],
    ),
    # A pool deleted without close() at any point: the last reference goes with the module.
    "module_level_pools_unclosed": (
        """
        pools = make_pools()
        """,
        [],
    ),
    # Async pools with envs in flight, closed from a finaliser.
    "async_pending": (
        """
        holder = Holder("async", make_pools(batch_size=2))
        """,
        ["async closed"],
    ),
    # Daemon threads stepping and rendering the pools (and one making and closing pools
    # again and again) while the main thread exits; a module-level object closes the pools.
    # The threads' code lives in a namespace of its own: a thread's function keeps its
    # globals alive, and Python never finalises what the globals of __main__ hold if a
    # daemon thread's function has them as its globals.
    "daemon_threads": (
        """
        pools = make_pools()
        for pool in pools:
            pool.recv()
        exec(DAEMON_THREADS, {"pools": pools})
        time.sleep(0.5)
        holder = Holder("module", pools)
        """,
        ["module closed"],
    ),
}

DAEMON_THREADS = """
import threading
import numpy as np
import envpool_core as ep

def actions(pool, n):
    return np.stack([pool.single_action_space.sample() for _ in range(n)])

def step(pool):
    try:
        while True:
            pool.step(actions(pool, 4))
            if pool.spec.task_id != "CartPole-v1":
                pool.render(np.arange(2))
    except RuntimeError:
        pass  # closed at exit, before the thread could park

def churn():
    while True:
        pool = ep.make("Hopper-v5", num_envs=2, num_threads=2, render_width=32, render_height=32)
        pool.reset()
        pool.render(np.arange(2))
        pool.close()

for pool in pools:
    threading.Thread(target=step, args=(pool,), daemon=True).start()
threading.Thread(target=churn, daemon=True).start()
"""

# The `after` hook of atexit_hooks, registered before envpool_core is imported.
AFTER_HOOK = """
import atexit
late = []
atexit.register(lambda: print("after", [p.close() for p in late] and "closed", flush=True))
"""


@pytest.mark.parametrize("scenario", list(SCENARIOS))
def test_exit_is_prompt_and_clean(scenario: str) -> None:
    code, expected = SCENARIOS[scenario]
    prelude = PRELUDE
    if scenario == "atexit_hooks":
        prelude = AFTER_HOOK + PRELUDE
        code += "late.extend(make_pools())\n"
    if scenario == "daemon_threads":
        prelude += f"DAEMON_THREADS = {DAEMON_THREADS!r}\n"
    try:
        out = subprocess.run(
            [sys.executable, "-c", prelude + textwrap.dedent(code)],
            capture_output=True,
            text=True,
            timeout=90,
        )
    except subprocess.TimeoutExpired as e:
        pytest.fail(f"the child hung at exit: {e.stdout!r} {e.stderr!r}")
    assert out.returncode == 0, f"exit code {out.returncode}\n{out.stdout}\n{out.stderr}"
    assert "Exception ignored" not in out.stderr and "Traceback" not in out.stderr, out.stderr
    assert out.stdout.split("\n")[:-1] == expected
