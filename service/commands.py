"""Command handling over a decider: load, decide, append; retry on conflict; idempotency keys.

`CommandHandler.handle` is the one way a command changes a stream (docs/event-store.md §9.2, 9.8):

1. Load the stream's state: the folded state cached in memory for the stream, plus a tail read
   of the events appended since (by any process: versions are gapless, so the tail is exact).
2. Check the caller's pinned version (HTTP If-Match), then ``decider.decide(command, state)``.
3. Append the events at exactly the loaded version. If another writer got there first, reload
   and decide again, up to ``retries`` times, unless the caller pinned an exact version: then
   `StreamConflict` goes straight back (HTTP 412).

Synchronous read models ride along: ``effects(stream, command, before, after, version)`` may give a
write (the lobby's summary of a game, say) that runs in the append's own transaction, so the two
commit or roll back together; when it returns None the append is one statement.

With an idempotency key, the key row, the events and the rendered response are written in one
transaction; a repeat (even a concurrent one, which waits for the first) returns the stored
response with ``replayed=True`` and appends nothing. A domain refusal (`PreferansError`) under a
key is stored and replayed too; any other error rolls back everything, key included.

Example, with the domain's functions::

    decider = Decider(initial_state=lambda: INITIAL_STATE, decide=decide, evolve=evolve)
    handler = CommandHandler(game_log(pool), decider)
    result = await handler.handle("game-0190…", PlayCard(...), context=CommandContext(seat=1))
    result.version, result.state, [a.event for a in result.appended]
"""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Generic, TypeVar

import asyncpg
import msgspec

from domain.errors import PreferansError
from service.event_log import EventLog
from service.event_store import (
    ANY,
    NO_STREAM,
    AppendResult,
    FeedCursor,
    IdempotencyKey,
    Metadata,
    NewEvent,
    StoredResponse,
    StreamConflict,
    check_expected,
    uuid7,
)
from service.lru import Lru

C = TypeVar("C")
S = TypeVar("S")
E = TypeVar("E", bound=msgspec.Struct)

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
    """Who sends a command and why; stored as each event's metadata."""

    actor: str | None = None
    seat: int | str | None = None
    correlation_id: str | None = None
    causation_id: str | None = None
    idempotency: IdempotencyKey | None = None


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
    """The outcome of a command.

    On a replay (``replayed=True``) nothing was appended: ``appended`` is empty, ``state`` is
    None and ``response`` is what the first request stored.
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
    response: StoredResponse | None = field(default=None)
    """The rendered response, when a ``render`` callback was given."""


Render = Callable[[Any], StoredResponse]
"""Renders a `CommandResult` or a domain refusal into the response to store and replay."""

InTransaction = Callable[[asyncpg.Connection], Awaitable[None]]
"""A write made inside the transaction that appends a command's events."""

Effects = Callable[[str, Any, Any, Any, int], InTransaction | None]
"""``effects(stream_id, command, before, after, version)``: the write a command's events call for
in the same transaction (a synchronous read model), or None when there is nothing to write."""


def request_hash(*parts: bytes | str) -> bytes:
    """sha256 over the parts that make a request (method, route, body, If-Match)."""
    digest = hashlib.sha256()
    for part in parts:
        data = part.encode() if isinstance(part, str) else part
        digest.update(len(data).to_bytes(8, "big"))  # length-prefixed: no ambiguous joins
        digest.update(data)
    return digest.digest()


@dataclass(frozen=True, slots=True)
class _Decision(Generic[S, E]):
    version: int | None  # the loaded version, None when not loaded (plain appends)
    state: S | None
    events: list[E]
    expected: int | None  # what the append must find
    effect: InTransaction | None = None  # the synchronous read models' write


class CommandHandler(Generic[C, S, E]):
    """Runs commands against event streams with ``decider`` (see the module docstring).

    ``rejections`` are the exceptions that refuse a command (stored under an idempotency key);
    ``retries`` bounds re-decisions after a stream conflict; ``cache_size`` is the number of
    streams whose folded state stays in memory; ``effects`` gives the synchronous read models'
    write for a command's events (see the module docstring).
    """

    def __init__(
        self,
        log: EventLog[E],
        decider: Decider[C, S, E],
        *,
        retries: int = 3,
        cache_size: int = 1024,
        rejections: tuple[type[Exception], ...] = (PreferansError,),
        effects: Effects | None = None,
    ) -> None:
        self.log = log
        self.store = log.store
        self.decider = decider
        self.retries = retries
        self.rejections = rejections
        self.effects = effects
        self._cache: Lru[str, tuple[int, S]] = Lru(cache_size)

    async def load(
        self, stream_id: str, *, conn: asyncpg.Connection | None = None
    ) -> tuple[int, S]:
        """The stream's version and folded state (version 0 and the initial state if empty)."""
        cached = self._cache.get(stream_id)
        version, state = cached if cached is not None else (0, self.decider.initial_state())
        tail = await self.store.read_stream(stream_id, version + 1, conn=conn)
        if tail:
            decode, evolve = self.log.decode, self.decider.evolve
            for record in tail:
                state = evolve(state, decode(record))
            version = tail[-1].version
            self._cache_state(stream_id, version, state)
        return version, state

    def _cache_state(self, stream_id: str, version: int, state: S) -> None:
        held = self._cache.get(stream_id)
        if held is None or held[0] < version:  # a concurrent command may have cached a newer one
            self._cache.put(stream_id, (version, state))

    async def handle(
        self,
        stream_id: str,
        command: C,
        *,
        context: CommandContext = CommandContext(),
        expected: int | None = ANY,
        render: Render | None = None,
    ) -> CommandResult[S, E]:
        """Decide ``command`` against the stream and append its events.

        ``expected`` pins the stream version (If-Match: n; If-None-Match: * is ``NO_STREAM``):
        a mismatch raises `StreamConflict` without deciding. ``render`` turns the result (or a
        domain refusal) into the response stored under ``context.idempotency``; it is required
        with a key. Raises the decider's refusals, `StreamConflict`, `IdempotencyKeyReused`,
        `IdempotencyKeyInFlight`.
        """
        check_expected(expected)

        async def step(conn: asyncpg.Connection | None) -> _Decision[S, E]:
            version, state = await self.load(stream_id, conn=conn)
            _check_precondition(stream_id, expected, version)
            events = list(self.decider.decide(command, state))
            effect = None
            if events and self.effects is not None:
                after = self.decider.fold(events, state)
                effect = self.effects(stream_id, command, state, after, version + len(events))
            return _Decision(version, state, events, version, effect)

        pinned = expected is not None and expected >= 0
        for attempt in range(self.retries + 1):
            try:
                return await self._execute(stream_id, step, context, render)
            except StreamConflict:
                # Another writer appended since our load; an exact pin cannot hold any more.
                if pinned or attempt == self.retries:
                    raise
        raise AssertionError("unreachable")

    async def append_events(
        self,
        stream_id: str,
        events: Sequence[E],
        expected: int | None = ANY,
        *,
        context: CommandContext = CommandContext(),
        render: Render | None = None,
    ) -> CommandResult[S, E]:
        """Append events the service made itself (e.g. a new table, with ``NO_STREAM``).

        No decider and no retry: `StreamConflict` if the stream is not at ``expected``. The
        result's ``state`` is None. Idempotency keys work as in `handle`.
        """
        check_expected(expected)
        if not events:
            raise ValueError("append_events needs at least one event")
        decision: _Decision[S, E] = _Decision(None, None, list(events), expected)

        async def step(conn: asyncpg.Connection | None) -> _Decision[S, E]:
            return decision

        return await self._execute(stream_id, step, context, render)

    # --- one attempt ------------------------------------------------------------------------

    async def _execute(
        self,
        stream_id: str,
        step: Callable[[asyncpg.Connection | None], Awaitable[_Decision[S, E]]],
        context: CommandContext,
        render: Render | None,
    ) -> CommandResult[S, E]:
        if context.idempotency is None:
            decision = await step(None)
            new = self._new_events(decision.events, context)
            appended = None
            if new and decision.effect is None:
                appended = await self.store.append(stream_id, new, decision.expected)
            elif new and decision.effect is not None:
                async with self.store.pool.acquire() as conn, conn.transaction():
                    appended = await self.store.append(stream_id, new, decision.expected, conn=conn)
                    await decision.effect(conn)
            result = self._result(stream_id, decision, new, appended)
            self._committed(result, appended)
            return replace(result, response=render(result)) if render else result
        if render is None:
            raise ValueError("an idempotency key needs a render callback to store the response")
        return await self._execute_with_key(stream_id, step, context, context.idempotency, render)

    async def _execute_with_key(
        self,
        stream_id: str,
        step: Callable[[asyncpg.Connection | None], Awaitable[_Decision[S, E]]],
        context: CommandContext,
        key: IdempotencyKey,
        render: Render,
    ) -> CommandResult[S, E]:
        """One transaction: claim the key, decide, append, store the response."""
        rejection: Exception | None = None
        appended: AppendResult | None = None
        result: CommandResult[S, E] | None = None
        async with self.store.pool.acquire() as conn, conn.transaction():
            # The stream lock before the key row, whose insert gives the transaction its id.
            await self.store.lock_stream(conn, stream_id)
            record = await self.store.claim_idempotency_key(conn, key)
            if record is not None:
                return CommandResult(
                    stream_id=record.stream_id or stream_id,
                    version=record.version or 0,
                    appended=(),
                    state=None,
                    replayed=True,
                    response=record.response,
                )
            try:
                decision = await step(conn)
            except self.rejections as exc:
                await self.store.store_idempotent_response(
                    conn, key, stream_id=stream_id, version=None, response=render(exc)
                )
                rejection = exc
            else:
                new = self._new_events(decision.events, context)
                if new:
                    appended = await self.store.append(stream_id, new, decision.expected, conn=conn)
                    if decision.effect is not None:
                        await decision.effect(conn)
                result = self._result(stream_id, decision, new, appended)
                result = replace(result, response=render(result))
                await self.store.store_idempotent_response(
                    conn,
                    key,
                    stream_id=stream_id,
                    version=result.version,
                    response=result.response,
                )
        # Committed: only now may the cache and other processes learn of it.
        if rejection is not None:
            raise rejection
        assert result is not None
        self._committed(result, appended)
        return result

    def _new_events(self, events: Sequence[E], context: CommandContext) -> list[NewEvent]:
        key = context.idempotency
        metadata = Metadata(
            actor=context.actor,
            seat=context.seat,
            correlation_id=context.correlation_id,
            causation_id=context.causation_id,
            idempotency_key=key.key if key else None,
        )
        ids = [event_id_for(key, index) for index in range(len(events))]
        return self.log.new_events(events, ids, metadata)

    def _result(
        self,
        stream_id: str,
        decision: _Decision[S, E],
        new: Sequence[NewEvent],
        appended: AppendResult | None,
    ) -> CommandResult[S, E]:
        if appended is None:
            return CommandResult(
                stream_id, decision.version or 0, (), decision.state, before=decision.state
            )
        items = tuple(
            Appended(n.event_id, n.event_type, appended.first_version + i, position, event)
            for i, (n, position, event) in enumerate(
                zip(new, appended.positions, decision.events, strict=True)
            )
        )
        state = None
        if decision.state is not None:
            state = self.decider.fold(decision.events, decision.state)
        return CommandResult(
            stream_id, appended.version, items, state, decision.state, appended.cursor
        )

    def _committed(self, result: CommandResult[S, E], appended: AppendResult | None) -> None:
        """Only once the events have committed may the cache and other processes learn of them."""
        if appended is None:
            return
        if result.state is not None:
            self._cache_state(result.stream_id, result.version, result.state)
        self.log.committed(result.stream_id, result.version)


def _check_precondition(stream_id: str, expected: int | None, version: int) -> None:
    """The caller's pin against the loaded version (0 means the stream does not exist)."""
    if expected is None:
        return
    if expected >= 0:
        holds = version == expected
    elif expected == NO_STREAM:
        holds = version == 0
    else:  # STREAM_EXISTS
        holds = version > 0
    if not holds:
        raise StreamConflict(stream_id, expected, version or None)


def event_id_for(key: IdempotencyKey | None, index: int) -> uuid.UUID:
    """The id of a request's ``index``-th event: derived from its idempotency key when it has
    one (so even an expired key cannot append the same events twice), else a fresh uuid7."""
    if key is None:
        return uuid7()
    name = f"{len(key.principal)}:{key.principal}:{key.key}:{index}"
    return uuid.uuid5(_EVENT_ID_NAMESPACE, name)
