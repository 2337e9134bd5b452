"""No input is dropped without a sign, and none carries over to the next player.

After the turn passes the die is closed for a short handover, and it looks it; presses that
keep coming keep it closed, so a roll is always meant for the seat the die shows. Clicking
the token of an automatic move plays it at once. (The page runs with the normal pause
before automatic moves, so the handover is on.)
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page
from playwright.sync_api import TimeoutError as PlaywrightTimeout
from test_app_play import SAVE_KEY, _new_page, start_game

from ludo import record_from_json, replay

# Click the die at 0, 100 and 300 ms after the turn passes (and once more at 700 ms): for
# each click, whether the die looked disabled at that moment and whether it rolled.
AFTER_HANDOVER_JS = """
async () => {
  const die = document.getElementById('die');
  const position = () => window.ludo.position();
  const turn = () => JSON.parse(position()).turn;
  const click = () => die.dispatchEvent(new MouseEvent('click', {bubbles: true, detail: 1}));
  const first = turn();
  click();
  const started = performance.now();
  while (turn() === first) {  // a roll with no move passes at once; else its auto-move does
    if (performance.now() - started > 4000) return null;
    await new Promise(r => setTimeout(r, 2));
  }
  const t0 = performance.now();
  const seen = [];
  for (const at of [0, 100, 300, 700]) {
    await new Promise(r => setTimeout(r, Math.max(0, t0 + at - performance.now())));
    const before = position();
    const style = getComputedStyle(die);
    const looks = {waiting: die.getAttribute('aria-disabled') === 'true' || die.disabled,
                   opacity: parseFloat(style.opacity), label: die.getAttribute('aria-label')};
    click();
    seen.push({at: Math.round(performance.now() - t0), planned: at, ...looks,
               rolled: position() !== before,
               said: document.getElementById('announcer').textContent});
  }
  return seen;
}
"""


# Every press the player makes (Enter, or a pointer going down), wherever it lands, as the
# page saw it just before the app did: when, the seat the die showed, whether it showed it
# ready, and the record's length then. A press's rolls are those recorded before the next.
WATCH_JS = """
() => {
  const count = () => JSON.parse(localStorage.getItem(SAVE_KEY)).record.actions.length;
  window.__presses = [];
  const seen = () => {
    const d = document.getElementById('die');
    window.__presses.push({t: performance.now(), seat: d.dataset.seat,
                           ready: d.classList.contains('ready'), before: count()});
  };
  document.addEventListener('keydown', e => { if (e.key === 'Enter') seen(); }, true);
  document.addEventListener('pointerdown', seen, true);
}
"""
QUIET_MS = 250  # app.browser.dicebox.QUIET_MS
LATE_MS = 60  # a click this much later than planned tests other timings than the ones meant


@pytest.fixture(scope="module")
def table(browser: Browser, server_url: str) -> Iterator[Page]:
    page = _new_page(browser, server_url + "?auto_delay=300&pace_ms=0")
    page.evaluate(WATCH_JS.replace("SAVE_KEY", repr(SAVE_KEY)))
    try:
        yield page
    finally:
        page.context.close()


def _record(page: Page) -> dict:
    return json.loads(page.evaluate(f"localStorage.getItem({SAVE_KEY!r})"))["record"]


def _to_a_roll(page: Page) -> None:
    """Play on (choosing the first glowing token) until the seat to act must roll."""
    for _ in range(100):
        if json.loads(page.evaluate("window.ludo.position()"))["phase"] == "roll":
            return
        tokens = page.locator("#board .token.movable")
        if tokens.count() > 1:
            try:  # the tokens of an automatic move glow too: it may play (and they go) first
                tokens.first.click(timeout=2000)
            except PlaywrightTimeout:
                continue
        else:
            page.wait_for_timeout(50)  # an automatic move
    raise AssertionError("no roll came up")


def test_a_click_just_after_the_turn_passes_rolls_or_the_die_looks_disabled(
        table: Page) -> None:
    start_game(table, ["red", "yellow"])
    runs = 0
    for _ in range(30):
        _to_a_roll(table)
        table.wait_for_timeout(600)  # any handover over
        seen = table.evaluate(AFTER_HANDOVER_JS)
        if seen is None:  # the roller rolled again (a six): try the next turn
            continue
        if any(c["at"] - c["planned"] > LATE_MS for c in seen):
            continue  # the page's timers ran late (a loaded machine): not the clicks planned
        runs += 1
        for click in seen:
            # each click either rolled, or the die was visibly disabled at that moment
            assert click["rolled"] or (click["waiting"] and click["opacity"] <= 0.6), seen
            if not click["rolled"]:  # and a screen reader hears why nothing happened
                assert "starting" in click["label"] and "Not yet" in click["said"], seen
        # presses during the handover keep the die closed; the next deliberate one rolls
        assert [c["rolled"] for c in seen[:3]] == [False, False, False], seen
        assert seen[3]["rolled"], seen
        if runs >= 3:
            break
    assert runs >= 3, "too few tries with the clicks on time (a loaded machine?)"


def _hammer(page: Page, press, interval_ms: float, seconds: float) -> list[dict]:
    """Press every ``interval_ms`` for ``seconds``; the die's clicks as the page saw them."""
    page.evaluate("window.__presses = []")
    tick = time.monotonic()
    end = tick + seconds
    while time.monotonic() < end:
        press()
        tick += interval_ms / 1000
        time.sleep(max(0.0, tick - time.monotonic()))
    presses = page.evaluate("window.__presses")
    final = len(_record(page)["actions"])
    for press, following in zip(presses, presses[1:] + [{"before": final}], strict=True):
        press["after"] = following["before"]
    return presses


def _check_presses(page: Page, presses: list[dict]) -> bool:
    """Every roll was made by a press that saw the die ready for the seat that rolled; and
    within an unbroken run of presses (no pause as long as the die's quiet time) only the
    seat that was rolling when the run began rolls. Returns whether the turn passed to
    another seat during such a run (so the test saw a handover under fire)."""
    record = record_from_json(_record(page))
    states = replay(record)
    rolls = {i: states[i].turn for i, a in enumerate(record.actions) if a.type == "roll"}
    handed_over = False
    for k, press in enumerate(presses):
        if k == 0 or press["t"] - presses[k - 1]["t"] >= QUIET_MS:
            rolling = states[press["before"]].turn  # a new run of presses begins
        handed_over |= states[press["before"]].turn != rolling
        for i in range(press["before"], press["after"]):
            if i in rolls:
                assert press["ready"] and rolls[i] == press["seat"], (press, rolls[i])
                assert rolls[i] == rolling, f"a roll carried over to the next player: {press}"
    return handed_over


@pytest.mark.parametrize("how,interval", [("enter", 35), ("click", 100)])
def test_rapid_presses_never_roll_for_the_next_player(table: Page, how: str,
                                                      interval: int) -> None:
    passes = 0
    for _ in range(6):
        start_game(table, ["red", "yellow"])
        # a new game opens with the handover too (its presses would keep the die closed)
        table.wait_for_function("document.getElementById('die').classList.contains('ready')")
        table.focus("#die")

        def press() -> None:
            if how == "enter":
                table.keyboard.press("Enter")
            else:
                box = table.locator("#die").bounding_box()
                table.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)

        passes += _check_presses(table, _hammer(table, press, interval, 2.5))
        if passes >= 2:
            break
    assert passes >= 2, "the turn never passed while the presses went on"
    # once the presses stop, the next player's first press rolls
    table.wait_for_timeout(700)
    state = json.loads(table.evaluate("window.ludo.position()"))
    if state["phase"] == "roll":
        before = table.evaluate("window.ludo.position()")
        table.locator("#die").click()
        assert table.evaluate("window.ludo.position()") != before


def test_clicking_the_token_of_an_automatic_move_plays_it_at_once(browser: Browser,
                                                                  server_url: str) -> None:
    # the automatic move waits 5 s (the most the page allows): the click plays it first
    page = _new_page(browser, server_url + "?auto_delay=5000&pace_ms=0")
    try:
        start_game(page, ["red", "yellow"])
        for _ in range(200):
            state = json.loads(page.evaluate("window.ludo.position()"))
            if state["phase"] == "move":
                break
            page.click("#die")
        else:
            pytest.skip("no roll with a move came up")
        # the only move would play by itself in 5 s; its glowing token plays it now
        token = page.locator("#board .token.movable").first
        before = page.evaluate("window.ludo.position()")
        token.click()
        assert page.evaluate("window.ludo.position()") != before
    finally:
        page.context.close()


def _neighbours_ahead() -> str:
    """A saved game in which red, a person, may move either of two tokens on neighbouring
    squares, to different places."""
    from app.savegame import Session, encode
    from ludo import Action, Record, distinct_moves, new_game, play, scene

    for seed in range(1, 400):
        state = new_game("courtyard", ("red", "yellow"), seed)
        record = Record("courtyard", state.seats, seed)
        for count in range(400):
            if state.phase == "over":
                break
            if state.phase == "move" and state.turn == "red" and len(distinct_moves(state)) > 1:
                cells = {c.id: c for c in scene(state).board.cells}
                where = {p.id: cells[s.place] for s in scene(state).stacks for p in s.pieces}
                tokens = [where[f"red-{m.token}"] for m in distinct_moves(state)]
                if any(a.kind != "yard" and b.kind != "yard" and a.id != b.id
                       and max(abs(a.x - b.x), abs(a.y - b.y)) == 1
                       for a in tokens for b in tokens):
                    return encode(Session(record=record, timer=False, screen="table"))
            action = Action("roll") if state.phase == "roll" else \
                distinct_moves(state)[(seed + count) % len(distinct_moves(state))]
            record, state, _ = play(record, state, action)
    raise AssertionError("no such position came up")


@pytest.fixture
def neighbours(browser: Browser, server_url: str) -> Iterator[Page]:
    """A table where two movable tokens stand on neighbouring squares."""
    save = _neighbours_ahead()
    context = browser.new_context(reduced_motion="reduce", viewport={"width": 360, "height": 740})
    context.add_init_script(
        f"if (!sessionStorage.getItem('p')) {{ sessionStorage.setItem('p', '1');"
        f" localStorage.setItem({SAVE_KEY!r}, {save!r}); }}")
    page = context.new_page()
    try:
        page.goto(server_url + "?auto_delay=0#table")
        page.wait_for_selector('html[data-ready="1"]', state="attached", timeout=60_000)
        page.wait_for_selector("#board .token.movable")
        yield page
    finally:
        context.close()


def _between_two_tokens(page: Page) -> tuple[float, float]:
    """A point between two movable tokens on neighbouring squares, off both discs."""
    point = page.evaluate("""() => {
      const boxes = [...document.querySelectorAll('#board .token.movable .rim')]
        .map(e => e.getBoundingClientRect());
      for (const a of boxes) for (const b of boxes) {
        const x = (a.x + a.width / 2 + b.x + b.width / 2) / 2;
        const y = (a.y + a.height / 2 + b.y + b.height / 2) / 2;
        if (a !== b && JSON.parse(window.ludo.taps(x, y)).length === 2) return [x, y];
      }
      return null; }""")
    assert point is not None
    return point[0], point[1]


def test_a_tap_between_two_tokens_offers_a_picker(neighbours: Page) -> None:
    page = neighbours
    point = _between_two_tokens(page)
    before = page.evaluate("window.ludo.position()")
    page.mouse.click(*point)
    buttons = page.locator("#choices button")
    assert buttons.count() == 2
    assert page.evaluate("window.ludo.position()") == before  # nothing played yet
    assert page.locator("#board .token.selected").count() == 2
    assert page.evaluate("document.activeElement.dataset.choice") == "0"
    # a few words shown (which token, where to); the whole sentence is the button's name
    shown = buttons.first.inner_text()
    assert shown.startswith("Red token") and "→" in shown and len(shown) < 40
    assert "moves to" in buttons.first.get_attribute("aria-label")
    buttons.nth(1).click()
    assert page.evaluate("window.ludo.position()") != before
    assert page.locator("#choices button").count() == 0


def test_escape_cancels_a_picker_and_goes_back_to_the_token(neighbours: Page) -> None:
    page = neighbours
    point = _between_two_tokens(page)
    tapped = json.loads(page.evaluate(f"window.ludo.taps({point[0]}, {point[1]})"))
    before = page.evaluate("window.ludo.position()")
    page.mouse.click(*point)
    assert page.locator("#choices button").count() == 2
    assert page.evaluate("document.activeElement.dataset.choice") == "0"
    page.keyboard.press("Escape")
    # closed, nothing played, said, and the focus back on the board: on a tapped token
    assert page.locator("#choices button").count() == 0
    assert page.locator("#board .token.selected").count() == 0
    assert page.evaluate("window.ludo.position()") == before
    assert page.inner_text("#announcer").startswith("Choice cancelled.")
    focused = page.evaluate("document.activeElement.matches('#board .token.movable') && "
                            "document.activeElement.dataset.piece")
    assert focused in tapped
    # by keyboard from there: Enter on that token plays (one move per token here), and
    # Escape with nothing open does nothing
    page.keyboard.press("Escape")
    assert page.evaluate("window.ludo.position()") == before
    assert page.evaluate("document.activeElement.dataset.piece") == focused
    page.keyboard.press("Enter")
    page.wait_for_function("b => window.ludo.position() !== b", arg=before)
