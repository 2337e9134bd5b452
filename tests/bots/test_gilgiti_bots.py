"""Gilgiti's computer players: they never strand a value needlessly, plan the whole turn,
and play for the team."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "engine"))

from gilgitikit import gload, mv, strike  # noqa: E402

from ludo import Action, apply, distinct_moves, legal_actions, new_game  # noqa: E402
from ludo.bots import LEVEL_NAMES, choose_action, players  # noqa: E402
from ludo.bots.tournament import play_game  # noqa: E402
from ludo.rules.courtyard import CLASSIC, COURTYARD  # noqa: E402
from ludo.rules.gilgiti import GILGITI  # noqa: E402


def careless_order():
    """Red's 4 on token 1 strands the 6; the 6 on token 1 first plays both."""
    return gload(phase="move", rolled=[6, 4],
                 tokens={"red": ["red-lane-2", 49, "home", "home"]})


def test_candidates_leave_out_plays_that_strand_a_value():
    state = careless_order()
    assert mv("red", 1, 4) in distinct_moves(state)
    shortlist = GILGITI.bot.candidates(state)
    assert mv("red", 1, 4) not in shortlist
    assert set(shortlist) == {mv("red", 1, 6), mv("red", 0, 4)}


def test_candidates_are_every_play_when_every_order_strands():
    state = gload(phase="move", rolled=[6, 2], tokens={"red": ["red-lane-4"] + ["home"] * 3})
    assert GILGITI.bot.candidates(state) == distinct_moves(state) == [mv("red", 0, 2)]


@pytest.mark.parametrize("level", ["medium", "hard"])
def test_medium_and_hard_never_strand_a_value_when_some_order_plays_them_all(level):
    state = careless_order()
    for seed in range(10):
        after = state
        while after.phase == "move" and after.turn == "red":
            after, events = apply(after, choose_action(after, level, seed))
            assert not any(e["type"] == "rolled_back" for e in events)
        assert after.turn == "green"


def test_hard_plans_the_whole_turn_and_medium_plays_each_value_on_its_own():
    # 6 then 3 with yellow's token 0 captures green's far-travelled lone token 9 squares
    # ahead; entering with the 6 is the better first play on its own, which Medium sees
    state = gload(turn="yellow", phase="move", rolled=[6, 3],
                  tokens={"yellow": [48, 30, "yard", "yard"],
                          "green": [5, "yard", "yard", "yard"]})
    captured = {}
    for level in ("medium", "hard"):
        after, events = state, []
        while after.phase == "move" and after.turn == "yellow":
            after, more = apply(after, choose_action(after, level, 1))
            events += more
        captured[level] = any(e["type"] == "captured" for e in events)
    assert captured == {"medium": False, "hard": True}


def test_a_team_plays_for_the_team():
    state = gload(teams=True, tokens={"red": [10, 20, "yard", "yard"],
                                      "yellow": [30, "home", "yard", "yard"],
                                      "green": [5, "yard", "yard", "yard"]})
    bot = GILGITI.bot
    assert bot.evaluate(state, "red") == bot.evaluate(state, "yellow")
    assert bot.evaluate(state, "green") == bot.evaluate(state, "blue")
    alone = gload(tokens={"red": [10, 20, "yard", "yard"],
                          "yellow": [30, "home", "yard", "yard"],
                          "green": [5, "yard", "yard", "yard"]})
    assert bot.evaluate(alone, "red") != bot.evaluate(alone, "yellow")


def test_a_finished_player_plays_the_partners_tokens_at_every_level():
    state = gload(teams=True, phase="move", rolled=[6, 3],
                  tokens={"red": ["home"] * 4, "yellow": [30, 40, "yard", "yard"]})
    for level in LEVEL_NAMES:
        action = choose_action(state, level, 2)
        assert action in legal_actions(state) and action.token >> 2 == 2  # yellow's


def test_medium_and_hard_force_the_gate_when_it_pays():
    # three tokens locked out behind green's pair on red's entry star, two 6s and a 1: the
    # 6s have no other use, so forcing (then the 1 home) is the only way to play them all
    state = gload(phase="move", rolled=[6, 6, 1],
                  tokens={"red": ["yard", "yard", "yard", "red-lane-5"],
                          "green": [0, 0, "yard", "yard"]})
    for level in ("medium", "hard"):
        assert choose_action(state, level, 1).type == "force"


@pytest.mark.parametrize("level", LEVEL_NAMES)
def test_whole_team_games_between_bots_stay_legal(level):
    state = new_game("gilgiti", ("red", "green", "yellow", "blue"), 12, {"teams": True})
    levels = {"red": level, "yellow": level, "green": "medium", "blue": "easy"}
    for _ in range(1500):
        if state.phase == "over":
            break
        action = Action("roll") if state.phase == "roll" else choose_action(
            state, levels[state.turn], 4)
        assert state.phase == "roll" or action in legal_actions(state)
        state, _ = apply(state, action)


def stack_strike_or_step():
    """Red's pair on 2 can strike green's pair on 5 with the 3, or red's token on 20 can step."""
    return gload(phase="move", rolled=[3],
                 tokens={"red": [2, 2, 20, "yard"], "green": [5, 5, "yard", "yard"]})


def test_easy_takes_a_stack_strike_like_a_capture():
    state = stack_strike_or_step()
    hit = strike([("red", 0), ("red", 1)], 3)
    assert set(distinct_moves(state)) == {hit, mv("red", 2, 3)}
    assert {choose_action(state, "easy", seed) for seed in range(40)} == {hit}


def test_any_event_naming_victims_is_a_capture_to_easy():
    # rule-neutral: the players know no rule set's event names, only that victims went back
    assert players.sends_back({"type": "captured", "seat": "red", "victims": [["green", 0]]})
    assert players.sends_back({"type": "struck", "seat": "red",
                               "victims": [["green", 0], ["green", 1]]})
    assert players.sends_back({"type": "sent_back", "seat": "red", "victims": [["blue", 2]]})
    assert not players.sends_back({"type": "moved", "seat": "red", "to": 5})
    assert not players.sends_back({"type": "forced", "seat": "red", "victims": []})


def test_a_team_tournament_game_credits_both_partners():
    result = play_game("gilgiti", ("medium", "easy", "medium", "easy"), 3, 1, {"teams": True})
    assert len(result["winners"]) == 2
    assert sorted(result["winners"]) in ([0, 2], [1, 3])


def test_courtyard_and_classic_search_every_distinct_move_as_before():
    # without a candidates() hook the generic players weigh every distinct move
    for rules in (COURTYARD, CLASSIC):
        assert getattr(rules.bot, "candidates", None) is None
        state = rules.new_game(("red", "yellow"), 3)
        state, _ = rules.apply(state, Action("roll", value=6))
        assert players._candidates(rules.bot, state) == distinct_moves(state)


def test_the_choice_is_the_same_in_slices_and_at_once(monkeypatch):
    state = gload(phase="move", rolled=[6, 6, 3],
                  tokens={"red": [5, 12, 20, "yard"], "green": [9, 15, 15, 30],
                          "yellow": [26, 33, "yard", "yard"]})
    expected = {level: choose_action(state, level, 5) for level in ("medium", "hard")}
    monkeypatch.setattr(players, "SLICE_SECONDS", 0.0)
    for level in ("medium", "hard"):
        assert choose_action(state, level, 5) == expected[level]
    assert json.dumps(expected["hard"].to_json())


class _Recorder:
    """Gilgiti's features, with every position Hard's reply evaluates recorded and a
    constant value, so the reply's chances can be checked to add up to one."""

    def __init__(self, reply_rolls: int) -> None:
        self.bot = GILGITI.bot
        self.reply_rolls = reply_rolls
        self.extra_roll = self.bot.extra_roll
        self.seen: list = []

    def evaluate(self, state, seat):
        self.seen.append(state)
        return 1.0

    def move_context(self, state):
        return self.bot.move_context(state)

    def move_score(self, *args):
        return self.bot.move_score(*args)

    def candidates(self, state):
        return self.bot.candidates(state)


def _drain(gen):
    while True:
        try:
            next(gen)
        except StopIteration as done:
            return done.value


def test_hards_reply_follows_a_six_to_the_second_roll_and_plays_the_turn_out():
    # green (next to roll) has every token in the yard: only a 6 and then another value
    # can bring one out, which a reply that stops at the 6 never sees
    state = gload(turn="green", tokens={"red": [20, 30, "yard", "yard"],
                                        "green": ["yard"] * 4})
    assert GILGITI.bot.reply_rolls == 2
    for rolls, entered in ((1, False), (2, True)):
        bot = _Recorder(rolls)
        value = _drain(players._reply_value(state, "red", bot, players._Clock()))
        assert value == pytest.approx(1.0)  # the chances of every reply add up to one
        assert any(p != -1 for s in bot.seen for p in s.tokens[1]) is entered
        if rolls == 2:  # every position judged is after green's whole turn (or a third roll)
            assert all(s.turn != "green" or s.phase == "roll" for s in bot.seen)


def test_only_gilgiti_asks_for_the_second_reply_roll():
    from ludo.rules.royal import ROYAL

    for rules in (COURTYARD, CLASSIC, ROYAL):
        assert getattr(rules.bot, "reply_rolls", 1) == 1


def test_the_fitted_chances_add_up_and_favour_the_leader():
    from ludo.rules.gilgiti_bot import FITTED, GilgitiBot, fitted_evaluate, win_chances

    state = gload(tokens={"red": [10, 20, "yard", "yard"], "green": [5, "yard", "yard", "yard"],
                          "yellow": [30, "home", "yard", "yard"], "blue": ["yard"] * 4})
    chances = win_chances(state)
    assert sum(chances.values()) == pytest.approx(1.0)
    fitted = GilgitiBot(GILGITI, fitted=FITTED)
    assert fitted.evaluate(state, "red") == fitted_evaluate(state, "red")
    assert fitted.evaluate(state, "red") == pytest.approx(players.WIN * (2 * chances[0] - 1))
    # yellow, with a token home and one far along, is the favourite; blue, all in the
    # yard, the outsider
    assert max(chances, key=chances.get) == 2 and min(chances, key=chances.get) == 3
    teams = gload(teams=True, tokens={"red": [10, 20, "yard", "yard"],
                                      "yellow": [30, "home", "yard", "yard"],
                                      "green": [5, "yard", "yard", "yard"]})
    assert fitted.evaluate(teams, "red") == fitted.evaluate(teams, "yellow") > 0


def test_the_fitted_chance_grows_with_progress_and_falls_when_a_token_is_taken():
    from ludo.rules.gilgiti_bot import win_chances

    def red_chance(red, green):
        return win_chances(gload(turn="yellow", tokens={"red": red, "green": green,
                                                        "yellow": [20, "yard", "yard", "yard"],
                                                        "blue": [40, "yard", "yard", "yard"]}))[0]

    base = red_chance([14, 30, "yard", "yard"], [10, "yard", "yard", "yard"])
    assert red_chance([14, 38, "yard", "yard"], [10, "yard", "yard", "yard"]) > base
    assert red_chance([14, "home", "yard", "yard"], [10, "yard", "yard", "yard"]) > base
    assert red_chance(["yard", 30, "yard", "yard"], [14, "yard", "yard", "yard"]) < base


def test_hard_plays_with_the_hand_set_evaluation():
    # the fitted one played worse (docs/bots.md): the game's Hard keeps the hand-set weights
    from ludo.rules.gilgiti_bot import HARD, evaluate

    bot = GILGITI.bot
    assert bot.fitted is None and bot.weights == HARD and bot.extra_roll == HARD.extra_roll
    state = careless_order()
    assert bot.evaluate(state, "red") == evaluate(state, "red")


def test_hard_weighs_a_threat_fully_only_from_an_enemy_who_plays_first():
    # red's lone token on 30 (31 steps) is 3 squares ahead of green's; nothing else threatens
    # it. When green plays next the threat is whole; when red plays first (it may move the
    # token away before green rolls) it counts HARD.later of it. Green's value is the same.
    from ludo.rules.gilgiti_bot import HARD, HIT_CHANCE, side_values

    tokens = {"red": [30, "home", "home", "home"], "green": [27, "yard", "yard", "yard"]}
    green_first = side_values(gload(seats=("red", "green"), turn="green", tokens=tokens))
    red_first = side_values(gload(seats=("red", "green"), turn="red", tokens=tokens))
    homes = 3 * (HARD.out + 57 + HARD.home)
    token = HARD.out + 31
    loss = HARD.danger * HIT_CHANCE[3] * token
    assert 0 < HARD.later < 1
    assert green_first[0] == pytest.approx(homes + token - loss)
    assert red_first[0] == pytest.approx(homes + token - HARD.later * loss)
    assert green_first[1] == pytest.approx(red_first[1])
    # with later = 1 every enemy threatens fully, whoever plays first (the old evaluation)
    old = HARD._replace(later=1.0)
    assert side_values(gload(seats=("red", "green"), turn="red", tokens=tokens), old)[0] == \
        pytest.approx(green_first[0])


def test_the_cover_term_counts_a_token_the_partner_can_avenge_as_less_exposed():
    # teams: red's lone token on 16 is 2 squares ahead of green's (green plays first, so the
    # threat is whole); yellow, red's partner, stands 5 behind it on 11 and could take back a
    # green token that captures there. Weights.cover takes that share of the danger off (a
    # knob the game's Hard leaves at 0: it measured neutral, docs/bots.md).
    from ludo.rules.gilgiti import progress
    from ludo.rules.gilgiti_bot import HARD, HIT_CHANCE, side_values

    covering = HARD._replace(cover=0.5)
    state = gload(teams=True, turn="green",
                  tokens={"red": [16, "home", "home", "home"],
                          "yellow": [11, "home", "home", "home"],
                          "green": [14, "home", "home", "home"],
                          "blue": ["yard"] * 4})
    assert HARD.cover == 0
    red_token = HARD.out + progress(0, 16)
    loss = HARD.danger * HIT_CHANCE[2] * red_token
    bare = side_values(state, HARD)
    covered = side_values(state, covering)
    assert covered[0] - bare[0] == pytest.approx(covering.cover * HIT_CHANCE[5] * loss)
    assert covered[1] == pytest.approx(bare[1])  # green's side is judged as before
    # without the partner behind it nothing is taken off
    alone = gload(teams=True, turn="green",
                  tokens={"red": [16, "home", "home", "home"],
                          "yellow": ["yellow-lane-2", "home", "home", "home"],
                          "green": [14, "home", "home", "home"],
                          "blue": ["yard"] * 4})
    assert side_values(alone, covering)[0] - side_values(alone, HARD)[0] == 0


def test_with_cover_hard_moves_up_behind_a_partners_threatened_token(monkeypatch):
    # teams, red to play a 2 (a position met in a Hard-pair game). Yellow's lone token on 41
    # can be hit by blue's yard tokens (a 6 then 2..5). Red's token on 33 moved to 35 stands
    # 6 behind it, where it could take back a blue token that captures there. With the cover
    # term Hard plays that whatever its seed; without it (the game's Hard), that and the rear
    # token's 5 -> 7 are worth the same to Hard and the seed picks between them.
    from ludo.rules.gilgiti_bot import HARD

    state = gload(teams=True, phase="move", rolled=[2], rng="e88f39a3b617a601",
                  tokens={"red": [13, 33, 26, 5],
                          "green": ["yard", "yard", "green-lane-4", "yard"],
                          "yellow": ["yellow-lane-4", 13, 39, 41],
                          "blue": ["home", "yard", "yard", "yard"]})
    assert {choose_action(state, "hard", seed) for seed in range(8)} == {mv("red", 1, 2),
                                                                          mv("red", 3, 2)}
    monkeypatch.setattr(GILGITI.bot, "weights", HARD._replace(cover=0.5))
    assert {choose_action(state, "hard", seed) for seed in range(8)} == {mv("red", 1, 2)}


def test_the_stuck_term_counts_the_single_rolls_no_token_can_play():
    # green's only token on the board stands on 20 with a red block (2 tokens) on 23: it can
    # play a 1 or a 2, and its yard tokens only a 6, so a turn of a single 3, 4 or 5 (each
    # 1/6) has no legal play and passes (all or nothing). Weights.stuck charges a side that
    # chance (a knob the game's Hard leaves at 0: docs/bots.md); red, free, pays nothing.
    from ludo.rules.gilgiti_bot import HARD, side_values

    tokens = {"red": [23, 23, "yard", "yard"], "green": [20, "yard", "yard", "yard"]}
    state = gload(seats=("red", "green"), turn="red", tokens=tokens)
    sticky = HARD._replace(stuck=12.0)
    assert HARD.stuck == 0
    bare, charged = side_values(state, HARD), side_values(state, sticky)
    assert bare[1] - charged[1] == pytest.approx(12.0 * 3 / 6)
    assert bare[0] - charged[0] == pytest.approx(0.0)
    # without the block every value up to 5 is playable by that token
    open_ = gload(seats=("red", "green"), turn="red",
                  tokens={"red": [23, 30, "yard", "yard"], "green": [20, "yard", "yard", "yard"]})
    assert side_values(open_, HARD)[1] - side_values(open_, sticky)[1] == pytest.approx(0.0)
    # a token in its home lane can play only what takes it home exactly or less: 2 from home
    # on its 4th lane square, so a single 3, 4 or 5 passes
    lane = gload(seats=("red", "green"), turn="red",
                 tokens={"red": ["red-lane-4", "home", "home", "home"],
                         "green": [20, "yard", "yard", "yard"]})
    assert side_values(lane, HARD)[0] - side_values(lane, sticky)[0] == \
        pytest.approx(12.0 * 3 / 6)


def test_the_leader_and_temper_knobs_weigh_the_strongest_enemy_more():
    # knobs the game's Hard leaves at 0 (screened neutral, docs/bots.md): leader replaces
    # that share of the enemies' mean by the strongest enemy's value; temper makes the value
    # a softmax chance of winning, which a lead over the strongest enemy raises.
    from ludo.rules.gilgiti_bot import HARD, WIN, evaluate, side_values

    state = gload(turn="red", tokens={"red": [10, "yard", "yard", "yard"],
                                      "green": [30, "yard", "yard", "yard"],
                                      "yellow": ["yard"] * 4, "blue": ["yard"] * 4})
    assert HARD.leader == 0 and HARD.temper == 0
    values = side_values(state)
    mine, theirs = values[0], [values[1], values[2], values[3]]
    assert evaluate(state, "red", HARD._replace(leader=1.0)) == pytest.approx(mine - max(theirs))
    assert evaluate(state, "red") == pytest.approx(mine - sum(theirs) / 3)
    tempered = HARD._replace(temper=25.0)
    behind = evaluate(state, "red", tempered)
    ahead = evaluate(state, "green", tempered)
    assert -WIN < behind < ahead < WIN


def test_medium_with_the_stuck_knob_prefers_a_block_that_stops_the_enemy():
    # red plays a 2: token 1 from 18 joins token 0 on 20, a block 1 square ahead of green's
    # only token out (on 19), which can then play no single 1-5; or token 2 from 3 to 5.
    # MoveWeights.stuck (0 in the game) adds the enemy's stuck chance the play creates.
    from ludo.rules.gilgiti import SIDES
    from ludo.rules.gilgiti_bot import MOVE_WEIGHTS, _stuck_shift

    before = gload(turn="red", phase="move", rolled=[2],
                   tokens={"red": [20, 18, 3, "yard"], "green": [19, "yard", "yard", "yard"]})
    after, _ = apply(before, mv("red", 1, 2))
    assert MOVE_WEIGHTS.stuck == 0
    assert _stuck_shift(before.tokens, after.tokens, SIDES[False], 0) == pytest.approx(5 / 6)
    other, _ = apply(before, mv("red", 2, 2))
    assert _stuck_shift(before.tokens, other.tokens, SIDES[False], 0) == pytest.approx(0.0)


def test_the_obstruct_knob_charges_only_the_enemies_stuck_chance():
    # red's block on 20 stands right in front of green's only token out (on 19): green can
    # play no single 1-5 (5/6 of its turns pass). Weights.obstruct (0 in the game) charges
    # that to green when red judges, and nothing to red's own side.
    from ludo.rules.gilgiti_bot import HARD, evaluate

    state = gload(seats=("red", "green"), turn="red",
                  tokens={"red": [20, 20, "yard", "yard"], "green": [19, "yard", "yard", "yard"]})
    assert HARD.obstruct == 0
    gain = evaluate(state, "red", HARD._replace(obstruct=12.0)) - evaluate(state, "red")
    assert gain == pytest.approx(12.0 * 5 / 6)
    # green's own view is unchanged: red is free to play every value
    assert evaluate(state, "green", HARD._replace(obstruct=12.0)) == \
        pytest.approx(evaluate(state, "green"))
