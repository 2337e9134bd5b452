"""Seating, turn order, the die and the board geometry (house rule 1, the preamble, rule 2's die).

Positions are built through the notation (enginekit.load).
"""

from __future__ import annotations

from collections import Counter

import pytest
from enginekit import COLOURS, ENTRANCE, SAFE, STAR, START, js, kinds, load, play

from ludo import (
    NotationError,
    active_seats,
    apply,
    default_seats,
    move,
    new_game,
    next_player,
    rng,
    roll,
)
from ludo import geometry as g
from ludo.engine import SEATS_BY_PLAYERS

# --- "Two to four players. Four tokens each." ---------------------------------


@pytest.mark.parametrize("rules", ["courtyard", "classic"])
@pytest.mark.parametrize("players", [2, 3, 4])
def test_preamble_two_to_four_players_four_tokens_each(rules, players):
    state = new_game(rules, default_seats(players), seed=7)
    data = js(state)
    assert data["seats"] == list(SEATS_BY_PLAYERS[players])
    assert all(data["tokens"][c] == ["yard"] * 4 for c in data["seats"])
    assert set(data["tokens"]) == set(data["seats"])
    assert state.phase == "roll" and state.winner is None


@pytest.mark.parametrize("seats", [["red"], ["red", "green", "yellow", "blue", "red"], [],
                                   ["red", "red"], ["red", "purple"], "red,green", [1, 2]])
def test_preamble_seat_lists_outside_two_to_four_colours_are_rejected(seats):
    with pytest.raises(NotationError, match=r"^seats(\[\d\])?: "):
        new_game("courtyard", seats, seed=1)


@pytest.mark.parametrize("players", [0, 1, 5])
def test_default_seats_only_for_two_to_four(players):
    with pytest.raises(NotationError, match="players"):
        default_seats(players)


def test_default_colours_for_two_and_three_players():
    # documented in docs/rules/courtyard.md: 2 -> opposite corners, 3 -> the first three
    assert default_seats(2) == ("red", "yellow")
    assert default_seats(3) == ("red", "green", "yellow")
    assert default_seats(4) == COLOURS


# --- Rule 1: "A random player starts; turns go clockwise: red, green, yellow, blue." ---


@pytest.mark.parametrize("players", [2, 3, 4])
def test_rule01_a_random_player_starts(players):
    seats = default_seats(players)
    starters = Counter(new_game("courtyard", seats, seed).turn for seed in range(600))
    assert set(starters) == set(seats)
    expected = 600 / players
    assert all(abs(n - expected) < 0.25 * expected for n in starters.values()), starters


def test_rule01_the_starter_depends_only_on_the_seed():
    for seed in range(30):
        a = new_game("courtyard", COLOURS, seed)
        b = new_game("courtyard", list(reversed(COLOURS)), seed)
        assert a == b  # same seed, same seats (in any order): the very same position


def _pass_round(state, value=2):
    """Everybody in the yard rolls ``value`` (no move): the turn passes."""
    order = []
    for _ in range(len(active_seats(state)) + 1):
        order.append(state.turn)
        state, events = apply(state, roll(value))
        assert kinds(events) == ["rolled", "no_move", "turn"]
    return order


def test_rule01_turns_go_clockwise_red_green_yellow_blue():
    assert g.COLOURS == ("red", "green", "yellow", "blue")
    assert _pass_round(load(turn="red")) == ["red", "green", "yellow", "blue", "red"]
    assert _pass_round(load(turn="yellow")) == ["yellow", "blue", "red", "green", "yellow"]


@pytest.mark.parametrize("seats,start,order", [
    (["red", "yellow"], "yellow", ["yellow", "red", "yellow"]),
    (["red", "green", "yellow"], "yellow", ["yellow", "red", "green", "yellow"]),
    (["blue", "green"], "blue", ["blue", "green", "blue"]),
    (["green", "yellow", "blue"], "green", ["green", "yellow", "blue", "green"]),
])
def test_rule01_two_and_three_players_keep_clockwise_order(seats, start, order):
    assert _pass_round(load(seats=seats, turn=start)) == order


def test_rule01_same_colours_and_order_for_everyone():
    # Seats are stored in clockwise order whatever order they were given in, so every
    # peer that builds the game from the same seats and seed holds the same position.
    state = new_game("courtyard", ["blue", "red", "green"], seed=3)
    assert state.seats == ("red", "green", "blue")
    assert js(state)["seats"] == ["red", "green", "blue"]


def test_rule01_fixed_board_has_red_at_bottom_left():
    # pass-and-play keeps this board: red's yard is the bottom-left 6x6 corner
    assert g.YARD_BOXES == {"red": (0.0, 9.0), "green": (0.0, 0.0),
                            "yellow": (9.0, 0.0), "blue": (9.0, 9.0)}
    for colour in COLOURS:
        x, y = g.YARD_BOXES[colour]
        assert all(x <= px <= x + 6 and y <= py <= y + 6 for px, py in g.YARD_SPOTS[colour])


# --- "Next" (rule 10) --------------------------------------------------------------------


def test_rule10_next_is_the_next_clockwise_seat_after_the_current_turn():
    assert next_player(load(turn="red")) == "green"
    assert next_player(load(turn="blue")) == "red"
    # during an extra roll and during the move, "next" is still the seat after this turn
    after_six, _ = play(load(turn="red", tokens={"red": [10, "yard", "yard", "yard"]}),
                        roll(6))
    assert after_six.phase == "move" and next_player(after_six) == "green"
    extra, events = apply(after_six, move(0))
    assert extra.turn == "red" and extra.phase == "roll" and "extra_roll" in kinds(events)
    assert next_player(extra) == "green"


def test_rule10_next_skips_seats_that_have_left():
    state = load(turn="red", out={"green": "quit", "yellow": "eliminated"})
    assert next_player(state) == "blue"
    assert next_player(load(turn="blue", out={"red": "quit"})) == "green"
    assert next_player(load(seats=["red", "yellow"], turn="yellow")) == "red"


def test_rule10_next_for_every_seating_and_every_seat_that_has_left():
    # the engine finds the next seat from who still has tokens; check it against the
    # definition (next seat clockwise in `seats` that is not in `out`) exhaustively
    from itertools import combinations, product

    for n in (2, 3, 4):
        for seats in combinations(COLOURS, n):
            for reasons in product((None, "quit", "eliminated"), repeat=n):
                out = {c: r for c, r in zip(seats, reasons, strict=True) if r is not None}
                active = [c for c in seats if c not in out]
                if len(active) < 2:
                    continue
                for turn in active:
                    i = seats.index(turn)
                    expected = next(seats[(i + k) % n] for k in range(1, n + 1)
                                    if seats[(i + k) % n] not in out)
                    state = load(seats=list(seats), turn=turn, out=out)
                    assert next_player(state) == expected, (seats, out, turn)
                    # and the turn really passes there when the roll cannot be used
                    after, _ = play(state, roll(2))
                    assert after.turn == expected


def test_rule10_next_is_none_when_the_game_is_over():
    over = load(seats=["red", "yellow"], phase="over", winner="yellow", turn="red",
                out={"red": "quit"})
    assert next_player(over) is None


# --- "Use one fair six-sided die." ---------------------------------------------------------


def test_rule02_one_fair_six_sided_die():
    state = rng.seed_state(12345)
    counts = Counter()
    for _ in range(60_000):
        state, value = rng.roll_die(state)
        counts[value] += 1
    assert set(counts) == {1, 2, 3, 4, 5, 6}
    # chi-square with 5 degrees of freedom; 20.5 is the 0.1% critical value
    chi2 = sum((n - 10_000) ** 2 / 10_000 for n in counts.values())
    assert chi2 < 20.5, counts


def test_rule02_engine_rolls_come_from_the_position_rng():
    state = load(rng="00000000000000ff")
    expected_rng, expected_value = rng.roll_die(0xFF)
    after, events = apply(state, roll())
    assert events[0] == {"type": "rolled", "seat": "red", "value": expected_value}
    assert after.rng == expected_rng


def test_the_rng_advances_even_when_the_value_is_given():
    state = load(rng="00000000000000ff")
    drawn, _ = apply(state, roll())
    for value in range(1, 7):
        given, _ = apply(state, roll(value))
        assert given.rng == drawn.rng


def test_choose_index_is_uniform_and_checked():
    state = 99
    counts = Counter()
    for _ in range(30_000):
        state, i = rng.choose_index(state, 3)
        counts[i] += 1
    assert set(counts) == {0, 1, 2} and all(9_000 < n < 11_000 for n in counts.values())
    with pytest.raises(ValueError):
        rng.choose_index(1, 0)


# --- Board geometry ---------------------------------------------------------------------


def _adjacent(a, b):
    return max(abs(a[0] - b[0]), abs(a[1] - b[1])) == 1


def test_geometry_track_is_a_closed_clockwise_loop_of_52_cells():
    cells = g.TRACK_CELLS
    assert len(cells) == 52 and len(set(cells)) == 52
    assert all(0 <= c < 15 and 0 <= r < 15 for c, r in cells)
    assert all(_adjacent(cells[i], cells[(i + 1) % 52]) for i in range(52))
    # clockwise on screen (y grows downwards): the signed area is positive
    area = sum(cells[i][0] * cells[(i + 1) % 52][1] - cells[(i + 1) % 52][0] * cells[i][1]
               for i in range(52))
    assert area > 0


def test_geometry_start_star_entrance_squares():
    assert g.START_SQUARES == tuple(START[c] for c in COLOURS)
    assert g.STAR_SQUARES == tuple(STAR[c] for c in COLOURS)
    assert g.ENTRANCE_SQUARES == tuple(ENTRANCE[c] for c in COLOURS)
    assert g.SAFE_SQUARES == SAFE and len(SAFE) == 8
    for c in COLOURS:
        assert g.start_square(c) == START[c] and g.entrance_square(c) == ENTRANCE[c]
        # the entrance is two squares before the start: a token walks 51 track squares
        assert (START[c] - ENTRANCE[c]) % 52 == 2
        assert g.is_safe(START[c]) and g.is_safe(STAR[c]) and not g.is_safe(ENTRANCE[c])


def test_geometry_lanes_lead_from_the_entrance_to_the_centre():
    seen = set(g.TRACK_CELLS)
    for colour in COLOURS:
        lane = g.LANE_CELLS[colour]
        assert len(lane) == 5 and not seen & set(lane)
        seen |= set(lane)
        assert _adjacent(g.TRACK_CELLS[ENTRANCE[colour]], lane[0])
        assert all(_adjacent(lane[i], lane[i + 1]) for i in range(4))
        # the last lane cell touches the 3x3 centre (home)
        assert any(_adjacent(lane[4], (c, r)) for c in (6, 7, 8) for r in (6, 7, 8))


def test_stars_mark_safe_squares_not_the_ends_of_home_lanes():
    lane_cells = {cell for lane in g.LANE_CELLS.values() for cell in lane}
    for colour in COLOURS:
        star = STAR[colour]
        assert 0 <= star < 52 and g.is_safe(star)
        assert g.TRACK_CELLS[star] not in lane_cells
        assert star not in g.ENTRANCE_SQUARES


def _unxorshift(y: int, k: int) -> int:
    """The x with ``x ^ (x >> k) == y`` (64-bit)."""
    x = y
    for _ in range(64 // k + 1):
        x = y ^ (x >> k)
    return x & ((1 << 64) - 1)


def test_next_u32_is_pcg_xsh_rs():
    # the LCG step and the output function of PCG-XSH-RS 64/32, written out independently
    state = 0x853C49E6748FEA9B
    for _ in range(1000):
        after, bits = rng.next_u32(state)
        assert after == (state * 6364136223846793005 + 1442695040888963407) % 2**64
        shift = 22 + (state >> 61)
        assert bits == ((state ^ (state >> 22)) >> shift) % 2**32
        state = after


def test_seeds_are_scrambled_and_distinct():
    states = [rng.seed_state(seed) for seed in range(1000)]
    assert len(set(states)) == 1000 and all(0 <= s < 2**64 for s in states)
    # neighbouring seeds do not start with the same draws
    firsts = {rng.next_u32(s)[1] for s in states}
    assert len(firsts) == 1000
    # neighbouring seeds pick different first players, about equally often
    counts = Counter(rng.choose_index(rng.seed_state(seed), 4)[1] for seed in range(4000))
    assert all(850 < n < 1150 for n in counts.values()), counts


def test_roll_die_is_rejection_sampling_over_next_u32():
    state = 987654321
    for _ in range(5000):
        ref = state
        while True:
            ref, bits = rng.next_u32(ref)
            if bits < rng._DIE_BOUND:
                break
        assert rng.roll_die(state) == (ref, bits % 6 + 1)
        state = ref


def test_roll_die_rejects_the_few_biased_draws():
    # a state whose draw is 2**32 - 1 (at or above the bound): with the top three bits
    # clear the output is bits 22..53 of state ^ (state >> 22), so make those all ones
    before = _unxorshift(((1 << 32) - 1) << 22, 22)
    assert before >> 61 == 0
    target, bits = rng.next_u32(before)
    assert bits == (1 << 32) - 1 >= rng._DIE_BOUND
    after, bits = rng.next_u32(target)
    assert rng.roll_die(before) == (after, bits % 6 + 1)
