"""Migrations: up from nothing, idempotent, safe when several processes run them at once."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

import asyncpg
import pytest

from migrations import APP_ROLE
from service.cli import main
from service.platform.database import head_revision, upgrade, upgrade_async, with_user

pytestmark = pytest.mark.integration

SCHEMA_OBJECTS = """
SELECT c.relkind::text || ' ' || c.relname FROM pg_class c
 WHERE c.relnamespace = 'es'::regnamespace
UNION ALL
SELECT 'function ' || p.oid::regprocedure::text FROM pg_proc p
 WHERE p.pronamespace = 'es'::regnamespace
UNION ALL
SELECT 'trigger ' || t.tgname FROM pg_trigger t WHERE t.tgrelid = 'es.events'::regclass
ORDER BY 1"""


async def schema_of(dsn: str) -> tuple[list[str], list[str]]:
    conn = await asyncpg.connect(dsn)
    try:
        objects = [r[0] for r in await conn.fetch(SCHEMA_OBJECTS)]
        versions = [r[0] for r in await conn.fetch("SELECT version_num FROM alembic_version")]
    finally:
        await conn.close()
    return objects, versions


async def test_migrations_build_the_event_store_from_nothing(empty_database_dsn: str) -> None:
    await upgrade_async(empty_database_dsn)
    objects, versions = await schema_of(empty_database_dsn)
    assert versions == [head_revision()]
    for expected in (
        "r events",
        "r streams",
        "r projection_checkpoints",
        "r idempotency_keys",
        "i events_feed",
        "function es.append(text,text,bigint,uuid[],text[],smallint[],jsonb[],jsonb[])",
        "trigger events_no_update_delete",
        "trigger events_no_truncate",
    ):
        assert expected in objects


async def test_migrations_run_twice_change_nothing(empty_database_dsn: str) -> None:
    await upgrade_async(empty_database_dsn)
    once = await schema_of(empty_database_dsn)
    await upgrade_async(empty_database_dsn)
    assert await schema_of(empty_database_dsn) == once


async def test_concurrent_migrations_queue_behind_one_another(empty_database_dsn: str) -> None:
    await asyncio.gather(*(upgrade_async(empty_database_dsn) for _ in range(4)))
    assert (await schema_of(empty_database_dsn))[1] == [head_revision()]


def test_concurrent_migration_processes(empty_database_dsn: str) -> None:
    script = "import sys; from service.platform.database import upgrade; upgrade(sys.argv[1])"
    runs = [
        subprocess.Popen([sys.executable, "-c", script, empty_database_dsn], stderr=subprocess.PIPE)
        for _ in range(3)
    ]
    failures = [p.stderr.read().decode() for p in runs if p.wait(timeout=120) != 0 and p.stderr]
    assert failures == []
    upgrade(empty_database_dsn)
    assert asyncio.run(schema_of(empty_database_dsn))[1] == [head_revision()]


async def test_the_service_role_has_only_what_it_needs(database_dsn: str) -> None:
    conn = await asyncpg.connect(database_dsn)
    try:
        rights = await conn.fetchrow(
            """SELECT has_table_privilege($1, 'es.events', 'SELECT') AS read_events,
                      has_table_privilege($1, 'es.events', 'INSERT') AS insert_events,
                      has_table_privilege($1, 'es.events', 'UPDATE') AS update_events,
                      has_table_privilege($1, 'es.events', 'DELETE') AS delete_events,
                      has_table_privilege($1, 'es.events', 'TRUNCATE') AS truncate_events,
                      has_sequence_privilege($1, 'es.events_global_position_seq', 'USAGE')
                        AS use_sequence,
                      has_table_privilege($1, 'es.streams', 'UPDATE') AS update_streams,
                      has_table_privilege($1, 'es.idempotency_keys', 'SELECT') AS read_keys,
                      has_table_privilege($1, 'api.deal_sources', 'SELECT') AS read_sources,
                      has_function_privilege($1, 'es.command(text, text, bigint, uuid[],'
                        ' text[], smallint[], jsonb[], jsonb[], text, text, bytea, interval,'
                        ' jsonb, jsonb)', 'EXECUTE') AS run_commands,
                      has_function_privilege('public', 'es.command(text, text, bigint,'
                        ' uuid[], text[], smallint[], jsonb[], jsonb[], text, text, bytea,'
                        ' interval, jsonb, jsonb)', 'EXECUTE') AS anyone_runs_commands,
                      (SELECT rolsuper OR rolcreaterole OR rolcreatedb OR rolbypassrls
                         FROM pg_roles WHERE rolname = $1) AS powers,
                      (SELECT rolcanlogin FROM pg_roles WHERE rolname = $1) AS logs_in,
                      (SELECT count(*) FROM pg_auth_members m JOIN pg_roles r ON r.oid = m.member
                        WHERE r.rolname = $1) AS memberships""",
            APP_ROLE,
        )
        assert dict(rights) == {
            "read_events": True,
            "insert_events": False,  # only through es.command / es.append
            "update_events": False,
            "delete_events": False,
            "truncate_events": False,
            "use_sequence": False,
            "update_streams": False,
            "read_keys": False,
            "read_sources": False,
            "run_commands": True,
            "anyone_runs_commands": False,
            "powers": False,
            "logs_in": True,
            "memberships": 0,
        }
    finally:
        await conn.close()
    conn = await asyncpg.connect(with_user(database_dsn, APP_ROLE))
    try:
        row = await conn.fetchrow(
            "SELECT * FROM es.append('table-1', 'table', -1, ARRAY[gen_random_uuid()], "
            "ARRAY['ticked'], ARRAY[1::smallint], ARRAY['{}'::jsonb], ARRAY['{}'::jsonb])"
        )
        assert row["new_version"] == 1
    finally:
        await conn.close()


def test_the_cli_upgrades_the_database_in_database_url(
    empty_database_dsn: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("DATABASE_URL", empty_database_dsn)
    assert main(["db", "upgrade"]) == 0
    assert main(["db", "upgrade"]) == 0
    assert capsys.readouterr().out == "database at head\ndatabase at head\n"
    assert asyncio.run(schema_of(empty_database_dsn))[1] == [head_revision()]


def test_without_database_url_the_cli_uses_an_embedded_server() -> None:
    """`preferans db upgrade` on a fresh machine: pgserver under PREFERANS_DATA_DIR."""
    # Not pytest's tmp_path: a concurrent pytest session may chmod it 0700 (see conftest).
    with tempfile.TemporaryDirectory(prefix="preferans-test-cli-") as scratch:
        check_embedded_upgrade(Path(scratch) / "data")


def check_embedded_upgrade(data_dir: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
    env["PREFERANS_DATA_DIR"] = str(data_dir)
    check = textwrap.dedent(
        """
        import asyncio, asyncpg
        from service.cli import main
        from service.platform.database import resolve_dsn
        from service.platform.settings import Settings
        assert main(["db", "upgrade"]) == 0
        async def version():
            conn = await asyncpg.connect(resolve_dsn(Settings.from_env()))
            print(await conn.fetchval("SELECT version_num FROM alembic_version"))
            await conn.close()
        asyncio.run(version())
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", check], env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["database", "at", "head", head_revision()]
    assert (data_dir / "pg" / "PG_VERSION").exists()


async def test_0029_gives_the_games_already_there_their_rating_weight(
    empty_database_dsn: str,
) -> None:
    """Migration 0029 fills in ``api.games.rating_weight`` from each game's ``game_created``: a
    friendly created before it reads 0 (unrated in exports and dumps), an ordinary game 100."""
    import uuid

    from open_data import finished_export

    from service.eventlog.log import game_log
    from service.games.export import import_game
    from service.platform.database import create_pool

    await upgrade_async(empty_database_dsn, "0028_rating_weight")
    players = [str(uuid.uuid4()) for _ in range(3)]
    pool = await create_pool(with_user(empty_database_dsn, APP_ROLE), min_size=1, max_size=2)
    try:
        log = game_log(pool, announce=False)
        friendly = finished_export(6, players, target=1, table={"rating_weight": 0})
        friendly_id = (await import_game(log, friendly)).game_id
        ordinary_id = (await import_game(log, finished_export(7, players, target=1))).game_id
    finally:
        await pool.close()
    await upgrade_async(empty_database_dsn)
    conn = await asyncpg.connect(empty_database_dsn)
    try:
        rows = dict(await conn.fetch("SELECT game_id, rating_weight FROM api.games"))
    finally:
        await conn.close()
    assert rows == {friendly_id: 0, ordinary_id: 100}
