"""How `make test` orders the tests and shares them between its two workers (tests/conftest.py).

An xdist group must hold: the tests of several browsers at once starve each other side by side
(`many-browsers`, test_online.py). With pytest 9.2 and pytest-xdist 3.8 every group was silently
ignored (requirements-test.txt).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

GROUPED = '''
import os
import pytest

def _note(name):
    with open(os.path.join(os.path.dirname(__file__), name + ".worker"), "w") as f:
        f.write(os.environ.get("PYTEST_XDIST_WORKER", "none"))

@pytest.mark.xdist_group("together")
@pytest.mark.parametrize("n", range(6))
def test_grouped(n):
    _note(f"grouped{n}")

@pytest.mark.parametrize("n", range(6))
def test_single(n):
    _note(f"single{n}")
'''


def test_an_xdist_group_runs_on_one_worker(tmp_path: Path) -> None:
    (tmp_path / "test_grouped.py").write_text(GROUPED)
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-n", "2", "--dist", "loadgroup", "-q",
         "-p", "no:cacheprovider", "-p", "no:randomly", str(tmp_path)],
        cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    workers = {f.stem: f.read_text() for f in tmp_path.glob("*.worker")}
    assert len(workers) == 12, workers
    grouped = {workers[f"grouped{n}"] for n in range(6)}
    assert len(grouped) == 1 and grouped != {"none"}, workers


def _order() -> list[str]:
    """The test ids of the browser tests and two other modules (collecting the whole suite
    costs 15 s) in the order pytest hands them to xdist."""
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:randomly",
         "tests/e2e", "tests/test_server.py", "tests/net/test_room.py"],
        cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    return [line for line in done.stdout.splitlines() if "::" in line]


def _modules(ids: list[str]) -> list[str]:
    """The modules in the order their tests come, each once per stretch of its tests."""
    out: list[str] = []
    for test in ids:
        module = test.split("::")[0]
        if not out or out[-1] != module:
            out.append(module)
    return out


def test_the_suite_runs_browser_tests_last_and_the_group_of_browsers_first_among_them() -> None:
    ids = _order()
    browser = [i for i, test in enumerate(ids) if test.startswith("tests/e2e/")]
    assert browser and browser == list(range(browser[0], len(ids)))  # all of them, at the end
    modules = _modules(ids)
    assert len(modules) == len(set(modules)), "a module's tests are split up"
    # the group of the tests with several browsers (test_online.py's marks) starts them
    first = _modules(ids[browser[0]:])[:6]
    assert first[0] == "tests/e2e/test_online.py" and "tests/e2e/test_turn.py" in first, first
