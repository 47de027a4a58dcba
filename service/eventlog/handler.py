"""Command handling over a decider: load, decide, append; retry on conflict; idempotency keys.

`CommandHandler.handle` is the one way a command changes a stream (docs/event-store.md §9.2, 9.8):

1. Load the stream's state: the folded state cached in memory for the stream, plus a tail read
   of the events appended since (by any process: versions are gapless, so the tail is exact).
2. Check the caller's pinned version (HTTP If-Match), then ``decider.decide(command, state)``.
3. Write everything in one statement, ``es.command``: the idempotency key (or its earlier
   decision), the events at exactly the loaded version, the `Decision` kept under the key. If
   another writer got there first, reload and decide again, up to ``retries`` times, unless the
   caller pinned an exact version: then `StreamConflict` goes straight back (HTTP 412).

The handler answers with what it decided (`CommandResult`: the events, the new version, the
states before and after) or raises the refusal; it renders nothing. Whoever serves the command
renders its answer from that, and on a replay from the same decision, `recall`-ed from the log.

The tail read of step 1 is skipped when the state is cached: ``es.command`` checks the version
anyway, and a conflict brings a fresh read. So a command costs one round trip when this process
saw the stream's last append, two when another process wrote since.

A synchronous read model rides along: ``effects(stream, command, before, after, version)`` may
give the lobby's summary of a game, written by the same statement as the events, so the two
commit or roll back together.

With an idempotency key, the key row, the events and the decision commit together; a repeat
(even a concurrent one, which waits for the first) returns the stored decision with
``replayed=True`` and appends nothing, and `recall` gives back the rest of the first answer
(its events, the states before and after them) from the log. A domain refusal
(`PreferansError`) under a key is stored as a `Refusal` and given back on a repeat as the same
error (``result.refusal``); any other error rolls back everything, key included.

Example, with the domain's functions::

    decider = Decider(initial_state=lambda: INITIAL_STATE, decide=decide, evolve=evolve)
    handler = CommandHandler(game_log(pool), decider)
    result = await handler.handle("game-0190…", PlayCard(...), context=CommandContext(seat=1))
    result.version, result.state, [a.event for a in result.appended]
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import time
import uuid
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Generic, TypeVar

import asyncpg
import msgspec

from domain.errors import PreferansError
from service.eventlog import chain
from service.eventlog.log import EventLog
from service.eventlog.snapshots import Snapshots, SnapshotUnreadable
from service.eventlog.store import (
    ANY,
    NO_STREAM,
    CommandOutcome,
    Decision,
    EventStore,
    FeedCursor,
    IdempotencyKey,
    LogRefused,
    Metadata,
    NewEvent,
    RecordedEvent,
    Refusal,
    StreamConflict,
    check_expected,
    uuid7,
)
from service.platform.lru import Lru
from service.platform.metrics import APPEND_SECONDS, COMMANDS
from service.platform.telemetry import request_id, tracer

C = TypeVar("C")
S = TypeVar("S")
E = TypeVar("E", bound=msgspec.Struct)

log = logging.getLogger(__name__)

_EVENT_ID_NAMESPACE = uuid.UUID("5b0a8c1e-7f3d-4a55-9f4e-2d6c1b9e0a71")


@dataclass(frozen=True, slots=True)
class Decider(Generic[C, S, E]):
    """The pure game: ``decide`` holds every rule, ``evolve`` none (Chassaing's Decider)."""

    initial_state: Callable[[], S]
    decide: Callable[[C, S], Sequence[E]]
    evolve: Callable[[S, E], S]

    def fold(self, events: Iterable[E], state: S | None = None) -> S:
        """The state after ``events``, from ``state`` or the initial state."""
        current = self.initial_state() if state is None else state
        for event in events:
            current = self.evolve(current, event)
        return current


@dataclass(frozen=True, slots=True)
class CommandContext:
    """Who sends a command, when and why; stored as each event's metadata (``at`` in its
    decision)."""

    actor: str | None = None
    seat: int | str | None = None
    correlation_id: str | None = None
    causation_id: str | None = None
    idempotency: IdempotencyKey | None = None
    at: int | None = None
    """When the service received the command, ms since the epoch (kept in its `Decision`)."""
    thought: str | None = None
    """How a program chose the command (`Metadata.thought`)."""


@dataclass(frozen=True, slots=True)
class Appended(Generic[E]):
    """One event as appended: its id, stored type, stream version and global position."""

    event_id: uuid.UUID
    event_type: str
    version: int
    position: int
    event: E


@dataclass(frozen=True, slots=True)
class CommandResult(Generic[S, E]):
    """What a command decided.

    On a replay (``replayed=True``) nothing was appended: ``appended`` is empty, ``state`` is
    None, ``decision`` is what the first request stored and ``refusal`` its refusal, if it was
    refused; `CommandHandler.recall` fills in the rest from the log.
    """

    stream_id: str
    version: int
    """The stream's version after the command (0: the stream does not exist)."""
    appended: tuple[Appended[E], ...]
    state: S | None
    before: S | None = None
    """The state the command was decided in (None on a replay or a plain append)."""
    cursor: FeedCursor | None = None
    """The feed position of the last event appended, for read-your-writes waits."""
    replayed: bool = False
    decision: Decision = field(default_factory=Decision)
    """What is kept under the command's idempotency key (and what a replay has of it)."""
    refusal: Exception | None = None
    """On a replay of a refused command: its refusal, made again (`Refusal`)."""
    head: bytes | None = None
    """The hash of the stream's last event after the command (`service.eventlog.chain`); None on a
    replay or a plain append."""


Expected = int | frozenset[int] | None
"""A pinned version: ANY (None), NO_STREAM, STREAM_EXISTS, an exact version, or a set of them."""

Effects = Callable[[str, Any, Any, Any, int], Any]
"""``effects(stream_id, command, before, after, version)``: the lobby's row a command's events
call for (a JSON-able mapping ``{"op": "insert" | "update", …}``, see ``es.command``), written
in the same statement as the events; None when there is nothing to write."""


def request_hash(*parts: bytes | str) -> bytes:
    """sha256 over the parts that make a request (method, route, body, If-Match)."""
    digest = hashlib.sha256()
    for part in parts:
        data = part.encode() if isinstance(part, str) else part
        digest.update(len(data).to_bytes(8, "big"))  # length-prefixed: no ambiguous joins
        digest.update(data)
    return digest.digest()


@dataclass(frozen=True, slots=True)
class _Loaded(Generic[S]):
    version: int
    state: S
    fresh: bool
    """Read from the log just now (else trusted from the cache)."""
    head: bytes = chain.GENESIS
    """The hash of the event at ``version``."""


class CommandHandler(Generic[C, S, E]):
    """Runs commands against event streams with ``decider`` (see the module docstring).

    ``rejections`` are the exceptions that refuse a command (stored under an idempotency key);
    ``retries`` bounds re-decisions after a stream conflict; ``cache_size`` is the number of
    streams whose folded state stays in memory; ``effects`` gives the synchronous read models'
    write for a command's events (see the module docstring); ``snapshots``, if given, start a
    cold load from a stored state instead of the stream's first event, and are offered a new
    one every ``snapshots.every`` events (`service.eventlog.snapshots`).
    """

    def __init__(
        self,
        log: EventLog[E],
        decider: Decider[C, S, E],
        *,
        retries: int = 3,
        cache_size: int = 20_000,
        rejections: tuple[type[Exception], ...] = (PreferansError,),
        effects: Effects | None = None,
        key_ttl: float = 86_400.0,
        snapshots: Snapshots[S] | None = None,
        decide_apart: bool = False,
    ) -> None:
        self.log = log
        self.decide_apart = decide_apart
        """Decide in a worker thread: for a decider whose commands may take tens of milliseconds
        (a tournament pairing a thousand players), so that the event loop keeps answering
        meanwhile (the GIL passes between the two every few milliseconds)."""
        self.snapshots = snapshots
        self.key_ttl = key_ttl
        self.store = log.store
        self.decider = decider
        self.retries = retries
        self.rejections = rejections
        self.effects = effects
        self._cache: Lru[str, tuple[int, S, bytes]] = Lru(cache_size)

    async def load(
        self,
        stream_id: str,
        *,
        conn: asyncpg.Connection | None = None,
        replica: EventLog[Any] | None = None,
        at_least: int = 0,
    ) -> tuple[int, S]:
        """The stream's version and folded state (version 0 and the initial state if empty):
        the cached state, and a tail read of what was appended since.

        With ``replica`` (the log on a read-only standby) the tail is read there, unless that
        leaves the state below ``at_least`` (a version the caller proved he saw): then from the
        primary. A state from a standby may be behind the primary by the standby's lag, and
        never tells `Heads` anything."""
        version, state, _ = await self.load_with_head(
            stream_id, conn=conn, replica=replica, at_least=at_least
        )
        return version, state

    async def load_with_head(
        self,
        stream_id: str,
        *,
        conn: asyncpg.Connection | None = None,
        replica: EventLog[Any] | None = None,
        at_least: int = 0,
    ) -> tuple[int, S, bytes]:
        """`load`, and the hash of the stream's last event (its head, `service.eventlog.chain`)."""
        cached = self._cache.get(stream_id)
        if replica is not None and cached is not None:
            loaded = await self._tail(stream_id, *cached, replica.store, None)
            if loaded[0] >= at_least:
                return loaded
            cached = self._cache.get(stream_id)
        if cached is None and self.snapshots is not None:
            return await self._load_cold(stream_id, self.snapshots, conn)
        version, state, head = cached or (0, self.decider.initial_state(), chain.GENESIS)
        read_at = self.log.heads.clock()
        loaded = await self._tail(stream_id, version, state, head, self.store, conn)
        if conn is None:  # inside a caller's transaction the read may never commit to anything
            self.log.heads.confirmed(stream_id, loaded[0], read_at)
        return loaded

    async def _tail(
        self, stream_id: str, version: int, state: S, head: bytes, store: EventStore,
        conn: asyncpg.Connection | None,
    ) -> tuple[int, S, bytes]:  # fmt: skip
        tail = await store.read_stream(stream_id, version + 1, conn=conn)
        if tail:
            state = self.log.fold(self.decider.evolve, state, tail)
            version, head = tail[-1].version, tail[-1].hash
            self._cache_state(stream_id, version, state, head)
        return version, state, head

    def known_current(self, stream_id: str) -> int | None:
        """The cached version of the stream if it is known to be its head now, without a read
        (`service.eventlog.log.Heads`); else None."""
        held = self.current(stream_id)
        return held[0] if held is not None else None

    def current(self, stream_id: str) -> tuple[int, S, bytes] | None:
        """The cached version, state and head of the stream if that version is known to be its
        head now (`service.eventlog.log.Heads`), without a read; else None. What a reader gets
        from here is what a read of the log would have given, as far as the 304 that the same
        knowledge answers is right. Never for a stream found unreadable: its cached state is
        of the versions before the bad event, and every read must say so."""
        held = self._cache.get(stream_id)
        if (
            held is not None
            and self.log.heads.current(stream_id, held[0])
            and not self.log.quarantined(stream_id)
        ):
            return held
        return None

    async def _load_cold(
        self, stream_id: str, snapshots: Snapshots[S], conn: asyncpg.Connection | None
    ) -> tuple[int, S, bytes]:
        """A stream this process does not hold: its snapshot and the tail after it, or the
        whole stream when the snapshot is missing, unreadable or not the log's.

        The tail is read from the snapshot's own version on, so that the event the snapshot
        names is checked against the log in the same read (and gives the head should nothing
        follow it)."""
        version, state, head = 0, self.decider.initial_state(), chain.GENESIS
        read_at = self.log.heads.clock()
        read: list[RecordedEvent] = []
        tail: list[RecordedEvent] = []
        trusted = False
        try:
            snapshot = await snapshots.read(stream_id, conn=conn)
        except SnapshotUnreadable as exc:
            log.warning("snapshot of %s ignored: %s", stream_id, exc)
            snapshot, rejected = None, True
        else:
            rejected = False
        if snapshot is not None:
            read = await self.store.read_stream(stream_id, snapshot.version, conn=conn)
            first = read[0] if read else None
            if first and (first.version, first.event_id) == (snapshot.version, snapshot.event_id):
                version, state, tail, trusted = snapshot.version, snapshot.state, read[1:], True
            else:
                log.warning("snapshot of %s at %d is not the log's: ignored", stream_id,
                            snapshot.version)  # fmt: skip
                rejected = True
        if not trusted:
            read = tail = await self.store.read_stream(stream_id, 1, conn=conn)
        state = self.log.fold(self.decider.evolve, state, tail)
        if read:
            head = read[-1].hash
        if tail:
            version = tail[-1].version
            if rejected or len(tail) >= snapshots.every:
                snapshots.offer(stream_id, version, tail[-1].event_id, state)
        if version:
            self._cache_state(stream_id, version, state, head)
        if conn is None:
            self.log.heads.confirmed(stream_id, version, read_at)
        return version, state, head

    def cached(self, stream_id: str) -> S | None:
        """The stream's state as this process last saw it (no I/O; may be behind)."""
        held = self._cache.get(stream_id)
        return held[1] if held is not None else None

    def _cache_state(self, stream_id: str, version: int, state: S, head: bytes) -> None:
        held = self._cache.get(stream_id)
        if held is None or held[0] < version:  # a concurrent command may have cached a newer one
            self._cache.put(stream_id, (version, state, head))

    async def _current(self, stream_id: str, expected: Expected, fresh: bool) -> _Loaded[S]:
        """The state to decide in. A cached state is trusted without a read (``es.command``
        checks the version, and a conflict brings us back here with ``fresh``); a pin that
        the cache does not match is checked against the log first."""
        cached = self._cache.get(stream_id)
        if cached is not None and not fresh and _may_hold(expected, cached[0]):
            return _Loaded(cached[0], cached[1], fresh=False, head=cached[2])
        version, state, head = await self.load_with_head(stream_id)
        return _Loaded(version, state, fresh=True, head=head)

    async def handle(
        self,
        stream_id: str,
        command: C,
        *,
        context: CommandContext = CommandContext(),
        expected: Expected = ANY,
    ) -> CommandResult[S, E]:
        """`_handle`, its outcome counted in ``preferans_commands_total``
        (`service.platform.metrics`)."""
        name = type(command).__name__
        try:
            result = await self._handle(stream_id, command, context, expected)
        except self.rejections:
            COMMANDS.labels("refused", name).inc()
            raise
        except StreamConflict:
            COMMANDS.labels("conflict", name).inc()
            raise
        COMMANDS.labels("replayed" if result.replayed else "accepted", name).inc()
        return result

    async def _handle(
        self,
        stream_id: str,
        command: C,
        context: CommandContext,
        expected: Expected,
    ) -> CommandResult[S, E]:
        """Decide ``command`` against the stream and append its events, in one round trip.

        ``expected`` pins the stream version (If-Match: n, or a set of versions any of which
        will do; If-None-Match: * is ``NO_STREAM``): a mismatch raises `StreamConflict` without
        deciding. Under ``context.idempotency`` the `Decision` (or the refusal) is stored with
        the events. Raises the decider's refusals, `StreamConflict`, `IdempotencyKeyReused`,
        `IdempotencyKeyInFlight`, `CommitUnknown`.
        """
        if not isinstance(expected, frozenset):
            check_expected(expected)
        key = context.idempotency
        fresh = False
        for attempt in range(self.retries + 1):
            loaded = await self._current(stream_id, expected, fresh)
            try:
                _check_precondition(stream_id, expected, loaded.version)
            except StreamConflict:
                if loaded.fresh:
                    # The version may have moved by this very request: its first attempt
                    # committed, and the answer never reached the client, who retries.
                    if key is not None and (replayed := await self._stored(stream_id, key)):
                        return replayed
                    raise
                fresh = True  # perhaps only our cache is behind
                continue
            try:
                if self.decide_apart:
                    decided = await asyncio.to_thread(self.decider.decide, command, loaded.state)
                else:
                    decided = self.decider.decide(command, loaded.state)
                events = list(decided)
            except self.rejections as exc:
                if key is None:
                    raise
                refused = Decision(version=loaded.version, at=context.at, refusal=refusal_of(exc))
                stored = await self.store.command(
                    stream_id, [], None, key=key, key_ttl=self.key_ttl, decision=refused,
                    summary=self._unchanged(stream_id, command, loaded),
                )  # fmt: skip
                if stored.outcome == "replayed":
                    return self._replayed(stream_id, stored)
                raise
            try:
                return await self._write(stream_id, command, loaded, events, context)
            except StreamConflict:
                # Another writer appended since our state: reload and decide again, unless the
                # caller pinned the very version that is now gone.
                pinned = isinstance(expected, frozenset) or (expected is not None and expected >= 0)
                if attempt == self.retries or (pinned and loaded.fresh):
                    raise
                fresh = True
        raise AssertionError("unreachable")

    async def append_events(
        self,
        stream_id: str,
        events: Sequence[E],
        expected: int | None = ANY,
        *,
        context: CommandContext = CommandContext(),
    ) -> CommandResult[S, E]:
        """Append events the service made itself (e.g. a new table, with ``NO_STREAM``).

        No decider and no retry: `StreamConflict` if the stream is not at ``expected``. The
        result's ``state`` is None. Idempotency keys work as in `handle`; with one, ``expected``
        is ``NO_STREAM`` or a version, so that the decision kept names the versions written.
        """
        check_expected(expected)
        if not events:
            raise ValueError("append_events needs at least one event")
        decision = Decision(appended=len(events), at=context.at)
        if expected is not None and expected >= NO_STREAM:
            decision = msgspec.structs.replace(decision, version=max(expected, 0) + len(events))
        elif context.idempotency is not None:
            raise ValueError("a keyed append names the version it expects (or NO_STREAM)")
        new = self._new_events(stream_id, list(events), context, first_version=None)
        with _appending(stream_id, len(new)):
            outcome = await self.store.command(
                stream_id, new, expected, key=context.idempotency, key_ttl=self.key_ttl,
                decision=decision,
            )  # fmt: skip
        if outcome.outcome == "replayed":
            return self._replayed(stream_id, outcome)
        assert outcome.result is not None
        appended = outcome.result
        items = tuple(
            Appended(n.event_id, n.event_type, appended.first_version + i, position, event)
            for i, (n, position, event) in enumerate(
                zip(new, appended.positions, events, strict=True)
            )
        )
        self.log.committed(stream_id, appended.version)
        decision = msgspec.structs.replace(decision, version=appended.version)
        return CommandResult(
            stream_id, appended.version, items, None, cursor=appended.cursor, decision=decision
        )

    # --- one attempt ------------------------------------------------------------------------

    async def _write(
        self,
        stream_id: str,
        command: C,
        loaded: _Loaded[S],
        events: list[E],
        context: CommandContext,
    ) -> CommandResult[S, E]:
        """Write a decision: the events, the key's decision, the lobby's row, one statement."""
        key = context.idempotency
        version = loaded.version
        if not events:
            result: CommandResult[S, E] = CommandResult(
                stream_id, version, (), loaded.state, before=loaded.state, head=loaded.head,
                decision=Decision(version=version, at=context.at),
            )  # fmt: skip
            if key is None:
                return result
            stored = await self.store.command(
                stream_id, [], None, key=key, key_ttl=self.key_ttl, decision=result.decision,
                summary=self._unchanged(stream_id, command, loaded),
            )  # fmt: skip
            if stored.outcome == "replayed":
                return self._replayed(stream_id, stored)
            return result
        after = self.decider.fold(events, loaded.state)
        new = self._new_events(stream_id, events, context, first_version=version + 1)
        summary = None
        if self.effects is not None:
            summary = self.effects(stream_id, command, loaded.state, after, version + len(events))
        # The chain's new head is known before the write (es.append computes the same hashes).
        head = chain.extend(
            loaded.head,
            stream_id,
            version + 1,
            [(n.event_id, n.event_type, n.schema_version, _salt(n), _data(n)) for n in new],
        )
        provisional = CommandResult(
            stream_id,
            version + len(events),
            tuple(
                Appended(n.event_id, n.event_type, version + 1 + i, 0, event)
                for i, (n, event) in enumerate(zip(new, events, strict=True))
            ),
            after,
            before=loaded.state,
            head=head,
            decision=Decision(version=version + len(events), appended=len(events), at=context.at),
        )
        with _appending(stream_id, len(new)):
            outcome = await self.store.command(
                stream_id, new, version, key=key, key_ttl=self.key_ttl,
                decision=provisional.decision, summary=summary,
            )  # fmt: skip
        if outcome.outcome == "replayed":
            return self._replayed(stream_id, outcome)
        assert outcome.result is not None
        appended = outcome.result
        items = tuple(
            replace(item, position=position)
            for item, position in zip(provisional.appended, appended.positions, strict=True)
        )
        result = replace(provisional, appended=items, cursor=appended.cursor)
        # Committed: only now may the cache and other processes learn of it.
        self._cache_state(stream_id, result.version, after, head)
        if self.snapshots is not None and self.snapshots.due(version, result.version):
            self.snapshots.offer(stream_id, result.version, new[-1].event_id, after)
        self.log.committed(stream_id, result.version)
        return result

    def _unchanged(self, stream_id: str, command: C, loaded: _Loaded[S]) -> Any:
        """The effects of a command that appends nothing: its caller's token alone, with which
        the log's writer vouches that the key is the caller's (migration 0016)."""
        if self.effects is None:
            return None
        return self.effects(stream_id, command, loaded.state, loaded.state, loaded.version)

    async def _stored(self, stream_id: str, key: IdempotencyKey) -> CommandResult[S, E] | None:
        """The decision stored under ``key`` if an earlier attempt committed one, else None.

        Asked of ``es.command`` itself (the request path may not read the keys' table), in a
        transaction that is rolled back, so that a key seen for the first time is not claimed
        by a request that is about to be refused."""
        async with self.store.pool.acquire() as conn:
            transaction = conn.transaction()
            await transaction.start()
            try:
                outcome = await self.store.command(
                    stream_id, [], ANY, key=key, key_ttl=self.key_ttl, conn=conn
                )
            except LogRefused:  # no decision stored: the writer asked who claims a new key
                return None
            finally:
                await transaction.rollback()
        return self._replayed(stream_id, outcome) if outcome.outcome == "replayed" else None

    def _replayed(self, stream_id: str, outcome: CommandOutcome) -> CommandResult[S, E]:
        record = outcome.stored
        assert record is not None
        decision = record.decision
        refused = decision.refusal
        return CommandResult(
            stream_id=record.stream_id or stream_id,
            version=decision.version,
            appended=(),
            state=None,
            replayed=True,
            decision=decision,
            refusal=refused_again(refused, self.rejections) if refused is not None else None,
        )

    async def recall(self, result: CommandResult[S, E]) -> CommandResult[S, E]:
        """A replayed result made whole again from the log: the events its command appended (as
        stored, positions included), the states before and after them and the head after, as
        the first request's result had them, however far the stream has moved on since.

        The state before is folded from the stream's snapshot when it lies at or below the
        command's first version, else from the stream's start; a result that is not a replay,
        or a refusal, comes back as it is."""
        decision = result.decision
        if not result.replayed or result.refusal is not None:
            return result
        stream_id, first = result.stream_id, decision.first_version
        state, start, anchor = self.decider.initial_state(), 1, None
        if self.snapshots is not None:
            with contextlib.suppress(SnapshotUnreadable):
                snapshot = await self.snapshots.read(stream_id)
                if snapshot is not None and snapshot.version < first:
                    state, start, anchor = snapshot.state, snapshot.version, snapshot.event_id
        read = await self.store.read_stream(stream_id, start, limit=decision.version - start + 1)
        if anchor is not None and (not read or read[0].event_id != anchor):
            state, start = self.decider.initial_state(), 1  # not the log's snapshot: fold it all
            read = await self.store.read_stream(stream_id, 1, limit=decision.version)
        if decision.version and (not read or read[-1].version != decision.version):
            raise LookupError(f"{stream_id} holds no version {decision.version}")
        head = read[-1].hash if read else chain.GENESIS
        records = read[1:] if start > 1 else read  # a snapshot's own event is in its state
        prior = [record for record in records if record.version < first]
        state = self.log.fold(self.decider.evolve, state, prior)
        before, items = state, []
        for record in records[len(prior) :]:
            event, state = self.log.step(self.decider.evolve, state, record)
            items.append(Appended(record.event_id, record.event_type, record.version,
                                  record.global_position, event))  # fmt: skip
        return replace(
            result, appended=tuple(items), state=state, before=before, head=head,
            cursor=read[-1].cursor if items else None,
        )  # fmt: skip

    def _new_events(
        self,
        stream_id: str,
        events: Sequence[E],
        context: CommandContext,
        *,
        first_version: int | None,
    ) -> list[NewEvent]:
        key = context.idempotency
        metadata = Metadata(
            actor=context.actor,
            seat=context.seat,
            # The request that caused it, unless the caller names another cause.
            correlation_id=context.correlation_id or request_id.get(),
            causation_id=context.causation_id,
            idempotency_key=key.key if key else None,
            thought=context.thought,
        )
        ids = [
            event_id_for(key, stream_id, None if first_version is None else first_version + i, i)
            for i in range(len(events))
        ]
        return self.log.new_events(events, ids, metadata)


def refusal_of(exc: Exception) -> Refusal:
    """A refusal as kept under a key: its type's name, message and code (if it has one)."""
    code = getattr(exc, "code", None)
    return Refusal(
        error=type(exc).__name__, message=str(exc), code=code if isinstance(code, str) else None
    )


def refused_again(refusal: Refusal, rejections: tuple[type[Exception], ...]) -> Exception:
    """The error a `Refusal` was made from: the class of that name among ``rejections`` and
    their subclasses (the first of ``rejections`` if none has it), with its message and code.
    No constructor runs: a refusal is its type, message and code, whatever its ``__init__``
    takes."""
    family = list(rejections)
    for cls in family:
        family.extend(sub for sub in cls.__subclasses__() if sub not in family)
    cls = next((c for c in family if c.__name__ == refusal.error), rejections[0])
    exc = cls.__new__(cls, refusal.message)
    exc.args = (refusal.message,)
    if refusal.code is not None:
        exc.code = refusal.code  # type: ignore[attr-defined]
    return exc


def _salt(event: NewEvent) -> bytes:
    salt = event.metadata.salt
    assert salt is not None, "EventLog.new_events salts every event"
    return bytes.fromhex(salt)


def _data(event: NewEvent) -> Any:
    """An event's data as decoded JSON (what the chain hashes)."""
    data = event.data
    return data if isinstance(data, dict) else msgspec.json.decode(bytes(data))


@contextlib.contextmanager
def _appending(stream_id: str, events: int) -> Iterator[None]:
    """An append, timed (``preferans_append_seconds``) and traced (a span ``es.append``)."""
    attributes: dict[str, str | int] = {"db.system": "postgresql", "preferans.stream": stream_id,
                  "preferans.events": events}  # fmt: skip
    with tracer.start_as_current_span("es.append", attributes=attributes):
        started = time.perf_counter()
        try:
            yield
        finally:
            APPEND_SECONDS.observe(time.perf_counter() - started)


def _may_hold(expected: Expected, version: int) -> bool:
    """Whether a cached ``version`` might satisfy the pin (so deciding on it is worth a try)."""
    if isinstance(expected, frozenset):
        return version in expected
    return expected is None or expected < 0 or version == expected


def _check_precondition(stream_id: str, expected: Expected, version: int) -> None:
    """The caller's pin against the loaded version (0 means the stream does not exist)."""
    if expected is None:
        return
    if isinstance(expected, frozenset):
        if version not in expected:
            wanted = min(expected) if expected else None
            raise StreamConflict(stream_id, wanted, version or None)
        return
    if expected >= 0:
        holds = version == expected
    elif expected == NO_STREAM:
        holds = version == 0
    else:  # STREAM_EXISTS
        holds = version > 0
    if not holds:
        raise StreamConflict(stream_id, expected, version or None)


def event_id_for(
    key: IdempotencyKey | None, stream_id: str, version: int | None, index: int
) -> uuid.UUID:
    """The id of a request's event: derived from its idempotency key and the version it takes
    when it has a key (so no retry appends the same events twice, while a retry after the key
    expired, decided anew at a later version, appends fresh ones), else a fresh uuid7."""
    if key is None:
        return uuid7()
    at = f"{version}" if version is not None else f"+{index}"
    name = f"{len(key.principal)}:{key.principal}:{len(key.key)}:{key.key}:{stream_id}:{at}"
    return uuid.uuid5(_EVENT_ID_NAMESPACE, name)
