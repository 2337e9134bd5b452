"""tools/vendor.py's Pyodide snapshot step: vendor/pyodide/boot.mjs carries the snapshot's hash,
or none (and so boots without a snapshot) when the snapshot cannot be made."""

from __future__ import annotations

import base64
import gzip
import hashlib
import shutil
import stat
from pathlib import Path

import pytest

from tools import vendor

ROOT = Path(__file__).resolve().parent.parent


def _fake_node(tmp_path: Path, body: str) -> str:
    """An executable standing in for `node make_snapshot.mjs <folder> <out>`."""
    script = tmp_path / "fake-node"
    script.write_text("#!/bin/sh\n" + body + "\n", encoding="utf-8")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return str(script)


def test_boot_module_carries_the_snapshot_integrity(tmp_path: Path) -> None:
    pyodide_dir = tmp_path / "pyodide"
    pyodide_dir.mkdir()
    node = _fake_node(tmp_path, 'printf "snapshot bytes" > "$3"')

    assert vendor.write_boot_module(pyodide_dir, node=node)

    # kept gzipped, and the integrity is that of the bytes served
    stored = (pyodide_dir / vendor.SNAPSHOT).read_bytes()
    assert gzip.decompress(stored) == b"snapshot bytes"
    expected = "sha256-" + base64.b64encode(hashlib.sha256(stored).digest()).decode()
    boot = (pyodide_dir / vendor.BOOT_MODULE).read_text(encoding="utf-8")
    assert f'const SNAPSHOT_INTEGRITY = "{expected}";' in boot
    assert vendor.INTEGRITY_PLACEHOLDER not in boot


@pytest.mark.parametrize("node_body", ["exit 3", 'printf partial > "$3"; exit 1'])
def test_failed_snapshot_leaves_a_boot_module_without_one(tmp_path: Path, node_body: str) -> None:
    pyodide_dir = tmp_path / "pyodide"
    pyodide_dir.mkdir()
    (pyodide_dir / vendor.SNAPSHOT).write_bytes(b"stale snapshot from an older build")

    assert not vendor.write_boot_module(pyodide_dir, node=_fake_node(tmp_path, node_body))

    boot = (pyodide_dir / vendor.BOOT_MODULE).read_text(encoding="utf-8")
    assert 'const SNAPSHOT_INTEGRITY = "";' in boot
    assert not (pyodide_dir / vendor.SNAPSHOT).exists()


def test_missing_node_leaves_a_boot_module_without_snapshot(tmp_path: Path) -> None:
    pyodide_dir = tmp_path / "pyodide"
    pyodide_dir.mkdir()
    assert not vendor.write_boot_module(pyodide_dir, node=str(tmp_path / "no-such-node"))
    assert 'const SNAPSHOT_INTEGRITY = "";' in (pyodide_dir / vendor.BOOT_MODULE).read_text()


@pytest.mark.skipif(shutil.which("node") is None
                    or not (ROOT / "vendor" / "pyodide" / "pyodide.mjs").is_file(),
                    reason="needs Node and the vendored Pyodide (make)")
def test_real_snapshot_is_made_from_the_vendored_pyodide(tmp_path: Path) -> None:
    pyodide_dir = tmp_path / "pyodide"
    pyodide_dir.mkdir()
    for name in vendor.PYODIDE_FILES:
        (pyodide_dir / name).symlink_to(ROOT / "vendor" / "pyodide" / name)

    assert vendor.write_boot_module(pyodide_dir)

    stored = (pyodide_dir / vendor.SNAPSHOT).read_bytes()
    assert len(stored) < 12_000_000  # gzipped: 6.4 MB for 31.5 MB of memory
    snapshot = gzip.decompress(stored)
    assert snapshot[:4] == (1886286592).to_bytes(4, "little")  # Pyodide's snapshot magic
    assert vendor.snapshot_integrity(pyodide_dir / vendor.SNAPSHOT) in (
        pyodide_dir / vendor.BOOT_MODULE).read_text(encoding="utf-8")
