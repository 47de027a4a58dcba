"""Group commit: the commands that arrive together go to PostgreSQL together.

A command's commit waits for its WAL flush, and each command in its own transaction pays one
flush and one round trip. `GroupCommit` gathers the commands submitted within one turn of the
event loop (and those that come while the batches in flight are running) and hands them to
``send`` in one call: for the event store, one ``es.commands`` statement, so one round trip,
one transaction and one flush, each command in its own subtransaction (a refusal or a conflict
rolls back that command alone). Each caller gets its own command's result or error, and only
once ``send`` returned, that is once the batch committed: nothing is acknowledged before.

At rest a command goes out at the end of the loop turn it arrived in, alone; under load the
batches grow by themselves, up to ``most`` commands, with at most ``in_flight`` batches at the
database at once (the rest wait for one of them to finish).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from typing import Generic, TypeVar

A = TypeVar("A")
R = TypeVar("R")

Send = Callable[[Sequence[A]], Awaitable[Sequence["R | BaseException"]]]
"""Runs a batch: one result or error per item, in order. Raising fails the whole batch."""


class GroupCommit(Generic[A, R]):
    """Batches the items submitted close together into calls of ``send`` (module docstring)."""

    def __init__(self, send: Send[A, R], *, most: int = 16, in_flight: int = 2) -> None:
        if most < 1 or in_flight < 1:
            raise ValueError("a group commit needs most >= 1 and in_flight >= 1")
        self.send = send
        self.most = most
        self.in_flight = in_flight
        self._waiting: list[tuple[A, asyncio.Future[R]]] = []
        self._running = 0
        self._scheduled = False

    async def submit(self, item: A) -> R:
        """``item``'s result once its batch has been sent (its error, raised, if it failed)."""
        loop = asyncio.get_running_loop()
        done: asyncio.Future[R] = loop.create_future()
        self._waiting.append((item, done))
        if not self._scheduled:
            # At the end of this loop turn: whatever else arrives in it goes in the same batch.
            self._scheduled = True
            loop.call_soon(self._start)
        return await done

    def _start(self) -> None:
        self._scheduled = False
        while self._waiting and self._running < self.in_flight:
            batch, self._waiting = self._waiting[: self.most], self._waiting[self.most :]
            self._running += 1
            asyncio.get_running_loop().create_task(self._run(batch))

    async def _run(self, batch: list[tuple[A, asyncio.Future[R]]]) -> None:
        try:
            outcomes: Sequence[R | BaseException] = await self.send([item for item, _ in batch])
            if len(outcomes) != len(batch):
                raise RuntimeError(f"a batch of {len(batch)} gave {len(outcomes)} outcomes")
        except BaseException as exc:  # the whole batch failed: every caller learns it
            for _, done in batch:
                if not done.done():
                    done.set_exception(exc)
            if not isinstance(exc, Exception):
                raise
        else:
            for (_, done), outcome in zip(batch, outcomes, strict=True):
                if done.done():  # its caller gave up waiting; the batch ran all the same
                    continue
                if isinstance(outcome, BaseException):
                    done.set_exception(outcome)
                else:
                    done.set_result(outcome)
        finally:
            self._running -= 1
            if self._waiting and not self._scheduled:
                self._start()
