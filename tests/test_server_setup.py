"""A newcomer's set-up: what `make test` installs, what it prints, what the README asks for.

- `make test` installs requirements-test.txt only; the benchmark-only packages (ludopy with
  numpy and opencv, about 260 MB) are in requirements-bench.txt, which only `make bench` uses,
  and nothing outside bench/ imports them.
- `make test` lists the slowest tests (pytest --durations).
- The README's set-up names every system package the make targets need (libcairo2 for the
  icons) and how to set HOST and PORT.
- Without libcairo2 the icon build ends with one line that names the package, not a traceback.
"""

from __future__ import annotations

import ast
import importlib.abc
import re
import sys
from pathlib import Path

import pytest

from tools import build_icons

REPO = Path(__file__).resolve().parents[1]
BENCH_ONLY = {"ludopy", "numpy", "opencv-python"}
BENCH_IMPORTS = {"ludopy", "numpy", "cv2"}


def requirement_names(path: Path) -> set[str]:
    """Package names a requirements file installs, following its `-r` includes."""
    names: set[str] = set()
    for line in path.read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        if line.startswith("-r "):
            names |= requirement_names(path.parent / line[3:].strip())
            continue
        names.add(re.split(r"[=<>!~\[; ]", line, maxsplit=1)[0].lower())
    return names


def make_rule(target: str) -> str:
    """The prerequisites line and recipe of one Makefile target."""
    text = (REPO / "Makefile").read_text(encoding="utf-8")
    match = re.search(rf"^{re.escape(target)}:.*?(?=^\S|\Z)", text, re.M | re.S)
    assert match, target
    return match.group(0)


def test_make_test_installs_no_benchmark_only_package() -> None:
    assert not requirement_names(REPO / "requirements-test.txt") & BENCH_ONLY
    assert BENCH_ONLY <= requirement_names(REPO / "requirements-bench.txt")
    assert "$(BENCH_STAMP)" not in make_rule("test")
    assert "$(BENCH_STAMP)" in make_rule("bench")
    assert "requirements-bench.txt" in make_rule("$(BENCH_STAMP)")


def test_only_the_benchmarks_import_benchmark_only_packages() -> None:
    offenders = []
    for folder in ("py", "server", "tools", "tests"):
        for path in (REPO / folder).rglob("*.py"):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for node in ast.walk(tree):
                names = []
                if isinstance(node, ast.Import):
                    names = [alias.name for alias in node.names]
                elif isinstance(node, ast.ImportFrom) and node.module:
                    names = [node.module]
                if any(name.split(".")[0] in BENCH_IMPORTS for name in names):
                    offenders.append(path.relative_to(REPO).as_posix())
    assert not offenders


def test_make_test_lists_the_slowest_tests() -> None:
    text = (REPO / "Makefile").read_text(encoding="utf-8")
    assert re.search(r"^PYTEST_ARGS \?= .*--durations=\d+", text, re.M)
    assert "$(VPY) -m pytest $(PYTEST_ARGS)" in make_rule("test")


def test_readme_set_up_names_the_system_packages_and_the_address() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    set_up = readme.split("## Set-up", 1)[1].split("\n## ", 1)[0]
    install = re.search(r"apt-get install -y ([^\n`]+)", set_up)
    assert install, "no apt-get install line"
    packages = set(install.group(1).split())
    assert {"make", "python3", "python3-venv", "libcairo2", "nodejs", "npm"} <= packages
    assert "HOST=0.0.0.0 make serve" in set_up
    assert re.search(r"PORT=\d+ make serve", set_up)


def test_icons_without_libcairo_end_with_one_line_naming_the_package(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    class NoCairo(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path, target=None):
            if name == "cairosvg":
                # What cairocffi raises when the system has no libcairo.
                raise OSError('no library called "cairo-2" was found\nno library called "cairo"')
            return None

    monkeypatch.delitem(sys.modules, "cairosvg", raising=False)
    monkeypatch.setattr(sys, "meta_path", [NoCairo(), *sys.meta_path])
    with pytest.raises(SystemExit) as stopped:
        build_icons.main(["--icons-dir", str(REPO / "icons"), "--check"])
    message = str(stopped.value.code)
    assert "apt-get install libcairo2" in message
    assert "\n" not in message


def test_make_test_installs_the_programs_the_tests_start() -> None:
    """chromium, redis-server and coturn's turnserver come from apt-get when missing, as
    `make test` (and so .ci/run) runs on a fresh Debian machine."""
    text = (REPO / "Makefile").read_text(encoding="utf-8")
    programs = re.search(r"^DEBIAN_PROGRAMS := (.+)$", text, re.M)
    assert programs
    pairs = dict(p.split(":") for p in programs.group(1).split())
    assert pairs == {"chromium": "chromium", "redis-server": "redis-server",
                     "turnserver": "coturn"}
    assert "debian-programs" in make_rule("test").split("\n")[0]
    recipe = make_rule("debian-programs")
    assert "apt-get install -y -qq $$missing" in recipe
    assert "make test" in (REPO / ".ci" / "run").read_text(encoding="utf-8")


def test_no_two_test_modules_share_a_name() -> None:
    # The test folders have no __init__.py, so pytest imports each test module by its bare
    # name: a second tests/**/test_x.py stops the whole run at collection ("import file
    # mismatch") when both are collected, as `make test` does, though each passes alone.
    names: dict[str, list[str]] = {}
    for path in sorted((REPO / "tests").rglob("test_*.py")):
        names.setdefault(path.name, []).append(str(path.relative_to(REPO)))
    assert {name: paths for name, paths in names.items() if len(paths) > 1} == {}
