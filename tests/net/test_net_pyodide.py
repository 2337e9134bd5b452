"""py/net runs under Pyodide (the browser's Python) and derives the same dice as CPython.

Loads the vendored Pyodide in Node (no browser needed); skipped when Node or the vendored
runtime is missing.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from net import dice

ROOT = Path(__file__).resolve().parents[2]
PYODIDE = ROOT / "vendor" / "pyodide"
ROOM = "q2Vf0pX9cE7wR1sT4uY8zA"

SCRIPT = """
import {{ loadPyodide }} from {pyodide_mjs};
import fs from "fs";
const py = await loadPyodide({{ indexURL: {index_url} }});
py.FS.mkdirTree("/home/pyodide/net");
for (const name of ["__init__.py", "dice.py", "signalling.py"]) {{
  py.FS.writeFile("/home/pyodide/net/" + name, fs.readFileSync({net_dir} + "/" + name, "utf8"));
}}
console.log(py.runPython({program}));
"""

PROGRAM = f"""
import json, sys
sys.path.insert(0, "/home/pyodide")
from net import dice, signalling
chains = {{p: dice.SecretChain(bytes([i + 1]) * 32, 0, 64) for i, p in enumerate(("red", "blue"))}}
ledger = dice.DiceLedger("{ROOM}", ["red", "blue"])
for p, c in chains.items():
    ledger.commit(c.commitment(p))
for k in range(40):
    counted = {{p: c.reveal(k) for p, c in chains.items() if (k + len(p)) % 7}}
    ledger.settle(k, 6 if k else 2, counted)
fresh = dice.SecretChain.new()
json.dumps({{
    "python": sys.version.split()[0],
    "record": ledger.to_json(),
    "fresh": fresh.head != dice.SecretChain.new().head,
    "room": signalling.is_room_id(signalling.new_room_id()),
}})
"""


@pytest.mark.skipif(shutil.which("node") is None or not (PYODIDE / "pyodide.mjs").is_file(),
                    reason="needs Node and the vendored Pyodide")
def test_dice_under_pyodide_match_cpython(tmp_path: Path) -> None:
    script = tmp_path / "run.mjs"
    script.write_text(SCRIPT.format(
        pyodide_mjs=json.dumps(str(PYODIDE / "pyodide.mjs")),
        index_url=json.dumps(str(PYODIDE) + "/"),
        net_dir=json.dumps(str(ROOT / "py" / "net")),
        program=json.dumps(PROGRAM),
    ))
    result = subprocess.run(["node", str(script)], capture_output=True, text=True, timeout=180)
    assert result.returncode == 0, result.stderr[-2000:]
    out = json.loads(result.stdout.strip().splitlines()[-1])
    assert out["python"].startswith("3.") and out["fresh"] and out["room"]
    # The record made in Pyodide verifies in CPython, roll for roll.
    rolls = dice.verify_record(out["record"])
    assert len(rolls) == 40
    chains = {p: dice.SecretChain(bytes([i + 1]) * 32, 0, 64)
              for i, p in enumerate(("red", "blue"))}
    for r in rolls:
        expected = dice.draw(ROOM, r.roll, r.n,
                             [(p, chains[p].reveal(r.roll)) for p in r.contributors])
        assert r.value == expected
