"""Concurrent writers: one winner per expected version, and a feed that never skips."""

from __future__ import annotations

import asyncio
import random

import asyncpg
import msgspec
import pytest

from migrations import APP_ROLE
from service.eventlog.store import (
    FEED_START,
    EventStore,
    FeedCursor,
    NewEvent,
    RecordedEvent,
    StreamConflict,
    uuid7,
)
from service.platform.database import init_connection, server_settings, with_user

pytestmark = pytest.mark.integration

WAIT = 30  # seconds; generous, since any open transaction on the server holds the horizon


def new_events(count: int, writer: int) -> list[NewEvent]:
    return [
        NewEvent(
            event_id=uuid7(),
            event_type="ticked",
            schema_version=1,
            data=msgspec.Raw(msgspec.json.encode({"writer": writer, "n": i})),
        )
        for i in range(count)
    ]


async def connect(dsn: str) -> asyncpg.Connection:
    """A bare connection as the service role, outside any pool."""
    conn = await asyncpg.connect(with_user(dsn, APP_ROLE), server_settings=server_settings())
    await init_connection(conn)
    return conn


async def read_until(store: EventStore, after: FeedCursor, count: int) -> list[RecordedEvent]:
    seen: list[RecordedEvent] = []
    async with asyncio.timeout(WAIT):
        while len(seen) < count:
            batch = await store.read_feed(after, limit=50)
            if batch:
                after = batch[-1].cursor
                seen.extend(batch)
            else:
                await asyncio.sleep(0.01)
    return seen


async def test_one_of_fifty_writers_with_the_same_expected_version_wins(
    app_pool: asyncpg.Pool,
) -> None:
    store = EventStore(app_pool)
    await store.append("table-a", new_events(3, writer=-1))
    candidates = {writer: new_events(random.randint(1, 3), writer) for writer in range(50)}

    async def attempt(writer: int) -> int | StreamConflict:
        try:
            return (await store.append("table-a", candidates[writer], 3)).version
        except StreamConflict as conflict:
            return conflict

    outcomes = await asyncio.gather(*(attempt(w) for w in candidates))

    winners = [
        w for w, outcome in zip(candidates, outcomes, strict=True) if isinstance(outcome, int)
    ]
    assert len(winners) == 1
    conflicts = [o for o in outcomes if isinstance(o, StreamConflict)]
    assert len(conflicts) == 49
    winner_events = candidates[winners[0]]
    assert all(c.expected == 3 and c.actual == 3 + len(winner_events) for c in conflicts)
    stream = await store.read_stream("table-a")
    assert [e.version for e in stream] == list(range(1, 4 + len(winner_events)))
    assert [e.event_id for e in stream[3:]] == [e.event_id for e in winner_events]


async def test_the_feed_waits_for_an_open_transaction_then_delivers_it(
    app_pool: asyncpg.Pool, database_dsn: str
) -> None:
    store = EventStore(app_pool)
    await store.append("table-before", new_events(1, writer=0))
    before = await read_until(store, FEED_START, 1)

    slow = await connect(database_dsn)
    try:
        held = slow.transaction()
        await held.start()
        slow_result = await store.append("table-slow", new_events(2, writer=-1), conn=slow)

        # Many writers on many streams commit after the slow one took its xid.
        async def writer(n: int) -> int:
            total = 0
            for _ in range(5):
                count = random.randint(1, 3)
                await store.append(f"table-w{n}", new_events(count, writer=n))
                total += count
            return total

        written = sum(await asyncio.gather(*(writer(n) for n in range(16))))
        assert await store.read_feed(before[-1].cursor) == []  # the horizon holds at the slow one

        await held.commit()
    finally:
        await slow.close()

    seen = await read_until(store, before[-1].cursor, written + 2)
    assert [e.event_id for e in seen[:2]] == [
        e.event_id for e in await store.read_stream("table-slow")
    ]
    assert {e.tx_id for e in seen[:2]} == {slow_result.tx_id}
    assert len({e.event_id for e in seen}) == written + 2
    assert [(e.tx_id, e.global_position) for e in seen] == sorted(
        (e.tx_id, e.global_position) for e in seen
    )
    assert await store.read_feed(seen[-1].cursor) == []


async def test_a_rolled_back_append_leaves_no_trace_and_does_not_stall_the_feed(
    app_pool: asyncpg.Pool, database_dsn: str
) -> None:
    store = EventStore(app_pool)
    doomed = await connect(database_dsn)
    try:
        held = doomed.transaction()
        await held.start()
        await store.append("table-doomed", new_events(2, writer=-1), conn=doomed)
        await store.append("table-ok", new_events(2, writer=1))
        assert await store.read_feed() == []
        await held.rollback()
    finally:
        await doomed.close()

    seen = await read_until(store, FEED_START, 2)
    assert [(e.stream_id, e.version) for e in seen] == [("table-ok", 1), ("table-ok", 2)]
    assert await store.stream_version("table-doomed") is None
    await store.append("table-ok", new_events(1, writer=1))
    assert [e.version for e in await read_until(store, seen[-1].cursor, 1)] == [3]


async def test_a_follower_sees_every_event_once_under_concurrent_writers(
    app_pool: asyncpg.Pool,
) -> None:
    """Readers poll while 24 writers commit in random interleavings: nothing skipped or doubled."""
    store = EventStore(app_pool)
    done = asyncio.Event()
    seen: list[RecordedEvent] = []

    async def follow() -> None:
        cursor = FEED_START
        while True:
            batch = await store.read_feed(cursor, 100)
            if batch:
                cursor = batch[-1].cursor
                seen.extend(batch)
            elif done.is_set():
                return
            await asyncio.sleep(0)

    async def writer(n: int) -> int:
        total = 0
        for _ in range(10):
            count = random.randint(1, 3)
            await store.append(f"table-{n % 8}", new_events(count, writer=n))
            total += count
        return total

    follower = asyncio.ensure_future(follow())
    written = sum(await asyncio.gather(*(writer(n) for n in range(24))))
    done.set()
    async with asyncio.timeout(WAIT):
        await follower
    if len(seen) < written:  # the horizon (cluster-wide) may still hold commits back
        after = seen[-1].cursor if seen else FEED_START
        seen.extend(await read_until(store, after, written - len(seen)))

    assert len(seen) == written == len({e.event_id for e in seen})
    versions: dict[str, int] = {}
    for event in seen:  # each stream arrives in version order, without gaps
        assert event.version == versions.get(event.stream_id, 0) + 1
        versions[event.stream_id] = event.version
