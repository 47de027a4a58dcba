"""``es.command`` knows no lobby (0011): what a command writes beside its events goes to the
writer ``es.command_writer`` names, the games' ``api.command_effects``, in the same transaction;
the request path cannot rename the writer; and the downgrade brings back the direct call.

Since 0012 ``es.command`` takes a key's decision where it took a response; below 0012 these
checks call it with 0011's arguments (`Store0011`)."""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Sequence
from typing import Any

import asyncpg
import msgspec
import pytest

from migrations import APP_ROLE
from service.eventlog.store import CommandOutcome, EventStore, NewEvent, WriteRefused, uuid7
from service.platform.database import alembic_config, create_pool, upgrade, with_user

pytestmark = pytest.mark.integration

COMMAND = (
    "es.command(text, text, bigint, uuid[], text[], smallint[], jsonb[], jsonb[], text, text,"
    " bytea, interval, jsonb, jsonb)"
)
COMMAND_0011 = (
    "es.command(text, text, bigint, uuid[], text[], smallint[], jsonb[], jsonb[], text, text,"
    " bytea, interval, int, jsonb, bytea, jsonb)"
)


class Store0011(EventStore):
    """``es.command`` called with 0011's arguments, without a key (all these checks send)."""

    async def command(  # type: ignore[override]
        self, stream_id: str, events: Sequence[NewEvent], expected: int | None = None, *,
        summary: Any = None,
    ) -> CommandOutcome:  # fmt: skip
        try:
            outcome = await self.pool.fetchval(
                "SELECT outcome FROM es.command($1, $2, $3, $4, $5, $6, $7, $8,"
                " NULL, NULL, NULL, NULL, NULL, NULL, NULL, $9)",
                stream_id, stream_id.partition("-")[0], expected,
                [e.event_id for e in events], [e.event_type for e in events],
                [e.schema_version for e in events], [e.data for e in events],
                [e.metadata for e in events], summary,
            )  # fmt: skip
        except asyncpg.PostgresError as exc:
            if exc.sqlstate == "P0401":
                raise WriteRefused(exc.message) from exc
            raise
        return CommandOutcome(outcome)


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


def _events(count: int) -> list[NewEvent]:
    return [
        NewEvent(event_id=uuid7(), event_type="ticked", schema_version=1, data=msgspec.Raw(b"{}"))
        for _ in range(count)
    ]


def _game_events(count: int) -> list[NewEvent]:
    """A game's first events, as its stream's kind admits them (0016): created, then seated."""
    types = ["game_created"] + ["player_seated"] * (count - 1)
    return [
        NewEvent(event_id=uuid7(), event_type=t, schema_version=1, data=msgspec.Raw(b"{}"))
        for t in types
    ]


async def _player_with_token(owner: asyncpg.Connection, *, revoked: bool) -> tuple[uuid.UUID, str]:
    player = uuid.uuid4()
    token = hashlib.sha256(player.bytes).digest()
    await owner.execute(
        "INSERT INTO api.players (player_id, name, kind) VALUES ($1, 'Вера', 'human')", player
    )
    await owner.execute(
        "INSERT INTO api.tokens (token_id, token_hash, player_id, name, scope, revoked_at)"
        " VALUES (gen_random_uuid(), $1, $2, 'phone', 'play',"
        "         CASE WHEN $3 THEN now() END)",
        token, player, revoked,
    )  # fmt: skip
    return player, token.hex()


def _new_game(player: uuid.UUID, token: str) -> tuple[str, dict[str, object]]:
    game = uuid.uuid4()
    return f"game-{game}", {
        "op": "insert", "game_id": str(game), "status": "seating", "preset": "sochi",
        "seats": 3, "players": [str(player), None, None], "created_by": str(player),
        "token": token, "dealing": "random", "secret": "ab" * 16,
        "notes": [{"player": str(player), "kind": "game_started", "game_id": str(game),
                   "data": {"version": 2}}],
    }  # fmt: skip


async def _writes_through_the_writer(dsn: str, store_type: type[EventStore] = EventStore) -> None:
    owner = await asyncpg.connect(dsn)
    app = await create_pool(with_user(dsn, APP_ROLE), min_size=1, max_size=2)
    try:
        store = store_type(app)
        player, token = await _player_with_token(owner, revoked=False)
        stream, summary = _new_game(player, token)
        outcome = await store.command(stream, _game_events(2), -1, summary=summary)
        assert outcome.outcome == "appended"
        game = uuid.UUID(str(summary["game_id"]))
        row = await owner.fetchrow(
            "SELECT g.version, g.dealing, d.secret FROM api.games g"
            " JOIN api.deal_sources d USING (game_id) WHERE g.game_id = $1",
            game,
        )
        assert (row[0], row[1], bytes(row[2]).hex()) == (2, "random", "ab" * 16)
        notes = await owner.fetch("SELECT kind FROM api.notifications WHERE player_id = $1", player)
        assert [n[0] for n in notes] == ["game_started"]
        assert await owner.fetchval(
            "SELECT last_used_at IS NOT NULL FROM api.tokens WHERE player_id = $1", player
        )
        # A revoked token refuses the whole command: no events, no lobby row.
        revoked, dead = await _player_with_token(owner, revoked=True)
        stream, summary = _new_game(revoked, dead)
        with pytest.raises(WriteRefused, match="token_revoked"):
            await store.command(stream, _game_events(1), -1, summary=summary)
        assert (
            await owner.fetchval("SELECT count(*) FROM es.events WHERE stream_id = $1", stream) == 0
        )
        assert await owner.fetchval(
            "SELECT count(*) FROM api.games WHERE game_id = $1", uuid.UUID(str(summary["game_id"]))
        ) == 0  # fmt: skip
    finally:
        await app.close()
        await owner.close()


async def test_the_kernel_hands_the_effects_to_the_games_writer(database_dsn: str) -> None:
    owner = await asyncpg.connect(database_dsn)
    try:
        sources = await owner.fetch(
            "SELECT p.oid::regprocedure::text, p.prosrc FROM pg_proc p"
            " WHERE p.pronamespace = 'es'::regnamespace"
        )
        assert [name for name, source in sources if "api." in source] == []
        writer = await owner.fetchrow("SELECT schema_name, function_name FROM es.command_writer")
        assert tuple(writer) == ("api", "command_effects")
    finally:
        await owner.close()
    await _writes_through_the_writer(database_dsn)


async def test_the_request_path_cannot_name_another_writer(database_dsn: str) -> None:
    hostile = await asyncpg.connect(with_user(database_dsn, APP_ROLE))
    try:
        for statement in (
            "UPDATE es.command_writer SET schema_name = 'pg_temp'",
            "DELETE FROM es.command_writer",
            "INSERT INTO es.command_writer (one, schema_name, function_name)"
            " VALUES (true, 'pg_temp', 'mine')",
        ):
            with pytest.raises(asyncpg.InsufficientPrivilegeError):
                await hostile.execute(statement)
        assert await hostile.fetchval(
            "SELECT has_function_privilege(current_user, $1, 'EXECUTE')", COMMAND
        )
    finally:
        await hostile.close()


async def test_without_a_writer_a_command_with_effects_is_refused(database_dsn: str) -> None:
    owner = await asyncpg.connect(database_dsn)
    try:
        await owner.execute("DELETE FROM es.command_writer")
        store = EventStore(await create_pool(database_dsn, min_size=1, max_size=1))
        try:
            with pytest.raises(asyncpg.InvalidParameterValueError, match="no writer"):
                await store.command("table-x", _events(1), -1, summary={"op": "update"})
            outcome = await store.command("table-x", _events(1), -1)  # no effects: no writer needed
            assert outcome.outcome == "appended"
        finally:
            await store.pool.close()
    finally:
        await owner.close()


def test_the_downgrade_calls_the_lobby_directly_again(empty_database_dsn: str) -> None:
    import asyncio

    upgrade(empty_database_dsn)
    downgrade(empty_database_dsn, "0010_bots_at_creation")

    async def check() -> None:
        owner = await asyncpg.connect(empty_database_dsn)
        try:
            source = await owner.fetchval(
                f"SELECT prosrc FROM pg_proc WHERE oid = '{COMMAND_0011}'::regprocedure"
            )
            assert "PERFORM api.command_effects(" in source
            assert await owner.fetchval("SELECT to_regclass('es.command_writer')") is None
        finally:
            await owner.close()
        await _writes_through_the_writer(empty_database_dsn, Store0011)

    asyncio.run(check())
    upgrade(empty_database_dsn)
    asyncio.run(_writes_through_the_writer(empty_database_dsn))
