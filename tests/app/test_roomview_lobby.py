"""The room screen's words before the match (app.roomview): which game the room plays, what to
do next once every seat is taken, what the host is told as friends arrive, and who is here."""

from __future__ import annotations

from typing import Any

from app.roomview import game_line, lobby_hint, lobby_html, seat_news


def lobby(rules: str = "courtyard", taken: tuple[str, ...] = (), here: tuple[str, ...] = (),
          seats: tuple[str, ...] = ("red", "yellow"), options: dict[str, Any] | None = None,
          ) -> dict[str, Any]:
    rows = [{"seat": "red", "kind": "person", "name": "Hana", "taken": False, "here": False}]
    rows += [{"seat": s, "kind": "online", "name": f"{s.title()}y", "taken": s in taken,
              "here": s in here} for s in seats[1:]]
    return {"rules": rules, "options": options or {}, "timer": True, "seats": rows,
            "started": False, "you": None}


def test_the_room_says_which_game_it_plays() -> None:
    assert game_line(lobby()) == "Game: Courtyard, 2 players."
    assert game_line(lobby("royal", seats=("red", "green", "yellow"))) == \
        "Game: Royal, 3 players."
    four = ("red", "green", "yellow", "blue")
    assert game_line(lobby("gilgiti", seats=four, options={"teams": True})) == \
        "Game: Gilgiti, 4 players, Teams: Red + Yellow vs Green + Blue."
    assert game_line(lobby("gilgiti", seats=four, options={"teams": False})) == \
        "Game: Gilgiti, 4 players."
    assert game_line(lobby("no such rules")) == ""  # a host's lobby is not trusted


def test_the_hint_says_what_next_once_every_seat_is_taken() -> None:
    waiting, full = lobby(), lobby(taken=("yellow",))
    assert lobby_hint(waiting, True, None, False).startswith("Send the link")
    assert lobby_hint(full, True, None, False) == "Every online seat is taken: start the match."
    assert lobby_hint(full, False, "yellow", False) == \
        "You have a seat. Every seat is taken: the host starts the match."
    assert lobby_hint(full, False, None, False) == \
        "Every seat is taken: you can watch the match."
    assert lobby_hint(waiting, False, None, False) == \
        "Pick a free seat and enter your name, or watch."


def test_the_host_is_told_as_friends_take_seats() -> None:
    three = ("red", "green", "yellow")
    assert seat_news({}, lobby(seats=three)) == []
    assert seat_news({}, lobby(seats=three, taken=("green",))) == ["Greeny (green) took a seat."]
    assert seat_news({"green": "Greeny"}, lobby(seats=three, taken=("green", "yellow"))) == [
        "Yellowy (yellow) took a seat.",
        "Every online seat is taken: you can start the match."]
    assert seat_news({"green": "Greeny", "yellow": "Yellowy"},
                     lobby(seats=three, taken=("green", "yellow"))) == []


def test_a_seat_whose_friend_left_shows_away_after_the_lobby_said_here() -> None:
    # a guest's lobby said yellow was here; the host's later presence says it is not
    seen = lobby(taken=("yellow",), here=("yellow",))
    assert "(away)" in lobby_html(seen, {}, False, None, connected=[])
    assert "(connected)" in lobby_html(seen, {}, False, None, connected=["yellow"])
    # "connected", not "here": on a guest's own screen "here" read as "on this device"
    assert "(here)" not in lobby_html(seen, {}, False, None, connected=["yellow"])


def test_the_host_is_told_when_a_friend_gives_a_seat_back() -> None:
    three = ("red", "green", "yellow")
    assert seat_news({"green": "Bo", "yellow": "Yusuf"}, lobby(seats=three, taken=("green",))) \
        == ["Yusuf (yellow) left their seat."]


def test_a_tab_that_stepped_aside_says_what_the_tab_that_plays_does_with_its_room() -> None:
    # (docs/online.md, "The game opened again in a second tab of the same browser": before,
    # every case read "This room is open in another tab of this browser.")
    from app.roomview import ASIDE_SAME, aside_text

    back = "Play here brings this room back to this tab."
    assert aside_text(True, True, False) == ASIDE_SAME == (
        "This room is open in another tab of this browser. Play here brings it back to "
        "this tab.")
    assert aside_text(False, True, True) == \
        f"Another tab of this browser has another online room open now. {back}"
    assert aside_text(False, True, False) == \
        f"Another tab of this browser plays now, not this room. {back}"
    gone = "Another tab of this browser has left this room, which this device no longer keeps."
    assert aside_text(False, False, True) == \
        f"{gone} Play here opens that tab's room in this tab."
    assert aside_text(False, False, False) == \
        f"{gone} Play here plays this device's own game in this tab."


def test_during_the_match_a_seat_that_left_is_listed_out_and_its_player_told_so() -> None:
    """Seed 000, rule 11: "You cannot rejoin as an active player." A guest who quit and opened
    the room's link again found "Join the online room" with their seat listed as "Gusy
    (here)" and no word that they were out: as if they could take part again. The seats the
    match has lost now say so, and the guest is told they can only watch."""
    from app.roomview import left_hint

    started = dict(lobby(seats=("red", "green", "yellow"), taken=("green", "yellow"),
                         here=("green", "yellow")), started=True)
    html = lobby_html(started, {}, False, "green", connected=["green", "yellow"],
                      out={"green": "quit", "red": "eliminated"})
    assert "Greeny</bdi> <span class='muted'>· quit</span>" in html
    assert "(connected)" in html.split("data-seat='yellow'")[1]  # still in: present as before
    assert "Hana</bdi> <span class='muted'>(on the host's device)</span> <span class='muted'>· " \
        "eliminated</span>" in html
    assert html.count("(connected)") == 1
    assert left_hint("quit") == ("You quit this match: you can watch it at the table, but not "
                                 "play in it again.")
    assert left_hint("eliminated").startswith(
        "Your seat was removed from this match after five timeouts:")
    assert left_hint(None) == ""
    # once the match is over the seat is theirs in a rematch (Room.rematch keeps every
    # connected holder): "not play in it again" was wrong then
    assert left_hint("quit", over=True) == (
        "You quit this match, which is over now. If the host starts a rematch while you are "
        "here, you play in it.")
    assert left_hint(None, over=True) == ""
