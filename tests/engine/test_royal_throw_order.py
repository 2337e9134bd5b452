"""Royal random play against seed 001's sentences on who throws next and how men come and go.

The Royal property tests check each move's destination, the carrier's compulsion, the
two-crowns pairs and every throw's legal moves. This file checks, after every action of
seeded random games (quits and timeouts mixed in), what they leave to the engine's own
invariant checker or do not check at all (seed review 10):

- "Red leads the throwing, the player on the left follows and so on round the board": the
  first throw of every game is red's (the next colour clockwise without red), and a throw
  that is not a crown passes the die to the next seat clockwise still in the match, the one
  "Next" named (seed 000's "Next", which Royal's table shows too);
- "Each time a crown is thrown the player is entitled to another throw": after a crown,
  whatever it did, the same seat throws again;
- "The player who first throws a crown, starts playing by placing a man on the starting
  point": a man leaves the balk only on his own seat's crown, onto his own starting point;
- "finally reaches home by throwing a crown": a man reaches the home crown only on a crown;
  and once there he never leaves it;
- "As soon as a player has got his man into the home color, he is out of danger": no man is
  ever sent from his own home column to balk;
- "If a double is carried into another home color he has to remain there ... He then plays
  the double down the colored spaces": a man comes into another colour's column only as a
  rider left there (event ``left_in_column``), and moves in it only down, towards the track.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest
from enginekit import COLOURS, START

from ludo import (
    Action,
    active_seats,
    apply,
    legal_actions,
    new_game,
    next_player,
    position_to_json,
    resolve,
)

SEATINGS = (("red", "yellow"), ("green", "blue"), ("red", "green", "yellow"),
            ("green", "yellow", "blue"), COLOURS)


def column_of(place: Any) -> str | None:
    """The colour whose home column ``place`` is in ("red-lane-3" -> "red"), else None."""
    if isinstance(place, str) and "-lane-" in place:
        return place.split("-")[0]
    return None


def clockwise_after(seats: list[str], out: dict[str, str], seat: str) -> str:
    i = seats.index(seat)
    return next(s for k in range(1, len(seats) + 1)
                if (s := seats[(i + k) % len(seats)]) not in out)


def check_action(b: dict[str, Any], action: Action, a: dict[str, Any],
                 events: list[dict[str, Any]], shown_next: str | None) -> None:
    kinds = [e["type"] for e in events]
    thrown = [e["value"] for e in events if e["type"] == "rolled"]
    face = thrown[-1] if thrown else b["die"]  # the throw this action played
    if action.type == "quit" or "eliminated" in kinds:
        return  # a seat leaving takes its men away; its own tests cover that
    for colour in b["seats"]:
        if colour in a["out"]:
            continue
        for before, after in zip(b["men"][colour], a["men"][colour], strict=True):
            if before == "balk" and after != "balk":
                assert (colour, face, after) == (b["turn"], "crown", START[colour]), (b, events)
            if before != "home" and after == "home":
                assert (colour, face) == (b["turn"], "crown"), (b, events)
            if before == "home":
                assert after == "home"
            if column_of(before) == colour:
                assert after != "balk", (b, events)  # out of danger in his home column
            if column_of(after) not in (None, colour) and column_of(before) is None:
                assert "left_in_column" in kinds, (b, events)
            if column_of(before) not in (None, colour) and after != before:
                if column_of(after) is not None:  # plays down the coloured spaces
                    assert column_of(after) == column_of(before), (b, events)
                    assert int(after.rsplit("-", 1)[1]) < int(before.rsplit("-", 1)[1])
                else:
                    assert isinstance(after, int), (b, events)
    if a["phase"] == "over":
        w = a["winner"]
        assert all(p == "home" for p in a["men"][w]) or \
            [s for s in a["seats"] if s not in a["out"]] == [w]
        return
    if face is None or a["phase"] != "roll":
        return  # the throw is not over yet (a move or a two-crowns choice follows)
    if face == "crown":
        assert a["turn"] == b["turn"], (b, events)
    else:
        assert a["turn"] == clockwise_after(b["seats"], a["out"], b["turn"]), (b, events)
        assert a["turn"] == shown_next, (b, events)  # "Next" named that seat beforehand


def play_game(seed: int, seen: Counter[str]) -> int:
    rnd = random.Random(seed)
    seats = SEATINGS[seed % len(SEATINGS)]
    p_quit = 0.0005 if seed % 3 == 0 else 0.0
    p_timeout = 0.01 if seed % 2 else 0.0
    crowns = 0.15 if seed % 4 == 0 else 0.0  # crown-heavy dice: runs of crowns, two crowns
    state = new_game("royal", seats, seed)
    assert position_to_json(state)["turn"] == next(c for c in COLOURS if c in seats)
    for count in range(50_000):
        b = position_to_json(state)
        if b["phase"] == "over":
            return count
        draw = rnd.random()
        if draw < p_quit:
            action = Action("quit", seat=rnd.choice(active_seats(state)))
        elif draw < p_quit + p_timeout:
            action = Action("timeout")
        elif b["phase"] == "roll":
            action = Action("roll", value="crown") if rnd.random() < crowns else Action("roll")
        else:
            action = rnd.choice(legal_actions(state))
        action = resolve(state, action)
        shown_next = next_player(state)
        state, events = apply(state, action)
        seen.update(e["type"] for e in events)
        check_action(b, action, position_to_json(state), events, shown_next)
    raise AssertionError(f"seed {seed}: the game did not end")


@pytest.mark.parametrize("first", [0, 20])
def test_every_throw_passes_the_die_and_moves_men_as_the_seed_says(first: int) -> None:
    seen: Counter[str] = Counter()
    played = sum(play_game(seed, seen) for seed in range(first, first + 20))
    assert played > 3000
    for kind in ("entered", "reached_home", "doubled", "left_in_column", "two_crowns",
                 "timeout", "won"):
        assert seen[kind] > 0, (kind, seen)
