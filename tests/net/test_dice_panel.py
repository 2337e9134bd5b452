"""The Dice panel names whoever a roll was settled without, each name isolated (<bdi>): a
guest's name written right to left, or a participant id a host made up, must not reorder the
rest of the note (net review, finding 9)."""

from __future__ import annotations

from app.roomview import dice_panel_html
from net.record import Throw


def test_the_names_a_roll_was_settled_without_are_each_isolated():
    names = {"green": "\u05d3\u05e0\u05d4", "yellow": "Yara"}  # a Hebrew name, and a Latin one
    throw = Throw(7, "red", 4, (1, 2, 3, 4, 5, 6), ("green", "yellow"))
    html = dice_panel_html([throw], ("red", "green", "yellow"), names, dropped=[7])
    assert "(without <bdi>\u05d3\u05e0\u05d4 (green)</bdi>, <bdi>Yara (yellow)</bdi>)" in html
    assert "your reveal was not counted" in html


def test_a_name_with_markup_is_escaped_inside_its_isolation():
    throw = Throw(3, "red", 6, (1, 2, 3, 4, 5, 6), ("green",))
    html = dice_panel_html([throw], ("red", "green"), {"green": "<b>x</b>"})
    assert "(without <bdi>&lt;b&gt;x&lt;/b&gt; (green)</bdi>)" in html
