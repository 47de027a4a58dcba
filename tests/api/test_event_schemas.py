"""The running app reads every stored event shape through the upcasters and writes only the
current ones: a game stored in schema 1 shapes is read, followed and played on as schema 2."""

from __future__ import annotations

import os
import random
import uuid
from typing import Any

import asyncpg
import httpx
import msgspec
from apitools import layouts, register

from domain import game as g
from service.api.actions.schemas import from_command
from service.eventlog.codec import SCHEMA_VERSIONS, domain_codec
from service.games.streams import game_stream

PROBLEM = "application/problem+json"


def _v1(event_type: str, data: dict[str, Any]) -> dict[str, Any]:
    """An event written back into its first shape (what an older release stored)."""
    if event_type == "hands_opened":
        return {**data, "hands": {str(h["seat"]): h["cards"] for h in data["hands"]}}
    if event_type == "deal_ended":
        outcome = dict(data["outcome"])
        active = outcome["hands"]
        outcome["tricks"] = {str(s): outcome["tricks"][s] for s in active}
        return {**data, "outcome": outcome}
    return data


def _next_action(state: g.GameState, rng: random.Random) -> tuple[int, dict[str, Any]]:
    """Seat and body of the next action: one whister who plays open, so the hands open."""
    seat = g.to_act(state)[0]  # two while a claim waits for its answers
    legal = g.legal_actions(state, seat)
    bodies = [msgspec.to_builtins(from_command(c)) for c in legal]
    kinds: dict[str, dict[str, Any]] = {}
    for body in bodies:
        kinds.setdefault(body["type"], body)  # the first of each kind: the lowest bid, contract
    if "bid" in kinds:
        forehand = state.deal.order[0]  # type: ignore[union-attr]
        return seat, kinds["bid"] if seat == forehand else kinds["pass"]
    if "whist" in kinds:
        calls = {b["choice"]: b for b in bodies if b["type"] == "whist"}
        first = not getattr(state.deal, "calls", ())
        return seat, calls["whist"] if first else calls["pass"]
    if "choose_play" in kinds:
        return seat, {"type": "choose_play", "open": True}
    if "declare" in kinds:
        return seat, kinds["declare"]
    return seat, bodies[rng.randrange(len(bodies))]


async def test_the_app_reads_schema_1_events_as_schema_2_and_writes_schema_2(
    client: httpx.AsyncClient, pool: asyncpg.Pool
) -> None:
    assert SCHEMA_VERSIONS["hands_opened"] == 2 and SCHEMA_VERSIONS["deal_ended"] == 2
    players = [await register(client, f"p{i}") for i in range(3)]
    created = await client.post(
        "/v1/games",
        json={"seats": 3, "seat": 0, "layouts": layouts(3, 2)},
        headers=players[0].auth,
    )
    game_id = created.json()["id"]
    for seat in (1, 2):
        joined = await client.post(
            f"/v1/games/{game_id}/seats", json={"seat": seat}, headers=players[seat].auth
        )
        assert joined.status_code == 200
    # Play deal 1 to its end through the app, with an open whist, from the stored truth.
    rng = random.Random(9)
    stream = game_stream(game_id)
    while True:
        rows = await pool.fetch(
            "SELECT event_type, schema_version, data::text FROM es.events"
            " WHERE stream_id = $1 ORDER BY version",
            stream,
        )
        state = g.fold([domain_codec().decode(r[0], r[1], r[2]) for r in rows])
        assert isinstance(state, g.Pulka)
        if state.deal_no > 1:
            break
        seat, body = _next_action(state, rng)
        done = await client.post(
            f"/v1/games/{game_id}/actions", json=body, headers=players[seat].auth
        )
        assert done.status_code == 200, done.text
    stored = {r[0]: r[1] for r in rows}
    # The app wrote the current shapes.
    assert stored["hands_opened"] == 2 and stored["deal_ended"] == 2

    # The same game as an older release stored it: schema 1 shapes, labelled 1.
    old_id = str(uuid.uuid4())
    old_stream = game_stream(old_id)
    full = await pool.fetch(
        "SELECT event_id, event_type, schema_version, data::text, metadata"
        " FROM es.events WHERE stream_id = $1 ORDER BY version",
        stream,
    )
    async with pool.acquire() as conn, conn.transaction():
        await conn.execute(
            "INSERT INTO es.streams (stream_id, stream_type, version) VALUES ($1, 'game', 0)",
            old_stream,
        )
        head = bytes(32)  # chained as migration 0007 chains what an older release stored
        for version, r in enumerate(full, 1):
            data = msgspec.json.decode(r[3])
            shape = 1 if r[1] in SCHEMA_VERSIONS else r[2]
            head = await conn.fetchval(
                "INSERT INTO es.events (stream_id, version, event_id, event_type,"
                " schema_version, data, prev_hash, salt, hash) VALUES ($1, $2, $3, $4, $5, $6,"
                " $7, $8, es.event_hash($7, $1, $2, $3, $4, $5, $8, $6)) RETURNING hash",
                old_stream, version, uuid.uuid4(), r[1], shape,
                msgspec.Raw(msgspec.json.encode(_v1(r[1], data))), head, os.urandom(16),
            )  # fmt: skip
        await conn.execute(
            "UPDATE es.streams SET version = $2, head_hash = $3 WHERE stream_id = $1",
            old_stream, len(full), head,
        )  # fmt: skip
        await conn.execute(
            "INSERT INTO api.games (game_id, stream_id, status, preset, seats, players,"
            " created_by, version)"
            " SELECT $1, $2, status, preset, seats, players, created_by, version"
            " FROM api.games WHERE game_id = $3",
            uuid.UUID(old_id), old_stream, uuid.UUID(game_id),
        )  # fmt: skip
        await conn.execute(
            "INSERT INTO api.deal_sources (game_id, seats, seed, layouts)"
            " SELECT $1, seats, seed, layouts FROM api.deal_sources WHERE game_id = $2",
            uuid.UUID(old_id), uuid.UUID(game_id),
        )  # fmt: skip
        await conn.execute(  # the database deals it from the same secret (migration 0018)
            "INSERT INTO api.deal_secrets (game_id, secret)"
            " SELECT $1, secret FROM api.deal_secrets WHERE game_id = $2",
            uuid.UUID(old_id), uuid.UUID(game_id),
        )  # fmt: skip
    assert {
        r[0]: r[1]
        for r in await pool.fetch(
            "SELECT event_type, schema_version FROM es.events WHERE stream_id = $1", old_stream
        )
    }["hands_opened"] == 1

    # Read through the app: the same views and the same event pages as the schema 2 game.
    for player in players:
        new_view = (await client.get(f"/v1/games/{game_id}", headers=player.auth)).json()
        old_view = (await client.get(f"/v1/games/{old_id}", headers=player.auth)).json()
        assert old_view["view"] == new_view["view"]
        pages = []
        for gid in (game_id, old_id):
            page = await client.get(
                f"/v1/games/{gid}/events", params={"limit": 500}, headers=player.auth
            )
            assert page.status_code == 200
            pages.append([item["event"] for item in page.json()["items"]])
        assert pages[0] == pages[1]
        opened = next(e for e in pages[1] if e["type"] == "hands_opened")
        assert isinstance(opened["hands"], list) and {"seat", "cards"} <= set(opened["hands"][0])

    # Play on in the old game through the app: its new events are stored as schema 2.
    before = await pool.fetchval("SELECT version FROM es.streams WHERE stream_id = $1", old_stream)
    while True:
        rows = await pool.fetch(
            "SELECT event_type, schema_version, data::text FROM es.events"
            " WHERE stream_id = $1 ORDER BY version",
            old_stream,
        )
        state = g.fold([domain_codec().decode(r[0], r[1], r[2]) for r in rows])
        assert isinstance(state, g.Pulka)
        if state.deal_no > 2 or g.is_terminal(state):
            break
        seat, body = _next_action(state, rng)
        done = await client.post(
            f"/v1/games/{old_id}/actions", json=body, headers=players[seat].auth
        )
        assert done.status_code == 200, done.text
    written = await pool.fetch(
        "SELECT event_type, schema_version FROM es.events WHERE stream_id = $1 AND version > $2",
        old_stream,
        before,
    )
    assert {r[0] for r in written} >= {"deal_ended", "hands_opened"}
    assert all(r[1] == SCHEMA_VERSIONS.get(r[0], 1) for r in written)
