"""What Royal Ludo shows and says: board, scene, choices, narration, help and invariants.

Everything a screen needs comes from here through the rule-set interface, so
no word or field of Royal appears outside the engine.
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING

from ..actions import Action
from ..geometry import COLOURS, STAR_SQUARES, START_SQUARES, TRACK_LENGTH
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
    Wording,
    join_names,
    name_of,
)

if TYPE_CHECKING:
    from .royal import RoyalRules, State

WORDING = Wording(verb="throw", past="threw", noun="throw", piece="man", pieces="men")
"""The seed's language: players throw the die (prompts and the die's labels say so)."""

ROLL_CHOICE_LABEL = f"{WORDING.verb.capitalize()} the die"

LEAVE = Leave(
    "Quit this game?",
    "All your men will be removed, and you cannot rejoin this match; a man of yours riding "
    "on another is lifted off, and a man you carry stays where it is. The remaining players "
    "continue. Online and computer players return to Home. On a shared device, the other "
    "players keep playing.",
    "Quit game",
)


# -- places and words ----------------------------------------------------------------


def _places():  # imported lazily: royal imports this module
    from . import royal

    return royal


def place_id(colour: str, token: int, place: int) -> str:
    """The board cell a man of ``colour`` at engine ``place`` stands on."""
    r = _places()
    if place == r.BALK:
        return cross.yard_id(colour, token)
    if place == r.HOME:
        return cross.home_id(colour)
    if place >= r.LANE_BASE:
        lc, k = r.lane_of(place)
        return cross.lane_id(COLOURS[lc], k)
    return cross.track_id(place)


def describe_place(colour: str, place: int) -> str:
    """Words for a man's place, for screen readers and the log."""
    r = _places()
    if place == r.BALK:
        return "in the balk"
    if place == r.HOME:
        return "on the home crown"
    if place >= r.LANE_BASE:
        lc, k = r.lane_of(place)
        # a colour as a name, capitalised, as everywhere else a man is named ("Green's")
        whose = "its own" if COLOURS[lc] == colour else f"{COLOURS[lc].capitalize()}'s"
        return f"on space {k} of {whose} home column"
    mark = (", a crown" if place in START_SQUARES else ", a feather" if place in STAR_SQUARES
            else "")
    # spoken spaces count from 1, as people do (the notation's 0..51 stay the engine's)
    return f"on space {place + 1}{mark} ({cross.from_start(colour, place)})"


def motion(ci: int, token: int, origin: int, dest: int,
           rider: tuple[int, int] | None = None) -> dict[str, list[str]]:
    """A moving event's ``pieces`` and ``path`` (see base.Event): the man (and the rider he
    carries) and every cell passed, from where he stood to where he stops."""
    r = _places()
    colour = COLOURS[ci]
    pieces = [f"{colour}-{token}"]
    if rider is not None:
        pieces.append(f"{COLOURS[rider[0]]}-{rider[1]}")
    if origin == r.BALK:
        passed: tuple[int, ...] = (dest,)
    else:
        walk = r.PATHS[ci][origin]
        passed = walk[:walk.index(dest) + 1]
    return {"pieces": pieces,
            "path": [place_id(colour, token, p) for p in (origin, *passed)]}


def face_words(value: int | str) -> str:
    """"a crown", "a feather", "a 3"."""
    return f"a {value}"


# -- the board ---------------------------------------------------------------------------

CROWN_CELLS = {str(s) for s in START_SQUARES} | {cross.home_id(c) for c in COLOURS}
FEATHER_CELLS = {str(s) for s in STAR_SQUARES}


def _royal_cell(cell):
    """Royal's meaning of a cross-board cell: stars are feather spaces (not safe), starting
    points and home crowns are crown spaces."""
    if cell.id in FEATHER_CELLS:
        return cell._replace(kind="track", marks=("feather",),
                             label=f"space {int(cell.id) + 1}, a feather space")
    if cell.id in CROWN_CELLS:
        if cell.kind == "home":
            return cell._replace(marks=("crown",), label=f"{cell.colour}'s home crown")
        return cell._replace(marks=("crown",),
                             label=f"space {int(cell.id) + 1}, {cell.colour}'s starting point, "
                                   "a crown space")
    if cell.kind == "track":
        return cell._replace(label=f"space {int(cell.id) + 1}")
    if cell.kind == "lane":
        k = cell.id.rsplit("-", 1)[1]
        return cell._replace(label=f"{cell.colour}'s home column, space {k}")
    if cell.kind == "yard":
        return cell._replace(label=f"{cell.colour}'s balk")
    return cell


def board(state: State | None) -> Board:
    """The cross board with Royal's crown and feather spaces; muted yards for empty seats."""
    return _royal_board(tuple(COLOURS if state is None else state.seats))


@lru_cache(maxsize=16)
def _royal_board(seated: tuple[str, ...]) -> Board:
    # one board per set of seats, not rebuilt at every move (see cross.cross_board)
    plain = cross.cross_board(seated)
    return plain._replace(cells=tuple(_royal_cell(c) for c in plain.cells))


# -- the scene ---------------------------------------------------------------------------


def piece_label(state: State, ci: int, token: int, carried_by: tuple[int, int] | None,
                carrying: tuple[int, int] | None) -> str:
    colour = COLOURS[ci]
    where = describe_place(colour, state.tokens[ci][token])
    text = f"{colour.capitalize()} man {token + 1}, {where}"
    if carried_by is not None:
        text += f", riding on {COLOURS[carried_by[0]].capitalize()} man {carried_by[1] + 1}"
    if carrying is not None:
        text += f", carrying {COLOURS[carrying[0]].capitalize()} man {carrying[1] + 1}"
    return text


def stacks(state: State) -> tuple[Stack, ...]:
    """The men on each place, bottom first; a double is its carrier then its rider."""
    rides_on = {(rc, rt): (cc, ct) for rc, rt, cc, ct in state.riders}
    carries = {(cc, ct): (rc, rt) for rc, rt, cc, ct in state.riders}
    by_place: dict[str, list[tuple[int, Piece]]] = {}
    for ci, colour in enumerate(COLOURS):
        for token, square in enumerate(state.tokens[ci]):
            piece = Piece(f"{colour}-{token}", colour, token,
                          piece_label(state, ci, token, rides_on.get((ci, token)),
                                      carries.get((ci, token))))
            order = 1 if (ci, token) in rides_on else 0
            by_place.setdefault(place_id(colour, token, square), []).append((order, piece))
    out = []
    for place, pieces in by_place.items():
        ordered = tuple(p for _, p in sorted(pieces, key=lambda x: x[0]))
        double = any(o for o, _ in pieces)
        out.append(Stack(place, ordered, "double" if double else "group"))
    return tuple(out)


def seat_views(rules: RoyalRules, state: State) -> tuple[SeatView, ...]:
    r = _places()
    views = []
    for colour in state.seats:
        ci = COLOURS.index(colour)
        out = state.out[ci]
        men = state.tokens[ci]
        home = sum(1 for p in men if p == r.HOME)
        facts = [out if out else f"{home}/4 home"]
        if state.timeouts[ci]:  # none yet (or no clock at all): nothing to say
            facts.append(f"timeouts {state.timeouts[ci]}/5")
        if not out and state.phase != "over" and all(p in (r.BALK, r.HOME) for p in men) \
                and home < 4:  # (over: nobody needs anything; a win by the others leaving)
            facts.append("needs a crown")
        carried = sum(1 for _, _, cc, _ in state.riders if cc == ci)
        if carried:
            facts.append("carrying a double" if carried == 1 else f"carrying {carried} doubles")
        stranded = sum(1 for p in men if r.LANE_BASE <= p < r.HOME
                       and r.lane_of(p)[0] != ci)
        if stranded:
            facts.append("a man in another home column" if stranded == 1 else
                         f"{stranded} men in other home columns")
        # finished: all four home (a winner by the others quitting is still playing)
        status = out or ("finished" if home == 4 else "playing")
        views.append(SeatView(colour, status, tuple(facts), home=home))
    return tuple(views)


SUMMARY = (
    "Red (or, without red, the next colour round) throws first; turns go clockwise.",
    "The die: 1, 2, 3, 4, feather, crown. A crown starts a man and earns another throw.",
    "Crown: on to the next crown space. Feather: on to the next feather space, but never past a "
    "crown.",
    "Land on a single opponent to ride on top: a double. The carrier must move it first.",
    "A double landing on an opponent sends it to balk. Never onto your own man or a double.",
    "A rider moves off alone when its owner pleases: never forced, onto an empty space or his "
    "home crown only.",
    "Two crowns in a row for a carrier: send the rider to balk, climb on top, or play the crown "
    "as a move.",
    "Home column: safe; numbers move up, only a crown reaches the home crown.",
    "First with four men on the home crown wins.",
    "With the turn clock: 30 seconds for each throw and its move together; the fifth timeout "
    "removes a seat.",
)


def die_view(value: int | str, said: str = "") -> DieView:
    return DieView(value, str(value), said=said)


def throw_said(rules: RoyalRules, state: State) -> str:
    """The throw in words where the face does not say it: the carrier's buttons to send the
    rider back or climb on top come only with two crowns in succession, which "You threw a
    crown." did not say ("a second crown" would be untrue of a third: a crown played as a move
    keeps the double, so crowns 2 and 3 are again two in succession)."""
    if state.phase == "choose" and any(a.type == "send_back"
                                       for a in rules.legal_actions(state)):
        return "two crowns in succession"
    return ""


def scene(rules: RoyalRules, state: State) -> Scene:
    over = state.phase == "over"
    return Scene(
        board=board(state),
        stacks=stacks(state),
        seats=seat_views(rules, state),
        dice=(die_view(state.die, throw_said(rules, state)),) if state.die is not None else (),
        turn=None if over else state.turn,
        phase=state.phase,
        next=rules.next_player(state),
        winners=rules.winners(state),
        summary=SUMMARY,
    )


STAY_LABEL = "Stay on top (lose this throw)"  # the button of a rider who need not move off


def choices(rules: RoyalRules, state: State) -> list[Choice]:
    if state.phase == "roll":
        return [Choice(Action("roll"), "roll", ROLL_CHOICE_LABEL)]
    colour = state.turn
    ci = COLOURS.index(colour)
    if state.phase == "choose":
        found = []
        for kind, token in rules.two_crown_options(state):
            rc, rt = next((r[0], r[1]) for r in state.riders if r[2] == ci and r[3] == token)
            rider = f"{COLOURS[rc].capitalize()} man {rt + 1}"
            if kind == "send_back":
                label = f"Send {rider} back to balk"
            else:
                label = f"Climb on top of {rider}"
            found.append(Choice(Action(kind, token=token), kind, label))
        # "may": the crown can also be played as an ordinary move (a glowing token)
        return found + move_choices(rules, state)
    if state.phase != "move":
        return []
    if rules.may_stay(state):  # moving off is never forced: staying on is a button
        return move_choices(rules, state) + [Choice(Action("stay"), "stay", STAY_LABEL)]
    return move_choices(rules, state)


def move_choices(rules: RoyalRules, state: State) -> list[Choice]:
    """One choice per legal move of the thrown face: the token to click and where it goes."""
    colour = state.turn
    ci = COLOURS.index(colour)
    found = []
    for play in rules.plays(state):
        pieces: tuple[str, ...] = (f"{colour}-{play.token}",)
        where = describe_place(colour, play.dest).removeprefix("on ")
        if play.kind == "carry":
            rc, rt = next((r[0], r[1]) for r in state.riders
                          if r[2] == ci and r[3] == play.token)
            pieces += (f"{COLOURS[rc]}-{rt}",)
            label = f"carries the double to {where}"
            if play.dest >= _places().LANE_BASE:  # the rider gets off in the carrier's column
                label += f", leaving {COLOURS[rc].capitalize()} man {rt + 1} there"
            if play.meets is not None:
                label += f", sending {COLOURS[play.meets[0]].capitalize()} man " \
                         f"{play.meets[1] + 1} to balk"
        elif play.kind == "enter":
            label = "starts on the starting point"
        elif play.kind == "off":
            label = f"moves off alone to {where}"
        else:
            label = f"moves to {where}"
        if play.kind != "carry" and play.meets is not None:
            label += f", riding on {COLOURS[play.meets[0]].capitalize()} man {play.meets[1] + 1}"
        found.append(Choice(Action("move", token=play.token), play.kind, label, pieces=pieces,
                            target=place_id(colour, play.token, play.dest)))
    return found


# -- narration -------------------------------------------------------------------------

LOST_REASONS = {
    "no_man_out": "No man is out yet, and only a crown starts one",
    "in_balk": "Every man not yet home is in the balk, and only a crown starts one",
    "start_held": "A double holds the starting point, so no man can start",
    "waiting": "A man left in another colour's column waits there until all the player's other "
               "men are home",
    "double_home": "A double cannot go onto the home crown",
    "feather": "A feather cannot pass a crown",
    "feather_column": "A feather cannot be used in the home column",
    "column_end": "A number cannot take a man past the last space of his home column, where "
                  "only a crown takes him home",
    "blocked": "No man can move",
}
"""Why a throw is lost (a ``no_move`` event's ``reason`` and ``also``), each said as a clause;
:func:`lost_sentence` joins them and ends ": the throw is lost."."""
OTHER_BLOCKED = "no other man can move"  # "blocked" after another cause
FEATHER_BOTH = "A feather cannot pass a crown or be used in the home column"


def lost_sentence(event: Event) -> str:
    """"A feather cannot pass a crown: the throw is lost." Several causes are joined: "A double
    holds the starting point, so no man can start, and a man left in another colour's column
    waits there ...: the throw is lost."."""
    codes = [event.get("reason", "blocked"), *event.get("also", ())]
    clauses = [LOST_REASONS.get(c, LOST_REASONS["blocked"]) for c in codes]
    if "feather" in codes and "feather_column" in codes:  # one clause for both
        clauses[codes.index("feather")] = FEATHER_BOTH
        del clauses[codes.index("feather_column")]
        codes.remove("feather_column")
    for i in range(1, len(clauses)):  # after the first cause, lower case
        clauses[i] = OTHER_BLOCKED if codes[i] == "blocked" else \
            clauses[i][0].lower() + clauses[i][1:]
    if len(clauses) <= 2:
        said = ", and ".join(clauses)
    else:  # the clauses have commas of their own
        said = "; ".join(clauses[:-1]) + "; and " + clauses[-1]
    return said + ": the throw is lost."


def either(words: list[str], conjunction: str = "or") -> str:
    """"a", "a or b", "a, b, or c"."""
    if len(words) <= 2:
        return f" {conjunction} ".join(words)
    return ", ".join(words[:-1]) + f", {conjunction} " + words[-1]


def two_crowns_sentence(event: Event, names: Names) -> str:
    """The two-crowns choice in words, naming only the options offered (the event lists them:
    riders to send back, riders to climb on, and whether the crown may be played as a move)."""
    who = name_of(event["seat"], names)
    riders = event["riders"]

    def men(listed: list[list]) -> str:
        return either([f"{name_of(c, names)} man {t + 1}" for c, t in listed])

    # an event without the option fields (from before they were added) offered all three
    send = event.get("send_back", riders)
    reverse = event.get("reverse", riders)
    parts = [f"send {men(send)} back to balk"] if send else []
    if reverse:
        parts.append("climb on top" if len(riders) == 1 else f"climb on top of {men(reverse)}")
    if event.get("move", True):
        parts.append("play the crown as a move")
    if len(parts) == 1:
        return f"Two crowns in succession: {who} must {parts[0]}."
    return f"Two crowns in succession: {who} may {either(parts)}."


def describe(event: Event, names: Names) -> str | None:
    """One sentence for an event, or None for events not worth a line."""
    kind = event["type"]
    who = name_of(event["seat"], names)
    if kind == "rolled":
        if event.get("clock"):  # the seat was away: the game threw for it
            return f"The game threw {face_words(event['value'])} for {who}."
        return f"{who} threw {face_words(event['value'])}."
    if kind == "entered":
        return f"{who} started man {event['token'] + 1} on the starting point."
    if kind == "moved":
        where = "to " + describe_place(event["seat"], event["to"]).removeprefix("on ")
        if "rider" in event:
            rc, rt = event["rider"]
            return f"{who} carried the double (with {name_of(rc, names)} man {rt + 1}) {where}."
        if event.get("off"):
            return f"{who} moved man {event['token'] + 1} off alone {where}."
        if event["to"] == _places().HOME:
            return f"{who} moved man {event['token'] + 1} onto the home crown."
        return f"{who} moved man {event['token'] + 1} {where}."
    if kind == "doubled":
        cc, ct = event["carrier"]
        return (f"{who} made a double: man {event['token'] + 1} rides on {name_of(cc, names)} "
                f"man {ct + 1}, who must carry it.")
    if kind == "captured":
        victims = ", ".join(f"{name_of(c, names)} man {t + 1}" for c, t in event["victims"])
        reason = event.get("reason")
        if reason == "two_crowns":
            return f"Two crowns: {who} sent {victims} back to balk."
        if reason == "two_crowns_forced":
            return (f"Two crowns: {who} has no other man to move, so {victims} must go back to "
                    "balk.")
        return f"{who}'s double landed on {victims}: back to balk."
    if kind == "stayed":
        carriers = either([f"{name_of(c, names)} man {t + 1}" for c, t in event["carriers"]],
                          "and")
        return f"{who} stayed on top of {carriers}: the throw is lost."
    if kind == "reversed":
        cc, ct = event["carrier"]
        return (f"Two crowns: {who} climbed on top of {name_of(cc, names)} man {ct + 1}, who now "
                "carries the double.")
    if kind == "left_in_column":
        column = name_of(event["column"], names)
        carried = f"{who}'s man {event['token'] + 1} was carried into {column}'s home column"
        if event.get("free"):  # his other men are home already (or left in columns too)
            return (f"{carried}; {who} has no other man to bring home first, so it need not "
                    "wait there and may play back down.")
        return f"{carried} and waits there until all {who}'s other men are home."
    if kind == "reached_home":
        return f"{who} got man {event['token'] + 1} home."
    if kind == "extra_roll":
        return f"A crown: {who} throws again."
    if kind == "no_move":  # the "rolled" event before it has said who threw what
        return lost_sentence(event)
    if kind == "two_crowns":
        return two_crowns_sentence(event, names)
    if kind == "timeout":
        return f"{who} ran out of time (timeout {event['count']} of 5)."
    if kind == "eliminated":
        return f"{who} was eliminated after a fifth timeout; their men are removed."
    if kind == "quit":
        return f"{who} quit the game; their men are removed."
    if kind == "won":
        return f"{join_names(event.get('seats', [event['seat']]), names)} wins the game!"
    if kind == "turn":
        return f"{who}'s turn."
    return None


# -- invariants ------------------------------------------------------------------------------


def violations(rules: RoyalRules, before: State, after: State, events: list[Event]) -> list[str]:
    """Every broken invariant of one applied action."""
    r = _places()
    found: list[str] = []
    for ci, colour in enumerate(COLOURS):
        active = colour in after.seats and after.out[ci] is None
        want = r.MEN_PER_SEAT if active else 0
        if len(after.tokens[ci]) != want:
            found.append(f"{colour} has {len(after.tokens[ci])} men, expected {want}")
    occ = r.occupancy(after.tokens)
    in_double = {(x[0], x[1]) for x in after.riders} | {(x[2], x[3]) for x in after.riders}
    for place, men in occ.items():
        if len(men) > 2:
            found.append(f"{len(men)} men on place {place}")
        if len(men) == 2 and men[0][0] == men[1][0]:
            found.append(f"two {COLOURS[men[0][0]]} men on place {place}")
        if place < TRACK_LENGTH and len(men) == 2 and not all(m in in_double for m in men):
            found.append(f"two men on track space {place} that are not a double")
    for rc, rt, cc, ct in after.riders:
        if rc == cc:
            found.append(f"{COLOURS[rc]} man {rt} rides on its own colour")
        if after.tokens[rc][rt] != after.tokens[cc][ct] or \
                not 0 <= after.tokens[cc][ct] < TRACK_LENGTH:
            found.append(f"{COLOURS[rc]} man {rt} is not on its carrier's track space")
    for ci in range(len(COLOURS)):
        for p in after.tokens[ci]:
            if r.LANE_BASE <= p < r.HOME and r.lane_of(p)[0] != ci:
                owner = [m for m in occ[p] if m[0] == r.lane_of(p)[0]]
                if len(occ[p]) == 2 and len(owner) != 1:
                    found.append(f"a stranded man shares place {p} with another stranded man")
    # a carrier moves its double whenever it can
    if before.phase == "move":
        bi = COLOURS.index(before.turn)
        plays = rules.plays(before, compel=False)
        moved = next((e for e in events if e["type"] in ("moved", "entered")), None)
        # (a quit or an elimination moves nobody)
        if moved is not None and any(p.kind == "carry" for p in plays) and "rider" not in moved:
            found.append(f"{before.turn} could move its double but moved another man")
        if moved is not None and before.die == "feather":
            path = r.path_from(bi, moved.get("from", r.BALK))
            passed = path[:path.index(moved["to"])] if moved["to"] in path else path
            if any(r.is_crown_space(p) for p in passed) or moved["to"] not in r.FEATHER_SQUARES:
                found.append(f"a feather took {before.turn} past a crown or off a feather space")
    extra = sum(1 for e in events if e["type"] == "extra_roll")
    if extra > 1 and not any(e["type"] == "timeout" for e in events):
        found.append(f"{extra} extra throws earned by one action")
    if after.phase != "over":
        if after.out[COLOURS.index(after.turn)] is not None:
            found.append(f"the turn went to {after.turn}, who has left")
        for ci in range(len(COLOURS)):
            if after.tokens[ci] and all(p == r.HOME for p in after.tokens[ci]):
                found.append(f"{COLOURS[ci]} has four men home but the game goes on")
    return found


# -- the rules page ----------------------------------------------------------------------------

HELP = Help(
    lead="Two to four players, four men each, and a die with 1, 2, 3, 4, a feather and a crown. "
         "Carry your opponents, ride on them, and be first with four men on your home crown.",
    rules=(
        ("Take your place.", "Each player's four men start on the four circles of their balk "
         "(the yard). Play goes round the board from right to left as you sit at it: clockwise. "
         "Red throws first (without red, the next colour round), then the player on the "
         "left, and so on."),
        ("Wait for a crown.", "Throws do nothing until you throw a crown. Your first crown "
         "places a man on your starting point, and you throw again. Later crowns either start "
         "another man or move one already out: your choice. Every crown earns another throw."),
        ("Numbers, crowns and feathers.", "A number moves a man that many spaces. A crown moves "
         "him on to the next crown space (the four starting points and your home crown), however "
         "far. A feather moves him on to the next feather space (the four stars), but a feather "
         "cannot pass a crown: if a crown space comes first, that man cannot use it. You must "
         "move whenever you can, to your advantage or not; with no move the throw is lost."),
        ("Doubles.", "Land on a single opponent and your man climbs on top: a double. Its owner "
         "now carries you: while the double can move, he must move it in preference to all his "
         "other men. Your man may move off alone when you please, but only onto an empty space or "
         "your home crown; "
         "you are never forced to: when moving off is all a throw allows, you may stay on top "
         "and let the throw go. "
         "A double that lands on an opponent sends him back to his balk. Nobody plays onto his "
         "own man or onto a double, and a space holds at most two men."),
        ("Two crowns.", "A carrier who throws two crowns in succession may send the rider back "
         "to its balk, or climb on top and let the opponent carry him, or play the crown as an "
         "ordinary move; played as a move, it keeps the double, and another crown straight "
         "after is again two in succession. If none of his other men could move, the rider "
         "must go to balk."),
        ("Home colours.", "In your home column you are out of danger: nobody can land on you "
         "there. Numbers move you up it, but never past its last space; a feather is no use there; "
         "only a crown takes you onto the home crown. From the track, a crown whose next crown "
         "space is your home crown takes you straight home."),
        ("Carried away.", "A rider carried past its own home column goes round the board again. "
         "A double that enters its carrier's home column leaves the rider there; it waits until "
         "its owner has all his other men home, then plays back down that column and round the "
         "board in the ordinary way. A double never goes onto the home crown."),
        ("Winning.", "The first player with all four men on the home crown wins."),
        ("Keep the game moving.", "As in Courtyard: each throw and its move share 30 seconds; "
         "when time runs out the game throws and plays for you; the fifth timeout removes your "
         "men. Quit game removes your men for the rest of the match, and the last player "
         "remaining wins; Home leaves the table without quitting. (On one device the timer can "
         "be switched off for relaxed games at home; online rooms always run it.)"),
    ),
    notes=("Crowns mark the starting points and home crowns; feathers mark the four stars. "
           "There are no safe squares on the track.",),
)

__all__ = ["HELP", "LEAVE", "board", "choices", "describe", "scene", "violations"]
