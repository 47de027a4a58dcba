"""Migration 0007 chains the events already stored, es.append chains every new one, and the
downgrade takes the chain and the secrets away again, leaving a working store."""

from __future__ import annotations

import asyncio
import uuid

import asyncpg
import msgspec
import pytest

from service.eventlog.store import EventStore
from service.games.proof import check_chain, from_records
from service.platform.database import alembic_config, upgrade

pytestmark = pytest.mark.integration

ODD = {"name": 'Вера "q"\n\t\\', "n": -5, "big": 2**60, "yes": True, "none": None,
       "nested": [1, {"ab": 1, "a": [], "b": {}}], "é": "ü", "aa": "x"}  # fmt: skip


def downgrade(dsn: str, revision: str) -> None:
    import sqlalchemy as sa
    from alembic import command
    from sqlalchemy.pool import NullPool

    url = sa.engine.make_url(dsn).set(drivername="postgresql+psycopg2")
    engine = sa.create_engine(url, poolclass=NullPool)
    try:
        with engine.connect() as conn:
            config = alembic_config()
            config.attributes["connection"] = conn
            command.downgrade(config, revision)
            conn.commit()
    finally:
        engine.dispose()


async def _append_raw(conn: asyncpg.Connection, stream: str, expected: int, count: int) -> None:
    await conn.execute(
        "SELECT * FROM es.append($1, 'table', $2, $3::uuid[], $4::text[], $5::smallint[],"
        " $6::jsonb[], $7::jsonb[])",
        stream, expected, [uuid.uuid4() for _ in range(count)], ["odd"] * count, [1] * count,
        [msgspec.json.encode({**ODD, "i": i}).decode() for i in range(count)], ["{}"] * count,
    )  # fmt: skip


async def _chains_hold(dsn: str, streams: list[str]) -> None:
    pool = await asyncpg.create_pool(dsn, min_size=1, max_size=2)
    try:
        store = EventStore(pool)
        for stream in streams:
            records = await store.read_stream(stream, 1)
            assert records and check_chain(stream, from_records(records)) is None
            query = "SELECT head_hash FROM es.streams WHERE stream_id = $1"
            head = await pool.fetchval(query, stream)
            assert bytes(head) == records[-1].hash
        # es.append writes es.event_hash out inline: the two agree on every event
        agree = await pool.fetchval(
            "SELECT bool_and(hash = es.event_hash(prev_hash, stream_id, version, event_id,"
            " event_type, schema_version, salt, data)) FROM es.events"
        )
        assert agree is True
    finally:
        await pool.close()


def test_the_chain_is_backfilled_kept_and_taken_away_again(empty_database_dsn: str) -> None:
    dsn = empty_database_dsn
    streams = ["table-a", "table-b"]

    async def before() -> None:
        conn = await asyncpg.connect(dsn)
        try:
            await _append_raw(conn, streams[0], -1, 3)
            await _append_raw(conn, streams[1], -1, 1)
            await _append_raw(conn, streams[1], 1, 2)
        finally:
            await conn.close()

    async def more() -> None:
        conn = await asyncpg.connect(dsn)
        try:
            await _append_raw(conn, streams[0], 3, 2)
        finally:
            await conn.close()

    upgrade(dsn, "0006_live_tables")
    asyncio.run(before())
    upgrade(dsn)
    asyncio.run(_chains_hold(dsn, streams))  # the migration chained what was there
    asyncio.run(more())
    asyncio.run(_chains_hold(dsn, streams))  # es.append chains what comes

    downgrade(dsn, "0006_live_tables")

    async def gone() -> None:
        conn = await asyncpg.connect(dsn)
        try:
            columns = await conn.fetch(
                "SELECT column_name FROM information_schema.columns"
                " WHERE table_schema = 'es' AND table_name = 'events'"
            )
            assert {"hash", "prev_hash", "salt"}.isdisjoint(r[0] for r in columns)
            await _append_raw(conn, streams[0], 5, 1)  # the old es.append works
            row = await conn.fetchrow("SELECT * FROM api.deal_source(gen_random_uuid())")
            assert row is None
        finally:
            await conn.close()

    asyncio.run(gone())
    upgrade(dsn)
    asyncio.run(_chains_hold(dsn, streams))
