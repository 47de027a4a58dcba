"""The lean ``es.command`` (0013): one definer on a command's way, whose settings are pinned; the
key's row and a new stream's row each written once; the hot rows' pages left room to be
updated in place (HOT)."""

from __future__ import annotations

import asyncpg
import msgspec
import pytest

from migrations import APP_ROLE
from service.eventlog.store import (
    NO_STREAM,
    Decision,
    EventStore,
    IdempotencyKey,
    NewEvent,
    uuid7,
)

pytestmark = pytest.mark.integration

COMMAND = (
    "es.command(text, text, bigint, uuid[], text[], smallint[], jsonb[], jsonb[], text, text,"
    " bytea, interval, jsonb, jsonb)"
)
WRITER = "api.command_effects(text, bigint, jsonb, text)"
HOT_TABLES = ("es.streams", "api.games", "api.tokens", "api.notification_heads")


def _events(count: int) -> list[NewEvent]:
    return [
        NewEvent(event_id=uuid7(), event_type="ticked", schema_version=1, data=msgspec.Raw(b"{}"))
        for _ in range(count)
    ]


async def test_a_command_runs_one_definer_and_its_writer_is_none(pool: asyncpg.Pool) -> None:
    found = {
        function: tuple(
            await pool.fetchrow(
                "SELECT prosecdef, proconfig FROM pg_proc WHERE oid = $1::regprocedure", function
            )
        )
        for function in (COMMAND, WRITER)
    }
    assert found[COMMAND] == (True, ["search_path=pg_catalog, pg_temp", "lock_timeout=2s"])
    assert found[WRITER] == (False, None)  # runs as es.command's owner, under its search_path
    assert not await pool.fetchval(
        "SELECT has_function_privilege($1, $2, 'EXECUTE')", APP_ROLE, WRITER
    )


async def test_a_keyed_command_writes_its_key_and_its_new_stream_once(
    app_pool: asyncpg.Pool, pool: asyncpg.Pool
) -> None:
    # The first row of an empty table lies at (0,1); inserted and then updated in the same
    # transaction, as 0012 wrote them, it would lie at (0,2). A test's database is emptied by
    # DELETEs (tests/_recycling.py): rewritten, its tables' pages hold no earlier test's rows.
    await pool.execute("VACUUM FULL es.idempotency_keys, es.streams")
    store = EventStore(app_pool)
    key = IdempotencyKey("alice", "k-1", b"request")
    decided = Decision(version=2, appended=2, at=7)
    first = await store.command("table-1", _events(2), NO_STREAM, key=key, decision=decided)
    assert first.outcome == "appended" and first.result is not None
    assert first.result.version == 2
    kept = await pool.fetchrow("SELECT ctid::text, stream_id, version FROM es.idempotency_keys")
    assert tuple(kept) == ("(0,1)", "table-1", 2)
    stream = await pool.fetchrow(
        "SELECT s.ctid::text, s.version, s.head_hash = e.hash FROM es.streams s"
        " JOIN es.events e ON e.stream_id = s.stream_id AND e.version = 2"
    )
    assert tuple(stream) == ("(0,1)", 2, True)
    again = await store.command("table-1", _events(2), NO_STREAM, key=key, decision=decided)
    assert again.outcome == "replayed" and again.stored is not None
    assert (again.stored.stream_id, again.stored.decision) == ("table-1", decided)


async def test_the_hot_rows_pages_keep_room_for_their_updates(pool: asyncpg.Pool) -> None:
    options = await pool.fetch(
        "SELECT c.oid::regclass::text, c.reloptions FROM pg_class c"
        " WHERE c.oid = ANY ($1::text[]::regclass[])",
        list(HOT_TABLES),
    )
    assert {name: opts for name, opts in options} == {t: ["fillfactor=70"] for t in HOT_TABLES}
