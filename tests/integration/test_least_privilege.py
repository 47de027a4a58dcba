"""The request path's role is held by PostgreSQL itself: every escalation and forgery a hostile
request-path connection could try is refused, and the log stays as it was."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator

import asyncpg
import msgspec
import pytest

from migrations import APP_ROLE, OWNER_ROLE
from service.eventlog.store import EventStore, NewEvent, StreamConflict, uuid7
from service.platform.database import with_user

pytestmark = pytest.mark.integration

ESCALATIONS = [
    ("SET ROLE postgres", asyncpg.InsufficientPrivilegeError),
    (f"SET ROLE {OWNER_ROLE}", asyncpg.InsufficientPrivilegeError),
    ("SET SESSION AUTHORIZATION postgres", asyncpg.InsufficientPrivilegeError),
    (f"ALTER ROLE {APP_ROLE} SUPERUSER", asyncpg.InsufficientPrivilegeError),
    (f"GRANT {OWNER_ROLE} TO {APP_ROLE}", asyncpg.InsufficientPrivilegeError),
    ("CREATE ROLE intruder LOGIN SUPERUSER", asyncpg.InsufficientPrivilegeError),
    ("CREATE TABLE public.intruder (x int)", asyncpg.InsufficientPrivilegeError),
    ("CREATE SCHEMA intruder", asyncpg.InsufficientPrivilegeError),
    ("CREATE FUNCTION es.intruder() RETURNS int LANGUAGE sql AS 'SELECT 1'",
     asyncpg.InsufficientPrivilegeError),
    ("SELECT pg_read_file('/etc/passwd')", asyncpg.InsufficientPrivilegeError),
    ("COPY es.events FROM PROGRAM 'true'", asyncpg.InsufficientPrivilegeError),
    ("ALTER TABLE es.events DISABLE TRIGGER ALL", asyncpg.InsufficientPrivilegeError),
]  # fmt: skip

FORGERIES = [
    # An event at any version, straight into a live stream.
    "INSERT INTO es.events (stream_id, version, event_id, event_type, data)"
    " VALUES ('game-x', 1000000, gen_random_uuid(), 'forged', '{}')",
    # A stream's version moved, so the next append leaves a gap.
    "UPDATE es.streams SET version = version + 5",
    "INSERT INTO es.streams (stream_id, stream_type, version) VALUES ('game-y', 'game', 9)",
    # Another player's stored responses, and a key forged or wiped.
    "SELECT * FROM es.idempotency_keys",
    "DELETE FROM es.idempotency_keys",
    # Every game's seed and fixed layouts: every hand to come.
    "SELECT seed, layouts FROM api.deal_sources",
    "UPDATE api.games SET status = 'finished'",
    "DELETE FROM api.players",
]


@pytest.fixture
async def hostile(database_dsn: str) -> AsyncIterator[asyncpg.Connection]:
    """A bare request-path connection, as an attacker holding it would use it."""
    conn = await asyncpg.connect(with_user(database_dsn, APP_ROLE))
    try:
        yield conn
    finally:
        await conn.close()


def _events(count: int) -> list[NewEvent]:
    return [
        NewEvent(event_id=uuid7(), event_type="ticked", schema_version=1, data=msgspec.Raw(b"{}"))
        for _ in range(count)
    ]


async def _log(pool: asyncpg.Pool) -> list[tuple[str, int]]:
    rows = await pool.fetch("SELECT stream_id, version FROM es.events ORDER BY stream_id, version")
    return [(r[0], r[1]) for r in rows]


@pytest.mark.parametrize(("statement", "refusal"), ESCALATIONS)
async def test_no_escalation_from_a_request_path_connection(
    hostile: asyncpg.Connection, statement: str, refusal: type[Exception]
) -> None:
    with pytest.raises(refusal):
        await hostile.execute(statement)
    await hostile.execute("RESET ROLE")  # back to itself: its login role, nothing more
    assert await hostile.fetchval("SELECT current_user") == APP_ROLE
    assert await hostile.fetchval("SELECT session_user") == APP_ROLE


@pytest.mark.parametrize("statement", FORGERIES)
async def test_no_forgery_of_the_log_keys_or_deal_sources(
    hostile: asyncpg.Connection, pool: asyncpg.Pool, statement: str
) -> None:
    await EventStore(pool).append("table-x", _events(2))
    before = await _log(pool)
    with pytest.raises(asyncpg.InsufficientPrivilegeError):
        await hostile.execute(statement)
    assert await _log(pool) == before


async def test_the_owners_functions_append_only_gaplessly_at_the_expected_version(
    app_pool: asyncpg.Pool, pool: asyncpg.Pool
) -> None:
    store = EventStore(app_pool)
    await store.append("table-x", _events(2))
    for expected in (0, 1, 5, 1_000_000):  # a stale or a far-future version is refused
        with pytest.raises(StreamConflict):
            await store.append("table-x", _events(1), expected)
        with pytest.raises(StreamConflict):
            await store.command("table-x", _events(1), expected)
    await store.command("table-x", _events(3), 2)
    assert [v for _, v in await _log(pool)] == [1, 2, 3, 4, 5]
    # The function's search_path is pinned: a shadowing object in the caller's path is not used.
    definers = await pool.fetch(
        "SELECT p.proname, p.prosecdef, p.proconfig, pg_get_userbyid(p.proowner)"
        " FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace"
        " WHERE n.nspname IN ('es', 'api') AND p.prosecdef"
    )
    assert {r[0] for r in definers} >= {"append", "command", "deal_source"}
    for name, _, config, owner in definers:
        assert owner == OWNER_ROLE, name
        assert config is not None and "search_path=pg_catalog, pg_temp" in config, name


async def test_seeds_and_layouts_are_read_only_while_the_game_is_dealt(
    hostile: asyncpg.Connection, pool: asyncpg.Pool
) -> None:
    playing, finished = uuid.uuid4(), uuid.uuid4()
    for game_id, status in ((playing, "playing"), (finished, "finished")):
        await pool.execute(
            "INSERT INTO api.games (game_id, stream_id, status, preset, seats, players)"
            " VALUES ($1, $2, $3, 'sochi', 3, ARRAY[]::uuid[])",
            game_id, f"game-{game_id}", status,
        )  # fmt: skip
        await pool.execute(
            "INSERT INTO api.deal_sources (game_id, seats, seed) VALUES ($1, 3, 'secret')",
            game_id,
        )
    rows = await hostile.fetch("SELECT seed FROM api.deal_source($1)", playing)
    assert [r[0] for r in rows] == ["secret"]
    assert await hostile.fetch("SELECT seed FROM api.deal_source($1)", finished) == []
    columns = {r[0] for r in await hostile.fetch(
        "SELECT column_name FROM information_schema.columns"
        " WHERE table_schema = 'api' AND table_name = 'games'"
    )}  # fmt: skip
    assert not {"seed", "layouts"} & columns
