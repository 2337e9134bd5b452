"""What Gilgiti shows and says: scene, choices, narration, the rules page and leaving.

Everything a screen needs comes from here through the rule-set interface, so
no word or field of these rules appears outside the engine.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..actions import Action
from ..geometry import COLOURS, HOME, START_SQUARES, YARD
from . import cross
from .base import (
    Board,
    Choice,
    DieView,
    Event,
    Help,
    Leave,
    Names,
    Piece,
    Scene,
    SeatView,
    Stack,
    join_names,
    join_words,
    name_of,
)

if TYPE_CHECKING:
    from .gilgiti import GilgitiRules, Play, State

ROLL_CHOICE_LABEL = "Roll the dice"
FORCE_LABEL = "Force the gate: spend two 6s to push two tokens onto your entry star"

LEAVE = Leave(
    "Leave this game?",
    "The current match will end and everyone goes back to the start screen.",
    "Leave game",
    ends_match=True,
)

HELP = Help(
    lead="Two to four players, each for themselves, or four in two teams: Red + Yellow against "
         "Green + Blue. Roll first, move after; every value you roll must be played, or the "
         "whole turn rolls back.",
    rules=(
        ("Your turn.", "Roll first, move after. Tap your dice box; a 6 means roll again (three "
         "6s in a row cancel the whole turn). When the rolling is done, play your values in any "
         "order — tap a value chip, then a glowing token. Only a 6 brings a token out of the "
         "yard onto your entry star. An exact roll is needed to finish a token. Only 6s give "
         "another roll: a capture or a token home does not."),
        ("All or nothing.", "Every value you rolled must be played. If you get stuck with a "
         "value that has no legal move, the entire turn is rolled back — everything returns to "
         "where it started, and play passes on. This applies even to winning: if your last "
         "token reaches home but another rolled value is left unplayable, the finish is undone "
         "with the rest of the turn. Order matters: the chips show which values can still be "
         "played."),
        ("Blocks.", "2+ tokens of one colour on a square form a block (partners' tokens mix "
         "into blocks in team games). Enemy blocks can't be passed through or landed on. Single "
         "tokens never block anyone. Home lanes are private: only your own tokens walk there."),
        ("Captures.", "A single token landing on a lone enemy token sends it back to its yard — "
         "but never on a star."),
        ("Stacks strike together — only together.", "A stack cannot wander around as a group. "
         "It moves as one unit for exactly one purpose: landing on an enemy block that matches "
         "it exactly — same size, same colour pattern (2 same-colour takes 2 same-colour; 2+1 "
         "mixed takes 2+1 mixed). A stack is every token of your side on that square: three "
         "reds cannot strike a green pair, and in teams a red pair with a yellow token beside "
         "it is a 2+1 mixed stack. The struck block goes back to its yards. Otherwise tokens "
         "move one at a time. A lone enemy token can only ever be taken by a single token."),
        ("Stars.", "The 8 stars (the 4 entry stars and 4 more) are safe ground — no captures "
         "ever happen there. But a star held by an enemy block is closed: you can't land on it "
         "(or pass it) until they move. Exception: if your team already has a token sitting on "
         "a star, the enemies there never count as a block against you."),
        ("Blocked entry & forcing the gate.", "An enemy block on your entry star locks you out — "
         "unless your team holds a token there too. If the block is exactly 2 tokens of one "
         "colour, roll two 6s in one turn and spend them together to force the gate: two of "
         "your tokens push in and stand beside them. Nothing is captured — no capture ever "
         "happens on a star — but the star is contested now, so it can't lock you out any more. "
         "A mixed partner block can never be forced."),
        ("Teams.", "Red + Yellow vs Green + Blue. A team wins only when all 8 tokens of both "
         "partners are home — one player finishing means nothing on its own. A finished "
         "partner rests one turn, then their rolls move their partner's tokens."),
        ("Winning.", "Alone, the first player with all four tokens home wins, at the end of a "
         "turn in which every value was played."),
        ("Leaving.", "Leave game ends the match for everyone, with no winner, and all go back to "
         "the start screen."),
        ("The clock.", "Off unless you switch it on (online rooms always run it). With it, a "
         "player who lets 30 seconds pass has the turn played for them: the die is rolled "
         "(a 6 rolls again, with 30 seconds of its own) and every value is played by the Easy "
         "computer's choices, in an order that plays them all whenever there is one. Timeouts "
         "are counted, and never remove anyone."),
    ),
    notes=("Pass the phone around — each player taps their own dice box to roll.",),
    heading="Gilgiti Ludo",  # the seed's name for the game; "Gilgiti" in the setup form's list
    kicker="How to play",
)

SUMMARY = (
    "Roll first: a 6 rolls again; three 6s cancel the turn.",
    "Then play every value, in any order; stuck with one, the whole turn goes back.",
    "Only a 6 enters, onto your entry star; exact roll to finish.",
    "2+ tokens of a side form a block: enemies can't pass or land on it.",
    "A single token takes a lone enemy token; stacks strike only an exactly matching block.",
    "8 stars are safe; an enemy block closes a star unless your team stands there too.",
    "Two 6s force a gate held by exactly two tokens of one colour.",
    "With the turn clock: 30 seconds to roll and play; then the game plays for you (nobody is "
    "removed).",
)
TEAM_SUMMARY = (
    "Teams: Red + Yellow vs Green + Blue; all 8 tokens home to win.",
    "A finished partner rests one turn, then rolls and plays for their partner.",
)


def _ci(colour: str) -> int:
    return COLOURS.index(colour)


def piece_id(piece: int) -> str:
    return f"{COLOURS[piece >> 2]}-{piece & 3}"


def piece_label(colour: str, token: int, position: int) -> str:
    # the seed's safe stars said too: a screen-reader player hears no star on the board
    return (f"{colour.capitalize()} token {token + 1}, {cross.describe_position(colour, position)}"
            f"{cross.safe_words(colour, position, 'entry star')}")


def board(rules: GilgitiRules, state: State | None) -> Board:
    """The cross board with Gilgiti's marks: the 4 entry stars are stars too, and a star
    closed to the seat to act carries a lock."""
    marks: dict[str, tuple[str, ...]] = {cross.track_id(sq): ("star",) for sq in START_SQUARES}
    if state is None:
        return cross.cross_board(COLOURS, marks=marks)
    if state.phase != "over":
        from .gilgiti import IS_STAR, _side, closed_squares, occupancy

        closed = closed_squares(occupancy(state.tokens), state.teams, _side(state))
        for square in closed:
            if IS_STAR[square]:
                cid = cross.track_id(square)
                marks[cid] = marks.get(cid, ()) + ("lock",)
    return cross.cross_board(state.seats, marks=marks)


def stacks(state: State) -> tuple[Stack, ...]:
    """The pieces on each place, bottom first; a block (2+ of one side on a square,
    home lanes included) is drawn as one stack with its count."""
    from .gilgiti import IS_STAR, SIDES, _side, closed_squares, occupancy

    sides = SIDES[state.teams]
    # the side to act, and the squares closed to it: an enemy block on a star says whether it
    # closes that star to the seat to act, as the board's lock shows (a screen reader heard
    # "in a block of 2" on a star that the seat's own token there keeps open)
    mover = _side(state) if state.phase != "over" else None
    closed = closed_squares(occupancy(state.tokens), state.teams, mover) \
        if mover is not None else set()
    by_place: dict[str, list[tuple[int, Piece]]] = {}
    for ci, colour in enumerate(COLOURS):
        for token, position in enumerate(state.tokens[ci]):
            place = cross.place_id(colour, token, position)
            by_place.setdefault(place, []).append(
                (sides[ci], Piece(f"{colour}-{token}", colour, token,
                                  piece_label(colour, token, position))))
    out = []
    for place, entries in by_place.items():
        count: dict[int, int] = {}
        for side, _ in entries:
            count[side] = count.get(side, 0) + 1
        is_block = not place.endswith("-home") and any(n >= 2 for n in count.values())
        # said in its pieces' names too (the count is drawn, not read out), on the track only:
        # a pair on a home-lane square is drawn as a stack but blocks nobody (the seed's
        # blocks stand on track squares; the engine counts none in a lane)
        if is_block and place.isdigit():
            star = mover is not None and IS_STAR[int(place)]
            entries = [(side, _in_block(piece, entries, side,
                                        _star_words(state, int(place) in closed)
                                        if star and side != mover else "")
                        if count[side] >= 2 else piece)
                       for side, piece in entries]
        # the largest side's pieces at the bottom, so a block reads as one stack
        entries.sort(key=lambda e: (-count[e[0]], e[0]))
        out.append(Stack(place, tuple(p for _, p in entries), "block" if is_block else "group"))
    return tuple(out)


def _in_block(piece: Piece, entries: list[tuple[int, Piece]], side: int,
              star: str = "") -> Piece:
    """``piece`` named as part of its side's block ("…, in a block of 2", "…, in a block of 3
    with Yellow"): the seed's blocks stop enemies, and a screen reader heard only the square.
    ``star``: what an enemy block on a star means to the seat to act (`_star_words`)."""
    mates = [p for s, p in entries if s == side]
    partners = sorted({p.colour for p in mates} - {piece.colour}, key=COLOURS.index)
    with_partner = "".join(f" with {c.capitalize()}" for c in partners)
    return piece._replace(label=f"{piece.label}, in a block of {len(mates)}{with_partner}"
                                f"{star}")


def _star_words(state: State, closed: bool) -> str:
    """Seed 003: "a star held by an enemy block is closed ... Exception: if your team already
    has a token sitting on a star, the enemies there never count as a block against you"."""
    turn = state.turn.capitalize()
    if closed:
        return f", closing this star to {turn}"
    whose = "whose team has" if state.teams else "who has"
    return f", not closing this star to {turn}, {whose} a token here"


def seat_views(rules: GilgitiRules, state: State) -> tuple[SeatView, ...]:
    from .gilgiti import PARTNER, SIDES, closed_squares, occupancy

    occ = occupancy(state.tokens)
    views = []
    for colour in state.seats:
        ci = _ci(colour)
        home = sum(1 for p in state.tokens[ci] if p == HOME)
        facts = [f"{home}/4 home"]
        if state.phase != "over" and YARD in state.tokens[ci] and START_SQUARES[ci] in \
                closed_squares(occ, state.teams, SIDES[state.teams][ci]):
            # "An enemy block on your entry star locks you out": the board's lock on that star
            # is drawn only on the seat's own turn, and a screen reader hears none of it
            facts.append("entry blocked")
        team = None
        if state.teams:
            partner = COLOURS[PARTNER[ci]]
            team = "Red + Yellow" if colour in ("red", "yellow") else "Green + Blue"
            finished = home == 4
            if colour in state.resting:
                status = "resting"
                facts.append("rests one turn")
            elif finished and state.phase != "over":
                status = "finished"
                facts.append(f"plays {partner.capitalize()}'s tokens")
            else:
                status = "playing"
        else:
            status = "playing"
        if state.timeouts[ci]:
            facts.append(f"timeouts {state.timeouts[ci]}")
        if state.phase == "over":
            status = "quit" if state.quit == colour else (
                "finished" if colour in state.winners else "playing")
        views.append(SeatView(colour, status, tuple(facts), team, home))
    return tuple(views)


def dice(rules: GilgitiRules, state: State) -> tuple[DieView, ...]:
    """The values of the turn: rolled so far (roll phase), or each one used, playable
    (some legal play uses it now) or stranded (none does)."""
    if state.phase == "roll":
        return tuple(DieView(v, f"{v}, rolled: roll again", "rolled") for v in state.rolled)
    if state.phase != "move":
        return ()
    playable = {p.value for p in rules.plays(state)}
    views = []
    used = list(state.rolled)  # rolled minus still to play: the first of each kind are used
    for v in state.unplayed:
        used.remove(v)
    for v in state.rolled:
        if v in used:
            used.remove(v)
            views.append(DieView(v, f"{v}, played", "used"))
        elif v in playable:
            views.append(DieView(v, f"{v}, to play", "playable"))
        else:
            views.append(DieView(v, f"{v}, not now: no legal move with it at the moment",
                                 "stranded"))
    return tuple(views)


def summary(state: State | None) -> tuple[str, ...]:
    if state is not None and state.teams:
        return SUMMARY + TEAM_SUMMARY
    return SUMMARY


def scene(rules: GilgitiRules, state: State) -> Scene:
    over = state.phase == "over"
    return Scene(
        board=board(rules, state),
        stacks=stacks(state),
        seats=seat_views(rules, state),
        dice=dice(rules, state),
        turn=None if over else state.turn,
        phase=state.phase,
        next=rules.next_player(state),
        winners=rules.winners(state),
        summary=summary(state),
    )


def _where(colour: str, position: int) -> str:
    return cross.describe_position(colour, position).removeprefix("on ")


def choice_for(play: Play, action: Action, holder: str | None = None,
               seat: str | None = None) -> Choice:
    """A legal play as something a person can click (``holder``: for forcing the gate, the
    colour whose block shuts it, named on the button; ``seat``: who plays, when a finished
    team player forces the gate of the partner whose tokens they move)."""
    first = play.pieces[0]
    colour, token = COLOURS[first >> 2], first & 3
    target = cross.place_id(colour, token, play.dest)
    if play.kind == "force":
        label = FORCE_LABEL
        if seat is not None and seat != colour:  # a finished player, at the partner's gate
            owner = colour.capitalize()
            label = (f"Force the gate: spend two 6s to push two of {owner}'s tokens onto "
                     f"{owner}'s entry star")
        beside = f" beside {holder.capitalize()}'s block" if holder else ""
        return Choice(action, "force", label + beside, (), target, None)
    pieces = tuple(piece_id(p) for p in play.pieces)
    if play.kind == "strike":
        names = ", ".join(f"{COLOURS[p >> 2].capitalize()} {(p & 3) + 1}" for p in play.pieces)
        label = (f"the stack ({names}) strikes the block on {_where(colour, play.dest)} "
                 f"with the {play.value}")
        return Choice(action, "strike", label, pieces, target, str(play.value))
    # a star's safety said, as Courtyard's move labels do ("…, a star"): the board's star is
    # not read out (no capture ever happens there, so a capture label never has it too)
    where = _where(colour, play.dest) + cross.safe_words(colour, play.dest, "entry star")
    # no subject: the label is read after the token's own ("Red token 2, on square 1 ...;
    # moves 2 to square 3 ..."), which names it
    if play.kind == "enter":
        label = "enters onto its entry star with the 6"
    else:
        label = f"moves {play.value} to {where}"
    if play.victims:
        victim = play.victims[0]
        label += f", capturing {COLOURS[victim >> 2].capitalize()} token {(victim & 3) + 1}"
    return Choice(action, play.kind, label, pieces, target, str(play.value))


def choices(rules: GilgitiRules, state: State) -> list[Choice]:
    """Every legal play: one per token (or stack) and value, and forcing once."""
    from .gilgiti import SIDES, _play_action, _side

    if state.phase == "roll":
        return [Choice(Action("roll"), "roll", ROLL_CHOICE_LABEL)]
    if state.phase != "move":
        return []
    found = []
    forced = False
    sides, side = SIDES[state.teams], _side(state)
    for play in rules.plays(state):
        if play.kind == "force":
            if forced:
                continue  # any two yard tokens are the same choice
            forced = True
            # the pair that shuts the gate, not a lone token of another colour beside it
            holder = next((c for i, c in enumerate(COLOURS) if sides[i] != side
                           and state.tokens[i].count(play.dest) >= 2), None)
            found.append(choice_for(play, _play_action(play), holder, state.turn))
            continue
        found.append(choice_for(play, _play_action(play)))
    return found


def _values(values: list[Any]) -> str:
    return join_words([str(v) for v in values])


def _token(colour: str, token: int, seat: str, names: Names) -> str:
    if colour == seat:
        return f"token {token + 1}"
    return f"{name_of(colour, names)}'s token {token + 1}"


def describe(event: Event, names: Names) -> str | None:
    """One sentence for an event, or None for events not worth a line."""
    kind = event["type"]
    who = name_of(event["seat"], names)
    if kind == "rolled":
        if event.get("clock"):  # the seat was away: the game rolled for it
            return f"The game rolled a {event['value']} for {who}."
        return f"{who} rolled a {event['value']}."
    if kind == "roll_again":
        return f"{who} rolls again."
    if kind == "three_sixes":
        return f"Three 6s in a row: {who}'s whole turn is cancelled."
    if kind == "to_play":
        values = event["values"]
        if len(values) == 1:
            return f"{who} plays the {values[0]}."
        return f"{who} plays {_values(values)}, in any order."
    if kind == "entered":
        token = _token(event["colour"], event["token"], event["seat"], names)
        star = "the" if event["colour"] == event["seat"] else \
            f"{name_of(event['colour'], names)}'s"  # a finished player, for the partner
        return f"{who} brought {token} onto {star} entry star with the 6."
    if kind == "moved":
        token = _token(event["colour"], event["token"], event["seat"], names)
        if event["to"] == HOME:
            return f"{who} moved {token} home with the {event['value']}."
        where = cross.describe_position(event["colour"], event["to"])
        return f"{who} moved {token} by {event['value']}, now {where}."
    if kind == "captured":
        victims = ", ".join(f"{name_of(c, names)} token {t + 1}" for c, t in event["victims"])
        return f"{who} captured {victims}: back to the yard."
    if kind == "struck":
        colour = event["stack"][0][0]
        victims = ", ".join(f"{name_of(c, names)} token {t + 1}" for c, t in event["victims"])
        where = cross.describe_position(colour, event["to"])
        size = len(event["stack"])
        if any(c == event["seat"] for c, _ in event["stack"]):
            stack = f"{who}'s stack of {size}"
        else:  # a finished player moving the partner's stack: it is the partner's
            stack = f"{name_of(colour, names)}'s stack of {size}, played by {who},"
        return f"{stack} struck with the {event['value']} {where}: {victims} back to the yard."
    if kind == "forced":
        if event["colour"] == event["seat"]:  # "two Ada (red) tokens" read oddly
            return (f"{who} forced the gate with two 6s: two tokens stand on the entry star "
                    "beside the block.")
        owner = name_of(event["colour"], names)
        return (f"{who} forced the gate with two 6s: two of {owner}'s tokens stand on "
                f"{owner}'s entry star beside the block.")
    if kind == "reached_home":
        token = _token(event["colour"], event["token"], event["seat"], names)
        return f"{who} got {token} home."
    if kind == "rolled_back":
        # in the order rolled (6s first), not the ascending order the event lists them in
        values = sorted(event["values"], reverse=True)
        if event["played"]:
            # two of one value left (only 6s repeat): "either 6", not "the 6 and the 6"
            left = f"either {values[0]}" if len(values) == 2 and values[0] == values[1] else \
                "the " + " and the ".join(str(v) for v in values)
            return (f"{who} has no move left for {left}, so the whole turn goes back: "
                    "everything played this turn is undone.")
        if len(values) == 1:
            return f"{who} has no move with a {values[0]}: the turn passes."
        # "no move with 6, 6 or 3", not "with a 3 and a 6 and a 6"
        listed = ", ".join(map(str, values[:-1])) + f" or {values[-1]}"
        return f"{who} has no move with {listed}: the turn passes."
    if kind == "finished":
        return (f"{who} has all four tokens home and rests one turn; then {who} plays "
                f"{name_of(event['partner'], names)}'s tokens.")
    if kind == "rested":
        return f"{who} rests this turn."
    if kind == "timeout":
        if event.get("six"):  # the timeout's die was a 6: it rolled, nothing was played
            return f"{who} ran out of time; the game rolls for them (timeout {event['count']})."
        return f"{who} ran out of time; the turn is played for them (timeout {event['count']})."
    if kind == "quit":
        return f"{who} left the game: the match is over."
    if kind == "won":
        seats = event.get("seats", [event["seat"]])
        if len(seats) > 1:
            return f"{join_names(seats, names)} win the game!"
        return f"{join_names(seats, names)} wins the game!"
    if kind == "turn":
        return f"{who}'s turn."
    return None
