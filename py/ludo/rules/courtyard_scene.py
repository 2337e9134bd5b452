"""What Courtyard and Classic show and say: scene, choices, narration and help.

Everything a screen needs comes from here through the rule-set interface, so
no word or field of these rules appears outside the engine.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from ..actions import Action
from ..geometry import (
    COLOUR_INDEX,
    COLOURS,
    HOME,
    LANE_FIRST,
    LANE_LENGTH,
    SAFE_SQUARES,
    START_SQUARES,
    TRACK_LENGTH,
    YARD,
)
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
    name_of,
)

if TYPE_CHECKING:
    from .courtyard import CourtyardRules, State

ROLL_CHOICE_LABEL = "Roll the die"
LEAVE = Leave(
    "Quit this game?",
    "All your tokens will be removed, and you cannot rejoin this match. The remaining players "
    "continue. Online and computer players return to Home. On a shared device, the other "
    "players keep playing.",
    "Quit game",
)


def piece_label(colour: str, token: int, position: int) -> str:
    # rule 6's safe squares said too: a screen-reader player hears no star on the board
    return (f"{colour.capitalize()} token {token + 1}, {cross.describe_position(colour, position)}"
            f"{cross.safe_words(colour, position)}")


def board(rules: CourtyardRules, state: State | None) -> Board:
    if state is None:  # before a game: every lane as a new game has it
        return cross.cross_board(COLOURS, locked=COLOURS if rules.capture_to_unlock else ())
    locked = () if not rules.capture_to_unlock else \
        [c for c in state.seats if c not in state.unlocked]
    return cross.cross_board(state.seats, locked)


def piece_id(colour: str, token: int) -> str:
    return f"{colour}-{token}"


def motion(colour: str, token: int, walk: list[int]) -> dict[str, list[str]]:
    """A moving event's ``pieces`` and ``path`` (see base.Event) for positions ``walk``."""
    return {"pieces": [piece_id(colour, token)],
            "path": [cross.place_id(colour, token, p) for p in walk]}


def stacks(state: State) -> tuple[Stack, ...]:
    by_place: dict[str, list[Piece]] = {}
    for colour in COLOURS:
        for token, position in enumerate(state.tokens[COLOUR_INDEX[colour]]):
            place = cross.place_id(colour, token, position)
            by_place.setdefault(place, []).append(
                Piece(piece_id(colour, token), colour, token, piece_label(colour, token, position)))
    return tuple(Stack(place, tuple(pieces)) for place, pieces in by_place.items())


def seat_views(rules: CourtyardRules, state: State) -> tuple[SeatView, ...]:
    views = []
    for colour in state.seats:
        ci = COLOUR_INDEX[colour]
        out = state.out[ci]
        home = sum(1 for p in state.tokens[ci] if p == HOME)
        facts = [out if out else f"{home}/4 home"]
        if state.timeouts[ci]:  # none yet (or no clock at all): nothing to say
            facts.append(f"timeouts {state.timeouts[ci]}/5")
        if rules.capture_to_unlock and colour in state.unlocked and not out:
            facts.append("lane open")  # (a seat that is out has no lane to speak of)
        elif rules.capture_to_unlock and not out:
            # the board's lock is drawn (hidden from a screen reader): the facts say it too,
            # so nobody has to infer a locked lane from "lane open" being absent
            facts.append("lane locked")
        status = out or ("finished" if home == 4 else "playing")
        views.append(SeatView(colour, status, tuple(facts), home=home))
    return tuple(views)


def summary(rules: CourtyardRules) -> tuple[str, ...]:
    if rules.capture_to_unlock:
        first = ("Enter a token on a 1 or a 6.",
                 "Capture once to unlock your home lane (grey with a lock until then).")
    else:
        first = ("Enter a token only on a 6.", "Home lanes are open from the start.")
    return first + (
        "A 6, a capture or reaching home earns one extra roll.",
        "The third six in a row is discarded and the die passes.",
        "Landing on an ordinary square sends every opponent token there back to its yard; "
        "the 4 start squares and 4 stars are safe.",
        "Exact roll to finish; the first with all four tokens home wins.",
        # seed 000, rule 10: "Each roll and its move share 30 seconds": one deadline for the
        # roll and the move it allows, not 30 s for each (docs/rules/courtyard.md, rule 10)
        "With the turn clock: 30 seconds for each roll and its move together; the fifth "
        "timeout removes a seat.",
    )


def scene(rules: CourtyardRules, state: State) -> Scene:
    over = state.phase == "over"
    return Scene(
        board=board(rules, state),
        stacks=stacks(state),
        seats=seat_views(rules, state),
        dice=(DieView(state.die, str(state.die)),) if state.die is not None else (),
        turn=None if over else state.turn,
        phase=state.phase,
        next=rules.next_player(state),
        winners=rules.winners(state),
        summary=summary(rules),
    )


def choices(rules: CourtyardRules, state: State) -> list[Choice]:
    if state.phase == "roll":
        return [Choice(Action("roll"), "roll", ROLL_CHOICE_LABEL)]
    if state.phase != "move":
        return []
    colour = state.turn
    found = []
    for token, position, dest in rules.targets(state, cast(int, state.die)):
        label = f"moves to {cross.describe_position(colour, dest).removeprefix('on ')}"
        # what the move does, as the announcement after it will say: a label that names only
        # the square leaves a screen-reader player to work out captures and safe squares
        _, events = rules.apply(state, Action("move", token=token))
        victims = [v[0] for e in events if e["type"] == "captured" for v in e["victims"]]
        if victims:
            label += ", capturing " + " and ".join(
                f"{victims.count(c)} {c.capitalize()} tokens" if victims.count(c) > 1
                else c.capitalize() for c in dict.fromkeys(victims))
        elif dest < LANE_FIRST and position != YARD and (landing := _landing(colour, dest)):
            label += f", {landing.removeprefix('onto ')}"
        if any(e["type"] == "unlocked" for e in events):
            label += ", which unlocks your home lane"
        kind = "enter" if position == YARD else "move"
        found.append(Choice(Action("move", token=token), kind, label,
                            pieces=(piece_id(colour, token),),
                            target=cross.place_id(colour, token, dest)))
    return found


def _landing(colour: str, square: int) -> str:
    """Where a move ends, in a player's words: only what matters is named."""
    if square >= LANE_FIRST:
        return f"up the home lane ({square - LANE_FIRST + 1} of {LANE_LENGTH})"
    if square in START_SQUARES:
        owner = COLOURS[START_SQUARES.index(square)]
        return "onto its own start" if owner == colour else f"onto {owner.capitalize()}'s start"
    if square in SAFE_SQUARES:
        return "onto a star"
    return ""


def _steps(colour: str, origin: int, dest: int) -> int:
    """Squares travelled by one move (a lap around the track counts from the start again)."""
    travelled = cross.progress(colour, dest) - cross.progress(colour, origin)
    return travelled if travelled > 0 else travelled % TRACK_LENGTH


_NUMBERS = dict(enumerate(("zero", "one", "two", "three", "four", "five", "six"), start=0))
_REASONS = {"six": "a six", "capture": "a capture", "home": "a token home",
            "six+capture": "a six and a capture", "six+home": "a six and a token home"}


def describe(event: Event, names: Names) -> str | None:
    """One short sentence for an event, or None for events not worth a line.

    Said the way players say it: who, what happened, and only the places that matter
    (a star, a start, the home lane, home) -- no square numbers.
    """
    kind = event["type"]
    who = name_of(event["seat"], names)
    if kind == "rolled":
        if event.get("clock"):  # the seat was away: the game rolled for it
            return f"The game rolled a {event['value']} for {who}."
        return f"{who} rolled a {event['value']}."
    if kind == "entered":
        return f"{who} brought token {event['token'] + 1} out."
    if kind == "moved":
        if event["to"] == HOME:
            return None  # reached_home says it
        steps = _steps(event["seat"], event["from"], event["to"])
        where = _landing(event["seat"], event["to"])
        squares = "one square" if steps == 1 else f"{_NUMBERS.get(steps, steps)} squares"
        return f"{who} moved token {event['token'] + 1} {squares}" + \
            (f", {where}." if where else ".")
    if kind == "captured":
        victims: dict[str, int] = {}
        for colour, _ in event["victims"]:
            victims[colour] = victims.get(colour, 0) + 1
        first, count = next(iter(victims.items()))  # a capture has at least one victim
        if len(victims) > 1:
            told = join_names(list(victims), names)
        elif count > 1:  # not "Bo (green) (2 tokens)": a count after the name's own brackets
            told = f"{count} of {name_of(first, names)}'s tokens"
        else:
            told = name_of(first, names)
        return f"{who} captured {told}: back to the yard."
    if kind == "unlocked":
        return f"{who}'s home lane is open."
    if kind == "reached_home":
        return f"{who} got token {event['token'] + 1} home."
    if kind == "extra_roll":
        if event.get("no_move"):
            return f"{who} has no move with the 6 and rolls again."
        reason = _REASONS.get(event.get("reason", ""), "")
        return f"{who} rolls again" + (f" for {reason}." if reason else ".")
    if kind == "three_sixes":
        return f"Three sixes: {who}'s roll is void and the die passes."
    if kind == "no_move":
        # said right after "Red rolled a 2.": the value again read twice to a screen reader
        return f"{who} has no move."
    if kind == "timeout":
        return f"{who} ran out of time ({event['count']} of 5)."
    if kind == "eliminated":
        return f"{who} is out after a fifth timeout; their tokens are removed."
    if kind == "quit":
        return f"{who} quit the game; their tokens are removed."
    if kind == "won":
        return f"{join_names(event.get('seats', [event['seat']]), names)} wins the game!"
    if kind == "turn":
        return f"{who}'s turn."
    return None


COURTYARD_HELP = Help(
    lead="Two to four players. Four tokens each. Get all four home first to win.",
    rules=(
        ("Take your place.", "A random player starts; turns go clockwise: red, green, yellow, "
         "blue. On a shared device the board stays fixed, with red at the bottom left; online, "
         "and for one person playing against computers, your own colour is at the bottom left "
         "of your screen. Everyone shares the same colours and order."),
        ("Tap the die to roll", "(or focus it and press Enter or Space). A 1 or a 6 puts a token "
         "from your yard on your coloured start square, or moves a token already out by the full "
         "roll. One fair six-sided die; a roll cannot be split, and you must move when you can. "
         "When only one move is possible it plays by itself; otherwise the tokens that can move "
         "glow, and you pick one."),
        ("Good things earn another roll.", "A 6, a capture or getting a token home earns one "
         "extra roll; several at once still earn just one. A 6 with no legal move also lets you "
         "roll again."),
        ("Three sixes end your turn.", "The third 6 in a row is discarded and the die passes. "
         "Moves from the first two sixes stay. Any other number breaks the run."),
        ("Make a little mischief.", "Land on an ordinary square with opponents on it and all of "
         "them go back to their yards. Tokens can share squares and never block."),
        ("Eight safe squares.", "The four coloured start squares and the four stars: nobody is "
         "captured there."),
        ("Capture to unlock home.", "A grey home lane with a closed lock means you must capture "
         "at least once before any of your tokens may enter. After your first capture the lock "
         "opens and the lane takes your colour, for good, even if the capturing token is sent "
         "back."),
        ("Another lap is always possible.", "Until your lane is unlocked, tokens pass its "
         "entrance and go round again, as often as needed. Once it is unlocked, each token turns "
         "in on its next approach; a token that has just passed the entrance goes round once "
         "more."),
        ("A perfect finish.", "Only your colour uses your home lane, and nobody is captured "
         "there. Reaching home needs the exact number; overshooting is not allowed. With no "
         "legal move, the roll is skipped. The first player with all four tokens home wins."),
        ("Keep the game moving.", "Each roll and its move share 30 seconds. If time runs out "
         "before you roll, the game rolls and moves for you; after the roll, it moves with that "
         "die. A new turn or an extra roll starts a fresh 30 seconds. Timeouts add up over the "
         "match; on your fifth, your tokens are removed before a roll or move and the others "
         "play on. “Next” shows who plays after this turn and any extra rolls. (On one device "
         "the timer can be switched off for relaxed games at home; online rooms always run "
         "it.)"),
        ("Leaving is your choice.", "Quit game, then confirm, removes your tokens for the rest "
         "of the match and you cannot rejoin as an active player; the others continue, skipping "
         "your seat, and the last player remaining wins. Home leaves the table without "
         "quitting: your seat is kept and the clock keeps running. Losing your connection does "
         "not make you leave at once; timeouts still add up and can eliminate you."),
    ),
    notes=("Stars mark safe squares, not the ends of home lanes.",),
    kicker="A quick refresher",
)

CLASSIC_HELP = Help(
    lead="The rules most people grew up with: a token leaves the yard only on a 6, and home "
         "lanes are open from the start. Everything else is as in Courtyard: the turn order, "
         "extra rolls (a 6 with no move too), three sixes, captures, safe squares, the exact "
         "finish, the turn clock, and quitting or going Home.",
    rules=(),
)
