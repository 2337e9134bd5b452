"""The browser fixture's used contexts (conftest.py's ContextPool): a context a test closed comes
back to the next test empty, and one a test changed for good never comes back."""

from __future__ import annotations

from playwright.sync_api import Browser


def test_a_used_context_comes_back_empty_and_a_changed_one_not_at_all(
        browser: Browser, server_url: str) -> None:
    first = browser.new_context(locale="en-GB")
    page = first.new_page()
    page.goto(server_url + "manifest.webmanifest")
    page.evaluate("localStorage.setItem('courtyard-ludo/save', '{}');"
                  " sessionStorage.setItem('x', '1')")
    first.close()
    again = browser.new_context(locale="en-GB")
    assert again is first  # used again: the point of the pool
    page = again.new_page()
    page.goto(server_url + "manifest.webmanifest")
    assert page.evaluate("[localStorage.length, sessionStorage.length]") == [0, 0]
    # the keeper page is all that is left open in it besides this one
    assert len(again.pages) == 2
    again.add_init_script("window.changed = true")  # cannot be undone: never handed out again
    again.close()
    other = browser.new_context(locale="en-GB")
    assert other is not again
    page = other.new_page()
    page.goto(server_url + "manifest.webmanifest")
    assert page.evaluate("window.changed") is None
    other.close()
