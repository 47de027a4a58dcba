"""The tests' own databases: one a test gave back is made as new for the next test, whatever the
test wrote (`tests/_recycling.py`), rather than dropped and copied from the template."""

from __future__ import annotations

from typing import Any

import _recycling
import asyncpg
import pytest
from _recycling import _digest
from apitools import make_app, seated_game
from litestar.testing import AsyncTestClient

pytestmark = pytest.mark.integration


@pytest.mark.parametrize("big", [_recycling.BIG, 0], ids=["deleted", "truncated"])
async def test_a_database_full_of_a_games_rows_is_made_as_new(
    database_dsn: str, fresh_databases: Any, big: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Players, their tokens and names, a game and its deal source: rows under foreign keys,
    which a DELETE with the keys' checks on, or a TRUNCATE of some of the tables without the
    others, would be refused; emptied by DELETEs (a few rows each) or by a TRUNCATE (as tables
    of more than ``BIG`` rows are)."""
    monkeypatch.setattr(_recycling, "BIG", big)
    async with AsyncTestClient(make_app(database_dsn)) as client:
        await seated_game(client)
    pristine = fresh_databases.pristine
    assert await pristine.restore(database_dsn)
    conn = await asyncpg.connect(database_dsn)
    try:
        for table in ("api.players", "api.tokens", "api.games", "es.events", "es.streams"):
            assert await conn.fetchval(f"SELECT count(*) FROM {table}") == 0, table
        for table, (digest, _) in pristine.filled.items():  # the template's rows, as they were
            assert await conn.fetchval(_digest(table)) == digest, table
    finally:
        await conn.close()
