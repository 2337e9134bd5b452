"""The browser fixture's used contexts (conftest.py's ContextPool): a context a test closed comes
back to the next test empty, with what the test changed undone, and one a test changed for good
never comes back; the first-visit modules' contexts come back without the service worker and its
caches."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, BrowserContext, Page


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


def test_what_a_test_changed_that_can_be_undone_is_undone(
        browser: Browser, server_url: str) -> None:
    first = browser.new_context(locale="en-GB")
    heard: list[str] = []
    first.on("request", lambda request: heard.append(request.url))
    first.route("**/manifest.webmanifest", lambda route: route.fulfill(status=418, body="no"))
    first.grant_permissions(["geolocation"], origin=server_url.rstrip("/"))
    page = first.new_page()
    assert page.goto(server_url + "manifest.webmanifest").status == 418
    assert page.evaluate(
        "navigator.permissions.query({name: 'geolocation'}).then(p => p.state)") == "granted"
    first.set_offline(True)
    first.close()
    again = browser.new_context(locale="en-GB")
    assert again is first  # none of those closed it for good
    heard.clear()
    page = again.new_page()
    response = page.goto(server_url + "manifest.webmanifest")  # online, and not routed
    assert response.status == 200
    assert heard == []  # the first test's handler is gone
    assert page.evaluate(
        "navigator.permissions.query({name: 'geolocation'}).then(p => p.state)") == "prompt"
    again.close()


def _worker_and_caches(page: Page) -> list[int]:
    return page.evaluate("""async () => [
        (await navigator.serviceWorker.getRegistrations()).length,
        (await caches.keys()).length]""")


def _visit_and_install(context: BrowserContext, server_url: str) -> None:
    page = context.new_page()
    page.goto(server_url)
    # an active worker has installed, and installing filled its cache
    page.evaluate("navigator.serviceWorker.ready.then(() => true)")
    assert _worker_and_caches(page) == [1, 1]


@pytest.mark.parametrize("first_visit", [False, True], ids=["kept", "first-visit"])
def test_a_first_visit_module_gets_contexts_without_the_worker_and_its_caches(
        browser: Browser, server_url: str, monkeypatch: pytest.MonkeyPatch,
        first_visit: bool) -> None:
    # e2e/conftest.py's globals (there are two modules named conftest: not by name)
    conftest = type(browser).new_context.__globals__
    if first_visit:  # this module, as if it were one of them
        monkeypatch.setitem(conftest, "FIRST_VISIT_MODULES",
                            conftest["FIRST_VISIT_MODULES"] | {"test_context_pool"})
    first = browser.new_context(locale="fr-FR")  # options no other test asks for
    _visit_and_install(first, server_url)
    first.close()
    again = browser.new_context(locale="fr-FR")
    assert again is first
    page = again.new_page()
    page.goto(server_url + "manifest.webmanifest")
    # the other modules' contexts keep the worker, so that a boot need not install it again
    assert _worker_and_caches(page) == ([0, 0] if first_visit else [1, 1])
    again.close()
