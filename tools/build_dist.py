"""Write dist/: a self-contained static copy of the site that any static host can serve.

    python tools/build_dist.py [--out dist]

Builds py.zip (tools/build_pybundle.py) in `root` if the page loads it and it is not current,
then copies the site's files as tools/site_files.py defines them (the same list the local server
serves): whichever of its entries exist, less hidden files, Python caches and temporary files.
Symbolic links are copied as the files they lead to, and only when they lead to another part of
the site. Check the result with `.venv/bin/python -m server --root dist`.
"""

from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path

try:
    from tools import build_pybundle, build_sw, site_files
except ImportError:  # run as a script: tools/ itself is first on sys.path
    import build_pybundle
    import build_sw
    import site_files

ROOT = Path(__file__).resolve().parent.parent


def build(root: Path, out: Path) -> list[str]:
    """Recreate `out` from `root`; returns the entries copied."""
    if not (root / "vendor" / "pyodide" / "pyodide.mjs").is_file():
        raise SystemExit("dist: vendor/ is missing; run `make dist` (it vendors the runtime)")
    # py.zip, the page's modules, is build output: made (or found current) before the copy.
    try:
        if build_pybundle.mapped(root):
            build_pybundle.write(root)
    except build_pybundle.BundleError as error:
        raise SystemExit(f"dist: {error}") from None
    tmp = out.with_name(out.name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    copied: list[str] = []
    for rel, src in site_files.site_files(root):
        dest = tmp / rel
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(src, dest)
        top = rel.split("/", 1)[0]
        if top not in copied:
            copied.append(top)
    # The service worker's precache list and hashes describe exactly the files copied.
    try:
        build_sw.write(tmp)
    except build_sw.BuildError as error:
        raise SystemExit(f"dist: {error}") from None
    # Swap in whole, so a server already pointed at dist/ never sees it half-written.
    shutil.rmtree(out, ignore_errors=True)
    tmp.rename(out)
    return copied


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Build the static dist/ folder.")
    parser.add_argument("--out", type=Path, default=ROOT / "dist")
    args = parser.parse_args(argv)
    copied = build(ROOT, args.out)
    size = sum(p.stat().st_size for p in args.out.rglob("*") if p.is_file())
    print(f"dist: {', '.join(copied)} -> {args.out} ({size / 1e6:.1f} MB)")
    print(f"serve it with: .venv/bin/python -m server --root {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
