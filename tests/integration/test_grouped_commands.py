"""Group commit through PostgreSQL (0014 ``es.commands``): commands sent together commit in one
transaction, each in its own subtransaction, so that a refusal or a conflict rolls back only
itself and every caller gets what its command alone would have given."""

from __future__ import annotations

import asyncio

import asyncpg
import msgspec
import pytest

from service.eventlog.store import (
    NO_STREAM,
    Decision,
    DuplicateEventId,
    EventStore,
    IdempotencyKey,
    NewEvent,
    StreamConflict,
    uuid7,
)

pytestmark = pytest.mark.integration


def _events(count: int) -> list[NewEvent]:
    return [
        NewEvent(event_id=uuid7(), event_type="ticked", schema_version=1, data=msgspec.Raw(b"{}"))
        for _ in range(count)
    ]


@pytest.fixture
def grouped(app_pool: asyncpg.Pool) -> EventStore:
    return EventStore(app_pool, group_commit=8)


async def test_commands_sent_together_commit_together_and_fail_alone(
    grouped: EventStore, pool: asyncpg.Pool
) -> None:
    await EventStore(pool).append("table-b", _events(1))
    again = _events(1)
    key = IdempotencyKey("alice", "k-1", b"request")
    decided = Decision(version=2, appended=2)
    outcomes = await asyncio.gather(
        grouped.command("table-a", _events(1), NO_STREAM),
        grouped.command("table-b", _events(1), 5),  # stale: refused alone
        grouped.command("table-c", _events(2), NO_STREAM, key=key, decision=decided),
        grouped.command("table-d", again, NO_STREAM),
        grouped.command("table-e", again, NO_STREAM),  # the same event id: refused alone
        return_exceptions=True,
    )
    assert [type(o).__name__ for o in outcomes] == [
        "CommandOutcome", "StreamConflict", "CommandOutcome", "CommandOutcome", "DuplicateEventId",
    ]  # fmt: skip
    conflict = outcomes[1]
    assert isinstance(conflict, StreamConflict) and (conflict.expected, conflict.actual) == (5, 1)
    assert isinstance(outcomes[4], DuplicateEventId)
    rows = await pool.fetch("SELECT stream_id, version, tx_id FROM es.events ORDER BY stream_id")
    assert [(r[0], r[1]) for r in rows] == [
        ("table-a", 1), ("table-b", 1), ("table-c", 1), ("table-c", 2), ("table-d", 1),
    ]  # fmt: skip
    assert len({r[2] for r in rows if r[0] != "table-b"}) == 1  # one transaction
    assert await pool.fetchval("SELECT version FROM es.streams WHERE stream_id = 'table-b'") == 1
    assert await pool.fetchval("SELECT count(*) FROM es.streams WHERE stream_id = 'table-e'") == 0
    replay = await grouped.command("table-c", _events(2), NO_STREAM, key=key, decision=decided)
    assert replay.outcome == "replayed" and replay.stored is not None
    assert replay.stored.decision == decided


async def test_two_commands_to_one_stream_in_a_batch_see_each_other(
    grouped: EventStore, pool: asyncpg.Pool
) -> None:
    first, second, third = await asyncio.gather(
        grouped.command("table-a", _events(1), NO_STREAM),
        grouped.command("table-a", _events(1), 1),  # after the first, in the same transaction
        grouped.command("table-a", _events(1), 1),  # decided on the same version: a conflict
        return_exceptions=True,
    )
    assert not isinstance(first, BaseException) and first.result is not None
    assert not isinstance(second, BaseException) and second.result is not None
    assert (first.result.version, second.result.version) == (1, 2)
    assert isinstance(third, StreamConflict) and third.actual == 2
    rows = await pool.fetch(
        "SELECT version, global_position, tx_id FROM es.events ORDER BY global_position"
    )
    assert [r[0] for r in rows] == [1, 2] and rows[0][2] == rows[1][2]
