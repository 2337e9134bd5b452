"""The layers import downwards only: py/net knows the engine but never the app, and the app's
pure modules never reach its browser code, which puts their markup into the page but builds none.

py/ludo (the engine, at the bottom) is held by tests/engine/test_engine_purity.py; the browser
imports (js, pyodide, pyscript) by tests/app/test_app_pure.py. What is left is checked here,
from every file's imports: absolute, relative (resolved against the file's package) and
import_module("...") with a literal name.
"""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

import pytest

PY = Path(__file__).resolve().parent.parent / "py"
NET_FILES = sorted((PY / "net").rglob("*.py"))
APP_PURE_FILES = sorted(p for p in (PY / "app").rglob("*.py") if "browser" not in p.parts)
STDLIB = set(sys.stdlib_module_names) | {"__future__"}


def imported(path: Path) -> list[tuple[int, str]]:
    """(line, dotted module name) for every import in ``path``, relative ones resolved."""
    package = ".".join(path.relative_to(PY).with_suffix("").parts[:-1])
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[:len(package.split(".")) - node.level + 1]
                names = [".".join([*base, node.module])] if node.module else \
                    [".".join([*base, alias.name]) for alias in node.names]
            else:
                names = [node.module or ""]
            found += [(node.lineno, name) for name in names]
        elif isinstance(node, ast.Call):
            name = getattr(node.func, "attr", None) or getattr(node.func, "id", None)
            if name in ("import_module", "__import__") and node.args and isinstance(
                    node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
                found.append((node.lineno, node.args[0].value))
    return found


def test_there_are_files_to_check() -> None:
    assert {"dice.py", "protocol.py", "record.py"} <= {p.name for p in NET_FILES}
    assert {"table.py", "view.py", "panel.py", "room.py"} <= {p.name for p in APP_PURE_FILES}


@pytest.mark.parametrize("path", NET_FILES, ids=[p.name for p in NET_FILES])
def test_net_imports_only_the_standard_library_the_engine_and_itself(path: Path) -> None:
    # an online room drives a Table, so it lives in py/app (app/room.py), above py/net
    bad = [(line, name) for line, name in imported(path)
           if name.split(".")[0] not in STDLIB | {"ludo", "net"}]
    assert not bad, f"{path.relative_to(PY)} imports above py/net: {bad}"


@pytest.mark.parametrize("path", APP_PURE_FILES,
                         ids=[str(p.relative_to(PY / "app")) for p in APP_PURE_FILES])
def test_the_apps_pure_modules_never_import_its_browser_code(path: Path) -> None:
    bad = [(line, name) for line, name in imported(path)
           if name == "app.browser" or name.startswith("app.browser.")]
    assert not bad, f"{path.relative_to(PY)} imports the browser side: {bad}"


BROWSER_FILES = sorted((PY / "app" / "browser").glob("*.py"))
TAG = re.compile(r"</?[a-zA-Z][a-zA-Z0-9-]*(\s|>|/>)")


@pytest.mark.parametrize("path", BROWSER_FILES, ids=[p.name for p in BROWSER_FILES])
def test_the_browser_code_builds_no_markup(path: Path) -> None:
    # the markup comes from the pure modules (view, panel, setup, roomview) or the page
    # itself; the browser code only puts it in place and sets text and attributes
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                  if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef,
                                       ast.AsyncFunctionDef))
                  and node.body and isinstance(node.body[0], ast.Expr)}
    tags = [(node.lineno, node.value[:60]) for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str)
            and id(node) not in docstrings and TAG.search(node.value)]
    assert not tags, f"{path.name} writes markup: {tags}"
