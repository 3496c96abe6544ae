"""Runs EnvPool's own tests for the families envpool_core covers, unchanged, on both engines.

The test files are read from a local clone of EnvPool's repository (a work tree or a bare git
directory, read with `git show`) at a pinned commit, never copied into this repository. Each
file runs under pytest four times: on EnvPool 1.2.5 (the installed `envpool`) and on
envpool_core, each with gym installed and with gym hidden (`sys.modules["gym"] = None`, so
that `import gym` fails as where gym is not installed).

On envpool_core, `import envpool` finds a shim package written to a temporary folder: every
module the tests import (`envpool`, `envpool.registration`, `envpool.python.protocol`, ...)
re-exports envpool_core's names. What envpool_core lacks is a placeholder that raises
`NotImplementedError` naming it when a test uses it, so that only the tests that use it fail.
The registration modules hold the task tables the tests iterate over
(`reg.gym_mujoco_envs`), read from EnvPool's own registration files; `preload_windows_gl_dlls`
(which EnvPool's files call at import, and which does nothing off Windows) does nothing. No
assertion is changed. EnvPool's test helper `envpool/mujoco/pixel_observation_test_utils.py`
(not in EnvPool's wheel) is read from the clone too and made importable for both engines.

    python benchmark/envpool_test_suite.py --envpool /path/to/envpool-clone --out benchmark/results

writes envpool_test_suite.{json,md}: every test case's outcome on both engines.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

# EnvPool's repository at the commit of the 1.2.5 release's Python files ("Bump EnvPool
# assets to 0.3.0"; the installed 1.2.5 differs from it only in one asset-path override).
PINNED_COMMIT = "3c703cec6f59f2a370914ad4876b4bd32023bf3a"
TEST_FILES = [
    "envpool/make_test.py",
    "envpool/atari/api_test.py",
    "envpool/atari/atari_envpool_test.py",
    "envpool/classic_control/classic_control_test.py",
    "envpool/classic_control/classic_control_render_test.py",
    "envpool/mujoco/gym/mujoco_gym_align_test.py",
    "envpool/mujoco/gym/mujoco_gym_deterministic_test.py",
    "envpool/mujoco/gym/mujoco_gym_pixel_observation_test.py",
    "envpool/mujoco/gym/mujoco_render_test.py",
    "envpool/mujoco/dmc/mujoco_dmc_pixel_observation_test.py",
    "envpool/mujoco/dmc/mujoco_dmc_render_test.py",
    "envpool/mujoco/dmc/mujoco_dmc_suite_align_test.py",
    "envpool/mujoco/dmc/mujoco_dmc_suite_deterministic_test.py",
    "envpool/mujoco/dmc/mujoco_dmc_suite_ext_align_test.py",
    "envpool/mujoco/dmc/mujoco_dmc_suite_ext_deterministic_test.py",
]
# The files that read the infos of EnvPool's test build (-DENVPOOL_TEST), each episode's start
# state: on envpool_core they run with reset_state_in_info=True by default.
TEST_BUILD_FILES = [
    "envpool/mujoco/gym/mujoco_gym_align_test.py",
    "envpool/mujoco/gym/mujoco_render_test.py",
    "envpool/mujoco/dmc/mujoco_dmc_render_test.py",
    "envpool/mujoco/dmc/mujoco_dmc_suite_align_test.py",
    "envpool/mujoco/dmc/mujoco_dmc_suite_ext_align_test.py",
]
HELPERS = {"envpool/mujoco/pixel_observation_test_utils.py": "envpool.mujoco"}
REGISTRATIONS = ["envpool/atari/registration.py", "envpool/classic_control/registration.py",
                 "envpool/mujoco/gym/registration.py", "envpool/mujoco/dmc/registration.py"]
ENGINES = ("envpool", "envpool_core")
GYM_MODES = ("installed", "hidden")

# The shim: module name -> names it re-exports from envpool_core ("*": all of them).
SHIM_MODULES = {
    "envpool": ["*"],
    "envpool.registration": ["make", "make_dm", "make_gym", "make_gymnasium", "make_spec",
                             "list_all_envs", "registry"],
    "envpool.python": [],
    "envpool.python.protocol": ["DMEnvPool", "EnvPool", "EnvSpec", "GymnasiumEnvPool"],
    "envpool.atari": ["AtariEnvSpec"],
    "envpool.atari.atari_envpool": ["_AtariEnvPool", "_AtariEnvSpec"],
    "envpool.classic_control": [],
    "envpool.mujoco": [],
    "envpool.mujoco.gym": [],
    "envpool.mujoco.dmc": [],
}
SHIM_HEADER = '''"""Shim: envpool_core under EnvPool's module name {name!r}, for EnvPool's tests."""
import os

import envpool_core as _core

_NAMES = {names!r}


class _Missing:
    def __init__(self, name):
        self._name = name

    def _fail(self, *args, **kwargs):
        raise NotImplementedError(f"envpool_core has no {name}.{{self._name}}")

    __call__ = __getattr__ = _fail


if _NAMES == ["*"]:
    from envpool_core import *  # noqa: F403
    __all__ = _core.__all__
    __version__ = _core.__version__
else:
    for _n in _NAMES:
        globals()[_n] = getattr(_core, _n) if hasattr(_core, _n) else _Missing(_n)

if os.environ.get("ENVPOOL_TEST_SUITE_TEST_BUILD") == "1":
    # EnvPool's test build (-DENVPOOL_TEST) puts each episode's start state in info; here
    # that is reset_state_in_info=True, on the tasks that have the option.
    def _test_build(make):
        def made(task_id, *args, **kwargs):
            if "reset_state_in_info" in _core.EnvSpec(task_id).config_dict:
                kwargs.setdefault("reset_state_in_info", True)
            return make(task_id, *args, **kwargs)

        return made

    for _n in ("make", "make_dm", "make_gym", "make_gymnasium", "make_spec"):
        if callable(globals().get(_n)) and not isinstance(globals()[_n], _Missing):
            globals()[_n] = _test_build(globals()[_n])
'''
CONFTEST = '''"""Hides gym where asked; makes EnvPool's test helpers importable (envpool.mujoco)."""
import os
import sys

if os.environ.get("ENVPOOL_TEST_SUITE_HIDE_GYM") == "1":
    sys.modules["gym"] = None  # `import gym` raises ImportError, find_spec("gym") is None

_helpers = os.environ.get("ENVPOOL_TEST_SUITE_HELPERS")
if _helpers:
    import envpool.mujoco

    envpool.mujoco.__path__.append(os.path.join(_helpers, "envpool", "mujoco"))
'''


def git_show(repo: Path, commit: str, path: str) -> str:
    return subprocess.run(["git", "-C", str(repo), "show", f"{commit}:{path}"], check=True,
                          capture_output=True, text=True).stdout


def literal_tables(source: str) -> str:
    """The module-level assignments of `source` whose values are literals (the task tables)."""
    lines = []
    for node in ast.parse(source).body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 \
                and isinstance(node.targets[0], ast.Name):
            try:
                ast.literal_eval(node.value)
            except ValueError:
                continue
            lines.append(ast.unparse(node))
    return "\n".join(lines) + "\n"


def write_shim(repo: Path, commit: str, root: Path, env: dict[str, str]) -> None:
    """The `envpool` package that re-exports envpool_core (as `env` imports it), under
    `root`."""
    for name, names in SHIM_MODULES.items():
        path = root.joinpath(*name.split("."), "__init__.py")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(SHIM_HEADER.format(name=name, names=names))
    (root / "envpool" / "python" / "glfw_context.py").write_text(
        '"""Shim: EnvPool\'s Windows OpenGL DLL loader, which does nothing elsewhere."""\n\n\n'
        "def preload_windows_gl_dlls(*, prepend_path=True, strict=False):\n    return None\n")
    # envpool_core's PEP 561 marker, which EnvPool's typing test looks for beside the package.
    marker = subprocess.run(
        [sys.executable, "-c", "import envpool_core, pathlib; "
         "print(pathlib.Path(envpool_core.__file__).with_name('py.typed').is_file())"],
        capture_output=True, text=True, env=env, cwd=root).stdout.strip()
    if marker == "True":
        (root / "envpool" / "py.typed").write_text("")
    for reg in REGISTRATIONS:
        tables = literal_tables(git_show(repo, commit, reg))
        (root / reg).write_text(f'"""Shim: the task tables of EnvPool\'s {reg}."""\n{tables}')


def write_helpers(repo: Path, commit: str, root: Path) -> None:
    for path in HELPERS:
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(git_show(repo, commit, path))


def test_file_name(path: str) -> str:
    """`envpool/atari/api_test.py` -> `atari__api_test.py` (unique, flat)."""
    return "__".join(Path(path).parts[1:])


def run_file(work: Path, name: str, env: dict[str, str], timeout: float) -> list[dict]:
    """Runs one test file under pytest; one record per test case. Where the process dies
    (EnvPool aborts on some misuse), each test case runs alone, so the others still count."""
    cases = run_pytest(work, name, [name], env, timeout)
    if cases[0]["outcome"] != "crashed":
        return cases
    listing = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "--collect-only", name],
        cwd=work, env=env, capture_output=True, text=True, timeout=timeout).stdout
    ids = [line.strip() for line in listing.splitlines() if line.startswith(f"{name}::")]
    cases = []
    for test_id in ids:
        one = run_pytest(work, name, [test_id], env, timeout)
        if one[0]["outcome"] == "crashed":
            one = [{**one[0], "test": ".".join(test_id.split("::")[1:])}]
        cases += one
    return cases


def run_pytest(work: Path, name: str, targets: list[str], env: dict[str, str],
               timeout: float) -> list[dict]:
    report = work / f"{name}.xml"
    report.unlink(missing_ok=True)
    start = time.time()
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q",
             f"--junitxml={report}", "-o", "timeout=600", *targets],
            cwd=work, env=env, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return [{"test": "*", "outcome": "timeout", "reason": f"ran past {timeout} s",
                 "seconds": round(time.time() - start, 1)}]
    if not report.exists():
        output = (proc.stdout + proc.stderr).strip().splitlines()
        return [{"test": "*", "outcome": "crashed",
                 "reason": f"the process died (exit status {proc.returncode}): "
                           + (output[-1][:200] if output else "no output"),
                 "seconds": round(time.time() - start, 1)}]
    cases = []
    for case in ET.parse(report).getroot().iter("testcase"):
        outcome, reason = "passed", ""
        for kind in ("failure", "error", "skipped"):
            node = case.find(kind)
            if node is not None:
                outcome = {"failure": "failed"}.get(kind, kind)
                reason = first_line(node.get("message") or node.text or "")
                break
        cases.append({"test": f"{case.get('classname', '').split('.')[-1]}.{case.get('name')}",
                      "outcome": outcome, "reason": reason,
                      "seconds": float(case.get("time") or 0.0)})
    return cases


def first_line(message: str) -> str:
    line = next((ln.strip() for ln in message.splitlines() if ln.strip()), "")
    return line[:300]


def run_engine(repo: Path, commit: str, engine: str, gym_mode: str, files: list[str],
               timeout: float, results: dict[str, list[dict]], save: Any) -> None:
    """Runs `files` on `engine` into `results` (file -> test cases), calling `save()` after
    each file, so that a long run's finished files are kept."""
    with tempfile.TemporaryDirectory(prefix=f"envpool-tests-{engine}-") as tmp:
        work = Path(tmp)
        (work / "pytest.ini").write_text("[pytest]\n")
        (work / "conftest.py").write_text(CONFTEST)
        env = dict(os.environ)
        env["ENVPOOL_TEST_SUITE_HIDE_GYM"] = "1" if gym_mode == "hidden" else "0"
        if engine == "envpool_core":
            write_shim(repo, commit, work / "shim", {**env, "PYTHONPATH": env_path()})
            write_helpers(repo, commit, work / "shim")
            env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(work / "shim"), env_path()]))
        else:
            write_helpers(repo, commit, work / "helpers")
            env["ENVPOOL_TEST_SUITE_HELPERS"] = str(work / "helpers")
        for path in files:
            name = test_file_name(path)
            (work / name).write_text(git_show(repo, commit, path))
            test_build = "1" if engine == "envpool_core" and path in TEST_BUILD_FILES else "0"
            results[path] = run_file(work, name, {**env, "ENVPOOL_TEST_SUITE_TEST_BUILD":
                                                  test_build}, timeout)
            passed = sum(c["outcome"] == "passed" for c in results[path])
            print(f"{engine:12s} gym {gym_mode:9s} {path}: {passed}/{len(results[path])} "
                  "passed", flush=True)
            save()


def env_path() -> str:
    """PYTHONPATH with absolute entries: the tests run in a temporary folder."""
    given = os.environ.get("PYTHONPATH", "").split(os.pathsep)
    return os.pathsep.join(os.path.abspath(p) for p in given if p)


def engine_version(engine: str) -> str:
    """The version and location of the package the tests of `engine` import."""
    code = f"import {engine}; print({engine}.__version__, {engine}.__file__)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=tempfile.gettempdir(), env={**os.environ, "PYTHONPATH": env_path()})
    return out.stdout.strip() or out.stderr.strip()[-200:]


def write_markdown(results: dict, meta: dict, out: Path) -> None:
    runs = list(results)
    lines = [
        "# EnvPool's own tests on EnvPool 1.2.5 and on envpool_core",
        "",
        f"EnvPool's test files at commit `{meta['commit']}`, run unchanged with pytest "
        "(`benchmark/envpool_test_suite.py`); on envpool_core `import envpool` is a shim that "
        "re-exports envpool_core. Machine: " + meta["machine"] + ".",
        "",
        *[f"- {note}" for note in meta.get("notes", [])],
        "",
        "| run | files run | passed | failed | error | skipped | timeout | crashed |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for run in runs:
        cases = [c for f in results[run].values() for c in f]
        counts = [sum(c["outcome"] == k for c in cases)
                  for k in ("passed", "failed", "error", "skipped", "timeout", "crashed")]
        files_run = f"{len(results[run])} of {len(meta['files'])}"
        lines.append(f"| {run} | {files_run} | " + " | ".join(map(str, counts)) + " |")
    lines += ["", "Per test case (P passed, F failed, E error, S skipped, T timeout, C the process "
              "died, - not run):", "",
              "| test | " + " | ".join(runs) + " | why it fails on envpool_core |",
              "|---|" + "---|" * len(runs) + "---|"]
    letter = {"passed": "P", "failed": "F", "error": "E", "skipped": "S", "timeout": "T",
              "crashed": "C"}
    for path in meta["files"]:
        names: list[str] = []
        for run in runs:
            for c in results[run].get(path, []):
                if c["test"] not in names:
                    names.append(c["test"])
        for name in names:
            row, why = [], ""
            for run in runs:
                case = next((c for c in results[run].get(path, []) if c["test"] in (name, "*")),
                            None)
                row.append(letter[case["outcome"]] if case else "-")
                if case and case["outcome"] != "passed" and run.startswith("envpool_core") \
                        and not why:
                    why = case["reason"].replace("|", "\\|")
            short = path.removeprefix("envpool/")
            lines.append(f"| `{short}::{name}` | " + " | ".join(row) + f" | {why} |")
    out.write_text("\n".join(lines) + "\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--envpool", type=Path, required=True,
                        help="a clone of github.com/sail-sg/envpool (work tree or git dir)")
    parser.add_argument("--commit", default=PINNED_COMMIT)
    parser.add_argument("--engines", nargs="*", default=list(ENGINES), choices=ENGINES,
                        help="none: only merge the --keep files")
    parser.add_argument("--gym", nargs="+", default=list(GYM_MODES), choices=GYM_MODES)
    parser.add_argument("--files", nargs="+", default=TEST_FILES,
                        help="test files, as paths in EnvPool's repository")
    parser.add_argument("--timeout", type=float, default=1800, help="seconds per test file")
    parser.add_argument("--out", type=Path, default=Path("benchmark/out"))
    parser.add_argument("--keep", type=Path, nargs="*", default=[],
                        help="earlier envpool_test_suite.json files to update: their runs and "
                             "files that are not rerun are kept")
    parser.add_argument("--note", action="append", default=[],
                        help="a line for the results page (how the runs were made)")
    args = parser.parse_args()
    results: dict = {}
    kept_versions: dict = {}
    files = list(args.files)
    for path in args.keep:
        earlier = json.loads(path.read_text())
        for run, run_files in earlier["results"].items():
            results.setdefault(run, {}).update(run_files)
        kept_versions.update(earlier["meta"]["versions"])
        files += [f for f in earlier["meta"]["files"] if f not in files]
    files.sort(key=lambda f: TEST_FILES.index(f) if f in TEST_FILES else len(TEST_FILES))
    notes = list(args.note)
    for path in args.keep:
        earlier_notes = json.loads(path.read_text())["meta"].get("notes", [])
        notes += [n for n in earlier_notes if n not in notes]
    meta = {"commit": args.commit, "files": files, "notes": notes,
            "machine": f"{platform.machine()}, {os.cpu_count()} CPUs, Python "
                       f"{platform.python_version()}",
            "versions": {**kept_versions, **{e: engine_version(e) for e in args.engines}}}
    args.out.mkdir(parents=True, exist_ok=True)

    def save() -> None:
        (args.out / "envpool_test_suite.json").write_text(
            json.dumps({"meta": meta, "results": results}, indent=1) + "\n")
        write_markdown(results, meta, args.out / "envpool_test_suite.md")

    for engine in args.engines:
        for gym_mode in args.gym:
            # With --keep, the files rerun replace theirs; the others stay.
            run = results.setdefault(f"{engine} (gym {gym_mode})", {})
            run_engine(args.envpool, args.commit, engine, gym_mode, args.files, args.timeout,
                       run, save)
    save()
    print(f"wrote {args.out / 'envpool_test_suite.md'}")


if __name__ == "__main__":
    main()
