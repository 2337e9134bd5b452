"""What the server serves and says: the site's files only, no 500s, headers on every response.

- Only the site (tools/site_files.py, the same list `make dist` copies) is served; the rest of
  the repository answers 404, and so does a symbolic link that leads out of the site.
- Paths the disk cannot look up (too long) answer 404, not 500.
- Redirects never carry a scheme-relative Location ("//host/...").
- Every response (200, 304, 301, 404, 405, a parse error) carries the security headers and a
  Server header without versions.
- The gzipped and the plain body of a file have different strong ETags.
- `python -m server` ends with one line, no traceback, for a bad PORT, a port in use or a host
  that does not resolve, and says so when HOST makes the game reachable from the network.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import os
import re
import shutil
import socket
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient
from test_server import raw_status, site, with_client  # noqa: F401  (site is a fixture)

from server.__main__ import is_local_only
from server.app import (
    SECURITY_HEADERS,
    AddressError,
    bind_address,
    inline_script_hashes,
    make_app,
    resolve_request_path,
)
from tools import build_dist, site_files

REPO = Path(__file__).resolve().parents[1]

# Repository files that are not the site (the list, and the rest of the checkout).
NOT_THE_SITE = (
    "Makefile",
    "README.md",
    "docs/notation.md",
    "bench/boot.py",
    "bench/results/boot.json",
    "pyproject.toml",
    "package.json",
    "package-lock.json",
    "requirements.txt",
    "requirements-test.txt",
    "py/courtyard_ludo.egg-info/PKG-INFO",
    "py/ludo/__pycache__/engine.cpython-311.pyc",
    "server/app.py",
    "tools/vendor.py",
    "tests/test_server.py",
    "node_modules/pyodide/package.json",
    ".git/config",
    ".venv/pyvenv.cfg",
    ".ci/run",
    "dist/index.html",
    "icons/icon-192.png.tmp",
    "vendor/pyodide.old/pyodide.mjs",
)
SITE = (
    "index.html",
    "sw.js",
    "manifest.webmanifest",
    "pyscript.toml",
    "py.zip",
    "css/app.css",
    "icons/icon.svg",
    "py/main.py",
    "py/ludo/engine.py",
    "vendor/pyscript/core.js",
    "vendor/pyodide/pyodide.mjs",
    "vendor/wheels/segno-1.6.6-py3-none-any.whl",
    "bench/bare/index.html",
    "bench/bare/main.py",
)


@pytest.fixture
def repo_like(tmp_path: Path) -> Path:
    """A checkout in miniature: the site's files among everything else a repository holds."""
    root = tmp_path / "repo"
    for rel in NOT_THE_SITE + SITE:
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"contents of {rel}\n")
    (root / "index.html").write_text(
        "<!doctype html><title>Ludo</title>\n<script>\n  window.early = 1;\n</script>\n"
        '<script type="module" src="./vendor/pyscript/core.js"></script>\n'
    )
    return root


def get_status(root: Path, paths: list[str], method: str = "GET") -> dict[str, int]:
    statuses: dict[str, int] = {}

    async def test(client: TestClient) -> None:
        for path in paths:
            response = await client.request(method, path, allow_redirects=False)
            statuses[path] = response.status

    with_client(root, test)
    return statuses


def test_only_the_site_is_served(repo_like: Path) -> None:
    statuses = get_status(repo_like, ["/" + rel for rel in NOT_THE_SITE + SITE])
    assert {p: s for p, s in statuses.items() if s != 404} == {"/" + rel: 200 for rel in SITE}


def test_folders_are_not_listed_and_only_page_folders_redirect(repo_like: Path) -> None:
    statuses = get_status(repo_like, ["/docs", "/docs/", "/bench", "/tests", "/css", "/py/"])
    assert set(statuses.values()) == {404}
    assert get_status(repo_like, ["/bench/bare"]) == {"/bench/bare": 301}


def test_the_allow_list_is_what_dist_ships(repo_like: Path, tmp_path: Path) -> None:
    """The server and `make dist` read one definition; dist leaves the development pages out."""
    shipped = {rel for rel, _ in site_files.site_files(repo_like)}
    served = {rel for rel, _ in site_files.site_files(repo_like, dev=True)}
    assert served == set(SITE)
    assert served - shipped == {"bench/bare/index.html", "bench/bare/main.py"}
    dist = tmp_path / "dist"
    (repo_like / "vendor" / "pyodide" / "pyodide.mjs").write_text("export {};\n")
    (repo_like / "index.html").write_text("<!doctype html><title>Ludo</title>")
    (repo_like / "pyscript.toml").write_text("")
    build_dist.build(repo_like, dist)
    copied = {p.relative_to(dist).as_posix() for p in dist.rglob("*") if p.is_file()}
    assert copied == shipped


def test_dist_copies_no_link_out_of_the_site(repo_like: Path, tmp_path: Path) -> None:
    """`make dist` followed links blindly: css/x -> ../.git put the repository's .git in dist/."""
    (repo_like / "css" / "x").symlink_to("../.git")
    (repo_like / "py" / "make").symlink_to("../Makefile")
    (repo_like / "css" / "alias.css").symlink_to("app.css")
    (repo_like / "vendor" / "pyodide" / "pyodide.mjs").write_text("export {};\n")
    (repo_like / "index.html").write_text("<!doctype html><title>Ludo</title>")
    (repo_like / "pyscript.toml").write_text("")
    dist = tmp_path / "dist"
    build_dist.build(repo_like, dist)
    assert (dist / "css" / "alias.css").read_text() == "contents of css/app.css\n"
    assert not (dist / "css" / "x").exists()
    assert not (dist / "py" / "make").exists()


def test_new_files_of_the_site_are_served_without_a_restart(repo_like: Path) -> None:
    async def test(client: TestClient) -> None:
        assert (await client.get("/py/app/online.py")).status == 404
        (repo_like / "py" / "app").mkdir(parents=True)
        (repo_like / "py" / "app" / "online.py").write_text("# new module\n")
        assert (await client.get("/py/app/online.py")).status == 200

    with_client(repo_like, test)


@pytest.mark.parametrize(
    ("link", "points_to", "served"),
    [
        ("css/x", "../.git", "/css/x/config"),  # the example
        ("css/docs", "../docs", "/css/docs/notation.md"),
        ("py/make", "../Makefile", "/py/make"),
        ("vendor/up", "..", "/vendor/up/README.md"),
        ("vendor/hidden", "../.venv/pyvenv.cfg", "/vendor/hidden"),
        ("py/outside.py", "../../outside.txt", "/py/outside.py"),
        ("bench/bare/boot.py", "../boot.py", "/bench/bare/boot.py"),
    ],
)
def test_links_out_of_the_site_are_refused(
    repo_like: Path, link: str, points_to: str, served: str
) -> None:
    (repo_like.parent / "outside.txt").write_text("outside")
    (repo_like / link).symlink_to(points_to)
    assert get_status(repo_like, [served]) == {served: 404}


def test_links_within_the_site_are_served(repo_like: Path) -> None:
    (repo_like / "css" / "alias.css").symlink_to("app.css")
    (repo_like / "icons" / "bare").symlink_to("../bench/bare")
    assert get_status(repo_like, ["/css/alias.css", "/icons/bare/main.py"]) == {
        "/css/alias.css": 200,
        "/icons/bare/main.py": 200,
    }


def test_a_top_level_entry_may_link_out_of_the_root(tmp_path: Path, repo_like: Path) -> None:
    """A git worktree's vendor/ links to the main checkout's; inside it, the same rules hold."""
    elsewhere = tmp_path / "main-checkout-vendor"
    (elsewhere / "pyodide").mkdir(parents=True)
    (elsewhere / "pyodide" / "pyodide.mjs").write_text("export {};\n")
    (elsewhere / ".vendored.stamp").write_text("")
    (elsewhere / "pyodide" / "escape").symlink_to(repo_like / ".git")
    shutil.rmtree(repo_like / "vendor")
    (repo_like / "vendor").symlink_to(elsewhere)
    assert get_status(
        repo_like,
        ["/vendor/pyodide/pyodide.mjs", "/vendor/.vendored.stamp", "/vendor/pyodide/escape/config"],
    ) == {
        "/vendor/pyodide/pyodide.mjs": 200,
        "/vendor/.vendored.stamp": 404,
        "/vendor/pyodide/escape/config": 404,
    }


@pytest.mark.parametrize(
    "path",
    [
        "/" + "a" * 256,  # one segment longer than any file name may be
        "/py/" + "b" * 300 + ".py",
        "/" + "/".join(["abcd"] * 1000),  # about 5000 bytes of short segments
        "/vendor/" + "/".join(["x" * 200] * 25),
        "/bench/bare/" + "c" * 255 + "/",
        "/" + "é" * 200,  # 400 bytes in UTF-8
    ],
)
def test_long_paths_are_404_not_500(site: Path, path: str) -> None:  # noqa: F811
    assert get_status(site, [path]) == {path: 404}


def test_long_paths_never_reach_the_disk(tmp_path: Path) -> None:
    root = tmp_path.resolve()
    assert resolve_request_path(root, "py/" + "a" * 5000) is None
    assert resolve_request_path(root, "/".join(["py"] + ["b"] * 3000)) is None


@pytest.mark.parametrize(
    ("target", "location"),
    [
        ("///bench/bare", "/bench/bare/"),
        ("//bench//bare", "/bench/bare/"),
        ("/bench/bare?x=1&y=%26", "/bench/bare/?x=1&y=%26"),
        ("/bench/bare?q=%0d%0aSet-Cookie:x", "/bench/bare/?q=%0D%0ASet-Cookie:x"),
        ("////bench/bare?//evil", "/bench/bare/?//evil"),
    ],
)
def test_redirects_are_never_scheme_relative(repo_like: Path, target: str, location: str) -> None:
    async def test(client: TestClient) -> None:
        reader, writer = await asyncio.open_connection(client.host, client.port)
        writer.write(f"GET {target} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".encode())
        await writer.drain()
        head = (await reader.read()).decode("latin-1").split("\r\n\r\n")[0]
        writer.close()
        assert head.startswith("HTTP/1.1 301")
        assert f"\r\nLocation: {location}\r\n" in head

    with_client(repo_like, test)


@pytest.mark.parametrize("target", ["///css", "///docs", "//css/", "/\\\\evil.example/", "//evil"])
def test_odd_folders_are_404_not_redirects(repo_like: Path, target: str) -> None:
    async def test(client: TestClient) -> None:
        assert await raw_status(client, target) == 404

    with_client(repo_like, test)


def check_security_headers(headers: dict[str, str] | object, what: str) -> None:
    for name, value in SECURITY_HEADERS.items():
        assert headers.get(name) == value, (what, name, headers.get(name))
    server = headers.get("Server", "")
    assert server == "Courtyard Ludo", (what, server)


def test_every_response_carries_the_security_headers(repo_like: Path) -> None:
    async def extra(request: web.Request) -> web.Response:
        return web.Response(text="a route that is not a file")

    async def test(client: TestClient) -> None:
        ok = await client.get("/sw.js")
        assert ok.status == 200
        check_security_headers(ok.headers, "200")
        cached = await client.get("/sw.js", headers={"If-None-Match": ok.headers["ETag"]})
        assert cached.status == 304
        check_security_headers(cached.headers, "304")
        for method, path, status in [
            ("GET", "/Makefile", 404),
            ("GET", "/bench/bare", 301),
            ("POST", "/", 405),
            ("PUT", "/index.html", 405),
            ("DELETE", "/nope", 405),
            ("OPTIONS", "/", 405),
            ("GET", "/signal", 200),
        ]:
            response = await client.request(method, path, allow_redirects=False)
            assert response.status == status, (method, path)
            check_security_headers(response.headers, f"{method} {path}")

    with_client(repo_like, test, make_app(repo_like, routes=[web.get("/signal", extra)]))


def test_a_request_aiohttp_cannot_parse_has_no_versions_either(site: Path) -> None:  # noqa: F811
    async def test(client: TestClient) -> None:
        reader, writer = await asyncio.open_connection(client.host, client.port)
        writer.write(b"GET / HTTP/1.1\r\nHost: x\r\nBad Header: y\r\n\r\n")
        await writer.drain()
        head = (await reader.read()).decode("latin-1").split("\r\n\r\n")[0]
        writer.close()
        assert head.split(" ")[1] == "400"
        assert "\r\nServer: Courtyard Ludo\r\n" in head + "\r\n"
        assert "aiohttp" not in head.lower() and "python" not in head.lower()

    with_client(site, test)


def test_the_policy_fits_pyscript_and_forbids_framing() -> None:
    directives = SECURITY_HEADERS["Content-Security-Policy"].split("; ")
    policy = dict(directive.split(" ", 1) for directive in directives)
    assert policy["frame-ancestors"] == "'none'"
    # PyScript needs eval; what stays forbidden is inline script and other origins.
    assert policy["script-src"] == "'self' 'unsafe-eval' 'wasm-unsafe-eval'"
    assert policy["object-src"] == "'none'"
    assert policy["default-src"] == "'self'"
    assert SECURITY_HEADERS["Referrer-Policy"] == "no-referrer"
    assert SECURITY_HEADERS["X-Content-Type-Options"] == "nosniff"


def test_a_page_may_run_its_own_inline_scripts_and_no_others(repo_like: Path) -> None:
    script = "\n  window.early = 1;\n"
    expected = "sha256-" + base64.b64encode(hashlib.sha256(script.encode()).digest()).decode()
    assert inline_script_hashes((repo_like / "index.html").read_bytes()) == [expected]

    async def test(client: TestClient) -> None:
        page = await client.get("/")
        policy = page.headers["Content-Security-Policy"]
        assert f"script-src 'self' 'unsafe-eval' 'wasm-unsafe-eval' '{expected}';" in policy
        assert "frame-ancestors 'none'" in policy
        # The hash is of this page's script only: another page, or a script, gets none.
        bare = await client.get("/bench/bare/index.html")
        assert bare.headers["Content-Security-Policy"] == SECURITY_HEADERS[
            "Content-Security-Policy"
        ]

    with_client(repo_like, test)


def test_the_repository_page_has_hashes_for_all_its_inline_scripts() -> None:
    html = (REPO / "index.html").read_text(encoding="utf-8")
    inline = re.findall(r"<script(?![^>]*\bsrc=)[^>]*>(.*?)</script>", html, re.S)
    assert len(inline_script_hashes(html.encode())) == len(set(inline))


def test_gzip_and_plain_bodies_have_different_strong_etags(site: Path) -> None:  # noqa: F811
    path = "/vendor/pyscript/core.js"

    async def test(client: TestClient) -> None:
        packed = await client.get(path, headers={"Accept-Encoding": "gzip"}, auto_decompress=False)
        plain = await client.get(path, headers={"Accept-Encoding": "identity"})
        assert packed.headers["Content-Encoding"] == "gzip"
        gz_tag, plain_tag = packed.headers["ETag"], plain.headers["ETag"]
        assert gz_tag != plain_tag
        assert not gz_tag.startswith("W/") and not plain_tag.startswith("W/")
        # Each revalidates only itself: a cache holding the plain body may not be told that
        # it is good for the gzipped representation, nor the other way round.
        same_gz = await client.get(
            path, headers={"Accept-Encoding": "gzip", "If-None-Match": gz_tag}
        )
        assert same_gz.status == 304 and same_gz.headers["ETag"] == gz_tag
        cross = await client.get(
            path,
            headers={"Accept-Encoding": "gzip", "If-None-Match": plain_tag},
            auto_decompress=False,
        )
        assert cross.status == 200 and cross.headers["ETag"] == gz_tag
        same_plain = await client.get(
            path, headers={"Accept-Encoding": "identity", "If-None-Match": f"W/{plain_tag}"}
        )
        assert same_plain.status == 304 and same_plain.headers["ETag"] == plain_tag

    with_client(site, test)


# ---- python -m server: start-up errors and notices -------------------------------------------


def run_server(env_overrides: dict[str, str], args: tuple[str, ...] = ()) -> tuple[int, str, str]:
    """Run `python -m server` to its end: exit status, stdout, stderr. It ends within a second
    here; the 30 s cap only stops a server that does not end (a machine busy with browser
    tests made a 10 s cap fail an ending server twice)."""
    env = dict(os.environ, **env_overrides)
    try:
        done = subprocess.run(
            [sys.executable, "-m", "server", *args],
            cwd=REPO,
            env=env,
            capture_output=True,
            text=True,
            timeout=30,
        )
    except subprocess.TimeoutExpired as expired:
        raise AssertionError(f"still running: {expired.stdout!r} {expired.stderr!r}") from None
    return done.returncode, done.stdout, done.stderr


def one_line_error(stderr: str) -> str:
    assert "Traceback" not in stderr
    lines = stderr.strip().splitlines()
    assert len(lines) == 1, stderr
    assert lines[0].startswith("python -m server: ")
    return lines[0]


@pytest.mark.parametrize(
    ("env", "args", "says"),
    [
        ({"PORT": "abc"}, (), "PORT='abc' is not a port number"),
        ({"PORT": "99999"}, (), "PORT=99999 is out of range"),
        ({"PORT": "-1"}, (), "PORT=-1 is out of range"),
        ({"PORT": ""}, ("--port", "http"), "--port='http' is not a port number"),
        ({"HOST": "no-such-host.invalid", "PORT": "0"}, (), "the name does not resolve"),
        ({"LUDO_ROOT": "/no/such/folder"}, (), "/no/such/folder is not a directory"),
        ({"LUDO_ROOT": "/" + "x" * 5000}, (), "is not a directory"),
    ],
)
def test_bad_settings_end_with_one_line(env: dict[str, str], args: tuple[str, ...], says: str):
    status, _, stderr = run_server({"HOST": "127.0.0.1", **env}, args)
    assert status in (1, 2)
    assert says in one_line_error(stderr)


def test_a_port_in_use_ends_with_one_line() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        status, _, stderr = run_server({"HOST": "127.0.0.1", "PORT": str(port)})
    assert status == 1
    assert f"port {port} on 127.0.0.1 is already in use" in one_line_error(stderr)


def test_bind_address_refuses_what_is_no_port() -> None:
    for text in ("abc", "99999", "-5", "80.5", "1e3"):
        with pytest.raises(AddressError):
            bind_address({"PORT": text})
    assert bind_address({"PORT": " 8080 "}) == ("127.0.0.1", 8080)


def test_listening_on_every_interface_says_the_game_is_reachable(tmp_path: Path) -> None:
    (tmp_path / "index.html").write_text("<!doctype html><title>Ludo</title>")
    env = dict(os.environ, HOST="0.0.0.0", PORT="0", PYTHONUNBUFFERED="1")
    proc = subprocess.Popen(
        [sys.executable, "-m", "server", "--root", str(tmp_path)],
        cwd=REPO,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    # The start-up lines come at once; a server that says less is stopped after 30 s.
    timer = threading.Timer(30, proc.terminate)
    timer.start()
    try:
        assert proc.stdout is not None
        first, second = proc.stdout.readline(), proc.stdout.readline()
    finally:
        timer.cancel()
        proc.terminate()
        proc.wait(timeout=10)
    assert "being served at http://127.0.0.1:" in first
    assert "HOST=0.0.0.0 makes the game reachable from other machines" in second


def test_only_loopback_hosts_count_as_local() -> None:
    assert all(map(is_local_only, ["127.0.0.1", "127.8.9.1", "::1", "[::1]", "localhost"]))
    assert not any(map(is_local_only, ["0.0.0.0", "::", "", "192.168.1.4", "ludo.example"]))
