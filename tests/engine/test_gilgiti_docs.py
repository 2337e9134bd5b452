"""Gilgiti's rules document quotes every sentence of the seed and names only real tests."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "rules" / "gilgiti.md"
SEED = ROOT.parent / "shared" / "seeds" / "003_67fb5a1748872944.txt"


def _seed_sentences() -> list[str]:
    text = SEED.read_text(encoding="utf-8")
    return [s for line in text.splitlines() if line.strip()
            for s in re.split(r"(?<=[.!?])\s+", line.strip())]


SEED_MISSING = (
    "not checked: that docs/rules/gilgiti.md quotes every sentence of the game's original rule"
    f" text, ../shared/seeds/{SEED.name}, which is kept outside this repository; this checkout"
    " has no ../shared folder beside it (the project's own machines and its CI have one; a clone"
    " made elsewhere does not)."
)


@pytest.mark.skipif(not SEED.exists(), reason=SEED_MISSING)
def test_the_rules_doc_quotes_every_sentence_of_the_seed():
    sentences = _seed_sentences()
    assert len(sentences) >= 40
    doc = DOC.read_text(encoding="utf-8")
    missing = [s for s in sentences if f"> {s}" not in doc]
    assert not missing, missing


def _test_names() -> set[str]:
    names = set()
    for folder in ("engine", "bots", "e2e", "app", "net"):
        for path in (ROOT / "tests" / folder).glob("test_*.py"):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            names |= {n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)}
    return names


@pytest.mark.parametrize("doc", ["rules/gilgiti.md", "bots.md"])
def test_the_tests_named_in_the_docs_exist(doc):
    text = (ROOT / "docs" / doc).read_text(encoding="utf-8")
    named = {n for n in re.findall(r"\btest_[a-z0-9_]+\b(?!\.py)", text)  # not file names
             if not n.startswith(("test_engine_", "test_gilgiti_", "test_bots_"))
             and not n.endswith("_")}  # test_turn_* names a group
    missing = named - _test_names()
    assert not missing, f"{doc} names tests that do not exist: {sorted(missing)}"
