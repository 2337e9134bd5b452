"""The table on a phone, in landscape and on a desktop, light and dark: nothing overflows,
every choice can be hit with a finger, the board and its controls fit on one screen, and
tokens stand out on every square.

The page shows the same saved game every time (tools/screenshots.py's demo: four seats, a
20-character name without break points, a person to choose among several tokens).
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page
from test_app_play import BOOT_TIMEOUT_MS

from app.savegame import encode
from tools.screenshots import LONG_NAME, SAVE_KEY, SIZES, demo_session

SCHEMES = ("light", "dark")
MIN_TARGET = 44  # CSS px, WCAG 2.5.5

# Everything laid out on the page that pokes out to the right of the viewport.
OVERFLOW_JS = """
() => {
  const width = document.documentElement.clientWidth;
  const out = [];
  for (const el of document.querySelectorAll('body *')) {
    const r = el.getBoundingClientRect();
    if (r.width === 0 && r.height === 0) continue;
    if (r.right > width + 0.5) out.push(`${el.tagName}#${el.id}.${el.className.baseVal ??
                                          el.className} right=${r.right.toFixed(1)}`);
  }
  return {scroll: document.documentElement.scrollWidth, width, out: out.slice(0, 8)};
}
"""

# Each movable token's hit square, and what a tap at its centre and near its corners means.
HITS_JS = """
() => [...document.querySelectorAll('#board .token.movable')].map(t => {
  const r = t.querySelector('.hit').getBoundingClientRect();
  const at = (x, y) => JSON.parse(window.ludo.taps(x, y));
  const i = 2;
  return {piece: t.dataset.piece, w: r.width, h: r.height,
          taps: [at(r.x + r.width / 2, r.y + r.height / 2), at(r.left + i, r.top + i),
                 at(r.right - i, r.top + i), at(r.left + i, r.bottom - i),
                 at(r.right - i, r.bottom - i)]};
})
"""

BOX_JS = """
sel => [...document.querySelectorAll(sel)].filter(e => e.offsetParent !== null)
  .map(e => { const r = e.getBoundingClientRect();
              return {id: e.id || e.textContent.trim().slice(0, 20), w: r.width, h: r.height,
                      top: r.top, bottom: r.bottom, left: r.left, right: r.right}; })
"""


@pytest.fixture(scope="module")
def page(browser: Browser, server_url: str) -> Iterator[Page]:
    context = browser.new_context(reduced_motion="reduce")
    save = encode(demo_session(seconds_left=3600))
    context.add_init_script(
        f"if (!sessionStorage.getItem('demo')) {{ sessionStorage.setItem('demo', '1');"
        f" localStorage.setItem({SAVE_KEY!r}, {save!r}); }}")
    page = context.new_page()
    page.console_errors = []
    page.on("pageerror", lambda e: page.console_errors.append(str(e)))
    page.goto(server_url + "#table")
    page.wait_for_selector('html[data-ready="1"]', state="attached", timeout=BOOT_TIMEOUT_MS)
    page.wait_for_selector("#board .token.movable")
    try:
        yield page
    finally:
        context.close()


def _at(page: Page, width: int, height: int, scheme: str, screen: str = "table") -> None:
    page.emulate_media(color_scheme=scheme)
    page.set_viewport_size({"width": width, "height": height})
    page.evaluate(f"location.hash = '#{screen}'")
    page.wait_for_selector(f"#screen-{screen}:not([hidden])")
    page.wait_for_timeout(150)  # the resize redraw
    page.evaluate("window.scrollTo(0, 0)")


def _no_overflow(page: Page) -> None:
    found = page.evaluate(OVERFLOW_JS)
    assert found["scroll"] <= found["width"] and found["out"] == [], found


def test_at_200_percent_zoom_the_board_stays_playable(page: Page) -> None:
    # 1280x800 at 200% is a 640x400 landscape viewport: the panel's column beside the board
    # once squeezed it to 120 px (tokens of 6 px); now the panel goes below it
    _at(page, 640, 400, "light")
    _no_overflow(page)
    board = page.evaluate(BOX_JS, "#board")[0]
    assert board["w"] >= 300 and board["top"] >= 0 and board["bottom"] <= 400.5, board
    for hit in page.evaluate(HITS_JS):
        assert hit["w"] >= MIN_TARGET and hit["h"] >= MIN_TARGET, hit


@pytest.mark.parametrize("scheme", SCHEMES)
@pytest.mark.parametrize("width,height", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
def test_the_table_fits_and_every_choice_is_big_enough(page: Page, width: int, height: int,
                                                       scheme: str) -> None:
    _at(page, width, height, scheme)
    _no_overflow(page)
    hits = page.evaluate(HITS_JS)
    assert len(hits) >= 2, "the demo position offers several tokens"
    for hit in hits:
        assert hit["w"] >= MIN_TARGET and hit["h"] >= MIN_TARGET, hit
        for taps in hit["taps"]:  # anywhere in it, the tap means this token (or a picker)
            assert hit["piece"] in taps, hit
    controls = page.evaluate(BOX_JS, "#die, #screen-table button, #dice button")
    for box in controls:
        assert box["w"] >= MIN_TARGET and box["h"] >= MIN_TARGET, box
    # the seats' boxes show their facts whole (wrapped, never "easy · 1/4 ho…"), the home
    # count first
    facts = page.evaluate("""() => [...document.querySelectorAll('.pod .pod-sub')]
      .filter(e => e.offsetParent !== null).map(sub => [...sub.children].map(f =>
        ({text: f.textContent, cut: f.scrollWidth > f.clientWidth + 0.5})))""")
    assert facts and all(box[0]["text"].endswith("home") for box in facts), facts
    assert not any(f["cut"] for box in facts for f in box), facts
    # the board, the die, whose turn and the clock on one screen, without scrolling
    for selector in ("#board", "#die", "#turn", "#timer"):
        box = page.evaluate(BOX_JS, selector)[0]
        assert box["top"] >= 0 and box["bottom"] <= height + 0.5, (selector, box)
        assert box["left"] >= 0 and box["right"] <= width + 0.5, (selector, box)
    assert page.console_errors == []


@pytest.mark.parametrize("width,height", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
def test_the_home_screen_fits_with_a_long_name(page: Page, width: int, height: int) -> None:
    _at(page, width, height, "light", "home")
    green = page.locator('input[name="seat"][value="green"]')
    was_ticked = green.is_checked()
    green.set_checked(True)  # an unticked seat's name field is disabled
    page.fill('[name="name-green"]', LONG_NAME)
    _no_overflow(page)
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    for box in page.evaluate(BOX_JS, "#setup button, #btn-resume, .top-nav a"):
        assert box["h"] >= 32, box
    # Start game in view without scrolling (it stays at the window's bottom edge)
    start = page.evaluate(BOX_JS, "#btn-start")[0]
    assert start["top"] >= 0 and start["bottom"] <= height + 0.5, start
    # the heading has the focus for a screen reader, without a ring that looks like a field
    page.focus("#home-title")  # as focus_screen does (tabindex -1 set when Home was shown)
    assert page.evaluate("document.activeElement.id") == "home-title"
    assert page.evaluate("getComputedStyle(document.activeElement).outlineStyle") == "none"
    if width < height:  # a phone held upright: the board is a small preview above the form,
        # whose heading starts in the top half of the screen (below a full board it did not)
        title = page.evaluate(BOX_JS, "#home-title")[0]
        board = page.evaluate(BOX_JS, "#board")[0]
        assert title["top"] < height / 2 and board["w"] <= 0.6 * width + 0.5, (title, board)
    page.fill('[name="name-green"]', "")
    green.set_checked(was_ticked)


# Whether the focused element's centre shows: what is drawn there is it (or its label).
FOCUS_SHOWN_JS = """
() => {
  const e = document.activeElement, r = e.getBoundingClientRect();
  const x = r.left + r.width / 2, y = r.top + r.height / 2;
  if (y < 0 || y > innerHeight || x < 0 || x > innerWidth) return 'outside the window';
  const hit = document.elementFromPoint(x, y);
  if (hit && (e.contains(hit) || [...(e.labels || [])].some(l => l.contains(hit)))) return '';
  return hit ? `under ${hit.tagName}#${hit.id}` : 'nothing there';
}
"""


@pytest.mark.parametrize("width,height", [(360, 740), (1280, 800)], ids=["360x740", "1280x800"])
def test_tab_through_the_form_never_hides_the_focus_under_start_game(
        page: Page, width: int, height: int) -> None:
    """Start game stays at the window's bottom edge; a field that Tab scrolls into view
    stopped just under it (Gilgiti's teams box, a phone's last name field), out of sight."""
    _at(page, width, height, "light", "home")
    rules = page.locator('input[name="rules"]:checked').get_attribute("value")
    seats = {c: page.locator(f'input[name="seat"][value="{c}"]').is_checked()
             for c in ("red", "green", "yellow", "blue")}
    page.check('input[name="rules"][value="gilgiti"]')
    for colour in seats:
        page.locator(f'input[name="seat"][value="{colour}"]').set_checked(True)
    page.focus('input[name="rules"][value="gilgiti"]')
    hidden, stops = [], 0
    while page.evaluate("document.activeElement.id") != "btn-start" and stops < 40:
        page.keyboard.press("Tab")
        stops += 1
        where = page.evaluate(FOCUS_SHOWN_JS)
        if where:
            hidden.append((page.evaluate("document.activeElement.outerHTML.slice(0, 80)"), where))
    assert stops < 40 and page.locator('input[name="option-teams"]').is_visible()
    assert hidden == []
    page.check(f'input[name="rules"][value="{rules}"]')
    for colour, ticked in seats.items():
        page.locator(f'input[name="seat"][value="{colour}"]').set_checked(ticked)


def test_the_move_log_is_not_cut_on_a_phone(page: Page) -> None:
    """A phone scrolls the page, not a box in it: a box cut its last entry in half."""
    _at(page, 360, 740, "light")
    page.click("#btn-details")
    try:
        page.wait_for_selector("#log li")
        assert page.locator("#log li").count() > 10  # a log longer than a screen's box
        cut = page.evaluate("(() => { const l = document.getElementById('log');"
                            " return l.scrollHeight - l.clientHeight; })()")
        assert cut <= 1
    finally:
        page.click("#btn-details")


def test_a_long_name_without_break_points_does_not_widen_a_narrow_page(page: Page) -> None:
    _at(page, 360, 740, "light")
    assert LONG_NAME in page.inner_text("#seats")
    _no_overflow(page)
    # the turn line stays one line whoever plays (no jump at a turn change)
    height = page.evaluate("document.getElementById('turn').getBoundingClientRect().height")
    assert height <= 34


def _luminance(rgb: tuple[float, float, float]) -> float:
    lin = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4
           for c in (v / 255 for v in rgb)]
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]


def _contrast(a: tuple[float, float, float], b: tuple[float, float, float]) -> float:
    hi, lo = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


COLOURS_JS = """
() => {
  const rgb = s => s.match(/[\\d.]+/g).slice(0, 3).map(Number);
  const fill = e => rgb(getComputedStyle(e).fill);
  const surfaces = {};
  const add = (name, e) => { surfaces[name] = fill(e); };
  for (const e of document.querySelectorAll('#board rect.sq, #board circle.spot, ' +
                                            '#board .yard-inner, #board polygon.home'))
    add(e.getAttribute('class') + ' ' + (e.dataset.square || e.dataset.place || ''), e);
  const rim = document.querySelector('#board .token .rim');
  return {surfaces, rim: [fill(rim), rgb(getComputedStyle(rim).stroke)]};
}
"""


@pytest.mark.parametrize("scheme", SCHEMES)
def test_tokens_stand_out_on_every_square_they_can_stand_on(page: Page, scheme: str) -> None:
    _at(page, 390, 844, scheme)
    found = page.evaluate(COLOURS_JS)
    rim, outline = found["rim"]
    assert len(found["surfaces"]) > 60
    for name, surface in found["surfaces"].items():
        best = max(_contrast(rim, surface), _contrast(outline, surface))
        assert best >= 3.0, (name, surface, best)


def test_a_focused_token_keeps_the_focus_when_the_board_is_redrawn(page: Page) -> None:
    # turning a phone or zooming changes the pieces' hit squares, and the tokens' layer is
    # written afresh: the token a keyboard player had focused keeps the focus
    _at(page, 360, 740, "light")
    page.locator("#board .token.movable").last.focus()
    piece = page.evaluate("document.activeElement.dataset.piece")
    page.evaluate("document.getElementById('tokens-layer').firstElementChild.dataset.old = 1")
    _at(page, 1280, 800, "light")
    # the layer was rewritten (the mark is gone), and the same piece has the focus
    assert page.evaluate("document.querySelector('#tokens-layer [data-old]')") is None
    assert page.evaluate("document.activeElement.dataset.piece") == piece


def test_arrow_keys_go_through_the_glowing_tokens_in_reading_order(page: Page) -> None:
    _at(page, 1280, 800, "light")
    where = page.evaluate("""() => Object.fromEntries([...document.querySelectorAll(
        '#board .token.movable')].map(t => { const r = t.getBoundingClientRect();
        return [t.dataset.piece, [Math.round(r.top / 12), r.left]]; }))""")
    assert len(where) >= 2
    order = sorted(where, key=lambda piece: where[piece])
    page.focus(f'#board .token.movable[data-piece="{order[-1]}"]')
    seen = []
    for _ in range(len(order)):
        page.keyboard.press("ArrowRight")
        seen.append(page.evaluate("document.activeElement.dataset.piece"))
    assert seen == order  # from the last, right goes round to the first, then on in order
    page.keyboard.press("ArrowLeft")
    assert page.evaluate("document.activeElement.dataset.piece") == order[-2]
