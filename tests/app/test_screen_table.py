"""The table screen's controls as Screen.draw_table leaves them, in CPython: the page's
app.browser.screen imported against stand-in pyscript modules, its elements stand-ins that
keep what is written to them."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Iterator
from typing import Any
from unittest import mock

import pytest

from app.table import Table
from ludo import quit_seat
from tests import pyscript_stand_ins


class Element(mock.MagicMock):
    """A page element: any attribute or call works; ``hidden`` and ``textContent`` start as
    the page's markup has them (shown, with no words) and keep what is set."""

    def __init__(self, *args: Any, **kw: Any) -> None:
        super().__init__(*args, **kw)
        self.hidden = False
        self.textContent = ""


@pytest.fixture
def screen_module(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    pyscript_stand_ins.install(monkeypatch, mock.MagicMock(), mock.MagicMock())
    for name in [n for n in sys.modules if n.startswith("app.browser")]:
        monkeypatch.delitem(sys.modules, name)
    module = importlib.import_module("app.browser.screen")
    elements: dict[str, Element] = {}
    monkeypatch.setattr(module, "el", lambda name: elements.setdefault(name, Element()))
    module.elements = elements
    yield module
    for name in [n for n in sys.modules if n.startswith("app.browser")]:
        del sys.modules[name]


def drawn(module: Any, table: Table) -> dict[str, Any]:
    """The elements after the table is drawn (the board, boxes and die drawn elsewhere)."""
    screen = module.Screen.__new__(module.Screen)
    screen.drawn = {}
    screen.told = {}
    screen.draw_board = screen.draw_pods = screen.draw_die = lambda *a, **kw: None
    screen.draw_table(table, (), (), None, "", "off")
    return module.elements


@pytest.mark.parametrize("rules", ["courtyard", "royal", "gilgiti"])
def test_a_game_that_is_over_has_no_quit_button(screen_module: Any, rules: str) -> None:
    """Quit game (Gilgiti's Leave game) stood under a finished game, shown and pressable, and
    pressing it did nothing (Controller.on_quit returns for a game that is over): a player
    who pressed it, or a screen reader's user who found it, was told nothing at all."""
    table = Table.new(rules, ("red", "green", "yellow"), 7, 0.0, timer=False)
    assert not drawn(screen_module, table)["btn-quit"].hidden  # in play: there to press
    for seat in ("red", "green") if rules != "gilgiti" else ("red",):
        table.submit(seat, quit_seat(seat), 0.0)
    assert table.over
    assert drawn(screen_module, table)["btn-quit"].hidden
