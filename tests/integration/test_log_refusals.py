"""The log refuses what can never be legal (migration 0016), whoever asks: a request-path
connection calling ``es.append`` / ``es.command`` by hand gets every forgery below refused, and
the log, the lobby, the notifications and the keys stay as they were.

Each forgery here went through before 0016 (issue 21, finding 5)."""

from __future__ import annotations

import hashlib
import json
import typing
import uuid
from collections.abc import AsyncIterator, Sequence
from datetime import timedelta
from typing import Any

import asyncpg
import msgspec
import pytest

from domain import game
from migrations import APP_ROLE
from service.eventlog.codec import SCHEMA_VERSIONS
from service.platform.database import create_pool, with_user

pytestmark = pytest.mark.integration

COMMAND = (
    "SELECT outcome FROM es.command($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)"
)
APPEND = "SELECT new_version FROM es.append($1, $2, $3, $4, $5, $6, $7, $8)"


@pytest.fixture
async def hostile(database_dsn: str) -> AsyncIterator[asyncpg.Pool]:
    """The request path's role, used by hand (msgspec jsonb codecs, as the service's pool)."""
    created = await create_pool(with_user(database_dsn, APP_ROLE), min_size=1, max_size=2)
    try:
        yield created
    finally:
        await created.close()


def _tags(union: Any) -> list[str]:
    out: list[str] = []
    for member in typing.get_args(union) or (union,):
        out += _tags(member) if typing.get_args(member) else [member.__struct_config__.tag]
    return out


async def command(
    conn: asyncpg.Pool,
    stream: str,
    types: Sequence[str],
    expected: int | None,
    *,
    principal: str | None = None,
    key: str | None = None,
    ttl: timedelta = timedelta(days=1),
    summary: Any = None,
    stream_type: str = "game",
) -> str:
    outcome: str = await conn.fetchval(
        COMMAND,
        stream, stream_type, expected,
        [uuid.uuid4() for _ in types], list(types),
        [SCHEMA_VERSIONS.get(t, 1) for t in types],
        [msgspec.Raw(b"{}") for _ in types], [msgspec.Raw(b"{}") for _ in types],
        principal, key, key.encode() if key else None, ttl,
        {"version": 1} if key else None, summary,
    )  # fmt: skip
    return outcome


async def append(conn: asyncpg.Pool, stream: str, types: Sequence[str], expected: int) -> int:
    version: int = await conn.fetchval(
        APPEND,
        stream, "game", expected, [uuid.uuid4() for _ in types], list(types),
        [SCHEMA_VERSIONS.get(t, 1) for t in types],
        [msgspec.Raw(b"{}") for _ in types], [msgspec.Raw(b"{}") for _ in types],
    )  # fmt: skip
    return version


def refused(reason: str = "") -> Any:
    return pytest.raises(asyncpg.PostgresError, match=reason)


async def _player(owner: asyncpg.Pool, name: str) -> tuple[str, str]:
    """A human player and his play token's hash (hex)."""
    player = uuid.uuid4()
    token = hashlib.sha256(player.bytes).digest()
    await owner.execute(
        "INSERT INTO api.players (player_id, name, kind) VALUES ($1, $2, 'human')", player, name
    )
    await owner.execute(
        "INSERT INTO api.tokens (token_id, token_hash, player_id, name, scope)"
        " VALUES (gen_random_uuid(), $1, $2, 'phone', 'play')",
        token, player,
    )  # fmt: skip
    return str(player), token.hex()


def _new_game(game_id: uuid.UUID, player: str, token: str) -> dict[str, Any]:
    return {
        "op": "insert", "game_id": str(game_id), "status": "seating", "preset": "sochi",
        "seats": 3, "players": [player, None, None], "created_by": player, "token": token,
        "dealing": "random", "secret": "ab" * 16, "to_act": [],
    }  # fmt: skip


async def _log(owner: asyncpg.Pool) -> list[tuple[str, int, str]]:
    rows = await owner.fetch(
        "SELECT stream_id, version, event_type FROM es.events ORDER BY stream_id, version"
    )
    return [tuple(r) for r in rows]


async def test_the_catalog_of_a_game_stream_is_the_domains_events(pool: asyncpg.Pool) -> None:
    rows = await pool.fetch(
        "SELECT event_type, schema_version, place FROM es.event_kinds WHERE stream_type = 'game'"
    )
    assert sorted(r[0] for r in rows) == sorted(_tags(game.Event))
    assert {r[0]: r[1] for r in rows} == {t: SCHEMA_VERSIONS.get(t, 1) for t in _tags(game.Event)}
    places = {r[0]: r[2] for r in rows}
    assert (places["game_created"], places["game_ended"], places["secret_revealed"]) == (
        "first", "closing", "after_close"
    )  # fmt: skip


async def test_the_catalog_of_a_tournament_stream_is_the_domains_events(
    pool: asyncpg.Pool,
) -> None:
    from domain.tournament.messages import TournamentEvent

    rows = await pool.fetch(
        "SELECT event_type, schema_version, place FROM es.event_kinds"
        " WHERE stream_type = 'tournament'"
    )
    assert sorted(r[0] for r in rows) == sorted(_tags(TournamentEvent))
    assert {r[1] for r in rows} == {1}
    places = {r[0]: r[2] for r in rows}
    assert places.pop("tournament_created") == "first"
    assert set(places.values()) == {"any"}  # appeals and the deals' reveal follow the end


async def test_unknown_types_and_misplaced_events_are_refused(
    hostile: asyncpg.Pool, pool: asyncpg.Pool
) -> None:
    stream = f"game-{uuid.uuid4()}"
    with refused("event_not_allowed"):  # a game starts with its creation
        await command(hostile, stream, ["player_seated"], -1)
    assert await command(hostile, stream, ["game_created", "player_seated"], -1) == "appended"
    before = await _log(pool)
    for forged in (["forged"], ["card_played", "ticked"], ["game_created"]):
        with refused("event_not_allowed"):
            await command(hostile, stream, forged, 2)
        with refused("event_not_allowed"):
            await append(hostile, stream, forged, 2)
    with refused("event_not_allowed"):  # a newer schema than the domain writes
        await hostile.fetchval(
            APPEND, stream, "game", 2, [uuid.uuid4()], ["card_played"], [9],
            [msgspec.Raw(b"{}")], [msgspec.Raw(b"{}")],
        )  # fmt: skip
    with refused("event_not_allowed"):  # data that is no object
        await hostile.fetchval(
            APPEND, stream, "game", 2, [uuid.uuid4()], ["card_played"], [1],
            [msgspec.Raw(b'"card"')], [msgspec.Raw(b"{}")],
        )  # fmt: skip
    with refused("event_not_allowed"):  # a secret revealed before the end
        await command(hostile, stream, ["secret_revealed"], 2)
    # A game stream named as another kind, to slip past the game's catalog.
    with refused("event_not_allowed"):
        await command(hostile, f"game-{uuid.uuid4()}", ["forged"], -1, stream_type="notes")
    assert await _log(pool) == before


async def test_nothing_follows_the_end_of_a_game(hostile: asyncpg.Pool, pool: asyncpg.Pool) -> None:
    stream = f"game-{uuid.uuid4()}"
    await append(hostile, stream, ["game_created", "player_seated", "game_ended"], -1)
    for forged in (["card_played"], ["deal_started"], ["game_ended"], ["player_seated"]):
        with refused("after the end"):
            await command(hostile, stream, forged, 3)
        with refused("after the end"):
            await append(hostile, stream, forged, 3)
    assert await append(hostile, stream, ["secret_revealed"], 3) == 4  # the one event after
    for forged in (["secret_revealed"], ["card_played"]):
        with refused("after the end"):
            await command(hostile, stream, forged, 4)
    assert await pool.fetchval("SELECT phase FROM es.streams WHERE stream_id = $1", stream) == 2
    assert [t for s, _, t in await _log(pool) if s == stream][-1] == "secret_revealed"


async def test_the_effects_are_only_the_written_streams(
    hostile: asyncpg.Pool, pool: asyncpg.Pool
) -> None:
    anna, anna_token = await _player(pool, "Anna")
    vera, vera_token = await _player(pool, "Vera")
    mine, theirs = uuid.uuid4(), uuid.uuid4()
    await command(
        hostile, f"game-{mine}", ["game_created"], -1, summary=_new_game(mine, anna, anna_token)
    )
    await command(
        hostile, f"game-{theirs}", ["game_created"], -1, summary=_new_game(theirs, vera, vera_token)
    )
    lobby = await pool.fetch("SELECT * FROM api.games ORDER BY game_id")
    # Another game's lobby row, rewritten by a command to my stream.
    forged_row = {
        "token": anna_token, "op": "update", "game_id": str(theirs), "status": "finished",
        "players": [anna, None, None], "to_act": [],
    }  # fmt: skip
    with refused("effects_of_another_stream"):
        await command(hostile, f"game-{mine}", ["player_seated"], 1, summary=forged_row)
    # A lobby row made for a stream that is not a game's.
    with refused("effects_of_another_stream"):
        await command(
            hostile, "table-z", ["ticked"], -1, stream_type="table",
            summary=_new_game(uuid.uuid4(), anna, anna_token),
        )  # fmt: skip
    # A game created in another player's name.
    other = uuid.uuid4()
    with refused("game_created_for_another"):
        await command(
            hostile, f"game-{other}", ["game_created"], -1,
            summary={**_new_game(other, vera, anna_token)},
        )  # fmt: skip
    # Effects with no events (a refusal's): nothing but the token.
    with refused("effects_without_events"):
        await command(
            hostile, f"game-{mine}", [], None, principal=anna, key="k-effects",
            summary={**forged_row, "game_id": str(mine)},
        )  # fmt: skip
    assert await pool.fetch("SELECT * FROM api.games ORDER BY game_id") == lobby


@pytest.mark.parametrize(
    "note",
    [
        {"kind": "your_turn", "data": {"text": "click http://evil.example/login"}},
        {"kind": "announcement", "data": {"version": 2}},
        {"kind": "your_turn", "data": {"version": 2, "seat": "0", "deadline": None}},
        {"kind": "your_turn", "data": {"version": 2, "seat": 0, "deadline": None, "url": "x"}},
        {"kind": "player_left", "data": {"version": 2, "seat": 1, "player": "click http://"}},
        {"kind": "invited", "data": {"by": "x", "expires_at": "y"}},
        {"kind": "your_turn"},
    ],
    ids=["text", "unknown-kind", "wrong-type", "extra-key", "player-not-id", "invite", "no-data"],
)
async def test_a_notification_is_of_a_known_kind_with_typed_data(
    hostile: asyncpg.Pool, pool: asyncpg.Pool, note: dict[str, Any]
) -> None:
    anna, token = await _player(pool, "Anna")
    game_id = uuid.uuid4()
    await command(
        hostile, f"game-{game_id}", ["game_created"], -1, summary=_new_game(game_id, anna, token)
    )
    sent = {"player": anna, "game_id": str(game_id), **note}
    with refused("notification_not_allowed"):
        await command(
            hostile, f"game-{game_id}", ["player_seated"], 1,
            summary={"token": token, "notes": [sent]},
        )  # fmt: skip
    assert await pool.fetchval("SELECT count(*) FROM api.notifications") == 0


async def test_a_notification_goes_to_the_games_players_only(
    hostile: asyncpg.Pool, pool: asyncpg.Pool
) -> None:
    anna, token = await _player(pool, "Anna")
    vera, _ = await _player(pool, "Vera")
    game_id = uuid.uuid4()
    await command(
        hostile, f"game-{game_id}", ["game_created"], -1, summary=_new_game(game_id, anna, token)
    )
    fits = {"kind": "your_turn", "data": {"version": 2, "seat": 0, "deadline": None}}
    for to, about in ((vera, game_id), (anna, uuid.uuid4())):
        with refused("notification_not_allowed"):
            await command(
                hostile, f"game-{game_id}", ["player_seated"], 1,
                summary={"token": token, "notes": [{"player": to, "game_id": str(about), **fits}]},
            )  # fmt: skip
    # The same note to the game's own player is what a command sends.
    note = {"player": anna, "game_id": str(game_id), **fits}
    summary = {"token": token, "notes": [note]}
    assert await command(hostile, f"game-{game_id}", ["player_seated"], 1, summary=summary) == (
        "appended"
    )
    rows = await pool.fetch("SELECT player_id::text, kind, data FROM api.notifications")
    assert [(r[0], r[1], r[2]) for r in rows] == [(anna, "your_turn", fits["data"])]


async def test_a_key_is_the_callers_and_kept_a_bounded_time(
    hostile: asyncpg.Pool, pool: asyncpg.Pool
) -> None:
    anna, anna_token = await _player(pool, "Anna")
    vera, _ = await _player(pool, "Vera")
    game_id = uuid.uuid4()
    stream = f"game-{game_id}"
    await command(
        hostile, stream, ["game_created"], -1, summary=_new_game(game_id, anna, anna_token)
    )
    mine = {"token": anna_token}
    # Under another player's key: with my token, or with none; with or without events.
    for events, expected in ((["player_seated"], 1), ([], None)):
        for summary in (mine, None):
            with refused("key_not_the_callers"):
                await command(
                    hostile, stream, events, expected, principal=vera, key="vera-k1",
                    summary=summary,
                )  # fmt: skip
    # Kept a hundred years, or for no time at all.
    for ttl in (timedelta(days=36_500), timedelta(0), timedelta(seconds=-1)):
        with refused("0 to 7 days"):
            await command(
                hostile, stream, ["player_seated"], 1, principal=anna, key="anna-k1", ttl=ttl,
                summary=mine,
            )  # fmt: skip
    assert await pool.fetchval("SELECT count(*) FROM es.idempotency_keys") == 0
    # The caller's own key, kept a day: as the service writes it.
    assert await command(
        hostile, stream, ["player_seated"], 1, principal=anna, key="anna-k1", summary=mine
    ) == "appended"  # fmt: skip
    assert await command(
        hostile, stream, [], None, principal=anna, key="anna-k2", summary=mine
    ) == "refused"  # fmt: skip
    kept = await pool.fetch("SELECT principal_id FROM es.idempotency_keys")
    assert [r[0] for r in kept] == [anna, anna]


async def test_a_read_only_token_writes_nothing(hostile: asyncpg.Pool, pool: asyncpg.Pool) -> None:
    anna, token = await _player(pool, "Anna")
    await pool.execute("UPDATE api.tokens SET scope = 'read'")
    game_id = uuid.uuid4()
    with refused("token_read_only"):
        await command(
            hostile,
            f"game-{game_id}",
            ["game_created"],
            -1,
            summary=_new_game(game_id, anna, token),
        )
    assert json.dumps(await _log(pool)) == "[]"
