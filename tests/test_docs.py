"""The README's, CHANGELOG's and docs/'s relative links and images point at files that exist,
and their #anchors at headings of the file they name (GitHub's heading slugs); the README and
docs/ speak of the project, not of how it was made."""

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
