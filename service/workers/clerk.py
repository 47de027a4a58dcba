"""The tournaments' clerk: records the tables' results and moves each event on, by itself.

One process of the deployment is the clerk (`service.platform.leadership`). Each round it looks
at every tournament not finished (`service.games.tournaments.TournamentService.settle`): an
ended table's settlement and deal outcomes recorded, a round whose tables all have a result
closed and the next one started, a robot duplicate whose window closed ended (its deals then
revealed), the tables of a round a process died before creating created. It also creates the
day's robot duplicate (``PREFERANS_DAILY_ROBOT_DUPLICATE``). A hint (any append) brings a round
at once: a table's ``game_ended`` is what it waits for. That round looks only at the
tournaments with a table whose game has ended unrecorded (one query): hints come with every
move of every game, and a look at every unfinished tournament each time was a few queries per
tournament, up to twenty times a second. Every tournament is looked at once an ``interval``
(the robot windows that close, the rounds a stopped process left half opened).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

from service.games.tournaments import TournamentService
from service.platform.leadership import Leadership
from service.platform.worker_kit import Worker

LEADER = "preferans:tournament-clerk"

log = logging.getLogger(__name__)


class Clerk:
    """The tournaments' clerk (see the module docstring)."""

    def __init__(
        self,
        tournaments: TournamentService,
        *,
        interval: float = 1.0,
        daily: bool = True,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.tournaments = tournaments
        self.daily = daily
        self.interval = interval
        self._clock = clock
        self._looked_at_all: float | None = None
        """When every unfinished tournament was last looked at (`clock`'s seconds)."""
        self.leadership = Leadership(tournaments.pool)
        self.worker = Worker(
            "tournament-clerk", self.step, interval=interval, pace=0.05,
            after=self.leadership.resign_all,
        )  # fmt: skip

    def hint(self, *_: object) -> None:
        self.worker.hint()

    async def run(self) -> None:
        await self.worker.run()

    async def step(self) -> float | None:
        """One look at every tournament in progress, if this process is the clerk."""
        if not await self.leadership.lead(LEADER):
            return None
        return await self.look()

    async def look(self) -> float | None:
        """`step` without the leadership: every unfinished tournament once an interval, else
        (a hint's round) those with a result to record."""
        now = self._clock()
        if self._looked_at_all is None or now - self._looked_at_all >= self.interval:
            self._looked_at_all = now
            if self.daily:
                await self.tournaments.daily()
            due = await self.tournaments.unfinished()
        else:
            due = await self.tournaments.with_results_to_record()
        sent = 0
        for tid in due:
            try:
                sent += await self.tournaments.settle(tid)
            except Exception:  # one tournament's trouble does not hold up the others
                log.exception("tournament %s could not be settled", tid)
        return 0 if sent else None
