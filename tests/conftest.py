"""The order of the tests, and how `make test`'s two workers (`-n 2 --dist loadgroup`) share them.

- The browser tests (tests/e2e) run last. Fast tests fail first, and Playwright's sync API, once
  the session's browser is up, keeps an event loop running in the main thread until the session
  ends, which would make `asyncio.run` in any later non-browser test fail.
- Among the browser tests, those of an xdist group (`many-browsers`: the online tests, several
  Chromium pages each, which starve each other side by side) come first: the group runs on one
  worker, for several minutes, and started late it would run alone at the end.
- xdist's own reordering of work units (the largest group first) is turned off: it would send
  that group of browser tests before every other test.
"""

from __future__ import annotations

from pathlib import Path

import pytest

E2E_DIR = Path(__file__).resolve().parent / "e2e"


def pytest_configure(config: pytest.Config) -> None:
    if hasattr(config.option, "loadscopereorder"):  # (pytest-xdist is installed)
        config.option.loadscopereorder = False


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    def place(item: pytest.Item) -> tuple[bool, bool]:
        browser = E2E_DIR in Path(item.path).parents
        return browser, browser and item.get_closest_marker("xdist_group") is None

    items.sort(key=place)  # (stable: collection order otherwise)
