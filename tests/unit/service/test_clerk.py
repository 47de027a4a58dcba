"""The tournaments' clerk (`service.workers.clerk.Clerk.look`), without a database: a hint's
round settles only the tournaments with a result to record, and every unfinished tournament
(with the day's robot duplicate) is looked at once an interval, whatever the hints."""

from __future__ import annotations

import uuid
from typing import Any

from service.workers.clerk import Clerk

RUNNING = [uuid.UUID(int=n) for n in range(1, 6)]


class Tournaments:
    """What the clerk asks of `service.games.tournaments.TournamentService`, recorded."""

    pool: Any = None

    def __init__(self) -> None:
        self.asked: list[str] = []
        self.settled: list[uuid.UUID] = []
        self.to_record: list[uuid.UUID] = []

    async def daily(self) -> None:
        self.asked.append("daily")

    async def unfinished(self) -> list[uuid.UUID]:
        self.asked.append("unfinished")
        return list(RUNNING)

    async def with_results_to_record(self) -> list[uuid.UUID]:
        self.asked.append("to record")
        return list(self.to_record)

    async def settle(self, tid: uuid.UUID) -> int:
        self.settled.append(tid)
        return 1 if tid in self.to_record else 0


async def test_a_hints_round_settles_only_the_tournaments_with_a_result_to_record() -> None:
    now = [100.0]
    tournaments = Tournaments()
    clerk = Clerk(tournaments, interval=1.0, clock=lambda: now[0])  # type: ignore[arg-type]

    assert await clerk.look() is None  # the first look: every tournament
    assert tournaments.asked == ["daily", "unfinished"] and tournaments.settled == RUNNING

    tournaments.asked.clear()
    tournaments.settled.clear()
    now[0] += 0.05  # a hint, 50 ms later: nothing ended, nothing settled
    assert await clerk.look() is None
    assert tournaments.asked == ["to record"] and tournaments.settled == []

    tournaments.to_record = [RUNNING[3]]  # a table of the fourth ended
    now[0] += 0.05
    assert await clerk.look() == 0  # a result sent: again at once
    assert tournaments.asked == ["to record", "to record"]
    assert tournaments.settled == [RUNNING[3]]


async def test_every_tournament_is_looked_at_once_an_interval_whatever_the_hints() -> None:
    now = [0.0]
    tournaments = Tournaments()
    clerk = Clerk(tournaments, interval=1.0, clock=lambda: now[0])  # type: ignore[arg-type]
    full = 0
    for _ in range(60):  # three seconds of hints, 50 ms apart
        tournaments.asked.clear()
        await clerk.look()
        full += tournaments.asked == ["daily", "unfinished"]
        now[0] += 0.05
    assert full == 3  # at 0, 1 and 2 s

    quiet = Clerk(Tournaments(), interval=1.0, daily=False, clock=lambda: now[0])  # type: ignore[arg-type]
    await quiet.look()
    assert quiet.tournaments.asked == ["unfinished"]  # type: ignore[attr-defined]
