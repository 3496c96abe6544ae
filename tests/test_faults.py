"""An env's failure reaches Python; the process never aborts and no call waits forever.

FaultInjection-v0 (registered only here, never listed) throws where it is told to: in reset,
step, seed or render, of one env or all, on the pool's workers or on the thread that waits in
recv() (the caller, or XLA's thread under xla()). Every scenario runs in a child process, so
that an abort or a hang fails its test instead of the suite: the child must exit 0 within its
time limit after checking what it saw.
"""

from __future__ import annotations

import resource
import subprocess
import sys
import textwrap
from pathlib import Path

import gymnasium
import numpy as np
import pytest

import envpool_core as ep

FAULT = ep.registry.register_fault_injection_task()
MUJOCO_ASSETS = Path(gymnasium.__file__).parent / "envs" / "mujoco" / "assets"

# The child's common part: the task, a pool made with the scenario's options, and a check
# that every later call raises EnvError naming the first failure until close().
PRELUDE = """
import numpy as np, envpool_core as ep
from envpool_core.registry import register_fault_injection_task
task = register_fault_injection_task()

def expect_env_error(call, *texts):
    try:
        call()
    except ep.EnvError as e:
        for text in texts:
            assert text in str(e), (text, str(e))
        return str(e)
    raise AssertionError(f"no EnvError from {call}")

def expect_broken(pool, first):
    # Every later call raises the first failure's error, and close() still works.
    space = pool.single_action_space
    action = np.zeros((pool.batch_size, *space.shape), space.dtype)
    for call in (pool.reset, pool.async_reset, pool.recv, lambda: pool.send(action),
                 lambda: pool.render(np.arange(1))):
        assert expect_env_error(call, "close() it and make a new one") == first
    pool.close()
    pool.close()
"""


def run_child(code: str, timeout: float = 120, prelude: str = PRELUDE) -> str:
    """Runs `code` after `prelude` in a new interpreter; returns its stdout. The child must
    exit 0 within `timeout` seconds: an abort, a crash or a hang fails the test."""
    try:
        out = subprocess.run([sys.executable, "-c", prelude + textwrap.dedent(code)],
                             capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired as e:
        pytest.fail(f"the child hung for {timeout} s: {e.stdout!r} {e.stderr!r}")
    assert out.returncode == 0, f"exit code {out.returncode}\n{out.stdout}\n{out.stderr}"
    return out.stdout


# Each step and reset sleeps 1 ms, so that the workers and the caller both get envs to step.
SYNC = """
pool = ep.make(task, num_envs=16, num_threads={threads}, fail_in={fail_in!r}, fail_env_id=-1,
               fail_after={after}, fail_on_thread={thread!r}, sleep_us=1000, episode_length=3)
def run():
    pool.reset()
    for _ in range(200):
        pool.step(np.ones(16, np.int32))
first = expect_env_error(run, "of FaultInjection-v0 failed in {fail_in}:",
                         "injected fault in {fail_in}")
expect_broken(pool, first)
"""

ASYNC = """
pool = ep.make(task, num_envs=16, batch_size=4, num_threads={threads}, fail_in={fail_in!r},
               fail_env_id=-1, fail_after={after}, fail_on_thread={thread!r}, sleep_us=1000,
               episode_length=3)
def run():
    pool.async_reset()
    for _ in range(400):
        info = pool.recv()[-1]
        pool.send(np.ones(4, np.int32), info["env_id"])
first = expect_env_error(run, "of FaultInjection-v0 failed in {fail_in}:",
                         "injected fault in {fail_in}")
expect_broken(pool, first)
"""

# Under xla() the rows are stepped by the workers and by XLA's thread, which waits in recv.
XLA = """
import jax
pool = ep.make(task, num_envs=16, num_threads={threads}, fail_in={fail_in!r}, fail_env_id=-1,
               fail_after={after}, fail_on_thread={thread!r}, sleep_us=1000, episode_length=3)
handle, recv, send, step = pool.xla()
pool.async_reset()
handle, _ = jax.jit(recv)(handle)
body = jax.jit(lambda h: step(h, jax.numpy.ones(16, jax.numpy.int32)))
try:
    for _ in range(200):
        handle, _ = body(handle)
        jax.block_until_ready(handle)
    raise AssertionError("no error from xla() step")
except Exception as e:  # JAX's runtime error carries the engine's message
    assert "of FaultInjection-v0 failed in {fail_in}:" in str(e), str(e)
    assert "injected fault in {fail_in}" in str(e), str(e)
    first = str(e)
try:
    body(handle)
    raise AssertionError("a broken pool stepped under xla()")
except Exception as e:
    assert "close() it and make a new one" in str(e), str(e)
pool.close()
"""

MODES = {"sync": SYNC, "async": ASYNC, "xla": XLA}


@pytest.mark.parametrize("mode", sorted(MODES))
@pytest.mark.parametrize("fail_in", ["reset", "step"])
@pytest.mark.parametrize("thread", ["worker", "caller"])
def test_an_env_that_throws_breaks_the_pool_with_its_error(mode: str, fail_in: str,
                                                           thread: str) -> None:
    # A reset fails on its 4th call: an auto-reset, in the middle of stepping.
    after = 3 if fail_in == "reset" else 5
    run_child(MODES[mode].format(threads=1, fail_in=fail_in, after=after, thread=thread))


def test_an_exception_of_any_type_is_caught() -> None:
    run_child("""
    pool = ep.make(task, num_envs=4, fail_in="step", fail_with="non_std")
    pool.reset()
    first = expect_env_error(lambda: pool.step(np.zeros(4, np.int32)),
                             "failed in step: an exception that is not a std::exception")
    expect_broken(pool, first)
    """)


def test_a_failing_render_raises_and_the_pool_goes_on() -> None:
    run_child("""
    pool = ep.make(task, num_envs=4, num_threads=2, fail_in="render", fail_env_id=2)
    pool.reset()
    expect_env_error(lambda: pool.render(np.array([1, 2])),
                     "env 2 of FaultInjection-v0 failed in render: injected fault in render")
    # Rendering leaves the envs as they were: the pool steps and renders on.
    pool.step(np.zeros(4, np.int32))
    frames = pool.render(np.array([3, 2, 1]))
    assert [int(f[0, 0, 0]) for f in frames] == [3, 2, 1]
    pool.close()
    """)


def test_a_failing_reseed_breaks_the_pool() -> None:
    run_child("""
    pool = ep.make(task, num_envs=4, fail_in="seed", fail_env_id=1)
    pool.reset()
    first = expect_env_error(lambda: pool.reset(seed=3),
                             "env 1 of FaultInjection-v0 failed in reset")
    expect_broken(pool, first)
    """)


def test_a_mujoco_error_is_the_envs_exception(tmp_path: Path) -> None:
    # A model whose arena is too small for the hopper's first contacts: MuJoCo raises an error
    # (mju_error, "mj_stackAlloc: out of memory") in mj_step a few steps in, whose default
    # handler ends the process.
    xml = (MUJOCO_ASSETS / "hopper.xml").read_text()
    xml = xml.replace('<mujoco model="hopper">', '<mujoco model="hopper"><size memory="4K"/>')
    (tmp_path / "small_arena_hopper.xml").write_text(xml)
    out = run_child(f"""
    pool = ep.make("Hopper-v4", num_envs=4, num_threads=2,
                   xml_file={str(tmp_path / "small_arena_hopper.xml")!r})
    def run():
        pool.reset()
        for _ in range(100):
            pool.step(np.zeros((4, 3)))
    first = expect_env_error(run, "of Hopper-v4 failed in step: MuJoCo error in mj_step:",
                             "mj_stackAlloc: out of memory")
    expect_broken(pool, first)
    print(first)
    """)
    assert "increase <size memory" in out  # MuJoCo's own advice reaches the user


def _edited_hopper(tmp_path: Path, name: str, old: str, new: str) -> str:
    path = tmp_path / name
    path.write_text((MUJOCO_ASSETS / "hopper.xml").read_text().replace(old, new, 1))
    return str(path)


def test_a_mujoco_error_while_compiling_is_an_error_at_make(tmp_path: Path) -> None:
    # An arena too small for the compiler's own forward pass: MuJoCo's compiler traps that
    # engine error itself and returns it as a value (no longjmp over its C++ frames).
    xml = _edited_hopper(tmp_path, "tiny_arena_hopper.xml", '<mujoco model="hopper">',
                         '<mujoco model="hopper"><size memory="1K"/>')
    out = run_child(f"""
    try:
        ep.make("Hopper-v4", num_envs=1, xml_file={xml!r})
    except ValueError as e:
        print(e)
    """)
    assert "cannot load MuJoCo model" in out and "mj_stackAlloc: out of memory" in out


def test_a_mujoco_error_in_mj_makeData_is_an_error_at_make(tmp_path: Path) -> None:
    # Each env's mjData reserves a 1 GB arena; with the address space capped, the second
    # mj_makeData fails, and MuJoCo raises an error (mju_error) that ended the process.
    xml = _edited_hopper(tmp_path, "huge_arena_hopper.xml", '<mujoco model="hopper">',
                         '<mujoco model="hopper"><size memory="1G"/>')
    out = run_child(f"""
    import resource
    ep.make("Hopper-v4", num_envs=1, xml_file={xml!r}).close()  # compiled and cached
    status = open("/proc/self/status").read().split("VmSize:")[1].split()[0]
    limit = int(status) * 1024 + (3 << 29)  # room for one more arena, not two
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    try:
        ep.make("Hopper-v4", num_envs=4, num_threads=1, xml_file={xml!r})
    except ep.EnvError as e:
        print(e)
    """)
    assert ("of Hopper-v4 failed in make: MuJoCo error in mj_makeData: Could not allocate memory"
            in out)


def test_a_mujoco_error_in_mj_copyModel_is_an_error_at_make(tmp_path: Path) -> None:
    # The Control Suite's tasks that change their model (finger's target, say) give each env a
    # copy of it. A 200 MB texture in finger.xml (read from a dm_control package made here)
    # makes each copy that large; with the address space capped, the second copy fails, and
    # MuJoCo raises an error (mju_error) that ended the process.
    import dm_control

    suite = Path(dm_control.__file__).parent / "suite"
    package = tmp_path / "dm_control"
    (package / "suite").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    for path in suite.iterdir():
        if path.name != "finger.xml":
            (package / "suite" / path.name).symlink_to(path)
    texture = ('<asset><texture name="huge" type="2d" builtin="checker" width="8192" '
               'height="8192" rgb1="0 0 0" rgb2="1 1 1"/></asset>')
    (package / "suite" / "finger.xml").write_text(
        (suite / "finger.xml").read_text().replace("<worldbody>", texture + "<worldbody>", 1))
    out = run_child(f"""
    import resource, sys
    sys.path.insert(0, {str(tmp_path)!r})
    import envpool_core as ep  # registers the Control Suite from the package above
    ep.make_dm("FingerSpin-v1", num_envs=1).close()  # compiled and cached
    status = open("/proc/self/status").read().split("VmSize:")[1].split()[0]
    limit = int(status) * 1024 + (300 << 20)  # room for one more copy, not two
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    try:
        ep.make_dm("FingerSpin-v1", num_envs=4, num_threads=1)
    except ep.EnvError as e:
        print(e)
    """, prelude="")
    assert ("of FingerSpin-v1 failed in make: MuJoCo error in mj_copyModel: Could not allocate"
            in out)


def test_a_mujoco_error_while_rendering_fails_that_render(tmp_path: Path) -> None:
    # More materials than MuJoCo's renderer takes: mjr_makeContext raises an error (mju_error)
    # on the worker that renders, which ended the process. Now that render() raises, and the
    # pool steps on; the next render() tries again and raises the same.
    materials = "".join(f'<material name="extra{i}"/>' for i in range(1001))
    xml = _edited_hopper(tmp_path, "many_materials_hopper.xml", "<asset>", "<asset>" + materials)
    out = run_child(f"""
    pool = ep.make("Hopper-v4", num_envs=2, num_threads=2, xml_file={xml!r},
                   render_width=32, render_height=32)
    pool.reset()
    for _ in range(2):
        print(expect_env_error(pool.render, "env 0 of Hopper-v4 failed in render: "
                               "MuJoCo error in mjr_makeContext:"))
        assert pool.step(np.zeros((2, 3)))[1].shape == (2,)
    pool.close()
    """)
    assert "maximum number of materials" in out


def test_a_mujoco_error_while_updating_the_scene_fails_that_render(tmp_path: Path) -> None:
    # A cloth of 100 x 100 vertices fixed to the world: stepping needs 157 kB of MuJoCo's
    # stack for it, drawing it 240 kB more (mjv_updateScene's smooth vertex normals). With a
    # 200 kB arena the hopper steps, and mjv_updateScene raises an error (mju_error) on the
    # worker that renders. render() raises, the pool steps on, and the frame the failed call
    # had marked on the env's stack is given back: failures in a row, in the same state, see
    # as much free stack as the first.
    cloth = ('<flexcomp name="cloth" type="grid" count="100 100 1" spacing="0.01 0.01 0.01" '
             'pos="0 0 2" dim="2" radius="0.001" rigid="true">'
             '<contact contype="0" conaffinity="0"/></flexcomp>')
    xml = _edited_hopper(tmp_path, "cloth_hopper.xml", "<worldbody>", "<worldbody>" + cloth)
    xml_text = Path(xml).read_text().replace('<mujoco model="hopper">',
                                             '<mujoco model="hopper"><size memory="200K"/>', 1)
    Path(xml).write_text(xml_text)
    run_child(f"""
    pool = ep.make("Hopper-v4", num_envs=2, num_threads=2, xml_file={xml!r},
                   render_width=32, render_height=32)
    pool.reset()
    for _ in range(2):
        for _ in range(50):
            assert pool.step(np.zeros((2, 3)))[1].shape == (2,)
        free = set()
        for _ in range(3):
            error = expect_env_error(pool.render, "env 0 of Hopper-v4 failed in render: "
                                     "MuJoCo error in mjv_updateScene:", "mjv_updateActiveFlex")
            free.add(error.split("available = ")[1].split(",")[0])
        assert len(free) == 1, free
    pool.close()
    """)


@pytest.mark.parametrize("task_id", ["Reacher-v4", "Reacher-v5"])
def test_a_model_without_a_body_the_task_needs_is_an_error_at_make(
    tmp_path: Path, task_id: str
) -> None:
    # mj_name2id's -1 for a missing name once indexed the model out of bounds.
    xml = tmp_path / "reacher_without_target.xml"
    reacher = (MUJOCO_ASSETS / "reacher.xml").read_text()
    xml.write_text(reacher.replace('<body name="target"', '<body name="goal"', 1))
    with pytest.raises(ValueError, match="MuJoCo model 'reacher' has no body named 'target', "
                                         "which the task needs"):
        ep.make(task_id, num_envs=1, xml_file=str(xml))


@pytest.mark.parametrize("num_envs, batch_size, threads", [(64, 64, 1), (64, 16, 2)])
def test_send_copies_the_actions(num_envs: int, batch_size: int, threads: int) -> None:
    # The throughput loop: fill one buffer, send it, refill it at once for the next batch.
    # Each env must step with what was sent to it (this task's reward is its action),
    # whoever steps it and whenever.
    pool = ep.make(FAULT, num_envs=num_envs, batch_size=batch_size, num_threads=threads,
                   num_actions=1000, sleep_us=200)
    rng = np.random.default_rng(0)
    buffer = np.zeros(batch_size, np.int32)
    sent = np.full(num_envs, -1)
    pool.async_reset()
    checked = 0
    for _ in range(100):
        _, reward, _, _, info = pool.recv()
        stepped = info["elapsed_step"] > 0
        np.testing.assert_array_equal(reward[stepped], sent[info["env_id"][stepped]])
        checked += stepped.sum()
        buffer[:] = rng.integers(0, 1000, batch_size)
        sent[info["env_id"]] = buffer
        pool.send(buffer, info["env_id"])
        buffer[:] = rng.integers(0, 1000, batch_size)  # the next batch's, before the envs step
    assert checked > 50 * batch_size
    pool.close()


def test_send_copies_the_actions_of_a_real_env() -> None:
    # 64 Pendulums, the buffer overwritten as soon as send() returns: the same observations
    # as a pool sent a copy it keeps.
    pools = [ep.make("Pendulum-v1", num_envs=64, num_threads=1, seed=3) for _ in range(2)]
    for pool in pools:
        pool.reset()
    rng = np.random.default_rng(0)
    buffer = np.zeros((64, 1), np.float32)
    for _ in range(20):
        buffer[:] = rng.uniform(-2, 2, (64, 1))
        kept = buffer.copy()
        pools[0].send(buffer)
        buffer[:] = 0.0
        got = pools[0].recv()[0]
        want = pools[1].step(kept)[0]
        np.testing.assert_array_equal(got, want)
    for pool in pools:
        pool.close()


def test_empty_send_is_a_no_op_and_keeps_no_memory() -> None:
    pool = ep.make("CartPole-v1", num_envs=4, batch_size=2)
    pool.async_reset()
    for _ in range(5000):  # warm up
        pool.send(np.zeros(0, np.int32), np.zeros(0, np.int32))
    start = _rss_mb()
    for _ in range(200_000):  # new arrays each time, as `actions[mask]` makes them
        pool.send(np.zeros(0, np.int32), np.zeros(0, np.int32))
    assert _rss_mb() - start < 4  # it kept each action array alive: 29 MiB here
    info = pool.recv()[-1]  # the pool steps on as if nothing was sent
    pool.send(np.zeros(2, np.int32), info["env_id"])
    pool.recv()
    pool.close()


def _rss_mb() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * resource.getpagesize() / 2**20


def test_worker_threads_that_cannot_start_are_an_error() -> None:
    # With the address space capped, thread stacks cannot be mapped beyond a few threads.
    out = run_child("""
    import resource
    used = int(open("/proc/self/statm").read().split()[0]) * resource.getpagesize()
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    resource.setrlimit(resource.RLIMIT_AS, (used + 256 * 2**20, hard))
    try:
        ep.make("CartPole-v1", num_envs=200, num_threads=200)
        raise AssertionError("200 threads started in 256 MiB")
    except RuntimeError as e:
        assert "cannot start worker thread" in str(e) and "fewer num_threads" in str(e), e
        print(e)
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))
    pool = ep.make("CartPole-v1", num_envs=4, num_threads=2)  # nothing was left behind
    pool.reset()
    pool.close()
    """)
    assert "cannot start worker thread" in out
    with pytest.raises(ValueError, match="num_threads"):
        ep.make("CartPole-v1", num_envs=2, num_threads=1025)


def test_render_copies_the_ids_it_is_given() -> None:
    # render() waits without the GIL while the workers render: a thread that changes the id
    # array meanwhile must not change (or break) what is rendered.
    run_child("""
    import threading, time
    pool = ep.make(task, num_envs=4, num_threads=1, sleep_us=100_000)
    pool.reset()
    ids = np.array([0, 1, 2, 3], np.int32)
    def scribble():
        time.sleep(0.05)  # render() has started: the first frame takes 0.1 s
        ids[:] = 1_000_000
    thread = threading.Thread(target=scribble)
    thread.start()
    frames = pool._pool.render(ids)  # the engine's call: no copy in Python
    thread.join()
    assert [int(f[0, 0, 0]) for f in frames] == [0, 1, 2, 3], frames[:, 0, 0, 0]
    pool.close()
    """)


def test_pools_left_open_are_closed_at_exit() -> None:
    # Worker threads still stepping while the interpreter shuts down (a module-level pool, one
    # in flight, one whose recv() a daemon thread is in) once crashed the exit.
    out = run_child("""
    import atexit
    pools = []
    # Registered before envpool_core's own handler, so it runs after it.
    atexit.register(lambda: print("closed:", [p.closed for p in pools], flush=True))
    import threading
    import numpy as np, envpool_core as ep
    from envpool_core.registry import register_fault_injection_task
    task = register_fault_injection_task()
    sync = ep.make("Hopper-v4", num_envs=8, num_threads=2)
    sync.reset()
    sync.send(np.zeros((8, 3)))  # in flight at exit
    looping = ep.make(task, num_envs=8, batch_size=2, num_threads=2, sleep_us=1000)
    looping.async_reset()
    def loop():
        try:
            while True:
                info = looping.recv()[-1]
                looping.send(np.zeros(2, np.int32), info["env_id"])
        except RuntimeError:
            pass  # closed at exit
    threading.Thread(target=loop, daemon=True).start()
    pools += [sync, looping]
    """, prelude="")
    assert out.strip() == "closed: [True, True]"


DAEMON_AT_EXIT = """
import threading, time, numpy as np, envpool_core as ep
pool = ep.make("CartPole-v1", num_envs=8, batch_size=2, num_threads=2)
pool.async_reset()
def loop():
    while True:
        info = pool.recv()[-1]
        pool.send(np.zeros(2, np.int32), info["env_id"])
threading.Thread(target=loop, daemon=True).start()
time.sleep(0.2)
"""


def test_a_daemon_thread_stepping_at_exit_does_not_abort_it() -> None:
    # A daemon thread that takes the GIL back while the interpreter finalizes is ended by
    # Python with pthread_exit, which aborted the process from inside recv() (5 runs in 8).
    for _ in range(4):
        run_child(DAEMON_AT_EXIT, prelude="")
