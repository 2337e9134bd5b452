"""Home and the rules screen by keyboard, with what a screen reader is told.

Home: a control the form changes by itself (the number of players, the colours, the turn
timer) is announced once, politely; the person's own change is not (their screen reader has
just said it). The rules screen: its headings read as a list of rule sets under the screen's
own heading, named as the link that opens it."""

from __future__ import annotations

from playwright.sync_api import Page
from test_app_play import FAST, wait_ready

RECORD_JS = """() => {
  window.__said = [];
  new MutationObserver(() => window.__said.push(
      document.getElementById('announcer').textContent.trim()))
    .observe(document.getElementById('announcer'),
             {childList: true, characterData: true, subtree: true});
}"""


def said(page: Page) -> list[str]:
    """What the announcer was given since the last call."""
    return page.evaluate("() => window.__said.splice(0)")


def test_the_home_form_announces_what_it_changed_by_itself(page: Page, server_url: str) -> None:
    page.goto(server_url + FAST + "#home")
    wait_ready(page)
    page.wait_for_selector("#screen-home:not([hidden])")
    assert page.is_checked('input[name="rules"][value="courtyard"]')
    assert page.is_checked("#opt-timer")  # Courtyard's default
    seats = page.locator('input[name="seat"]:checked')
    assert seats.count() == 2
    page.evaluate(RECORD_JS)
    # a third colour ticked by Space: the number of players follows, and is said
    page.focus('input[name="seat"]:not(:checked)')
    page.keyboard.press("Space")
    assert seats.count() == 3 and page.is_checked('input[name="players"][value="3"]')
    assert said(page) == ["Number of players: 3."]
    # a number of players chosen by the arrow keys: the colours follow
    page.focus('input[name="players"][value="3"]')
    page.keyboard.press("ArrowLeft")
    assert page.is_checked('input[name="players"][value="2"]') and seats.count() == 2
    (told,) = said(page)
    assert told.startswith("Colours playing: ") and " and " in told
    # Gilgiti chosen: its default unticks the timer
    page.focus('input[name="rules"][value="gilgiti"]')
    page.keyboard.press("Space")
    assert not page.is_checked("#opt-timer")
    assert said(page) == ["Turn timer off."]
    # the person's own change of the timer: nothing more is said
    page.focus("#opt-timer")
    page.keyboard.press("Space")
    assert page.is_checked("#opt-timer") and said(page) == []
    # an online seat ticks and locks the timer; a person again lets it go
    other = page.locator('input[name="seat"]:checked').nth(1).get_attribute("value")
    page.select_option(f'[name="kind-{other}"]', "online")
    assert page.is_disabled("#opt-timer")
    assert said(page) == ["Turn timer on: online rooms always run it."]
    page.select_option(f'[name="kind-{other}"]', "human")
    assert page.is_enabled("#opt-timer")
    assert said(page) == ["Turn timer can be switched off again."]
    # four players: Gilgiti offers Teams (ticked by default), and it goes again with three
    page.focus('input[name="players"][value="4"]')
    page.keyboard.press("Space")
    assert page.is_checked('input[name="option-teams"]')
    assert said(page)[0].endswith("Teams option offered, on.")
    page.focus('input[name="players"][value="3"]')
    page.keyboard.press("Space")
    assert said(page)[0].endswith("Teams option no longer offered.")


HEADINGS_JS = """() => [...document.querySelectorAll('#screen-rules :is(h1, h2, h3, h4)')]
    .map(h => [h.tagName, h.textContent.trim()])"""


def test_the_rules_headings_are_the_rule_sets_side_by_side_under_house_rules(
        page: Page, server_url: str) -> None:
    page.goto(server_url + FAST + "#home")
    wait_ready(page)
    page.wait_for_selector("#screen-home:not([hidden])")
    # Royal chosen on Home, then the header's link, by keyboard
    page.focus('input[name="rules"][value="royal"]')
    page.keyboard.press("Space")
    link = page.locator("a[data-nav='rules']")
    link.focus()
    page.keyboard.press("Enter")
    page.wait_for_selector("#screen-rules:not([hidden])")
    headings = page.evaluate(HEADINGS_JS)
    # the screen's heading is named as its link; each rule set is a heading of its own below
    # it (before: "The Courtyard rules" h2 with Classic, Royal and Gilgiti as h3 under it)
    assert headings == [["H2", link.inner_text().strip()], ["H3", "Courtyard"],
                        ["H3", "Classic"], ["H3", "Royal"], ["H3", "Gilgiti Ludo"]]
    assert page.get_attribute("#screen-rules", "aria-labelledby") == "rules-title"
    assert page.inner_text("#rules-title") == "House rules"
    # the focus is on the chosen rule set's heading, in view
    shown = page.evaluate("""() => { const a = document.activeElement;
      const r = a.getBoundingClientRect();
      return [a.tagName, a.textContent, r.top >= 0 && r.top < innerHeight]; }""")
    assert shown == ["H3", "Royal", True]
    # Courtyard's, the first: its heading, and the screen's own above it, in view
    page.goto(server_url + FAST + "#home")
    page.wait_for_selector("#screen-home:not([hidden])")
    page.check('input[name="rules"][value="courtyard"]')
    link.focus()
    page.keyboard.press("Enter")
    page.wait_for_selector("#screen-rules:not([hidden])")
    assert page.evaluate("document.activeElement.textContent") == "Courtyard"
    assert page.evaluate("document.getElementById('rules-title').getBoundingClientRect().top") \
        >= 0
