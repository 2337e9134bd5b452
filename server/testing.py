"""Helpers shared by the browser tests (tests/e2e) and the benchmarks (bench/).

- `running_server(root)`: `python -m server` in a subprocess on a free port, yielding its URL.
- `chromium_executable()` and `CHROMIUM_ARGS`: how to launch Chromium with Playwright here.

Nothing here imports Playwright, so the server package keeps only aiohttp as a dependency.
"""

from __future__ import annotations

import os
import queue
import re
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from server.app import default_root

# Running as root needs --no-sandbox; the rest keep headless Chromium from reaching out to
# Google's services (there is no network here) and from using /dev/shm, which is small in CI.
CHROMIUM_ARGS = (
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
)

_URL_LINE = re.compile(r"being served at (http://\S+)")


def chromium_executable() -> str | None:
    """$LUDO_CHROMIUM, $CHROMIUM_PATH, or chromium on PATH; None means Playwright's own build."""
    for var in ("LUDO_CHROMIUM", "CHROMIUM_PATH"):
        if os.environ.get(var):
            return os.environ[var]
    return shutil.which("chromium") or shutil.which("chromium-browser")


@contextmanager
def running_server(root: Path | None = None, timeout: float = 30.0) -> Iterator[str]:
    """Start `python -m server` on a free port (PORT=0) and yield its base URL ("http://.../").

    The port is read from the server's own log line, so there is no race for a pre-picked port.
    """
    root = Path(root or default_root()).resolve()
    env = dict(os.environ, HOST="127.0.0.1", PORT="0", PYTHONUNBUFFERED="1")
    proc = subprocess.Popen(
        [sys.executable, "-m", "server", "--root", str(root)],
        cwd=default_root(),  # so `-m server` imports this checkout's server package
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    lines: queue.Queue[str | None] = queue.Queue()

    def pump() -> None:
        # Keeps draining the pipe after start-up too, so the server never blocks on a full one.
        assert proc.stdout is not None
        for line in proc.stdout:
            lines.put(line)
        lines.put(None)

    threading.Thread(target=pump, daemon=True).start()
    output: list[str] = []
    try:
        while True:
            try:
                line = lines.get(timeout=timeout)
            except queue.Empty:
                raise RuntimeError(f"no server after {timeout} s: {''.join(output)}") from None
            if line is None:
                raise RuntimeError(f"server exited with {proc.wait()}: {''.join(output)}")
            output.append(line)
            match = _URL_LINE.search(line)
            if match:
                break
        yield match.group(1)
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
