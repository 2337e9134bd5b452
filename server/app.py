"""The aiohttp application that serves Courtyard Ludo's static site.

`make_app(root)` returns a `web.Application` serving the files under `root` (the repo root, or
a `make dist` folder). Routes that are not files, such as a later WebSocket signalling endpoint,
are passed in through `routes=` and are matched before the static catch-all.

Caching: every response carries `Cache-Control: no-cache` plus an ETag and Last-Modified, so the
browser keeps its copy but revalidates it (a cheap 304) on each load. File names here are not
content-hashed (vendor/pyodide/pyodide.asm.wasm keeps its name across upgrades, py/*.py change
all the time), so a long max-age would risk a page mixing old and new files; offline use is the
service worker's job, not the HTTP cache's.

Compression: text-like files (and .wasm, which gzips to about a third) are gzipped once per
file version and kept in memory, so the 13 MB runtime costs no CPU after the first request. The
large runtime files are compressed in the background at start-up.
"""

from __future__ import annotations

import asyncio
import gzip
import hashlib
import mimetypes
import os
from collections.abc import AsyncIterator, Iterable
from dataclasses import dataclass
from email.utils import formatdate
from pathlib import Path, PurePosixPath

from aiohttp import web

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

# Never served, wherever they appear: hidden entries (.git, .venv, .env, ...) and caches.
DENIED_PARTS = frozenset({"__pycache__"})
# Never served at the top of the root: development-only trees.
DENIED_TOP = frozenset({"node_modules", "tests", "server", "tools"})
# Files gzipped in the background at start-up, so even the first visitor gets them compressed.
WARM_GLOBS = ("vendor/pyodide/*", "vendor/pyscript/*.js")

ROOT_KEY = web.AppKey("root", Path)


@dataclass(frozen=True)
class CachedFile:
    """One version of a file, as read and (maybe) compressed."""

    stamp: tuple[int, int]  # (mtime_ns, size): a changed file gets a new entry
    body: bytes
    gzipped: bytes | None
    etag: str
    last_modified: str
    content_type: str


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
    return CachedFile(
        stamp=stamp,
        body=body,
        gzipped=gzipped,
        etag=f'"{digest}"',
        last_modified=formatdate(stamp[0] / 1e9, usegmt=True),
        content_type=content_type_for(path),
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


def resolve_request_path(root: Path, url_path: str) -> Path | None:
    """Map a decoded URL path to a file or directory under root, or None if it must not be served.

    Rejects `..` and hidden segments outright (rather than normalising them away) and then
    checks the resolved path is still inside root, which also stops symlinks pointing out.
    """
    parts = [p for p in PurePosixPath("/" + url_path).parts if p != "/"]
    for part in parts:
        if part in ("..", ".") or part.startswith(".") or part in DENIED_PARTS:
            return None
        if "\\" in part or "\x00" in part:
            return None
    if parts and parts[0] in DENIED_TOP:
        return None
    candidate = root.joinpath(*parts).resolve()
    if candidate != root and root not in candidate.parents:
        return None
    return candidate


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


async def handle_static(request: web.Request) -> web.StreamResponse:
    root = request.app[ROOT_KEY]
    url_path = request.match_info["path"]
    target = resolve_request_path(root, url_path)
    if target is None:
        raise web.HTTPNotFound()
    if target.is_dir():
        # Relative URLs in an index page resolve against the directory only with the slash.
        if url_path and not url_path.endswith("/"):
            location = request.rel_url.with_path(request.path + "/").with_query(request.query)
            raise web.HTTPMovedPermanently(location=str(location))
        target = target / "index.html"
    if not target.is_file():
        raise web.HTTPNotFound()

    try:
        entry = await request.app[CACHE_KEY].get(target)
    except OSError:  # removed or unreadable since the checks above
        raise web.HTTPNotFound() from None
    headers = {
        "Cache-Control": "no-cache",
        "ETag": entry.etag,
        "Last-Modified": entry.last_modified,
        # Pages here never need to be framed or sniffed as another type.
        "X-Content-Type-Options": "nosniff",
    }
    if entry.gzipped is not None:
        headers["Vary"] = "Accept-Encoding"

    if_none_match = request.headers.get("If-None-Match")
    if if_none_match is not None:
        if entry.etag in (tag.strip() for tag in if_none_match.split(",")) or if_none_match == "*":
            return web.Response(status=304, headers=headers)
    elif request.headers.get("If-Modified-Since") == entry.last_modified:
        return web.Response(status=304, headers=headers)

    body = entry.body
    if entry.gzipped is not None and _accepts_gzip(request.headers.get("Accept-Encoding", "")):
        body = entry.gzipped
        headers["Content-Encoding"] = "gzip"
    headers["Content-Type"] = entry.content_type
    return web.Response(body=body, headers=headers)


async def _warm_cache(app: web.Application) -> None:
    root, cache = app[ROOT_KEY], app[CACHE_KEY]
    for pattern in WARM_GLOBS:
        for path in sorted(root.glob(pattern)):
            try:
                await cache.get(path)
            except OSError:
                pass  # not vendored yet, or a directory: the first request will say so


async def _start_warming(app: web.Application) -> AsyncIterator[None]:
    task = asyncio.create_task(_warm_cache(app))
    yield
    task.cancel()


def make_app(root: Path | str, routes: Iterable[web.AbstractRouteDef] = ()) -> web.Application:
    """The site's application: `routes` first (e.g. a WebSocket route), then static files."""
    app = web.Application()
    app[ROOT_KEY] = Path(root).resolve()
    app[CACHE_KEY] = FileCache()
    app.router.add_routes(list(routes))
    # Registered last: it matches every path, so anything added after it would never be reached.
    app.router.add_get("/{path:.*}", handle_static)
    app.cleanup_ctx.append(_start_warming)
    return app


def default_root() -> Path:
    """The repository root (the parent of this package), which holds index.html."""
    return Path(__file__).resolve().parent.parent


def bind_address(env: dict[str, str] | None = None) -> tuple[str, int]:
    """HOST and PORT from the environment, defaulting to 127.0.0.1:8000 (local only)."""
    env = os.environ if env is None else env
    host = env.get("HOST") or "127.0.0.1"
    port = int(env.get("PORT") or 8000)
    return host, port
