"""The event store on PostgreSQL: append, read a stream, follow the global feed.

All of the service's SQL lives here (the schema and ``es.append`` are in ``migrations/``).

- `EventStore.command` is one call of ``es.command``: a whole command (its idempotency key, the
  version check, the events, the decision stored under the key, the lobby's summary) in one
  round trip and one commit. `EventStore.append` is ``es.append`` alone. The expected version is
  checked under a per-stream lock before any global position is allocated; writers of different
  streams never wait for each other. The request path's role can write no other way.
- With ``group_commit`` above 1, the commands a process sends close together go in one
  ``es.commands`` statement (`service.eventlog.group_commit`): one round trip and one commit
  for them all, each command in its own subtransaction, each caller answered only once the
  batch committed.
- `EventStore.read_feed` pages the global log by the cursor ``(tx_id, global_position)`` below
  the xid horizon (docs/event-store.md §9.3): it never passes a transaction that is still open,
  so an event committed late by a slow writer is never skipped, and a rolled-back one leaves no
  trace.
- `EventStore.listen` wakes feed readers: after an append commits, the `Announcer` sends
  ``NOTIFY es_events`` in a separate autocommit statement (NOTIFY inside the append would take
  a cluster-wide lock at commit), coalescing the hints of concurrent appends. A hint may be
  lost or late, so readers also poll.

The store needs a pool from `service.platform.database.create_pool` (msgspec jsonb codecs).

Errors::

    EventStoreError
    ├── StreamConflict            the expected version was stale (HTTP 412, or retry)
    ├── DuplicateEventId          an event id is already stored (a replay after its key expired)
    ├── IdempotencyKeyReused      the key was used before with another request (HTTP 422)
    ├── IdempotencyKeyInFlight    the key's first request is still running (HTTP 409)
    ├── LogRefused                what the log can never hold: only a forged command (HTTP 403)
    ├── InvalidIdempotencyKey     empty or over-long principal or key (HTTP 400)
    ├── CommitUnknown             the command was sent, and the connection failed before its
    │                             outcome came back: it may or may not have committed (HTTP 503)
    └── StreamUnreadable          an event of the stream cannot be decoded or folded: the stream
                                  is quarantined (HTTP 409 game-quarantined), never a 500

A feed cursor token we did not issue is `service.exceptions.InvalidCursor`.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import re
import time
import uuid
from collections.abc import AsyncIterator, Callable, Sequence
from datetime import datetime, timedelta
from typing import Any, Final

import asyncpg
import msgspec

from service.eventlog.group_commit import GroupCommit
from service.exceptions import InvalidCursor
from service.platform.cursors import decode_cursor, encode_cursor
from service.platform.database import nothing_sent, on_a_connection

ANY: Final = None
"""Expected version: append whatever the stream's version."""
NO_STREAM: Final = -1
"""Expected version: the stream must not exist yet (same as 0)."""
STREAM_EXISTS: Final = -2
"""Expected version: the stream must already hold events."""

NOTIFY_CHANNEL: Final = "es_events"

log = logging.getLogger(__name__)

_CONFLICT = "P0409"
_KEY_REUSED = "P0422"
_KEY_IN_FLIGHT = "P0423"
_WRITE_REFUSED = "P0401"
_LOG_REFUSED = ("P0400", "P0403")  # es.admit, api.command_effects (migration 0016)
_LOCK_TIMEOUT = "55P03"
_DEADLOCK = "40P01"


# --- errors -----------------------------------------------------------------------------------


class EventStoreError(Exception):
    """Base of the event store's errors."""


class StreamConflict(EventStoreError):
    """The stream was not at the expected version; nothing was appended."""

    def __init__(self, stream_id: str, expected: int | None, actual: int | None) -> None:
        super().__init__(f"stream {stream_id!r} is at version {actual}, expected {expected}")
        self.stream_id = stream_id
        self.expected = expected
        self.actual = actual
        """The stream's version when the append was refused; None if it did not exist."""


class LogRefused(EventStoreError):
    """The log refused what it can never hold (migration 0016): an event its stream's kind does
    not know or after the stream's end, effects for another stream, a notification of an
    unknown kind or shape, a key not the caller's. The service never sends such a command: only
    a forged one meets it. Nothing was written; the message and detail name why."""


class WriteRefused(EventStoreError):
    """What the command writes beside its events refused it (``api.command_effects``: the
    writing token was revoked); nothing was written. The message names why."""


class DuplicateEventId(EventStoreError):
    """An event with this id is already stored: the same request was executed before."""


class IdempotencyKeyReused(EventStoreError):
    """The idempotency key was already used for a different request."""


class IdempotencyKeyInFlight(EventStoreError):
    """The first request with this idempotency key has not finished yet."""


class InvalidIdempotencyKey(EventStoreError, ValueError):
    """The principal or the key is empty or longer than 255 characters."""


class StreamUnreadable(EventStoreError):
    """An event of the stream cannot be decoded (an unknown type, data of no known shape) or
    folded (its state has no place for it): no read or command of the stream can be answered.
    The log is immutable, so this holds for good; `service.eventlog.log.EventLog.unreadable`
    raises it, and alerts once per stream and process."""

    def __init__(self, stream_id: str, version: int, event_type: str, reason: str) -> None:
        super().__init__(f"event {version} ({event_type}) of {stream_id}: {reason}")
        self.stream_id = stream_id
        self.version = version
        self.event_type = event_type
        self.reason = reason


class CommitUnknown(EventStoreError):
    """A command was sent and its connection failed before the outcome arrived: it may have
    committed or not. A retry with the same idempotency key is then safe (it replays or runs)."""


# --- values -----------------------------------------------------------------------------------


def uuid7() -> uuid.UUID:
    """A time-ordered UUID (RFC 9562 v7): new ids land at the right edge of the btree."""
    value = (time.time_ns() // 1_000_000) << 80 | int.from_bytes(os.urandom(10), "big")
    value = value & ~(0xF << 76) | 0x7 << 76  # version 7
    value = value & ~(0x3 << 62) | 0x2 << 62  # RFC variant
    return uuid.UUID(int=value)


_TOKEN = re.compile(r"(\d{1,19})\.(\d{1,19})")
_FEED = "feed"


_FEED_HEAD = "SELECT coalesce(max(global_position), 0), count(*) FROM es.events"
_FEED_LAG = """
SELECT count(*), coalesce(extract(epoch FROM now() - min(recorded_at)), 0)::float8
  FROM es.events
 WHERE (tx_id, global_position) > ($1::xid8, $2::bigint)"""
_FEED_HAS_MORE = """
SELECT EXISTS (SELECT 1 FROM es.events
                WHERE (tx_id, global_position) > ($1::xid8, $2::bigint)
                  AND tx_id < pg_snapshot_xmin(pg_current_snapshot()))"""

_FEED_BEHIND = """
SELECT EXISTS (SELECT 1 FROM es.events
                WHERE (tx_id, global_position) > ($1::xid8, $2::bigint)
                  AND global_position <= $3)"""


class FeedCursor(msgspec.Struct, frozen=True, order=True):
    """A place in the global feed: the pair ``(tx_id, position)`` of the last event read.

    Clients only ever see it as the opaque `token`.
    """

    tx_id: int
    position: int

    def token(self) -> str:
        """The opaque form handed to API clients."""
        return encode_cursor(_FEED, f"{self.tx_id}.{self.position}")

    @classmethod
    def parse(cls, token: str) -> FeedCursor:
        """The cursor of a `token`; `InvalidCursor` for anything else."""
        match = _TOKEN.fullmatch(decode_cursor(_FEED, token))
        if match is None or max(int(match[1]), int(match[2])) >= 1 << 63:
            raise InvalidCursor(f"not a feed cursor: {token!r}")
        return cls(int(match[1]), int(match[2]))


FEED_START: Final = FeedCursor(0, 0)
"""The cursor before the first event."""


class Metadata(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """Who and what caused an event; stored beside it, never part of the domain event."""

    actor: str | None = None
    seat: int | str | None = None
    correlation_id: str | None = None
    causation_id: str | None = None
    idempotency_key: str | None = None
    thought: str | None = None
    """How a program chose the move (a bot's level, the seed of its generator, its budget), so
    that the move can be thought again exactly from what its seat saw."""
    salt: str | None = None
    """The event's salt in the hash chain (hex, 16 bytes; `service.eventlog.chain`): es.append moves
    it out of the metadata into its own column, and draws one if none is given."""


class NewEvent(msgspec.Struct, frozen=True, kw_only=True):
    """An event about to be appended; ``data`` is a JSON object (pre-encoded `msgspec.Raw`)."""

    event_id: uuid.UUID
    event_type: str
    schema_version: int
    data: msgspec.Raw | dict[str, Any]
    metadata: Metadata = Metadata()


class RecordedEvent(msgspec.Struct, frozen=True):
    """A stored event. ``data`` is its JSON text, ready for `EventCodec.decode`."""

    global_position: int
    tx_id: int
    stream_id: str
    version: int
    event_id: uuid.UUID
    event_type: str
    schema_version: int
    data: str
    metadata: dict[str, Any]
    recorded_at: datetime
    salt: bytes = b""
    """Hashed with the event, so that its hash tells nothing of hidden cards (never served
    while the game is played)."""
    prev_hash: bytes = b""
    """The previous event's `hash` (32 zero bytes before version 1)."""
    hash: bytes = b""
    """SHA-256 of this event's canonical bytes (`service.eventlog.chain`, docs/fairness.md)."""

    @property
    def cursor(self) -> FeedCursor:
        """The feed cursor just after this event."""
        return FeedCursor(self.tx_id, self.global_position)


class AppendResult(msgspec.Struct, frozen=True):
    """What one append wrote: the stream's new version and each event's global position."""

    stream_id: str
    version: int
    positions: tuple[int, ...]
    tx_id: int

    @property
    def first_version(self) -> int:
        """The version of the first event appended."""
        return self.version - len(self.positions) + 1

    @property
    def cursor(self) -> FeedCursor:
        """The feed cursor of the last event appended (for read-your-writes waits)."""
        return FeedCursor(self.tx_id, self.positions[-1])


class IdempotencyKey(msgspec.Struct, frozen=True):
    """An Idempotency-Key as sent by ``principal``, with the hash of the request it came with."""

    principal: str
    key: str
    request_hash: bytes

    def __post_init__(self) -> None:
        if not (0 < len(self.principal) <= 255 and 0 < len(self.key) <= 255):
            raise InvalidIdempotencyKey("principal and key must be 1 to 255 characters")


class Refusal(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """Why a command was refused, as kept under its key: the error's type (its class's name),
    its message and its machine-readable code, if it has one."""

    error: str
    message: str
    code: str | None = None


class Decision(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """What a command decided, kept under its idempotency key and replayed: nothing of any
    transport (the API renders its response from this and the log, on a replay too).

    Stored as a few dozen bytes of jsonb (``{"version":12,"appended":2,"at":1733…}``), so the
    key's row stays far below the size at which PostgreSQL moves values out of line (TOAST)."""

    version: int = 0
    """The stream's version after the command (0: the stream does not exist)."""
    appended: int = 0
    """How many events it appended: versions ``version - appended + 1`` to ``version``."""
    at: int | None = None
    """When the service received the command, ms since the epoch (its answer's server time)."""
    refusal: Refusal | None = None
    """Set when the command was refused (then nothing was appended)."""

    @property
    def first_version(self) -> int:
        """The version of the first event it appended (``version + 1`` if none)."""
        return self.version - self.appended + 1


class IdempotentRecord(msgspec.Struct, frozen=True):
    """What a used idempotency key holds: the stream and the decision of its first request."""

    stream_id: str | None
    decision: Decision


class CommandOutcome(msgspec.Struct, frozen=True):
    """What `EventStore.command` did: ``appended`` (``result``), ``refused`` (the decision was
    stored under the key, nothing appended), ``replayed`` (``stored``: the key's first
    request's decision) or ``nothing``."""

    outcome: str
    result: AppendResult | None = None
    stored: IdempotentRecord | None = None


# --- SQL --------------------------------------------------------------------------------------

_APPEND = "SELECT new_version, positions, tx FROM es.append($1, $2, $3, $4, $5, $6, $7, $8)"
_COMMAND = """
SELECT outcome, new_version, positions, tx, stored_stream, stored_decision
  FROM es.command($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)"""
# es.command's arguments, one array per argument, the events flattened (with their counts);
# a row per command, in order: es.command's, or the error that rolled it back.
_COMMANDS = """
SELECT outcome, new_version, positions, tx, stored_stream, stored_decision,
       error_code, error_message, error_detail, error_constraint, error_context
  FROM es.commands($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)"""

# Column order is RecordedEvent's field order (rows are built positionally).
_COLUMNS = """global_position, tx_id, stream_id, version, event_id, event_type, schema_version,
       data::text, metadata, recorded_at, salt, prev_hash, hash"""

_READ_STREAM = f"""
SELECT {_COLUMNS}
  FROM es.events
 WHERE stream_id = $1 AND version >= $2
 ORDER BY version
 LIMIT $3"""

_READ_STREAMS = f"""
SELECT {_COLUMNS}
  FROM es.events
 WHERE stream_id = ANY($1::text[])
 ORDER BY stream_id, version"""

# The horizon: every transaction below the snapshot's xmin has committed or aborted, so nothing
# can still appear behind the cursor (docs/event-store.md §9.3).
_READ_FEED = f"""
SELECT {_COLUMNS}
  FROM es.events
 WHERE (tx_id, global_position) > ($1::xid8, $2::bigint)
   AND tx_id < pg_snapshot_xmin(pg_current_snapshot())
 ORDER BY tx_id, global_position
 LIMIT $3"""

# The same feed, only the types a reader needs: most events (cards, bids) interest no
# projection, and sending them costs more than the projections' own work. Run in one read-only
# REPEATABLE READ transaction with _FEED_END, so that both see the same horizon.
_READ_FEED_OF = f"""
SELECT {_COLUMNS}
  FROM es.events
 WHERE (tx_id, global_position) > ($1::xid8, $2::bigint)
   AND tx_id < pg_snapshot_xmin(pg_current_snapshot())
   AND event_type = ANY($4::text[])
 ORDER BY tx_id, global_position
 LIMIT $3"""
_FEED_END = """
SELECT tx_id, global_position FROM es.events
 WHERE tx_id < pg_snapshot_xmin(pg_current_snapshot())
 ORDER BY tx_id DESC, global_position DESC
 LIMIT 1"""

_FEED_COUNT = """
SELECT count(*) FROM es.events
 WHERE (tx_id, global_position) > ($1::xid8, $2::bigint)
   AND (tx_id, global_position) <= ($3::xid8, $4::bigint)"""

_STREAM_VERSION = "SELECT version FROM es.streams WHERE stream_id = $1"


_NOTIFY = "SELECT pg_notify($1, hint) FROM unnest($2::text[]) AS hint"

# set_config(..., true) is SET LOCAL, evaluated before the insert can wait on a concurrent
# holder of the key: one round trip instead of two.
_PURGE_KEYS = "SELECT es.purge_idempotency_keys($1)"


# --- the store --------------------------------------------------------------------------------


def check_expected(expected: int | None) -> None:
    """Refuse an expected version that is none of ANY, NO_STREAM, STREAM_EXISTS or n >= 0."""
    if expected is not None and (type(expected) is not int or expected < STREAM_EXISTS):
        raise ValueError(f"invalid expected version {expected!r}")


class EventStore:
    """Appends to and reads from the ``es`` schema through an asyncpg pool.

    Methods taking ``conn`` run on it (inside the caller's transaction) instead of the pool.
    ``group_commit`` is the most commands `command` sends in one transaction (1: each alone).
    """

    def __init__(self, pool: asyncpg.Pool, *, group_commit: int = 1) -> None:
        self.pool = pool
        self.group_commit = group_commit
        self._group: GroupCommit[_Command, Sequence[Any]] | None = None
        if group_commit > 1:
            self._group = GroupCommit(self._send_commands, most=group_commit)

    async def append(
        self,
        stream_id: str,
        events: Sequence[NewEvent],
        expected: int | None = ANY,
        *,
        stream_type: str | None = None,
        conn: asyncpg.Connection | None = None,
    ) -> AppendResult:
        """Append ``events`` atomically if the stream is at ``expected``.

        ``stream_type`` defaults to the id's prefix (``table`` for ``table-0190…``). Raises
        `StreamConflict` (nothing appended) or `DuplicateEventId`. Without ``conn`` the append
        commits on its own; with ``conn`` it is part of the caller's transaction (write nothing
        before it there: the stream's lock must come before the transaction's first write, so
        the feed keeps the stream in version order). Tell an `Announcer` once it committed.
        """
        check_expected(expected)
        if not events:
            raise ValueError("append needs at least one event")
        stream_type = stream_type or stream_id.partition("-")[0]
        if conn is not None:
            return await self._append(conn, stream_id, stream_type, events, expected)
        async with self.pool.acquire() as own:
            return await self._append(own, stream_id, stream_type, events, expected)

    async def _append(
        self,
        conn: asyncpg.Connection,
        stream_id: str,
        stream_type: str,
        events: Sequence[NewEvent],
        expected: int | None,
    ) -> AppendResult:
        try:
            row = await conn.fetchrow(
                _APPEND,
                stream_id,
                stream_type,
                expected,
                [e.event_id for e in events],
                [e.event_type for e in events],
                [e.schema_version for e in events],
                [e.data for e in events],
                [e.metadata for e in events],
            )
        except asyncpg.PostgresError as exc:
            typed = _translate(exc, stream_id)
            if typed is None:
                raise
            raise typed from exc
        assert row is not None
        return AppendResult(stream_id, row[0], tuple(row[1]), row[2])

    async def command(
        self,
        stream_id: str,
        events: Sequence[NewEvent],
        expected: int | None = ANY,
        *,
        key: IdempotencyKey | None = None,
        key_ttl: float = 86_400.0,
        decision: Decision | None = None,
        summary: Any = None,
        stream_type: str | None = None,
        conn: asyncpg.Connection | None = None,
    ) -> CommandOutcome:
        """One whole command in one round trip (``es.command``; see the module docstring).

        ``events`` are appended at exactly ``expected`` (none: a refusal, stored under ``key``);
        ``decision`` is stored under ``key`` (kept ``key_ttl`` seconds); ``summary`` is the
        lobby's row (a JSON-able mapping with ``op`` ``insert`` or ``update``). Raises
        `StreamConflict`, `IdempotencyKeyReused`, `IdempotencyKeyInFlight`, `DuplicateEventId`;
        `CommitUnknown` if the connection failed once the command was sent. With ``conn`` it is
        part of the caller's transaction.
        """
        check_expected(expected)
        stream_type = stream_type or stream_id.partition("-")[0]
        args = (
            stream_id, stream_type, expected,
            [e.event_id for e in events], [e.event_type for e in events],
            [e.schema_version for e in events], [e.data for e in events],
            [e.metadata for e in events],
            key.principal if key else None, key.key if key else None,
            key.request_hash if key else None, timedelta(seconds=key_ttl),
            decision, summary,
        )  # fmt: skip
        if conn is None and self._group is not None:
            row = await self._group.submit(args)
        elif conn is not None:
            row = await _run_command(conn, args)
        else:
            row = await on_a_connection(self.pool, lambda own: _run_command(own, args))
        outcome = row[0]
        if outcome == "appended":
            return CommandOutcome(
                outcome, result=AppendResult(stream_id, row[1], tuple(row[2]), row[3])
            )
        if outcome == "replayed":
            decision = msgspec.convert(row[5], Decision)
            return CommandOutcome(outcome, stored=IdempotentRecord(row[4], decision))
        return CommandOutcome(outcome)

    async def _send_commands(self, batch: Sequence[_Command]) -> list[Sequence[Any] | Exception]:
        """A batch of `command`'s arguments in one statement: each command's row, or its error
        (typed as `command` raises it). A batch of one is a plain ``es.command``.

        A command the batch rolled back as a deadlock's victim (its subtransaction waited on a
        row, e.g. a player's notification head, that another batch held while waiting on one of
        its own) is run again alone once the batch committed: alone it could not deadlock."""
        return await on_a_connection(self.pool, lambda conn: self._send_on(conn, batch))

    async def _send_on(
        self, conn: asyncpg.Connection, batch: Sequence[_Command]
    ) -> list[Sequence[Any] | Exception]:
        """`_send_commands` on ``conn``."""
        if len(batch) == 1:
            try:
                return [await _run_command(conn, batch[0])]
            except (EventStoreError, asyncpg.PostgresError) as exc:
                return [exc]
        events = [(args[3], args[4], args[5], args[6], args[7]) for args in batch]
        try:
            rows = await conn.fetch(
                _COMMANDS,
                *([args[i] for args in batch] for i in range(3)),
                [len(ids) for ids, *_ in events],
                *([x for one in events for x in one[i]] for i in range(5)),
                *([args[i] for args in batch] for i in range(8, 14)),
            )
        except (asyncpg.ConnectionDoesNotExistError, OSError, TimeoutError) as exc:
            streams = ", ".join(sorted({args[0] for args in batch}))
            raise CommitUnknown(f"the outcome of commands to {streams} is unknown") from exc
        outcomes: list[Sequence[Any] | Exception] = []
        for args, row in zip(batch, rows, strict=True):
            if row[0] is not None:
                outcomes.append(row)
                continue
            if row[6] == _DEADLOCK:
                try:
                    outcomes.append(await _run_command(conn, args))
                except (EventStoreError, asyncpg.PostgresError) as exc:
                    outcomes.append(exc)
                continue
            error = asyncpg.PostgresError.new(
                {"C": row[6], "M": row[7], "D": row[8] or None, "n": row[9] or None,
                 "W": row[10] or None}
            )  # fmt: skip
            outcomes.append(_translate(error, args[0]) or error)
        return outcomes

    async def purge_idempotency_keys(self, batch: int = 5000) -> int:
        """Delete expired idempotency keys, ``batch`` at a time until none is left; how many."""
        total = 0
        while True:
            deleted: int = await self.pool.fetchval(_PURGE_KEYS, batch)
            total += deleted
            if deleted < batch:
                return total

    async def read_stream(
        self,
        stream_id: str,
        from_version: int = 0,
        *,
        limit: int | None = None,
        conn: asyncpg.Connection | None = None,
    ) -> list[RecordedEvent]:
        """The stream's events with ``version >= from_version``, in version order."""
        rows = await (conn or self.pool).fetch(_READ_STREAM, stream_id, from_version, limit)
        return [RecordedEvent(*row) for row in rows]

    async def read_streams(self, stream_ids: Sequence[str]) -> dict[str, list[RecordedEvent]]:
        """Several whole streams in one statement (a page of a bulk read), each in version
        order; a stream that does not exist is left out."""
        out: dict[str, list[RecordedEvent]] = {}
        for row in await self.pool.fetch(_READ_STREAMS, list(stream_ids)):
            out.setdefault(row["stream_id"], []).append(RecordedEvent(*row))
        return out

    async def stream_version(
        self, stream_id: str, *, conn: asyncpg.Connection | None = None
    ) -> int | None:
        """The stream's current version, or None if it does not exist."""
        version: int | None = await (conn or self.pool).fetchval(_STREAM_VERSION, stream_id)
        return version

    async def read_feed(
        self, after: FeedCursor = FEED_START, limit: int = 500
    ) -> list[RecordedEvent]:
        """Up to ``limit`` events after ``after`` in the global order; never skips a late commit.

        Runs in autocommit on the pool: inside a transaction holding an xid the horizon would
        wait for that very transaction.
        """
        if not 0 < limit <= 10_000:
            raise ValueError(f"feed limit must be 1 to 10000, not {limit}")
        rows = await self.pool.fetch(_READ_FEED, after.tx_id, after.position, limit)
        return [RecordedEvent(*row) for row in rows]

    async def feed_head(self, conn: asyncpg.Connection | None = None) -> tuple[int, int]:
        """The global position of the newest event, and how many events the log holds."""
        position, count = await (conn or self.pool).fetchrow(_FEED_HEAD)
        return int(position), int(count)

    async def feed_lag(
        self, cursor: FeedCursor, conn: asyncpg.Connection | None = None
    ) -> tuple[int, float]:
        """How many events lie past ``cursor``, and the age in seconds of the oldest of them."""
        count, age = await (conn or self.pool).fetchrow(_FEED_LAG, cursor.tx_id, cursor.position)
        return int(count), float(age)

    async def feed_has_more(
        self, cursor: FeedCursor, conn: asyncpg.Connection | None = None
    ) -> bool:
        """Whether a committed event below the feed's horizon lies past ``cursor``."""
        more: bool = await (conn or self.pool).fetchval(
            _FEED_HAS_MORE, cursor.tx_id, cursor.position
        )
        return more

    async def feed_behind(
        self, cursor: FeedCursor, position: int, conn: asyncpg.Connection | None = None
    ) -> bool:
        """Whether an event at or below global ``position`` lies past ``cursor``, below the
        feed's horizon or not yet (a transaction anywhere on the server, older than that event's,
        holds the horizon back)."""
        behind: bool = await (conn or self.pool).fetchval(
            _FEED_BEHIND, cursor.tx_id, cursor.position, position
        )
        return behind

    async def read_feed_of(
        self, after: FeedCursor, limit: int, types: Sequence[str]
    ) -> tuple[list[RecordedEvent], FeedCursor, int]:
        """Up to ``limit`` events of ``types`` after ``after`` in the global order, the cursor
        the feed was read to (the last event returned if there were ``limit``, else the last
        event of any type below the horizon, so that a reader moves past the events it does not
        need), and the number of events of any type up to it. All in one snapshot: nothing
        between them can be missed.

        A read-only transaction takes no transaction id, so it holds no one's horizon back.
        """
        if not 0 < limit <= 10_000:
            raise ValueError(f"feed limit must be 1 to 10000, not {limit}")
        async with (
            self.pool.acquire() as conn,
            conn.transaction(isolation="repeatable_read", readonly=True),
        ):
            rows = await conn.fetch(_READ_FEED_OF, after.tx_id, after.position, limit, types)
            batch = [RecordedEvent(*row) for row in rows]
            if len(batch) == limit:
                read_to = batch[-1].cursor
            else:
                end = await conn.fetchrow(_FEED_END)
                read_to = max(FeedCursor(end[0], end[1]) if end is not None else after, after)
            if read_to <= after:
                return batch, after, 0
            count = await conn.fetchval(
                _FEED_COUNT, after.tx_id, after.position, read_to.tx_id, read_to.position
            )
        return batch, read_to, int(count)

    @contextlib.asynccontextmanager
    async def listen(self) -> AsyncIterator[FeedHints]:
        """Hold a LISTEN connection for the block; see `FeedHints`."""
        hints = FeedHints()
        async with self.pool.acquire() as conn:
            await conn.add_listener(NOTIFY_CHANNEL, hints.on_notify)
            conn.add_termination_listener(hints.on_lost)
            try:
                yield hints
            finally:
                if not hints.lost.is_set():  # else asyncpg has let go of the connection
                    conn.remove_termination_listener(hints.on_lost)
                    await conn.remove_listener(NOTIFY_CHANNEL, hints.on_notify)

    async def follow_feed(
        self, after: FeedCursor = FEED_START, *, limit: int = 500, poll_interval: float = 1.0
    ) -> AsyncIterator[list[RecordedEvent]]:
        """Yield feed batches forever: read while there is more, else wait for a hint or poll."""
        async with self.listen() as hints:
            while True:
                batch = await self.read_feed(after, limit)
                if batch:
                    after = batch[-1].cursor
                    yield batch
                else:
                    await hints.wait(poll_interval)


class Announcer:
    """Sends the post-commit hints ``<stream_id>:<version>`` on ``NOTIFY es_events``.

    `announce` returns at once: a background task NOTIFYs in its own autocommit statement, one
    statement for every hint queued meanwhile, at most one per ``interval`` seconds. After a
    quiet spell the first hint goes out at once; under load hints batch, since each NOTIFY is a
    commit that takes a cluster-wide lock. Hints only say "look again": a lost one delays a
    reader by its poll interval at most.
    """

    def __init__(self, pool: asyncpg.Pool, *, interval: float = 0.005) -> None:
        self.pool = pool
        self.interval = interval
        self._hints: dict[str, int] = {}
        self._sender: asyncio.Task[None] | None = None

    def announce(self, stream_id: str, version: int) -> None:
        """``stream_id`` reached ``version`` (call it once the append has committed)."""
        self._hints[stream_id] = max(version, self._hints.get(stream_id, 0))
        if self._sender is None or self._sender.done():
            self._sender = asyncio.get_running_loop().create_task(self._send())

    async def _send(self) -> None:
        while self._hints:
            hints, self._hints = self._hints, {}
            try:
                await self.pool.execute(
                    _NOTIFY, NOTIFY_CHANNEL, [f"{s}:{v}" for s, v in hints.items()]
                )
            except Exception:  # best effort: readers poll anyway
                log.warning("could not send %d append hints", len(hints), exc_info=True)
            await asyncio.sleep(self.interval)

    async def close(self) -> None:
        """Send the hints still queued; call before closing the pool."""
        if self._sender is not None:
            await self._sender


class FeedHints:
    """Wake-up hints from other processes' appends, as ``{stream_id: version}``.

    Hints only say "look again": the feed (or the stream) is the truth, and a reader must poll
    anyway, since a NOTIFY can be lost with its connection.
    """

    def __init__(self) -> None:
        self._arrived = asyncio.Event()
        self._pending: dict[str, int] = {}
        self.streams: list[Callable[[str, int], None]] = []
        """Called with each stream's hint ``(stream_id, version)`` as it arrives."""
        self.others: list[Callable[[str], None]] = []
        """Called with every payload on the channel that is not a stream's hint (other news
        that shares the one LISTEN connection, e.g. a revoked token)."""
        self.lost = asyncio.Event()
        """Set when the LISTEN connection dropped: no hint arrives through it any more."""

    def on_lost(self, conn: object) -> None:
        """asyncpg termination listener callback."""
        self.lost.set()

    def on_notify(self, conn: object, pid: int, channel: str, payload: str) -> None:
        """asyncpg listener callback."""
        stream_id, _, version = payload.rpartition(":")
        if version.isdigit():
            self._pending[stream_id] = max(int(version), self._pending.get(stream_id, 0))
            for hinted in self.streams:
                hinted(stream_id, int(version))
        elif payload:
            for other in self.others:
                other(payload)
        self._arrived.set()

    async def wait(self, timeout: float) -> dict[str, int]:
        """The hints since the last call, waiting up to ``timeout`` seconds for the first."""
        # asyncio.timeout, not wait_for: on 3.11 wait_for can swallow a cancellation (gh-86296)
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(timeout):
                await self._arrived.wait()
        self._arrived.clear()
        pending, self._pending = self._pending, {}
        return pending


_Command = tuple[Any, ...]
"""``es.command``'s arguments, in order."""


async def _run_command(conn: asyncpg.Connection, args: _Command) -> Sequence[Any]:
    """One ``es.command`` on ``conn``: its row, or its typed error."""
    try:
        row: Sequence[Any] = await conn.fetchrow(_COMMAND, *args)
    except (asyncpg.ConnectionDoesNotExistError, OSError, TimeoutError) as exc:
        # Sent, and no answer: the statement may have committed or not.
        raise CommitUnknown(f"the outcome of a command to {args[0]} is unknown") from exc
    except asyncpg.InternalClientError as exc:
        if nothing_sent(exc):  # never left the client: nothing committed (a plain 503)
            raise
        raise CommitUnknown(f"the outcome of a command to {args[0]} is unknown") from exc
    except asyncpg.PostgresError as exc:  # the server answered: nothing committed
        typed = _translate(exc, args[0])
        if typed is not None:
            raise typed from exc
        raise
    return row


def _translate(exc: asyncpg.PostgresError, stream_id: str) -> EventStoreError | None:
    """The typed error for a failure an append can meet, if it is one."""
    if exc.sqlstate == _CONFLICT:
        detail = json.loads(exc.detail or "{}")
        return StreamConflict(stream_id, detail.get("expected"), detail.get("actual"))
    if exc.sqlstate == _KEY_REUSED:
        return IdempotencyKeyReused("the idempotency key was used before with another request")
    if exc.sqlstate == _WRITE_REFUSED:
        return WriteRefused(exc.message)
    if exc.sqlstate in _LOG_REFUSED:
        return LogRefused(f"{exc.message}: {exc.detail}" if exc.detail else exc.message)
    if exc.sqlstate == _KEY_IN_FLIGHT or (
        # es.command's claim of the key waited out its lock_timeout (2 s) on a concurrent
        # first request with the key: PostgreSQL names the statement in the error's context.
        exc.sqlstate == _LOCK_TIMEOUT and "es.idempotency_keys" in (exc.context or "")
    ):
        return IdempotencyKeyInFlight("the first request with this idempotency key is running")
    if getattr(exc, "constraint_name", None) == "events_event_id_key":
        return DuplicateEventId(exc.detail or "an event id is already stored")
    return None
