"""The README's, CHANGELOG's, docs/'s and benchmark/results/'s relative links and images point at
files that exist, their #anchors at headings of the file they name (GitHub's heading slugs) and
their #L anchors at the script lines they name; the pages a reader is given, and the files they
link to, speak of the project, not of how it was made."""

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
USER_DOCS = [
    ROOT / "README.md",
    *sorted((ROOT / "docs").glob("*.md")),
    *sorted((ROOT / "benchmark" / "results").glob("*.md")),
]
DOCS = [*USER_DOCS, ROOT / "CHANGELOG.md"]
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")
# Process language: where the work was tracked, who did it or ran what alongside, and which
# version of a file it was, not what the project does. A figure's provenance is its command and
# results file, not a commit; a machine is named ("a 2-vCPU AMD EPYC VM"), since "this machine"
# reads as the reader's own.
PROCESS_WORDS = re.compile(
    r"\bissues? #?\d+|\bissues? \d+'s|\bthis round\b|\bround's (files?|code)|\bsessions?\b"
    r"|DESIGN(\.md| §)|\bthis work\b|\b(another|other|one) helper\b|\bhelper's\b"
    r"|\bthe lead\b(?! over)|\bcommit messages?\b|\bgit show\b|\bthis branch\b|\bthe issue's\b"
    r"|\b\d+-line (file|script|version)\b|\bseed-\d+ file\b|\btoday's\b"
    r"|\bthis (\d+-(core|vCPU) )?(machine|VM|host|CPU)\b",
    re.IGNORECASE,
)
# A bare commit hash: 7 to 40 hex digits with a digit and a letter among them, standing alone (not
# part of a longer hex run such as a sha256 digest, not a `#rrggbb` colour, not inside a URL).
COMMIT_HASH = re.compile(r"(?<![#/\w-])(?=[0-9a-f]*[a-f])(?=[0-9a-f]*[0-9])[0-9a-f]{7,40}(?![\w-])")
# Hashes that pin another project's source, which are versions, not provenance of this one's.
UPSTREAM_COMMITS = {
    "fe8d8a03c41a7ef5b523e2e354bd01c363e786bb",  # CleanRL, run by benchmark/cleanrl_clients.py
    "3c703cec6f59f2a370914ad4876b4bd32023bf3a",  # EnvPool's tests, benchmark/envpool_test_suite.py
}


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


def process_text(text: str) -> list[str]:
    """`line: words` for each process word or bare commit hash in a page's text."""
    found = []
    for number, line in enumerate(text.splitlines(), 1):
        words = [m.group(0) for m in PROCESS_WORDS.finditer(line)]
        words += [h for h in COMMIT_HASH.findall(line) if h not in UPSTREAM_COMMITS]
        found += [f"{number}: {word!r}" for word in words]
    return found


def test_process_text_check_finds_what_it_looks_for() -> None:
    assert process_text("Run on this machine (issue 15, item 4), as at 9c756ca.") == [
        "1: 'this machine'",
        "1: 'issue 15'",
        "1: '9c756ca'",
    ]
    assert process_text("the 409-line file; another helper's run; `git show 72c5318:x.py`") == [
        "1: '409-line file'",
        "1: 'another helper'",
        "1: 'git show'",
        "1: '72c5318'",
    ]
    clean = (
        "colour #1f77b4, sha256 " + "ab12" * 16 + ", 1000000 steps, a decade, "
        "https://github.com/vwxyzjn/cleanrl/blob/fe8d8a0/x.py, the helper `evaluate`, "
        "Sample-Factory's lead over EnvPool, on a 2-vCPU AMD EPYC VM"
    )
    assert process_text(clean) == []


def linked_files() -> list[Path]:
    """The repository's text files (scripts, tools, CHANGELOG) that the user docs link to."""
    linked = {
        (doc.parent / target.partition("#")[0]).resolve()
        for doc in USER_DOCS
        for _, target in relative_links(doc)
        if target.partition("#")[0]
    }
    suffixes = {".py", ".md", ".sh", ".toml", ".txt"}
    return sorted(p for p in linked if p.suffix in suffixes and p.is_file() and p not in USER_DOCS)


@pytest.mark.parametrize(
    "doc", USER_DOCS + linked_files(), ids=lambda path: str(path.relative_to(ROOT))
)
def test_no_process_language(doc: Path) -> None:
    found = process_text(doc.read_text())
    assert not found, "\n".join(f"{doc.relative_to(ROOT)}:{line}" for line in found)


# A link to lines of a file, as GitHub shows them: [`name` ...](../script.py#L10-L24).
LINE_LINK = re.compile(r"\[([^\]]*)\]\(((?:\.\./)*[\w/.-]+\.py)#L(\d+)(?:-L(\d+))?\)")


def definitions(source: str) -> dict[str, tuple[int, int]]:
    """name -> (first line, last line) of each top-level function and class, decorators included."""
    spans = {}
    for node in ast.parse(source).body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            spans[node.name] = (first, node.end_lineno or node.lineno)
    return spans


def line_link_errors(markdown: str, base: Path, name: str) -> list[str]:
    """What is wrong with each link of a page to lines of a Python file (paths relative to `base`):
    the link text names its code in backticks, every name appears in the linked lines, a
    function or class named alone is linked whole, and any other range starts at a line with
    the first name and stays short enough to read (61 lines at most), so that a shifted range
    fails."""
    errors = []
    for number, line in enumerate(markdown.splitlines(), 1):
        for text, target, first, last in LINE_LINK.findall(line):
            where = f"{name}:{number}: {target}#L{first}-L{last or first}"
            start, end = int(first), int(last or first)
            lines = (base / target).resolve().read_text().splitlines()
            names = [n.removesuffix("()") for n in re.findall(r"`([^`]+)`", text)]
            if not names:
                errors.append(f"{where}: the link text names no code in backticks")
            spans = definitions("\n".join(lines))
            whole = len(names) == 1 and spans.get(names[0]) == (start, end)  # a definition
            if not 1 <= start <= end <= len(lines) or (end - start > 60 and not whole):
                errors.append(f"{where}: not a range of at most 61 of its {len(lines)} lines")
                continue
            shown = "\n".join(lines[start - 1 : end])
            if names and not whole and names[0] not in lines[start - 1]:
                errors.append(f"{where}: its first line has no `{names[0]}`")
            for code in names:
                if code not in shown:
                    at = [i for i, text in enumerate(lines, 1) if code in text]
                    errors.append(f"{where}: no `{code}` there; it is on lines {at[:12]}")
                elif len(names) == 1 and code in spans and spans[code] != (start, end):
                    errors.append(f"{where}: `{code}` is lines {spans[code][0]}-{spans[code][1]}")
    return errors


def test_line_link_check_finds_a_shifted_range() -> None:
    docs = ROOT / "docs"
    page = (docs / "ppo_atari_envpool.md").read_text()
    (link,) = [m for m in LINE_LINK.finditer(page) if m.group(1) == "`compute_gae`"]
    first, last = int(link.group(3)), int(link.group(4))
    shifted = link.group(0).replace(f"#L{first}-L{last}", f"#L{first + 5}-L{last + 5}")
    renamed = link.group(0).replace("`compute_gae`", "`no_such_name`")
    assert not line_link_errors(link.group(0), docs, "page")
    assert line_link_errors(shifted, docs, "page")
    assert line_link_errors(renamed, docs, "page")


@pytest.mark.parametrize("doc", DOCS, ids=lambda path: path.name)
def test_line_links_show_what_they_name(doc: Path) -> None:
    errors = line_link_errors(doc.read_text(), doc.parent, doc.name)
    assert not errors, "\n".join(errors)


def test_index_links_every_troubleshooting_topic() -> None:
    """docs/index.md names each of troubleshooting.md's topics, so a reader finds a new one."""
    index = (ROOT / "docs" / "index.md").read_text()
    topics = heading_slugs((ROOT / "docs" / "troubleshooting.md").read_text())
    topics.discard("troubleshooting")  # the page's title
    missing = sorted(t for t in topics if f"(troubleshooting.md#{t})" not in index)
    assert not missing, f"docs/index.md does not link these troubleshooting topics: {missing}"


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


@pytest.mark.parametrize("script", SCRIPT_PAGES)
def test_script_page_links_its_papers_and_lines(script: str) -> None:
    page = (ROOT / "docs" / f"{script}.md").read_text()
    details = page.split("## Implementation details", 1)[1].split("\n## ", 1)[0]
    assert len(LINE_LINK.findall(details)) >= 3, "its implementation details link no script lines"
    for paper in ("https://arxiv.org/abs/2206.10558",):  # EnvPool, which every script steps
        assert paper in page, f"{paper} is not linked"
