"""What the training scripts share has one form.

The scripts are single files on purpose, so what they have in common is repeated; these tests
keep the copies textually identical, so that `diff` between two scripts shows only their real
differences and a fix made in one copy cannot silently miss the others.
"""

from __future__ import annotations

import ast
from itertools import combinations
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
TORCH = ("ppo_atari_envpool", "ppo_atari_envpool_async", "ppo_mujoco_envpool")
ACTOR_LEARNER = ("impala_atari", "ppo_distributed")
JAX = (*ACTOR_LEARNER, "ppo_mujoco_envpool_xla_jax")
SCRIPTS = TORCH + JAX
# Same-named top-level functions and classes that differ on purpose, per pair of scripts.
INTENDED = {
    # The async file differs only where async stepping needs per-env bookkeeping.
    ("ppo_atari_envpool", "ppo_atari_envpool_async"): set(),
    # Atari and MuJoCo: different env options and networks.
    ("ppo_atari_envpool", "ppo_mujoco_envpool"): {"make_env", "Agent"},
    ("ppo_atari_envpool_async", "ppo_mujoco_envpool"): {"make_env", "Agent"},
    # IMPALA and PPO: different losses and learner updates.
    ("impala_atari", "ppo_distributed"): {"make_learner_update"},
    # The compiled MuJoCo script: a Gaussian policy, no actor threads, its own checkpoint.
    ("impala_atari", "ppo_mujoco_envpool_xla_jax"): {"make_env", "Agent", "evaluation_policy"},
    ("ppo_distributed", "ppo_mujoco_envpool_xla_jax"): {"make_env", "Agent",
                                                         "evaluation_policy"},
}


def definitions(name: str) -> dict[str, str]:
    """Source text of every top-level function and class of a script, by name."""
    lines = (ROOT / f"{name}.py").read_text().splitlines()
    tree = ast.parse("\n".join(lines))
    found = {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.ClassDef):
            start = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            found[node.name] = "\n".join(lines[start - 1 : node.end_lineno])
    return found


def args_fields(name: str) -> dict[str, str]:
    """Docstring of each field of a script's Args dataclass, by field name."""
    tree = ast.parse((ROOT / f"{name}.py").read_text())
    (args,) = [n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Args"]
    fields = {}
    for field, doc in zip(args.body, args.body[1:], strict=False):
        if (isinstance(field, ast.AnnAssign) and isinstance(doc, ast.Expr)
                and isinstance(doc.value, ast.Constant) and isinstance(doc.value.value, str)):
            fields[field.target.id] = " ".join(doc.value.value.split())
    return fields


@pytest.mark.parametrize(("first", "second"), list(combinations(SCRIPTS, 2)))
def test_shared_definitions_are_identical(first: str, second: str) -> None:
    ours, theirs = definitions(first), definitions(second)
    allowed = INTENDED.get((first, second), set())
    family = {first, second} <= set(TORCH) or {first, second} <= set(JAX)
    # Across PyTorch and JAX only the framework-free functions are compared.
    # Args differ in their defaults; their fields' docstrings are compared below.
    shared = (set(ours) & set(theirs)) - allowed - {"Args"}
    if not family:
        shared = {"update_episode_stats", "evaluate"}
    for name in sorted(shared):
        assert ours[name] == theirs[name], f"{name} differs between {first}.py and {second}.py"


@pytest.mark.parametrize("function", ["update_episode_stats", "evaluate"])
def test_episode_statistics_and_evaluation_in_every_script(function: str) -> None:
    texts = {name: definitions(name).get(function) for name in SCRIPTS}
    assert None not in texts.values(), [n for n, t in texts.items() if t is None]
    assert len(set(texts.values())) == 1


def test_make_env_has_one_signature() -> None:
    signatures = set()
    for name in SCRIPTS:
        tree = ast.parse((ROOT / f"{name}.py").read_text())
        (make_env,) = [n for n in tree.body
                       if isinstance(n, ast.FunctionDef) and n.name == "make_env"]
        signatures.add(ast.unparse(make_env.args))
    assert signatures == {"env_id, num_envs, batch_size, seed, max_episode_steps=None"}


# Flags whose meaning differs on purpose, and the scripts where it does.
INTENDED_FLAGS = {
    # The compiled MuJoCo script, with no reference to match, spreads its env seeds out
    # (seed * num_envs + i) so that runs of different seeds share no env stream.
    "seed": {"ppo_mujoco_envpool_xla_jax"},
    # It follows rl_games' Ant setting, which normalises advantages over the whole batch.
    "norm_adv": {"ppo_mujoco_envpool_xla_jax"},
}


def test_shared_flags_have_one_docstring() -> None:
    docs: dict[str, dict[str, str]] = {}
    for name in SCRIPTS:
        for field, doc in args_fields(name).items():
            if name not in INTENDED_FLAGS.get(field, set()):
                docs.setdefault(field, {})[name] = doc
    differing = {field: by_script for field, by_script in docs.items()
                 if len(set(by_script.values())) > 1}
    assert not differing, differing


@pytest.mark.parametrize("name", SCRIPTS)
def test_cleanrl_landmarks_and_one_exit_style(name: str) -> None:
    source = (ROOT / f"{name}.py").read_text()
    assert "# ALGO LOGIC" in source and "# TRY NOT TO MODIFY" in source
    tree = ast.parse(source)
    for node in ast.walk(tree):
        if isinstance(node, ast.Raise) and node.exc is not None:
            called = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
            assert not (isinstance(called, ast.Name) and called.id == "SystemExit"), \
                f"{name}.py line {node.lineno}: use sys.exit(f'error: ...')"
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr == "exit" and node.args):
            message = node.args[0]
            text = (message.value if isinstance(message, ast.Constant)
                    else ast.unparse(message))
            assert text in (0, "0") or str(text).lstrip("f'\"").startswith("error: "), \
                f"{name}.py line {node.lineno}: CLI errors read 'error: ...'"


def flag_checks(name: str) -> set[str]:
    """The up-front flag checks of a script: the source text of each (condition, message) pair
    of a `for condition, message in (...)` loop, and of each `if` on `args` alone whose body is
    one `sys.exit(...)`."""
    source = (ROOT / f"{name}.py").read_text()
    checks = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.For) and ast.unparse(node.target) == "(condition, message)":
            checks |= {ast.get_source_segment(source, check) for check in node.iter.elts}
        names = ({n.id for n in ast.walk(node.test) if isinstance(n, ast.Name)}
                 if isinstance(node, ast.If) else set())
        if (names == {"args"} and len(node.body) == 1 and not node.orelse
                and ast.unparse(node.body[0]).startswith("sys.exit(")):
            checks.add(ast.get_source_segment(source, node))
    return checks


@pytest.mark.parametrize("family", [TORCH, ACTOR_LEARNER], ids=["torch", "jax"])
def test_flag_checks_have_one_form(family: tuple[str, ...]) -> None:
    # The checks are inline in each script's main block, so the comparison of top-level
    # definitions above does not see them. The async file checks its own flag; IMPALA splits
    # minibatches over envs and PPO over samples, so that check differs between the JAX scripts.
    own = ("async_batch_size",) if family == TORCH else ("num_minibatches",)
    checks = {name: {text for text in flag_checks(name)
                     if not any(flag in text for flag in own)} for name in family}
    first, *others = family
    for other in others:
        assert checks[first] == checks[other], \
            f"flag checks differ: {first}.py {checks[first] - checks[other]}, " \
            f"{other}.py {checks[other] - checks[first]}"
    assert all(checks.values())
