"""The service's clock: one, handed to whatever reads the time.

Every time the service stamps or compares is read here: the ``at`` of each command (the clock
of every deadline, `domain.table`), the ``server_time`` of a response, the steward's sense of
which turn ran out. The process's composition root (`service.bootstrap`) hands one clock to all
of them; tests hand a `ManualClock` and move it themselves instead of waiting.
"""

from __future__ import annotations

import time


class Clock:
    """The wall clock, in milliseconds since the epoch."""

    def now_ms(self) -> int:
        return time.time_ns() // 1_000_000


class ManualClock(Clock):
    """A clock that moves only when told to: ``advance`` it past a deadline, then poke whoever
    waits on it."""

    def __init__(self, start_ms: int | None = None) -> None:
        self._now = time.time_ns() // 1_000_000 if start_ms is None else start_ms

    def now_ms(self) -> int:
        return self._now

    def advance(self, seconds: float) -> None:
        """Move the clock ``seconds`` forward (never back: deadlines only pass)."""
        if seconds < 0:
            raise ValueError("a clock does not go back")
        self._now += round(seconds * 1000)


SYSTEM_CLOCK = Clock()
"""The clock of a running service."""
