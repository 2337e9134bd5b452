"""The setup form in the page: settings into the form, the form into a new game's settings.

The markup and the checking of values live in :mod:`app.setup` (pure); this
module only reads and writes the form's elements.
"""

from __future__ import annotations

from typing import Any

from ludo import RULESETS

from .. import setup
from ..table import COMPUTER_LEVELS
from . import storage
from .dom import el, js

SETTINGS_KEY = "courtyard-ludo/settings"


def remembered() -> dict[str, Any]:
    """The setup form as last set in this browser (saved on every change of it since e6f9385,
    not only at Start game; checked, defaults if damaged)."""
    return setup.read_settings(storage.get(SETTINGS_KEY))


def remember(settings: dict[str, Any]) -> None:
    from pyscript import window

    storage.put(SETTINGS_KEY, window.JSON.stringify(js(settings)))


def _form() -> Any:
    return el("setup")


def _field(name: str) -> Any:
    return _form().querySelector(f'[name="{name}"]')


def build(bots_available: bool) -> None:
    el("seat-rows").innerHTML = setup.seat_rows_html(bots_available)


def checked_seats() -> list[str]:
    return [str(b.value) for b in _form().querySelectorAll('input[name="seat"]') if b.checked]


def chosen_rules() -> str:
    for radio in _form().querySelectorAll('input[name="rules"]'):
        if radio.checked and not radio.disabled and str(radio.value) in RULESETS:
            return str(radio.value)
    return setup.default_rules()


def fill(settings: dict[str, Any], bots_available: bool) -> None:
    """Show the remembered settings in the form."""
    for radio in _form().querySelectorAll('input[name="rules"]'):
        radio.checked = radio.value == settings["rules"] and not radio.disabled
    for box in _form().querySelectorAll('input[name="seat"]'):
        box.checked = box.value in settings["seats"]
    for colour in setup.all_colours():
        _field(f"name-{colour}").value = settings["names"].get(colour, "")
        kind = settings["players"].get(colour, "human")
        _field(f"kind-{colour}").value = kind if bots_available or kind == setup.ONLINE \
            else "human"
    for box in _form().querySelectorAll(".rule-option input"):
        name = str(box.name).removeprefix("option-")
        box.checked = bool(settings["options"].get(name, setup.option_default(name)))
    el("opt-timer").checked = bool(settings["timer"])
    el("opt-pace").value = settings["pace"]
    sync()


def sync() -> None:
    """Player count follows the ticked seats; options show where they apply; a seat's name
    and player fields take part only while the seat is ticked."""
    _seat_fields_follow_their_boxes()
    n = len(checked_seats())
    for radio in _form().querySelectorAll('input[name="players"]'):
        radio.checked = int(radio.value) == n
    rules = chosen_rules()
    for label in _form().querySelectorAll(".rule-option"):
        fits = rules in str(label.dataset.rules).split() and \
            str(n) in str(label.dataset.players).split()
        label.hidden = not fits
    _lock_the_clock_online()


def _seat_fields_follow_their_boxes() -> None:
    """An unticked seat's name and player fields are disabled: no Tab stops for a seat that
    does not play. Their values stay (read still reads them, so they are remembered) and
    come back into play when the seat is ticked again."""
    for row in _form().querySelectorAll(".seat-row"):
        ticked = bool(row.querySelector('input[name="seat"]').checked)
        for field in row.querySelectorAll('input[type="text"], select'):
            field.disabled = not ticked


def _lock_the_clock_online() -> None:
    """Ticked and locked while a seat is Online (setup.clock_required), with the reason shown."""
    players = {colour: str(_field(f"kind-{colour}").value) for colour in checked_seats()}
    box = el("opt-timer")
    required = setup.clock_required(players)
    if required:
        box.checked = True
    box.disabled = required
    el("timer-note").hidden = not required


# Whether the person ticked or unticked the turn timer themselves since the page opened: then
# choosing another rule set keeps their choice instead of that rule set's default.
_timer_chosen = False


def _state() -> dict[str, Any]:
    """What :func:`setup.changes_told` compares: the controls the form changes by itself."""
    count = next((int(r.value) for r in _form().querySelectorAll('input[name="players"]')
                  if r.checked), None)
    box = el("opt-timer")
    options = [(" ".join(str(label.textContent).split()),
                bool(label.querySelector("input").checked))
               for label in _form().querySelectorAll(".rule-option") if not label.hidden]
    return {"seats": checked_seats(), "players": count, "timer": bool(box.checked),
            "timer_locked": bool(box.checked) and bool(box.disabled), "options": options}


def on_change(event: Any) -> str:
    """The form follows a person's change; returns what else it changed, in words for the
    announcer ("" if nothing): unticking a seat changes the number of players, a rule set
    its timer default, an online seat ticks and locks the timer."""
    before = _state()
    _follow(event)
    target = event.target
    changed = "timer" if str(target.id) == "opt-timer" else \
        "seats" if str(target.name) == "seat" else str(target.name)
    return setup.changes_told(before, _state(), changed)


def _follow(event: Any) -> None:
    global _timer_chosen
    target = event.target
    name = str(target.name)
    if str(target.id) == "opt-timer":
        _timer_chosen = True
    if name == "players":
        # a player count picks the usual colours for that many players
        chosen = RULESETS[chosen_rules()].seating(int(target.value))
        for box in _form().querySelectorAll('input[name="seat"]'):
            box.checked = box.value in chosen
    elif name == "rules" and not _timer_chosen:
        el("opt-timer").checked = RULESETS[chosen_rules()].timer_default
    sync()
    el("setup-error").hidden = True


def read(settings: dict[str, Any]) -> str | None:
    """The form's choices into ``settings``; an error message if they cannot start a game."""
    seats = checked_seats()
    rules = RULESETS[chosen_rules()]
    if not rules.min_players <= len(seats) <= rules.max_players:
        return f"Choose {rules.min_players} to {rules.max_players} colours to play."
    names = {}
    players = {}
    for colour in setup.all_colours():
        name = setup.clean_name(str(_field(f"name-{colour}").value))
        if name:
            names[colour] = name
        kind = str(_field(f"kind-{colour}").value)
        if kind in COMPUTER_LEVELS or kind == setup.ONLINE:
            players[colour] = kind
    options = {str(box.name).removeprefix("option-"): bool(box.checked)
               for box in _form().querySelectorAll(".rule-option input")
               if not box.closest(".rule-option").hidden}
    pace = str(el("opt-pace").value)
    settings.update(rules=rules.name, seats=seats, names=names, players=players,
                    timer=bool(el("opt-timer").checked),
                    pace=pace if pace in setup.PACES else "normal",
                    options={k: v for k, v in options.items()
                             if k in {o.name for o in rules.options}})
    return None


def show_error(message: str) -> None:
    error = el("setup-error")
    error.textContent = message
    error.hidden = False
