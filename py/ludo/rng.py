"""A tiny seeded random number generator whose whole state is one integer.

The state is part of every game position, so a position saved to JSON and
loaded again rolls exactly the same dice.  ``random.Random`` keeps 625 words
of state; this generator keeps one 64-bit word.

The generator is PCG-XSH-RS 64/32 (M. E. O'Neill, "PCG: A Family of Simple
Fast Space-Efficient Statistically Good Algorithms for Random Number
Generation", 2014): a 64-bit linear congruential step, and an output that
xor-shifts the high bits and drops a state-dependent number of low bits.  It
passes the statistical test batteries and is cheap in Python (one
multiplication per draw), which matters because every roll of every
simulated game and bot search comes through :func:`roll_die`.

Seeds are scrambled once by SplitMix64's finaliser (a bijection on 64-bit
integers), so that nearby seeds (game 1, game 2, ...) start far apart in the
generator's sequence.
"""

from __future__ import annotations

MASK64 = (1 << 64) - 1
MULTIPLIER = 6364136223846793005  # Knuth's MMIX multiplier, PCG's default
INCREMENT = 1442695040888963407  # odd, as a full-period LCG needs
# 32-bit draws at or above this bound are rejected so that ``x % 6`` is unbiased.
_DIE_BOUND = (1 << 32) - ((1 << 32) % 6)


def seed_state(seed: int) -> int:
    """Turn any integer seed into an RNG state (a 64-bit unsigned integer).

    SplitMix64's finaliser: a bijection, so distinct seeds below 2**64 give
    distinct states, and neighbouring seeds give unrelated ones.
    """
    z = (seed + 0x9E3779B97F4A7C15) & MASK64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
    return z ^ (z >> 31)


def next_u32(state: int) -> tuple[int, int]:
    """Return ``(new_state, 32 random bits)``: one PCG-XSH-RS step."""
    new_state = (state * MULTIPLIER + INCREMENT) & MASK64
    return new_state, ((state ^ (state >> 22)) >> (22 + (state >> 61))) & 0xFFFFFFFF


def roll_die(state: int) -> tuple[int, int]:
    """Return ``(new_state, value)`` for one fair six-sided die.

    This is :func:`next_u32` written out in place, with rejection of the four
    highest draws so that every face has exactly the same chance; tests check
    that both give the same draws.
    """
    # literal constants (not the module globals) save a global lookup per use
    while True:
        old = state
        state = (old * 6364136223846793005 + 1442695040888963407) & 0xFFFFFFFFFFFFFFFF
        bits = ((old ^ (old >> 22)) >> (22 + (old >> 61))) & 0xFFFFFFFF
        if bits < 4294967292:  # _DIE_BOUND
            return state, bits % 6 + 1


def choose_index(state: int, n: int) -> tuple[int, int]:
    """Return ``(new_state, i)`` with ``i`` uniform in ``range(n)`` (``n`` below 2**32)."""
    if not 0 < n < 1 << 32:
        raise ValueError("choose_index needs 1 <= n < 2**32")
    bound = (1 << 32) - ((1 << 32) % n)
    while True:
        state, bits = next_u32(state)
        if bits < bound:
            return state, bits % n
