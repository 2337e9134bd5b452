"""The engine is pure standard-library Python: nothing under py/ludo imports the browser.

It must run unchanged in CPython and in Pyodide, and bots import it in a worker.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

ENGINE = Path(__file__).resolve().parents[2] / "py" / "ludo"
BROWSER = {"js", "pyodide", "pyscript", "pyodide_js", "micropip"}
STDLIB = set(sys.stdlib_module_names) | {"__future__"}
FILES = sorted(ENGINE.rglob("*.py"))


def _imports(path: Path) -> list[tuple[int, str]]:
    """(line, top-level module) for every absolute import, including import_module("x")."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name.split(".")[0]) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.append((node.lineno, node.module.split(".")[0]))
        elif isinstance(node, ast.Call):
            name = getattr(node.func, "attr", None) or getattr(node.func, "id", None)
            if name in ("import_module", "__import__") and node.args and isinstance(
                    node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
                found.append((node.lineno, node.args[0].value.split(".")[0]))
    return found


def test_the_engine_has_files_to_check():
    names = {p.name for p in FILES}
    assert {"geometry.py", "actions.py", "engine.py", "notation.py", "courtyard.py"} <= names


@pytest.mark.parametrize("path", FILES, ids=[str(p.relative_to(ENGINE)) for p in FILES])
def test_no_browser_imports(path):
    bad = [(line, mod) for line, mod in _imports(path) if mod in BROWSER]
    assert not bad, f"{path}: imports the browser: {bad}"


# `python -m ludo verify` checks an online record's dice with py/net, itself pure standard
# library; only the command line (never loaded by the page) may reach it, and only lazily.
SIBLINGS = {"cli.py": {"net"}}


@pytest.mark.parametrize("path", FILES, ids=[str(p.relative_to(ENGINE)) for p in FILES])
def test_only_the_standard_library_and_the_engine_itself(path):
    allowed = STDLIB | {"ludo"} | SIBLINGS.get(path.name, set())
    bad = [(line, mod) for line, mod in _imports(path) if mod not in allowed]
    assert not bad, f"{path}: imports outside the standard library: {bad}"


def test_importing_every_engine_module_loads_nothing_else():
    modules = sorted(
        "ludo." + ".".join(p.relative_to(ENGINE).with_suffix("").parts)
        for p in FILES if p.name not in ("__main__.py",)
    )
    modules = [m.removesuffix(".__init__") for m in modules]
    code = (
        "import importlib, json, sys\n"
        f"for m in {modules!r}: importlib.import_module(m)\n"
        "print(json.dumps(sorted({n.split('.')[0] for n in sys.modules})))\n"
    )
    # -S: no site-packages .pth hooks, so only what the engine itself imports is loaded
    out = subprocess.run([sys.executable, "-S", "-c", code], capture_output=True, text=True,
                         env={"PYTHONPATH": str(ENGINE.parent), "PATH": ""}, check=True)
    loaded = set(json.loads(out.stdout))
    assert not loaded & BROWSER
    assert loaded - STDLIB - {"ludo", "__main__"} == set(), loaded - STDLIB
