"""Run the browser tests (tests/e2e) last.

Fast tests fail first, and Playwright's sync API, once the session's browser is up, keeps an
event loop running in the main thread until the session ends, which would make `asyncio.run`
in any later non-browser test fail.
"""

from __future__ import annotations

from pathlib import Path

import pytest

E2E_DIR = Path(__file__).resolve().parent / "e2e"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    items.sort(key=lambda item: E2E_DIR in Path(item.path).parents)
