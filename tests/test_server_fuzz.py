"""Hostile requests: random paths, methods and headers never get a 500 or log a traceback.

Each test sends a bounded number of requests (it stops early at a time limit, which is a bound,
not an assertion) built from a seeded generator, so a failure names the request and replays.
- In-process, through the same app `python -m server` runs: well-formed HTTP with hostile
  contents, checked for the status and the security headers of every answer.
- Against a real `python -m server`: requests aiohttp's parser refuses (garbage, oversized
  lines, a TLS handshake, binary), then the server must still answer and its output must hold
  no traceback.
"""

from __future__ import annotations

import asyncio
import logging
import os
import random
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from aiohttp.test_utils import TestClient
from test_server import site, with_client  # noqa: F401  (site is a fixture)

from server.app import SECURITY_HEADERS

REPO = Path(__file__).resolve().parents[1]
SEED = 20261201
REQUESTS = 1500
TIME_LIMIT_S = 60.0  # a bound on the run, so a slow machine cannot hang CI

SEGMENTS = [
    "", ".", "..", "...", ".git", ".env", "%2e%2e", "%2E%2e%2f", "..%2f", "%2f", "%5c", "\\",
    "%00", "%0a", "%0d%0a", "%ff", "%c0%ae", "%e2%80%ae", "%", "%%", "%zz", "%u002e", "~",
    "index.html", "sw.js", "vendor", "pyodide", "pyodide.asm.wasm", "py", "ludo", "__pycache__",
    "x.pyc", "bench", "bare", "css", "icons", "tests", "server", "node_modules", "Makefile",
    "README.md", "pyproject.toml", "a" * 255, "b" * 256, "c" * 4000, "é" * 130, "😀", "\u202e",
    "%F0%9F%98%80", "CON", "nul", "aux.txt", "?", "#", ";", ";jsessionid=1", "*", "::$DATA",
    "file:", "http:", "javascript:alert(1)", "<script>", "'", '"', "{}", "${x}", "|",
]
METHODS = ["GET", "GET", "GET", "HEAD", "POST", "PUT", "DELETE", "OPTIONS", "PATCH", "TRACE",
           "CONNECT", "PROPFIND", "MKCOL", "QUERY", "BREW", "get", "X" * 40]
HEADERS = {
    "Accept-Encoding": ["gzip", "gzip;q=0", "gzip;q=nan", "gzip;q=1e999", "*;q=-1", "br, zstd",
                        ",,,,", "gzip;q=" + "9" * 5000, ";" * 2000, "identity;q=0, *;q=0"],
    "If-None-Match": ["*", '"x"', "W/", 'W/"', '"' * 3000, ", , ,", "\x7f", "W/W/W/\"a\""],
    "If-Modified-Since": ["yesterday", "Thu, 01 Jan 1970 00:00:00 GMT", "0" * 3000, "\u00ff"],
    "Range": ["bytes=0-0", "bytes=-1", "bytes=99999999999999999999-", "lines=1-2", "bytes=,,,"],
    "Host": ["", "evil.example", "[::1]:99999", "a" * 3000, "x:y:z", "..", "localhost:0"],
    "Connection": ["upgrade", "close, keep-alive", "Upgrade, HTTP2-Settings"],
    "Upgrade": ["websocket", "h2c", "\u00e9"],
    "Content-Length": ["0", "5"],
    "Transfer-Encoding": ["chunked"],
    "Accept": ["text/html", "*/*;q=" + "1" * 1000],
    "Cookie": ["a=" + "b" * 4000],
}
ALLOWED = {200, 301, 304, 400, 404, 405, 413, 414, 416, 431}


def hostile_path(rng: random.Random) -> str:
    count = rng.choice([0, 1, 1, 2, 3, 5, 20, 200])
    path = "/" + "/".join(rng.choice(SEGMENTS) for _ in range(count))
    if rng.random() < 0.2:
        path += "/"
    if rng.random() < 0.15:
        path = "/" * rng.randint(2, 5) + path.lstrip("/")
    if rng.random() < 0.15:
        path += "?" + rng.choice(SEGMENTS) + "=" + rng.choice(SEGMENTS)
    # Characters a request line cannot carry raw are sent percent-encoded, as a client would.
    return "".join(
        ch if 0x21 <= ord(ch) < 0x7F else "".join(f"%{b:02X}" for b in ch.encode("utf-8"))
        for ch in path
    )


def hostile_request(rng: random.Random) -> bytes:
    method = rng.choice(METHODS)
    lines = [f"{method} {hostile_path(rng)} HTTP/1.{rng.choice('01')}"]
    headers = {"Host": "x"}
    for name in rng.sample(sorted(HEADERS), rng.randint(0, 4)):
        headers[name] = rng.choice(HEADERS[name])
    headers["Connection"] = "close"
    if "Content-Length" in headers:
        headers.pop("Transfer-Encoding", None)
    lines += [f"{name}: {value}" for name, value in headers.items()]
    body = b"hello" if headers.get("Content-Length") == "5" else b""
    if headers.get("Transfer-Encoding") == "chunked":
        body = b"5\r\nhello\r\n0\r\n\r\n"
    return "\r\n".join(lines).encode("utf-8") + b"\r\n\r\n" + body


async def exchange(host: str, port: int, request: bytes) -> bytes:
    """Send one request; what came back up to the end of the response's head (or EOF)."""
    reader, writer = await asyncio.open_connection(host, port)
    received = b""
    try:
        writer.write(request)
        await writer.drain()
        async with asyncio.timeout(10):
            while b"\r\n\r\n" not in received:
                chunk = await reader.read(65536)
                if not chunk:
                    break
                received += chunk
    except ConnectionError:
        pass  # reset after a refusal: judged by what came back before
    finally:
        writer.close()
    return received


def parse_head(raw: bytes) -> tuple[int, dict[str, str]]:
    head = raw.split(b"\r\n\r\n", 1)[0].decode("latin-1")
    status_line, *header_lines = head.split("\r\n")
    headers = {}
    for line in header_lines:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    return int(status_line.split(" ")[1]), headers


class Records(logging.Handler):
    def __init__(self) -> None:
        super().__init__(level=logging.DEBUG)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


@pytest.fixture
def log_records() -> list[logging.LogRecord]:
    handler = Records()
    loggers = [logging.getLogger(name) for name in ("aiohttp", "server")]
    levels = [logger.level for logger in loggers]
    for logger in loggers:
        logger.addHandler(handler)
        logger.setLevel(logging.DEBUG)
    yield handler.records
    for logger, level in zip(loggers, levels, strict=True):
        logger.removeHandler(handler)
        logger.setLevel(level)


def test_hostile_requests_get_no_500_and_no_traceback(
    site: Path,  # noqa: F811
    log_records: list[logging.LogRecord],
) -> None:
    rng = random.Random(SEED)
    seen: dict[int, int] = {}
    problems: list[str] = []

    async def test(client: TestClient) -> None:
        deadline = time.monotonic() + TIME_LIMIT_S
        for number in range(REQUESTS):
            if time.monotonic() > deadline:
                break
            request = hostile_request(rng)
            raw = await exchange(client.host, client.port, request)
            if not raw:
                continue  # the server may close a connection it cannot make sense of
            status, headers = parse_head(raw)
            seen[status] = seen.get(status, 0) + 1
            if status not in ALLOWED:
                problems.append(f"#{number} {status} for {request[:300]!r}")
            elif status != 400:  # the parser's own 400s are answered before the app
                for name, value in SECURITY_HEADERS.items():
                    if name == "Content-Security-Policy" and headers.get(name.lower(), ""):
                        continue  # an HTML page's policy adds hashes: checked elsewhere
                    if headers.get(name.lower()) != value:
                        problems.append(f"#{number} no {name} with {status} for {request[:200]!r}")
            if headers.get("server") != "Courtyard Ludo":
                problems.append(f"#{number} Server: {headers.get('server')!r}")
            location = headers.get("location", "")
            if location and (not location.startswith("/") or location[1:2] in ("/", "\\")):
                problems.append(f"#{number} Location {location!r} for {request[:200]!r}")

    with_client(site, test)
    print("statuses:", sorted(seen.items()))
    assert not problems, problems[:20]
    assert sum(seen.values()) >= 200, seen  # enough of them got through to mean something
    assert {200, 404, 405} <= set(seen), seen  # it reached files, refusals and methods
    tracebacks = [r for r in log_records if r.exc_info or r.levelno >= logging.ERROR]
    assert not tracebacks, [r.getMessage() for r in tracebacks[:5]]


MALFORMED = [
    b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03" + bytes(range(64)),  # a TLS ClientHello
    b"GET / HTTP/1.1\r\nHost: x\r\nBad Header: y\r\n\r\n",
    b"GET / HTTP/9.9\r\n\r\n",
    b"GET /" + b"a" * 9000 + b" HTTP/1.1\r\nHost: x\r\n\r\n",
    b"GET / HTTP/1.1\r\nHost: x\r\nX-Long: " + b"b" * 9000 + b"\r\n\r\n",
    b"GET / HTTP/1.1\r\n" + b"".join(b"X-%d: y\r\n" % i for i in range(200)) + b"\r\n",
    b"G\x00T / HTTP/1.1\r\n\r\n",
    b"GET /\x00 HTTP/1.1\r\nHost: x\r\n\r\n",
    b"GET / HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n",
    b"GET / HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n",
    b"POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
    b"\r\n\r\nGET /index.html HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
    b"GET / HTTP/1.1\nHost: x\n\n",
    b"GET http://evil.example/ HTTP/1.1\r\nHost: x\r\n\r\n",
    b"GET //evil.example/%2e%2e HTTP/1.1\r\nHost: x\r\n\r\n",
    b"CONNECT evil.example:443 HTTP/1.1\r\nHost: evil.example:443\r\n\r\n",
    b"GET * HTTP/1.1\r\nHost: x\r\n\r\n",
    bytes(random.Random(SEED).randrange(256) for _ in range(2000)),
]


def test_a_real_server_survives_malformed_requests_without_a_traceback(tmp_path: Path) -> None:
    (tmp_path / "index.html").write_text("<!doctype html><title>Ludo</title>")
    env = dict(os.environ, HOST="127.0.0.1", PORT="0", PYTHONUNBUFFERED="1")
    proc = subprocess.Popen(
        [sys.executable, "-m", "server", "--root", str(tmp_path), "--access-log"],
        cwd=REPO,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    statuses: list[int | None] = []
    try:
        assert proc.stdout is not None
        first = proc.stdout.readline()
        port = int(first.split("being served at http://127.0.0.1:")[1].split("/")[0])

        async def send_all() -> None:
            for request in MALFORMED:
                raw = await exchange("127.0.0.1", port, request)
                statuses.append(parse_head(raw)[0] if raw.startswith(b"HTTP/") else None)
            # Still serving.
            raw = await exchange("127.0.0.1", port, b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")

            statuses.append(parse_head(raw)[0])

        # In a thread of its own, like test_server.with_client (Playwright's loop may be running).
        with ThreadPoolExecutor(max_workers=1) as pool:
            pool.submit(asyncio.run, asyncio.wait_for(send_all(), timeout=60)).result()
    finally:
        proc.terminate()
        output = proc.communicate(timeout=10)[0]
    assert statuses[-1] == 200
    assert 500 not in statuses, statuses
    assert "Traceback" not in output and '  File "' not in output, output[-3000:]
