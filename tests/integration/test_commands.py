"""Command handling with a toy decider: cache and tail read, retries, pins, idempotency keys."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence

import asyncpg
import msgspec
import pytest

from domain.errors import IllegalAction, refuse
from service.eventlog.codec import EventCodec
from service.eventlog.handler import (
    CommandContext,
    CommandHandler,
    Decider,
    request_hash,
)
from service.eventlog.log import EventLog
from service.eventlog.store import (
    ANY,
    NO_STREAM,
    STREAM_EXISTS,
    AppendResult,
    Decision,
    EventStore,
    IdempotencyKey,
    IdempotencyKeyInFlight,
    IdempotencyKeyReused,
    InvalidIdempotencyKey,
    NewEvent,
    RecordedEvent,
    Refusal,
    StreamConflict,
)

pytestmark = pytest.mark.integration

# --- a toy game: a counter that stops at 100 --------------------------------------------------


class Command(msgspec.Struct, frozen=True, kw_only=True, tag_field="type"):
    pass


class Add(Command, tag="add"):
    amount: int


class AddTwice(Command, tag="add_twice"):
    amount: int


class Touch(Command, tag="touch"):
    """Changes nothing: decided into no events."""


class Event(msgspec.Struct, frozen=True, kw_only=True, tag_field="type"):
    pass


class Added(Event, tag="added"):
    amount: int


class Started(Event, tag="started"):
    limit: int = 100


class Opened(Event, tag="game_created"):
    """What a game's stream opens with (its kind's catalog, migration 0016)."""


def decide(command: Command, total: int) -> Sequence[Event]:
    match command:
        case Add(amount=amount) if amount <= 0:
            raise IllegalAction("only positive amounts", code="illegal.not_positive")
        case Add(amount=amount) if total + amount > 100:
            raise refuse("over_100", "the counter stops at 100")
        case Add(amount=amount):
            return [Added(amount=amount)]
        case AddTwice(amount=amount):
            return [*decide(Add(amount=amount), total), *decide(Add(amount=amount), total + amount)]
        case Touch():
            return []
    raise TypeError(f"unknown command {command!r}")


def evolve(total: int, event: Event) -> int:
    match event:
        case Added(amount=amount):
            return total + amount
        case Started() | Opened():
            return total
    raise TypeError(f"unknown event {event!r}")


class SpyStore(EventStore):
    """Records tail reads, and can run a rival append just before each append."""

    def __init__(self, pool: asyncpg.Pool) -> None:
        super().__init__(pool)
        self.reads: list[int] = []
        self.before_append: Callable[[], Awaitable[None]] | None = None

    async def read_stream(
        self,
        stream_id: str,
        from_version: int = 0,
        *,
        limit: int | None = None,
        conn: asyncpg.Connection | None = None,
    ) -> list[RecordedEvent]:
        self.reads.append(from_version)
        return await super().read_stream(stream_id, from_version, limit=limit, conn=conn)

    async def append(
        self,
        stream_id: str,
        events: Sequence[NewEvent],
        expected: int | None = ANY,
        *,
        stream_type: str | None = None,
        conn: asyncpg.Connection | None = None,
    ) -> AppendResult:
        if self.before_append is not None:
            await self.before_append()
        return await super().append(stream_id, events, expected, stream_type=stream_type, conn=conn)

    async def command(self, stream_id: str, events: Sequence[NewEvent], *args, **kwargs):
        if events and self.before_append is not None:
            await self.before_append()
        return await super().command(stream_id, events, *args, **kwargs)


codec = EventCodec(Added | Started | Opened)
counted_decides: list[Command] = []


def counting_decide(command: Command, total: int) -> Sequence[Event]:
    counted_decides.append(command)
    return decide(command, total)


decider: Decider[Command, int, Event] = Decider(lambda: 0, counting_decide, evolve)


@pytest.fixture
def store(app_pool: asyncpg.Pool) -> SpyStore:
    return SpyStore(app_pool)


@pytest.fixture
def handler(store: SpyStore) -> CommandHandler[Command, int, Event]:
    counted_decides.clear()
    return CommandHandler(EventLog(store, codec), decider)


async def rival_add(store: EventStore, amount: int) -> None:
    """Another process's command, appended behind the handler's back."""
    rival = CommandHandler(EventLog(EventStore(store.pool), codec), decider)
    await rival.handle("table-1", Add(amount=amount))


# --- load, decide, append ---------------------------------------------------------------------


async def test_a_command_appends_its_events_and_returns_the_new_state(
    handler: CommandHandler[Command, int, Event], store: SpyStore
) -> None:
    context = CommandContext(actor="alice", seat=2, correlation_id="corr", causation_id="cause")
    first = await handler.handle("table-1", Add(amount=5), context=context)
    second = await handler.handle("table-1", AddTwice(amount=10), context=context)

    assert (first.version, first.state, second.version, second.state) == (1, 5, 3, 25)
    assert [(a.version, a.event_type, a.event) for a in second.appended] == [
        (2, "added", Added(amount=10)),
        (3, "added", Added(amount=10)),
    ]
    assert second.cursor is not None and second.cursor.position == second.appended[-1].position
    stored = await store.read_stream("table-1")
    assert [e.event_id for e in stored[1:]] == [a.event_id for a in second.appended]
    assert stored[0].metadata == {
        "actor": "alice",
        "seat": 2,
        "correlation_id": "corr",
        "causation_id": "cause",
    }
    assert not first.replayed and first.decision == Decision(version=1, appended=1)


async def test_the_cached_state_is_brought_up_to_date_by_a_tail_read(
    handler: CommandHandler[Command, int, Event], store: SpyStore
) -> None:
    await handler.handle("table-1", Add(amount=1))
    await rival_add(store, 2)
    await rival_add(store, 3)
    store.reads.clear()

    result = await handler.handle("table-1", Add(amount=4))

    assert store.reads == [2]  # only the events after the cached version 1
    assert (result.version, result.state) == (4, 10)
    assert await handler.load("table-1") == (4, 10)
    assert store.reads == [2, 5]


async def test_a_fresh_handler_folds_the_whole_stream(
    handler: CommandHandler[Command, int, Event], store: SpyStore
) -> None:
    for amount in (1, 2, 3):
        await handler.handle("table-1", Add(amount=amount))
    fresh = CommandHandler(EventLog(store, codec), decider, cache_size=0)
    store.reads.clear()
    assert await fresh.load("table-1") == (3, 6)
    assert await fresh.load("table-1") == (3, 6)
    assert store.reads == [1, 1]  # a cache of size 0 keeps nothing
    assert await fresh.load("table-empty") == (0, 0)


async def test_a_refusal_propagates_and_appends_nothing(
    handler: CommandHandler[Command, int, Event], store: SpyStore
) -> None:
    await handler.handle("table-1", Add(amount=99))
    with pytest.raises(IllegalAction) as refused:
        await handler.handle("table-1", AddTwice(amount=1))
    assert refused.value.code == "illegal.over_100"
    assert await store.stream_version("table-1") == 1


async def test_a_command_decided_into_no_events_appends_nothing(
    handler: CommandHandler[Command, int, Event], store: SpyStore
) -> None:
    await handler.handle("table-1", Add(amount=7))
    result = await handler.handle("table-1", Touch())
    assert (result.version, result.state, result.appended, result.cursor) == (1, 7, (), None)
    assert await store.stream_version("table-1") == 1


# --- conflicts --------------------------------------------------------------------------------


async def test_a_conflict_is_retried_against_the_new_state(
    handler: CommandHandler[Command, int, Event], store: SpyStore
) -> None:
    await handler.handle("table-1", Add(amount=1))
    rivals = 2

    async def interfere() -> None:
        nonlocal rivals
        if rivals:
            rivals -= 1
            await rival_add(store, 10)

    store.before_append = interfere
    counted_decides.clear()
    result = await handler.handle("table-1", Add(amount=5))

    assert (result.version, result.state) == (4, 26)
    assert len(counted_decides) == 5  # 1 + 2 retries ours, 2 for the rivals
    assert [e.version for e in await store.read_stream("table-1")] == [1, 2, 3, 4]


async def test_retries_are_bounded(
    handler: CommandHandler[Command, int, Event], store: SpyStore
) -> None:
    await handler.handle("table-1", Add(amount=1))
    store.before_append = lambda: rival_add(store, 1)
    with pytest.raises(StreamConflict):
        await handler.handle("table-1", Add(amount=5))
    store.before_append = None
    assert await handler.load("table-1") == (5, 5)  # four rivals, none of ours
    assert handler.retries == 3


async def test_a_pinned_version_that_is_stale_is_refused_without_deciding(
    handler: CommandHandler[Command, int, Event], store: SpyStore
) -> None:
    await handler.handle("table-1", Add(amount=1))
    await handler.handle("table-1", Add(amount=1))
    counted_decides.clear()

    with pytest.raises(StreamConflict) as stale:
        await handler.handle("table-1", Add(amount=5), expected=1)
    assert (stale.value.expected, stale.value.actual) == (1, 2)
    assert counted_decides == []

    result = await handler.handle("table-1", Add(amount=5), expected=2)
    assert (result.version, result.state) == (3, 7)


async def test_a_pinned_version_is_not_retried_when_a_rival_gets_in_first(
    handler: CommandHandler[Command, int, Event], store: SpyStore
) -> None:
    await handler.handle("table-1", Add(amount=1))
    store.before_append = lambda: rival_add(store, 1)
    counted_decides.clear()
    with pytest.raises(StreamConflict) as lost:
        await handler.handle("table-1", Add(amount=5), expected=1)
    assert (lost.value.expected, lost.value.actual) == (1, 2)
    assert len(counted_decides) == 2  # ours once, the rival's once


async def test_no_stream_and_stream_exists_pins(
    handler: CommandHandler[Command, int, Event],
) -> None:
    with pytest.raises(StreamConflict):
        await handler.handle("table-1", Add(amount=1), expected=STREAM_EXISTS)
    created = await handler.handle("table-1", Add(amount=1), expected=NO_STREAM)
    assert created.version == 1
    with pytest.raises(StreamConflict) as exists:
        await handler.handle("table-1", Add(amount=1), expected=NO_STREAM)
    assert (exists.value.expected, exists.value.actual) == (NO_STREAM, 1)
    assert (await handler.handle("table-1", Add(amount=1), expected=STREAM_EXISTS)).version == 2


async def test_service_events_are_appended_without_a_decider(
    handler: CommandHandler[Command, int, Event], store: SpyStore
) -> None:
    created = await handler.append_events("table-1", [Started(limit=100)], NO_STREAM)
    assert (created.version, created.state, created.appended[0].event_type) == (1, None, "started")
    with pytest.raises(StreamConflict):
        await handler.append_events("table-1", [Started()], NO_STREAM)
    with pytest.raises(ValueError):
        await handler.append_events("table-1", [])
    assert (await handler.handle("table-1", Add(amount=3))).state == 3


# --- the synchronous read model: the lobby's row, in the events' statement ---------------------


GAME = "game-0190c6a2-6f1e-7c3a-9d51-3b7e2a1c4f00"


def lobby_effects(status: str):
    """The lobby's row of the counter's stream: a new row first, then updates."""

    def effects(stream_id, command, before, after, version):
        return {
            "op": "insert" if before == 0 else "update",
            "game_id": stream_id.removeprefix("game-"),
            "preset": "sochi",
            "seats": 3,
            "status": status,
            "players": [None, None, None],
        }

    return effects


@pytest.mark.parametrize("keyed", [False, True])
async def test_the_lobby_row_commits_with_the_events_or_not_at_all(
    store: SpyStore, pool: asyncpg.Pool, keyed: bool
) -> None:
    log = EventLog(store, codec)

    def context(name: str) -> CommandContext:
        return (
            CommandContext(idempotency=IdempotencyKey("p-1", name, b"h"))
            if keyed
            else (CommandContext())
        )

    async def lobby() -> list[tuple[str, int]]:
        rows = await pool.fetch("SELECT status, version FROM api.games")
        return [(r[0], r[1]) for r in rows]

    # The counter stands in for a game: its stream opens as a game's, and the game's kind
    # admits its events (migration 0016's catalog).
    await pool.execute(
        'UPDATE es.stream_kinds SET events = events || \'{"added": {"v": 1, "place": "any"}}\''
        " WHERE stream_type = 'game'"
    )
    await CommandHandler(log, decider).append_events(GAME, [Opened()], NO_STREAM)
    await CommandHandler(log, decider, effects=lobby_effects("seating")).handle(
        GAME, Add(amount=5), context=context("k-1")
    )
    assert await lobby() == [("seating", 2)]
    # A row the database refuses (here a status its CHECK forbids) takes the events with it.
    broken = CommandHandler(log, decider, effects=lobby_effects("bogus"))
    with pytest.raises(asyncpg.CheckViolationError):
        await broken.handle(GAME, Add(amount=2), context=context("k-2"))
    assert await store.stream_version(GAME) == 2
    assert await lobby() == [("seating", 2)]
    if keyed:  # the key went with them: a retry is decided anew
        assert await pool.fetchval("SELECT count(*) FROM es.idempotency_keys") == 1
    # The next good command writes both again.
    good = CommandHandler(log, decider, effects=lobby_effects("playing"))
    await good.handle(GAME, Add(amount=1), context=context("k-3"))
    assert await store.stream_version(GAME) == 3
    assert await lobby() == [("playing", 3)]


# --- idempotency keys -------------------------------------------------------------------------


def keyed(key: str, body: str = "add 5", at: int | None = None) -> CommandContext:
    return CommandContext(
        actor="alice", idempotency=IdempotencyKey("alice", key, request_hash("POST", body)), at=at
    )


async def test_a_repeated_key_replays_the_stored_decision(
    handler: CommandHandler[Command, int, Event], store: SpyStore
) -> None:
    first = await handler.handle("table-1", Add(amount=5), context=keyed("k-1", at=1_700))
    again = await handler.handle("table-1", Add(amount=5), context=keyed("k-1", at=1_900))

    assert not first.replayed and again.replayed
    assert first.decision == again.decision == Decision(version=1, appended=1, at=1_700)
    assert (again.version, again.appended, again.state, again.refusal) == (1, (), None, None)
    assert await store.stream_version("table-1") == 1
    stored = await store.read_stream("table-1")
    assert stored[0].metadata["idempotency_key"] == "k-1"
    assert stored[0].event_id == first.appended[0].event_id
    assert first.appended[0].event_id.version == 5  # derived from the key, not random


async def test_concurrent_requests_with_one_key_append_once(
    handler: CommandHandler[Command, int, Event], store: SpyStore
) -> None:
    results = await asyncio.gather(
        *(handler.handle("table-1", AddTwice(amount=5), context=keyed("k-1")) for _ in range(10))
    )
    assert sorted(r.replayed for r in results) == [False] + [True] * 9
    assert {r.decision for r in results} == {Decision(version=2, appended=2)}
    assert await store.stream_version("table-1") == 2


async def test_a_key_reused_for_another_request_is_refused(
    handler: CommandHandler[Command, int, Event], store: SpyStore
) -> None:
    await handler.handle("table-1", Add(amount=5), context=keyed("k-1"))
    with pytest.raises(IdempotencyKeyReused):
        await handler.handle("table-1", Add(amount=6), context=keyed("k-1", body="add 6"))
    assert await handler.load("table-1") == (1, 5)
    other = CommandContext(idempotency=IdempotencyKey("bob", "k-1", request_hash("POST", "add 6")))
    assert not (await handler.handle("table-1", Add(amount=6), context=other)).replayed


async def test_a_refusal_under_a_key_is_stored_and_replayed_as_the_same_error(
    handler: CommandHandler[Command, int, Event], store: SpyStore, pool: asyncpg.Pool
) -> None:
    with pytest.raises(IllegalAction) as first:
        await handler.handle("table-1", Add(amount=0), context=keyed("k-1"))
    replay = await handler.handle("table-1", Add(amount=0), context=keyed("k-1"))
    assert replay.replayed
    assert replay.decision.refusal == Refusal(
        error="IllegalAction", message="only positive amounts", code="illegal.not_positive"
    )
    again = replay.refusal
    assert type(again) is IllegalAction and again is not first.value
    assert (again.code, again.message) == (first.value.code, first.value.message)
    assert await handler.recall(replay) is replay  # nothing to fill in for a refusal
    assert await store.stream_version("table-1") is None
    stored = await pool.fetchval("SELECT pg_column_size(decision) FROM es.idempotency_keys")
    assert stored < 200  # bytes: the key's row stays in line, far from TOAST


async def test_an_unexpected_error_rolls_back_the_key_too(
    handler: CommandHandler[Command, int, Event], store: SpyStore
) -> None:
    def broken(*args: object) -> object:
        raise RuntimeError("the read model is broken")

    with pytest.raises(RuntimeError):
        await CommandHandler(handler.log, decider, effects=broken).handle(
            "table-1", Add(amount=5), context=keyed("k-1")
        )
    assert await store.stream_version("table-1") is None
    retried = await handler.handle("table-1", Add(amount=5), context=keyed("k-1"))
    assert not retried.replayed and retried.version == 1
    assert await handler.load("table-1") == (1, 5)


async def test_a_key_is_one_to_255_characters(handler: CommandHandler[Command, int, Event]) -> None:
    with pytest.raises(InvalidIdempotencyKey):
        IdempotencyKey("alice", "", b"hash")
    with pytest.raises(InvalidIdempotencyKey):
        IdempotencyKey("alice", "k" * 256, b"hash")


async def test_a_retry_after_its_key_expired_is_decided_as_a_new_request(
    handler: CommandHandler[Command, int, Event], pool: asyncpg.Pool, purger_pool: asyncpg.Pool
) -> None:
    await handler.handle("table-1", Add(amount=5), context=keyed("k-1"))
    await pool.execute("UPDATE es.idempotency_keys SET expires_at = now() - interval '1 second'")
    # Expired but not purged yet: the key is claimed anew, the request decided anew.
    again = await handler.handle("table-1", Add(amount=5), context=keyed("k-1"))
    assert (again.replayed, again.version, again.state) == (False, 2, 10)
    await pool.execute("UPDATE es.idempotency_keys SET expires_at = now() - interval '1 second'")
    assert await EventStore(purger_pool).purge_idempotency_keys(batch=1) == 1  # the purger's role
    assert await pool.fetchval("SELECT count(*) FROM es.idempotency_keys") == 0
    third = await handler.handle("table-1", Add(amount=5), context=keyed("k-1"))
    assert (third.replayed, third.version, third.state) == (False, 3, 15)
    # Within its lifetime it replays.
    replay = await handler.handle("table-1", Add(amount=5), context=keyed("k-1"))
    assert replay.replayed and replay.decision == third.decision == Decision(version=3, appended=1)


async def test_a_replay_is_recalled_from_the_log_as_it_was_however_far_the_stream_moved(
    handler: CommandHandler[Command, int, Event], store: SpyStore
) -> None:
    await handler.handle("table-1", Add(amount=1))
    first = await handler.handle("table-1", AddTwice(amount=5), context=keyed("k-1", at=7))
    for amount in (1, 2):
        await rival_add(store, amount)
    again = await handler.handle("table-1", AddTwice(amount=5), context=keyed("k-1"))
    assert again.replayed and (again.appended, again.state, again.before) == ((), None, None)

    recalled = await handler.recall(again)
    assert recalled.replayed and recalled.decision == first.decision
    assert (recalled.version, recalled.appended, recalled.before, recalled.state) == (
        first.version, first.appended, first.before, first.state,
    )  # fmt: skip
    assert (recalled.head, recalled.cursor) == (first.head, first.cursor)
    assert (recalled.before, recalled.state) == (1, 11)
    assert await handler.recall(first) is first  # not a replay: nothing to recall


async def test_a_key_held_by_a_stuck_request_times_out(
    handler: CommandHandler[Command, int, Event], store: SpyStore, pool: asyncpg.Pool
) -> None:
    context = keyed("k-1")
    key = context.idempotency
    assert key is not None
    async with pool.acquire() as stuck, stuck.transaction():
        await stuck.execute(
            "INSERT INTO es.idempotency_keys (principal_id, idem_key, request_hash)"
            " VALUES ($1, $2, $3)",
            key.principal, key.key, key.request_hash,
        )  # fmt: skip
        with pytest.raises(IdempotencyKeyInFlight):
            # Another stream, so that only the key is contended.
            await handler.handle("table-2", Add(amount=5), context=context)
    assert await store.stream_version("table-2") is None


async def test_keyed_service_appends_replay_too(
    handler: CommandHandler[Command, int, Event], store: SpyStore
) -> None:
    first = await handler.append_events("table-1", [Started()], NO_STREAM, context=keyed("create"))
    again = await handler.append_events("table-1", [Started()], NO_STREAM, context=keyed("create"))
    assert (first.replayed, again.replayed, again.decision) == (False, True, first.decision)
    assert first.decision == Decision(version=1, appended=1)
    assert await store.stream_version("table-1") == 1
    with pytest.raises(ValueError, match="version"):  # its decision could not name its versions
        await handler.append_events("table-2", [Started()], ANY, context=keyed("any"))


def test_request_hashes_do_not_depend_on_where_parts_are_split() -> None:
    assert request_hash("ab", "c") != request_hash("a", "bc")
    assert request_hash("a", b"b") == request_hash(b"a", "b")
    assert len(request_hash()) == 32


async def test_a_retry_whose_first_attempt_committed_elsewhere_replays_despite_its_stale_pin(
    handler: CommandHandler[Command, int, Event], store: SpyStore
) -> None:
    # The first attempt commits in one process, and its answer is lost on the way back; the
    # client retries the same request (same key, same If-Match) through another process, whose
    # read of the log finds the version already moved by that very attempt.
    first = await handler.handle("table-1", Add(amount=5), context=keyed("k-1"), expected=NO_STREAM)
    elsewhere = CommandHandler(EventLog(EventStore(store.pool), codec), decider)
    again = await elsewhere.handle(
        "table-1", Add(amount=5), context=keyed("k-1"), expected=NO_STREAM
    )
    assert again.replayed and again.decision == first.decision
    assert await store.stream_version("table-1") == 1
    # A new request pinned to the moved version is still refused, and its key is not used up.
    with pytest.raises(StreamConflict):
        await elsewhere.handle(
            "table-1", Add(amount=1), context=keyed("k-2", "add 1"), expected=NO_STREAM
        )
    done = await elsewhere.handle(
        "table-1", Add(amount=1), context=keyed("k-2", "add 1"), expected=1
    )
    assert not done.replayed and done.version == 2
