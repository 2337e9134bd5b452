"""``python -m ludo tournament``: rotated seats, duplicate dice, one JSON line, exit 2."""

from __future__ import annotations

import json

import pytest

from ludo.bots.tournament import play_game, tasks, tournament, wilson
from ludo.cli import main


def run(capsys, *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def test_prints_one_json_line_with_rates_intervals_and_times(capsys) -> None:
    status, out, err = run(capsys, "tournament", "--rules", "classic", "--bots",
                           "medium,easy,easy,easy", "--games", "8", "--seed", "3")
    assert status == 0 and err == ""
    assert out.count("\n") == 1
    result = json.loads(out)
    assert result["command"] == "tournament" and result["games"] == 8
    assert result["rotations"] == 4
    entries = result["entries"]
    assert [e["bot"] for e in entries] == ["medium", "easy", "easy", "easy"]
    assert sum(e["wins"] for e in entries) + result["unfinished"] == 8
    for e in entries:
        lo, hi = e["ci95"]
        assert 0 <= lo <= e["win_rate"] <= hi <= 1
    assert set(result["decision_time"]) == {"easy", "medium"}
    for stats in result["decision_time"].values():
        assert stats["decisions"] > 0 and stats["avg_ms"] >= 0 and stats["p95_ms"] >= 0
    assert result["games_per_second"] > 0


def test_every_seed_is_played_under_every_rotation() -> None:
    work = list(tasks("courtyard", ("hard", "medium", "medium", "medium"), 8, 5))
    seeds = [t[2] for t in work]
    rotations = [t[3] for t in work]
    assert seeds[:4] == [seeds[0]] * 4 and seeds[4:] == [seeds[4]] * 4 != seeds[:4]
    assert rotations == [0, 1, 2, 3, 0, 1, 2, 3]


def test_a_game_reports_winner_entry_actions_and_times() -> None:
    result = play_game("classic", ("medium", "easy"), 17, 1)
    assert result["winner"] in (0, 1) and result["actions"] > 0
    assert set(result["times"]) == {"medium", "easy"}


def test_jobs_do_not_change_the_results() -> None:
    one = tournament("courtyard", ("medium", "easy", "easy"), 6, 2, jobs=1)
    two = tournament("courtyard", ("medium", "easy", "easy"), 6, 2, jobs=2)
    assert one["entries"] == two["entries"]
    assert one["mean_game_length"] == two["mean_game_length"]


@pytest.mark.parametrize("argv, fragment", [
    (["--bots", "hard,grandmaster"], 'unknown bot level "grandmaster"'),
    (["--bots", "hard"], "2 to 4"),
    (["--bots", "easy,easy,easy,easy,easy"], "2 to 4"),
    (["--games", "0"], "must be 1 to"),
    (["--jobs", "two"], "whole number"),
    (["--seed", "-1"], "a seed is 0 to"),
    (["--rules", "gilgiti-someday"], "invalid choice"),
])
def test_bad_input_exits_2_with_one_line(capsys, argv, fragment) -> None:
    status, out, err = run(capsys, "tournament", *argv)
    assert status == 2 and out == ""
    assert err.count("\n") == 1 and fragment in err


def test_wilson_interval() -> None:
    lo, hi = wilson(50, 100)
    assert lo == pytest.approx(0.4038, abs=1e-3) and hi == pytest.approx(0.5962, abs=1e-3)
    assert wilson(0, 0) == (0.0, 1.0)
