"""Migration 0012: the keys used before it keep answering. Each stored response becomes the
decision it was rendered from (a game's answer, one of the refusals a key can hold, the
steward's bare answers); a row that is none of these goes, as if expired; the downgrade drops
every key and brings the response columns back."""

from __future__ import annotations

import asyncio
import json

import asyncpg
import msgspec
import pytest

from service.eventlog.store import Decision, EventStore, IdempotencyKey, Refusal
from service.platform.database import alembic_config, create_pool, upgrade

pytestmark = pytest.mark.integration

JSON = [["Content-Type", "application/json"], ["ETag", '"7"']]
PROBLEM = [["Content-Type", "application/problem+json"]]

OLD_ROWS = [
    # key, version, status, headers, body
    ("answered", 7, 200, JSON,
     {"id": "0190", "version": 7, "events": [{"version": 6}, {"version": 7}], "server_time": 17}),
    ("created", 2, 201, JSON, {"id": "0190", "version": 2, "events": [{}, {}], "server_time": 9}),
    ("refused", None, 409, PROBLEM,
     {"type": "/problems/illegal-action", "title": "The rules do not allow this now",
      "status": 409, "detail": "it is seat 2's turn", "instance": "/v1/games/x/actions",
      "code": "illegal.not_your_turn"}),
    ("unseated", None, 403, PROBLEM,
     {"type": "/problems/not-seated", "title": "You have no seat at this game", "status": 403,
      "detail": "you have no seat at this game"}),
    ("steward", 12, 200, [], b""),
    ("steward refused", None, 409, [], b"it is seat 1's turn"),
    ("odd", 3, 200, [["Content-Type", "text/plain"]], b"not an answer"),
]  # fmt: skip

DECISIONS = {
    "answered": Decision(version=7, appended=2, at=17),
    "created": Decision(version=2, appended=2, at=9),
    "refused": Decision(refusal=Refusal(error="IllegalAction", message="it is seat 2's turn",
                                        code="illegal.not_your_turn")),
    "unseated": Decision(refusal=Refusal(error="NotSeated",
                                         message="you have no seat at this game")),
    "steward": Decision(version=12),
    "steward refused": Decision(refusal=Refusal(error="PreferansError",
                                                message="it is seat 1's turn")),
}  # fmt: skip


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


async def _store_old_rows(dsn: str) -> None:
    conn = await asyncpg.connect(dsn)
    try:
        for key, version, status, headers, body in OLD_ROWS:
            raw = body if isinstance(body, bytes) else json.dumps(body).encode()
            await conn.execute(
                "INSERT INTO es.idempotency_keys (principal_id, idem_key, request_hash,"
                " stream_id, version, response_status, response_headers, response_body)"
                " VALUES ('p', $1, $2, 'game-x', $3, $4, $5::jsonb, $6)",
                key, key.encode(), version, status, json.dumps(headers), raw,
            )  # fmt: skip
    finally:
        await conn.close()


async def _decisions(dsn: str) -> dict[str, Decision]:
    pool = await create_pool(dsn, min_size=1, max_size=1)
    try:
        store, kept = EventStore(pool), {}
        for key in [row[0] for row in OLD_ROWS]:
            # What a repeat of the request gets: the key's decision (or, gone, a fresh claim,
            # rolled back here).
            async with pool.acquire() as conn:
                transaction = conn.transaction()
                await transaction.start()
                try:
                    outcome = await store.command(
                        "game-x", [], None, key=IdempotencyKey("p", key, key.encode()), conn=conn
                    )
                finally:
                    await transaction.rollback()
            if outcome.outcome == "replayed":
                assert outcome.stored is not None
                kept[key] = outcome.stored.decision
        columns = await pool.fetch(
            "SELECT column_name FROM information_schema.columns"
            " WHERE table_schema = 'es' AND table_name = 'idempotency_keys'"
        )
        assert not {"response_status", "response_headers", "response_body"} & {
            c[0] for c in columns
        }
        sizes = await pool.fetch("SELECT pg_column_size(decision) FROM es.idempotency_keys")
        assert max(s[0] for s in sizes) < 200  # bytes: in line, far below TOAST's ~2 KB
        return kept
    finally:
        await pool.close()


def test_old_keys_keep_their_answers_as_decisions(empty_database_dsn: str) -> None:
    upgrade(empty_database_dsn, "0011_kernel_knows_no_lobby")
    asyncio.run(_store_old_rows(empty_database_dsn))
    upgrade(empty_database_dsn)
    assert asyncio.run(_decisions(empty_database_dsn)) == DECISIONS

    downgrade(empty_database_dsn, "0011_kernel_knows_no_lobby")

    async def after_the_downgrade() -> None:
        conn = await asyncpg.connect(empty_database_dsn)
        try:
            assert await conn.fetchval("SELECT count(*) FROM es.idempotency_keys") == 0
            columns = {c[0] for c in await conn.fetch(
                "SELECT column_name FROM information_schema.columns"
                " WHERE table_schema = 'es' AND table_name = 'idempotency_keys'"
            )}  # fmt: skip
            assert {"response_status", "response_headers", "response_body"} <= columns
            assert "decision" not in columns
        finally:
            await conn.close()

    asyncio.run(after_the_downgrade())
    upgrade(empty_database_dsn)


def test_a_decision_is_a_few_dozen_bytes() -> None:
    played = msgspec.json.encode(Decision(version=212, appended=3, at=1_733_000_000_000))
    assert played == b'{"version":212,"appended":3,"at":1733000000000}'
