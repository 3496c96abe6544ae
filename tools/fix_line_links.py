"""Moves the docs' links to script lines (`[`name`](../script.py#L10-L24)`) back onto the code
they name after the script changed, and prints what it cannot place.

A function or class named alone gets its whole definition; any other range moves, unchanged in
length, to the line with its first name nearest to where it was. `tests/test_docs.py` says which
links are wrong; run this, then read the moved links' diff and run the test again:

    python tools/fix_line_links.py docs/*.md
"""

import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from test_docs import LINE_LINK, definitions, line_link_errors


def fixed_link(link: re.Match[str], base: Path) -> str:
    """The link with its range moved onto its code, or as it was where none fits."""
    text, target, first, last = link.groups()
    start, end = int(first), int(last or first)
    lines = (base / target).resolve().read_text().splitlines()
    names = [n.removesuffix("()") for n in re.findall(r"`([^`]+)`", text)]
    spans = definitions("\n".join(lines))
    if len(names) == 1 and names[0] in spans:
        start, end = spans[names[0]]
    elif names:
        candidates = [i for i, line in enumerate(lines, 1) if names[0] in line]
        if candidates:
            moved = min(candidates, key=lambda i: abs(i - start))
            start, end = moved, end + moved - start
    anchor = f"#L{start}" if start == end else f"#L{start}-L{end}"
    return f"[{text}]({target}{anchor})"


def fixed_page(markdown: str, base: Path, name: str) -> str:
    """The page with each wrong line link moved onto its code."""

    def fix(link: re.Match[str]) -> str:
        wrong = line_link_errors(link.group(0), base, name)
        return fixed_link(link, base) if wrong else link.group(0)

    return LINE_LINK.sub(fix, markdown)


def main() -> None:
    """Rewrites the pages given on the command line; exits 1 if a link is still wrong."""
    still_wrong = []
    for page in map(Path, sys.argv[1:]):
        markdown = page.read_text()
        if line_link_errors(markdown, page.parent, page.name):
            fixed = fixed_page(markdown, page.parent, page.name)
            page.write_text(fixed)
            still_wrong += line_link_errors(fixed, page.parent, page.name)
    print("\n".join(still_wrong) or "every line link shows what it names")
    sys.exit(1 if still_wrong else 0)


if __name__ == "__main__":
    main()
