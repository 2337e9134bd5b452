"""``python -m ludo simulate|legal|replay|tournament`` for Royal."""

from __future__ import annotations

import json

from test_royal_rules import CARRYING, pos

from ludo import Action, Record, format_record, play
from ludo.cli import main
from ludo.engine import rules_for

R = rules_for("royal")


def run(capsys, *argv: str) -> tuple[int, dict | None, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, (json.loads(out) if out else None), err


def test_simulate_royal_with_every_invariant_checked(capsys):
    status, out, err = run(capsys, "simulate", "--rules", "royal", "--games", "20",
                           "--players", "3")
    assert status == 0 and err == ""
    assert out["rules"] == "royal" and out["seats"] == ["red", "green", "yellow"]
    assert out["invariant_violations"] == 0 and sum(out["wins"].values()) == 20


def test_legal_after_a_crown_or_a_feather(tmp_path, capsys):
    path = tmp_path / "p.json"
    path.write_text(json.dumps(pos(men={"red": [5, "balk", "balk", "balk"]})))
    status, out, _ = run(capsys, "legal", "--roll", "crown", str(path))
    assert status == 0 and out["die"] == "crown" and out["phase"] == "move"
    assert out["distinct"] == [{"type": "move", "token": 0}, {"type": "move", "token": 1}]
    status, out, _ = run(capsys, "legal", "--roll", "feather", str(path))
    assert out["legal"] == [{"type": "move", "token": 0}]


def test_legal_lists_the_two_crowns_buttons_and_the_crown_played_as_a_move(tmp_path, capsys):
    path = tmp_path / "p.json"
    path.write_text(json.dumps(pos(crowns=1, **CARRYING)))
    status, out, _ = run(capsys, "legal", "--roll", "crown", str(path))
    assert out["phase"] == "choose"
    # the carrier "may" send back or climb on top; he may also play the crown (the double must
    # move in preference, so that move is the double's)
    assert out["legal"] == [{"type": "send_back", "token": 0}, {"type": "reverse", "token": 0},
                            {"type": "move", "token": 0}]


def test_legal_refuses_a_face_the_royal_die_does_not_have(tmp_path, capsys):
    path = tmp_path / "p.json"
    path.write_text(json.dumps(pos()))
    status, out, err = run(capsys, "legal", "--roll", "6", str(path))
    assert status == 2 and out is None and err.count("\n") == 1
    assert err.startswith("error: --roll: must be a face") and "crown" in err  # no ".value"


def test_replay_a_royal_record(tmp_path, capsys):
    record = Record("royal", ("red", "yellow"), 5)
    state = record.start()
    for action in (Action("roll", value="crown"), Action("move", token=0),
                   Action("roll", value=3), Action("move", token=0), Action("roll", value=2)):
        record, state, _ = play(record, state, action)
    path = tmp_path / "r.json"
    path.write_text(format_record(record))
    status, out, _ = run(capsys, "replay", str(path))
    assert status == 0 and out["actions"] == 5 and not out["over"]
    assert out["position"]["men"]["red"] == [3, "balk", "balk", "balk"]
    data = json.loads(format_record(record))
    data["actions"][1] = {"type": "reverse", "token": 0}
    path.write_text(json.dumps(data))
    status, _, err = run(capsys, "replay", str(path))
    assert status == 2 and "actions[1]" in err


def test_a_short_royal_tournament(capsys):
    status, out, _ = run(capsys, "tournament", "--rules", "royal", "--bots", "hard,medium,easy",
                         "--games", "3", "--seed", "2")
    assert status == 0 and out["unfinished"] == 0
    assert sum(e["wins"] for e in out["entries"]) == 3


def test_legal_help_gives_royals_faces_not_a_six_sided_die(capsys):
    # "--roll V: roll V first (1-6, or Royal's feather or crown)" told a Royal program that 5
    # and 6 are throws, which Royal refuses (its faces are 1-4, feather and crown; outside11)
    try:
        main(["legal", "--help"])
    except SystemExit as exit_:
        assert exit_.code == 0
    words = " ".join(capsys.readouterr().out.split())
    assert "roll V first (a die value 1-6; Royal's faces are 1, 2, 3, 4, feather and crown)" \
        in words, words
    # and a FILE is a whole line of legal only with --roll: without, it holds no position
    assert "or the whole line new, apply or legal --roll printed" in words
