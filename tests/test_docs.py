"""The README's and docs/'s relative links and images point at files that exist, and their
#anchors at headings of the file they name (GitHub's heading slugs)."""

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")


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
        "training-speed-and-scores", "xla-in-jax", "a", "a-1"}


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
