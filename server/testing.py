"""Helpers shared by the browser tests (tests/e2e) and the benchmarks (bench/).

- `running_server(root)`: `python -m server` in a subprocess on a free port, yielding its URL.
- `chromium_executable()` and `CHROMIUM_ARGS`: how to launch Chromium with Playwright here.
- `RedisServer`: Debian's `redis-server` on a free loopback port, without persistence (a
  restart forgets everything, the harder case for the helpers), that can be stopped, killed
  and started again on the same port.
- `HelperProcess`: one `python -m server --signal-only` instance in a subprocess, its URL, its
  log events (read as they come), and a way to kill it.
- `TurnServer`: Debian's coturn (`turnserver`) on loopback with REST credentials
  (`use-auth-secret`), its log kept.
- `free_port()`: a free loopback port (TCP or UDP).

Nothing here imports Playwright, so the server package keeps only aiohttp and redis as
dependencies.
"""

from __future__ import annotations

import json
import os
import queue
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Self

from server.app import default_root

# Running as root needs --no-sandbox; the rest keep headless Chromium from reaching out to
# Google's services (there is no network here).
_BASE_CHROMIUM_ARGS = (
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
)
# Chromium's shared memory lives in /dev/shm; where that is small (64 MB in many containers)
# renderers crash, so it goes to /tmp instead. Where /dev/shm is large it stays there: /tmp is
# on disk here, and a renderer whose shared-memory file cannot be backed (a full or slow disk)
# crashes as well. Debian's chromium wrapper makes the same choice below 3.8 GB.
_SHM_ENOUGH_BYTES = 2 << 30


def _dev_shm_is_small() -> bool:
    try:
        stats = os.statvfs("/dev/shm")
    except OSError:
        return True
    return stats.f_bavail * stats.f_frsize < _SHM_ENOUGH_BYTES


CHROMIUM_ARGS = _BASE_CHROMIUM_ARGS + (("--disable-dev-shm-usage",) if _dev_shm_is_small() else ())

_URL_LINE = re.compile(r"being served at (http://\S+)")


def chromium_executable() -> str | None:
    """$LUDO_CHROMIUM, $CHROMIUM_PATH, or chromium on PATH; None means Playwright's own build."""
    for var in ("LUDO_CHROMIUM", "CHROMIUM_PATH"):
        if os.environ.get(var):
            return os.environ[var]
    return shutil.which("chromium") or shutil.which("chromium-browser")


@contextmanager
def served(url: str | None, root: Path | None = None) -> Iterator[str]:
    """A base URL ending in "/": ``url`` (a server already running) when given, else that of
    a server started here for the ``with`` block (the benchmarks' ``--url`` option)."""
    if url:
        yield url if url.endswith("/") else url + "/"
        return
    with running_server(root) as base_url:
        yield base_url if base_url.endswith("/") else base_url + "/"


@contextmanager
def running_server(root: Path | None = None, timeout: float = 30.0, args: tuple[str, ...] = (),
                   env: dict[str, str] | None = None) -> Iterator[str]:
    """Start `python -m server [args]` on a free port (PORT=0) and yield its base URL
    ("http://.../"); `env` adds to the environment (e.g. LUDO_TURN_SECRET).

    The port is read from the server's own log line, so there is no race for a pre-picked port.
    """
    root = Path(root or default_root()).resolve()
    env = dict(os.environ, HOST="127.0.0.1", PORT="0", PYTHONUNBUFFERED="1", **(env or {}))
    proc = subprocess.Popen(
        [sys.executable, "-m", "server", "--root", str(root), *args],
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
        end_process(proc)


def free_port(kind: int = socket.SOCK_STREAM) -> int:
    """A port nobody listens on right now on 127.0.0.1 (TCP by default, or SOCK_DGRAM)."""
    with socket.socket(socket.AF_INET, kind) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def end_process(proc: subprocess.Popen[Any], kill: bool = False) -> None:
    """End a child process: SIGKILL with ``kill``, else SIGTERM and SIGKILL after 10 s."""
    if proc.poll() is None:
        if kill:
            proc.kill()
        else:
            proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


class _ProgramInFolder:
    """A server program that runs in a temporary folder of its own, as a context manager:
    ``with`` starts it, and stops it and removes the folder after the block."""

    proc: subprocess.Popen[bytes] | None
    _dir: tempfile.TemporaryDirectory[str]

    def start(self) -> None:
        raise NotImplementedError

    def stop(self, kill: bool = False) -> None:
        """End the program (SIGKILL with ``kill``, else SIGTERM, SIGKILL after 10 s)."""
        if self.proc is not None:
            end_process(self.proc, kill)
        self.proc = None

    def __enter__(self) -> Self:
        self.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.stop()
        self._dir.cleanup()


class RedisServer(_ProgramInFolder):
    """`redis-server` on 127.0.0.1 without persistence; `start`, `stop`, `kill`, `restart`."""

    def __init__(self, port: int | None = None) -> None:
        self.port = port or free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.proc: subprocess.Popen[bytes] | None = None
        self._dir = tempfile.TemporaryDirectory(prefix="ludo-redis-")

    def start(self, timeout: float = 20.0) -> None:
        import redis  # only the tests and the benchmark need it here

        self.proc = subprocess.Popen(
            ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "no", "--dir", self._dir.name, "--loglevel", "warning"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        client = redis.Redis(port=self.port, socket_connect_timeout=1)
        deadline = time.monotonic() + timeout
        try:
            while True:  # a start-up wait, not a measurement
                try:
                    if client.ping():
                        return
                except redis.ConnectionError:
                    pass
                if self.proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"redis-server did not start on port {self.port}")
                time.sleep(0.02)
        finally:
            client.close()

    def restart(self) -> None:
        self.stop(kill=True)
        self.start()

    @property
    def pid(self) -> int:
        assert self.proc is not None
        return self.proc.pid

class HelperProcess:
    """`python -m server --signal-only [args]` on a free port; `url`, `endpoint`, `events`."""

    def __init__(self, *args: str, env: dict[str, str] | None = None,
                 stderr: Any = None, timeout: float = 60.0) -> None:
        self.events: list[dict[str, Any]] = []
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "server", "--signal-only", *args],
            cwd=default_root(),
            env=dict(os.environ, HOST="127.0.0.1", PORT="0", PYTHONUNBUFFERED="1", **(env or {})),
            stdout=subprocess.PIPE, stderr=stderr if stderr is not None else subprocess.PIPE,
            text=True,
        )
        lines: queue.Queue[str | None] = queue.Queue()

        def pump_stdout() -> None:
            assert self.proc.stdout is not None
            for line in self.proc.stdout:
                lines.put(line)
            lines.put(None)

        def pump_stderr() -> None:
            assert self.proc.stderr is not None
            for line in self.proc.stderr:
                if line.startswith("{"):
                    try:
                        self.events.append(json.loads(line))
                    except ValueError:
                        pass

        threading.Thread(target=pump_stdout, daemon=True).start()
        if stderr is None:
            threading.Thread(target=pump_stderr, daemon=True).start()
        seen: list[str] = []
        while True:
            try:
                line = lines.get(timeout=timeout)
            except queue.Empty:
                self.kill()
                raise RuntimeError(f"no helper after {timeout} s: {''.join(seen)}") from None
            if line is None:
                raise RuntimeError(f"the helper exited with {self.proc.wait()}: {''.join(seen)}")
            seen.append(line)
            match = _URL_LINE.search(line)
            if match:
                self.url = match.group(1)
                self.endpoint = self.url.replace("http://", "ws://") + "signal"
                return

    @property
    def pid(self) -> int:
        return self.proc.pid

    def events_of(self, kind: str) -> list[dict[str, Any]]:
        return [e for e in list(self.events) if e.get("event") == kind]

    def kill(self) -> None:
        """SIGKILL: no clean-up at all, as when a machine dies."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=10)

    def stop(self) -> None:
        end_process(self.proc)


class TurnServer(_ProgramInFolder):
    """coturn on 127.0.0.1 with time-limited REST credentials from `secret`; its log kept."""

    def __init__(self, secret: str, realm: str = "ludo.test", ip: str = "127.0.0.1") -> None:
        self.secret, self.realm, self.ip = secret, realm, ip
        self.port = free_port(socket.SOCK_DGRAM)
        self._dir = tempfile.TemporaryDirectory(prefix="ludo-turn-")
        self.log_path = Path(self._dir.name) / "turn.log"
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"turn:{self.ip}:{self.port}?transport=udp"

    def command(self) -> list[str]:
        """The same settings as docs/online.md's configuration, for loopback and no TLS."""
        return ["turnserver", "-n", f"--listening-ip={self.ip}", f"--relay-ip={self.ip}",
                f"--listening-port={self.port}", "--use-auth-secret",
                f"--static-auth-secret={self.secret}", f"--realm={self.realm}",
                "--no-tls", "--no-dtls", "--no-tcp-relay", "--allow-loopback-peers", "--no-cli",
                "--no-multicast-peers", f"--log-file={self.log_path}", "--simple-log",
                "--pidfile=/dev/null", "--verbose"]

    def start(self) -> None:
        self.proc = subprocess.Popen(self.command(), stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL)

    def log(self) -> str:
        try:
            return self.log_path.read_text(errors="replace")
        except FileNotFoundError:
            return ""

