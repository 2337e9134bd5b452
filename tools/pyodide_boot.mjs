// PyScript's interpreter module (pyscript.toml's `interpreter`): Pyodide's own pyodide.mjs, with
// loadPyodide starting from the memory snapshot that tools/make_snapshot.mjs made at set-up time.
//
// tools/vendor.py copies this file to vendor/pyodide/boot.mjs and fills in SNAPSHOT_INTEGRITY,
// the snapshot's SHA-256 (left empty when no snapshot could be made). The browser checks that hash
// while fetching (Subresource Integrity), so a missing, truncated, damaged or foreign snapshot
// is never restored: loadPyodide then boots CPython the ordinary way, slower but the same.
// Pyodide also refuses a snapshot from another wasm build (BUILD_ID in its header), and any
// failure to restore falls back the same way. Nothing here reports a fault: a slow boot is not one.
import { loadPyodide as loadPyodideFromScratch, version } from "./pyodide.mjs";

export { version };

const SNAPSHOT_INTEGRITY = "@SNAPSHOT_INTEGRITY@";
const SNAPSHOT_URL = new URL("./pyodide-snapshot.bin", import.meta.url);

// Python state that a snapshot would otherwise share between every page started from it.
const AFTER_RESTORE = `
import random as _random, sys as _sys
_random.seed()  # the generator was seeded once, when the snapshot was made
while _sys.path.count("") > 1:  # loadPyodide adds the working directory again
    _sys.path.remove("")
del _random, _sys
`;

// The standard library archive (python_stdlib.zip, which loadPyodide writes to /lib) must be
// whole: the modules the snapshot holds were imported from it in Node, and any other module is
// read from it when first imported, maybe long into a game. A boot from the snapshot reads
// nothing else from it (the page's own modules come from py.zip), so a damaged copy in the
// service worker's cache would go unseen until then. A copy cut short has no end record, or
// one that does not end the file; the error raised then makes the page ask the worker to check
// its files (index.html), which fetches the copy again. Only the file's last 64 KB are read.
const CHECK_STDLIB = `
def _check_stdlib():
    import os, sys
    for path in [p for p in sys.path if p.endswith(".zip") and os.path.isfile(p)]:
        with open(path, "rb") as archive:
            size = archive.seek(0, 2)
            archive.seek(max(0, size - 65557))  # the end record, and its longest comment
            tail = archive.read()
        at = tail.rfind(b"PK\\x05\\x06")
        if at < 0 or at + 22 > len(tail):
            raise ImportError(f"{path} is damaged: it has no end record")
        directory_size = int.from_bytes(tail[at + 12:at + 16], "little")
        directory_at = int.from_bytes(tail[at + 16:at + 20], "little")
        if directory_at + directory_size != size - len(tail) + at:
            raise ImportError(f"{path} is damaged: its directory is not where it says")
_check_stdlib()
del _check_stdlib
`;

// The snapshot's bytes, or a rejection: missing, offline with nothing cached, or failing the
// integrity check (the browser rejects the body then, before any of it is used).
async function fetchSnapshot() {
  const response = await fetch(SNAPSHOT_URL, { integrity: SNAPSHOT_INTEGRITY });
  if (!response.ok) throw new Error(`${SNAPSHOT_URL}: HTTP ${response.status}`);
  // The file is gzipped (tools/vendor.py): 6.3 MB on any host instead of 31.5 MB, since hosts
  // seldom compress an octet stream. The integrity check covered these gzipped bytes.
  return unpackSnapshot(response.body.pipeThrough(new DecompressionStream("gzip")));
}

// Python's memory from the inflated file, which leaves out its zero pages (the format is
// tools/vendor.py's pack_snapshot): each piece is copied straight to its place in the memory,
// which starts zeroed, so neither the zero pages nor a second whole copy are ever made.
// (Exported for tests/test_vendor_snapshot.py, which checks it against pack_snapshot in Node.)
export async function unpackSnapshot(stream) {
  const reader = stream.getReader();
  let head = new Uint8Array(0); // the bytes read until the run table is complete
  let memory = null, runs = null, run = 0, at = 0, left = 0;
  const startRun = () => {
    at = runs[run][0];
    left = runs[run][1] - at;
  };
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    let piece = value;
    if (memory === null) {
      const joined = new Uint8Array(head.length + piece.length);
      joined.set(head);
      joined.set(piece, head.length);
      head = joined;
      if (head.length < 16) continue;
      const view = new DataView(head.buffer);
      if (view.getUint32(0, true) !== 0x314e534c) throw new Error("snapshot: not packed"); // "LSN1"
      const size = view.getUint32(4, true), page = view.getUint32(8, true);
      const count = view.getUint32(12, true);
      const tableEnd = 16 + 8 * count;
      if (page === 0 || count === 0 || count > size / page + 1) throw new Error("snapshot: bad header");
      if (head.length < tableEnd) continue;
      runs = [];
      let end = 0;
      for (let i = 0; i < count; i++) {
        const first = view.getUint32(16 + 8 * i, true) * page;
        const last = Math.min(size, first + view.getUint32(20 + 8 * i, true) * page);
        if (first < end || last <= first) throw new Error("snapshot: bad run table");
        runs.push([first, last]);
        end = last;
      }
      memory = new Uint8Array(size);
      piece = head.subarray(tableEnd);
      head = null;
      startRun();
    }
    while (piece.length > 0) {
      if (run === runs.length) throw new Error("snapshot: too long");
      const n = Math.min(left, piece.length);
      memory.set(piece.subarray(0, n), at);
      at += n;
      left -= n;
      piece = piece.subarray(n);
      if (left === 0 && ++run < runs.length) startRun();
    }
  }
  if (memory === null || run !== runs.length) throw new Error("snapshot: cut short");
  return memory.buffer;
}

// Frees the inflated snapshot (31.5 MB) once loadPyodide is done with it. Pyodide keeps its
// options for the page's whole life (API.config), and with them the `_loadSnapshot` promise and
// the buffer it resolved to, although the restore copied it into wasm memory: kept, the page
// would hold Python's memory twice. Transferring the buffer detaches it, whoever refers to it.
function release(buffer) {
  try {
    structuredClone(buffer, { transfer: [buffer] });
  } catch {
    // already detached (nothing held), or not transferable: nothing to free here
  }
}

export async function loadPyodide(options = {}) {
  if (SNAPSHOT_INTEGRITY.startsWith("sha")) {
    // Not awaited here: the snapshot downloads while loadPyodide fetches and compiles the wasm.
    const snapshot = fetchSnapshot();
    // loadPyodide awaits it only after loading pyodide.asm.mjs: a 404 arriving before that
    // would count as an unhandled rejection ("Uncaught (in promise)" in the console).
    snapshot.catch(() => {});
    let pyodide = null;
    try {
      pyodide = await loadPyodideFromScratch({ ...options, _loadSnapshot: snapshot });
      pyodide.runPython(AFTER_RESTORE);
    } catch (error) {
      console.warn("Pyodide snapshot not used, booting without it:", error);
      // If the copy came from the service worker's cache, it may be the damaged one: the
      // worker checks it and fetches it again (tools/sw_template.js), or every later boot,
      // offline too, would be the slow one.
      globalThis.navigator?.serviceWorker?.controller?.postMessage(
        { type: "CHECK", url: SNAPSHOT_URL.href });
      pyodide = null;
    } finally {
      snapshot.then(release, () => {});
    }
    if (pyodide !== null) {
      pyodide.runPython(CHECK_STDLIB); // (a boot without the snapshot reads it anyway)
      return pyodide;
    }
  }
  return loadPyodideFromScratch(options);
}
