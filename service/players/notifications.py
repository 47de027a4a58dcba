"""Each player's notifications: read page by page, or followed live by one stream per player.

The notifications are written with the events that cause them (`service.games.lobby.notifications`,
``api.notify``), numbered 1, 2, 3 … per player without gaps, in commit order. So a client that
holds the last ``seq`` it saw resumes exactly: ``?after=`` for pages, ``Last-Event-ID`` for the
stream.

`NotesHub` is one per process: it wakes the followers of a player when his head moves. It
learns of new notifications from the event store's append hints (the process's
`service.eventlog.hints.HintHub`), since every notification comes with an append or an invite, and
checks the heads of the players followed here in one query per batch (a kit worker paced at a
hundred rounds a second), and every ``poll_interval`` seconds anyway.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import uuid
from collections.abc import AsyncIterator
from datetime import datetime, timedelta
from typing import Any

import asyncpg
import msgspec

from service.platform.metrics import subscribed
from service.platform.worker_kit import Worker

log = logging.getLogger(__name__)

_PAGE = """
SELECT seq, kind, game_id, data, created_at FROM api.notifications
 WHERE player_id = $1 AND seq > $2 ORDER BY seq LIMIT $3"""
_HEADS = """
SELECT player_id::text, seq FROM api.notification_heads WHERE player_id = ANY($1::uuid[])"""
_PURGE = "SELECT api.purge_notifications($1, $2)"

KEEP = timedelta(days=14)
"""How long notifications are kept (a client away longer reads its games instead)."""


class Note(msgspec.Struct, frozen=True, kw_only=True):
    seq: int
    kind: str
    game_id: uuid.UUID | None
    data: dict[str, Any]
    created_at: datetime


class Notes:
    """Reads a player's notifications over a pool."""

    def __init__(self, pool: asyncpg.Pool) -> None:
        self.pool = pool

    async def after(self, player_id: str, after: int, limit: int = 100) -> list[Note]:
        rows = await self.pool.fetch(_PAGE, uuid.UUID(player_id), after, limit)
        return [Note(seq=r[0], kind=r[1], game_id=r[2], data=r[3], created_at=r[4]) for r in rows]

    async def purge(self, keep: timedelta = KEEP, batch: int = 5000) -> int:
        total = 0
        while True:
            deleted: int = await self.pool.fetchval(_PURGE, keep, batch)
            total += deleted
            if deleted < batch:
                return total


class _Follower:
    def __init__(self) -> None:
        self.woken = asyncio.Event()


class NotesHub:
    """Wakes the followers of each player's notifications (see the module docstring)."""

    def __init__(self, pool: asyncpg.Pool, *, poll_interval: float = 2.0) -> None:
        self.pool = pool
        self.poll_interval = poll_interval
        self._followers: dict[str, set[_Follower]] = {}
        self._heads: dict[str, int] = {}
        self._closed = False
        # At most a hundred looks a second, however busy.
        self.worker = Worker("notifications", self._round, interval=poll_interval, pace=0.01)

    def hint(self, *_: object) -> None:
        """Something was appended (here or elsewhere): look at the heads again."""
        self.worker.hint()

    async def run(self) -> None:
        await self.worker.run()

    async def _round(self) -> float | None:
        """Wake the followers of every player whose notifications moved."""
        if self._closed or not self._followers:
            return None
        rows = await self.pool.fetch(_HEADS, list(self._followers))
        for player, seq in rows:
            if seq > self._heads.get(player, 0):
                self._heads[player] = seq
                for follower in self._followers.get(player, ()):
                    follower.woken.set()
        return None

    def close(self) -> None:
        self._closed = True
        self.worker.hint()
        for followers in self._followers.values():
            for follower in followers:
                follower.woken.set()

    @property
    def closed(self) -> bool:
        return self._closed

    @contextlib.asynccontextmanager
    async def follow(self, player_id: str) -> AsyncIterator[_Follower]:
        follower = _Follower()
        self._followers.setdefault(player_id, set()).add(follower)
        try:
            yield follower
        finally:
            followers = self._followers.get(player_id)
            if followers is not None:
                followers.discard(follower)
                if not followers:
                    del self._followers[player_id]
                    self._heads.pop(player_id, None)

    async def stream(
        self, notes: Notes, player_id: str, after: int, ping_interval: float
    ) -> AsyncIterator[Note | None]:
        """``player_id``'s notifications after ``after``, live; None after ``ping_interval``
        seconds of silence (time for a keep-alive). Ends when the hub closes."""
        async with self.follow(player_id) as follower, subscribed("player"):
            last = after
            while not self._closed:
                follower.woken.clear()
                batch = await notes.after(player_id, last)
                for note in batch:
                    yield note
                    last = note.seq
                if len(batch) == 100:
                    continue
                try:
                    async with asyncio.timeout(ping_interval):
                        await follower.woken.wait()
                except TimeoutError:
                    yield None
