"""Every link between the project's Markdown documents resolves: the file exists and, when the
link names an anchor, the target has a heading with that anchor (as GitHub spells it)."""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCUMENTS = sorted([ROOT / "README.md", *(ROOT / "docs").rglob("*.md")])

FENCE = re.compile(r"^(```|~~~).*?^\1", re.M | re.S)
INLINE_CODE = re.compile(r"`[^`\n]*`")
LINK = re.compile(r"!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
HEADING = re.compile(r"^#{1,6}[ \t]+(.+?)[ \t#]*$", re.M)
EXTERNAL = re.compile(r"^[a-z][a-z0-9+.-]*:", re.I)  # http:, https:, mailto: ...


def prose(text: str) -> str:
    """The text without code blocks and code spans, where brackets are not links."""
    return INLINE_CODE.sub("", FENCE.sub("", text))


def slug(heading: str) -> str:
    """A heading's anchor as GitHub makes it: inline markup dropped, lower case, punctuation
    other than hyphens and underscores removed, each space a hyphen."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link keeps its words
    text = text.replace("`", "").replace("*", "")
    text = text.strip().lower()
    kept = "".join(ch for ch in text if ch in " -_" or unicodedata.category(ch)[0] in "LNM")
    return kept.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    """Every heading anchor of a document, repeated headings numbered as GitHub numbers them."""
    seen: dict[str, int] = {}
    found = set()
    for heading in HEADING.findall(FENCE.sub("", path.read_text(encoding="utf-8"))):
        base = slug(heading)
        count = seen.get(base, 0)
        seen[base] = count + 1
        found.add(base if count == 0 else f"{base}-{count}")
    return found


def broken_links(path: Path, root: Path = ROOT) -> list[str]:
    """Each link of ``path`` to a missing file, or to a heading its target does not have."""
    problems = []
    for target in LINK.findall(prose(path.read_text(encoding="utf-8"))):
        if EXTERNAL.match(target):
            continue
        file_part, _, anchor = target.partition("#")
        linked = (path.parent / file_part).resolve() if file_part else path
        where = f"{path.relative_to(root)} -> {target}"
        if not linked.exists():
            problems.append(f"{where}: no such file")
        elif anchor and linked.suffix == ".md" and anchor not in anchors(linked):
            problems.append(f"{where}: {linked.name} has no heading with that anchor")
    return problems


def test_the_slug_is_githubs():
    assert slug("Gilgiti — built") == "gilgiti--built"
    assert slug("Gilgiti positions (version 1)") == "gilgiti-positions-version-1"
    assert slug("Where it works: secure contexts only") == "where-it-works-secure-contexts-only"
    assert slug("The `RuleSet` interface") == "the-ruleset-interface"


def test_a_broken_link_is_found(tmp_path):
    (tmp_path / "b.md").write_text("# Here it is\n", encoding="utf-8")
    doc = tmp_path / "a.md"
    doc.write_text("[ok](b.md#here-it-is) [no file](c.md) [no anchor](b.md#there)\n"
                   "`[code](d.md)` and [self](#nowhere), [a text over\ntwo lines](e.md)\n"
                   "```\n[in a code block](f.md)\n```\n", encoding="utf-8")
    assert broken_links(doc, tmp_path) == [
        "a.md -> c.md: no such file",
        "a.md -> b.md#there: b.md has no heading with that anchor",
        "a.md -> #nowhere: a.md has no heading with that anchor",
        "a.md -> e.md: no such file",
    ]


def test_the_documents_link_to_each_other():
    """The check below has something to check: the documents do link files and headings."""
    links = [t for path in DOCUMENTS for t in LINK.findall(prose(path.read_text(encoding="utf-8")))]
    assert len([t for t in links if "#" in t]) > 10 and len([t for t in links if ".md" in t]) > 10


@pytest.mark.parametrize("path", DOCUMENTS, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_link_resolves(path):
    assert broken_links(path) == []
