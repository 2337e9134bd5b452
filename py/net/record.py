"""Online matches and their records: dice from the verified ledger, and offline verification.

An online match draws every chance value from the room's :class:`~net.dice.DiceLedger`, never
from a position's seeded generator (anyone who knows the seed could predict those):

- roll 0 draws the match's seed from ``SEED_RANGE`` values; the rule set's ``new_game`` picks
  the starting seat from it, exactly as it does for a local game's seed;
- each chance action after that (a roll, or a clock timeout that rolls for the player) uses the
  next roll number, 1, 2, 3, ... in order; its value is ``chance_outcomes(state)[i]``, where
  ``i = ledger.index(roll, len(outcomes))``. Nothing here assumes a six-sided die: Royal's six
  named faces are six outcomes like any others.

:class:`LedgerDice` is the table's dice source for that (it fills in a value, or checks the value
an action arrived with), and :func:`verify` checks a whole version-3 record offline: the dice
record (every commitment, link and value), the seed, every action with the engine, and that every
chance value is the ledger's. ``python -m ludo verify record.json`` prints its summary.

Pure standard library and the engine (CPython and Pyodide alike).
"""

from __future__ import annotations

from typing import Any, NamedTuple

from ludo import (
    Action,
    IllegalAction,
    LudoError,
    Record,
    apply,
    chance_outcomes,
    is_chance,
    is_over,
    quote,
    to_act,
    winners,
)
from ludo import resolve as engine_resolve
from ludo.notation import record_from_json

from .dice import DiceError, DiceLedger, RollPending, SettledRoll

SEED_RANGE = 2**32
"""Roll 0 draws the match's seed from this many values."""
SEED_ROLL = 0


class RollNeeded(IllegalAction):
    """The action needs a chance value whose roll is not settled yet: open that roll first."""

    def __init__(self, roll: int, n: int) -> None:
        super().__init__(f"the die for roll {roll} is not known yet")
        self.roll = roll
        self.n = n


def needs_chance(state: Any, action: Action) -> bool:
    """Whether applying ``action`` to ``state`` takes a chance value (a roll, or a timeout that
    rolls for the player), asked of the rule set rather than assumed."""
    if not is_chance(state):
        return False
    try:
        return engine_resolve(state, action._replace(value=None)).value is not None
    except LudoError:
        return False


def chance_value(state: Any, action: Action, ledger: DiceLedger, roll: int) -> Action:
    """``action`` with the value roll ``roll`` gives at ``state``.

    An action that arrives with a value must carry exactly that one (IllegalAction otherwise);
    RollNeeded while the roll is not settled."""
    outcomes = chance_outcomes(state)
    if not outcomes:
        raise IllegalAction("this position has no chance outcomes")
    try:
        index = ledger.index(roll, len(outcomes))
    except RollPending:
        raise RollNeeded(roll, len(outcomes)) from None
    except DiceError as exc:
        raise IllegalAction(str(exc)) from None
    value = outcomes[index][0].value
    if action.value is not None and action.value != value:
        raise IllegalAction(f"roll {roll} gives {quote(value)}, not {quote(action.value)}")
    return action._replace(value=value)


class LedgerDice:
    """A table's dice source for an online match: each chance action takes the next roll.

    ``used`` counts the rolls spent so far (roll 0, the seed, is not spent by an action). The
    table calls :meth:`resolve` before it applies an action; whoever drives the table calls
    :meth:`confirm` once the table accepted it, so a refused action spends nothing.
    """

    def __init__(self, ledger: DiceLedger, used: int = 0) -> None:
        self.ledger = ledger
        self.used = used
        self.took: int | None = None  # the roll the action being applied takes

    @property
    def next_roll(self) -> int:
        """The roll number the next chance action takes."""
        return self.used + 1

    def resolve(self, state: Any, action: Action, actor: str) -> Action:
        self.took = None
        if not needs_chance(state, action):
            if action.value is not None and action.type == "roll":
                raise IllegalAction("the dice decide a roll's value, not the player")
            return action
        resolved = chance_value(state, action, self.ledger, self.next_roll)
        self.took = self.next_roll
        return resolved

    def confirm(self) -> int | None:
        """The action was applied: its roll (if it took one) is spent. Returns that roll."""
        took, self.took = self.took, None
        if took is not None:
            self.used = took
        return took


class Throw(NamedTuple):
    """One chance value of an online match, for the Dice panel."""

    roll: int  # the roll number in the dice ledger
    seat: str  # whose throw it was
    value: Any  # the outcome (a number, or a face's name)
    faces: tuple[Any, ...]  # every outcome that was possible, in the rule set's order
    missing: tuple[str, ...]  # participants whose reveal was not counted


def throw_of(state: Any, action: Action, ledger: DiceLedger, roll: int) -> Throw:
    """The throw an applied chance action (taking roll ``roll``) made at ``state``."""
    faces = tuple(a.value for a, _ in chance_outcomes(state))
    return Throw(roll, to_act(state) or "", action.value, faces, ledger.rolls[roll].missing)


class Verified(NamedTuple):
    """A version-3 record that verified: the record, its ledger, every position and events."""

    record: Record
    ledger: DiceLedger
    states: list[Any]
    events: list[list[dict[str, Any]]]
    used: int  # rolls spent by actions (the last settled roll may wait for its action)
    throws: list[Throw]


def verify_record_json(data: Any) -> Verified:
    """Check an online match's record; DiceError or LudoError names the first problem."""
    record = record_from_json(data)
    if record.dice is None:
        raise DiceError("this record has no dice part (a version 2 record: its dice came from "
                        "its seed, and there is nothing to verify)")
    try:
        ledger = DiceLedger.replay(record.dice)
        return replay_verified(record, ledger)
    except (DiceError, LudoError):
        raise
    except Exception as exc:  # a boundary: a record is hostile input, its reader says one line
        raise DiceError(f"the record could not be checked ({type(exc).__name__}: {exc})"
                        ) from None


def seed_of(ledger: DiceLedger) -> int:
    """The match's seed: roll 0's value (DiceError if roll 0 is not a seed draw)."""
    if not ledger.rolls:
        raise RollPending(SEED_ROLL)
    first: SettledRoll = ledger.rolls[SEED_ROLL]
    if first.n != SEED_RANGE:
        raise DiceError(f"roll 0 draws the seed from {SEED_RANGE} values, not {first.n}")
    return first.value


def replay_verified(record: Record, ledger: DiceLedger) -> Verified:
    """Replay ``record`` with the engine, every chance value checked against ``ledger``.

    Anything that does not verify is a DiceError (or a LudoError from the engine): a dice
    record that stops before a roll the record needs included."""
    try:
        seed = seed_of(ledger)
    except RollPending as exc:
        raise DiceError(f"the dice record ends before roll {exc.roll}") from None
    if record.seed != seed:
        raise DiceError(f"the record's seed {record.seed} is not roll 0's value {seed}")
    state = record.start()
    states, events = [state], []
    used = 0
    throws = []
    for i, action in enumerate(record.actions):
        try:
            if needs_chance(state, action):
                if action.value is None:
                    raise IllegalAction("a chance action without its value")
                action = chance_value(state, action, ledger, used + 1)
                used += 1
                throws.append(throw_of(state, action, ledger, used))
            elif action.type == "roll" and action.value is not None:
                raise IllegalAction("a roll's value where no die is thrown")
            state, caused = apply(state, action)
        except RollNeeded as exc:
            raise DiceError(f"actions[{i}]: roll {exc.roll} is not in the dice record") from None
        except IllegalAction as exc:
            raise DiceError(f"actions[{i}]: {exc}") from None
        states.append(state)
        events.append(caused)
    waiting = ledger.next_roll - 1 - used
    if waiting > 1:
        raise DiceError(f"{waiting} settled rolls are not used by any action")
    return Verified(record, ledger, states, events, used, throws)


def summary(verified: Verified) -> dict[str, Any]:
    """What ``python -m ludo verify`` prints: the outcome and each participant's share."""
    final = verified.states[-1]
    ledger = verified.ledger
    missing = {p: sum(p in r.missing for r in ledger.rolls) for p in ledger.participants}
    return {"command": "verify", "verified": True, "rules": verified.record.rules,
            "actions": len(verified.record.actions), "rolls": len(ledger.rolls),
            "participants": list(ledger.participants), "missing_reveals": missing,
            "over": is_over(final), "winners": list(winners(final))}
