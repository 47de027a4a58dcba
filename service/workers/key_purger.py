"""The purge of expired idempotency keys (and of old notifications and invites): one process of
the deployment does it, on a schedule.

Keys are kept ``PREFERANS_IDEMPOTENCY_TTL`` seconds (24 h); past that ``es.command`` already
treats one as unused, and the purger deletes them in batches so the table stays bounded under
load. Exactly one process purges: the one that holds a session-level advisory lock on its own
connection (the others keep trying, and take over when it goes away).
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any

import asyncpg

from service.eventlog.log import EventLog
from service.platform.worker_kit import Worker

log = logging.getLogger(__name__)

_LEADER = "SELECT pg_try_advisory_lock(hashtext('preferans:key-purger'))"
_RESIGN = "SELECT pg_advisory_unlock(hashtext('preferans:key-purger'))"


class KeyPurger:
    """Purges expired keys every ``interval`` seconds while it leads (see the module doc)."""

    def __init__(
        self,
        log: EventLog[Any],
        *,
        interval: float = 60.0,
        batch: int = 5000,
        also: Callable[[], Awaitable[int]] | None = None,
    ) -> None:
        self.log = log
        self.also = also
        """Another purge on the same schedule (old notifications and invites)."""
        self.interval = interval
        self.batch = batch
        self.purged = 0
        """Keys this process has deleted."""
        self._lock: asyncpg.Connection | None = None
        """The connection holding the leader's lock, while this process leads."""
        self.worker = Worker("key-purger", self._round, interval=interval, after=self._resign)

    async def run(self) -> None:
        await self.worker.run()

    async def _round(self) -> float | None:
        """Purge once if this process leads (or can now lead): the leader keeps its lock, on a
        connection of its own, until it fails or stops."""
        if self._lock is None:
            conn = await self.log.pool.acquire()
            try:
                leads = await conn.fetchval(_LEADER)
            except BaseException:
                await self.log.pool.release(conn)
                raise
            if not leads:
                await self.log.pool.release(conn)
                return None
            self._lock = conn
        try:
            self.purged += await self.log.purge_idempotency_keys(self.batch)
            if self.also is not None:
                await self.also()
        except Exception:
            await self._resign()  # the database is away: lead again once it is back
            raise
        return None

    async def _resign(self) -> None:
        lock, self._lock = self._lock, None
        if lock is not None:
            try:
                await lock.fetchval(_RESIGN)
            except Exception as exc:
                log.warning("idempotency key purge: could not resign (%s)", exc)
            finally:
                await self.log.pool.release(lock)
