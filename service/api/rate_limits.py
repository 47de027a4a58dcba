"""Rate limits shared by every service process: fixed windows counted in PostgreSQL.

Each request is a hit on a few buckets (``reads:token:<hash>``, ``writes:addr:<ip>`` …) in the
current window of its policy (``reads`` or ``writes``, so many hits per so many seconds). A
process decides at once from what it knows, never waiting on the database: the window's count
as the database last told it, plus its own hits since. A background task (`RateLimiter.run`)
sends those hits every ``sync_interval`` seconds in one statement and learns the counts of every
process back. So the limit holds across processes to within what they admit between two syncs
(``sync_interval`` times the request rate), and a request costs the database nothing.

`RateLimiter.hit` returns a `Verdict` with what the RateLimit headers say (docs: the IETF
draft ``RateLimit`` / ``RateLimit-Policy`` fields); the HTTP layer turns a refusal into 429.
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import asyncpg

from service.platform.worker_kit import Worker

log = logging.getLogger(__name__)

_SYNC = """
INSERT INTO api.rate_counts AS c (bucket, win, hits)
SELECT * FROM unnest($1::text[], $2::bigint[], $3::int[])
ON CONFLICT (bucket, win) DO UPDATE SET hits = c.hits + EXCLUDED.hits
RETURNING bucket, win, hits"""

_READ = """
SELECT bucket, win, hits FROM api.rate_counts
 WHERE (bucket, win) IN (SELECT * FROM unnest($1::text[], $2::bigint[]))"""

_FORGET = "DELETE FROM api.rate_counts WHERE win < $1 AND bucket LIKE $2 || ':%'"


@dataclass(frozen=True, slots=True)
class Policy:
    """``limit`` hits per ``window`` seconds for each subject (a token, an address)."""

    name: str
    limit: int
    window: int

    def __post_init__(self) -> None:
        if self.limit < 1 or self.window < 1:
            raise ValueError(f"a rate limit needs a positive limit and window: {self}")


CHAT = Policy("chat", 5, 10)
"""Chat at a table: five messages per ten seconds per player per table (`service.api.chat`),
counted whether the request limits are on or not: a conversation, not a flood."""


@dataclass(frozen=True, slots=True)
class Verdict:
    """A request's fate under one policy: admitted or not, and what the headers say."""

    allowed: bool
    policy: Policy
    remaining: int
    """Hits left in this window for the most constrained subject."""
    reset: int
    """Seconds until the window ends (and, if refused, until a retry may succeed)."""


class RateLimiter:
    """See the module docstring. ``clock`` is monotonic-free wall time in seconds (tests)."""

    def __init__(
        self,
        pool: asyncpg.Pool,
        policies: Sequence[Policy],
        *,
        sync_interval: float = 0.1,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.pool = pool
        self.policies = {p.name: p for p in policies}
        self.sync_interval = sync_interval
        self.clock = clock
        self._known: dict[tuple[str, int], int] = {}
        """(bucket, window) -> hits of every process, as the database last said."""
        self._pending: dict[tuple[str, int], int] = {}
        """(bucket, window) -> this process's hits not yet sent."""
        self._sending: dict[tuple[str, int], int] = {}
        """(bucket, window) -> this process's hits sent, their counts not yet back."""
        self._last_purge = 0.0
        self.worker = Worker(
            "rate-limits", self._round, interval=sync_interval,
            backoff=min(5.0, sync_interval * 10),
        )  # fmt: skip

    def hit(self, policy_name: str, subjects: Sequence[str]) -> Verdict:
        """Count one request of ``subjects`` under the policy, unless one of them is at its
        limit (then nothing is counted: a refused request does not use up the window)."""
        policy = self.policies[policy_name]
        now = self.clock()
        window = int(now // policy.window)
        reset = max(1, math.ceil((window + 1) * policy.window - now))
        keys = [(f"{policy.name}:{s}", window) for s in subjects]
        used = [
            self._known.get(k, 0) + self._sending.get(k, 0) + self._pending.get(k, 0) for k in keys
        ]
        worst = max(used, default=0)
        if worst >= policy.limit:
            return Verdict(False, policy, 0, reset)
        for k in keys:
            self._pending[k] = self._pending.get(k, 0) + 1
        if len(self._pending) > 10_000:
            self.worker.hint()  # a burst of new subjects: send early
        return Verdict(True, policy, policy.limit - worst - 1, reset)

    async def sync(self) -> None:
        """Send this process's hits and learn every process's counts (one statement)."""
        pending, self._pending = self._pending, {}
        if not pending:
            return
        self._sending = pending  # still counted by `hit` until the counts that include them
        try:
            rows = await self.pool.fetch(
                _SYNC,
                [b for b, _ in pending],
                [w for _, w in pending],
                list(pending.values()),
            )
        except Exception:
            for k, n in pending.items():  # keep them for the next try
                self._pending[k] = self._pending.get(k, 0) + n
            raise
        finally:
            self._sending = {}
        for bucket, window, hits in rows:
            self._known[(bucket, window)] = hits
        self._forget_old()

    def _forget_old(self) -> None:
        now = self.clock()
        current = {p.name: int(now // p.window) for p in self.policies.values()}
        self._known = {
            k: v for k, v in self._known.items() if k[1] >= current[k[0].partition(":")[0]]
        }

    async def purge(self) -> None:
        """Delete the windows that have ended (any process may; it is idempotent)."""
        now = self.clock()
        for p in self.policies.values():
            await self.pool.execute(_FORGET, int(now // p.window), p.name)

    async def run(self) -> None:
        """Sync forever (the app's background task); purge ended windows now and then. While
        the database is away, the counting goes on locally (the kit logs each failed sync)."""
        await self.worker.run()

    async def _round(self) -> float | None:
        await self.sync()
        if self.clock() - self._last_purge > 60:
            await self.purge()
            self._last_purge = self.clock()
        return None
