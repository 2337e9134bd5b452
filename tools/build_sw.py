"""Write the service worker (sw.js) with the exact list of files the page loads, hashed.

    python tools/build_sw.py                  # (re)write sw.js for index.html, if it changed
    python tools/build_sw.py --root dist      # the same inside a dist/ copy (build_dist does it)
    python tools/build_sw.py --check          # exit 1 if sw.js is missing or out of date
    python tools/build_sw.py --list           # print the precache list with sizes and hashes
    python tools/build_sw.py --target bare    # bench/bare/sw.js, for the boot benchmark

Nothing here is a hand-kept list: the precache is derived from the page.
- The page's own references: <link href> (stylesheets, icons, the manifest), <script src>, and
  a PyScript <script type="py" src config>.
- The web app manifest's icons; url() and @import in stylesheets.
- JavaScript modules: the static imports (`import ... from "./x.js"`) of every module reached,
  and the dynamic imports (`import("./x.js")`) of the modules the page loads outright. So
  everything PyScript's core can load by itself is in (its plugins, the TOML parser, and
  also what it loads only for some configs, such as the code editor), but not what an
  optional plugin loads on demand (the terminal's xterm, the editor's own TOML parser).
- The PyScript config (pyscript.toml): its [files], and the interpreter's directory whole
  (pyodide.mjs loads its four siblings: the wasm, its loader, the stdlib zip and the lock).
  For the app that is py.zip, the archive of every module it imports (tools/build_pybundle.py,
  built first): its hash, like any file's, is part of the cache version.

Each file gets a SHA-256 prefix; the cache name is the target's name plus a hash of the
template and the whole list, so any change to any file yields a new service worker and cache.
sw.js is only rewritten when its text changes (its ETag stays put otherwise). The e2e test
tests/e2e/test_offline.py checks that the page loads nothing the list misses.

Standard library only (make dist runs it with the system Python).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import posixpath
import re
import sys
import tomllib
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urljoin, urlsplit

ROOT = Path(__file__).resolve().parent.parent
TEMPLATE = Path(__file__).resolve().parent / "sw_template.js"
HASH_CHARS = 16  # 64 bits of SHA-256: enough to tell versions of a file apart
ORIGIN = "https://app.invalid/"  # a stand-in origin for resolving the page's relative URLs


@dataclass(frozen=True)
class Target:
    page: str  # the page, relative to the site root
    out: str  # where sw.js goes; its folder is the worker's scope
    name: str  # cache name prefix; a worker deletes only older caches with its own prefix
    extra_globs: tuple[str, ...] = ()


TARGETS = {
    "app": Target("index.html", "sw.js", "courtyard-ludo"),
    "bare": Target("bench/bare/index.html", "bench/bare/sw.js", "bare-pyscript"),
}

# Files of the page that a build step writes (not committed), and that step.
BUILT_BY = {"py.zip": "tools/build_pybundle.py", "vendor/pyodide/boot.mjs": "tools/vendor.py"}

STATIC_IMPORT = re.compile(r"""\b(?:from|import)\s*["'](\.{1,2}/[^"'\s]+)["']""")
DYNAMIC_IMPORT = re.compile(r"""\bimport\(\s*["'](\.{1,2}/[^"'\s]+)["']\s*\)""")
CSS_URL = re.compile(r"""url\(\s*["']?([^"')\s]+)["']?\s*\)|@import\s+["']([^"']+)["']""")


# The Content-Type the worker serves each precached file with, by extension (the types
# server/app.py serves them with). A stored copy's own headers are not trusted: any script of the
# origin can write into Cache Storage (tools/sw_template.js, `asServed`).
TYPES: dict[str, str] = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".mjs": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".json": "application/json",
    ".webmanifest": "application/manifest+json",
    ".wasm": "application/wasm",
    ".zip": "application/zip",
    ".bin": "application/octet-stream",
    ".toml": "application/toml; charset=utf-8",
    ".py": "text/x-python; charset=utf-8",
    ".txt": "text/plain; charset=utf-8",
    ".svg": "image/svg+xml",
    ".png": "image/png",
    ".ico": "image/x-icon",
    ".webp": "image/webp",
    ".woff2": "font/woff2",
}


class BuildError(Exception):
    """The page refers to something that cannot be precached."""


class _PageRefs(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.refs: list[tuple[str, str]] = []  # (kind, url)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v for k, v in attrs if v is not None}
        if tag == "link" and "href" in a:
            rels = a.get("rel", "").lower().split()
            if "manifest" in rels:
                self.refs.append(("manifest", a["href"]))
            elif rels and set(rels) <= {"stylesheet", "icon", "apple-touch-icon", "modulepreload",
                                        "preload", "shortcut", "mask-icon"}:
                self.refs.append(("css" if "stylesheet" in rels else "file", a["href"]))
        elif tag == "script":
            if "src" in a:
                kind = "js" if a.get("type", "") in ("", "module", "text/javascript") else "file"
                self.refs.append((kind, a["src"]))
            if "config" in a:
                self.refs.append(("config", a["config"]))
        elif tag in ("img", "source", "audio", "video") and "src" in a:
            self.refs.append(("file", a["src"]))


def file_hash(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()[:HASH_CHARS]


class Collector:
    """Walks the page's references; `files` maps root-relative paths to the reason found."""

    def __init__(self, root: Path, page: str) -> None:
        self.root = root
        self.page_url = urljoin(ORIGIN, page)
        self.files: dict[str, str] = {}
        self._js_done: dict[str, bool] = {}  # module -> followed its dynamic imports too

    def local(self, ref: str, base: str) -> str | None:
        """The root-relative path of a same-origin reference, or None for other origins/data."""
        absolute = urljoin(base, ref)
        parts = urlsplit(absolute)
        if f"{parts.scheme}://{parts.netloc}/" != ORIGIN:
            return None  # data:, blob:, another host: not ours to precache
        path = posixpath.normpath(parts.path).lstrip("/")
        return path or None

    def add(self, rel: str, why: str) -> Path:
        path = self.root / rel
        if not path.is_file():
            hint = f": build it with python {BUILT_BY[rel]}" if rel in BUILT_BY else ""
            raise BuildError(f"{rel} ({why}) is not a file under {self.root}{hint}")
        self.files.setdefault(rel, why)
        return path

    def page(self) -> None:
        rel = self.local(self.page_url, ORIGIN)
        assert rel is not None
        html = self.add(rel, "the page").read_text(encoding="utf-8")
        parser = _PageRefs()
        parser.feed(html)
        for kind, ref in parser.refs:
            target = self.local(ref, self.page_url)
            if target is None:
                continue
            why = f"<{kind}> in {rel}"
            if kind == "js":
                self.module(target, why, eager=True)
            elif kind == "css":
                self.stylesheet(target, why)
            elif kind == "manifest":
                self.manifest(target, why)
            elif kind == "config":
                self.config(target, why)
            else:
                self.add(target, why)

    def module(self, rel: str, why: str, eager: bool) -> None:
        if self._js_done.get(rel) is not None and (self._js_done[rel] or not eager):
            return
        self._js_done[rel] = eager
        source = self.add(rel, why).read_text(encoding="utf-8")
        base = urljoin(ORIGIN, rel)
        for spec in STATIC_IMPORT.findall(source):
            target = self.local(spec, base)
            if target is not None:
                self.module(target, f"imported by {rel}", eager)
        if eager:
            for spec in DYNAMIC_IMPORT.findall(source):
                target = self.local(spec, base)
                if target is not None:
                    self.module(target, f"imported on demand by {rel}", eager=False)

    def stylesheet(self, rel: str, why: str) -> None:
        source = self.add(rel, why).read_text(encoding="utf-8")
        base = urljoin(ORIGIN, rel)
        for url, imported in CSS_URL.findall(source):
            target = self.local(url or imported, base)
            if target is None:
                continue
            if imported:
                self.stylesheet(target, f"@import in {rel}")
            else:
                self.add(target, f"url() in {rel}")

    def manifest(self, rel: str, why: str) -> None:
        data = json.loads(self.add(rel, why).read_text(encoding="utf-8"))
        base = urljoin(ORIGIN, rel)
        images = list(data.get("icons", [])) + list(data.get("screenshots", []))
        for shortcut in data.get("shortcuts", []):
            images += shortcut.get("icons", [])
        for image in images:
            target = self.local(image["src"], base)
            if target is not None:
                self.add(target, f"icon in {rel}")

    def config(self, rel: str, why: str) -> None:
        text = self.add(rel, why).read_text(encoding="utf-8")
        data = json.loads(text) if rel.endswith(".json") else tomllib.loads(text)
        if data.get("packages"):
            raise BuildError(f"{rel} asks for packages, which would be fetched from elsewhere")
        # PyScript resolves these against the page's URL, not the config file's.
        interpreter = data.get("interpreter")
        if interpreter:
            target = self.local(interpreter, self.page_url)
            if target is not None:
                folder = (self.root / target).parent
                if not folder.is_dir():
                    raise BuildError(f"interpreter {interpreter} in {rel}: no such folder")
                # The module itself must exist (vendor/pyodide/boot.mjs is written by vendor.py).
                self.add(target, f"interpreter in {rel}")
                for path in sorted(folder.iterdir()):
                    if path.is_file() and not path.name.startswith("."):
                        self.add(path.relative_to(self.root).as_posix(), f"interpreter in {rel}")
        for source in data.get("files", {}):
            if source.startswith("{"):
                continue  # a {TEMPLATE} key, not a file
            target = self.local(source, self.page_url)
            if target is not None:
                self.add(target, f"[files] in {rel}")

    def globs(self, patterns: tuple[str, ...]) -> None:
        for pattern in patterns:
            for path in sorted(self.root.glob(pattern)):
                rel = path.relative_to(self.root)
                skip = any(p.startswith(".") or p == "__pycache__" or p.endswith(".egg-info")
                           for p in rel.parts)
                if path.is_file() and not skip:
                    self.add(rel.as_posix(), f"matches {pattern}")


def precache_files(root: Path, target: Target) -> dict[str, str]:
    """Root-relative path -> why it is precached, for every file the page needs."""
    collector = Collector(root, target.page)
    collector.page()
    collector.globs(target.extra_globs)
    return dict(sorted(collector.files.items()))


def build_info(root: Path, target: Target, template: str) -> dict[str, object]:
    sw_dir = posixpath.dirname(target.out) or "."
    files = {}
    for rel in precache_files(root, target):
        if posixpath.splitext(rel)[1].lower() not in TYPES:
            raise BuildError(f"{rel}: no Content-Type for its extension in build_sw.TYPES")
        url = posixpath.relpath(rel, sw_dir)
        files[url if url.startswith("../") else "./" + url] = file_hash(root / rel)
    digest = hashlib.sha256(template.encode("utf-8"))
    digest.update(json.dumps(files, sort_keys=True).encode("utf-8"))
    digest.update(json.dumps(TYPES, sort_keys=True).encode("utf-8"))
    version = digest.hexdigest()[:HASH_CHARS]
    index = posixpath.relpath(target.page, sw_dir)
    return {
        "name": target.name,
        "version": version,
        "cache": f"{target.name}-{version}",
        "index": "./" + index,
        "files": files,
        "types": TYPES,
    }


def render(root: Path, target: Target, template_path: Path = TEMPLATE) -> str:
    template = template_path.read_text(encoding="utf-8")
    info = build_info(root, target, template)
    header = (
        f"// Generated by tools/build_sw.py from tools/sw_template.js for {target.page}:"
        " do not edit.\n"
        f"// {len(info['files'])} files precached in cache {info['cache']}.\n"
    )
    return header + template.replace("__BUILD__", json.dumps(info, indent=2))


def write(root: Path, target: Target = TARGETS["app"]) -> bool:
    """Write sw.js for `target` under `root` if its text changed; returns whether it did."""
    text = render(root, target)
    out = root / target.out
    if out.is_file() and out.read_text(encoding="utf-8") == text:
        return False
    tmp = out.with_name(out.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(out)
    return True


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Write the service worker's precache list.")
    parser.add_argument("--root", type=Path, default=ROOT, help="site root (default: the repo)")
    parser.add_argument("--target", choices=sorted(TARGETS), default="app")
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--check", action="store_true", help="exit 1 if sw.js is out of date")
    group.add_argument("--list", action="store_true", help="print the precache list")
    args = parser.parse_args(argv)
    root, target = args.root.resolve(), TARGETS[args.target]
    try:
        if args.list:
            files = precache_files(root, target)
            total = 0
            for rel, why in files.items():
                size = (root / rel).stat().st_size
                total += size
                print(f"{size:>10}  {file_hash(root / rel)}  {rel}  ({why})")
            print(f"{len(files)} files, {total / 1e6:.2f} MB")
            return 0
        if args.check:
            out = root / target.out
            if not out.is_file() or out.read_text(encoding="utf-8") != render(root, target):
                print(f"{out} is out of date: run python tools/build_sw.py")
                return 1
            return 0
        if write(root, target):
            info = build_info(root, target, TEMPLATE.read_text(encoding="utf-8"))
            print(f"wrote {root / target.out} ({len(info['files'])} files, cache {info['cache']})")
    except BuildError as error:
        print(f"build_sw: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
