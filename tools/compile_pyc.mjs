// Compile a folder of Python sources to bytecode with the vendored Pyodide's own CPython.
//
//     node tools/compile_pyc.mjs <pyodide folder> <source folder>
//
// tools/build_pybundle.py runs this on a temporary copy of the modules it puts in py.zip. Each
// `x.py` gets `x.pyc` beside it, where Python's zip importer looks for a module's bytecode (the
// page imports straight from the archive; zipimport never reads `__pycache__/`). Only the
// browser's Python may read it: the host's CPython may be another version, and build_pybundle
// records the cache tag printed below in the archive. The .pyc files are "unchecked hash" ones
// (PEP 552): the importer uses them without comparing anything with the source; the build writes
// them again whenever a source changes. The recorded file name is the module's path inside the
// archive as the page sees it (/home/pyodide/py.zip/ludo/engine.py), whose source the zip
// importer hands to tracebacks.
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";

const [folder, sources] = process.argv.slice(2);
if (!folder || !sources) {
  console.error("usage: node tools/compile_pyc.mjs <pyodide folder> <source folder>");
  process.exit(2);
}
const indexURL = resolve(folder) + "/";
const { loadPyodide } = await import(pathToFileURL(indexURL + "pyodide.mjs").href);
const pyodide = await loadPyodide({ indexURL });
pyodide.FS.mkdirTree("/mnt/sources");
pyodide.FS.mount(pyodide.FS.filesystems.NODEFS, { root: resolve(sources) }, "/mnt/sources");
const compiled = pyodide.runPython(`
import py_compile, sys
from pathlib import Path

count = 0
base = Path("/mnt/sources")
for path in sorted(base.rglob("*.py")):
    rel = path.relative_to(base).as_posix()
    py_compile.compile(
        str(path), cfile=str(path.with_suffix(".pyc")), dfile=f"/home/pyodide/py.zip/{rel}",
        doraise=True, invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH)
    count += 1
f"{count} modules compiled by Python {sys.version.split()[0]} ({sys.implementation.cache_tag})"
`);
pyodide.FS.unmount("/mnt/sources");
console.log(`compile_pyc: ${compiled}`);
