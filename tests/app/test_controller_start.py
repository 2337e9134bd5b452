"""A new game's first press, in CPython: the page's controller (app.browser.controller,
imported against stand-in pyscript modules) with its real die input (DieInput, DieGate) on a
clock the test moves, and stand-ins for the screen and the save."""

from __future__ import annotations

import importlib
import sys
import types
from collections.abc import Iterator
from typing import Any
from unittest import mock

import pytest

from tests import pyscript_stand_ins


@pytest.fixture
def modules(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Any, Any]]:
    pyscript_stand_ins.install(monkeypatch, mock.MagicMock(), mock.MagicMock())
    for name in [n for n in sys.modules if n.startswith("app.browser")]:
        monkeypatch.delitem(sys.modules, name)
    yield (importlib.import_module("app.browser.controller"),
           importlib.import_module("app.browser.dicebox"))
    for name in [n for n in sys.modules if n.startswith("app.browser")]:
        del sys.modules[name]


@pytest.mark.parametrize("rules", ["courtyard", "royal", "gilgiti"])
def test_a_second_press_of_start_or_rematch_does_not_roll_in_the_new_game(
        modules: tuple[Any, Any], monkeypatch: pytest.MonkeyPatch, rules: str) -> None:
    """Start game (or the winner's Rematch) pressed twice, Enter 50-150 ms apart, rolled the
    new game's first die before its table was seen: the focus had gone to the die, and the
    second press rolled ('Red starts.' then at once 'Red rolled a 4. Red has no move.').
    A new game opens as a turn handed over does: its die waits, and presses must pause."""
    controller, dicebox = modules
    now = [10_000.0]
    monkeypatch.setattr(dicebox, "clock_ms", lambda: now[0])
    monkeypatch.setattr(dicebox, "Timeout", lambda *a, **kw: None)
    monkeypatch.setattr(controller, "later", lambda fn: None)  # the table is shown later
    ctl = controller.Controller.__new__(controller.Controller)
    ctl.table = None
    ctl.turn_seconds = 30
    ctl.auto = types.SimpleNamespace(cancel=lambda: None)
    ctl.screen = mock.MagicMock()
    ctl.save = lambda: None
    rolls: list[str] = []
    ctl.die = dicebox.DieInput(1200, lambda: ctl.table.seat_to_act if ctl.table else None,
                               lambda: rolls.append("roll"), lambda: None, lambda: None)
    ctl.start_game(rules, ("red", "green"), {}, {}, False, {})
    assert ctl.table is not None and ctl.table.local_person_to_act()
    assert ctl.die.state() == "wait"  # it looks disabled, and is
    now[0] += 100  # the second press of the button, on the die now
    assert not ctl.die.gate.press(now[0])
    now[0] = ctl.die.gate.open_at  # the handover over, and the presses paused: a press rolls
    assert ctl.die.state() == "ready" and ctl.die.gate.press(now[0])


def test_a_second_press_of_resume_does_not_roll(modules: tuple[Any, Any],
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """Resume game (or the rules' Back to the game) pressed twice, Enter 80 ms apart, rolled
    with the second press as the table came: 0 actions, then 2 (a 6 and its move). The table
    shown again opens with the die's handover, as a new game does."""
    controller, dicebox = modules
    now = [50_000.0]
    monkeypatch.setattr(dicebox, "clock_ms", lambda: now[0])
    monkeypatch.setattr(dicebox, "Timeout", lambda *a, **kw: None)
    monkeypatch.setattr(controller, "show_only", lambda *a: None)
    page = types.SimpleNamespace(location=types.SimpleNamespace(hash="#home"),
                                 history=mock.MagicMock(), scrollTo=lambda *a: None)
    monkeypatch.setattr(controller, "window", page)
    ctl = controller.Controller.__new__(controller.Controller)
    ctl.table = controller.Table.new("royal", ("red", "green"), 5, 0.0, timer=False)
    ctl.table.session.screen = "home"
    ctl.page_shown = "home"
    ctl.save = ctl.draw = ctl.leave_other_screens = lambda *a: None
    ctl.focus_page = lambda page_shown: None
    ctl.die = dicebox.DieInput(1200, lambda: ctl.table.seat_to_act, lambda: None,
                               lambda: None, lambda: None)
    assert ctl.die.state() == "ready"  # at Home, long after the last turn passed
    page.location.hash = "#table"
    ctl.route()
    assert ctl.page_shown == "table" and ctl.die.state() == "wait"
    now[0] += 80
    assert not ctl.die.gate.press(now[0])
    page.location.hash = "#rules"
    ctl.route()
    assert ctl.page_shown == "rules"
