"""The purge of expired idempotency keys (and of old notifications and invites): one process of
the deployment does it, on a schedule.

Keys are kept ``PREFERANS_IDEMPOTENCY_TTL`` seconds (24 h); past that ``es.command`` already
treats one as unused, and the purger deletes them in batches so the table stays bounded under
load. Exactly one process purges: the one that holds a session-level advisory lock on its own
connection (the others keep trying, and take over when it goes away).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

from service.eventlog.store import EventStore

log = logging.getLogger(__name__)

_LEADER = "SELECT pg_try_advisory_lock(hashtext('preferans:key-purger'))"
_RESIGN = "SELECT pg_advisory_unlock(hashtext('preferans:key-purger'))"


class KeyPurger:
    """Purges expired keys every ``interval`` seconds while it leads (see the module doc)."""

    def __init__(
        self,
        store: EventStore,
        *,
        interval: float = 60.0,
        batch: int = 5000,
        also: Callable[[], Awaitable[int]] | None = None,
    ) -> None:
        self.store = store
        self.also = also
        """Another purge on the same schedule (old notifications and invites)."""
        self.interval = interval
        self.batch = batch
        self.purged = 0
        """Keys this process has deleted."""

    async def run(self) -> None:
        while True:
            try:
                async with self.store.pool.acquire() as lock:
                    if await lock.fetchval(_LEADER):
                        try:
                            while True:
                                self.purged += await self.store.purge_idempotency_keys(self.batch)
                                if self.also is not None:
                                    await self.also()
                                await asyncio.sleep(self.interval)
                        finally:
                            await lock.fetchval(_RESIGN)
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # the database is away: try again later
                log.warning("idempotency key purge: %s", exc)
            await asyncio.sleep(self.interval)
