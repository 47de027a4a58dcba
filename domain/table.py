"""The table around the cards: the clock, timeouts, absence, leaving (docs/tables.md).

Pure like the rest of the domain: time comes in with commands (``at``, stamped by the service
when it received them), and everything the table knows folds from its events:

* `TurnClock`, after every move at a table with a clock (`TableRules`): each seat's time bank,
  when each seat to act began its turn, and its timeouts in a row. A seat's deadline is the start
  of its turn plus the time per move plus its bank (`deadline`).
* `TimedOut`: the seat's deadline passed, and the service moved for it (`TimeOut`). After
  ``timeouts_to_absent`` in a row, `PlayerAbsent`: the seat is played for (`PlayFor`) at once from
  then on, until its player acts again (`PlayerReturned`).
* `SeatLeft` (before the game starts: the seat is free again), `SeatAbandoned` (during it: the
  seat is played for to the end, or taken by another player where ``table.reseat`` allows).

The commands here are the table's, sent by the service (`TimeOut`, `PlayFor`) or by a player
about his seat (`ReturnToSeat`, `LeaveSeat`, `AbandonSeat`); `domain.game` decides them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

import msgspec

from domain.cards import Seat
from domain.deal.messages import SeatCommand
from domain.rules import Rules

# ---- commands -------------------------------------------------------------------------------


class TableCommand(
    msgspec.Struct, frozen=True, kw_only=True, tag_field="type", forbid_unknown_fields=True
):
    seat: Seat
    at: int | None = None
    """When the service issued or received it, in milliseconds since the epoch."""


class TimeOut(TableCommand, frozen=True, tag="time_out"):
    """The service's clock: ``seat``'s deadline has passed; ``move`` is made for it."""

    move: SeatCommand


class PlayFor(TableCommand, frozen=True, tag="play_for"):
    """The service moves for ``seat``, which is absent or was abandoned."""

    move: SeatCommand


class ReturnToSeat(TableCommand, frozen=True, tag="return_to_seat"):
    """An absent player is back (acting at his seat does the same)."""


class LeaveSeat(TableCommand, frozen=True, tag="leave_seat"):
    """Before the game starts: give the seat up; it is free again."""


class AbandonSeat(TableCommand, frozen=True, tag="abandon_seat"):
    """During the game: leave it for good; the seat is played for to the end."""


# ---- events ---------------------------------------------------------------------------------


class TableEvent(msgspec.Struct, frozen=True, kw_only=True, tag_field="type"):
    pass


class TurnClock(TableEvent, frozen=True, tag="turn_clock"):
    """The clock after a move (``at``, ms since the epoch), per seat: the time bank left (ms),
    when its turn began (null: not to act) and its timeouts in a row."""

    at: int
    banks: tuple[int, ...]
    turns: tuple[int | None, ...]
    timeouts: tuple[int, ...]


class TimedOut(TableEvent, frozen=True, tag="timed_out"):
    """``seat``'s time ran out at ``at``; the events that follow are the move made for it.
    ``in_a_row`` counts its consecutive timeouts, this one included."""

    seat: Seat
    at: int
    in_a_row: int


Reason = Literal["absent", "abandoned"]


class PlayedFor(TableEvent, frozen=True, tag="played_for"):
    """The events that follow are a move made for ``seat`` because its player is ``reason``."""

    seat: Seat
    reason: Reason


class PlayerAbsent(TableEvent, frozen=True, tag="player_absent"):
    """``seat``'s player is marked absent after ``timeouts`` timeouts in a row."""

    seat: Seat
    player: str
    timeouts: int
    at: int | None = None


class PlayerReturned(TableEvent, frozen=True, tag="player_returned"):
    """``seat``'s absent player is back and plays it again."""

    seat: Seat
    player: str
    at: int | None = None


class SeatLeft(TableEvent, frozen=True, tag="seat_left"):
    """Before the game started, ``player`` gave ``seat`` up; it is free."""

    seat: Seat
    player: str
    at: int | None = None


class SeatAbandoned(TableEvent, frozen=True, tag="seat_abandoned"):
    """``player`` abandoned the game at ``seat``; it is played for from now on."""

    seat: Seat
    player: str
    at: int | None = None


TableEvents = (
    TurnClock | TimedOut | PlayedFor | PlayerAbsent | PlayerReturned | SeatLeft | SeatAbandoned
)
TableCommands = TimeOut | PlayFor | ReturnToSeat | LeaveSeat | AbandonSeat


# ---- state ----------------------------------------------------------------------------------


class TableState(msgspec.Struct, frozen=True, kw_only=True):
    """What the table knows besides the cards, per seat (see the module docstring)."""

    banks: tuple[int, ...] = ()
    """Time bank left, ms."""
    turns: tuple[int | None, ...] = ()
    """When the seat's current turn began (ms since the epoch); None: not to act."""
    timeouts: tuple[int, ...] = ()
    """Timeouts in a row."""
    absent: frozenset[Seat] = frozenset()
    abandoned: frozenset[Seat] = frozenset()
    abandoned_by: tuple[tuple[Seat, str], ...] = ()
    """Every abandonment of the game, in order: the seat and the player who left it."""


def new_table(rules: Rules) -> TableState:
    n = rules.players
    bank = rules.table.bank_seconds * 1000
    return TableState(banks=(bank,) * n, turns=(None,) * n, timeouts=(0,) * n)


def clocked(rules: Rules) -> bool:
    """Whether the table has a clock: a time per move or a bank."""
    return rules.table.move_seconds > 0 or rules.table.bank_seconds > 0


def deadline(rules: Rules, table: TableState, seat: Seat) -> int | None:
    """When ``seat``'s time runs out (ms since the epoch), if it is to act at a clocked table."""
    began = table.turns[seat] if clocked(rules) and table.turns else None
    if began is None:
        return None
    return began + rules.table.move_seconds * 1000 + table.banks[seat]


def played_for(table: TableState, seat: Seat) -> Reason | None:
    """Why the service plays ``seat`` now, if it does: its player is absent or left."""
    if seat in table.abandoned:
        return "abandoned"
    if seat in table.absent:
        return "absent"
    return None


def next_clock(
    rules: Rules,
    table: TableState,
    *,
    at: int,
    mover: Seat | None,
    own: bool,
    before: tuple[Seat, ...],
    after: tuple[Seat, ...],
) -> TurnClock | None:
    """The clock after a command at ``at``: ``mover`` (if the command was a move of a seat that
    was to act) is charged the time past his move's own time, from his bank, and earns the
    increment if he moved himself (``own``); every seat to act ``after`` that was not already
    waiting starts its turn now. None if nothing changed."""
    move_ms = rules.table.move_seconds * 1000
    banks, turns, timeouts = list(table.banks), list(table.turns), list(table.timeouts)
    began = turns[mover] if mover is not None and mover in before else None
    if mover is not None and began is not None:
        over = max(0, at - began - move_ms)
        earned = rules.table.increment_seconds * 1000 if own else 0
        banks[mover] = max(0, banks[mover] - over) + earned
        turns[mover] = None
        if own:
            timeouts[mover] = 0
    elif mover is not None and own:
        timeouts[mover] = 0
    for seat in range(len(turns)):
        if seat in after:
            if turns[seat] is None:
                turns[seat] = at
        else:
            turns[seat] = None
    clock = TurnClock(at=at, banks=tuple(banks), turns=tuple(turns), timeouts=tuple(timeouts))
    if (clock.banks, clock.turns, clock.timeouts) == (table.banks, table.turns, table.timeouts):
        return None
    return clock


# ---- evolve ---------------------------------------------------------------------------------


def _clock(table: TableState, e: TurnClock) -> TableState:
    return msgspec.structs.replace(table, banks=e.banks, turns=e.turns, timeouts=e.timeouts)


def _timed_out(table: TableState, e: TimedOut) -> TableState:
    timeouts = list(table.timeouts)
    timeouts[e.seat] = e.in_a_row
    return msgspec.structs.replace(table, timeouts=tuple(timeouts))


def _absent(table: TableState, e: PlayerAbsent) -> TableState:
    return msgspec.structs.replace(table, absent=table.absent | {e.seat})


def _returned(table: TableState, e: PlayerReturned) -> TableState:
    timeouts = list(table.timeouts)
    timeouts[e.seat] = 0
    return msgspec.structs.replace(table, absent=table.absent - {e.seat}, timeouts=tuple(timeouts))


def _abandoned(table: TableState, e: SeatAbandoned) -> TableState:
    return msgspec.structs.replace(
        table,
        abandoned=table.abandoned | {e.seat},
        absent=table.absent - {e.seat},
        abandoned_by=(*table.abandoned_by, (e.seat, e.player)),
    )


def _unchanged(table: TableState, e: Any) -> TableState:
    return table


def taken_over(table: TableState, seat: Seat) -> TableState:
    """The table once a new player sits at ``seat`` (free, or abandoned and reseated)."""
    timeouts = list(table.timeouts) if table.timeouts else []
    if timeouts:
        timeouts[seat] = 0
    return msgspec.structs.replace(
        table,
        abandoned=table.abandoned - {seat},
        absent=table.absent - {seat},
        timeouts=tuple(timeouts),
    )


TABLE_EVOLVERS: dict[type[TableEvent], Callable[[TableState, Any], TableState]] = {
    TurnClock: _clock,
    TimedOut: _timed_out,
    PlayedFor: _unchanged,
    PlayerAbsent: _absent,
    PlayerReturned: _returned,
    SeatLeft: _unchanged,
    SeatAbandoned: _abandoned,
}
"""One function per table event: the `TableState` after it. `SeatLeft` also frees the seat,
which is the game's business (`domain.game`)."""


# ---- what a seat sees -----------------------------------------------------------------------


class SeatClock(msgspec.Struct, frozen=True, kw_only=True):
    """One seat at the table as every viewer sees it."""

    seat: Seat
    bank_ms: int | None = None
    """Time bank left (ms); null at a table without a clock."""
    deadline: int | None = None
    """When the seat's time to act runs out (ms since the epoch); null: not to act, or no clock."""
    timeouts: int = 0
    """Timeouts in a row."""
    presence: Literal["present", "absent", "abandoned"] = "present"


def seat_clocks(rules: Rules, table: TableState) -> tuple[SeatClock, ...]:
    """Every seat's clock and presence (public: every viewer sees them)."""
    on = clocked(rules)
    return tuple(
        SeatClock(
            seat=seat,
            bank_ms=table.banks[seat] if on and table.banks else None,
            deadline=deadline(rules, table, seat),
            timeouts=table.timeouts[seat] if table.timeouts else 0,
            presence=(
                "abandoned"
                if seat in table.abandoned
                else "absent"
                if seat in table.absent
                else "present"
            ),
        )
        for seat in range(rules.players)
    )
