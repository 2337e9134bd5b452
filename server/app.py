"""The aiohttp application that serves Courtyard Ludo's static site.

`make_app(root)` returns a `web.Application` serving the site's files under `root` (the repo
root, or a `make dist` folder). Routes that are not files, such as a later WebSocket signalling
endpoint, are passed in through `routes=` and are matched before the static catch-all.

What is served: the site as tools/site_files.py defines it, the same list `make dist` copies
(the page, manifest, sw.js, pyscript.toml, css/, icons/, py/, vendor/, and the development pages
of tools/build_sw.py's other targets). Everything else in the repository answers 404, and so
does a symbolic link that leads anywhere else. A path the disk cannot even look up (too long,
undecodable) is simply not part of the site: 404, never 500.

Every response, errors and redirects included, carries the security headers of
`SECURITY_HEADERS` (a Content-Security-Policy that lets PyScript boot, eval and WebAssembly
included, but loads scripts from this origin only and runs no inline script or event-handler
attribute but the page's own scripts; no framing; no Referer; no MIME sniffing) and
a `Server` header without versions. An HTML page's policy also allows its own inline scripts by
their SHA-256 hashes, computed when the page is read, so editing such a script needs no change
here.

Caching: every response carries `Cache-Control: no-cache` plus an ETag and Last-Modified, so the
browser keeps its copy but revalidates it (a cheap 304) on each load. File names here are not
content-hashed (vendor/pyodide/pyodide.asm.wasm keeps its name across upgrades, py/*.py change
all the time), so a long max-age would risk a page mixing old and new files; offline use is the
service worker's job, not the HTTP cache's. The gzipped and the plain body of a file are two
representations with different bytes, so they get different strong ETags.

Compression: text-like files (and .wasm, which gzips to about a third) are gzipped once per
file version and kept in memory, so the 13 MB runtime costs no CPU after the first request. The
large runtime files are compressed in the background at start-up.
"""

from __future__ import annotations

import asyncio
import base64
import gzip
import hashlib
import logging
import mimetypes
import os
from collections.abc import AsyncIterator, Iterable
from dataclasses import dataclass
from email.utils import formatdate
from html.parser import HTMLParser
from pathlib import Path

from aiohttp import web, web_response
from aiohttp.http_exceptions import HttpProcessingError
from yarl import URL

from tools import site_files

# Explicit types for what the app serves; anything else falls back to `mimetypes`.
MIME_TYPES: dict[str, str] = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".mjs": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".json": "application/json",
    ".map": "application/json",
    ".webmanifest": "application/manifest+json",
    ".wasm": "application/wasm",
    ".zip": "application/zip",
    ".bin": "application/octet-stream",  # vendor/pyodide/pyodide-snapshot.bin (gzipped already)
    ".toml": "application/toml; charset=utf-8",
    ".py": "text/x-python; charset=utf-8",
    ".txt": "text/plain; charset=utf-8",
    ".md": "text/markdown; charset=utf-8",
    ".svg": "image/svg+xml",
    ".png": "image/png",
    ".ico": "image/x-icon",
    ".woff2": "font/woff2",
}

# Worth gzipping. .zip (python_stdlib.zip), images and fonts are already compressed.
COMPRESSIBLE = frozenset(
    {
        ".html",
        ".js",
        ".mjs",
        ".css",
        ".json",
        ".map",
        ".webmanifest",
        ".wasm",
        ".toml",
        ".py",
        ".txt",
        ".md",
        ".svg",
        ".ico",
    }
)
MIN_COMPRESS_SIZE = 1024  # below this, gzip's header and the CPU are not worth it
GZIP_LEVEL = 6  # level 9 is several times slower on the wasm for about 1% smaller output
MAX_CACHED_SIZE = 64 * 1024 * 1024  # bigger files are read from disk each time, uncompressed

# Files gzipped in the background at start-up, so even the first visitor gets them compressed.
WARM_GLOBS = ("vendor/pyodide/*", "vendor/pyscript/*.js")

# The Content-Security-Policy, directive by directive. PyScript needs no more than this:
# - script-src: modules from this origin only, and no inline script but the page's own (by
#   hash, see content_security_policy). 'unsafe-eval' because PyScript 0.7 builds functions
#   from strings while it boots (its hook chains, `Function("return(w,x)=>...")`) and refuses
#   to start without it; 'wasm-unsafe-eval' names the WebAssembly compile of Pyodide itself,
#   which 'unsafe-eval' also allows. What the policy still stops is what matters against
#   injected markup: inline scripts, event-handler attributes, javascript: URLs and scripts
#   from any other origin. Python code reaches the interpreter as files it fetches
#   (connect-src), which only this origin may serve.
# - style-src 'self': the app's and PyScript's stylesheets; scripts set element.style through the
#   CSSOM, which the policy does not restrict.
# - img-src data: blob:: the board and icons are same-origin; pages use data: URLs for icons.
# - connect-src 'self': fetches of pyscript.toml, py/ files and the runtime; 'self' also covers a
#   WebSocket to this same host and port in current browsers (CSP Level 3).
# - frame-ancestors 'none': no other page may frame the game (clickjacking).
CSP_DIRECTIVES: tuple[tuple[str, str], ...] = (
    ("default-src", "'self'"),
    ("script-src", "'self' 'unsafe-eval' 'wasm-unsafe-eval'"),
    ("style-src", "'self'"),
    ("img-src", "'self' data: blob:"),
    ("font-src", "'self'"),
    ("connect-src", "'self'"),
    ("worker-src", "'self'"),
    ("manifest-src", "'self'"),
    ("object-src", "'none'"),
    ("base-uri", "'none'"),
    ("form-action", "'self'"),
    ("frame-ancestors", "'none'"),
)


def content_security_policy(script_hashes: Iterable[str] = ()) -> str:
    """The policy, with `'sha256-…'` sources for a page's own inline scripts added."""
    extra = "".join(f" '{h}'" for h in script_hashes)
    return "; ".join(
        f"{name} {value}{extra if name == 'script-src' else ''}" for name, value in CSP_DIRECTIVES
    )


# No version numbers: they only help someone looking for a known hole.
SERVER_NAME = "Courtyard Ludo"
SECURITY_HEADERS: dict[str, str] = {
    "Content-Security-Policy": content_security_policy(),
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",  # frame-ancestors 'none' for browsers that predate it
    "Referrer-Policy": "no-referrer",
}
# aiohttp answers a request it cannot even parse (a bad request line, an oversized header)
# before any application sees it, and names its own and Python's version in that response's
# Server header. Its response class reads this module constant for the default: set it once.
web_response.SERVER_SOFTWARE = SERVER_NAME

ROOT_KEY = web.AppKey("root", Path)
HTML_SUFFIXES = frozenset({".html", ".htm"})


class _InlineScripts(HTMLParser):
    """Collects the text of every <script> element that has no src (as the browser hashes it)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=False)
        self.scripts: list[str] = []
        self._current: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "script" and not any(name == "src" for name, _ in attrs):
            self._current = []

    def handle_data(self, data: str) -> None:
        if self._current is not None:
            self._current.append(data)

    def handle_endtag(self, tag: str) -> None:
        if tag == "script" and self._current is not None:
            self.scripts.append("".join(self._current))
            self._current = None


def inline_script_hashes(html: bytes) -> list[str]:
    """CSP hash sources ("sha256-<base64>") of a page's inline scripts, in page order."""
    parser = _InlineScripts()
    parser.feed(html.decode("utf-8", "replace"))
    parser.close()
    hashes = []
    for text in parser.scripts:
        digest = hashlib.sha256(text.encode("utf-8")).digest()
        hashes.append("sha256-" + base64.b64encode(digest).decode("ascii"))
    return list(dict.fromkeys(hashes))


@dataclass(frozen=True)
class CachedFile:
    """One version of a file, as read and (maybe) compressed."""

    stamp: tuple[int, int]  # (mtime_ns, size): a changed file gets a new entry
    body: bytes
    gzipped: bytes | None
    etag: str  # of `body`
    gzip_etag: str  # of `gzipped`: another representation, so another strong ETag
    last_modified: str
    content_type: str
    csp: str  # the Content-Security-Policy to send with it


def content_type_for(path: Path) -> str:
    suffix = path.suffix.lower()
    if suffix in MIME_TYPES:
        return MIME_TYPES[suffix]
    guessed, _ = mimetypes.guess_type(path.name)
    return guessed or "application/octet-stream"


def _load(path: Path, stamp: tuple[int, int]) -> CachedFile:
    """Read and compress one file; runs in a worker thread (gzip of the wasm takes ~0.5 s)."""
    body = path.read_bytes()
    gzipped = None
    if path.suffix.lower() in COMPRESSIBLE and len(body) >= MIN_COMPRESS_SIZE:
        # mtime=0 keeps the output identical for identical input.
        packed = gzip.compress(body, compresslevel=GZIP_LEVEL, mtime=0)
        if len(packed) < len(body):
            gzipped = packed
    digest = hashlib.blake2b(body, digest_size=12).hexdigest()
    csp = SECURITY_HEADERS["Content-Security-Policy"]
    if path.suffix.lower() in HTML_SUFFIXES:
        csp = content_security_policy(inline_script_hashes(body))
    return CachedFile(
        stamp=stamp,
        body=body,
        gzipped=gzipped,
        etag=f'"{digest}"',
        gzip_etag=f'"{digest}-gzip"',
        last_modified=formatdate(stamp[0] / 1e9, usegmt=True),
        content_type=content_type_for(path),
        csp=csp,
    )


class FileCache:
    """In-memory cache of file contents and their gzip, keyed by path and (mtime, size)."""

    def __init__(self) -> None:
        self._entries: dict[Path, CachedFile] = {}
        # One load per file version even when many requests for it arrive at once.
        self._pending: dict[tuple[Path, tuple[int, int]], asyncio.Future[CachedFile]] = {}

    async def get(self, path: Path) -> CachedFile:
        st = path.stat()
        stamp = (st.st_mtime_ns, st.st_size)
        entry = self._entries.get(path)
        if entry is not None and entry.stamp == stamp:
            return entry
        key = (path, stamp)
        pending = self._pending.get(key)
        if pending is None:
            pending = asyncio.get_running_loop().run_in_executor(None, _load, path, stamp)
            self._pending[key] = pending
            pending.add_done_callback(lambda done: self._loaded(key, done))
        # Shielded: a client that disconnects must not cancel the load other requests await.
        return await asyncio.shield(pending)

    def _loaded(self, key: tuple[Path, tuple[int, int]], done: asyncio.Future[CachedFile]) -> None:
        del self._pending[key]
        if done.cancelled() or done.exception() is not None:
            return
        entry = done.result()
        if len(entry.body) <= MAX_CACHED_SIZE:
            self._entries[key[0]] = entry


CACHE_KEY = web.AppKey("file_cache", FileCache)


def url_parts(url_path: str) -> tuple[str, ...]:
    """The segments of a decoded URL path; empty segments ("a//b", "///a") are dropped."""
    return tuple(part for part in url_path.split("/") if part)


def resolve_request_path(root: Path, url_path: str) -> Path | None:
    """The real path of the site file a decoded URL path names, or None if it is not served.

    `root` must be resolved. Directories are not files of the site: "/" and "/bench/bare/" are
    asked for as their index.html by the handler. See tools/site_files.py for what is served and
    how symbolic links are judged.
    """
    real = site_files.resolve(root, url_parts(url_path))
    if real is None:
        return None
    try:
        return real if real.is_file() else None
    except (OSError, ValueError):
        return None


def _accepts_gzip(header: str) -> bool:
    for item in header.split(","):
        coding, _, params = item.strip().partition(";")
        if coding.strip().lower() in ("gzip", "*"):
            q = params.strip().lower().replace(" ", "")
            if not q.startswith("q="):
                return True
            try:
                return float(q[2:]) > 0
            except ValueError:
                return False
    return False


def _etag_matches(header: str, etag: str) -> bool:
    """If-None-Match uses the weak comparison: W/"x" matches "x"."""
    if header.strip() == "*":
        return True
    return any(tag.strip().removeprefix("W/") == etag for tag in header.split(","))


async def handle_static(request: web.Request) -> web.StreamResponse:
    root = request.app[ROOT_KEY]
    url_path = request.match_info["path"]
    parts = url_parts(url_path)
    if url_path.endswith("/") or not parts:
        target = resolve_request_path(root, "/".join((*parts, "index.html")))
    else:
        target = resolve_request_path(root, url_path)
        # A folder with a page: relative URLs in it resolve against the folder only with the
        # trailing slash. The Location is built from the clean segments, so it always starts
        # with exactly one "/" (a "//host/..." Location would send the browser elsewhere).
        if target is None and resolve_request_path(root, "/".join((*parts, "index.html"))):
            location = str(URL.build(path="/" + "/".join(parts) + "/"))
            _, mark, query = request.raw_path.partition("?")
            location += mark + query  # as the client sent it
            raise web.HTTPMovedPermanently(location=location)
    if target is None:
        raise web.HTTPNotFound()

    try:
        entry = await request.app[CACHE_KEY].get(target)
    except OSError:  # removed or unreadable since the checks above
        raise web.HTTPNotFound() from None

    gzipped = entry.gzipped is not None and _accepts_gzip(
        request.headers.get("Accept-Encoding", "")
    )
    etag = entry.gzip_etag if gzipped else entry.etag
    headers = {
        "Cache-Control": "no-cache",
        "ETag": etag,
        "Last-Modified": entry.last_modified,
        "Content-Security-Policy": entry.csp,
    }
    if entry.gzipped is not None:
        headers["Vary"] = "Accept-Encoding"

    if_none_match = request.headers.get("If-None-Match")
    if if_none_match is not None:
        if _etag_matches(if_none_match, etag):
            return web.Response(status=304, headers=headers)
    elif request.headers.get("If-Modified-Since") == entry.last_modified:
        return web.Response(status=304, headers=headers)

    body = entry.body
    if gzipped:
        assert entry.gzipped is not None
        body = entry.gzipped
        headers["Content-Encoding"] = "gzip"
    headers["Content-Type"] = entry.content_type
    return web.Response(body=body, headers=headers)


async def _security_headers(request: web.Request, response: web.StreamResponse) -> None:
    """on_response_prepare: every response the app sends, errors and redirects too."""
    for name, value in SECURITY_HEADERS.items():
        response.headers.setdefault(name, value)
    response.headers["Server"] = SERVER_NAME


async def _warm_cache(app: web.Application) -> None:
    root, cache = app[ROOT_KEY], app[CACHE_KEY]
    for pattern in WARM_GLOBS:
        for path in sorted(root.glob(pattern)):
            real = site_files.resolve(root, path.relative_to(root).parts)
            if real is None:
                continue
            try:
                await cache.get(real)
            except OSError:
                pass  # not vendored yet, or a directory: the first request will say so


async def _start_warming(app: web.Application) -> AsyncIterator[None]:
    task = asyncio.create_task(_warm_cache(app))
    yield
    task.cancel()


class _QuietClientErrors(logging.Filter):
    """Logs a request aiohttp could not parse as one line, without a traceback.

    Such a request (a garbled request line, an oversized header, a TLS handshake sent to this
    plain-HTTP port) is the client's fault and gets a 400; the traceback would only say where
    in aiohttp's parser it stopped.
    """

    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        if isinstance(exc, HttpProcessingError):
            said = record.getMessage()
            record.msg, record.args = "%s (%s: %.200s)", (said, type(exc).__name__, exc.message)
            record.exc_info = None
            record.exc_text = None
            record.levelno, record.levelname = logging.INFO, "INFO"
        return True


HTTP_LOGGER = logging.getLogger("server.http")
HTTP_LOGGER.addFilter(_QuietClientErrors())


def make_app(root: Path | str, routes: Iterable[web.AbstractRouteDef] = ()) -> web.Application:
    """The site's application: `routes` first (e.g. a WebSocket route), then static files.

    Every route, `routes` included, gets the security headers; a route that needs another
    policy sets that header itself (they are added only where missing).
    """
    app = web.Application(handler_args={"logger": HTTP_LOGGER})
    app[ROOT_KEY] = Path(root).resolve()
    app[CACHE_KEY] = FileCache()
    app.router.add_routes(list(routes))
    # Registered last: it matches every path, so anything added after it would never be reached.
    app.router.add_get("/{path:.*}", handle_static)
    app.on_response_prepare.append(_security_headers)
    app.cleanup_ctx.append(_start_warming)
    return app


def default_root() -> Path:
    """The repository root (the parent of this package), which holds index.html."""
    return Path(__file__).resolve().parent.parent


class AddressError(ValueError):
    """HOST or PORT cannot be used; the message is one line for the person who set it."""


def parse_port(text: str, name: str = "PORT") -> int:
    """A TCP port number from text: 0 (any free port) to 65535."""
    try:
        port = int(text.strip())
    except ValueError:
        raise AddressError(f"{name}={text!r} is not a port number (0-65535)") from None
    if not 0 <= port <= 65535:
        raise AddressError(f"{name}={text} is out of range: a port is 0-65535")
    return port


def bind_address(env: dict[str, str] | None = None) -> tuple[str, int]:
    """HOST and PORT from the environment, defaulting to 127.0.0.1:8000 (local only).

    Raises AddressError for a PORT that is not a number from 0 to 65535.
    """
    env = os.environ if env is None else env
    host = env.get("HOST") or "127.0.0.1"
    port_text = env.get("PORT") or "8000"
    return host, parse_port(port_text)
