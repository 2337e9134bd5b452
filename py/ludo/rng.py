"""A tiny seeded random number generator whose whole state is one integer.

The state is part of every game position, so a position saved to JSON and
loaded again rolls exactly the same dice.  ``random.Random`` keeps 625 words
of state; SplitMix64 keeps one 64-bit word and is plenty for dice.
"""

from __future__ import annotations

MASK64 = (1 << 64) - 1
_GOLDEN = 0x9E3779B97F4A7C15
# Draws at or above this bound are rejected so that ``x % 6`` is unbiased.
_DIE_BOUND = (1 << 64) - ((1 << 64) % 6)


def seed_state(seed: int) -> int:
    """Turn any integer seed into an RNG state (a 64-bit unsigned integer)."""
    return seed & MASK64


def next_u64(state: int) -> tuple[int, int]:
    """Return ``(new_state, 64 random bits)``."""
    state = (state + _GOLDEN) & MASK64
    z = state
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
    return state, z ^ (z >> 31)


def roll_die(state: int) -> tuple[int, int]:
    """Return ``(new_state, value)`` for one fair six-sided die.

    This is :func:`next_u64` written out in place (every roll of every game
    comes through here); tests check that both give the same draws.
    """
    # literal constants (not the module globals) save a global lookup per use
    while True:
        state = (state + 0x9E3779B97F4A7C15) & 0xFFFFFFFFFFFFFFFF  # _GOLDEN, MASK64
        z = ((state ^ (state >> 30)) * 0xBF58476D1CE4E5B9) & 0xFFFFFFFFFFFFFFFF
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & 0xFFFFFFFFFFFFFFFF
        z ^= z >> 31
        if z < 0xFFFFFFFFFFFFFFFC:  # _DIE_BOUND
            return state, z % 6 + 1


def choose_index(state: int, n: int) -> tuple[int, int]:
    """Return ``(new_state, i)`` with ``i`` uniform in ``range(n)``."""
    if n <= 0:
        raise ValueError("choose_index needs n >= 1")
    bound = (1 << 64) - ((1 << 64) % n)
    while True:
        state, bits = next_u64(state)
        if bits < bound:
            return state, bits % n
