"""Runs CleanRL's own EnvPool scripts on envpool_core, with only the import line changed.

Each script is read from a CleanRL checkout (a work tree, or a git directory read with
`git show`), `import envpool` becomes `import envpool_core as envpool`, and the copy runs
for a tiny budget (a few iterations, few envs, on CPU). Pass means exit status 0 after the
iterations asked for. The results go to cleanrl_clients.{json,md} in benchmark/out/
(git-ignored; --out benchmark/results for the committed figures).

    python benchmark/cleanrl_clients.py --cleanrl /path/to/cleanrl

A failure whose cause is in the script itself, not in envpool_core (an API that the
installed flax or JAX no longer has), is run again with that line fixed (SCRIPT_FIXES,
applied one at a time as each cause shows up), and both runs are recorded, so the table
says what envpool_core does for the script.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

IMPORT_LINE = "import envpool\n"
OUR_IMPORT = "import envpool_core as envpool\n"
SMALL = ["--num-envs", "4", "--num-steps", "32", "--total-timesteps", "256",
         "--num-minibatches", "2", "--update-epochs", "1", "--seed", "1"]
SCRIPTS = {
    "ppo_atari_envpool.py": [*SMALL, "--no-cuda"],
    "ppo_atari_envpool_xla_jax.py": SMALL,
    "ppo_atari_envpool_xla_jax_scan.py": SMALL,
    "ppo_rnd_envpool.py": [*SMALL, "--no-cuda", "--num-iterations-obs-norm-init", "1",
                           "--env-id", "MontezumaRevenge-v5"],
    "pqn_atari_envpool.py": [*SMALL, "--no-cuda"],
    "pqn_atari_envpool_lstm.py": [*SMALL, "--no-cuda"],
}
# Script-side fixes for APIs changed in the libraries the scripts import (not envpool's):
# (error text that identifies the cause, old text, new text, what and why).
SCRIPT_FIXES = [
    ("argument of type 'AgentParams' is not iterable", "class AgentParams:\n",
     "class AgentParams:\n    __contains__ = lambda self, key: False\n",
     "`AgentParams.__contains__` returning False: flax >= 0.10's `TrainState.create` "
     "tests `OVERWRITE_WITH_GRADIENT in params`, which a flax.struct.dataclass does not support"),
    ("module 'jax' has no attribute 'tree_map'", "jax.tree_map(", "jax.tree.map(",
     "`jax.tree_map(` -> `jax.tree.map(`: jax.tree_map was removed in JAX 0.6"),
]


def read_script(cleanrl: Path, name: str) -> str:
    path = cleanrl / "cleanrl" / name
    if path.exists():
        return path.read_text()
    return subprocess.run(["git", "-C", str(cleanrl), "show", f"HEAD:cleanrl/{name}"],
                          check=True, capture_output=True, text=True).stdout


def run_one(source: str, name: str, args: list[str], workdir: Path, timeout: float) -> dict:
    script = workdir / name
    script.write_text(source)
    start = time.time()
    env = dict(os.environ, OMP_NUM_THREADS="1", JAX_PLATFORMS="cpu", WANDB_MODE="disabled")
    try:
        proc = subprocess.run([sys.executable, str(script), *args], cwd=workdir, env=env,
                              capture_output=True, text=True, timeout=timeout)
        code, out = proc.returncode, proc.stdout + proc.stderr
    except subprocess.TimeoutExpired as e:
        code = -1
        out = f"{e.stdout or ''}{e.stderr or ''}\ntimed out after {timeout} s"
    iterations = len(re.findall(r"^SPS:", out, flags=re.M))
    lines = [line for line in out.strip().splitlines() if line.strip()]
    error = "" if code == 0 else (lines[-1] if lines else f"exit status {code}")
    return {"passed": code == 0, "exit_status": code, "iterations": iterations,
            "env_steps": iterations * 4 * 32, "seconds": round(time.time() - start, 1),
            "error": error, "output_tail": "\n".join(lines[-25:])}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cleanrl", type=Path, required=True,
                        help="CleanRL checkout (work tree or git directory)")
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "out",
                        help="output folder (default: benchmark/out/, git-ignored)")
    parser.add_argument("--timeout", type=float, default=900)
    parser.add_argument("--only", nargs="*", default=None, help="script names to run")
    args = parser.parse_args()
    import envpool_core

    commit = subprocess.run(["git", "-C", str(args.cleanrl), "rev-parse", "HEAD"],
                            capture_output=True, text=True).stdout.strip()
    results = {"cleanrl_commit": commit, "envpool_core": str(Path(envpool_core.__file__).parent),
               "change": f"{IMPORT_LINE.strip()!r} -> {OUR_IMPORT.strip()!r}", "scripts": {}}
    with tempfile.TemporaryDirectory() as tmp:
        for name, script_args in SCRIPTS.items():
            if args.only and name not in args.only:
                continue
            source = read_script(args.cleanrl, name)
            if source.count(IMPORT_LINE) != 1:
                raise SystemExit(f"{name}: expected one {IMPORT_LINE!r}")
            source = source.replace(IMPORT_LINE, OUR_IMPORT)
            result = run_one(source, name, script_args, Path(tmp), args.timeout)
            result["args"] = " ".join(script_args)
            fixes: list[str] = []
            latest = result
            for cause, old, new, why in SCRIPT_FIXES:
                if not latest["passed"] and cause in latest["output_tail"]:
                    source = source.replace(old, new)
                    fixes.append(why)
                    latest = run_one(source, name, script_args, Path(tmp), args.timeout)
                    latest["script_fixes"] = list(fixes)
                    result["with_script_fixes"] = latest
            results["scripts"][name] = result
            status = "pass" if result["passed"] else "FAIL: " + result["error"]
            print(f"{name}: {status} ({result['iterations']} iterations, {result['seconds']} s)",
                  flush=True)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "cleanrl_clients.json").write_text(json.dumps(results, indent=2) + "\n")
    rows = ["| script | import line changed only | with script-side fixes | iterations | "
            "env steps | seconds | note |", "|---|---|---|---|---|---|---|"]
    for name, r in results["scripts"].items():
        final, note = r, r["error"]
        fixed = "—"
        if "with_script_fixes" in r:
            final = r["with_script_fixes"]
            fixed = "pass" if final["passed"] else "FAIL"
            note += (f" (before any env step). Fixed in the script: "
                     f"{'; '.join(final['script_fixes'])}.")
            if not final["passed"]:
                note += f" Then: {final['error']}"
        rows.append(f"| {name} | {'pass' if r['passed'] else 'FAIL'} | {fixed} | "
                    f"{final['iterations']} | {final['env_steps']} | {final['seconds']} | "
                    f"{note} |")
    passed = sum(r["passed"] for r in results["scripts"].values())
    fixed_passed = sum(r.get("with_script_fixes", {}).get("passed", False)
                       for r in results["scripts"].values())
    (args.out / "cleanrl_clients.md").write_text(
        f"# CleanRL's EnvPool scripts on envpool_core\n\n"
        f"CleanRL commit `{commit}`; the only change to each script: {results['change']}.\n"
        f"Budget: `{' '.join(SMALL)}` (CPU). Produced by `benchmark/cleanrl_clients.py`.\n\n"
        f"**{passed} of {len(results['scripts'])} pass with only the import line changed; "
        f"{passed + fixed_passed} of {len(results['scripts'])} with the script-side fixes "
        f"listed** (for library APIs the scripts use that changed since they were written; "
        f"none concerns envpool).\n\n" + "\n".join(rows) + "\n")


if __name__ == "__main__":
    main()
