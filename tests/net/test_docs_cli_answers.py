"""The command line's answers have the members the documents say they have.

docs/notation.md's table of commands lists, for each, the members of the JSON line it prints;
a program written from that table reads them by those names. docs/online.md says what `verify`
prints too (it said "who contributed to how many rolls"; it prints each participant's rolls
settled without their reveal, `missing_reveals`).
"""

from __future__ import annotations

import contextlib
import io
import json
import re
from pathlib import Path
from typing import Any

import pytest
from roomkit import Net

from ludo.cli import main

ROOT = Path(__file__).resolve().parents[2]
NOTATION = (ROOT / "docs" / "notation.md").read_text(encoding="utf-8")
ONLINE = " ".join((ROOT / "docs" / "online.md").read_text(encoding="utf-8").split())


def _documented(command: str) -> list[str]:
    """The members the notation table's row for `command` quotes, in order."""
    row = next(line for line in NOTATION.splitlines() if line.startswith(f"| `{command}"))
    shown = re.search(r'`\{"command": "' + command + r'"(.*?)\}`', row)
    assert shown, row
    return ["command", *re.findall(r'"([a-z_]+)"(?=[:,}]|$)', shown.group(1))]


def _answer(*argv: str) -> dict[str, Any]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(list(argv)) == 0
    return json.loads(out.getvalue())


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    folder = tmp_path_factory.mktemp("cli")
    net = Net()
    net.seat_all()
    net.host.start(net.now)
    net.pump()
    net.play_to_end(seed=3)
    online = folder / "online.json"
    online.write_text(json.dumps(net.host.record_json()))
    first = folder / "new.json"
    first.write_text(json.dumps(_answer("new", "--seed", "3")))
    record = folder / "record.json"
    record.write_text(json.dumps(json.loads(first.read_text())["record"]))
    return {"online": str(online), "new": str(first), "record": str(record)}


def test_every_command_prints_the_members_its_row_names(files: dict[str, str]) -> None:
    answers = {
        "new": _answer("new", "--seed", "3"),
        "apply": _answer("apply", files["new"], '{"type": "roll"}'),
        "bot": _answer("bot", files["new"]),
        "replay": _answer("replay", files["record"]),
        "verify": _answer("verify", files["online"]),
    }
    for command, answer in answers.items():
        assert list(answer) == _documented(command), command


def test_online_md_says_what_verify_prints(files: dict[str, str]) -> None:
    printed = _answer("verify", files["online"])
    assert printed["verified"] is True and printed["participants"]
    sentence = ONLINE[ONLINE.index("python -m ludo verify record.json` checks"):]
    sentence = sentence[:sentence.index("In the app")]
    for member in ("rolls", "participants", "missing_reveals"):
        assert member in sentence, member
