"""The README's, CHANGELOG's and docs/'s relative links and images point at files that exist,
and their #anchors at headings of the file they name (GitHub's heading slugs); the README and
docs/ speak of the project, not of how it was made."""

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
USER_DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
DOCS = [*USER_DOCS, ROOT / "CHANGELOG.md"]
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")
# Process language: where the work was tracked or who did it, not what the project does. A
# figure's provenance is its command and results file, not a commit.
PROCESS_WORDS = re.compile(
    r"\bissue \d+|\bissues? \d+'s|\bthis round\b|\bround's (files?|code)|\bsessions?\b"
    r"|DESIGN(\.md| §)|\bcommit [0-9a-f]{7,40}\b|\(([0-9a-f]{7,40})\)|\bthis work\b",
    re.IGNORECASE,
)


def heading_slugs(markdown: str) -> set[str]:
    """GitHub's anchors for the headings of a Markdown file: lower case, punctuation dropped,
    spaces as hyphens, a repeated slug numbered -1, -2, ..."""
    slugs: set[str] = set()
    in_code = False
    for line in markdown.splitlines():
        if line.startswith("```"):
            in_code = not in_code
        if in_code or not line.startswith("#"):
            continue
        slug = re.sub(r"[^\w\- ]", "", line.lstrip("#").strip().lower()).replace(" ", "-")
        numbered, n = slug, 0
        while numbered in slugs:
            n += 1
            numbered = f"{slug}-{n}"
        slugs.add(numbered)
    return slugs


def relative_links(path: Path) -> list[tuple[int, str]]:
    """(line number, target) of each link or image outside code blocks that is not a URL."""
    links, in_code = [], False
    for number, line in enumerate(path.read_text().splitlines(), 1):
        if line.startswith("```"):
            in_code = not in_code
        if in_code:
            continue
        for target in LINK.findall(re.sub(r"`[^`]*`", "", line)):
            if not re.match(r"[a-z]+:", target):
                links.append((number, target))
    return links


def test_slugs_are_githubs() -> None:
    assert heading_slugs("# Training speed and scores\n## `xla()` in JAX\n## A\n## A") == {
        "training-speed-and-scores",
        "xla-in-jax",
        "a",
        "a-1",
    }


@pytest.mark.parametrize("doc", DOCS, ids=lambda path: path.name)
def test_relative_links_resolve(doc: Path) -> None:
    broken = []
    for number, target in relative_links(doc):
        file_part, _, anchor = target.partition("#")
        linked = (doc.parent / file_part).resolve() if file_part else doc
        if not linked.exists():
            broken.append(f"{doc.name}:{number}: {target} (no such file)")
        elif anchor and linked.suffix == ".md" and anchor not in heading_slugs(linked.read_text()):
            broken.append(f"{doc.name}:{number}: {target} (no such heading)")
    assert not broken, "\n".join(broken)


@pytest.mark.parametrize("doc", USER_DOCS, ids=lambda path: path.name)
def test_no_process_language(doc: Path) -> None:
    found = [
        f"{doc.name}:{number}: {match.group(0)!r}"
        for number, line in enumerate(doc.read_text().splitlines(), 1)
        for match in PROCESS_WORDS.finditer(line)
    ]
    assert not found, "\n".join(found)


# The scripts that have a page docs/<script>.md with a table of every flag.
SCRIPT_PAGES = (
    "ppo_atari_envpool",
    "ppo_atari_envpool_async",
    "ppo_mujoco_envpool",
    "ppo_mujoco_envpool_xla_jax",
    "impala_atari",
    "ppo_distributed",
)


def args_defaults(script: Path) -> dict[str, object]:
    """`--flag` -> default of each field of the script's `Args` dataclass, read from its source
    (the scripts import torch or JAX, which this test need not load)."""
    tree = ast.parse(script.read_text())
    (args,) = [n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Args"]
    defaults: dict[str, object] = {}
    for field in args.body:
        if not isinstance(field, ast.AnnAssign):
            continue
        value = field.value
        if isinstance(value, ast.Call) and getattr(value.func, "id", "") == "field":
            (factory,) = [k.value for k in value.keywords if k.arg == "default_factory"]
            value = factory.body  # field(default_factory=lambda: [0])
        flag = "--" + field.target.id.replace("_", "-")
        # exp_name's default is the file's name, computed from __file__
        defaults[flag] = script.stem if flag == "--exp-name" else ast.literal_eval(value)
    return defaults


def flag_table(page: str) -> dict[str, str]:
    """`--flag` -> default cell of the page's table whose header starts `| flag | default |`."""
    rows, in_table = {}, False
    for line in page.splitlines():
        if line.startswith("| flag | default |"):
            in_table = True
        elif in_table and line.startswith("| `--"):
            cells = [c.strip() for c in line.strip("|").split("|")]
            rows[cells[0].strip("`")] = cells[1].strip("`")
        elif in_table and not line.startswith("|"):
            break
    return rows


@pytest.mark.parametrize("script", SCRIPT_PAGES)
def test_script_page_lists_every_flag_with_its_default(script: str) -> None:
    defaults = args_defaults(ROOT / f"{script}.py")
    table = flag_table((ROOT / "docs" / f"{script}.md").read_text())
    assert list(table) == list(defaults), "the page's flags are not the Args fields, in order"
    for flag, shown in table.items():
        default = defaults[flag]
        assert (shown if isinstance(default, str) else ast.literal_eval(shown)) == default, (
            f"{script}.md: {flag} shows {shown!r}, the script's default is {default!r}"
        )


def test_flag_table_check_finds_a_wrong_default() -> None:
    page = (ROOT / "docs" / "ppo_atari_envpool.md").read_text()
    assert flag_table(page)["--clip-coef"] == "0.1"
    wrong = flag_table(page.replace("| `--clip-coef` | `0.1` |", "| `--clip-coef` | `0.2` |"))
    assert (
        ast.literal_eval(wrong["--clip-coef"])
        != args_defaults(ROOT / "ppo_atari_envpool.py")["--clip-coef"]
    )


@pytest.mark.parametrize("script", SCRIPT_PAGES)
def test_script_page_has_an_index_entry(script: str) -> None:
    assert f"]({script}.md)" in (ROOT / "docs" / "index.md").read_text()
