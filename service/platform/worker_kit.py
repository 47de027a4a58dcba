"""The worker kit: one way for the service to do something in the background, for ever.

A worker supplies only its step, one round of its work, which says when it wants the next
(seconds; ``0`` at once, because more is waiting; ``None`` after the usual interval). The kit
owns the rest, alike for every worker: the loop, the wake-up (`Worker.hint`, subscribed to the
process's one hint hub, `service.eventlog.hints`: a round at once instead of at the end of the
wait), the error policy (a failed round is logged and counted, and the next comes after
``backoff``: a database that is away does not end a worker), its metrics
(``preferans_worker_rounds_total``, ``…_errors_total`` and ``…_round_seconds`` by worker, and
``…_lag_seconds`` for a step that knows how far behind it is, `Worker.report_lag`;
`service.platform.metrics`) and a clean cancellation (cancelling the task ends the loop; nothing
else does). What several workers share beside the loop is in `service.platform.leadership`
(one process of the deployment does the job) and `service.platform.leases` (due rows claimed
by one process at a time)::

    steward = Worker("steward", steward_round, interval=1.0)
    hints.subscribe(steward.hint)
    task = asyncio.create_task(steward.run())
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable

from service.platform.metrics import (
    WORKER_ERRORS,
    WORKER_LAG_SECONDS,
    WORKER_ROUND_SECONDS,
    WORKER_ROUNDS,
)

log = logging.getLogger(__name__)

Step = Callable[[], Awaitable[float | None]]
"""One round of a worker; returns the seconds until the next is wanted (None: the interval)."""


class Worker:
    """A background loop over ``step`` (see the module docstring)."""

    def __init__(
        self,
        name: str,
        step: Step,
        *,
        interval: float,
        backoff: float | None = None,
        pace: float = 0.0,
        before: Callable[[], Awaitable[None]] | None = None,
        after: Callable[[], Awaitable[None]] | None = None,
    ) -> None:
        """``interval``: the longest wait between rounds (hints shorten it); ``backoff``: the
        wait after a failed round (default: the interval); ``pace``: the shortest, hints or
        not (a worker that batches what piles up meanwhile); ``before``: awaited once, when
        the loop starts (retried like a round until it succeeds); ``after``: awaited when the
        loop ends (cancelled), to let go of what the worker holds."""
        self.name = name
        self.step = step
        self.interval = interval
        self.backoff = interval if backoff is None else backoff
        self.pace = pace
        self.before = before
        self.after = after
        self.rounds = 0
        self.errors = 0
        self._wake = asyncio.Event()
        self._rounds = WORKER_ROUNDS.labels(name)
        self._errors = WORKER_ERRORS.labels(name)
        self._seconds = WORKER_ROUND_SECONDS.labels(name)
        self._lag = WORKER_LAG_SECONDS.labels(name)

    def hint(self, *_: object) -> None:
        """Something happened that the worker may have to act on: a round at once."""
        self._wake.set()

    def report_lag(self, seconds: float) -> None:
        """How far behind its work the worker is now (``preferans_worker_lag_seconds``): a
        step that knows says so, e.g. the age of the oldest job still waiting."""
        self._lag.set(max(0.0, seconds))

    async def run(self) -> None:
        """Round after round until cancelled."""
        try:
            await self._loop()
        finally:
            if self.after is not None:
                await self.after()

    async def _loop(self) -> None:
        while self.before is not None:
            try:
                await self.before()
                break
            except asyncio.CancelledError:
                raise
            except Exception:
                self._failed()
                await asyncio.sleep(self.backoff)
        while True:
            started = time.perf_counter()
            try:
                wait = await self.step()
            except asyncio.CancelledError:
                raise
            except Exception:
                self._seconds.observe(time.perf_counter() - started)
                self._failed()
                await asyncio.sleep(self.backoff)  # a hint does not shorten the backoff
                continue
            self._seconds.observe(time.perf_counter() - started)
            self.rounds += 1
            self._rounds.inc()
            wait = self.interval if wait is None else min(max(wait, 0.0), self.interval)
            if self.pace > 0:
                await asyncio.sleep(self.pace)
                wait -= self.pace
            if wait > 0:
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(wait):
                        await self._wake.wait()
            self._wake.clear()

    def _failed(self) -> None:
        self.errors += 1
        self._errors.inc()
        log.warning("%s: a round failed", self.name, exc_info=True)
