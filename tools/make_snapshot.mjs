// Make a Pyodide memory snapshot in Node, for pages to start from instead of booting CPython.
//
//     node tools/make_snapshot.mjs <pyodide folder> <snapshot file>
//
// tools/vendor.py runs this on the freshly vendored Pyodide. The snapshot is the wasm memory of
// an initialised interpreter that has already imported the standard library modules the app and
// PyScript use; vendor/pyodide/boot.mjs (from tools/pyodide_boot.mjs) hands it to loadPyodide as
// `_loadSnapshot`, which skips CPython's start-up and those imports (about 3 s of a 4.5 s boot).
//
// A snapshot made in Node works in the browser: the memory holds no reference to any JS object
// (Pyodide keeps none at this point, and makeMemorySnapshot would refuse live ones), and
// loadPyodide checks that it comes from the same wasm build (BUILD_ID in its header).
// Only the standard library is imported: our own modules (py/) change without re-vendoring, and a
// stale copy of them frozen in the snapshot would shadow the files PyScript writes.
import { writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";

const [folder, out] = process.argv.slice(2);
if (!folder || !out) {
  console.error("usage: node tools/make_snapshot.mjs <pyodide folder> <snapshot file>");
  process.exit(2);
}
const indexURL = resolve(folder) + "/";
const { loadPyodide } = await import(pathToFileURL(indexURL + "pyodide.mjs").href);
const pyodide = await loadPyodide({
  indexURL,
  _makeSnapshot: true,
  // What a browser's Emscripten reports, instead of this script's path and Node's locale.
  _sysExecutable: "./this.program",
  env: { LANG: "en_US.UTF-8" },
});
// The standard library modules py/, segno and PyScript's own package import at boot.
pyodide.runPython(`
import asyncio, base64, binascii, codecs, collections, contextlib, dataclasses, enum
import functools, hashlib, hmac, html, io, itertools, json, math, operator, random, re
import secrets, struct, textwrap, time, traceback, typing, unicodedata, urllib.parse, zlib
`);
const snapshot = pyodide.makeMemorySnapshot();
writeFileSync(out, snapshot);
console.log(`make_snapshot: ${(snapshot.length / 1e6).toFixed(1)} MB in ${out}`);
