"""What Gilgiti tells a screen: the scene, the choices, the narration, the rules page."""

from __future__ import annotations

import random

from gilgitikit import force, gload, mv, piece, play, roll

from ludo import (
    Action,
    apply,
    board,
    choices,
    describe,
    legal_actions,
    new_game,
    resolve,
    scene,
)
from ludo.rules.gilgiti import GILGITI


def test_the_board_marks_all_eight_stars_and_locks_closed_ones():
    empty = board("gilgiti")
    stars = {c.id for c in empty.cells if "star" in c.marks}
    assert stars == {"0", "8", "13", "21", "26", "34", "39", "47"}
    state = gload(tokens={"red": [5, "yard", "yard", "yard"], "green": [8, 8, "yard", "yard"],
                          "blue": [21, 21, "yard", "yard"]})
    locked = {c.id for c in scene(state).board.cells if "lock" in c.marks}
    assert locked == {"8", "21"}  # closed to red, the seat to act
    mine = gload(tokens={"red": [8, "yard", "yard", "yard"], "green": [8, 8, "yard", "yard"]})
    assert not any("lock" in c.marks for c in scene(mine).board.cells)


def test_blocks_are_drawn_as_stacks_with_their_count_bottom_first():
    state = gload(teams=True, tokens={"red": [10, 10, "yard", "home"],
                                      "yellow": [10, "yard", "yard", "yard"],
                                      "green": [30, "yard", "yard", "yard"]})
    stacks = {s.place: s for s in scene(state).stacks}
    block = stacks["10"]
    assert block.kind == "block" and len(block.pieces) == 3
    assert [p.colour for p in block.pieces] == ["red", "red", "yellow"]
    assert stacks["30"].kind == "group" and len(stacks["30"].pieces) == 1
    assert stacks["red-home"].kind == "group"
    assert stacks["red-yard-2"].pieces[0].id == "red-2"
    assert "on square 11" in block.pieces[0].label  # spoken from 1
    # a block is said in its pieces' names (the count is drawn, a screen reader heard only
    # the square): its size, and the partner whose tokens mix into it
    assert [p.label.split(", ")[-1] for p in block.pieces] == [
        "in a block of 3 with Yellow", "in a block of 3 with Yellow", "in a block of 3 with Red"]
    assert "block" not in stacks["30"].pieces[0].label  # a single token blocks nobody
    alone = gload(tokens={"red": [10, 10, "yard", "yard"], "green": [30, "yard", "yard", "yard"]})
    pair = {s.place: s for s in scene(alone).stacks}["10"]
    assert [p.label for p in pair.pieces] == [
        f"Red token {n}, on square 11 (10 past Red's start), in a block of 2" for n in (1, 2)]


def test_an_enemy_block_on_a_star_says_whether_it_closes_the_star_to_the_seat_to_act():
    """Seed 003: "a star held by an enemy block is closed ... Exception: if your team already
    has a token sitting on a star, the enemies there never count as a block against you." The
    board's lock shows it; a screen reader heard "in a block of 2" on both kinds of star."""
    def labels(state, place):
        return [p.label for p in {s.place: s for s in scene(state).stacks}[place].pieces]

    shut = gload(tokens={"red": [5, "yard", "yard", "yard"], "green": [8, 8, "yard", "yard"]})
    assert labels(shut, "8") == [
        f"Green token {n}, on square 9 (47 past Green's start), a star (safe), in a block of 2, "
        "closing this star to Red" for n in (1, 2)]
    kept = gload(tokens={"red": [8, "yard", "yard", "yard"], "green": [8, 8, "yard", "yard"]})
    assert [label.split(", in a block of 2")[-1] for label in labels(kept, "8")
            if label.startswith("Green")] == [", not closing this star to Red, who has a "
                                              "token here"] * 2
    assert labels(kept, "8")[-1].startswith("Red token 1") and "closing" not in \
        labels(kept, "8")[-1]
    team = gload(teams=True, tokens={"yellow": [8, "yard", "yard", "yard"],
                                     "green": [8, 8, "yard", "yard"]})
    assert all(label.endswith("not closing this star to Red, whose team has a token here")
               for label in labels(team, "8") if label.startswith("Green"))
    # off the stars a block says only that it is one; the seat to act's own block says nothing
    plain = gload(tokens={"green": [10, 10, "yard", "yard"], "red": [8, 8, "yard", "yard"]})
    assert all(label.endswith("in a block of 2") for label in labels(plain, "10"))
    assert all(label.endswith("in a block of 2") for label in labels(plain, "8"))


def test_seats_show_teams_resting_and_playing_for_the_partner():
    state = gload(teams=True, turn="green", resting=["red"],
                  tokens={"red": ["home"] * 4, "yellow": [30, "yard", "yard", "yard"]})
    views = {v.colour: v for v in scene(state).seats}
    assert views["red"].status == "resting" and views["red"].team == "Red + Yellow"
    assert views["green"].team == "Green + Blue" and views["green"].status == "playing"
    assert "4/4 home" in views["red"].facts
    rested = gload(teams=True, turn="green",
                   tokens={"red": ["home"] * 4, "yellow": [30, "yard", "yard", "yard"]})
    red = {v.colour: v for v in scene(rested).seats}["red"]
    assert red.status == "finished" and "plays Yellow's tokens" in red.facts
    alone = {v.colour: v for v in scene(gload()).seats}
    assert all(v.team is None for v in alone.values())


def test_a_seat_whose_entry_star_an_enemy_block_holds_has_entry_blocked_in_its_facts():
    """"An enemy block on your entry star locks you out — unless your team holds a token
    there too." The board draws that star's lock only on the blocked seat's own turn, and a
    screen reader hears no lock at all: the seat's facts (the seat list, the corners, Moves &
    details) say "entry blocked", as Courtyard's say "lane locked"."""
    def facts(state):
        return {v.colour: v.facts for v in scene(state).seats}

    # a green pair on red's entry star (0): red, with tokens in the yard, is locked out
    shut = gload(tokens={"red": [5, "yard", "yard", "yard"], "green": [0, 0, "yard", "yard"]})
    assert "entry blocked" in facts(shut)["red"] and "entry blocked" not in facts(shut)["green"]
    # no token left in the yard: nothing to enter, nothing said
    out = gload(tokens={"red": [5, 6, 7, 9], "green": [0, 0, "yard", "yard"]})
    assert "entry blocked" not in facts(out)["red"]
    # a lone enemy token is no block; a red token there too opens the star to red
    single = gload(tokens={"red": [5, "yard", "yard", "yard"], "green": [0, "yard", "yard",
                                                                         "yard"]})
    assert "entry blocked" not in facts(single)["red"]
    shared = gload(tokens={"red": [0, "yard", "yard", "yard"], "green": [0, 0, "yard", "yard"]})
    assert "entry blocked" not in facts(shared)["red"]
    # in teams a mixed enemy block locks out too, and a partner's token there opens it
    mixed = gload(teams=True, tokens={"red": ["yard"] * 4, "green": [0, "yard", "yard", "yard"],
                                      "blue": [0, "yard", "yard", "yard"]})
    assert "entry blocked" in facts(mixed)["red"] and "entry blocked" not in facts(mixed)["yellow"]
    partner = gload(teams=True, tokens={"red": ["yard"] * 4, "yellow": [0, 30, 31, 32],
                                        "green": [0, 0, "yard", "yard"]})
    assert "entry blocked" not in facts(partner)["red"]


def test_the_dice_show_used_playable_and_stranded_values():
    state = gload(phase="move", rolled=[6, 6, 3], tokens={"red": ["red-lane-2", 20, "yard",
                                                                  "yard"]})
    assert [(d.value, d.state) for d in scene(state).dice] == [
        (6, "playable"), (6, "playable"), (3, "playable")]
    after, _ = apply(state, mv("red", 0, 3))  # lane 2 + 3: home
    assert [(d.value, d.state) for d in scene(after).dice] == [
        (6, "playable"), (6, "playable"), (3, "used")]
    # 20 and the yard: the 6s still fit; an exact-finish-only token would strand a 4
    stuck = gload(phase="move", rolled=[6, 4], tokens={"red": ["red-lane-2", 0, 0, "home"],
                                                       "green": [3, 3, "yard", "yard"]})
    assert [(d.value, d.state) for d in scene(stuck).dice] == [(6, "stranded"),
                                                                (4, "playable")]
    rolling, _ = apply(gload(), roll(6))
    assert [(d.value, d.state) for d in scene(rolling).dice] == [(6, "rolled")]


def test_scene_turn_next_winners_and_summary():
    state = gload(teams=True, turn="blue", resting=["red"],
                  tokens={"red": ["home"] * 4, "yellow": [30, "yard", "yard", "yard"]})
    shown = scene(state)
    assert shown.turn == "blue" and shown.next == "green" and shown.phase == "roll"
    assert any("Teams" in line for line in shown.summary)
    over = gload(teams=True, phase="over", turn="yellow", winners=["red", "yellow"],
                 tokens={"red": ["home"] * 4, "yellow": ["home"] * 4})
    shown = scene(over)
    assert shown.winners == ("red", "yellow") and shown.turn is None and shown.next is None
    assert not any("Teams" in line for line in scene(gload()).summary)


def test_choices_a_value_chip_then_the_token_to_click():
    state = gload(phase="move", rolled=[6, 3], tokens={"red": [5, "yard", "yard", "yard"],
                                                       "green": [8, "yard", "yard", "yard"]})
    found = choices(state)
    assert len(found) == len(legal_actions(state))
    by = {(c.value, c.pieces): c for c in found}
    move = by[("3", ("red-0",))]
    assert move.kind == "move" and move.target == "8" and move.action == mv("red", 0, 3)
    enter = by[("6", ("red-1",))]
    assert enter.kind == "enter" and enter.target == "0"
    assert "entry star" in enter.label
    assert choices(gload())[0].kind == "roll"


def test_choices_a_strike_names_all_its_pieces_and_forcing_is_its_own_choice():
    state = gload(phase="move", rolled=[6, 6, 4],
                  tokens={"red": [10, 10, "yard", "yard"], "green": [14, 14, 0, 0]})
    found = choices(state)
    (strike,) = [c for c in found if c.kind == "strike"]
    assert strike.pieces == ("red-0", "red-1") and strike.target == "14"
    assert strike.value == "4" and strike.action.tokens == (piece("red", 0), piece("red", 1))
    forces = [c for c in found if c.kind == "force"]
    assert len(forces) == 1 and forces[0].pieces == () and forces[0].target == "0"
    assert forces[0].action == force("red", 2, 3)
    assert "two 6s" in forces[0].label


# the second token of a force hops onto the star in an event of its own (a path is one
# piece's walk from its own yard spot); the "forced" sentence already tells of both tokens
SILENT = {"pushed_in"}


def test_every_event_has_a_sentence():
    names = {"red": "Ann"}
    seen = set()
    rnd = random.Random(5)
    for seed in range(6):
        state = new_game("gilgiti", ("red", "green", "yellow", "blue"), seed,
                         {"teams": seed % 2 == 0})
        while state.phase != "over":
            options = legal_actions(state)
            action = options[rnd.randrange(len(options))]
            if rnd.random() < 0.002:
                action = Action("timeout")
            state, events = apply(state, resolve(state, action))
            for e in events:
                seen.add(e["type"])
                sentence = describe(state, e, names)
                if e["type"] in SILENT:
                    assert sentence is None, e
                    continue
                assert sentence and sentence.endswith((".", "!")), e
                assert "\n" not in sentence
    extra = [
        play(gload(phase="move", rolled=[6, 6, 4], tokens={
            "red": [10, 10, "yard", "yard"], "green": [14, 14, 0, 0]}),
            Action("move", tokens=(0, 1), value=4))[1],
        play(gload(phase="move", rolled=[6, 6, 4], tokens={
            "red": [10, 10, "yard", "yard"], "green": [14, 14, 0, 0]}), force("red", 2, 3))[1],
        play(gload(), Action("quit", seat="blue"))[1],
        play(gload(), roll(6), roll(6), roll(6))[1],
    ]
    for events in extra:
        for e in events:
            seen.add(e["type"])
            assert bool(describe("gilgiti", e, names)) == (e["type"] not in SILENT)
    assert seen >= {"rolled", "roll_again", "to_play", "entered", "moved", "captured",
                    "reached_home", "rolled_back", "turn", "won", "struck", "forced", "quit",
                    "three_sixes", "timeout", "pushed_in"}


def test_rollback_and_team_sentences():
    start = gload(phase="move", rolled=[6, 2], tokens={"red": ["red-lane-4"] + ["home"] * 3})
    _, events = apply(start, mv("red", 0, 2))
    (back,) = [e for e in events if e["type"] == "rolled_back"]
    assert describe("gilgiti", back, {}) == ("Red has no move left for the 6, so the whole turn "
                                             "goes back: everything played this turn is undone.")
    # a turn that goes back is a notice on screen; the undone play hops nowhere
    assert back["notice"] is True
    assert all("path" not in e for e in events)
    nothing = {"type": "rolled_back", "seat": "green", "values": [3], "played": 0}
    assert describe("gilgiti", nothing, {}) == "Green has no move with a 3: the turn passes."
    won = {"type": "won", "seat": "red", "seats": ["red", "yellow"]}
    assert describe("gilgiti", won, {"red": "Ann"}) == "Ann (red) and Yellow win the game!"
    finished = {"type": "finished", "seat": "red", "partner": "yellow"}
    assert "rests one turn" in describe("gilgiti", finished, {})
    moved = {"type": "moved", "seat": "red", "colour": "yellow", "token": 1, "value": 3,
             "from": 30, "to": 33}
    assert "Yellow's token 2" in describe("gilgiti", moved, {})
    # a finished player bringing the partner's token out: onto the partner's entry star, named
    # as the forced gate's sentence names it ("the entry star" read as the player's own)
    entered = {"type": "entered", "seat": "red", "colour": "yellow", "token": 3, "value": 6,
               "to": 26}
    names = {"red": "Ada", "yellow": "Yusuf"}
    assert describe("gilgiti", entered, names) == (
        "Ada (red) brought Yusuf (yellow)'s token 4 onto Yusuf (yellow)'s entry star with the 6.")
    own = {"type": "entered", "seat": "red", "colour": "red", "token": 0, "value": 6, "to": 0}
    assert describe("gilgiti", own, names) == (
        "Ada (red) brought token 1 onto the entry star with the 6.")


def test_the_rules_page_says_a_stack_is_every_token_of_your_side_on_the_square():
    # players meet this reading (a partner's token beside a pair changes its pattern):
    # the rules page tells them, so it is not taken for a bug
    stacks = dict(GILGITI.help.rules)["Stacks strike together — only together."]
    assert "A stack is every token of your side on that square" in stacks
    assert "three reds cannot strike a green pair" in stacks
    assert "a red pair with a yellow token beside it is a 2+1 mixed stack" in stacks


def test_the_rules_page_and_the_leave_dialog_use_the_seeds_words():
    text = " ".join([GILGITI.help.lead] + [t + " " + b for t, b in GILGITI.help.rules]
                    + list(GILGITI.help.notes))
    for words in ("Roll first, move after.", "three 6s in a row cancel the whole turn",
                  "Every value you rolled must be played.", "the finish is undone",
                  "partners' tokens mix into blocks in team games",
                  "Stacks strike together — only together.", "A stack cannot wander around",
                  "2 same-colour takes 2 same-colour; 2+1 mixed takes 2+1 mixed",
                  "A lone enemy token can only ever be taken by a single token.",
                  "no captures ever happen there", "force the gate",
                  "A mixed partner block can never be forced.",
                  "A finished partner rests one turn, then their rolls move their partner's "
                  "tokens.", "Pass the phone around"):
        assert words in text, words
    assert GILGITI.leave.title == "Leave this game?"
    assert GILGITI.leave.ends_match is True
    assert GILGITI.title == "Gilgiti" and GILGITI.timer_default is False
    # the seed's name and label head its rules page (GILGITI LUDO, HOW TO PLAY)
    assert (GILGITI.help.heading, GILGITI.help.kicker) == ("Gilgiti Ludo", "How to play")


def test_plays_carry_their_pieces_and_paths_and_notices_mark_an_undone_turn():
    start = gload(phase="move", rolled=[6, 3], tokens={"red": ["yard", 2, "yard", "yard"]})
    after, events = apply(start, mv("red", 0, 6))
    (entered,) = [e for e in events if e["type"] == "entered"]
    assert entered["pieces"] == ["red-0"] and entered["path"] == ["red-yard-0", "0"]
    _, events = apply(after, mv("red", 1, 3))
    (moved,) = [e for e in events if e["type"] == "moved"]
    assert moved["pieces"] == ["red-1"] and moved["path"] == ["2", "3", "4", "5"]
    into_lane = gload(phase="move", rolled=[4], tokens={"red": [49, "yard", "yard", "yard"]})
    _, events = apply(into_lane, mv("red", 0, 4))
    assert events[0]["path"] == ["49", "50", "red-lane-1", "red-lane-2", "red-lane-3"]
    # a roll with nothing to play passes quietly; three 6s are a notice
    _, events = apply(gload(), roll(3))
    (back,) = [e for e in events if e["type"] == "rolled_back"]
    assert back["played"] == 0 and back["notice"] is False
    _, events = play(gload(), roll(6), roll(6), roll(6))
    assert [e for e in events if e.get("notice")][0]["type"] == "three_sixes"


def test_a_stack_strike_and_a_force_hop_their_pieces_along_paths():
    tokens = {"red": [10, 10, "yard", "yard"], "green": [14, 14, 0, 0]}
    start = gload(phase="move", rolled=[6, 6, 4], tokens=tokens)
    _, events = apply(start, Action("move", tokens=(0, 1), value=4))
    (struck,) = [e for e in events if e["type"] == "struck"]
    # the stack walks the track together, square by square, onto the block it strikes
    assert struck["pieces"] == ["red-0", "red-1"] and struck["path"] == ["10", "11", "12",
                                                                         "13", "14"]
    assert struck["stack"] == [["red", 0], ["red", 1]]
    _, events = apply(start, force("red", 2, 3))
    hops = {p: e["path"] for e in events if "path" in e for p in e["pieces"]}
    # each forcing token hops from its own yard spot onto the entry star
    assert hops == {"red-2": ["red-yard-2", "0"], "red-3": ["red-yard-3", "0"]}
    assert [e["type"] for e in events if "path" in e] == ["forced", "pushed_in"]


def test_the_force_button_names_the_block_that_shuts_the_gate():
    # the lock mark sits under the block's tokens on the board: the button says whose block it is
    tokens = {"red": ["yard", "yard", "yard", 30], "green": [0, 0, "yard", "yard"]}
    state = gload(phase="move", rolled=[6, 6, 2], tokens=tokens)
    (button,) = [c for c in choices(state) if c.kind == "force"]
    assert button.label == ("Force the gate: spend two 6s to push two tokens onto your entry "
                            "star beside Green's block")


def test_the_force_button_names_the_pair_not_a_lone_token_beside_it():
    # a lone green token beside blue's pair blocks nobody: the block that shuts the gate is blue's
    tokens = {"red": ["yard", "yard", "yard", 30], "green": [0, "yard", "yard", "yard"],
              "blue": [0, 0, "yard", "yard"]}
    state = gload(phase="move", rolled=[6, 6, 2], tokens=tokens)
    (button,) = [c for c in choices(state) if c.kind == "force"]
    assert button.label.endswith("your entry star beside Blue's block")


def test_a_finished_partner_forces_the_partners_gate_and_the_button_says_so():
    # red has finished: its 6s push two of yellow's tokens onto yellow's entry star (26)
    home = ["home"] * 4
    tokens = {"red": home, "yellow": ["yard", "yard", "yard", 30],
              "green": [26, 26, "yard", "yard"]}
    state = gload(teams=True, phase="move", rolled=[6, 6, 2], tokens=tokens)
    (button,) = [c for c in choices(state) if c.kind == "force"]
    assert button.target == "26"
    assert button.label == ("Force the gate: spend two 6s to push two of Yellow's tokens onto "
                            "Yellow's entry star beside Green's block")


def test_the_forced_sentence_says_whose_tokens_pushed_in():
    names = {"red": "Ada", "yellow": "Yusuf"}
    own = {"type": "forced", "seat": "red", "colour": "red", "tokens": [0, 1], "to": 0}
    assert GILGITI.describe(own, names) == (
        "Ada (red) forced the gate with two 6s: two tokens stand on the entry star beside the "
        "block.")
    partners = {"type": "forced", "seat": "red", "colour": "yellow", "tokens": [0, 1], "to": 26}
    assert GILGITI.describe(partners, names) == (
        "Ada (red) forced the gate with two 6s: two of Yusuf (yellow)'s tokens stand on Yusuf "
        "(yellow)'s entry star beside the block.")


def test_a_strike_with_the_partners_stack_says_whose_stack_it_was():
    names = {"red": "Ada", "yellow": "Yusuf"}
    own = {"type": "struck", "seat": "red", "value": 3, "stack": [["red", 0], ["red", 1]],
           "from": 10, "to": 13 + 1, "victims": [["green", 0], ["green", 1]]}
    assert GILGITI.describe(own, names).startswith("Ada (red)'s stack of 2 struck with the 3 ")
    # a team's mixed stack is the seat's own too
    mixed = dict(own, stack=[["red", 0], ["red", 1], ["yellow", 2]],
                 victims=[["green", 0], ["green", 1], ["blue", 0]])
    assert GILGITI.describe(mixed, names).startswith("Ada (red)'s stack of 3 struck ")
    # a finished player moving the partner's pair: the stack is Yusuf's, played by Ada
    partners = dict(own, stack=[["yellow", 0], ["yellow", 1]], **{"from": 30, "to": 33})
    assert GILGITI.describe(partners, names) == (
        "Yusuf (yellow)'s stack of 2, played by Ada (red), struck with the 3 on square 34 (7 "
        "past Yellow's start): Green token 1, Green token 2 back to the yard.")


def test_a_turn_with_nothing_to_play_lists_its_values_as_rolled():
    nothing = {"type": "rolled_back", "seat": "red", "values": [3, 6, 6], "played": 0}
    assert GILGITI.describe(nothing, {}) == "Red has no move with 6, 6 or 3: the turn passes."
    back = {"type": "rolled_back", "seat": "red", "values": [3, 6], "played": 1}
    assert GILGITI.describe(back, {}).startswith("Red has no move left for the 6 and the 3, ")
    # both 6s left after the 3 was played: neither can move, said once ("the 6 and the 6" read
    # as a slip)
    sixes = {"type": "rolled_back", "seat": "red", "values": [6, 6], "played": 1}
    assert GILGITI.describe(sixes, {}) == ("Red has no move left for either 6, so the whole turn "
                                           "goes back: everything played this turn is undone.")


def test_tokens_sharing_a_home_lane_square_are_not_said_to_be_a_block():
    """"A block is two or more tokens of one side on a track square" (gilgiti.md): the board
    draws two tokens on one home-lane square as one stack with its count, but they block
    nobody (no enemy enters that lane), and the engine counts no block there. Their names
    said "in a block of 2", a rule the seed gives only on the track."""
    state = gload(tokens={"red": ["red-lane-2", "red-lane-2", 10, 10]})
    stacks = {s.place: s for s in scene(state).stacks}
    assert [p.label for p in stacks["red-lane-2"].pieces] == [
        f"Red token {n}, on home-lane square 2 of 5" for n in (1, 2)]
    assert all(p.label.endswith(", in a block of 2") for p in stacks["10"].pieces)
