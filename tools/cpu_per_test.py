"""What each test costs in CPU: a pytest plugin, and a summary of what it wrote.

    .venv/bin/python -m pytest -p tools.cpu_per_test [pytest's options]  # cpu-per-test/*.tsv
    .venv/bin/python tools/cpu_per_test.py [--top 30] [cpu-per-test/*.tsv]  # the summary

The suite is CPU-bound on two cores (a browser test's pages boot Pyodide and play in Chromium),
so the time a test takes on a loaded machine says little about what it costs the run: a test
that waits costs nothing while the other worker runs, one that keeps Chromium busy costs twice.
The plugin samples, every 0.25 s and at each test's start and end, the CPU time (user + system)
of its pytest process and every process under it (Playwright's driver, Chromium and its
renderers, servers the tests start), and writes one line per test: its id, its wall time and
the CPU time its process tree used meanwhile (a process that starts and ends between two
samples is missed). Under xdist each worker writes its own file (cpu-per-test/gw0.tsv, ...);
the files are emptied when a run starts. The summary adds them up by test and by module.
"""

from __future__ import annotations

import argparse
import os
import sys
import threading
import time
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path
from typing import Any, TextIO

import pytest

OUT_DIR = Path(__file__).resolve().parent.parent / "cpu-per-test"
SAMPLE_S = 0.25
_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def tree_cpu(root: int) -> dict[int, float]:
    """CPU seconds (user + system) of ``root`` and every process under it, by pid (Linux)."""
    children: dict[int, list[int]] = defaultdict(list)
    used: dict[int, float] = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
        except OSError:  # ended meanwhile
            continue
        children[int(fields[1])].append(int(name))
        used[int(name)] = (int(fields[11]) + int(fields[12])) / _TICKS
    seen: dict[int, float] = {}
    todo = [root]
    while todo:
        pid = todo.pop()
        if pid in used:
            seen[pid] = used[pid]
        todo.extend(children.get(pid, ()))
    return seen


class _Sampler:
    """The latest CPU time seen of each process of this pytest process's tree."""

    def __init__(self) -> None:
        self.root = os.getpid()
        self.latest: dict[int, float] = {}
        self.lock = threading.Lock()
        threading.Thread(target=self._loop, daemon=True, name="cpu-per-test").start()

    def sample(self) -> dict[int, float]:
        now = tree_cpu(self.root)
        with self.lock:
            self.latest.update(now)
            return dict(self.latest)

    def _loop(self) -> None:
        while True:
            self.sample()
            time.sleep(SAMPLE_S)


_sampler: _Sampler | None = None
_out: TextIO | None = None


def pytest_configure(config: Any) -> None:
    global _out
    if not hasattr(config, "workerinput"):  # the run's own process: a new run begins
        OUT_DIR.mkdir(exist_ok=True)
        for old in OUT_DIR.glob("*.tsv"):
            old.unlink()
        if getattr(config.option, "numprocesses", None):
            return  # xdist's controller runs no test: each worker writes its own file
    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    _out = open(OUT_DIR / f"{worker}.tsv", "w", encoding="utf-8")  # noqa: SIM115 (for the run)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: Any, nextitem: Any) -> Iterator[None]:
    global _sampler
    if _out is None:
        yield
        return
    if _sampler is None:
        _sampler = _Sampler()
    before = _sampler.sample()
    started = time.monotonic()
    yield
    after = _sampler.sample()
    used = sum(cpu - before.get(pid, 0.0) for pid, cpu in after.items())
    _out.write(f"{item.nodeid}\t{time.monotonic() - started:.2f}\t{used:.2f}\n")
    _out.flush()


def summary(paths: list[Path], top: int) -> str:
    """The tests that cost most CPU, and each module's totals."""
    tests: list[tuple[float, float, str]] = []
    for path in paths:
        for line in path.read_text(encoding="utf-8").splitlines():
            name, wall_text, cpu_text = line.rsplit("\t", 2)
            tests.append((float(cpu_text), float(wall_text), name))
    if not tests:
        return "no figures: run pytest with -p tools.cpu_per_test first"
    modules: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0, 0.0])
    for cpu, wall, name in tests:
        totals = modules[name.split("::")[0]]
        totals[0] += cpu
        totals[1] += wall
        totals[2] += 1
    lines = [f"{len(tests)} tests: {sum(t[0] for t in tests):.0f} CPU-s, "
             f"{sum(t[1] for t in tests):.0f} s of test time",
             "", f"the {min(top, len(tests))} tests that cost most CPU:", "   CPU-s   wall s  test"]
    lines += [f"{cpu:8.1f} {wall:8.1f}  {test}" for cpu, wall, test in sorted(tests)[::-1][:top]]
    lines += ["", "by module:", "   CPU-s   wall s  tests  module"]
    lines += [f"{cpu:8.1f} {wall:8.1f} {int(n):6d}  {module}" for module, (cpu, wall, n) in
              sorted(modules.items(), key=lambda item: -item[1][0])]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="*", type=Path, help="default: cpu-per-test/*.tsv")
    parser.add_argument("--top", type=int, default=30, help="tests listed (default 30)")
    args = parser.parse_args(argv)
    print(summary(args.files or sorted(OUT_DIR.glob("*.tsv")), args.top))
    return 0


if __name__ == "__main__":
    sys.exit(main())
