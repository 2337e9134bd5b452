"""The browser side knows no rule set: it works only from what a Scene and Choices hand over.

Like the engine's purity test, this reads every module of py/app: no rule set's name, no read
of a position's fields, no import of the board geometry or of a rule set's module, and none of
the words one rule set's positions are made of.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from ludo import RULESETS

APP = Path(__file__).resolve().parents[2] / "py" / "app"
FILES = sorted(APP.rglob("*.py"))
POSITION_NAMES = {"state", "before", "after", "position"}
RULE_WORDS = ("unlocked", "capture_to_unlock", "entry_values", "sixes", "tokens[",
              "/4 home", "/5", "lane open", "lane locked")
ALLOWED_ENGINE_MODULES = {"ludo", "ludo.rules.base", "ludo.notation", "ludo.bots"}


def test_there_are_modules_to_check() -> None:
    assert {"table.py", "view.py", "panel.py", "controller.py", "screen.py"} <= \
        {p.name for p in FILES}


@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_no_rule_set_name_and_no_rule_set_module(path: Path) -> None:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            assert node.value.lower() not in RULESETS, f"{path.name}:{node.lineno}"
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            if node.module.startswith("ludo"):
                assert node.module in ALLOWED_ENGINE_MODULES, f"{path.name}: {node.module}"
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("ludo"):
                    assert alias.name in ALLOWED_ENGINE_MODULES, f"{path.name}: {alias.name}"


@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_no_position_field_is_read(path: Path) -> None:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute):
            inner = node.value
            name = inner.id if isinstance(inner, ast.Name) else \
                inner.attr if isinstance(inner, ast.Attribute) else None
            assert name not in POSITION_NAMES, \
                f"{path.name}:{node.lineno} reads {name}.{node.attr}"
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "getattr":
            first = node.args[0] if node.args else None
            assert not (isinstance(first, ast.Name) and first.id in POSITION_NAMES), \
                f"{path.name}:{node.lineno} reads a position field with getattr"


@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_no_rule_set_words(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    for word in RULE_WORDS:
        assert word not in text, f"{path.name} mentions {word!r}"
