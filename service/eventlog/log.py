"""The event log: the event store paired with the domain's codec, built once and shared.

Everything that reads or writes a stream goes through one `EventLog`: the command handler, the
projections, the live updates, export and import, the benchmarks. It owns the one codec (with the
upcasters of every old event shape, `service.eventlog.codec.domain_codec`), so a stored event always
decodes to its current shape and a new one is always written at its current schema version, and
the one `Announcer` that tells other processes of this one's appends. `game_log` makes it;
`service.app.create_app` and the CLI call it exactly once.
"""

from __future__ import annotations

import contextlib
import logging
import os
import time
import uuid
from collections.abc import Callable, Sequence
from typing import Any, Generic, NamedTuple, TypeVar

import asyncpg
import msgspec

from service.eventlog.codec import CodecError, EventCodec, domain_codec
from service.eventlog.store import (
    ANY,
    NO_STREAM,
    Announcer,
    AppendResult,
    EventStore,
    FeedCursor,
    FeedHints,
    Metadata,
    NewEvent,
    RecordedEvent,
    StreamUnreadable,
)
from service.platform.lru import Lru
from service.platform.metrics import STREAMS_QUARANTINED

E = TypeVar("E", bound=msgspec.Struct)
S = TypeVar("S")

log = logging.getLogger(__name__)

Listener = Callable[[str, int], None]
"""Told ``(stream_id, version)`` after each append of this process has committed."""


HEAD_TRUST = 1.0
"""Seconds a stream's head, as read from the log, is trusted without another read while no
hint says otherwise: the bound on a stale answer should a hint be lost (the live poller reads
every followed stream this often anyway)."""


class Heads:
    """What this process knows of streams' heads, so that a conditional read whose version is
    current needs no read of the log (a 304 without a round trip).

    A head is *confirmed* when the log was read at that version (the read's start is the time
    kept) or this process committed it; every post-commit hint of any process (NOTIFY, heard by
    the LISTEN connection of the process's `service.eventlog.hints.HintHub`) that names a later
    version spoils it. So a head is
    taken as current only while the hints are heard (`listening`), no hint names a later
    version, and it was confirmed less than ``trust`` seconds ago. A commit in another process
    is seen here once its hint arrives (the announcer's 20 ms batch and the delivery), and at
    the latest ``trust`` seconds after the last read, should its hint be lost.
    """

    def __init__(self, *, trust: float = HEAD_TRUST, size: int = 20_000,
                 clock: Callable[[], float] = time.monotonic) -> None:  # fmt: skip
        self.trust = trust
        self.clock = clock
        self.listening = False
        """Whether the hints are heard now (the hint hub holds its LISTEN connection)."""
        self._known: Lru[str, tuple[int, float, int]] = Lru(size)
        """stream → (confirmed version, when it was read, the highest version hinted)."""

    def confirmed(self, stream_id: str, version: int, at: float | None = None) -> None:
        """The log was at ``version`` when read at ``at`` (now if None), or we committed it."""
        at = self.clock() if at is None else at
        held = self._known.get(stream_id)
        hinted = held[2] if held is not None else 0
        if held is None or held[0] <= version:
            self._known.put(stream_id, (version, at, hinted))

    def hinted(self, stream_id: str, version: int) -> None:
        """A hint: some process committed ``version`` of the stream."""
        held = self._known.get(stream_id)
        if held is None:
            self._known.put(stream_id, (0, 0.0, version))
        elif version > held[2]:
            self._known.put(stream_id, (held[0], held[1], version))

    def listen(self, listening: bool) -> None:
        """The hints are heard from now on (after a reconnect, forget everything: some may have
        been missed), or no longer."""
        self._known.clear()
        self.listening = listening

    def current(self, stream_id: str, version: int) -> bool:
        """Whether ``version`` is known to be the stream's head now (see the class docstring)."""
        if not self.listening or version <= 0:
            return False
        held = self._known.get(stream_id)
        return (
            held is not None
            and held[0] == version
            and held[2] <= version
            and self.clock() - held[1] < self.trust
        )


class Logged(NamedTuple, Generic[E]):
    """A stored event and its decoded domain event."""

    record: RecordedEvent
    event: E

    @property
    def version(self) -> int:
        return self.record.version


class EventLog(Generic[E]):
    """The store and the codec of its events (see the module docstring)."""

    def __init__(
        self,
        store: EventStore,
        codec: EventCodec,
        *,
        announcer: Announcer | None = None,
        heads: Heads | None = None,
    ) -> None:
        self.store = store
        self.codec = codec
        self.announcer = announcer
        self.heads = heads or Heads()
        self._listeners: list[Listener] = []
        self._quarantined: set[str] = set()
        """Streams found unreadable by this process: alerted on once each (the log is
        immutable, so the finding stands; derived again after a restart, never stored)."""

    @property
    def pool(self) -> asyncpg.Pool:
        return self.store.pool

    # --- reading --------------------------------------------------------------------------------

    def decode(self, record: RecordedEvent) -> E:
        """The current domain event of a stored one (upcast if it is an old shape);
        `StreamUnreadable` if it is of no type or shape this service knows."""
        try:
            event: Any = self.codec.decode(record.event_type, record.schema_version, record.data)
        except CodecError as exc:
            raise self.unreadable(record, f"cannot be decoded ({exc})") from exc
        return event  # type: ignore[no-any-return]

    def fold(self, evolve: Callable[[S, E], S], state: S, records: Sequence[RecordedEvent]) -> S:
        """``state`` after the decoded ``records``; `StreamUnreadable` naming the first one that
        does not decode or that ``evolve`` cannot fold (a forged event the state has no place
        for raises anything: it is quarantined, not answered with a 500)."""
        for record in records:
            _, state = self.step(evolve, state, record)
        return state

    def step(
        self, evolve: Callable[[S, E], S], state: S, record: RecordedEvent, event: E | None = None
    ) -> tuple[E, S]:
        """``record``'s event (decoded, unless given) and the state after it (`fold` of one)."""
        if event is None:
            event = self.decode(record)
        try:
            return event, evolve(state, event)
        except Exception as exc:  # any failure of the fold is the event's
            reason = f"cannot be folded ({type(exc).__name__}: {exc})"
            raise self.unreadable(record, reason) from exc

    def quarantined(self, stream_id: str) -> bool:
        """Whether this process found an event of the stream it cannot read (`unreadable`)."""
        return stream_id in self._quarantined

    def unreadable(self, record: RecordedEvent, reason: str) -> StreamUnreadable:
        """The quarantine of ``record``'s stream, alerted on once per stream and process: one
        log line and ``preferans_streams_quarantined_total``."""
        stream = record.stream_id
        if stream not in self._quarantined:
            self._quarantined.add(stream)
            STREAMS_QUARANTINED.inc()
            log.error("stream %s quarantined: event %d (%s) %s", stream, record.version,
                      record.event_type, reason)  # fmt: skip
        return StreamUnreadable(stream, record.version, record.event_type, reason)

    async def read(
        self,
        stream_id: str,
        from_version: int = 1,
        *,
        limit: int | None = None,
        conn: asyncpg.Connection | None = None,
    ) -> list[Logged[E]]:
        """The stream's events from ``from_version`` on, decoded."""
        records = await self.store.read_stream(stream_id, from_version, limit=limit, conn=conn)
        return [Logged(record, self.decode(record)) for record in records]

    async def read_stored(
        self, stream_id: str, from_version: int = 1, *, conn: asyncpg.Connection | None = None
    ) -> list[RecordedEvent]:
        """The stream's events from ``from_version`` on as stored, not decoded (a follower
        decodes only what its reader may see)."""
        return await self.store.read_stream(stream_id, from_version, conn=conn)

    async def read_stored_streams(
        self, stream_ids: Sequence[str]
    ) -> dict[str, list[RecordedEvent]]:
        """Several whole streams as stored, in one statement (a page of a bulk read)."""
        return await self.store.read_streams(stream_ids)

    # --- the global feed ----------------------------------------------------------------------

    def listen(self) -> contextlib.AbstractAsyncContextManager[FeedHints]:
        """The append hints of every process (LISTEN on a connection of its own)."""
        return self.store.listen()

    async def read_feed_of(
        self, after: FeedCursor, limit: int, event_types: Sequence[str]
    ) -> tuple[list[RecordedEvent], FeedCursor, int]:
        """`EventStore.read_feed_of`: a page of the feed of these types, below its horizon."""
        return await self.store.read_feed_of(after, limit, event_types)

    async def feed_head(self, conn: asyncpg.Connection | None = None) -> tuple[int, int]:
        """The global position of the newest event, and how many events the log holds."""
        return await self.store.feed_head(conn)

    async def feed_lag(
        self, cursor: FeedCursor, conn: asyncpg.Connection | None = None
    ) -> tuple[int, float]:
        """How many events lie past ``cursor``, and the age in seconds of the oldest of them."""
        return await self.store.feed_lag(cursor, conn)

    async def feed_behind(
        self, cursor: FeedCursor, position: int, conn: asyncpg.Connection | None = None
    ) -> bool:
        """`EventStore.feed_behind`: an event at or below ``position`` is not read yet."""
        return await self.store.feed_behind(cursor, position, conn)

    async def feed_has_more(
        self, cursor: FeedCursor, conn: asyncpg.Connection | None = None
    ) -> bool:
        """Whether a committed event below the feed's horizon lies past ``cursor``."""
        return await self.store.feed_has_more(cursor, conn)

    # --- upkeep -------------------------------------------------------------------------------

    async def purge_idempotency_keys(self, batch: int = 5000) -> int:
        """Delete up to ``batch`` expired idempotency keys; how many were."""
        return await self.store.purge_idempotency_keys(batch)

    def on(self, pool: asyncpg.Pool) -> EventLog[E]:
        """The same log read through another server's ``pool`` (a streaming standby)."""
        return EventLog(EventStore(pool), self.codec)

    def with_codec(self, codec: EventCodec) -> EventLog[Any]:
        """The same store, announcer and heads with another codec: the log of another kind of
        stream (a tournament's, `service.games.tournaments`); its appends tell this log's
        listeners too."""
        other: EventLog[Any] = EventLog(
            self.store, codec, announcer=self.announcer, heads=self.heads
        )
        other._listeners = self._listeners
        return other

    # --- writing --------------------------------------------------------------------------------

    def new_events(
        self,
        events: Sequence[E],
        ids: Sequence[uuid.UUID],
        metadata: Metadata,
        salts: Sequence[bytes | None] | None = None,
    ) -> list[NewEvent]:
        """``events`` encoded for `EventStore.append`, with their ids and shared metadata, and
        each its own salt for the hash chain (``salts``, e.g. an import's; else drawn here)."""
        new = []
        for index, (event, event_id) in enumerate(zip(events, ids, strict=True)):
            salt = salts[index] if salts is not None else None
            event_type, schema_version, data = self.codec.encode(event)
            new.append(
                NewEvent(
                    event_id=event_id,
                    event_type=event_type,
                    schema_version=schema_version,
                    data=msgspec.Raw(data),
                    metadata=msgspec.structs.replace(metadata, salt=(salt or os.urandom(16)).hex()),
                )
            )
        return new

    async def append(
        self,
        stream_id: str,
        events: Sequence[NewEvent],
        expected: int | None = ANY,
        *,
        conn: asyncpg.Connection | None = None,
    ) -> AppendResult:
        """`EventStore.append`; without ``conn`` it has committed on return and is announced."""
        result = await self.store.append(stream_id, events, expected, conn=conn)
        if conn is None:
            self.committed(result.stream_id, result.version)
        return result

    async def write_new_stream(
        self,
        stream_id: str,
        events: Sequence[NewEvent],
        *,
        summary: Any,
        conn: asyncpg.Connection,
    ) -> int:
        """Write a whole stream that must not exist yet (an import), with the effects
        ``summary`` names, in the caller's transaction; its version. `StreamConflict` if it
        exists, `DuplicateEventId` if its events are stored already. Announced by the caller,
        once the transaction has committed (`committed`)."""
        written = await self.store.command(stream_id, events, NO_STREAM, summary=summary, conn=conn)
        assert written.result is not None, "a write at NO_STREAM appends or raises"
        return written.result.version

    # --- after a commit -------------------------------------------------------------------------

    def add_listener(self, listener: Listener) -> None:
        """Call ``listener(stream_id, version)`` after each committed append of this process."""
        self._listeners.append(listener)

    def committed(self, stream_id: str, version: int) -> None:
        """An append of this process committed: tell the listeners and the other processes."""
        self.heads.confirmed(stream_id, version)
        for listener in self._listeners:
            listener(stream_id, version)
        if self.announcer is not None:
            self.announcer.announce(stream_id, version)

    async def close(self) -> None:
        """Send the hints still queued (before the pool closes)."""
        if self.announcer is not None:
            await self.announcer.close()


def game_log(
    pool: asyncpg.Pool,
    *,
    announce: bool = True,
    head_trust: float = HEAD_TRUST,
    group_commit: int = 1,
) -> EventLog[Any]:
    """The log of the games' streams on ``pool``: the domain codec and, with ``announce``, the
    NOTIFY hints for other processes; heads trusted ``head_trust`` seconds (0: never); up to
    ``group_commit`` commands in one transaction (`EventStore`). The composition root's one
    call."""
    announcer = Announcer(pool) if announce else None
    store = EventStore(pool, group_commit=group_commit)
    return EventLog(store, domain_codec(), announcer=announcer, heads=Heads(trust=head_trust))
