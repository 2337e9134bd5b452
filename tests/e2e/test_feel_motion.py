"""Rolls and moves are seen: the die tumbles, a piece hops square by square along its path,
a captured piece is sent back once the mover has landed, and the last move stays marked;
with reduced motion nothing moves; sounds play, and the audio rests between them; the sound
switch is remembered."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page
from test_app_play import BOOT_TIMEOUT_MS, SAVE_KEY

from app.savegame import Session, encode
from ludo import Action, Record, apply, distinct_moves, new_game, play


def _capture_ahead() -> tuple[str, Action, int, str]:
    """A saved game in which red, a person, must choose between moves and one captures;
    that move, how many squares it walks and the piece it sends back."""
    for seed in range(1, 400):
        state = new_game("courtyard", ("red", "yellow"), seed)
        record = Record("courtyard", state.seats, seed)
        for count in range(600):
            if state.phase == "over":
                break
            if state.phase == "move" and state.turn == "red":
                moves = distinct_moves(state)
                for move in moves:
                    _, events = apply(state, move)
                    caught = [e for e in events if e["type"] == "captured"]
                    walked = [e for e in events if "path" in e]
                    if len(moves) > 1 and caught and len(walked[0]["path"]) > 2:
                        colour, token = caught[0]["victims"][0]
                        session = Session(record=record, timer=False, screen="table")
                        return (encode(session), move, len(walked[0]["path"]) - 1,
                                f"{colour}-{token}")
            action = Action("roll") if state.phase == "roll" else \
                distinct_moves(state)[(seed + count) % len(distinct_moves(state))]
            record, state, _ = play(record, state, action)
    raise AssertionError("no capture came up")


SAVE, MOVE, STEPS, VICTIM = _capture_ahead()

# Every animation the page starts is logged as it starts: reading document.getAnimations()
# after the click raced the animations themselves (a 660 ms hop was over before a loaded
# machine got to read it).
LOG_ANIMATIONS_JS = """
window.startedAnimations = [];
const animate = Element.prototype.animate;
Element.prototype.animate = function (frames, timing) {
  const animation = animate.call(this, frames, timing);
  window.startedAnimations.push(animation);
  return animation;
};
"""

ANIMATIONS_JS = """
() => window.startedAnimations.splice(0).filter(a => a.effect && a.effect.target).map(a => {
  const target = a.effect.target;
  const token = target.closest && target.closest('.token');
  return {piece: token ? token.dataset.piece : target.id,
          frames: a.effect.getKeyframes().length, delay: a.effect.getTiming().delay,
          duration: a.effect.getTiming().duration};
})
"""


# Every audio context the page makes, and how many notes (oscillators) were made in them.
LOG_AUDIO_JS = """
window.audioLog = {notes: 0, contexts: []};
const Made = window.AudioContext;
window.AudioContext = class extends Made {
  constructor(...args) { super(...args); window.audioLog.contexts.push(this); }
};
const createOscillator = BaseAudioContext.prototype.createOscillator;
BaseAudioContext.prototype.createOscillator = function () {
  window.audioLog.notes += 1;
  return createOscillator.call(this);
};
"""


def _open(browser: Browser, server_url: str, motion: str, *scripts: str) -> Page:
    context = browser.new_context(reduced_motion=motion)
    context.add_init_script(LOG_ANIMATIONS_JS)
    for script in scripts:
        context.add_init_script(script)
    context.add_init_script(
        f"if (!sessionStorage.getItem('m')) {{ sessionStorage.setItem('m', '1');"
        f" localStorage.setItem({SAVE_KEY!r}, {SAVE!r}); }}")
    page = context.new_page()
    page.console_errors = []
    page.on("pageerror", lambda e: page.console_errors.append(str(e)))
    page.goto(server_url + "?auto_delay=0#table")
    page.wait_for_selector('html[data-ready="1"]', state="attached", timeout=BOOT_TIMEOUT_MS)
    page.wait_for_selector("#board .token.movable")
    return page


@pytest.fixture
def moving(browser: Browser, server_url: str) -> Iterator[Page]:
    page = _open(browser, server_url, "no-preference")
    try:
        yield page
    finally:
        page.context.close()


def _play_the_capture(page: Page) -> list[dict]:
    before = page.evaluate("window.ludo.position()")
    page.locator(f"#tok-red-{MOVE.token}").click()
    page.wait_for_function("before => window.ludo.position() !== before", arg=before)
    return page.evaluate(ANIMATIONS_JS)


def test_a_move_hops_along_its_path_the_captured_piece_goes_back_after_and_the_die_tumbles(
        moving: Page) -> None:
    # the pulses that call for a choice (the tokens' halos, the turn's glow) run a few times
    # and then rest: none is endless, so an idle table does not repaint (and drain a phone's
    # battery) for as long as it stays open
    pulses = moving.evaluate(
        "document.getAnimations().filter(a => a.animationName)"
        ".map(a => [a.animationName, String(a.effect.getTiming().iterations)])")
    assert {"halo", "glow"} <= {name for name, _ in pulses}, pulses
    assert all(count != "Infinity" and float(count) <= 5 for _, count in pulses), pulses
    running = _play_the_capture(moving)
    mover = [a for a in running if a["piece"] == f"red-{MOVE.token}"]
    victim = [a for a in running if a["piece"] == VICTIM]
    assert mover and mover[0]["frames"] == 2 * STEPS + 1, running
    assert victim and victim[0]["delay"] >= mover[0]["duration"] > 0, running
    # the last move stays marked: where it started, the squares passed, where it ended
    assert moving.locator("#overlay-layer .last-from").count() == 1
    assert moving.locator("#overlay-layer .last-to").count() == 1
    assert moving.locator("#overlay-layer .last-step").count() == STEPS - 1
    # the capture earned another roll: the die tumbles
    moving.wait_for_function("JSON.parse(window.ludo.position()).phase === 'roll'")
    moving.click("#die")
    assert any(a["piece"] == "die-face" for a in moving.evaluate(ANIMATIONS_JS))
    assert moving.console_errors == []


def test_with_reduced_motion_nothing_moves(browser: Browser, server_url: str) -> None:
    page = _open(browser, server_url, "reduce")
    try:
        running = _play_the_capture(page)
        assert [a for a in running if a["piece"] in (f"red-{MOVE.token}", VICTIM)] == []
        assert page.locator("#overlay-layer .last-to").count() == 1
    finally:
        page.context.close()


def test_sounds_play_and_the_audio_rests_between_them(browser: Browser,
                                                      server_url: str) -> None:
    """A running audio context keeps the browser's audio threads working even in silence
    (about 2% of a core per page in Chromium; a phone's battery): the page suspends it a
    little after a sound ends, and the next sound resumes it."""
    page = _open(browser, server_url, "no-preference", LOG_AUDIO_JS)
    state = "window.audioLog.contexts.map(c => c.state).join()"
    try:
        # one context, made at boot (headless Chromium lets it start without a press): with no
        # sound to play it rests
        page.wait_for_function(f"{state} === 'suspended'", timeout=10_000)
        assert page.evaluate("window.audioLog.notes") == 0
        _play_the_capture(page)  # hops, and the knock of the capture
        page.wait_for_function(f"{state} === 'running'", timeout=5_000)
        played = page.evaluate("window.audioLog.notes")
        assert played >= STEPS, played
        page.wait_for_function(f"{state} === 'suspended'", timeout=10_000)
        page.click("#die")  # the capture's extra roll: its rattle wakes the audio again
        page.wait_for_function(f"{state} === 'running'", timeout=5_000)
        assert page.evaluate("window.audioLog.notes") > played
        page.wait_for_function(f"{state} === 'suspended'", timeout=10_000)
        # muted: no notes at all
        page.locator("#btn-sound").click()
        played = page.evaluate("window.audioLog.notes")
        page.wait_for_selector("#board .token.movable")
        before = page.evaluate("window.ludo.position()")
        page.locator("#board .token.movable").first.click()
        page.wait_for_function("before => window.ludo.position() !== before", arg=before)
        page.wait_for_timeout(800)
        assert page.evaluate("window.audioLog.notes") == played
        assert page.evaluate(state) == "suspended"
        assert page.console_errors == []
    finally:
        page.context.close()


def test_the_sound_switch_is_remembered(moving: Page) -> None:
    button = moving.locator("#btn-sound")
    assert button.get_attribute("aria-pressed") == "true"
    button.click()
    assert button.get_attribute("aria-pressed") == "false" and "off" in button.inner_text()
    # one name whatever its state: the state is the pressed flag, not a changing name
    assert moving.get_by_role("button", name="Sound", exact=True).count() == 1
    moving.reload()
    moving.wait_for_selector('html[data-ready="1"]', state="attached", timeout=BOOT_TIMEOUT_MS)
    assert moving.locator("#btn-sound").get_attribute("aria-pressed") == "false"
    moving.locator("#btn-sound").click()
    assert moving.locator("#btn-sound").get_attribute("aria-pressed") == "true"
