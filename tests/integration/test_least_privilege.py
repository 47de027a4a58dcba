"""The request path's role is held by PostgreSQL itself: every escalation and forgery a hostile
request-path connection could try is refused, and the log stays as it was. Each process kind
logs in as its own role (migration 0017): each may do what its process needs, and the list of
what it may not do is checked here too."""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import AsyncIterator

import asyncpg
import msgspec
import pytest

from migrations import APP_ROLE, BOTS_ROLE, OWNER_ROLE, PROJECTIONS_ROLE, PURGER_ROLE
from service.eventlog.log import game_log
from service.eventlog.store import EventStore, NewEvent, StreamConflict, uuid7
from service.games.lobby import Lobby
from service.games.service import GameService, game_spec
from service.platform.database import with_user
from service.players.accounts import Player

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


# --- one role per process kind (migration 0017) ----------------------------------------------

SNAPSHOT = "SELECT es.save_snapshots(ARRAY['table-x'], 'x', ARRAY[1::bigint], ARRAY[gen_random_uuid()], ARRAY['\\x00'::bytea])"  # noqa: E501
CHECKPOINT = "UPDATE es.projection_checkpoints SET position = 0"
RATINGS = "INSERT INTO rm.ratings_a (player_id, mu, sigma, games, rating, updated_at) VALUES (gen_random_uuid(), 25, 8, 0, 0, now())"  # noqa: E501
TOKEN = (
    "INSERT INTO api.tokens (token_id, token_hash, player_id, name, scope)"
    " SELECT gen_random_uuid(), sha256('x'), player_id, 'mine', 'play' FROM api.players LIMIT 1"
)
SECRETS = "SELECT secret FROM api.deal_secrets"  # every v2 game's secret (migration 0018)
DECK = "SELECT api.deck_v2('\\x01', ARRAY[]::text[], 1)"
DUE = "SELECT * FROM api.due_deal(gen_random_uuid(), 1)"
GAME_SECRET = "SELECT api.game_secret(gen_random_uuid())"
PURGE_KEYS = "SELECT es.purge_idempotency_keys(1)"
OAUTH_GRANT = (
    "INSERT INTO api.oauth_grants (grant_id, client_id, player_id, scope)"
    " SELECT gen_random_uuid(), client_id, owner_id, 'play' FROM api.oauth_clients"
)
PURGE_NOTES = "SELECT api.purge_notifications(interval '1 day', 1)"
PURGE_OAUTH = "SELECT api.oauth_purge(interval '1 day')"

ROLES: dict[str, tuple[list[str], list[str]]] = {
    # role: (what it may do, what it may not)
    APP_ROLE: (
        [
            "SELECT count(*) FROM es.events", "SELECT count(*) FROM es.snapshots",
            "SELECT count(*) FROM api.tokens", "SELECT count(*) FROM rm.ratings_a",
            "SELECT count(*) FROM rm.projections", "SELECT count(*) FROM api.notifications",
            "INSERT INTO api.players (player_id, name, kind)"
            " VALUES (gen_random_uuid(), 'A', 'human')",
            "UPDATE api.games SET due_at = NULL, bot_due_at = NULL",
            "SELECT api.touch_token(sha256('x'))",
            "SELECT count(*) FROM api.oauth_grants", "SELECT count(*) FROM api.oauth_codes",
            "SELECT client_id, name, redirect_uris, public FROM api.oauth_clients",
            "SELECT api.oauth_client_secret_ok('x', 'y')",
        ],
        [
            # An app's secret, and tokens, codes and grants made or mended by hand (migration
            # 0022: only its functions do).
            "SELECT secret_hash FROM api.oauth_clients", OAUTH_GRANT,
            "UPDATE api.oauth_refresh_tokens SET used_at = NULL",
            "UPDATE api.oauth_grants SET revoked_at = NULL", "DELETE FROM api.oauth_codes",
            "UPDATE api.oauth_codes SET used_at = NULL", "UPDATE api.tokens SET expires_at = NULL",
            "UPDATE api.oauth_clients SET redirect_uris = ARRAY['https://evil.example/cb']",
            "SELECT api.oauth_revoke_grants(ARRAY[gen_random_uuid()])", PURGE_OAUTH,
            "UPDATE api.tokens SET revoked_at = NULL", "UPDATE api.tokens SET scope = 'play'",
            "UPDATE api.tokens SET player_id = gen_random_uuid()", TOKEN,
            "DELETE FROM api.tokens", RATINGS, "TRUNCATE rm.ratings_a",
            "DELETE FROM rm.sheet_a", "UPDATE rm.projections SET active = 2", CHECKPOINT,
            "DELETE FROM es.projection_checkpoints",
            "INSERT INTO es.projection_checkpoints (projection) VALUES ('forged')",
            SNAPSHOT, "DELETE FROM es.snapshots", PURGE_KEYS, PURGE_NOTES,
            "UPDATE api.games SET status = 'finished'", SECRETS, DECK,
            "SELECT secret FROM api.deal_sources",
        ],
    ),
    BOTS_ROLE: (
        [
            "SELECT count(*) FROM es.events", "SELECT count(*) FROM es.snapshots",
            "SELECT count(*) FROM api.games", "SELECT count(*) FROM api.players",
            "UPDATE api.games SET bot_due_at = NULL",
            "INSERT INTO api.players (player_id, name, kind)"
            " VALUES (gen_random_uuid(), 'B', 'bot')",
        ],
        [
            "SELECT count(*) FROM api.tokens", "SELECT count(*) FROM api.notifications",
            "SELECT count(*) FROM api.oauth_grants", "SELECT count(*) FROM api.oauth_clients",
            "SELECT count(*) FROM rm.ratings_a", TOKEN, RATINGS, CHECKPOINT, SNAPSHOT,
            PURGE_KEYS, PURGE_NOTES, "SELECT api.touch_token(sha256('x'))",
            "SELECT api.create_invite(sha256('x'), gen_random_uuid(), gen_random_uuid(), NULL,"
            " interval '1 day')",
            "SELECT es.append('table-x', 'table', NULL, ARRAY[gen_random_uuid()], ARRAY['t'],"
            " ARRAY[1::smallint], ARRAY['{}'::jsonb], ARRAY['{}'::jsonb])",
            "UPDATE api.games SET status = 'finished'", SECRETS, DECK,
            "SELECT secret FROM api.deal_sources",
        ],
    ),
    PROJECTIONS_ROLE: (
        [
            "SELECT count(*) FROM es.events", RATINGS, "TRUNCATE rm.ratings_a",
            "UPDATE rm.projections SET active = active", CHECKPOINT, SNAPSHOT,
            "DELETE FROM es.snapshots",
            # The dumps (migration 0027): the finished games, the embargo, the players' names.
            "SELECT count(*) FROM api.games", "SELECT count(*) FROM api.tournament_tables",
            "SELECT player_id, name FROM api.players",
        ],
        [
            "SELECT count(*) FROM api.tokens", "SELECT kind FROM api.players",
            "SELECT created_at FROM api.players", "UPDATE api.games SET version = version",
            "SELECT seed FROM api.deal_source(gen_random_uuid())",
            "SELECT count(*) FROM es.idempotency_keys", TOKEN, PURGE_KEYS, PURGE_NOTES,
            "INSERT INTO es.snapshots (stream_id, fold_version, version, event_id, state)"
            " VALUES ('table-x', 'x', 1, gen_random_uuid(), '\\x00')",
            "UPDATE es.snapshots SET version = 1", SECRETS, DECK, DUE, GAME_SECRET,
            "SELECT es.append('table-x', 'table', NULL, ARRAY[gen_random_uuid()], ARRAY['t'],"
            " ARRAY[1::smallint], ARRAY['{}'::jsonb], ARRAY['{}'::jsonb])",
        ],
    ),
    PURGER_ROLE: (
        [PURGE_KEYS, PURGE_NOTES, PURGE_OAUTH],
        [
            "SELECT count(*) FROM es.events", "SELECT count(*) FROM api.tokens",
            "SELECT count(*) FROM rm.ratings_a", "DELETE FROM es.idempotency_keys",
            "DELETE FROM api.notifications", TOKEN, RATINGS, CHECKPOINT, SNAPSHOT,
            SECRETS, DECK, DUE, GAME_SECRET,
        ],
    ),
}  # fmt: skip


async def _as(database_dsn: str, role: str) -> asyncpg.Connection:
    return await asyncpg.connect(with_user(database_dsn, role))


@pytest.mark.parametrize(
    ("role", "statement", "allowed"),
    [(r, s, True) for r, (may, _) in ROLES.items() for s in may]
    + [(r, s, False) for r, (_, may_not) in ROLES.items() for s in may_not],
)
async def test_each_role_may_do_what_its_process_needs_and_nothing_else(
    database_dsn: str, role: str, statement: str, allowed: bool
) -> None:
    conn = await _as(database_dsn, role)
    try:
        assert (
            await conn.fetchval(
                "SELECT rolsuper OR rolinherit FROM pg_roles WHERE rolname = current_user"
            )
            is False
        )
        assert (
            await conn.fetchval(
                "SELECT count(*) FROM pg_auth_members m JOIN pg_roles r ON r.oid = m.member"
                " WHERE r.rolname = current_user"
            )
            == 0
        )
        transaction = conn.transaction()
        await transaction.start()
        try:
            if allowed:
                await conn.execute(statement)
            else:
                with pytest.raises(asyncpg.InsufficientPrivilegeError):
                    await conn.execute(statement)
        finally:
            await transaction.rollback()
    finally:
        await conn.close()


@pytest.mark.parametrize(
    ("role", "commands"), [(APP_ROLE, True), (BOTS_ROLE, True), (PROJECTIONS_ROLE, False),
                           (PURGER_ROLE, False)],
)  # fmt: skip
async def test_only_the_api_and_the_bots_command(
    pool: asyncpg.Pool, role: str, commands: bool
) -> None:
    for function in ("command", "commands"):
        granted = await pool.fetch(
            "SELECT has_function_privilege($1, p.oid, 'EXECUTE') FROM pg_proc p"
            " WHERE p.pronamespace = 'es'::regnamespace AND p.proname = $2", role, function
        )  # fmt: skip
        assert [r[0] for r in granted] == [commands]


async def test_tokens_change_only_through_their_functions(
    hostile: asyncpg.Connection, pool: asyncpg.Pool
) -> None:
    anna, vera = uuid.uuid4(), uuid.uuid4()
    for player, name in ((anna, "Anna"), (vera, "Vera")):
        await pool.execute(
            "INSERT INTO api.players (player_id, name, kind) VALUES ($1, $2, 'human')", player, name
        )
    for player, token, scope in ((anna, b"anna", "play"), (vera, b"vera", "play"),
                                 (anna, b"anna-read", "read")):  # fmt: skip
        await pool.execute(
            "INSERT INTO api.tokens (token_id, token_hash, player_id, name, scope)"
            " VALUES (gen_random_uuid(), sha256($1), $2, 'd', $3)", token, player, scope
        )  # fmt: skip
    mine = await pool.fetchval("SELECT token_id FROM api.tokens WHERE token_hash = sha256('anna')")
    revoked = await hostile.fetchval("SELECT api.revoke_token(sha256('anna'), $1)", mine)
    assert revoked is not None
    before = await pool.fetch("SELECT * FROM api.tokens ORDER BY token_hash")
    # A revoked token is revoked for good: no function takes it back, and it makes nothing.
    assert await hostile.fetchval("SELECT api.revoke_token(sha256('anna'), $1)", mine) is None
    with pytest.raises(asyncpg.PostgresError, match="token_revoked"):
        await hostile.fetchval(
            "SELECT api.add_token(sha256('anna'), gen_random_uuid(), sha256('new'), 'n', 'play')"
        )
    # Another's token is not revoked from mine; a read token makes no play token.
    theirs = await pool.fetchval(
        "SELECT token_id FROM api.tokens WHERE token_hash = sha256('vera')"
    )
    assert (
        await hostile.fetchval("SELECT api.revoke_token(sha256('anna-read'), $1)", theirs) is None
    )
    with pytest.raises(asyncpg.PostgresError, match="scope"):
        await hostile.fetchval(
            "SELECT api.add_token(sha256('anna-read'), gen_random_uuid(), sha256('n'), 'n', 'play')"
        )
    assert await pool.fetch("SELECT * FROM api.tokens ORDER BY token_hash") == before
    # What the functions are for: a token for the caller's own player, at most its scope.
    created = await hostile.fetchval(
        "SELECT api.add_token(sha256('vera'), gen_random_uuid(), sha256('v2'), 'tablet', 'read')"
    )
    assert created is not None
    row = await pool.fetchrow(
        "SELECT player_id, scope FROM api.tokens WHERE token_hash = sha256('v2')"
    )
    assert tuple(row) == (vera, "read")


CHAT_MAY = [
    "SELECT count(*) FROM api.chat_messages", "SELECT count(*) FROM api.chat_rules",
    "SELECT count(*) FROM api.chat_mutes",
    "INSERT INTO api.chat_mutes (player_id, muted) VALUES (gen_random_uuid(), gen_random_uuid())",
    "DELETE FROM api.chat_mutes",
    "INSERT INTO api.chat_rules (game_id, phrases_only, set_by)"
    " VALUES (gen_random_uuid(), true, gen_random_uuid())",
    "SELECT api.report_chat(1, gen_random_uuid(), gen_random_uuid(), 'rude')",
    "SELECT count(*) FROM api.rematches", "SELECT count(*) FROM api.rematch_answers",
    "SELECT api.offer_rematch(gen_random_uuid(), gen_random_uuid(), ARRAY[]::uuid[])",
]  # fmt: skip
CHAT_MAY_NOT = [
    # The reports are for the moderators: written through a function, never read back.
    "SELECT count(*) FROM api.chat_reports",
    "INSERT INTO api.chat_reports (message_seq, reporter, reason)"
    " VALUES (1, gen_random_uuid(), 'x')",
    "DELETE FROM api.chat_reports",
    # What was said stays said.
    "UPDATE api.chat_messages SET body = 'x'", "DELETE FROM api.chat_messages",
    # An offer and its answers change only through their functions (which lock and notify).
    "INSERT INTO api.rematches (game_id, offered_by, status)"
    " VALUES (gen_random_uuid(), gen_random_uuid(), 'accepted')",
    "UPDATE api.rematches SET status = 'accepted'",
    "INSERT INTO api.rematch_answers (game_id, player_id, accept)"
    " VALUES (gen_random_uuid(), gen_random_uuid(), true)",
    "UPDATE api.rematch_answers SET accept = true",
]  # fmt: skip
CHAT_NOBODY_ELSE = [
    "SELECT count(*) FROM api.chat_messages", "SELECT count(*) FROM api.chat_mutes",
    "SELECT count(*) FROM api.rematches",
    "SELECT api.report_chat(1, gen_random_uuid(), gen_random_uuid(), 'rude')",
    "SELECT api.offer_rematch(gen_random_uuid(), gen_random_uuid(), ARRAY[]::uuid[])",
]  # fmt: skip


@pytest.mark.parametrize(
    ("role", "statement", "allowed"),
    [(APP_ROLE, s, True) for s in CHAT_MAY]
    + [(APP_ROLE, s, False) for s in CHAT_MAY_NOT]
    + [(r, s, False) for r in (BOTS_ROLE, PROJECTIONS_ROLE, PURGER_ROLE) for s in CHAT_NOBODY_ELSE],
)
async def test_the_tables_chat_and_rematches_are_the_apis_alone_and_only_as_it_needs(
    database_dsn: str, role: str, statement: str, allowed: bool
) -> None:
    conn = await _as(database_dsn, role)
    try:
        transaction = conn.transaction()
        await transaction.start()
        try:
            if allowed:
                await conn.execute(statement)
            else:
                with pytest.raises(asyncpg.InsufficientPrivilegeError):
                    await conn.execute(statement)
        finally:
            await transaction.rollback()
    finally:
        await conn.close()


# --- the database deals (migration 0018) -------------------------------------------------------


@pytest.mark.parametrize("role", [APP_ROLE, BOTS_ROLE])
async def test_the_roles_that_deal_cannot_read_a_running_games_secret(
    database_dsn: str, app_pool: asyncpg.Pool, pool: asyncpg.Pool, role: str
) -> None:
    """A game the database deals, being played: its secret is nowhere the dealing roles can
    read (its source, the secrets' table, the log, the lobby), ``api.game_secret`` refuses it
    until the end, and ``api.due_deal`` gives no deal while one is played."""
    players = [Player(id=str(uuid.uuid4()), name=f"lp{i}") for i in range(3)]
    for player in players:
        await pool.execute(
            "INSERT INTO api.players (player_id, name, kind) VALUES ($1, $2, 'human')",
            uuid.UUID(player.id), f"{player.name} {player.id[:8]}",
        )  # fmt: skip
    service = GameService(game_log(app_pool, announce=False), Lobby(app_pool))
    spec = game_spec(
        preset="sochi", overrides=None, seats=3, first_dealer=0, layouts=(), seed=None, seat=0,
    )  # fmt: skip
    done = await service.create(players[0], spec, key=None, fingerprint=b"")
    assert done.outcome is not None
    game_id = done.outcome.game_id
    for seat in (1, 2):
        await service.join(game_id, players[seat], seat, key=None, fingerprint=b"", expected=None)
    secret = bytes(
        await pool.fetchval("SELECT secret FROM api.deal_secrets WHERE game_id = $1", game_id)
    ).hex()
    conn = await _as(database_dsn, role)
    try:
        assert await conn.fetch("SELECT * FROM api.deal_source($1)", game_id) == []
        with pytest.raises(asyncpg.InsufficientPrivilegeError):
            await conn.fetch("SELECT secret FROM api.deal_secrets WHERE game_id = $1", game_id)
        with pytest.raises(asyncpg.PostgresError, match="game_not_over"):
            await conn.fetchval("SELECT api.game_secret($1)", game_id)
        for deal_no in (1, 2, 3, 100):  # deal 1 is being played: no deal is due
            with pytest.raises(asyncpg.PostgresError, match="deal_in_progress"):
                await conn.fetch("SELECT * FROM api.due_deal($1, $2)", game_id, deal_no)
        readable = await conn.fetchval(
            "SELECT string_agg(data::text || metadata::text, '') FROM es.events"
            " WHERE stream_id = $1", f"game-{game_id}",
        )  # fmt: skip
        lobby = await conn.fetchval(
            "SELECT row_to_json(g)::text FROM api.games g WHERE game_id = $1", game_id
        )
        assert secret not in readable and secret not in lobby
        assert hashlib.sha256(bytes.fromhex(secret)).hexdigest() in readable  # the commitment
    finally:
        await conn.close()
