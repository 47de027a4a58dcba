"""The purge of expired idempotency keys (and of old notifications and invites): one process of
the deployment does it, on a schedule.

Keys are kept ``PREFERANS_IDEMPOTENCY_TTL`` seconds (24 h); past that ``es.command`` already
treats one as unused, and the purger deletes them in batches so the table stays bounded under
load. Exactly one process purges: the one that holds a session-level advisory lock on its own
connection (the others keep trying, and take over when it goes away).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from service.eventlog.log import EventLog
from service.platform.leadership import Leadership
from service.platform.worker_kit import Worker

LEADER = "preferans:key-purger"
"""The job's name in `service.platform.leadership`: one process of the deployment purges."""


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
        self.leadership = Leadership(log.pool)
        self.worker = Worker(
            "key-purger", self._round, interval=interval, after=self.leadership.resign_all
        )

    async def run(self) -> None:
        await self.worker.run()

    async def _round(self) -> float | None:
        """Purge once if this process leads (or can now lead)."""
        if not await self.leadership.lead(LEADER):
            return None
        try:
            self.purged += await self.log.purge_idempotency_keys(self.batch)
            if self.also is not None:
                await self.also()
        except Exception:
            await self.leadership.resign(LEADER)  # the database is away: lead again once back
            raise
        return None
