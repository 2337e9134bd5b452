"""The static server: types, compression, caching headers, and what it refuses to serve.

More in tests/test_server_hygiene.py (security headers, the allow-list, long paths, start-up
errors) and tests/test_server_fuzz.py (hostile requests, no 500 and no traceback).
"""

from __future__ import annotations

import asyncio
import gzip
import os
import urllib.request
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer

from server.app import bind_address, make_app, resolve_request_path
from server.testing import running_server

# Compressible but not trivially (so gzip gets it to roughly a third, like the real runtime).
BIG_JS = "".join(f"export const v{i} = {i * 7919 % 1000};\n" for i in range(20_000)).encode()
WASM = b"\0asm\x01\0\0\0" + bytes(range(256)) * 400


@pytest.fixture
def site(tmp_path: Path) -> Path:
    root = tmp_path / "site"
    (root / "vendor" / "pyodide").mkdir(parents=True)
    (root / "vendor" / "pyscript").mkdir(parents=True)
    (root / "vendor" / "pyodide" / "pyodide.asm.wasm").write_bytes(WASM)
    (root / "vendor" / "pyodide" / "pyodide.mjs").write_bytes(BIG_JS)
    (root / "vendor" / "pyodide" / "python_stdlib.zip").write_bytes(b"PK" + b"z" * 5000)
    (root / "py.zip").write_bytes(b"PK" + b"m" * 5000)  # tools/build_pybundle.py's archive
    (root / "vendor" / "pyscript" / "core.js").write_bytes(BIG_JS)
    (root / "index.html").write_text("<!doctype html><title>Ludo</title>")
    (root / "pyscript.toml").write_text('interpreter = "./vendor/pyodide/pyodide.mjs"\n')
    (root / "manifest.webmanifest").write_text("{}")
    (root / "bench" / "bare").mkdir(parents=True)
    (root / "bench" / "bare" / "index.html").write_text("<!doctype html><title>bare</title>")
    for hidden in (
        ".git/config",
        "node_modules/x/package.json",
        "tests/secret.py",
        "py/ludo/__pycache__/x.pyc",
    ):
        (root / hidden).parent.mkdir(parents=True, exist_ok=True)
        (root / hidden).write_text("secret")
    (tmp_path / "outside.txt").write_text("outside the root")
    return root


def with_client(
    root: Path, test: Callable[[TestClient], Awaitable[None]], app: web.Application | None = None
) -> None:
    async def run() -> None:
        async with TestClient(TestServer(app or make_app(root))) as client:
            await test(client)

    # In a thread of its own: Playwright's sync API (the e2e fixtures) keeps an event loop
    # running in the main thread for the whole session, and asyncio.run refuses to nest.
    with ThreadPoolExecutor(max_workers=1) as pool:
        pool.submit(asyncio.run, run()).result()


async def raw_status(client: TestClient, target: str) -> int:
    """Status for a request target sent verbatim (clients would normalise the `..` away)."""
    reader, writer = await asyncio.open_connection(client.host, client.port)
    writer.write(f"GET {target} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".encode())
    await writer.drain()
    status_line = await reader.readline()
    writer.close()
    return int(status_line.split()[1])


@pytest.mark.parametrize(
    ("path", "content_type"),
    [
        ("vendor/pyodide/pyodide.asm.wasm", "application/wasm"),
        ("vendor/pyodide/pyodide.mjs", "text/javascript"),
        ("vendor/pyscript/core.js", "text/javascript"),
        ("index.html", "text/html"),
        ("manifest.webmanifest", "application/manifest+json"),
        ("pyscript.toml", "application/toml"),
        ("vendor/pyodide/python_stdlib.zip", "application/zip"),
        ("py.zip", "application/zip"),
    ],
)
def test_content_types(site: Path, path: str, content_type: str) -> None:
    async def test(client: TestClient) -> None:
        response = await client.get("/" + path)
        assert response.status == 200
        assert response.content_type == content_type
        assert response.headers["Cache-Control"] == "no-cache"

    with_client(site, test)


@pytest.mark.parametrize("path", ["vendor/pyscript/core.js", "vendor/pyodide/pyodide.asm.wasm"])
def test_gzip_when_accepted(site: Path, path: str) -> None:
    original = (site / path).read_bytes()

    async def test(client: TestClient) -> None:
        response = await client.get(
            "/" + path, headers={"Accept-Encoding": "gzip, deflate"}, auto_decompress=False
        )
        assert response.headers["Content-Encoding"] == "gzip"
        assert response.headers["Vary"] == "Accept-Encoding"
        body = await response.read()
        assert len(body) < len(original) / 2
        assert gzip.decompress(body) == original

        plain = await client.get("/" + path, headers={"Accept-Encoding": "identity"})
        assert "Content-Encoding" not in plain.headers
        assert await plain.read() == original

        refused = await client.get("/" + path, headers={"Accept-Encoding": "gzip;q=0"})
        assert "Content-Encoding" not in refused.headers

    with_client(site, test)


def test_zip_is_not_recompressed(site: Path) -> None:
    async def test(client: TestClient) -> None:
        response = await client.get(
            "/vendor/pyodide/python_stdlib.zip", headers={"Accept-Encoding": "gzip"}
        )
        assert "Content-Encoding" not in response.headers

    with_client(site, test)


def test_revalidation_and_changes(site: Path) -> None:
    async def test(client: TestClient) -> None:
        first = await client.get("/pyscript.toml")
        etag = first.headers["ETag"]
        again = await client.get("/pyscript.toml", headers={"If-None-Match": etag})
        assert again.status == 304
        # A changed file gets a new ETag and new content, despite the in-memory cache.
        toml = site / "pyscript.toml"
        toml.write_text('interpreter = "./elsewhere.mjs"\n')
        os.utime(toml, ns=(1, 1))
        changed = await client.get("/pyscript.toml", headers={"If-None-Match": etag})
        assert changed.status == 200
        assert "elsewhere" in await changed.text()

    with_client(site, test)


def test_directory_index_and_redirect(site: Path) -> None:
    async def test(client: TestClient) -> None:
        root = await client.get("/")
        assert "Ludo" in await root.text()
        bare = await client.get("/bench/bare", allow_redirects=False)
        assert bare.status == 301
        assert bare.headers["Location"].endswith("/bench/bare/")
        assert "bare" in await (await client.get("/bench/bare/")).text()

    with_client(site, test)


def test_missing_is_404(site: Path) -> None:
    async def test(client: TestClient) -> None:
        assert (await client.get("/nope.js")).status == 404
        assert (await client.get("/vendor/")).status == 404  # no listing of directories

    with_client(site, test)


@pytest.mark.parametrize(
    "target",
    [
        "/../outside.txt",
        "/vendor/../../outside.txt",
        "/%2e%2e/outside.txt",
        "/vendor/..%2f..%2foutside.txt",
        "/.git/config",
        "/node_modules/x/package.json",
        "/tests/secret.py",
        "/py/ludo/__pycache__/x.pyc",
    ],
)
def test_refuses_outside_and_private_paths(site: Path, target: str) -> None:
    async def test(client: TestClient) -> None:
        assert await raw_status(client, target) in (400, 403, 404)

    with_client(site, test)


def test_symlink_out_of_root_is_refused(site: Path) -> None:
    (site / "escape.txt").symlink_to(site.parent / "outside.txt")
    assert resolve_request_path(site.resolve(), "escape.txt") is None
    assert resolve_request_path(site.resolve(), "index.html") == site.resolve() / "index.html"


def test_extra_routes_come_before_static_files(site: Path) -> None:
    # How a later WebSocket signalling route plugs in.
    async def hello(request: web.Request) -> web.Response:
        return web.Response(text="signalling")

    async def test(client: TestClient) -> None:
        assert await (await client.get("/ws")).text() == "signalling"
        assert (await client.get("/index.html")).status == 200

    with_client(site, test, make_app(site, routes=[web.get("/ws", hello)]))


def test_bind_address_defaults_and_env() -> None:
    assert bind_address({}) == ("127.0.0.1", 8000)
    assert bind_address({"HOST": "0.0.0.0", "PORT": "9001"}) == ("0.0.0.0", 9001)


def test_python_m_server_logs_its_url(site: Path) -> None:
    with running_server(site) as url:
        assert url.startswith("http://127.0.0.1:")
        with urllib.request.urlopen(url + "index.html", timeout=5) as response:
            assert response.status == 200
