"""Stand-in `pyscript` and `pyodide` modules, for tests that import the page's browser-side
modules (py/app/browser) in CPython: their window and document are whatever the test hands in,
and the ffi helpers pass values through unchanged (no JavaScript proxies here)."""

from __future__ import annotations

import sys
import types
from typing import Any

import pytest


def install(monkeypatch: pytest.MonkeyPatch, window: Any, document: Any) -> None:
    """Put the stand-ins in sys.modules for this test (monkeypatch takes them out again)."""
    pyscript = types.ModuleType("pyscript")
    pyscript.window = window  # type: ignore[attr-defined]
    pyscript.document = document  # type: ignore[attr-defined]
    ffi = types.ModuleType("pyscript.ffi")
    ffi.create_proxy = lambda fn: fn  # type: ignore[attr-defined]
    ffi.is_none = lambda v: v is None  # type: ignore[attr-defined]
    ffi.to_js = lambda v, **kw: v  # type: ignore[attr-defined]
    pyodide_ffi = types.ModuleType("pyodide.ffi")
    pyodide_ffi.create_once_callable = lambda fn: fn  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "pyscript", pyscript)
    monkeypatch.setitem(sys.modules, "pyscript.ffi", ffi)
    monkeypatch.setitem(sys.modules, "pyodide", types.ModuleType("pyodide"))
    monkeypatch.setitem(sys.modules, "pyodide.ffi", pyodide_ffi)
