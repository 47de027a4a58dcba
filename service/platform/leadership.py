"""Leadership: which process of the deployment does a job that must run once, elected in PostgreSQL.

A process leads a job while it holds the job's session-level advisory lock
(``pg_try_advisory_lock(hashtext(name))``) on a connection of its own, taken from the pool and
held across rounds, so leading costs no query per round. The others keep asking (`lead` each
round) and one of them wins once the leader lets go: when it resigns (`resign`, or
`resign_all` when its worker stops), or when its connection drops, since the server frees a
session's locks with it. A leader whose connection dropped learns it once its client has seen
the connection close, at its next `lead` after that (or the next failure on it), and stands for
election again, on a new connection. The server frees the lock as the session ends, a moment
before the client sees the socket close: for that moment another process may already lead
while the old leader's `lead` still says yes. Leading saves work; it is not what keeps a job's
writes right (a projection's checkpoint moves only from the cursor it read, so a second
runner's batch is refused)::

    leadership = Leadership(pool)
    if await leadership.lead("preferans:key-purger"):
        ...                          # this process alone, until it resigns or its link drops
    await leadership.resign_all()    # at the end: the connection goes back to the pool

Several names can be led over the one connection (the projection runner leads each read
model's checkpoint apart). A process that leads nothing holds no connection.
"""

from __future__ import annotations

import contextlib
import logging
from types import TracebackType

import asyncpg

log = logging.getLogger(__name__)

_TRY = "SELECT pg_try_advisory_lock(hashtext($1))"
_UNLOCK = "SELECT pg_advisory_unlock(hashtext($1))"


class Leadership:
    """The jobs this process leads, over one connection of ``pool`` (see the module doc)."""

    def __init__(self, pool: asyncpg.Pool) -> None:
        self.pool = pool
        self._conn: asyncpg.Connection | None = None
        self._held: set[str] = set()

    @property
    def held(self) -> frozenset[str]:
        """The names this process leads, as far as it knows (see `lead`)."""
        return frozenset(self._held)

    async def lead(self, name: str) -> bool:
        """Whether this process leads ``name`` now, taking its lock if it is free."""
        if self._conn is not None and not _open(self._conn):
            log.warning("leadership: the connection dropped; standing again for %s", name)
            await self._drop()
        if name in self._held:
            return True
        conn = self._conn if self._conn is not None else await self.pool.acquire()
        self._conn = conn
        try:
            won = bool(await conn.fetchval(_TRY, name))
        except BaseException:
            await self._drop()  # whatever it held may be gone with it: stand again later
            raise
        if won:
            self._held.add(name)
        elif not self._held:
            await self._let_go()
        return won

    async def resign(self, name: str) -> None:
        """Let another process lead ``name`` (nothing if this one does not)."""
        if name not in self._held or self._conn is None:
            return
        self._held.discard(name)
        try:
            await self._conn.fetchval(_UNLOCK, name)
        except Exception as exc:  # the connection is gone, and the lock with it
            log.warning("leadership: could not resign %s (%s)", name, exc)
            await self._drop()
            return
        except BaseException:  # cancelled mid-call: the connection's state is unknown
            await self._drop()
            raise
        if not self._held:
            await self._let_go()

    async def resign_all(self) -> None:
        """Resign everything and give the connection back (a worker's ``after``), also when
        cancelled on the way: a connection kept here would hold up the pool's close."""
        try:
            for name in sorted(self._held):
                await self.resign(name)
        finally:
            await self._let_go()

    async def __aenter__(self) -> Leadership:
        return self

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self.resign_all()

    async def _let_go(self) -> None:
        """The connection back to the pool (its reset frees any lock still on it)."""
        conn, self._conn = self._conn, None
        self._held.clear()
        if conn is not None and _open(conn):
            try:
                await self.pool.release(conn)
            except Exception:  # a broken connection: close it rather than keep it
                conn.terminate()

    async def _drop(self) -> None:
        """Forget what was held: the connection is closed, or not to be trusted."""
        conn, self._conn = self._conn, None
        self._held.clear()
        if conn is not None and _open(conn):
            conn.terminate()
            with contextlib.suppress(Exception):
                await self.pool.release(conn)


def _open(conn: asyncpg.Connection) -> bool:
    """Whether ``conn`` is still open and ours: a pooled connection that dropped has been
    handed back to the pool by asyncpg already, and refuses every call."""
    try:
        return not conn.is_closed()
    except asyncpg.InterfaceError:
        return False
