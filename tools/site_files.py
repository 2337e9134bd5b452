"""What the site is: the files a browser may fetch from the app's origin, and nothing else.

One definition for the two places that need it: tools/build_dist.py copies exactly these files
into dist/, and the local server (server/app.py) serves exactly these files out of the
repository, so nothing else in the checkout (Makefile, docs/, tests/, .git, ...) is reachable.

- ENTRIES: the site's top-level files and folders. A folder is shipped whole, less IGNORED.
  A new module under py/ or a new file under vendor/ (such as a vendored pure-Python wheel) is
  part of the site as soon as it exists; nothing here needs to change.
- Development pages: the folder of every other page that tools/build_sw.py builds a service
  worker for (bench/bare/, the bare PyScript page the boot benchmark measures against). The local
  server serves those folders too; dist/ does not ship them.
- IGNORED: names never shipped at any depth: hidden files and folders (.git, .venv, .env, ...),
  Python caches, egg-info, and the temporary files the build tools write before renaming.

Symbolic links are followed, then checked again where they lead (`resolve`): a link may point to
another file of the site (it is then served as that file), never to anything else in the
repository. Only a top-level entry may lead outside the root: a git worktree's `vendor` that
links to the main checkout's runtime is the developer's own choice, and what lies inside it is
held to the same name rules.

Standard library only (`make dist` runs with the system Python).
"""

from __future__ import annotations

import fnmatch
import os
import posixpath
from collections.abc import Iterator
from pathlib import Path

try:
    from tools import build_sw
except ImportError:  # run as a script: tools/ itself is first on sys.path
    import build_sw

# Everything a browser may fetch from the app's origin; nothing for development only.
ENTRIES = (
    "index.html",
    "manifest.webmanifest",
    "manifest.json",
    "sw.js",
    "favicon.ico",
    "pyscript.toml",
    "py.zip",  # the page's modules in one archive (tools/build_pybundle.py), build output
    "css",
    "icons",
    "py",
    "vendor",
)
IGNORED = (".*", "__pycache__", "*.pyc", "*.egg-info", "*.tmp", "*.old")
# No file of the site has a longer path; anything longer is refused before the disk is asked.
# (Linux refuses names over 255 bytes and paths over 4096 with an error, not a "no such file".)
MAX_NAME_BYTES = 255
MAX_PATH_BYTES = 1024


def dev_folders() -> tuple[tuple[str, ...], ...]:
    """Folders of the development pages (one per build_sw target not at the site's root)."""
    folders = []
    for target in build_sw.TARGETS.values():
        folder = posixpath.dirname(target.page)
        if folder:
            folders.append(tuple(folder.split("/")))
    return tuple(sorted(set(folders)))


def name_allowed(name: str) -> bool:
    """Whether one path segment may appear in a served path at all."""
    if not name or name in (".", ".."):
        return False
    if any(ch in name for ch in "\\\x00") or any(ord(ch) < 0x20 or ord(ch) == 0x7F for ch in name):
        return False
    try:
        if len(name.encode("utf-8")) > MAX_NAME_BYTES:
            return False
    except UnicodeEncodeError:  # a lone surrogate: no file on disk is named that
        return False
    return not any(fnmatch.fnmatchcase(name, pattern) for pattern in IGNORED)


def entry_of(parts: tuple[str, ...], dev: bool = True) -> tuple[str, ...] | None:
    """The entry (top-level name, or development folder) that covers `parts`, if any."""
    if not parts:
        return None
    if dev:
        for folder in dev_folders():
            if len(parts) > len(folder) and parts[: len(folder)] == folder:
                return folder
    if parts[0] in ENTRIES:
        return parts[:1]
    return None


def is_site_path(parts: tuple[str, ...], dev: bool = True) -> bool:
    """Whether the root-relative path `parts` names something the site may serve (by name)."""
    if not parts or entry_of(parts, dev) is None:
        return False
    if sum(len(p.encode("utf-8", "surrogatepass")) + 1 for p in parts) > MAX_PATH_BYTES:
        return False
    return all(name_allowed(p) for p in parts)


def _within(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


def resolve(root: Path, parts: tuple[str, ...], dev: bool = True) -> Path | None:
    """The real path of site file `parts` under `root` (resolved), or None if it is not served.

    None for names outside the site, and for symbolic links that lead anywhere but to another
    part of the site (see the module's docstring). The result may not exist: the caller checks.
    Never raises for odd names (too long, undecodable): those are simply not part of the site.
    """
    if not is_site_path(parts, dev):
        return None
    entry = entry_of(parts, dev)
    assert entry is not None
    try:
        real = root.joinpath(*parts).resolve()
        if _within(real, root):
            inside = real.relative_to(root).parts
            return real if is_site_path(inside, dev) else None
        real_entry = root.joinpath(*entry).resolve()
        if _within(real_entry, root) or not _within(real, real_entry):
            return None
        inner = real.relative_to(real_entry).parts
        return real if all(name_allowed(p) for p in inner) else None
    except (OSError, ValueError, RuntimeError):  # too long, undecodable, a symlink loop
        return None


def site_files(root: Path, dev: bool = False) -> Iterator[tuple[str, Path]]:
    """Every file of the site under `root`: (root-relative POSIX path, real path to read).

    `dev=False` is what dist/ ships; `dev=True` adds the development pages' folders.
    """
    root = root.resolve()
    tops = [(name,) for name in ENTRIES] + (list(dev_folders()) if dev else [])
    for top in tops:
        start = root.joinpath(*top)
        if start.is_file():
            if resolve(root, top, dev) is not None:
                yield "/".join(top), start
            continue
        if not start.is_dir():
            continue
        seen = {start.resolve()}  # real folders walked: a link loop is walked once
        for folder, dirs, files in os.walk(start, followlinks=True):
            rel = Path(folder).relative_to(root).parts
            kept = []
            for name in sorted(dirs):
                real = resolve(root, (*rel, name), dev) if name_allowed(name) else None
                if real is not None and real not in seen:
                    seen.add(real)
                    kept.append(name)
            dirs[:] = kept
            for name in sorted(files):
                parts = (*rel, name)
                if resolve(root, parts, dev) is not None:
                    yield "/".join(parts), root.joinpath(*parts)
