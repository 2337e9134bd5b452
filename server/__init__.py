"""Local web server for Courtyard Ludo: `python -m server` (see server/app.py)."""

from server.app import bind_address, default_root, make_app

__all__ = ["bind_address", "default_root", "make_app"]
