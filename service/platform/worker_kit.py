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
by one process at a time). A worker that must never stand still (the steward: a bot or a
timeout waits on it) gives its rounds a ``round_timeout``: a round that outlasts it is
cancelled and fails like any other, its stack logged first (where it was stuck), and the next
round comes after the backoff::

    steward = Worker("steward", steward_round, interval=1.0)
    hints.subscribe(steward.hint)
    task = asyncio.create_task(steward.run())
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any

from service.platform.metrics import (
    WORKER_ERRORS,
    WORKER_LAG_SECONDS,
    WORKER_ROUND_SECONDS,
    WORKER_ROUNDS,
)

log = logging.getLogger(__name__)

Step = Callable[[], Awaitable[float | None]]
"""One round of a worker; returns the seconds until the next is wanted (None: the interval)."""


def _awaiting(awaitable: object, depth: int = 0) -> list[str]:
    """Where ``awaitable`` (a task, a coroutine, the futures of a gather) waits: each frame of
    its chain of awaits, innermost last (a task's own stack shows only its outermost frame)."""
    lines: list[str] = []
    indent = "  " * (depth + 1)
    node: Any = awaitable.get_coro() if isinstance(awaitable, asyncio.Task) else awaitable
    while node is not None and depth < 4:
        frame = getattr(node, "cr_frame", None) or getattr(node, "gi_frame", None)
        if frame is not None:
            code = frame.f_code
            lines.append(f"{indent}{code.co_filename}:{frame.f_lineno} in {code.co_name}")
            node = getattr(node, "cr_await", None) or getattr(node, "gi_yieldfrom", None)
            continue
        if not isinstance(node, asyncio.Future):  # a future's iterator: the future it awaits
            node = next((r for r in gc.get_referents(node) if isinstance(r, asyncio.Future)), node)
        children = getattr(node, "_children", None)  # a gather's: where each of them waits
        if isinstance(node, asyncio.Task):
            lines.extend(_awaiting(node, depth + 1))
        elif children:
            for child in children:
                if not child.done():
                    lines.extend(_awaiting(child, depth + 1))
        else:
            lines.append(f"{indent}{node!r}")
        break
    return lines


class RoundTimedOut(Exception):
    """A round outlasted its worker's ``round_timeout`` (the message says where it was)."""


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
        round_timeout: float | None = None,
    ) -> None:
        """``interval``: the longest wait between rounds (hints shorten it); ``backoff``: the
        wait after a failed round (default: the interval); ``pace``: the shortest, hints or
        not (a worker that batches what piles up meanwhile); ``before``: awaited once, when
        the loop starts (retried like a round until it succeeds); ``after``: awaited when the
        loop ends (cancelled), to let go of what the worker holds; ``round_timeout``: seconds
        a round may take before it is cancelled as failed (None: as long as it takes)."""
        self.name = name
        self.step = step
        self.interval = interval
        self.backoff = interval if backoff is None else backoff
        self.pace = pace
        self.before = before
        self.after = after
        self.round_timeout = round_timeout
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
                wait = await self._step()
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

    async def _step(self) -> float | None:
        """One round, cancelled as a `RoundTimedOut` once it outlasts ``round_timeout``."""
        if self.round_timeout is None:
            return await self.step()
        task = asyncio.ensure_future(self.step())
        try:
            done, _ = await asyncio.wait({task}, timeout=self.round_timeout)
        except asyncio.CancelledError:
            task.cancel()
            raise
        if done:
            return task.result()
        stuck = "\n".join(_awaiting(task))
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await task
        raise RoundTimedOut(
            f"{self.name}: a round took over {self.round_timeout:g} s and was cancelled;"
            f" it was waiting at\n{stuck}"
        )

    def _failed(self) -> None:
        self.errors += 1
        self._errors.inc()
        log.warning("%s: a round failed", self.name, exc_info=True)
