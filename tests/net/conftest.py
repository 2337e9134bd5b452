"""Room tests draw their chains' seeds and match ids from a seeded generator, so that every
run plays the same games (the dice depend on them)."""

from __future__ import annotations

import random

import pytest


@pytest.fixture(autouse=True)
def seeded_secrets(monkeypatch: pytest.MonkeyPatch) -> None:
    rnd = random.Random(2026)
    monkeypatch.setattr("net.dice.secrets.token_bytes", lambda n: rnd.randbytes(n))
    monkeypatch.setattr("app.room.secrets.token_urlsafe",
                        lambda n: rnd.randbytes(n).hex()[:22])
