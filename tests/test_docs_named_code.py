"""Every dotted name of our code that a document writes in a code span exists.

A reader who meets `net.hostkey.damaged_fragment`, `Table.submit` or `engine.RULESETS` in the
docs looks for it by that name. This reads the source (its syntax tree, so the browser modules,
which cannot be imported here, are checked too) and finds each name a document spells as
`module.name`, `package.module.name` or `Class.member`, where the first part is one of our
modules, packages or classes. (docs/online.md named `online.damaged_link`, which never existed:
the words are `online.DAMAGED_LINK` and the check `net.hostkey.damaged_fragment`; and
`Online.resume`, which is `OnlineController.resume`.)
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCUMENTS = ["README.md", "docs/architecture.md", "docs/notation.md", "docs/online.md",
             "docs/offline.md", "docs/bots.md", "docs/ui.md"]
SOURCES = [*sorted((ROOT / "py").rglob("*.py")), *sorted((ROOT / "server").glob("*.py"))]
FILE_TYPES = {"py", "md", "js", "mjs", "json", "toml", "html", "css", "zip", "txt", "bin", "svg",
              "png", "webmanifest", "pyc", "npz"}
DOTTED = re.compile(r"([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+)(?:\(.*\))?")


def _members(body: list[ast.stmt]) -> set[str]:
    """The names a module or class body defines: functions, classes, assignments, imports."""
    names: set[str] = set()
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names |= {n.id for t in node.targets for n in ast.walk(t) if isinstance(n, ast.Name)}
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names |= {(a.asname or a.name).split(".")[0] for a in node.names}
        elif isinstance(node, (ast.If, ast.Try)):
            names |= _members(node.body) | _members(getattr(node, "orelse", []))
    return names


def _index() -> tuple[dict[str, set[str]], dict[str, set[str]]]:
    """Module names (as `a.b.c` and every dotted tail of it, `b.c`, `c`) and class names, each
    with the names it defines (a class: its members and those of its bases found here)."""
    modules: dict[str, set[str]] = {}
    classes: dict[str, set[str]] = {}
    bases: dict[str, list[str]] = {}
    for path in SOURCES:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        parts = list(path.relative_to(ROOT / "py" if path.is_relative_to(ROOT / "py")
                                      else ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        names = _members(tree.body)
        # `controller.on_chip`: a document may name a method by its module (the controller's)
        names |= {m for node in tree.body if isinstance(node, ast.ClassDef)
                  for m in _members(node.body)}
        for start in range(len(parts)):
            modules.setdefault(".".join(parts[start:]), set()).update(names)
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef):
                members = _members(node.body)
                # attributes set in methods (self.version = ...) are members too
                for sub in ast.walk(node):
                    if isinstance(sub, (ast.Assign, ast.AnnAssign)):
                        targets = sub.targets if isinstance(sub, ast.Assign) else [sub.target]
                        members |= {t.attr for t in targets if isinstance(t, ast.Attribute)}
                classes.setdefault(node.name, set()).update(members)
                bases.setdefault(node.name, []).extend(
                    b.id for b in node.bases if isinstance(b, ast.Name))
    for _ in range(3):  # inherited members, a few levels deep
        for name, parents in bases.items():
            for parent in parents:
                classes[name] |= classes.get(parent, set())
    return modules, classes


MODULES, CLASSES = _index()


def unknown_names(text: str) -> list[str]:
    """The dotted names in `text`'s code spans that start with one of our modules or classes and
    whose last part that module or class does not define."""
    unknown = []
    for span in re.findall(r"`([^`\n]+)`", text):
        match = DOTTED.fullmatch(span.strip())
        if not match:
            continue
        parts = match.group(1).split(".")
        if parts[-1] in FILE_TYPES:
            continue  # a file's name: the file checks are tests/test_docs_links.py's
        for cut in range(len(parts) - 1, 0, -1):  # the longest module prefix first
            owner = ".".join(parts[:cut])
            if owner in MODULES or (cut == 1 and owner in CLASSES):
                names = MODULES.get(owner) or CLASSES.get(owner, set())
                member = parts[cut]
                if member not in names and f"{owner}.{member}" not in MODULES:
                    unknown.append(match.group(1))
                break
    return unknown


def test_the_check_finds_a_name_that_does_not_exist() -> None:
    assert unknown_names("see `online.damaged_link` and `Table.submit`") == [
        "online.damaged_link"]
    assert unknown_names("`net.hostkey.damaged_fragment`, `engine.RULESETS`, `Table.version`,"
                         " `net.record.LedgerDice`, `shutil.unpack_archive`") == []


@pytest.mark.parametrize("document", DOCUMENTS)
def test_every_named_function_class_and_constant_exists(document: str) -> None:
    assert unknown_names((ROOT / document).read_text(encoding="utf-8")) == []
