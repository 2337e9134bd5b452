"""Copy the browser runtime (Pyodide + PyScript) out of node_modules into vendor/.

Only the files a page actually needs are copied, so vendor/ (and `make dist`) stays small and
everything is served from our own origin: no CDN at run time.

    python tools/vendor.py            # after `npm ci`, with the venv's Python (for segno)

Pyodide is then started once in Node (tools/make_snapshot.mjs) to write a memory snapshot,
vendor/pyodide/pyodide-snapshot.bin, and tools/pyodide_boot.mjs becomes vendor/pyodide/boot.mjs
with the snapshot's hash in it: that module is PyScript's interpreter (pyscript.toml), and pages
start from the snapshot instead of booting CPython (docs/architecture.md, "Boot"). Without Node
the snapshot is left out and pages boot the ordinary way.

Pure-Python packages from PyPI that the page imports (segno, for the online room's QR code;
pinned in requirements.txt) are copied from the running Python's installation into
vendor/<package>/, with their licence; tools/gen_pyscript_toml.py maps them into the page.

It replaces vendor/pyodide, vendor/pyscript and each vendored package whole, so chunks of an
older @pyscript/core (their names carry content hashes) never linger next to the new ones.
"""

from __future__ import annotations

import argparse
import base64
import gzip
import hashlib
import json
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))
from gen_pyscript_toml import VENDORED_PYTHON  # noqa: E402

# The five files Pyodide loads at boot. The npm package has no package wheels, which is why
# pyscript.toml must not ask for `packages`.
PYODIDE_FILES = (
    "pyodide.mjs",
    "pyodide.asm.mjs",
    "pyodide.asm.wasm",
    "python_stdlib.zip",
    "pyodide-lock.json",
)

SNAPSHOT = "pyodide-snapshot.bin"
BOOT_MODULE = "boot.mjs"  # pyscript.toml's interpreter
MAKE_SNAPSHOT = Path(__file__).resolve().parent / "make_snapshot.mjs"
BOOT_TEMPLATE = Path(__file__).resolve().parent / "pyodide_boot.mjs"
INTEGRITY_PLACEHOLDER = "@SNAPSHOT_INTEGRITY@"

# package.json pins these exact versions; checking them here catches a stale node_modules.
EXPECTED_VERSIONS = {"pyodide": "314.0.2", "@pyscript/core": "0.7.31"}


def _package_dir(node_modules: Path, name: str) -> Path:
    pkg = node_modules / name
    manifest = pkg / "package.json"
    if not manifest.is_file():
        raise SystemExit(f"vendor: {pkg} is missing; run `npm ci` first")
    version = json.loads(manifest.read_text(encoding="utf-8"))["version"]
    if version != EXPECTED_VERSIONS[name]:
        raise SystemExit(
            f"vendor: {name} {version} in node_modules, expected {EXPECTED_VERSIONS[name]};"
            " run `npm ci`"
        )
    return pkg


def _replace_dir(dest: Path, fill: Callable[[Path], None]) -> None:
    """Build into a temporary sibling, then swap it in, so a half-copied dir is never served."""
    tmp = dest.with_name(dest.name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    fill(tmp)
    old = dest.with_name(dest.name + ".old")
    shutil.rmtree(old, ignore_errors=True)
    if dest.exists():
        dest.rename(old)
    tmp.rename(dest)
    shutil.rmtree(old, ignore_errors=True)


def vendor_python(out: Path) -> None:
    """Copy each vendored pure-Python package (the version pinned) from this interpreter."""
    import importlib.metadata
    import importlib.util

    for package, version, names in VENDORED_PYTHON:
        spec = importlib.util.find_spec(package)
        if spec is None or spec.origin is None:
            raise SystemExit(f"vendor: {package} is not installed in {sys.executable}; "
                             "run `make` (it installs requirements.txt)")
        found = importlib.metadata.version(package)
        if found != version:
            raise SystemExit(f"vendor: {package} {found} is installed, expected {version}")
        source = Path(spec.origin).parent
        dist = importlib.metadata.distribution(package)
        licences = [f for f in dist.files or () if Path(str(f)).name.upper().startswith(
            ("LICENSE", "LICENCE", "COPYING"))]

        def fill(tmp: Path, source: Path = source, names: tuple[str, ...] = names,
                 licences: list = licences, dist: object = dist) -> None:
            for name in names:
                shutil.copy2(source / name, tmp / name)
            for licence in licences:
                shutil.copy2(Path(str(dist.locate_file(licence))), tmp / "LICENSE")  # type: ignore[attr-defined]

        _replace_dir(out / package, fill)


# The snapshot's file format (read by tools/pyodide_boot.mjs): Python's memory without its
# zero pages, since inflating them cost the page as much as the rest (about half of the 31.5 MB
# is zero pages). Little-endian: the magic, the memory's size in bytes, the page size, the
# number of runs, then per run its first page and its number of pages (ascending, apart, never
# empty), then the bytes of every run in that order (the last page may end with the memory).
# The whole file is then gzipped.
SPARSE_MAGIC = b"LSN1"
SPARSE_PAGE = 4096


def pack_snapshot(memory: bytes) -> bytes:
    """``memory`` (Pyodide's snapshot) with its zero pages left out: see SPARSE_MAGIC."""
    pages = -(-len(memory) // SPARSE_PAGE)
    zero = bytes(SPARSE_PAGE)
    runs: list[list[int]] = []
    for index in range(pages):
        page = memory[index * SPARSE_PAGE:(index + 1) * SPARSE_PAGE]
        if page == zero[:len(page)]:
            continue
        if runs and runs[-1][0] + runs[-1][1] == index:
            runs[-1][1] += 1
        else:
            runs.append([index, 1])
    head = SPARSE_MAGIC + b"".join(
        n.to_bytes(4, "little") for n in (len(memory), SPARSE_PAGE, len(runs)))
    table = b"".join(n.to_bytes(4, "little") for run in runs for n in run)
    data = b"".join(memory[first * SPARSE_PAGE:(first + count) * SPARSE_PAGE]
                    for first, count in runs)
    return head + table + data


def unpack_snapshot(packed: bytes) -> bytes:
    """The memory that ``packed`` (pack_snapshot's output, not gzipped) holds."""
    if packed[:4] != SPARSE_MAGIC:
        raise ValueError("not a packed snapshot")
    size, page, count = (int.from_bytes(packed[at:at + 4], "little") for at in (4, 8, 12))
    memory = bytearray(size)
    at = 16 + 8 * count
    for run in range(count):
        first, pages = (int.from_bytes(packed[16 + 8 * run + k:20 + 8 * run + k], "little")
                        for k in (0, 4))
        start, end = first * page, min(size, (first + pages) * page)
        memory[start:end] = packed[at:at + end - start]
        at += end - start
    if at != len(packed):
        raise ValueError("packed snapshot of the wrong length")
    return bytes(memory)


def snapshot_integrity(snapshot: Path) -> str:
    """The Subresource Integrity value ("sha256-<base64>") of the snapshot file (its gzipped
    bytes, as they are served)."""
    digest = hashlib.sha256(snapshot.read_bytes()).digest()
    return "sha256-" + base64.b64encode(digest).decode("ascii")


def write_boot_module(pyodide_dir: Path, node: str = "node") -> bool:
    """Make the snapshot in `pyodide_dir` (a vendored Pyodide) and write boot.mjs beside it.

    Returns whether a snapshot was made. Without one, boot.mjs still works: it loads Pyodide the
    ordinary way, so a machine without Node gets slower boots, not a broken page.
    """
    snapshot = pyodide_dir / SNAPSHOT
    snapshot.unlink(missing_ok=True)
    try:
        subprocess.run([node, str(MAKE_SNAPSHOT), str(pyodide_dir), str(snapshot)], check=True,
                       timeout=300)
        # Stored without its zero pages and gzipped (31.5 MB of memory: 6.3 MB), and inflated
        # by boot.mjs: a static host sends an octet stream as it is, so it must already be
        # small on disk; and the page inflates only the 16 MB that are not zeros.
        snapshot.write_bytes(gzip.compress(pack_snapshot(snapshot.read_bytes()),
                                           compresslevel=6, mtime=0))
        integrity = snapshot_integrity(snapshot)
    except (OSError, subprocess.SubprocessError) as error:
        print(f"vendor: no Pyodide snapshot ({error}); pages will boot without one",
              file=sys.stderr)
        snapshot.unlink(missing_ok=True)
        integrity = ""
    text = BOOT_TEMPLATE.read_text(encoding="utf-8")
    if INTEGRITY_PLACEHOLDER not in text:
        raise SystemExit(f"vendor: {BOOT_TEMPLATE} lacks {INTEGRITY_PLACEHOLDER}")
    (pyodide_dir / BOOT_MODULE).write_text(text.replace(INTEGRITY_PLACEHOLDER, integrity),
                                           encoding="utf-8")
    return bool(integrity)


def vendor(node_modules: Path, out: Path) -> list[Path]:
    """Copy the runtime files into `out`; returns the files written."""
    pyodide = _package_dir(node_modules, "pyodide")
    pyscript_dist = _package_dir(node_modules, "@pyscript/core") / "dist"

    def fill_pyodide(tmp: Path) -> None:
        for name in PYODIDE_FILES:
            shutil.copy2(pyodide / name, tmp / name)
        write_boot_module(tmp)

    def fill_pyscript(tmp: Path) -> None:
        # Source maps are only for debugging PyScript itself and double the size.
        for src in sorted(pyscript_dist.rglob("*")):
            if src.is_file() and src.suffix != ".map":
                dest = tmp / src.relative_to(pyscript_dist)
                dest.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(src, dest)

    _replace_dir(out / "pyodide", fill_pyodide)
    _replace_dir(out / "pyscript", fill_pyscript)
    vendor_python(out)
    return sorted(p for p in out.rglob("*") if p.is_file())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--node-modules", type=Path, default=ROOT / "node_modules")
    parser.add_argument("--out", type=Path, default=ROOT / "vendor")
    args = parser.parse_args(argv)
    files = vendor(args.node_modules, args.out)
    size = sum(p.stat().st_size for p in files)
    print(f"vendor: {len(files)} runtime files, {size / 1e6:.1f} MB in {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
