"""Write py.zip: every module the page imports (but py/main.py), in one archive.

    python tools/build_pybundle.py                 # (re)write py.zip if its content changed
    python tools/build_pybundle.py --check         # exit 1 if py.zip is missing or out of date
    python tools/build_pybundle.py --sources-only  # no bytecode (also what happens without node)

pyscript.toml maps it as `"./py.zip" = "./py.zip"`, so PyScript fetches it once and writes it,
as it is, into Python's working directory before py/main.py runs, and py/main.py puts it on
sys.path: the page imports straight from the archive (zipimport), with nothing unpacked. One
request instead of one per module (66 of them). Its members are exactly
tools/gen_pyscript_toml.py's `module_files()` (py/'s modules and the vendored segno), each at its
import path ("ludo/engine.py").

Beside each source goes its bytecode ("ludo/engine.pyc", where zipimport looks for it), compiled
by the vendored Pyodide's own CPython in Node (tools/compile_pyc.mjs), so the page skips
compiling ~1 MB of source at every start; the archive's comment names that Python's cache tag
("bytecode for cpython-314"). The .pyc files are "unchecked hash" ones (PEP 552): used without
looking at the source. The sources stay, for tracebacks. Without node (or without
vendor/pyodide) the archive holds sources only: slower to import, the same program.

Build output like sw.js: not committed. Make's serve, test, dist and bench targets and
tools/build_dist.py build it; tests/e2e/conftest.py rebuilds it too, so a browser test never runs
an old copy of py/. It is rewritten only when a member's source changed (its bytecode is then
compiled again), and byte for byte the same otherwise, so the service worker's cache version
(tools/build_sw.py hashes it like any precached file) changes exactly when the code does.

Standard library only (`make dist` runs it with the system Python).
"""

from __future__ import annotations

import argparse
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
import tomllib
import zipfile
from collections.abc import Iterable
from pathlib import Path

try:
    from tools import gen_pyscript_toml
except ImportError:  # run as a script: tools/ itself is first on sys.path
    import gen_pyscript_toml

ROOT = Path(__file__).resolve().parent.parent
ARCHIVE = gen_pyscript_toml.ARCHIVE
COMPILER = Path(__file__).resolve().parent / "compile_pyc.mjs"
# Every member gets the same date and mode, so equal contents give equal bytes.
ZIP_DATE = (1980, 1, 1, 0, 0, 0)
ZIP_MODE = 0o644 << 16


class BundleError(Exception):
    """A module the page needs is missing, or the bytecode could not be compiled."""


def mapped(root: Path) -> bool:
    """Whether the site under `root` loads the archive (its pyscript.toml maps it)."""
    try:
        config = tomllib.loads((root / "pyscript.toml").read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError):
        return False
    return f"./{ARCHIVE}" in config.get("files", {})


def sources(root: Path) -> dict[str, bytes]:
    """The archive's sources: import path ("ludo/engine.py") -> the file's bytes."""
    found = {}
    for rel, path in gen_pyscript_toml.module_files(root).items():
        if not path.is_file():
            raise BundleError(f"{path} is missing (run tools/vendor.py for vendor/)")
        found[rel] = path.read_bytes()
    return found


def archived_sources(archive: Path) -> dict[str, bytes] | None:
    """The .py members of an existing archive, or None if there is none that can be read."""
    try:
        with zipfile.ZipFile(archive) as existing:
            return {name: existing.read(name) for name in existing.namelist()
                    if name.endswith(".py")}
    except (OSError, zipfile.BadZipFile):
        return None


def archived_bytecode(archive: Path) -> tuple[set[str], bytes]:
    """The names of the .pyc members of an existing archive and its comment, which says for
    which Python they are (`bytecode_comment`); none and b"" if it cannot be read."""
    try:
        with zipfile.ZipFile(archive) as existing:
            return {name for name in existing.namelist() if name.endswith(".pyc")}, \
                existing.comment
    except (OSError, zipfile.BadZipFile):
        return set(), b""


def cache_tag(root: Path) -> str | None:
    """The bytecode tag of the vendored Pyodide's Python ("cpython-314"), or None when there is
    nothing to compile with (no node, no vendored runtime)."""
    lock = root / "vendor" / "pyodide" / "pyodide-lock.json"
    if shutil.which("node") is None or not (lock.parent / "pyodide.mjs").is_file():
        return None
    try:
        version = json.loads(lock.read_text(encoding="utf-8"))["info"]["python"]
        major, minor = version.split(".")[:2]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return f"cpython-{major}{minor}"


def bytecode_names(files: Iterable[str], tag: str | None) -> set[str]:
    """Where the bytecode of `files` goes in the archive: beside each source ("ludo/engine.pyc"),
    where the zip importer looks for it. The archive's comment says for which Python
    (`bytecode_comment`)."""
    if tag is None:
        return set()
    return {rel[:-3] + ".pyc" for rel in files}


def bytecode_comment(tag: str | None) -> bytes:
    """The archive's comment: which Python its bytecode is for (b"" when it has none). The .pyc
    names no longer carry the cache tag, so this is how a Pyodide of another Python version is
    seen to need new bytecode."""
    return f"bytecode for {tag}".encode("ascii") if tag else b""


def compile_bytecode(root: Path, files: dict[str, bytes]) -> tuple[dict[str, bytes], str]:
    """({"ludo/engine.pyc": bytes, ...}, the cache tag of the Python that compiled them) from
    the vendored Pyodide's CPython (node must be there: see cache_tag)."""
    node = shutil.which("node") or "node"
    pyodide = root / "vendor" / "pyodide"
    with tempfile.TemporaryDirectory(prefix="pybundle-") as tmp:
        folder = Path(tmp)
        for rel, data in files.items():
            (folder / rel).parent.mkdir(parents=True, exist_ok=True)
            (folder / rel).write_bytes(data)
        result = subprocess.run([node, str(COMPILER), str(pyodide), str(folder)],
                                capture_output=True, text=True, check=False)
        if result.returncode != 0:
            raise BundleError(f"compile_pyc.mjs failed:\n{result.stderr.strip()}")
        # compile_pyc.mjs ends with "... by Python 3.14.0 (cpython-314)"
        compiled_by = result.stdout.strip().rpartition("(")[2].rstrip(")")
        return {path.relative_to(folder).as_posix(): path.read_bytes()
                for path in sorted(folder.rglob("*.pyc"))}, compiled_by


def pack(members: dict[str, bytes], comment: bytes = b"") -> bytes:
    """A zip of `members`, deflated, in name order, with fixed dates and modes."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.comment = comment
        for name in sorted(members):
            info = zipfile.ZipInfo(name, date_time=ZIP_DATE)
            info.external_attr = ZIP_MODE
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, members[name], compresslevel=9)
    return buffer.getvalue()


def is_current(root: Path, bytecode: bool = True) -> bool:
    """Whether py.zip holds exactly today's sources, and the bytecode of today's runtime for
    each of them (if asked for, and node can make it): a Pyodide of another Python version
    brings another bytecode, so vendoring one rebuilds the archive too."""
    files = sources(root)
    archive = root / ARCHIVE
    tag = cache_tag(root) if bytecode else None
    return (holds_sources(root, files)
            and archived_bytecode(archive) == (bytecode_names(files, tag), bytecode_comment(tag)))


def holds_sources(root: Path, files: dict[str, bytes] | None = None) -> bool:
    """Whether py.zip holds exactly today's sources (`files`, read if not given); its
    bytecode is not looked at (the page runs without it)."""
    return archived_sources(root / ARCHIVE) == (sources(root) if files is None else files)


def write(root: Path = ROOT, bytecode: bool = True) -> bool:
    """Write py.zip under `root` unless it is current; returns whether it did. Safe to run from
    several processes at once (the tests' workers): each writes its own temporary file and
    renames it into place, and they all write the same bytes."""
    if is_current(root, bytecode):
        return False
    files = sources(root)
    archive = root / ARCHIVE
    members = dict(files)
    tag = cache_tag(root) if bytecode else None
    if tag is not None:
        compiled, compiled_by = compile_bytecode(root, files)
        if set(compiled) != bytecode_names(files, tag) or compiled_by != tag:
            raise BundleError(f"compile_pyc.mjs did not write the bytecode expected for {tag}"
                              f" (it wrote {compiled_by}'s): is vendor/pyodide current?")
        members |= compiled
    fd, tmp = tempfile.mkstemp(prefix=f".{ARCHIVE}.", suffix=".tmp", dir=root)
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(pack(members, bytecode_comment(tag)))
        os.chmod(tmp, 0o644)
        os.replace(tmp, archive)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return True


def refresh_site(root: Path = ROOT) -> None:
    """py.zip, then the app's sw.js (which hashes it), as py/ is now: for what serves this
    checkout without make (the browser tests, the benchmarks, the screenshots), which would
    otherwise run the modules packed last. Each is rewritten only if it changed."""
    try:
        from tools import build_sw
    except ImportError:  # run as a script: tools/ itself is first on sys.path
        import build_sw  # type: ignore[no-redef]
    write(root)
    build_sw.write(root)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Pack the page's Python modules into py.zip.")
    parser.add_argument("--root", type=Path, default=ROOT, help="site root (default: the repo)")
    parser.add_argument("--check", action="store_true", help="exit 1 if py.zip is out of date")
    parser.add_argument("--sources-only", action="store_true", help="leave the bytecode out")
    args = parser.parse_args(argv)
    root, bytecode = args.root.resolve(), not args.sources_only
    try:
        if args.check:
            if not is_current(root, bytecode):
                print(f"{root / ARCHIVE} is out of date: run python tools/build_pybundle.py")
                return 1
            return 0
        if write(root, bytecode):
            with zipfile.ZipFile(root / ARCHIVE) as archive:
                names = archive.namelist()
            compiled = sum(name.endswith(".pyc") for name in names)
            size = (root / ARCHIVE).stat().st_size
            print(f"wrote {root / ARCHIVE} ({len(names) - compiled} modules, {compiled} compiled,"
                  f" {size / 1e3:.0f} kB)")
    except BundleError as error:
        print(f"build_pybundle: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
