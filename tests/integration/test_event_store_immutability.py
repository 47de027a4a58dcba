"""es.events is append-only and streams are never deleted: the service role lacks the rights,
and triggers stop even the owner."""

from __future__ import annotations

import asyncpg
import msgspec
import pytest

from service.eventlog.store import EventStore, NewEvent, uuid7

pytestmark = pytest.mark.integration

MUTATIONS = [
    "UPDATE es.events SET data = '{\"cheated\": true}'",
    "DELETE FROM es.events",
    "TRUNCATE es.events",
    "TRUNCATE es.events CASCADE",
    "TRUNCATE es.streams CASCADE",
    "DELETE FROM es.streams",
]


@pytest.fixture
async def stored(app_pool: asyncpg.Pool) -> list[str]:
    event = NewEvent(
        event_id=uuid7(), event_type="ticked", schema_version=1, data=msgspec.Raw(b"{}")
    )
    await EventStore(app_pool).append("table-1", [event])
    return [str(event.event_id)]


async def event_ids(pool: asyncpg.Pool) -> list[str]:
    """The stored events' ids, once their stream is found still there."""
    assert await pool.fetchval("SELECT count(*) FROM es.streams") == 1
    return [str(r["event_id"]) for r in await pool.fetch("SELECT event_id FROM es.events")]


@pytest.mark.parametrize("statement", MUTATIONS)
async def test_the_service_role_cannot_change_events(
    app_pool: asyncpg.Pool, stored: list[str], statement: str
) -> None:
    with pytest.raises(asyncpg.InsufficientPrivilegeError):
        await app_pool.execute(statement)
    assert await event_ids(app_pool) == stored


@pytest.mark.parametrize("statement", MUTATIONS)
async def test_triggers_refuse_even_the_owner(
    pool: asyncpg.Pool, stored: list[str], statement: str
) -> None:
    with pytest.raises(asyncpg.PostgresError, match="append-only") as refused:
        await pool.execute(statement)
    assert refused.value.sqlstate == "P0403"
    assert await event_ids(pool) == stored
