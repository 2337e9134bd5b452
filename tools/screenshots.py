"""Screenshots of the app at phone, landscape and desktop sizes, light and dark.

    .venv/bin/python tools/screenshots.py                 # writes docs/screenshots/*.png
    .venv/bin/python tools/screenshots.py --out /tmp/shots --sizes 390x844

Each size and colour scheme gets three pictures of the viewport (what a player sees without
scrolling): the home screen, a game in progress at a choice of moves (the same position every
time: a saved game is put into the page's storage before it loads), and that game's move log.
The game has a 20-character name without break points, so a picture also shows that long
names do not widen the page. Animations are off (reduced motion) so the pictures are stable.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "py")]

from playwright.sync_api import Browser, sync_playwright  # noqa: E402

from app.savegame import Session, encode  # noqa: E402
from ludo import Action, Record, distinct_moves, new_game, play  # noqa: E402
from server.testing import CHROMIUM_ARGS, chromium_executable, running_server  # noqa: E402
from tools import build_pybundle  # noqa: E402

SIZES = ((360, 740), (390, 844), (430, 932), (844, 390), (1280, 800))
SCHEMES = ("light", "dark")
SAVE_KEY = "courtyard-ludo/save"
LONG_NAME = "Wolfeschlegelsteinha"  # 20 characters, no break point
NAMES = {"red": "Ada", "green": LONG_NAME, "yellow": "Bo"}
PLAYERS = {"blue": "medium"}


def demo_session(seed: int = 7, moves: int = 60, seconds_left: float = 23.4) -> Session:
    """A four-seat Courtyard game played by first-choice moves until, after at least
    ``moves`` actions, a person has a choice of moves (tokens out, one lane unlocked)."""
    seats = ("red", "green", "yellow", "blue")
    state = new_game("courtyard", seats, seed)
    record = Record("courtyard", state.seats, seed)
    for count in range(2000):
        if state.phase == "move" and count >= moves and state.turn != "blue" \
                and len(distinct_moves(state)) > 1:
            break
        action = Action("roll") if state.phase == "roll" else \
            distinct_moves(state)[count % len(distinct_moves(state))]
        record, state, _ = play(record, state, action)
    else:
        raise RuntimeError("no position with a choice came up")
    return Session(record=record, names=dict(NAMES), players=dict(PLAYERS), timer=True,
                   deadline=time.time() * 1000 + seconds_left * 1000, screen="table")


def shoot(browser: Browser, url: str, out: Path, width: int, height: int,
          scheme: str) -> list[Path]:
    save = encode(demo_session())  # its clock starts now
    context = browser.new_context(viewport={"width": width, "height": height},
                                  color_scheme=scheme, reduced_motion="reduce",
                                  device_scale_factor=1)
    context.add_init_script(
        f"if (!sessionStorage.getItem('shot')) {{ sessionStorage.setItem('shot', '1');"
        f" localStorage.setItem({SAVE_KEY!r}, {save!r}); }}")
    page = context.new_page()
    written = []
    try:
        page.goto(url + "#table")
        page.wait_for_selector('html[data-ready="1"]', state="attached", timeout=60_000)
        page.wait_for_selector("#board .token.movable")
        page.evaluate("document.activeElement && document.activeElement.blur()")
        stem = f"{width}x{height}-{scheme}"
        for name, prepare in (("table", None), ("log", "#btn-details"), ("home", "#btn-home")):
            if prepare:
                page.click(prepare)
                page.wait_for_timeout(100)
                page.evaluate("window.scrollTo(0, 0)")
            if name == "log":
                page.evaluate("document.getElementById('log').scrollIntoView({block: 'center'})")
            path = out / f"{stem}-{name}.png"
            page.screenshot(path=str(path))
            written.append(path)
            if name == "log":
                page.click("#btn-details")
    finally:
        context.close()
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "screenshots")
    parser.add_argument("--sizes", help="e.g. 390x844,1280x800 (default: all five)")
    parser.add_argument("--schemes", default=",".join(SCHEMES))
    args = parser.parse_args(argv)
    sizes = SIZES if not args.sizes else tuple(
        tuple(int(n) for n in s.split("x")) for s in args.sizes.split(","))
    args.out.mkdir(parents=True, exist_ok=True)
    build_pybundle.refresh_site(ROOT)  # the pictures show py/ as it is now
    with running_server(ROOT) as url, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium_executable(),
                                             args=list(CHROMIUM_ARGS))
        try:
            for width, height in sizes:
                for scheme in args.schemes.split(","):
                    for path in shoot(browser, url, args.out, width, height, scheme):
                        print(path.relative_to(ROOT) if path.is_relative_to(ROOT) else path)
        finally:
            browser.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
