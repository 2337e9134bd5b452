"""The table: one match, its seats and who plays them, its record, dice and clock.

Pure Python (tested in CPython): no browser, no timers. The controller (or a
network peer, or a test) drives it with one entry point, :meth:`Table.submit`,
and asks :meth:`Table.due` which automatic action is due and when. It knows no
rule set: it reaches the rules only through :mod:`ludo`'s entry points and
the :class:`~ludo.Scene` and :class:`~ludo.Choice` they hand over.

Agents: each seat is played by a local person (``human``), a computer level
(``easy``, ``medium``, ``hard``) or a remote peer (``remote``, whose actions
arrive over the network and are checked here like anyone's).

Authority: a seat acts only for itself -- it may roll and decide only when it
is the seat to act, and quit only itself; clock timeouts come only from the
table (:data:`TABLE`). Dice: a chance action is resolved by the table's dice
source (:class:`LocalDice` draws from the position's seeded RNG; online play
plugs in verifiable dice), never by the seat that rolls.
"""

from __future__ import annotations

import math
import os
from collections.abc import Generator, Mapping
from typing import Any, NamedTuple, Protocol

from ludo import (
    Action,
    Choice,
    IllegalAction,
    LudoError,
    Record,
    Scene,
    active_seats,
    apply,
    auto_action,
    choices,
    describe,
    format_position,
    is_chance,
    is_over,
    legal_actions,
    name_of,
    resolve,
    rules_for,
    scene,
    to_act,
    winners,
)
from ludo.rules.base import Leave, Wording

from .savegame import Session

TABLE = "table"
"""The actor of actions that come from the table itself: clock timeouts."""

COMPUTER_LEVELS = ("easy", "medium", "hard")
TURN_SECONDS = 30.0


def bots_available() -> bool:
    """Whether the computer players are here (the app works without the package)."""
    try:
        import ludo.bots  # noqa: F401
    except ImportError:  # pragma: no cover - depends on the build
        return False
    return True


class DiceSource(Protocol):
    """Where chance values come from."""

    def resolve(self, state: Any, action: Action, actor: str) -> Action:
        """``action`` with its chance value filled in; IllegalAction if it may not be."""
        ...


class LocalDice:
    """Dice from the position's own seeded RNG: every game replays from its record.

    A seat may not choose its own die: a roll that arrives with a value is
    refused.
    """

    def resolve(self, state: Any, action: Action, actor: str) -> Action:
        if action.value is not None and action.type in ("roll", "timeout") \
                and is_chance(state):
            raise IllegalAction("the dice decide a roll's value, not the player")
        return resolve(state, action)


class Due(NamedTuple):
    """An automatic action the table wants: what, for which seat, from when (epoch ms)."""

    kind: str  # "auto" (the only move plays itself), "computer", "timeout"
    seat: str
    at: float
    action: Action | None = None  # the auto-move; a computer's comes from its search


class Table:
    """One match at one table. ``session`` is what a save keeps; the rest is derived."""

    def __init__(self, session: Session, states: list[Any] | None = None,
                 dice: DiceSource | None = None, turn_seconds: float = TURN_SECONDS,
                 now: float = 0.0) -> None:
        self.session = session
        self.rules = rules_for(session.record.rules)
        self.state = states[-1] if states else session.record.start()
        self.dice: DiceSource = dice or LocalDice()
        self.turn_seconds = turn_seconds
        self.changed_at = now  # when the position last changed (epoch ms)
        # every action's events, with the seat whose turn it was: what the move log tells
        self.history: list[tuple[str | None, list[dict[str, Any]]]] = []
        self.told: list[str] = []  # the sentences of the last action
        # the scene and choices of the position they were made for (positions are immutable
        # values, so one drawn several times per action is worked out once)
        self._scene: tuple[Any, Scene] | None = None
        self._choices: tuple[Any, list[Choice]] | None = None

    @classmethod
    def restore(cls, session: Session, states: list[Any], events: list[list[dict[str, Any]]],
                now: float, turn_seconds: float = TURN_SECONDS) -> Table:
        """A saved match (see savegame.decode), its history rebuilt from the replay's events."""
        table = cls(session, states, turn_seconds=turn_seconds, now=now)
        table.history = [(to_act(s), list(e)) for s, e in zip(states, events, strict=False)]
        return table

    @classmethod
    def new(cls, rules: str, seats: tuple[str, ...] | list[str], seed: int | None, now: float,
            names: Mapping[str, str] | None = None, players: Mapping[str, str] | None = None,
            timer: bool = True, options: Mapping[str, Any] | None = None,
            dice: DiceSource | None = None, turn_seconds: float = TURN_SECONDS) -> Table:
        """A fresh match; the seed decides who starts (and, with local dice, every die).

        Without a seed, one is drawn from the operating system's randomness (52 bits, so
        that it survives JSON in any JavaScript tool unchanged).
        """
        if seed is None:
            seed = int.from_bytes(os.urandom(7), "big") >> 4
        start = rules_for(rules).new_game(tuple(seats), seed, options)
        seated = start.seats
        record = Record(start.rules, seated, seed, (), tuple(sorted((options or {}).items())))
        session = Session(record=record,
                          names={c: n for c, n in (names or {}).items() if c in seated and n},
                          players={c: k for c, k in (players or {}).items()
                                   if c in seated and k != "human"},
                          timer=timer)
        table = cls(session, [start], dice, turn_seconds, now)
        session.deadline = now + turn_seconds * 1000
        return table

    # -- reading -------------------------------------------------------------------------

    @property
    def record(self) -> Record:
        return self.session.record

    @property
    def names(self) -> dict[str, str]:
        return self.session.names

    @property
    def title(self) -> str:
        return self.rules.title

    @property
    def leave(self) -> Leave:
        """How leaving is put to the players, and whether it ends the match for all."""
        return self.rules.leave

    @property
    def wording(self) -> Wording:
        """The die's verb in these rules' prompts and labels: roll, or (Royal) throw."""
        return self.rules.wording

    def kind(self, seat: str) -> str:
        """"human", a computer level, or "remote"."""
        return self.session.kind(seat)

    @property
    def seat_to_act(self) -> str | None:
        return to_act(self.state)

    @property
    def over(self) -> bool:
        return is_over(self.state)

    @property
    def rolling(self) -> bool:
        """True while the seat to act has to roll (a chance node)."""
        return is_chance(self.state)

    def scene(self) -> Scene:
        made = self._scene
        if made is None or made[0] is not self.state:
            made = self._scene = (self.state, scene(self.state))
        return made[1]

    def winners(self) -> tuple[str, ...]:
        return winners(self.state)

    def active_seats(self) -> tuple[str, ...]:
        return active_seats(self.state)

    def name(self, seat: str) -> str:
        return name_of(seat, self.names)

    def choices_for(self, seat: str | None) -> list[Choice]:
        """What ``seat`` may click now: nothing unless it is the seat to act."""
        if seat is None or self.over or seat != self.seat_to_act:
            return []
        made = self._choices
        if made is None or made[0] is not self.state:
            made = self._choices = (self.state, choices(self.state))
        return list(made[1])

    def quitters(self) -> list[str]:
        """The seats a person at this device may make quit: the local people's own seats.

        Computers cannot be made to leave, except in a game of computers only, which can
        be stopped seat by seat. Once every person here has quit, nobody here may quit any
        seat (rule 11: "You cannot rejoin as an active player"): they only watch.
        """
        people = self.people_in_play()
        if people or any(self.kind(s) == "human" for s in self.record.seats):
            return people
        return list(self.active_seats())

    def left_by(self) -> str | None:
        """The seat whose leaving ended the match for everybody (a rule set whose
        ``leave.ends_match`` is true ends it at a ``quit``, with no winner), else None."""
        if not (self.over and self.leave.ends_match) or self.winners():
            return None
        actions = self.record.actions
        last = actions[-1] if actions else None
        return last.seat if last is not None and last.type == "quit" else None

    def sole_person(self) -> str | None:
        """The seat of the one person at this device when every other seat is a computer (or
        plays online): the board is drawn with it at the bottom left, as online (seed 000, rule
        1: "Online, your colour is at bottom left"). None with two or more people: pass-and-play
        keeps a fixed board."""
        people = [s for s in self.record.seats if self.kind(s) == "human"]
        return people[0] if len(people) == 1 else None

    def people_in_play(self) -> list[str]:
        """The seats still in the match that a person at this device plays."""
        return [s for s in self.active_seats() if self.kind(s) == "human"]

    def auto(self) -> Action | None:
        """The move that plays itself now, if any."""
        return None if self.over or self.rolling else auto_action(self.state)

    def local_person_to_act(self) -> bool:
        seat = self.seat_to_act
        return seat is not None and self.kind(seat) == "human"

    def narrate(self, events: list[dict[str, Any]]) -> list[str]:
        """The rule set's sentences for ``events`` (silent events left out)."""
        return [text for e in events if (text := describe(self.state, e, self.names))]

    def position_text(self) -> str:
        return format_position(self.state)

    def legal_json(self) -> list[dict[str, Any]]:
        return [a.to_json() for a in legal_actions(self.state)]

    def seconds_left(self, now: float) -> float | None:
        """Seconds left on the running clock, or None when no clock runs for the seat to act."""
        seat = self.seat_to_act
        if seat is None or not self.session.timer or self.session.deadline is None \
                or self.kind(seat) in COMPUTER_LEVELS:
            return None
        return max(0.0, (self.session.deadline - now) / 1000)

    # -- acting --------------------------------------------------------------------------

    @property
    def version(self) -> int:
        """How many actions the record holds: the id of the current position."""
        return len(self.record.actions)

    def submit(self, actor: str, action: Action, now: float,
               seen: int | None = None) -> list[dict[str, Any]]:
        """Check ``actor``'s authority, apply ``action``, record it; returns the events.

        ``seen`` is the position id (:attr:`version`) the actor acted on; an
        action sent from an older position is refused as stale. Raises
        IllegalAction and changes nothing when the actor may not act or the
        rules refuse the action.
        """
        if not isinstance(action, Action):
            raise IllegalAction(f"not an action: {action!r}")
        if seen is not None and seen != self.version:
            raise IllegalAction(f"stale action: it was meant for position {seen}, "
                                f"the table is at {self.version}")
        try:  # the shape the rule set accepts in a record: no stray or malformed fields
            action = self.rules.parse_action(action.to_json())
        except LudoError as exc:
            raise IllegalAction(str(exc)) from None
        state = self.state
        if is_over(state):
            raise IllegalAction("the game is over")
        seat = to_act(state)
        if action.type == "timeout":
            if actor != TABLE:
                raise IllegalAction("only the table's clock plays a timeout")
        elif action.type == "quit":
            if actor != action.seat:
                raise IllegalAction(f"{actor} cannot quit for {action.seat}")
        elif actor != seat:
            raise IllegalAction(f"it is {seat}'s turn, not {actor}'s")
        action = self.dice.resolve(state, action, actor)
        after, events = apply(state, action)
        self.session.record = self.session.record.then(action)
        self.state = after
        self.changed_at = now
        self.told = self.narrate(events)
        self.history.append((seat, events))
        if is_chance(after) and (action.type != "quit" or to_act(after) != seat
                                 or not is_chance(state)):
            # a new turn or an extra roll gets a fresh clock; another seat quitting does not,
            # unless it settled the seat to act's decision and left it an extra roll (Royal: a
            # two-crowns choice whose rider left, so the carrier throws again)
            self.session.deadline = now + self.turn_seconds * 1000
        return events

    def due(self, now: float, auto_delay: float = 0.0, pace: float = 0.0) -> Due | None:
        """The automatic action that comes next, and the time (epoch ms) it is due.

        A computer plays ``pace`` ms after the position changed; the only
        possible move of a person plays itself after ``auto_delay``, even when that
        falls after the deadline (the roll was made in time and nothing is left to
        decide, so it costs no timeout); otherwise a person's (or a remote peer's)
        clock runs out at the deadline, where a remote peer's only move plays itself
        instead. ``now`` only bounds a deadline that is not a finite number.
        """
        seat = self.seat_to_act
        if seat is None:
            return None
        kind = self.kind(seat)
        if kind in COMPUTER_LEVELS:
            return Due("computer", seat, self.changed_at + pace)
        if kind == "human":
            auto = self.auto()
            if auto is not None:
                return Due("auto", seat, self.changed_at + auto_delay, auto)
        deadline = self.session.deadline
        if self.session.timer and deadline is not None:
            if not math.isfinite(deadline):
                deadline = now
            if kind == "remote":
                # a peer's page plays its own only move; if that never comes (the peer
                # dropped after rolling), the move still plays itself at the deadline, and
                # costs no timeout: there was nothing to decide (rule 2)
                auto = self.auto()
                if auto is not None:
                    return Due("auto", seat, deadline, auto)
            return Due("timeout", seat, deadline, Action("timeout"))
        return None

    def run_due(self, due: Due, now: float) -> list[dict[str, Any]]:
        """Play an automatic action that :meth:`due` named (an auto-move or a timeout)."""
        if due.kind == "auto" and due.action is not None:
            return self.submit(due.seat, due.action, now)
        if due.kind == "timeout":
            return self.submit(TABLE, Action("timeout"), now)
        raise IllegalAction(f"{due.kind} is played by its agent, not by the table")

    def computer_thinking(self) -> Generator[None, None, Action]:
        """The computer's search for the seat to act, as slices (see ludo.bots.think)."""
        from ludo import bots

        seat = self.seat_to_act
        if seat is None or self.kind(seat) not in COMPUTER_LEVELS:
            raise IllegalAction("no computer is to act")
        seed = (self.record.seed + len(self.record.actions)) & 0xFFFFFFFF
        return bots.think(self.state, self.kind(seat), seed)
