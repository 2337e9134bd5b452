"""The setup form: the remembered settings, read as hostile input, and the form's markup.

Pure Python (tested in CPython). What the browser stores may have been written
by an older version, another tab, an extension or a person with the developer
tools: every value is checked, and anything unknown falls back to the default,
so no stored setting can stop the app from booting or starting a game.
"""

from __future__ import annotations

from html import escape
from typing import Any

from ludo import RULESETS, LudoError
from ludo.notation import load_json
from net.protocol import clean_name

from .table import COMPUTER_LEVELS

PACES = {"slow": 1300, "normal": 700, "fast": 250}
"""A computer's pause before it acts, in ms."""
MAX_SETTINGS_BYTES = 16_000
# A player's name is kept as the network keeps it (one rule, net.protocol.clean_name, imported
# above): printable, no bidi controls, at most 20 whole characters and 40 code points (what a
# save and the online protocol accept: six family emoji are 6 characters but 42 code points).
PLAYER_CHOICES = (("human", "Human"), ("easy", "Computer: Easy"),
                  ("medium", "Computer: Medium"), ("hard", "Computer: Hard"),
                  ("online", "Online: a friend joins by link"))
ONLINE = "online"  # a seat left open for a friend: the game becomes an online room


def clock_required(players: dict[str, str]) -> bool:
    """Whether the table must run the turn clock whatever the form says: an online room does,
    so that a friend whose connection is lost cannot stop the match (the house rules: "Losing
    your connection does not immediately make you leave; accumulated timeouts can still
    eliminate you")."""
    return ONLINE in players.values()


def _and(words: list[str]) -> str:
    return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} and {words[-1]}"


def changes_told(before: dict[str, Any], after: dict[str, Any], changed: str) -> str:
    """What the form changed by itself when a person changed one control (``changed``: the
    field they changed, "seats", "players" or "timer"; any other name for the rest), in one
    sentence for the screen reader's announcer; "" when nothing else changed.

    ``before`` and ``after`` are the form's state: "seats" (the ticked colours, clockwise),
    "players" (the number of players ticked, None when none is), "timer" (ticked) and
    "timer_locked" (ticked and disabled: an online seat needs the clock) and "options" (the
    rule-set options offered: (label, ticked) pairs). The person's own change is not said:
    their screen reader has just said it."""
    told = []
    if changed != "seats" and before["seats"] != after["seats"]:
        colours = [c.capitalize() for c in after["seats"]]
        told.append(f"Colours playing: {_and(colours)}." if colours else "No colour ticked.")
    if changed != "players" and before["players"] != after["players"]:
        told.append(f"Number of players: {after['players']}." if after["players"] is not None
                    else "Number of players: none chosen.")
    if after["timer_locked"] and not before["timer_locked"]:
        told.append("Turn timer on: online rooms always run it.")
    elif before["timer_locked"] and not after["timer_locked"]:
        told.append("Turn timer can be switched off again.")
    elif changed != "timer" and before["timer"] != after["timer"]:
        told.append(f"Turn timer {'on' if after['timer'] else 'off'}.")
    # a rule set's option appears or goes with the rule set and the number of players
    # ("options": the labels offered, each with whether it is ticked)
    was, now = _offered(before), _offered(after)
    for label, ticked in now.items():
        if label not in was:
            told.append(f"{_option_name(label)} option offered, {'on' if ticked else 'off'}.")
    told += [f"{_option_name(label)} option no longer offered." for label in was
             if label not in now]
    return " ".join(told)


def _offered(form: dict[str, Any]) -> dict[str, bool]:
    return dict(form.get("options", ()))  # label -> ticked


def _option_name(label: str) -> str:
    return label.split(":", 1)[0].strip()  # "Teams: Red + Yellow vs Green + Blue" -> "Teams"


def default_rules() -> str:
    return next(iter(RULESETS))


def all_colours() -> tuple[str, ...]:
    """Every colour a seat can have, clockwise (the largest seating of any rule set)."""
    return max((r.seating(r.max_players) for r in RULESETS.values()), key=len)


def defaults() -> dict[str, Any]:
    rules = RULESETS[default_rules()]
    return {"rules": rules.name, "seats": list(rules.seating(2)), "names": {}, "players": {},
            "timer": rules.timer_default, "pace": "normal", "options": {}}


def option_default(name: str) -> bool:
    """Whether the setup form ticks a rule-set option the player has not chosen yet."""
    return any(o.default for r in RULESETS.values() for o in r.options if o.name == name)


def read_settings(raw: str | None) -> dict[str, Any]:
    """The remembered settings from their stored text; each bad value replaced by its default.

    Nothing stored may stop the page from booting: should a check below still miss a shape of
    value, the defaults are used rather than the error reaching the page."""
    try:
        return _read_settings(raw)
    except Exception:  # noqa: BLE001 - the last guard of the boot path; every value is hostile
        return defaults()


def _read_settings(raw: str | None) -> dict[str, Any]:
    settings = defaults()
    if raw is None:
        return settings
    try:
        data = load_json(raw, "settings", MAX_SETTINGS_BYTES)
    except LudoError:
        return settings
    if not isinstance(data, dict):
        return settings
    colours = all_colours()
    rules = data.get("rules")
    if isinstance(rules, str) and rules in RULESETS:
        settings["rules"] = rules
    seats = data.get("seats")
    if isinstance(seats, list) and all(isinstance(s, str) for s in seats):
        chosen = [c for c in colours if c in seats]
        if 2 <= len(chosen) <= 4:
            settings["seats"] = chosen
    names = data.get("names")
    if isinstance(names, dict):
        settings["names"] = {c: clean_name(n) for c, n in names.items()
                             if c in colours and isinstance(n, str) and clean_name(n)}
    players = data.get("players")
    if isinstance(players, dict):
        settings["players"] = {c: k for c, k in players.items() if c in colours
                               and isinstance(k, str) and (k in COMPUTER_LEVELS or k == ONLINE)}
    if isinstance(data.get("timer"), bool):
        settings["timer"] = data["timer"]
    pace = data.get("pace")
    if isinstance(pace, str) and pace in PACES:  # (a stored list or object is not hashable)
        settings["pace"] = pace
    options = data.get("options")
    if isinstance(options, dict):
        known = {o.name for r in RULESETS.values() for o in r.options}
        settings["options"] = {k: v for k, v in options.items()
                               if k in known and isinstance(v, bool)}
    return settings


def seat_rows_html(bots_available: bool = True) -> str:
    """One row per colour: take the seat, the player's name, person or computer."""
    kinds = [(k, label) for k, label in PLAYER_CHOICES
             if k in ("human", ONLINE) or bots_available]
    options = "".join(f'<option value="{k}">{label}</option>' for k, label in kinds)
    rows = []
    for colour in all_colours():
        title = colour.capitalize()
        rows.append(
            f'<div class="seat-row" data-colour="{colour}">'
            f'<label class="choice"><input type="checkbox" name="seat" value="{colour}">'
            f'<span class="swatch {colour}" aria-hidden="true">{title[0]}</span>{title}</label>'
            f'<input type="text" name="name-{colour}" maxlength="200" dir="auto" '
            f'autocomplete="off" placeholder="{title}" aria-label="{title} name">'
            f'<select name="kind-{colour}" aria-label="{title} player">{options}</select></div>')
    return "".join(rows)


def rules_choices_html() -> str:
    """The rule-set radio buttons, one per registered rule set."""
    return "".join(
        f'<label class="choice"><input type="radio" name="rules" value="{r.name}"'
        f'{" checked" if i == 0 else ""}> {escape(r.title)} '
        f'<span class="muted">{escape(r.summary)}</span></label>'
        for i, r in enumerate(RULESETS.values()))


def options_html() -> str:
    """A checkbox per rule-set option (shown only for the rule set and player counts it fits)."""
    seen: dict[str, Any] = {}
    for rules in RULESETS.values():
        for option in rules.options:
            seen.setdefault(option.name, (option, []))[1].append(rules.name)
    return "".join(
        f'<label class="choice rule-option" data-rules="{" ".join(names)}" '
        f'data-players="{" ".join(map(str, option.players))}" hidden>'
        f'<input type="checkbox" name="option-{option.name}"> {escape(option.label)}</label>'
        for option, names in seen.values())


def rules_pages_html() -> str:
    """The rules screen's rule sets, in registration order, each under its own heading (an
    h3 under the screen's h2 "House rules", named as the header's link is), so that a screen
    reader's list of headings shows them side by side; a seed's own name for its game and its
    label over the rules (``Help.heading``, ``Help.kicker``) where it gives them."""
    parts = []
    for rules in RULESETS.values():
        help_ = rules.help
        parts.append(f'<section class="rules-page" data-rules="{rules.name}"'
                     f' aria-labelledby="rules-{rules.name}">'
                     f'<h3 id="rules-{rules.name}">{escape(help_.heading or rules.title)}</h3>'
                     + (f'<p class="kicker">{escape(help_.kicker)}</p>' if help_.kicker else "")
                     + f'<p class="lead">{escape(help_.lead)}</p>')
        if help_.rules:
            parts.append('<ol class="rules">' + "".join(
                f"<li><strong>{escape(t)}</strong> {escape(text)}</li>"
                for t, text in help_.rules) + "</ol>")
        parts += [f'<p class="note">{escape(note)}</p>' for note in help_.notes]
        parts.append("</section>")
    return "".join(parts)
