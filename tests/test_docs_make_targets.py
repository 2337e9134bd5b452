"""What the README says of the make targets holds when make runs them.

- `make bench` "runs the benchmarks in bench/", each of which prints figures: it runs every
  bench script that is a program, and not the modules of players that bench/outside.py imports
  (run bare they printed nothing: `== bench/outside_royal.py` and then silence).
- On a machine without chromium, redis-server or coturn and without root's apt-get, the make
  step that looks for them says what is missing and what that costs, naming only what is
  missing, and the command that installs it.

Both run the Makefile's own recipes (`make -o` keeps the install steps from running).
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
MAKE = shutil.which("make")
pytestmark = pytest.mark.skipif(MAKE is None, reason="needs GNU make")
# The bench target's prerequisites, assumed made so that only its own recipe runs.
BENCH_PREREQUISITES = (".venv/.requirements-bench.stamp", "vendor/.vendored.stamp",
                       "pyscript-toml", "debian-programs", "icons", "sw")


def _make(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    assert MAKE is not None
    return subprocess.run([MAKE, "--no-print-directory", "-s", "-C", str(REPO), *args],
                          capture_output=True, text=True, env=env, timeout=60, check=False)


def test_make_bench_runs_each_benchmark_program_and_no_imported_module() -> None:
    skip_prerequisites = [arg for target in BENCH_PREREQUISITES for arg in ("-o", target)]
    done = _make(*skip_prerequisites, "bench", "VPY=echo RAN")
    assert done.returncode == 0, done.stderr
    ran = [line.split()[1] for line in done.stdout.splitlines() if line.startswith("RAN ")]
    programs = sorted(f"bench/{p.name}" for p in (REPO / "bench").glob("*.py")
                      if 'if __name__ == "__main__":' in p.read_text(encoding="utf-8"))
    assert ran == programs
    assert "bench/outside.py" in ran and "bench/engine.py" in ran
    assert "bench/outside_royal.py" not in ran and "bench/outside_gilgiti.py" not in ran


def _without_programs(tmp_path: Path, missing: set[str]) -> dict[str, str]:
    """An environment whose PATH has no apt-get, an `id` that is not root's, and only those of
    chromium, redis-server and turnserver that are not in `missing` (as empty stand-ins)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "id").write_text("#!/bin/sh\necho 1000\n")
    for program in {"chromium", "redis-server", "turnserver"} - missing:
        (bin_dir / program).write_text("#!/bin/sh\n")
    for path in bin_dir.iterdir():
        path.chmod(0o755)
    env = {k: v for k, v in os.environ.items() if k not in ("LUDO_CHROMIUM", "CHROMIUM_PATH")}
    env["PATH"] = str(bin_dir)
    return env


def test_missing_programs_are_named_with_their_install_command(tmp_path: Path) -> None:
    done = _make("debian-programs", env=_without_programs(tmp_path, {"chromium", "redis-server",
                                                                     "turnserver"}))
    assert done.returncode == 0 and done.stdout == ""
    message = done.stderr.strip()
    assert "\n" not in message
    assert "missing chromium redis-server coturn" in message
    assert "apt-get install chromium redis-server coturn" in message
    assert "LUDO_CHROMIUM" in message and "browser tests fail" in message
    assert "Redis and TURN tests skip" in message


def test_a_message_about_redis_alone_says_nothing_of_chromium(tmp_path: Path) -> None:
    done = _make("debian-programs", env=_without_programs(tmp_path, {"redis-server"}))
    message = done.stderr.strip()
    assert done.returncode == 0 and "\n" not in message
    assert "missing redis-server" in message and "apt-get install redis-server" in message
    assert "chromium" not in message and "coturn" not in message
    assert "Redis tests skip" in message


def test_a_message_about_chromium_alone_says_nothing_of_redis(tmp_path: Path) -> None:
    done = _make("debian-programs", env=_without_programs(tmp_path, {"chromium"}))
    message = done.stderr.strip()
    assert done.returncode == 0 and "\n" not in message
    assert "apt-get install chromium" in message and "LUDO_CHROMIUM" in message
    assert "redis" not in message.lower() and "coturn" not in message


def test_nothing_missing_prints_nothing(tmp_path: Path) -> None:
    done = _make("debian-programs", env=_without_programs(tmp_path, set()))
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
