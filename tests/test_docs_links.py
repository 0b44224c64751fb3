"""Every relative link and #anchor in the documents resolves.

The README, every page under docs/, and the READMEs beside the files (hardware/,
systemd/, tests/, benchmarks/, firmware/): a link to a file or folder must find
it, and an anchor must be a heading of the page it points at, by GitHub's rule
(lower case, spaces to "-", punctuation dropped, a repeated heading gets -1, -2).
Links in code (fenced blocks, `spans`) are text, not links.
"""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import unquote

import pytest

ROOT = Path(__file__).resolve().parent.parent
SKIP = {".venv", ".vm", ".git", "node_modules"}

LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
REFERENCE = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+\".*\")?\s*$")
HTML_ANCHOR = re.compile(r"<a\s+(?:name|id)=\"([^\"]+)\"", re.I)


def documents() -> list[Path]:
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
    for folder in ("hardware", "systemd", "tests", "benchmarks", "firmware"):
        pages += sorted(p for p in (ROOT / folder).rglob("*.md")
                        if not SKIP & set(p.relative_to(ROOT).parts))
    return pages


def prose(text: str) -> list[str]:
    """The lines outside fenced code blocks, with inline code spans blanked."""
    lines, fence = [], ""
    for line in text.splitlines():
        stripped = line.lstrip()
        marker = re.match(r"(`{3,}|~{3,})", stripped)
        if marker and (not fence or marker.group(1).startswith(fence)):
            fence = "" if fence else marker.group(1)[:3]
            lines.append("")
            continue
        lines.append("" if fence else re.sub(r"(`+)(?:(?!\1).)+?\1", "``", line))
    return lines


def slug(heading: str) -> str:
    """GitHub's anchor for a heading's text."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)   # a link: its text
    text = re.sub(r"<[^>]+>", "", text).strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(page: Path) -> set[str]:
    found: set[str] = set()
    seen: dict[str, int] = {}
    text = page.read_text(encoding="utf-8")
    fence = ""
    for line in text.splitlines():
        marker = re.match(r"(`{3,}|~{3,})", line.lstrip())
        if marker and (not fence or marker.group(1).startswith(fence)):
            fence = "" if fence else marker.group(1)[:3]
            continue
        if fence:
            continue
        heading = re.match(r"#{1,6}\s+(.*?)\s*#*\s*$", line)
        if heading:
            base = slug(heading.group(1))
            n = seen.get(base, 0)
            seen[base] = n + 1
            found.add(base if n == 0 else f"{base}-{n}")
        found.update(HTML_ANCHOR.findall(line))
    return found


def links(page: Path) -> list[tuple[int, str]]:
    found = []
    for number, line in enumerate(prose(page.read_text(encoding="utf-8")), start=1):
        found += [(number, target) for target in LINK.findall(line)]
        reference = REFERENCE.match(line)
        if reference:
            found.append((number, reference.group(1)))
    return found


def shown(path: Path) -> str:
    return str(path.relative_to(ROOT)) if ROOT in path.parents else str(path)


def problem(page: Path, target: str) -> str | None:
    """Why a link does not resolve, or None."""
    if re.match(r"[a-z][a-z0-9+.-]*:", target, re.I) or target.startswith("//"):
        return None   # another site: not checked here
    path, _, anchor = target.partition("#")
    goal = (page.parent / unquote(path)).resolve() if path else page
    if not goal.exists():
        return f"no such file {path}"
    home = ROOT if ROOT in page.parents else page.parent
    if home not in goal.parents and goal != home:
        return f"{path} is outside the checkout"
    if anchor:
        if goal.is_dir() or goal.suffix != ".md":
            return f"#{anchor} on {path}, which is not a Markdown page"
        if unquote(anchor) not in anchors(goal):
            return f"no heading for #{anchor} in {shown(goal)}"
    return None


@pytest.mark.parametrize("page", documents(), ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_and_anchor_resolves(page):
    broken = [f"{page.relative_to(ROOT)}:{line}: ({target}) {why}"
              for line, target in links(page) if (why := problem(page, target))]
    assert not broken, "\n".join(broken)


def test_the_anchor_rule_is_github_s():
    """Examples worked out by hand from GitHub's rule, not by the function."""
    assert slug("SSD1306 / SH1106 and luma.oled 3.16 / luma.core 2.6") == \
        "ssd1306--sh1106-and-lumaoled-316--lumacore-26"
    assert slug("The `[hardware]` table") == "the-hardware-table"
    assert slug("Seats from a phone: the claims socket") == "seats-from-a-phone-the-claims-socket"
    assert slug("Schließen & Öffnen") == "schließen--öffnen"


def test_a_broken_link_is_found(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("# Top\n\n## Top\n\n[a](#top-1) [b](#nowhere) [c](gone.md)\n"
                    "`[d](gone.md)` [e](https://example.org/x)\n\n```\n[f](gone.md)\n```\n")
    assert anchors(page) == {"top", "top-1"}
    assert [(t, problem(page, t)) for _, t in links(page)] == [
        ("#top-1", None), ("#nowhere", f"no heading for #nowhere in {page}"),
        ("gone.md", "no such file gone.md"), ("https://example.org/x", None)]


@pytest.mark.parametrize("page", sorted((ROOT / "docs").rglob("*.md")),
                         ids=lambda p: str(p.relative_to(ROOT)))
def test_every_page_says_who_it_is_for(page):
    """Each page of docs/ says in its first line whom it is written for."""
    first = page.read_text(encoding="utf-8").splitlines()[0]
    assert re.search(r"\bfor\b", first, re.I), f"{page.relative_to(ROOT)}: {first!r}"
