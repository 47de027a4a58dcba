"""The event store against a real PostgreSQL, running as the service role."""

from __future__ import annotations

import asyncio
import uuid

import asyncpg
import msgspec
import pytest

from service.eventlog.store import (
    ANY,
    FEED_START,
    NO_STREAM,
    STREAM_EXISTS,
    Announcer,
    DuplicateEventId,
    EventStore,
    FeedCursor,
    InvalidCursor,
    Metadata,
    NewEvent,
    RecordedEvent,
    StreamConflict,
    uuid7,
)

pytestmark = pytest.mark.integration


def new_events(count: int, **data: object) -> list[NewEvent]:
    return [
        NewEvent(
            event_id=uuid7(),
            event_type="ticked",
            schema_version=1,
            data=msgspec.Raw(msgspec.json.encode({"n": i, **data})),
            metadata=Metadata(actor="alice", seat=1, correlation_id="c-1"),
        )
        for i in range(count)
    ]


@pytest.fixture
def store(app_pool: asyncpg.Pool) -> EventStore:
    return EventStore(app_pool)


async def whole_feed(store: EventStore, count: int) -> list[RecordedEvent]:
    """The feed once it shows ``count`` events: on a shared server, any open transaction of
    another session holds the horizon back for a moment."""
    async with asyncio.timeout(30):
        while len(feed := await store.read_feed(limit=10_000)) < count:
            await asyncio.sleep(0.01)
    return feed


async def test_append_assigns_gapless_versions_and_reads_them_back(store: EventStore) -> None:
    first = await store.append("table-a", new_events(2), NO_STREAM)
    second = await store.append("table-a", new_events(3), 2)

    assert (first.version, second.version, second.first_version) == (2, 5, 3)
    events = await store.read_stream("table-a")
    assert [e.version for e in events] == [1, 2, 3, 4, 5]
    assert [e.global_position for e in events] == [*first.positions, *second.positions]
    assert msgspec.json.decode(events[3].data) == {"n": 1}
    assert events[0].metadata == {"actor": "alice", "seat": 1, "correlation_id": "c-1"}
    assert [e.version for e in await store.read_stream("table-a", 4)] == [4, 5]
    assert [e.version for e in await store.read_stream("table-a", 2, limit=2)] == [2, 3]
    assert await store.stream_version("table-a") == 5
    assert await store.stream_version("table-missing") is None


async def test_positions_within_one_append_follow_versions(store: EventStore) -> None:
    result = await store.append("table-a", new_events(20))
    assert list(result.positions) == sorted(result.positions)
    feed = await whole_feed(store, 20)
    assert [e.version for e in feed] == list(range(1, 21))


@pytest.mark.parametrize(
    ("existing", "expected", "allowed"),
    [
        (0, ANY, True),
        (0, NO_STREAM, True),
        (0, 0, True),
        (0, STREAM_EXISTS, False),
        (0, 1, False),
        (2, ANY, True),
        (2, STREAM_EXISTS, True),
        (2, 2, True),
        (2, NO_STREAM, False),
        (2, 0, False),
        (2, 1, False),
        (2, 3, False),
    ],
)
async def test_expected_version_semantics(
    store: EventStore, existing: int, expected: int | None, allowed: bool
) -> None:
    if existing:
        await store.append("table-a", new_events(existing))
    if allowed:
        result = await store.append("table-a", new_events(1), expected)
        assert result.version == existing + 1
    else:
        with pytest.raises(StreamConflict) as caught:
            await store.append("table-a", new_events(1), expected)
        assert (caught.value.stream_id, caught.value.expected) == ("table-a", expected)
        assert caught.value.actual == (existing or None)
        assert await store.stream_version("table-a") == (existing or None)


async def test_a_conflict_allocates_no_global_position(store: EventStore) -> None:
    first = await store.append("table-a", new_events(1))
    for _ in range(3):
        with pytest.raises(StreamConflict):
            await store.append("table-a", new_events(2), 0)
    second = await store.append("table-b", new_events(1))
    assert second.positions[0] == first.positions[0] + 1


async def test_bad_appends_are_refused_before_reaching_the_log(store: EventStore) -> None:
    with pytest.raises(ValueError, match="at least one event"):
        await store.append("table-a", [])
    for bad in (-3, 1.5, "1", True):
        with pytest.raises(ValueError, match="invalid expected version"):
            await store.append("table-a", new_events(1), bad)  # type: ignore[arg-type]
    not_an_object = NewEvent(event_id=uuid7(), event_type="x", schema_version=1, data=[1])  # type: ignore[arg-type]
    # (a list of lists reaches es.append as a two-dimensional array: no data, so no hash)
    with pytest.raises((asyncpg.CheckViolationError, asyncpg.NotNullViolationError)):
        await store.append("table-a", [not_an_object])
    with pytest.raises(asyncpg.CheckViolationError):
        await store.append("", new_events(1))
    assert await store.stream_version("table-a") is None
    assert await store.stream_version("") is None


async def test_a_reused_event_id_appends_nothing(store: EventStore) -> None:
    events = new_events(2)
    await store.append("table-a", events)
    with pytest.raises(DuplicateEventId):
        await store.append("table-b", [*new_events(1), events[1]])
    assert await store.stream_version("table-b") is None
    assert len(await whole_feed(store, 2)) == 2


async def test_stream_type_defaults_to_the_id_prefix(store: EventStore, pool: asyncpg.Pool) -> None:
    await store.append("table-0190abc", new_events(1))
    await store.append("lobby", new_events(1), stream_type="system")
    rows = await pool.fetch("SELECT stream_id, stream_type FROM es.streams ORDER BY stream_id")
    assert [tuple(r) for r in rows] == [("lobby", "system"), ("table-0190abc", "table")]


async def test_the_feed_pages_by_cursor(store: EventStore) -> None:
    for stream in ("table-a", "table-b", "table-c"):
        await store.append(stream, new_events(3))
    await whole_feed(store, 9)
    seen, cursor = [], FEED_START
    while batch := await store.read_feed(cursor, limit=2):
        seen.extend(batch)
        cursor = batch[-1].cursor
    assert [(e.stream_id, e.version) for e in seen] == [
        (s, v) for s in ("table-a", "table-b", "table-c") for v in (1, 2, 3)
    ]
    with pytest.raises(ValueError):
        await store.read_feed(limit=0)


def test_feed_cursor_tokens_are_opaque_and_checked() -> None:
    cursor = FeedCursor(tx_id=123456, position=789)
    token = cursor.token()
    assert "123456" not in token and FeedCursor.parse(token) == cursor
    assert FeedCursor.parse(FEED_START.token()) == FEED_START
    for bad in (
        "",
        "!!",
        "MTIz",
        FeedCursor(1, 2).token() + "!",
        FeedCursor(1, 2).token() + "=",
        "LTEuMg",
        "OTk5OTk5OTk5OTk5OTk5OTk5OS4x",
    ):
        with pytest.raises(InvalidCursor):
            FeedCursor.parse(bad)


async def test_listeners_get_a_post_commit_hint(store: EventStore) -> None:
    announcer = Announcer(store.pool)
    async with store.listen() as hints:
        assert await hints.wait(0.05) == {}
        announcer.announce("table-a", (await store.append("table-a", new_events(2))).version)
        announcer.announce("table-a:b", (await store.append("table-a:b", new_events(1))).version)
        received: dict[str, int] = {}
        async with asyncio.timeout(10):
            while len(received) < 2:
                received.update(await hints.wait(1.0))
    assert received == {"table-a": 2, "table-a:b": 1}


async def test_the_hints_of_concurrent_appends_reach_the_latest_version(store: EventStore) -> None:
    announcer = Announcer(store.pool)

    async def append_and_announce() -> None:
        announcer.announce("table-a", (await store.append("table-a", new_events(1))).version)

    async with store.listen() as hints:
        await asyncio.gather(*(append_and_announce() for _ in range(20)))
        await announcer.close()  # flushes the queued hints
        latest = 0
        async with asyncio.timeout(10):
            while latest < 20:
                latest = max(latest, (await hints.wait(1.0)).get("table-a", 0))
    assert latest == 20


async def test_an_append_alone_sends_no_hint(app_pool: asyncpg.Pool) -> None:
    quiet = EventStore(app_pool)  # hints are the announcer's, sent after the commit
    async with quiet.listen() as hints:
        await quiet.append("table-a", new_events(1))
        assert await hints.wait(0.3) == {}


async def test_follow_feed_yields_new_batches_as_they_commit(store: EventStore) -> None:
    await store.append("table-a", new_events(2))
    announcer = Announcer(store.pool)
    # A poll a second: on a shared server another session's transaction may hold the feed's
    # horizon back at the first read; the second batch comes with its commit's hint.
    follower = store.follow_feed(limit=10, poll_interval=1.0)
    async with asyncio.timeout(10):
        assert [e.version for e in await anext(follower)] == [1, 2]
        waiting = asyncio.ensure_future(anext(follower))
        await asyncio.sleep(0.1)
        assert not waiting.done()
        announcer.announce("table-b", (await store.append("table-b", new_events(1))).version)
        assert [(e.stream_id, e.version) for e in await waiting] == [("table-b", 1)]
    await announcer.close()
    await follower.aclose()


async def test_recorded_events_carry_ids_and_transaction(store: EventStore) -> None:
    events = new_events(2)
    result = await store.append("table-a", events)
    recorded = await store.read_stream("table-a")
    assert [e.event_id for e in recorded] == [e.event_id for e in events]
    assert all(isinstance(e.event_id, uuid.UUID) for e in recorded)
    assert {e.tx_id for e in recorded} == {result.tx_id}
    assert recorded[-1].cursor == result.cursor
