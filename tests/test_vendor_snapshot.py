"""tools/vendor.py's Pyodide snapshot step: vendor/pyodide/boot.mjs carries the snapshot's hash,
or none (and so boots without a snapshot) when the snapshot cannot be made."""

from __future__ import annotations

import base64
import gzip
import hashlib
import json
import shutil
import stat
import subprocess
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

    # kept packed and gzipped, and the integrity is that of the bytes served
    stored = (pyodide_dir / vendor.SNAPSHOT).read_bytes()
    assert vendor.unpack_snapshot(gzip.decompress(stored)) == b"snapshot bytes"
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
    assert len(stored) < 12_000_000  # gzipped: 6.3 MB for 31.5 MB of memory
    packed = gzip.decompress(stored)
    snapshot = vendor.unpack_snapshot(packed)
    assert len(packed) < len(snapshot) * 0.7  # its zero pages (about half) are left out
    assert snapshot[:4] == (1886286592).to_bytes(4, "little")  # Pyodide's snapshot magic
    assert vendor.snapshot_integrity(pyodide_dir / vendor.SNAPSHOT) in (
        pyodide_dir / vendor.BOOT_MODULE).read_text(encoding="utf-8")


# Memories of every shape the packing meets: zero pages at the start, between and at the end,
# a last page cut short, a single page, nothing but zeros.
PAGE = vendor.SPARSE_PAGE
MEMORIES = {
    "zero runs": b"\x01" * PAGE + bytes(3 * PAGE) + b"\x02" * (2 * PAGE) + bytes(PAGE)
    + b"\x03" + bytes(PAGE - 2) + b"\x04" + bytes(5 * PAGE),
    "short last page": bytes(PAGE) + b"\x05" * 100,
    "short zero last page": b"\x06" * PAGE + bytes(100),
    "one page": b"\x07" * 10,
    "all zero": bytes(3 * PAGE),
}


@pytest.mark.parametrize("memory", MEMORIES.values(), ids=MEMORIES.keys())
def test_packing_leaves_out_zero_pages_and_restores_them(memory: bytes) -> None:
    packed = vendor.pack_snapshot(memory)
    assert vendor.unpack_snapshot(packed) == memory
    zero_pages = sum(1 for at in range(0, len(memory), PAGE)
                     if not memory[at:at + PAGE].strip(b"\0"))
    assert len(packed) < 16 + 8 * len(memory) // PAGE + len(memory) - zero_pages * PAGE + PAGE


def test_unpacking_refuses_what_packing_did_not_write() -> None:
    packed = vendor.pack_snapshot(MEMORIES["zero runs"])
    for damaged in (b"XXXX" + packed[4:], packed[:-1], packed + b"\0"):
        with pytest.raises(ValueError):
            vendor.unpack_snapshot(damaged)


# Feeds boot.mjs's unpackSnapshot (tools/pyodide_boot.mjs, with a stand-in for pyodide.mjs)
# each packed file named on the command line, in pieces of the given sizes, and prints a JSON
# list of what it returned (hex), or its error.
UNPACK_IN_NODE = r"""
import { readFileSync } from "node:fs";
const [, , moduleUrl, sizes, ...paths] = process.argv;
const { unpackSnapshot } = await import(moduleUrl);
const steps = sizes.split(",").map(Number);
const results = [];
for (const path of paths) {
  const packed = new Uint8Array(readFileSync(path));
  let at = 0, step = 0;
  const stream = new ReadableStream({
    pull(controller) {
      if (at >= packed.length) return controller.close();
      const n = steps[step++ % steps.length];
      controller.enqueue(packed.slice(at, at + n));
      at += n;
    },
  });
  try {
    results.push(Buffer.from(new Uint8Array(await unpackSnapshot(stream))).toString("hex"));
  } catch (error) {
    results.push("error: " + error.message);
  }
}
process.stdout.write(JSON.stringify(results));
"""


@pytest.mark.skipif(shutil.which("node") is None, reason="needs Node")
def test_the_page_unpacks_what_vendor_packed(tmp_path: Path) -> None:
    """The page's decoder (JavaScript) and the packer (Python) agree on the format, whatever
    pieces the inflated stream comes in; a damaged file is refused, never restored."""
    (tmp_path / "pyodide.mjs").write_text(
        "export const version = 'stand-in'; export async function loadPyodide() {}\n")
    boot = tmp_path / "boot.mjs"
    boot.write_text(vendor.BOOT_TEMPLATE.read_text(encoding="utf-8"), encoding="utf-8")
    script = tmp_path / "unpack.mjs"
    script.write_text(UNPACK_IN_NODE, encoding="utf-8")
    cases: list[tuple[str, bytes, str | None]] = []  # name, packed bytes, memory (hex) or None
    for name, memory in MEMORIES.items():
        packed = vendor.pack_snapshot(memory)
        # no runs at all (all zero) is nothing Pyodide could restore: refused too
        cases.append((name, packed, memory.hex() if name != "all zero" else None))
        cases += [(f"{name}, damaged", damaged, None) for damaged in (
            b"XXXX" + packed[4:], packed[:-1], packed + b"\0",
            packed[:20] + bytes(4) + packed[24:])]  # a run of no pages
    paths = []
    for index, (_, packed, _) in enumerate(cases):
        paths.append(tmp_path / f"packed-{index}.bin")
        paths[-1].write_bytes(packed)
    for sizes in ("65536", "1", "7,3000,13"):
        out = subprocess.run(["node", str(script), boot.as_uri(), sizes, *map(str, paths)],
                             capture_output=True, text=True, check=True, timeout=60).stdout
        for (name, _, expected), result in zip(cases, json.loads(out), strict=True):
            if expected is None:
                assert result.startswith("error: "), (name, sizes)
            else:
                assert result == expected, (name, sizes)
