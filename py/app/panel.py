"""The side panel as markup: turn, next, die, seats, choices as buttons, details.

Pure Python (tested in CPython): a :class:`~app.table.Table` and its scene in,
HTML text out. It knows no rule set; every fact and sentence comes from the
scene, the choices and the rule set's narration.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from html import escape
from typing import Any, NamedTuple

from ludo import Choice, Scene
from ludo.rules.base import Cell, Piece

from .table import COMPUTER_LEVELS, TURN_SECONDS, Table
from .view import LETTER, crown_svg, feather_svg

History = Sequence[tuple[str | None, Sequence[Mapping[str, Any]]]]
"""What each action did: the seat whose turn it was, and the action's events."""

_PIPS = {1: [(50, 50)], 2: [(28, 28), (72, 72)], 3: [(28, 28), (50, 50), (72, 72)],
         4: [(28, 28), (72, 28), (28, 72), (72, 72)],
         5: [(28, 28), (72, 28), (50, 50), (28, 72), (72, 72)],
         6: [(28, 25), (72, 25), (28, 50), (72, 50), (28, 75), (72, 75)]}
_BLANK = '<rect class="die-blank" x="4" y="4" width="92" height="92" rx="18"/>'
_FACES = {"crown": lambda: crown_svg(50, 52, 3.2, "die-crown"),
          "feather": lambda: feather_svg(50, 50, 3.0, "die-feather")}


def badge(table: Table, seat: str, suffix: str = "") -> str:
    """A seat's colour swatch and name (the name isolated: it is the player's own text)."""
    return (f'<span class="swatch {seat}" aria-hidden="true">{LETTER.get(seat, "?")}</span>'
            f'<span class="who"><bdi>{escape(table.name(seat))}</bdi>{escape(suffix)}</span>')


def die_face(value: int | str | None, blank: str = "Roll") -> str:
    """A die face in a 100 x 100 box: pips for 1..6, a drawn crown or feather, any other
    face as its text, ``blank`` ("Roll", or the rule set's "Throw") when blank."""
    if value is None:  # big enough to read on a phone's die (26 was about 8 px there)
        size = 36 if len(blank) <= 4 else 25
        return _BLANK + (f'<text class="die-word" x="50" y="{50 + size * 0.35:.0f}" '
                         f'text-anchor="middle" font-size="{size}" font-weight="700">'
                         f'{escape(blank)}</text>')
    if isinstance(value, int) and value in _PIPS:
        return _BLANK + "".join(f'<circle class="pip" cx="{x}" cy="{y}" r="9.5"/>'
                                for x, y in _PIPS[value])
    face = _FACES.get(str(value))
    if face is not None:
        return _BLANK + face()
    text = escape(str(value))
    size = 44 if len(text) <= 2 else max(14, 88 // len(text))
    return _BLANK + (f'<text class="die-word" x="50" y="{50 + size * 0.36:.0f}" '
                     f'text-anchor="middle" font-size="{size}" font-weight="800">{text}</text>')


WAITING_FACE = "…"
"""The die's face while a turn starts with nothing rolled yet (a computer about to roll)."""


def die_shown(state: str, shown: int | str | None) -> int | str | None:
    """What the die shows in ``state`` (see :func:`die_label`): its word when a press rolls
    (None); else the last value rolled, or :data:`WAITING_FACE` before one (a computer's turn
    started with a blank face, as if the die were broken)."""
    if state == "ready":
        return None
    return WAITING_FACE if shown is None or state == "rolling" else shown


def die_label(table: Table, seat: str, state: str, shown: int | str | None) -> str:
    """The die's name for a screen reader: "Roll the die for Ada" (Royal: "Throw") when a
    press plays; else whose turn it is or the face it shows."""
    name = table.name(seat)
    if state == "ready":
        return f"{table.wording.verb.capitalize()} the die for {name}"
    if state == "wait":
        return f"Die: {name}'s turn is starting"
    if state == "rolling":  # (an online guest's roll, on its way to the host)
        return f"{table.wording.verb.capitalize()}ing the die for {name}…"
    return f"Die showing {shown}" if shown is not None else f"Die: {name}'s turn"


def mini_die(value: int | str | None, label: str = "") -> str:
    """A small inline die face (value chips, the move log)."""
    name = f' role="img" aria-label="{escape(label)}"' if label else ' aria-hidden="true"'
    return f'<svg class="mini-die" viewBox="0 0 100 100"{name}>{die_face(value)}</svg>'


def agent_label(table: Table, seat: str) -> str:
    kind = table.kind(seat)
    if kind in COMPUTER_LEVELS:
        return f"computer, {kind}"
    return "online" if kind == "remote" else ""


def turn_html(table: Table, scene: Scene) -> str:
    """Whose turn it is, on one line (a long name is cut short, so the panel never jumps)."""
    if scene.phase == "over":
        if not scene.winners:
            return "<span>The game has ended</span>"
        return ('<span class="turn-lead">Winner:</span>'
                + "".join(badge(table, s) for s in scene.winners))
    seat = scene.turn or ""
    label = agent_label(table, seat)
    who = f'<span class="muted turn-agent">({escape(label)})</span>' if label else ""
    return badge(table, seat, "'s turn") + who


def turn_text(table: Table, scene: Scene) -> str:
    """What :func:`turn_html` shows, as a sentence for a screen reader: built from the names,
    not from the line's text (which holds the swatch's letter, hidden from a screen reader)."""
    if scene.phase == "over":
        if not scene.winners:
            return "The game has ended"
        return "Winner: " + " and ".join(table.name(s) for s in scene.winners)
    seat = scene.turn or ""
    label = agent_label(table, seat)
    return f"{table.name(seat)}'s turn" + (f" ({label})" if label else "")


def listed(words: Sequence[str]) -> str:
    """Words as a sentence lists them: "6", "6 and 3", "6, 6 and 3" (as the announcements
    say "Red plays 6, 6 and 3")."""
    if len(words) < 2:
        return "".join(words)
    return f"{', '.join(words[:-1])} and {words[-1]}"


def next_text(table: Table, scene: Scene) -> str:
    return f"Next: {table.name(scene.next)}" if scene.next and scene.phase != "over" else ""


def prompt(table: Table, scene: Scene, options: Sequence[Choice], waiting: bool = False,
           selected: str | None = None, after_roll: bool = False) -> str:
    """What the player to act should do now, in words (``selected``: the value chip picked).

    The words fit a mouse, a finger and a keyboard alike ("a highlighted token: click or tap
    it, or use the arrow keys and Enter"), not a finger alone ("tap", "glowing"). With
    ``after_roll`` (an announcement that has just said "Ada rolled a 5") the single value is
    not said again ("You rolled a 5")."""
    if scene.phase == "over" or scene.turn is None:
        return ""
    kind = table.kind(scene.turn)
    if kind in COMPUTER_LEVELS:
        return "The computer is playing this turn."
    if kind == "remote":
        return f"Waiting for {table.name(scene.turn)} to play online."
    if any(c.kind == "roll" for c in options):
        return f"Tap {table.wording.dice}, or focus it and press Enter or Space."
    # "You rolled a 4", "You threw a crown", "a highlighted man": the rule set's words
    piece = table.wording.piece
    pick = f"Choose a highlighted {piece}: click or tap it, or use the arrow keys and Enter."
    rolled = ", ".join(d.said or (f"a {d.value}" if str(d.value).isdigit() else f"a {d.label}")
                       for d in scene.dice if d.state in ("rolled", "playable"))
    if len(scene.dice) >= 2:  # a turn of several values: say which are left, which stuck
        left = [str(d.value) for d in scene.dice if d.state in ("playable", "unused")]
        stuck = [str(d.value) for d in scene.dice if d.state == "stranded"]
        rolled = listed(left) + (f" (no move for {listed(stuck)} now)" if stuck else "")
        if waiting or table.auto() is not None:
            return f"To play: {rolled}. The only move plays by itself."
        # a play made with a button beside the chips (Gilgiti's forcing the gate): on a
        # phone it stands below the fold, so the words name it
        also = "".join(f" Or the button below: {c.label.split(':')[0]}." for c in options
                       if not c.pieces and c.kind != "roll")
        if selected is not None and any(c.pieces and c.value == selected for c in options):
            return (f"Playing the {selected}: choose a highlighted {piece} (or another "
                    f"value). Still to play: {rolled}.{also}")
        if any(c.pieces for c in options) and len(set(left)) == 1:  # no value to pick
            return f"To play: {rolled}. {pick}{also}"
        if any(c.pieces for c in options):
            return (f"To play: {rolled}. Choose a value, then a highlighted {piece} (or a "
                    f"{piece}, then a value); arrow keys move among them, Enter plays.{also}")
        return f"To play: {rolled}. Choose one of the moves below." if options else ""
    lead = "" if after_roll else f"You {table.wording.past} {rolled}. "
    if waiting or table.auto() is not None:
        return f"{lead}The only move plays by itself."
    if any(c.pieces for c in options):
        if any(not c.pieces for c in options):  # buttons too (Royal's two crowns)
            return (f"{lead}Choose one of the buttons below, or a highlighted {piece}: click "
                    "or tap it, or use the arrow keys and Enter.")
        return f"{lead}{pick}"
    return "Choose one of the moves below." if options else ""


NOTICE_MS = 4000
"""How long a warning (a turn undone, a timeout) stays over the board."""
NO_MOVE_NOTICE_MS = 1800
"""How long "Red rolled a 4: no move." stays (news: the die has already passed on)."""


class Notice(NamedTuple):
    """A sentence shown over the board for ``ms``; ``quiet``: news rather than a warning,
    drawn without the red."""

    text: str
    ms: float = NOTICE_MS
    quiet: bool = False


def notice(table: Table, events: Sequence[dict[str, Any]]) -> Notice | None:
    """Over the board, what a player must not miss: the events marked ``notice`` (a turn
    undone or cancelled, a timeout), and a roll with no move (which passes the die at once,
    so its face was never seen), with the rule set's reason when it gives one. A rule set
    that says the whole of a roll with no move in one event (``no_move`` on it, as
    Gilgiti's turn undone with nothing played) has that sentence shown as such news."""
    warnings = [text for e in events if e.get("notice") for text in table.narrate([e])]
    lost = [e for e in events if e.get("type") == "no_move"]
    rolled = [text for e in events if e.get("type") == "rolled"
              for text in table.narrate([e])] if lost else []
    news: list[str] = []
    why: list[str] = []
    if rolled:
        why = table.narrate(lost[-1:]) if lost[-1].get("reason") else []
        news.append(" ".join([f"{rolled[-1].rstrip('.')}: no move.", *why]))
    news += [text for e in events if e.get("no_move") and not e.get("notice")
             and e.get("type") != "no_move" for text in table.narrate([e])]
    if len(news) == 1 and not warnings:
        return Notice(news[0], NO_MOVE_NOTICE_MS * (1 + len(why)), quiet=True)
    shown = warnings + news
    return Notice(" ".join(shown)) if shown else None


KEY_HINTS = (", or focus it and press Enter or Space", ", or use the arrow keys and Enter",
             "; arrow keys move among them, Enter plays")
"""The parts of a prompt that are for a keyboard: the hint's markup marks them, and a
touch-only device does not show them (they took two lines of a phone's panel)."""


def prompt_html(text: str) -> str:
    """A prompt as markup, its keyboard parts (:data:`KEY_HINTS`) in ``kbd-hint`` spans."""
    html = escape(text)
    for hint in KEY_HINTS:
        html = html.replace(escape(hint), f'<span class="kbd-hint">{escape(hint)}</span>')
    return html


AWAY = "away"
"""A seat's mark, in the seat list and its box at the board, while its player plays online and
is not connected (app.roomview.away_seats): the status line alone said so."""


def seats_html(table: Table, scene: Scene, away: Collection[str] = ()) -> str:
    """The seat list beside the board; ``away``: the seats marked away (any rule set's)."""
    items = []
    for seat in scene.seats:
        cls = "current" if seat.colour == scene.turn else ""
        if seat.status in ("quit", "eliminated"):
            cls += " out"
        facts = [*([AWAY] if seat.colour in away else []), *seat.facts]
        if seat.colour in away:
            cls += " away"
        label = agent_label(table, seat.colour)
        extra = f" <span class='muted'>({escape(label.split(', ')[-1])})</span>" if label else ""
        team = team_html(scene, seat.team)
        items.append(f'<li class="{cls.strip()}" data-colour="{seat.colour}">'
                     f'{badge(table, seat.colour)}{extra}'
                     f'<span class="meta">{escape(" · ".join(facts))}{team}</span></li>')
    return "".join(items)


def team_html(scene: Scene, team: str | None) -> str:
    """A seat's team: its colours' swatches (the partners') and its name."""
    if not team:
        return ""
    colours = [s.colour for s in scene.seats if s.team == team]
    swatches = "".join(f'<span class="swatch mini {c}" aria-hidden="true">'
                       f'{LETTER.get(c, "?")}</span>' for c in colours)
    return f' · <span class="team" data-team="{escape(team)}">{swatches}team {escape(team)}</span>'


def winners_team(scene: Scene) -> str | None:
    """The team that won, when the winners are exactly one team's seats."""
    teams = {s.team for s in scene.seats if s.colour in scene.winners}
    if len(teams) != 1 or None in teams:
        return None
    team = teams.pop()
    members = {s.colour for s in scene.seats if s.team == team}
    return team if members == set(scene.winners) else None


def pod_html(table: Table, scene: Scene, colour: str, away: bool = False) -> str:
    """A seat's box at its corner of the board: its name, and short facts under it (the first
    fact, such as the tokens home, first; then the computer's level and the partner), each
    whole: they wrap to another line rather than being cut (the count was, after the level).
    The running clock replaces them while the seat acts. ``away``: its player, online, is not
    connected (:data:`AWAY` under the name, the clock or not)."""
    seat = next((s for s in scene.seats if s.colour == colour), None)
    label = agent_label(table, colour).split(", ")[-1]
    # the pod is narrow: "with Bo" says the team in fewer letters than "team Red + Yellow"
    partners = [] if seat is None or not seat.team else \
        [table.name(s.colour) for s in scene.seats if s.team == seat.team and s.colour != colour]
    team = f"with {' and '.join(partners)}" if partners else ""
    parts: tuple[str, ...]
    if seat is not None and seat.status != "playing":
        parts = (seat.status, team)
    else:
        parts = (seat.facts[0] if seat and seat.facts else "", label, team)
    sub = "".join(f'<span class="pod-fact">{escape(x)}</span>' for x in parts if x)
    # (beside the facts, not among them: the running clock hides those on the seat's turn,
    # when whether its player is there matters most)
    mark = f'<span class="pod-away">{AWAY}</span>' if away else ""
    return (f'<span class="swatch {colour}" aria-hidden="true">{LETTER.get(colour, "?")}</span>'
            f'<span class="pod-text"><span class="pod-name">'
            f'<bdi>{escape(table.names.get(colour) or colour.capitalize())}'
            f'</bdi></span>{mark}<span class="pod-sub">{sub}</span>'
            f'<span class="pod-clock" hidden></span></span>')


def choice_buttons_html(options: Sequence[Choice], pieces: Mapping[str, Piece] | None = None,
                        cells: Mapping[str, Cell] | None = None) -> str:
    """Choices a person makes with a button rather than on the board, or a picker's list
    (``pieces`` given: several moves under one tap).

    A picker's button shows a few words: the value as a small die face, the piece when the
    moves are of different pieces, and where it lands ("→ square 8, a star", from ``cells``);
    the whole sentence (which piece, from where, with which value, to where) is its name
    for a screen reader. Shown in full, that sentence took a third of a phone's screen."""
    buttons = []
    moved = {c.pieces for c in options}
    for i, c in enumerate(options):
        text = c.label
        if pieces is None:
            buttons.append(f'<button type="button" class="choice-btn" data-choice="{i}">'
                           f'{escape(text)}</button>')
            continue
        named = "; ".join(pieces[p].label for p in c.pieces if p in pieces)
        # apart from the piece's name, which may end with its block ("…, in a block of 2"):
        # run on, "in a block of 2 with 2" read as two more tokens in the block
        value = f", with the {c.value}" if c.value is not None else ""
        spoken = f"{named}{value}: {c.label}" if named else f"{c.label}{value}"
        spoken = _with_landing(spoken, cells.get(c.target) if cells and c.target else None)
        buttons.append(f'<button type="button" class="choice-btn picker-btn" data-choice="{i}"'
                       f' aria-label="{escape(spoken)}">{_picker_face(c, pieces, cells, moved)}'
                       f'</button>')
    return "".join(buttons)


def _with_landing(spoken: str, cell: Cell | None) -> str:
    """A picker's sentence, and the landing cell as its button shows it when the sentence
    does not say it ("...to square 9 (8 past Red's start); lands on square 9, a star"): the
    words shown are in the name a voice user says (the sentence stays whole: it is what
    the rules engine calls the move)."""
    if cell is None or not cell.label or cell.label in spoken:
        return spoken
    return f"{spoken}; lands on {cell.label}"


def _picker_face(choice: Choice, pieces: Mapping[str, Piece], cells: Mapping[str, Cell] | None,
                 moved: set[tuple[str, ...]]) -> str:
    """A picker's button's visible words (see :func:`choice_buttons_html`)."""
    value = choice.value
    face = int(value) if value is not None and value.isdigit() else value  # pips, as on chips
    parts = [mini_die(face)] if value is not None else []
    if len(moved) > 1:  # which piece, in short: "Red token 2" (its label's first part)
        short = " + ".join(pieces[p].label.split(",")[0] for p in choice.pieces if p in pieces)
        if short:
            parts.append(f'<span class="picker-piece">{escape(short)}</span>')
    cell = cells.get(choice.target) if cells is not None and choice.target else None
    where = f"→ {cell.label}" if cell is not None and cell.label else choice.label
    parts.append(f'<span class="picker-to">{escape(where)}</span>')
    return " ".join(parts)


def dice_html(scene: Scene, selected: str | None, enabled: bool = True) -> str:
    """Value chips for a turn with several values: which are used, playable or stranded.

    A chip is a small die face; pressing one picks the value the next piece plays
    (``selected``, a value as :class:`~ludo.Choice` names it). Two chips of one value
    are one choice: the first that can still be played shows pressed. ``enabled``
    False (not this person's turn to play) shows them all without a press."""
    if len(scene.dice) < 2:
        return ""
    chips = []
    pressed_one = False
    for i, die in enumerate(scene.dice):
        usable = enabled and die.state in ("playable", "unused")
        pressed = usable and not pressed_one and selected == str(die.value)
        pressed_one = pressed_one or pressed
        word = "chosen" if pressed else CHIP_WORDS.get(die.state, die.state)
        # The word shown is hidden from a screen reader, so the name must hold it (label in
        # name): a label that is only the value gets it after it, and so does a rule set's
        # "6, to play" once the chip is chosen (it was still named "to play")
        spoken = die.label if word in die.label else f"{die.label}, {word}"
        chips.append(
            f'<button type="button" class="chip chip-{die.state}"'
            f' data-value="{escape(str(die.value))}" data-index="{i}"'
            f' aria-pressed="{"true" if pressed else "false"}"'
            + ("" if usable else " disabled")
            + f' aria-label="{escape(spoken)}">{mini_die(die.value)}'
            f'<span class="chip-state" aria-hidden="true">{escape(word)}</span></button>')
    return "".join(chips)


CHIP_WORDS = {"used": "played", "playable": "to play", "stranded": "not now", "rolled": "rolled"}
"""The word under a value chip (its label says the same to a screen reader). A value with no
legal move now is "not now", not "stuck": it is shown only while another value can be played
(with none, the turn has gone back already), which may free it, and the seed's "stuck" is the
turn going back (seed 003, "All or nothing")."""


def details_seats_html(table: Table, scene: Scene) -> str:
    """Each seat, who plays it when not a person here ("(computer, easy)"), and its facts."""
    items = []
    for s in scene.seats:
        agent = agent_label(table, s.colour)
        who = f" ({escape(agent)})" if agent else ""
        items.append(f"<li><bdi>{escape(table.name(s.colour))}</bdi>{who}: "
                     f"{escape(', '.join(s.facts))}</li>")
    return "".join(items)


def rules_html(table: Table, scene: Scene) -> str:
    lines = list(scene.summary)
    if not table.session.timer:
        lines = [line for line in lines if not line.startswith("With the turn clock")]
        lines.append("Turn timer off for this game.")
    elif round(table.turn_seconds) != round(TURN_SECONDS):  # (as the clock says it: whole s)
        # a clock set by the page's address (`?turn_seconds=`; online, the host's): the rules'
        # summary says the clock this table runs, so a guest learns the host's setting too
        seconds = round(table.turn_seconds)
        said = f"{seconds} second{'s' if seconds != 1 else ''}"
        usual = f"{TURN_SECONDS:.0f} seconds"
        lines = [line.replace(usual, said, 1) + f" This table's clock is set to {said}, not "
                 f"the usual {usual}." if line.startswith("With the turn clock") else line
                 for line in lines]
    return "".join(f"<li>{escape(line)}</li>" for line in lines)


def log_groups(history: History) -> list[tuple[str | None, list[Mapping[str, Any]]]]:
    """The actions' events grouped by turn: consecutive actions in one seat's turn."""
    groups: list[tuple[str | None, list[Mapping[str, Any]]]] = []
    for seat, events in history:
        if groups and groups[-1][0] == seat:
            groups[-1][1].extend(events)
        else:
            groups.append((seat, list(events)))
    return groups


def log_item(table: Table, seat: str | None, events: Sequence[Mapping[str, Any]]) -> str:
    """One turn of the move log: who, the rolls as dice, then what happened ("" if nothing)."""
    rolls = "".join(mini_die(e.get("value"), f"{table.wording.past} {e.get('value')}")
                    for e in events if e.get("type") == "rolled")
    told = [text for e in events if e.get("type") not in ("rolled", "turn")
            for text in table.narrate([dict(e)])]
    if not rolls and not told:
        return ""
    who = badge(table, seat) if seat else ""
    return (f'<li class="log-turn"><span class="log-who">{who}</span>'
            f'<span class="log-rolls">{rolls}</span>'
            f'<span class="log-text">{escape(" ".join(told))}</span></li>')


def log_html(table: Table, history: History, first: str = "", limit: int = 150,
             cache: dict[tuple[int, int], str] | None = None) -> str:
    """The move log, newest turn first. ``cache`` keeps turns already told (a turn is told
    again only when it has grown), so a long game's log costs little to redraw."""
    groups = log_groups(history)
    items = []
    for index in range(len(groups) - 1, max(-1, len(groups) - 1 - limit), -1):
        seat, events = groups[index]
        key = (index, len(events))
        item = cache.get(key) if cache is not None else None
        if item is None:
            item = log_item(table, seat, events)
            if cache is not None:
                cache[key] = item
        items.append(item)
    if first:
        items.append(f'<li class="log-turn log-start">{escape(first)}</li>')
    return "".join(items)


def quit_text(table: Table) -> str:
    """The quit dialog's text, saying only what applies here: on a device shared with other
    people who play on, that they keep playing; else that the one who quits goes Home; and
    with only two seats left, that the other one wins and the match ends."""
    leave = table.leave
    return leave.text_at_device(shared=len(table.people_in_play()) > 1,
                                last_two=not leave.ends_match and len(table.active_seats()) == 2)


def quit_options_html(table: Table, seats: Sequence[str], default: str) -> str:
    return "".join(f'<option value="{s}"{" selected" if s == default else ""}>'
                   f"{escape(table.name(s))}</option>" for s in seats)


PLAY_AGAIN = "Play again with the same seats?"
"""The winner dialog's last sentence, beside its Rematch button."""


def winner_text(table: Table, again: str = PLAY_AGAIN) -> tuple[str, str]:
    """The winner dialog's title and text, ending with ``again``: how to play again."""
    won = table.winners()
    if not won:
        return "The game has ended", f"Nobody won this match. {again}"
    names = " and ".join(table.name(s) for s in won)
    verb = "win" if len(won) > 1 else "wins"
    scene = table.scene()
    team = winners_team(scene)
    if team is not None:
        return (f"Team {team} wins!",
                f"{names} got all their {table.wording.pieces} home. {again}")
    finished = {s.colour for s in scene.seats if s.status == "finished"}
    if set(won) <= finished:
        pieces = table.wording.pieces
        how = f"got all their {pieces} home" if len(won) > 1 else f"got all four {pieces} home"
    else:
        how = "is the last player remaining"
    return f"{names} {verb}!", f"{names} {how}. {again}"


_STANDING = {"finished": 1, "playing": 2, "resting": 2, "quit": 3, "eliminated": 3}


def standings_html(table: Table) -> str:
    """Every seat at the end, the winners first, then those still playing, then those who
    left; each with its facts (tokens home and so on). Within a group, the most tokens home
    first (the list is numbered: in seat order a seat with one token home stood above one with
    two); seat order breaks ties."""
    scene = table.scene()
    won = scene.winners
    order = sorted(scene.seats, key=lambda s: (0 if s.colour in won else
                                               _STANDING.get(s.status, 2), -s.home))
    items = []
    for seat in order:
        facts = (("winner",) if seat.colour in won else ()) + seat.facts
        items.append(f'<li class="{"won" if seat.colour in won else seat.status}">'
                     f'{badge(table, seat.colour)}'
                     f'<span class="meta">{escape(" · ".join(facts))}'
                     f'{team_html(scene, seat.team)}</span></li>')
    return "".join(items)


def _in_progress(table: Table) -> str:
    """"A Courtyard game is in progress (3 players; Ada (red) to play)." """
    turn = table.name(table.seat_to_act or "")
    return (f"A {table.title} game is in progress ({len(table.active_seats())} players; "
            f"{turn} to play).")


def replace_text(table: Table, online: str | None = None) -> str:
    """The question before Start game replaces the game in progress. ``online``: the part this
    device has in an online match under way ("host", "guest" with a seat, "watcher" with none in
    play; None otherwise), which
    a new game here does not end: it said "it cannot be resumed" of a match that goes on, whose
    seat is kept and timed (seed 000, rule 11: "Home saves your seat ... timers keep running")
    and which the room's link brings back."""
    if online == "host":
        return (f"{_in_progress(table)} This device runs the online match: while a new game is "
                "played here, the match waits, paused for everybody, until you open the room's "
                "link here again.")
    if online == "guest":
        return (f"{_in_progress(table)} A new game here takes this device out of the online "
                "match, but not your seat: it is kept and its clock keeps running, as when you "
                "go Home, and the room's link brings you back to it. To leave the match, use "
                f"{table.leave.button}.")
    if online == "watcher":  # no seat of this device plays: the others' match goes on
        return (f"{_in_progress(table)} This device only watches the online match: it goes on "
                "without you, and the room's link lets you watch it again.")
    return f"{_in_progress(table)} A new game replaces it, and it cannot be resumed."


def _new_game_here(online: str | None) -> str:
    """The home note's last words: what Start game does to the game in progress."""
    if online == "host":
        return " Starting a new game here pauses it for everybody until you open its link again."
    if online == "guest":
        return " Starting a new game here keeps your seat and its clock running; the link " \
            "brings you back."
    if online == "watcher":
        return " Starting a new game here leaves it to the others; the link lets you watch again."
    return " Starting a new game replaces it."


def resume_text(table: Table, online: str | None = None) -> tuple[str, str]:
    """The home screen's note about the game in progress, and its button (``online``: as for
    :func:`replace_text`)."""
    if table.over:
        left = table.left_by()
        if left is not None:  # a leave that ended the match for everybody
            return (f"The last {table.title} game ended when {table.name(left)} left: nobody "
                    "won.", "See the table")
        won = table.winners()
        who = " and ".join(table.name(s) for s in won) if won else "nobody"
        return f"The last {table.title} game is over: {who} won.", "See the table"
    if not table.people_in_play() and any(table.kind(s) == "human" for s in table.record.seats):
        # everyone here has quit or been eliminated: they can watch, not play (rule 11: "You
        # cannot rejoin as an active player"), so the button does not offer to resume
        return (f"{_in_progress(table)} Nobody here plays in it any more: the others play on."
                f"{_clock_runs(table)}{_new_game_here(online)}", "Watch the game")
    return (f"{_in_progress(table)}{_clock_runs(table)}{_new_game_here(online)}",
            "Watch the game" if online == "watcher" else "Resume game")


def _clock_runs(table: Table) -> str:
    # only people have a clock (computers never time out), and only when the game has one
    return " Its clock keeps running." if table.session.timer and any(
        table.kind(s) not in COMPUTER_LEVELS for s in table.active_seats()) else ""


def rules_resume_text(table: Table | None) -> str | None:
    """The rules screen's note while a game is in progress (its clock does not stop while the
    rules are read); None when there is no game to go back to."""
    if table is None or table.over:
        return None
    return f"{_in_progress(table)}{_clock_runs(table)}"
