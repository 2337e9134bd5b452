"""Royal property tests: random play, with timeouts and quits, checked after every action.

The checks read the JSON notation and a naive reference of Royal's paths written here from the
rules (not from the engine), so they fail independently of ``RoyalRules.violations``, which is
also consulted.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ludo import Action, Record, active_seats, apply, legal_actions, play, replay
from ludo.engine import rules_for
from ludo.invariants import violations
from ludo.notation import format_record, parse_record, position_to_json

R = rules_for("royal")
START = {"red": 0, "green": 13, "yellow": 26, "blue": 39}
ENTRANCE = {c: (s - 2) % 52 for c, s in START.items()}
CROWNS = frozenset(START.values())
FEATHERS = frozenset((8, 21, 34, 47))
MAX_ACTIONS = 20_000
"""A cap no game comes near (random 4-player games take a few hundred to ~1,500 actions;
bench/royal_lengths.py measures 10,000 of them)."""
SETTINGS = settings(deadline=None, max_examples=100, suppress_health_check=[HealthCheck.too_slow])


# -- a naive reference of the paths -------------------------------------------------------


def ref_track_path(colour: str, square: int) -> list[Any]:
    out: list[Any] = []
    while square != ENTRANCE[colour]:
        square = (square + 1) % 52
        out.append(square)
    return out + [f"{colour}-lane-{k}" for k in range(1, 6)] + ["home"]


def ref_path(colour: str, place: Any) -> list[Any]:
    """The places a man of ``colour`` at ``place`` (notation) passes on its way home."""
    if place in ("balk", "home"):
        return []
    if isinstance(place, str):
        owner, _, k = place.partition("-lane-")
        if owner == colour:
            return [f"{colour}-lane-{j}" for j in range(int(k) + 1, 6)] + ["home"]
        return ([f"{owner}-lane-{j}" for j in range(int(k) - 1, 0, -1)] + [ENTRANCE[owner]]
                + ref_track_path(colour, ENTRANCE[owner]))
    return ref_track_path(colour, place)


def is_crown(place: Any) -> bool:
    return place == "home" or place in CROWNS


def ref_dest(colour: str, place: Any, face: Any) -> Any:
    if place == "balk":
        return START[colour] if face == "crown" else None
    path = ref_path(colour, place)
    if face == "crown":
        return next((p for p in path if is_crown(p)), None)
    if face == "feather":
        first = next((p for p in path if is_crown(p) or p in FEATHERS), None)
        return first if first in FEATHERS else None
    return path[face - 1] if face < len(path) else None


def occupants(data: dict[str, Any]) -> Counter:
    return Counter(p for men in data["men"].values() for p in men if p not in ("balk", "home"))


# -- random play -----------------------------------------------------------------------------


@st.composite
def plans(draw: Any) -> dict[str, Any]:
    return {
        "seats": draw(st.sampled_from([("red", "yellow"), ("green", "blue"),
                                       ("red", "green", "yellow"), ("red", "green", "yellow",
                                                                    "blue")])),
        "seed": draw(st.integers(0, 2**64 - 1)),
        "chooser": draw(st.integers(0, 2**32)),
        "p_timeout": draw(st.sampled_from([0.0, 0.01, 0.04])),
        "p_quit": draw(st.sampled_from([0.0, 0.0, 0.002])),
        "p_given": draw(st.sampled_from([0.0, 0.3])),
    }


FACES = (1, 2, 3, 4, "feather", "crown")


def choose(state: Any, rnd: random.Random, plan: dict[str, Any]) -> Action:
    if plan["p_quit"] and rnd.random() < plan["p_quit"]:
        return Action("quit", seat=rnd.choice(active_seats(state)))
    if plan["p_timeout"] and rnd.random() < plan["p_timeout"]:
        if state.phase == "roll" and rnd.random() < plan["p_given"]:
            return Action("timeout", value=rnd.choice(FACES))
        return Action("timeout")
    if state.phase == "roll":
        if rnd.random() < plan["p_given"]:
            return Action("roll", value=rnd.choice(FACES))
        return Action("roll")
    return rnd.choice(legal_actions(state))


def check_step(before: Any, action: Action, after: Any, events: list[dict[str, Any]]) -> None:
    b, a = position_to_json(before), position_to_json(after)
    # at most two men a space; never two of one colour
    for place, count in occupants(a).items():
        assert count <= 2, (place, a["men"])
    for colour, places in a["men"].items():
        board = [p for p in places if p not in ("balk", "home")]
        assert len(board) == len(set(board)), (colour, places)
    # riders only ever sit on opponents, on the carrier's track space
    for d in a["doubles"]:
        (cc, ct), (rc, rt) = d["carrier"], d["rider"]
        assert cc != rc
        assert a["men"][cc][ct] == a["men"][rc][rt] and isinstance(a["men"][cc][ct], int)
    # two men on a track space are a double
    listed = {(d["carrier"][0], d["carrier"][1]) for d in a["doubles"]}
    for colour, places in a["men"].items():
        for t, p in enumerate(places):
            if isinstance(p, int) and occupants(a)[p] == 2:
                riders = {(d["rider"][0], d["rider"][1]) for d in a["doubles"]}
                assert (colour, t) in listed or (colour, t) in riders
    if b["phase"] == "move" and action.type == "move":
        turn, die = b["turn"], b["die"]
        occ = occupants(b)
        own = set(p for p in b["men"][turn] if p not in ("balk", "home"))
        double_places = {b["men"][d["carrier"][0]][d["carrier"][1]] for d in b["doubles"]}
        # a carrier always moves its double when it can
        carriers = [d["carrier"][1] for d in b["doubles"] if d["carrier"][0] == turn]
        can = []
        for t in carriers:
            dest = ref_dest(turn, b["men"][turn][t], die)
            if dest is None or dest == "home" or dest in own or dest in double_places:
                continue
            if isinstance(dest, str) and occ[dest]:
                continue
            can.append(t)
        if can:
            assert action.token in can, (b, action)
        # a feather never takes a man past a crown, and always to a feather space
        if die == "feather":
            origin = b["men"][turn][action.token]
            dest = a["men"][turn][action.token] if a["men"].get(turn) else None
            if dest is not None and dest != "balk":
                path = ref_path(turn, origin)
                assert dest in FEATHERS and not any(is_crown(p) for p in path[:path.index(dest)])
        # every move goes where the reference says
        dest = ref_dest(turn, b["men"][turn][action.token], die)
        if a["men"].get(turn):
            assert a["men"][turn][action.token] == dest
    for event in events:
        if event["type"] == "no_move":
            check_lost_reasons(b, event)
    assert violations(before, after, events) == []


def check_lost_reasons(b: dict[str, Any], event: dict[str, Any]) -> None:
    """Every cause a lost throw gives is true of the position it was thrown in."""
    turn, face = event["seat"], event["value"]
    mine = b["men"][turn]
    out = [p for p in mine if p not in ("balk", "home")]
    carried = {d["carrier"][1] for d in b["doubles"] if d["carrier"][0] == turn}
    waiting = [p for p in out if isinstance(p, str) and not p.startswith(f"{turn}-lane-")]
    codes = [event["reason"], *event.get("also", ())]
    assert len(codes) == len(set(codes)), event
    for code in codes:
        if code == "no_man_out":
            assert all(p == "balk" for p in mine) and face != "crown" and codes == [code]
        elif code == "in_balk":
            assert not out and "home" in mine and "balk" in mine and face != "crown"
            assert codes == [code]
        elif code == "start_held":
            assert face == "crown" and "balk" in mine and occupants(b)[START[turn]] == 2
        elif code == "waiting":
            # ... and not all his other men are home (men waiting too do not count)
            assert waiting and any(p != "home" and p not in waiting for p in mine)
        elif code == "double_home":
            assert face == "crown" and any(ref_dest(turn, mine[t], "crown") == "home"
                                           for t in carried)
        elif code == "feather":
            assert face == "feather" and any(ref_dest(turn, p, "feather") is None
                                             and not str(p).startswith(f"{turn}-lane-")
                                             for p in out)
        elif code == "feather_column":
            assert face == "feather" and any(str(p).startswith(f"{turn}-lane-") for p in out)
        elif code == "column_end":  # a number past the last space of his own column
            assert face in (1, 2, 3, 4) and any(
                str(p).startswith(f"{turn}-lane-") and int(str(p).rsplit("-", 1)[1]) + face > 5
                for p in out)
        else:
            assert code == "blocked", event


def play_out(plan: dict[str, Any]) -> tuple[Record, list[Any], int]:
    rnd = random.Random(plan["chooser"])
    record = Record("royal", tuple(plan["seats"]), plan["seed"])
    state = record.start()
    states = [state]
    for count in range(MAX_ACTIONS):
        if state.phase == "over":
            return record, states, count
        before = state
        action = choose(state, rnd, plan)
        record, state, events = play(record, state, action)
        check_step(before, record.actions[-1], state, events)
        states.append(state)
    raise AssertionError(f"no winner after {MAX_ACTIONS} actions")


@SETTINGS
@given(plan=plans())
def test_random_play_keeps_every_rule_and_replays_exactly(plan):
    record, states, count = play_out(plan)
    final = states[-1]
    assert final.phase == "over" and len(R.winners(final)) == 1
    winner = final.winner
    men = position_to_json(final)["men"]
    assert men[winner] == ["home"] * 4 or active_seats(final) == (winner,)
    # the record replays to exactly the same positions, also after a trip through its JSON
    assert replay(parse_record(format_record(record))) == states


def test_every_game_ends_and_no_game_comes_near_the_cap():
    lengths = []
    rnd = random.Random(4)
    for game in range(150):
        state = R.new_game(("red", "green", "yellow", "blue"), game)
        count = 0
        while state.phase != "over":
            moves = R.legal_actions(state)
            state = R.advance(state, moves[rnd.randrange(len(moves))])
            count += 1
            assert count < MAX_ACTIONS
        lengths.append(count)
    assert max(lengths) < MAX_ACTIONS // 5


def test_the_die_is_fair_and_every_face_comes_up():
    state = R.new_game(("red", "yellow"), 9)
    seen: Counter = Counter()
    for _ in range(6000):
        action = R.resolve(state, Action("roll"))
        seen[action.value] += 1
        state = state._replace(rng=R.advance(state, action).rng)
    assert set(seen) == set(FACES)
    assert all(850 < n < 1150 for n in seen.values()), seen
    outcomes = R.chance_outcomes(R.new_game(("red", "yellow"), 9))
    assert [a.value for a, _ in outcomes] == list(FACES)
    assert all(p == 1 / 6 for _, p in outcomes)


@settings(deadline=None, max_examples=60, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32), plies=st.integers(0, 400))
def test_given_and_drawn_throws_leave_the_same_position(seed, plies):
    rnd = random.Random(seed)
    state = R.new_game(("red", "green", "yellow"), seed)
    for _ in range(plies):
        if state.phase == "over":
            break
        if state.phase == "roll":
            drawn = R.advance(state, Action("roll"))
            given_ = R.advance(state, R.resolve(state, Action("roll")))
            assert drawn == given_
            state = drawn
        else:
            state = R.advance(state, rnd.choice(legal_actions(state)))


def test_two_crowns_come_exactly_when_a_carrier_throws_a_crown_straight_after_another():
    """The seed's "throws two crowns in succession", as docs/rules/royal.md reads it, tracked
    here apart from the engine: a turn's crowns count towards a pair; sending the rider back or
    climbing on top uses the pair up (for a second double still carried, that crown is the
    first of its next pair); a crown played as a move after the choice keeps the
    double and is the first of the next pair. A carrier's crown that makes a pair gives the
    choice (or, with no other man to move, sends the rider back); no other throw does. The
    dice favour crowns so that runs of three and more come up often."""
    faces = (1, 2, 3, 4, "feather") + ("crown",) * 4
    rnd = random.Random(13)
    choices_seen = third_crowns = second_doubles = 0
    for game in range(60):
        state = R.new_game(("red", "green", "yellow", "blue"), game)
        pair = 0  # crowns towards the pair, counted here
        after_choice_move = False
        for _ in range(3000):
            if state.phase == "over":
                break
            turn = state.turn
            if state.phase == "roll":
                action = Action("roll", value=rnd.choice(faces))
            else:
                action = rnd.choice(legal_actions(state))
            carrying = any(d["carrier"][0] == turn for d in position_to_json(state)["doubles"])
            before_phase = state.phase
            state, events = apply(state, action)
            types = [e["type"] for e in events]
            if action.type == "roll" and action.value == "crown":
                pair += 1
                gives = carrying and pair >= 2
                forced = any(e.get("reason") == "two_crowns_forced" for e in events)
                assert ("two_crowns" in types or forced) == gives, (pair, events)
                if gives and not forced:
                    assert state.phase == "choose"
                if gives:
                    choices_seen += 1
                    third_crowns += after_choice_move
                if forced:
                    pair = 1 if any(d["carrier"][0] == turn
                                    for d in position_to_json(state)["doubles"]) else 0
            elif action.type == "roll":
                assert "two_crowns" not in types
            still = any(d["carrier"][0] == turn for d in position_to_json(state)["doubles"])
            if action.type in ("send_back", "reverse"):
                # the pair is used up for the double it ended; for a second double still
                # carried, the crown was thrown in succession too: the first of its next pair
                pair = 1 if still else 0
                second_doubles += still
            # a crown played as a move after the choice: the first of the next pair
            after_choice_move = before_phase == "choose" and action.type == "move"
            if after_choice_move:
                pair = 1
            if state.turn != turn or state.phase == "over":
                pair = 0
                after_choice_move = False
    # the runs this test is about did come up
    assert choices_seen > 50 and third_crowns > 5 and second_doubles > 5, \
        (choices_seen, third_crowns, second_doubles)


def ref_plays(data: dict[str, Any], face: Any) -> list[tuple[str, int]]:
    """Every man of the seat to act that may play ``face``, read from the seed apart from the
    engine: ``("carry", t)`` for a carrier moving his double, ``("off", t)`` for a rider
    moving off alone, ``("move", t)`` otherwise.

    A carrier's double goes onto an empty space or a track space held by one opponent (sent to
    balk), never onto the home crown; a rider moves off onto an empty space or his home crown;
    any other man onto an empty space, his home crown, or a track space held by one opponent
    (a double); a man left in another colour's column moves only once all his owner's other
    men are home (men left waiting too do not count). While a double can move, only its moves
    are legal."""
    turn = data["turn"]
    men = data["men"][turn]
    held = Counter(p for places in data["men"].values() for p in places
                   if p not in ("balk", "home"))
    owner = {p: c for c, places in data["men"].items() for p in places
             if p not in ("balk", "home")}
    carriers = {d["carrier"][1] for d in data["doubles"] if d["carrier"][0] == turn}
    riders = {d["rider"][1] for d in data["doubles"] if d["rider"][0] == turn}

    def waiting(place: Any) -> bool:
        return isinstance(place, str) and "-lane-" in place and \
            not place.startswith(f"{turn}-lane-")

    free = all(p == "home" or waiting(p) for p in men)
    carry, others = [], []
    for t, place in enumerate(men):
        dest = ref_dest(turn, place, face)
        if dest is None:
            continue
        empty = held[dest] == 0
        one_opponent = isinstance(dest, int) and held[dest] == 1 and owner[dest] != turn
        if t in carriers:
            if dest != "home" and (empty or one_opponent):
                carry.append(("carry", t))
        elif t in riders:
            if dest == "home" or empty:
                others.append(("off", t))
        elif (free or not waiting(place)) and (dest == "home" or empty or one_opponent):
            others.append(("move", t))
    return carry or others


def test_every_throw_offers_exactly_the_moves_an_independent_reading_of_the_seed_allows():
    """Completeness, which the checks above leave open (they follow the move played): at every
    throw, the men that may move are exactly those :func:`ref_plays` finds, "stay on top" is
    offered exactly when every move is a rider moving off ("when he pleases"), and a throw is
    lost only when the reference has no move for it either: a throw lost while the seed allows
    a move would cheat the player of it. Crown-heavy dice, quits and timeouts, all seatings."""
    faces = (1, 2, 3, 4, "feather") + ("crown",) * 3
    seatings = (("red", "yellow"), ("red", "green", "yellow"), ("green", "blue"),
                ("red", "green", "yellow", "blue"))
    rnd = random.Random(2026)
    throws = lost = stays = doubles_seen = 0
    for game in range(48):
        state = R.new_game(seatings[game % len(seatings)], game)
        for _ in range(3000):
            if state.phase == "over":
                break
            data = position_to_json(state)
            doubles_seen += bool(data["doubles"])
            if state.phase == "roll":
                face = rnd.choice(faces)
                after, events = apply(state, Action("roll", value=face))
                throws += 1
                if any(e["type"] == "no_move" for e in events):
                    lost += 1
                    assert ref_plays(data, face) == [], (data, face, events)
                state = after
                continue
            if state.phase == "move":
                want = ref_plays(data, data["die"])
                legal = legal_actions(state)
                assert sorted(a.token for a in legal if a.type == "move") == \
                    sorted(t for _, t in want), (data, want, legal)
                stay = any(a.type == "stay" for a in legal)
                assert stay == (bool(want) and all(kind == "off" for kind, _ in want)), data
                stays += stay
            roll_of_the_dice = rnd.random()
            if roll_of_the_dice < 0.01:
                action = Action("quit", seat=rnd.choice(active_seats(state)))
            elif roll_of_the_dice < 0.03:
                action = Action("timeout")
            else:
                action = rnd.choice(legal_actions(state))
            state = apply(state, R.resolve(state, action))[0]
    # the cases this test is about did come up
    assert throws > 3000 and lost > 200 and stays > 20 and doubles_seen > 1000, \
        (throws, lost, stays, doubles_seen)
