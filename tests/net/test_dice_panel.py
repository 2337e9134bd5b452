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


def test_the_hosts_early_timeouts_seen_here_are_said_and_kept_across_a_reload():
    import json

    from app.room import GuestRoom

    throw = Throw(3, "red", 6, (1, 2, 3, 4, 5, 6), ())
    html = dice_panel_html([throw], ("red", "green"), {"green": "\u05d3\u05e0\u05d4"},
                           early={"green": 2})
    assert "by this device's clock: <bdi>\u05d3\u05e0\u05d4 (green)</bdi> 2." in html
    assert "early-timeouts" not in dice_panel_html([throw], ("red", "green"), {})
    room = GuestRoom("q2Vf0pX9cE7wR1sT4uY8zA", "ab" * 32, "Bo", lambda text: None)
    room.early_timeouts = {"green": 2}
    again = GuestRoom.restore(json.loads(json.dumps(room.to_json())), lambda text: None)
    assert again.early_timeouts == {"green": 2}
    data = room.to_json()
    for bad in ([], {"green": "2"}, {"green": -1}, {"green": True}, {"x" * 40: 1}):
        data["earlyTimeouts"] = bad
        assert GuestRoom.restore(data, lambda text: None).early_timeouts == {}
