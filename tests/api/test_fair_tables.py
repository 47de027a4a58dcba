"""Fair deals over HTTP: the commitment before anyone acts, the client seeds in the seat events,
the secret nowhere until the game is over, the head of the chain in every response, the proof,
and seeded games shown as such and never rated."""

from __future__ import annotations

import hashlib
import json
import random
from typing import Any

import asyncpg
import httpx
from apitools import Player, choose, register

from domain import game
from projections import ratings, stats
from service.eventlog.codec import domain_codec
from service.games.streams import game_stream

QUICK = {"pool": {"target": 10, "max_deals": 2}}


async def _head(pool: asyncpg.Pool, game_id: str, version: int) -> str:
    row = await pool.fetchval(
        "SELECT hash FROM es.events WHERE stream_id = $1 AND version = $2",
        game_stream(game_id),
        version,
    )
    return bytes(row).hex()


async def _secret(pool: asyncpg.Pool, game_id: str) -> bytes:
    """The secret the database drew for the game (read as the administrator: no service role
    may, migration 0018)."""
    query = "SELECT secret FROM api.deal_secrets WHERE game_id = $1::uuid"
    return bytes(await pool.fetchval(query, game_id))


async def _table(
    client: httpx.AsyncClient, pool: asyncpg.Pool, **body: Any
) -> tuple[str, list[Player], list[dict[str, Any]]]:
    """A game of three created and joined over HTTP (seeds given by two, drawn for the third);
    the responses, each checked to carry the chain's head at its version."""
    players = [await register(client, f"fair {i}") for i in range(3)]
    created = await client.post(
        "/v1/games",
        json={"seat": 0, "client_seed": "Anna's own", "overrides": QUICK, **body},
        headers=players[0].auth,
    )
    assert created.status_code == 201, created.text
    game_id = created.json()["id"]
    responses = [created.json()]
    for seat, seed in ((1, {"client_seed": "Vera's"}), (2, {})):
        joined = await client.post(
            f"/v1/games/{game_id}/seats", json={"seat": seat, **seed}, headers=players[seat].auth
        )
        assert joined.status_code == 200, joined.text
        responses.append(joined.json())
    for body in responses:
        assert body["head"] == await _head(pool, game_id, body["version"])
    return game_id, players, responses


async def _play_to_the_end(
    client: httpx.AsyncClient, pool: asyncpg.Pool, game_id: str, players: list[Player],
    hidden: list[str],
) -> list[str]:  # fmt: skip
    """Play with quick choices, checking each response's head and that nothing any player
    reads (views, pages, responses) holds a ``hidden`` string; every text read."""
    rng = random.Random(game_id)
    texts: list[str] = []
    while True:
        for player in players:
            view = await client.get(f"/v1/games/{game_id}", headers=player.auth)
            page = await client.get(f"/v1/games/{game_id}/events", headers=player.auth)
            texts += [view.text, page.text]
            assert view.json()["head"] == await _head(pool, game_id, view.json()["version"])
        body = view.json()
        if body["view"]["status"] == "finished":
            return texts
        seat = body["view"]["deal"]["to_act"][0]
        mine = (await client.get(f"/v1/games/{game_id}", headers=players[seat].auth)).json()
        for text in texts[-6:]:
            assert not any(h in text for h in hidden), "a secret reached a player"
        action = choose(rng, mine["legal_actions"], quick=True)
        done = await client.post(
            f"/v1/games/{game_id}/actions", json=action, headers=players[seat].auth
        )
        assert done.status_code == 200, done.text
        assert done.json()["head"] == await _head(pool, game_id, done.json()["version"])
        texts.append(done.text)


async def test_a_random_game_commits_first_keeps_its_secret_and_reveals_it_at_the_end(
    client: httpx.AsyncClient, pool: asyncpg.Pool
) -> None:
    game_id, players, responses = await _table(client, pool)
    secret = await _secret(pool, game_id)
    first = responses[0]["events"]
    assert first[0]["version"] == 1 and first[0]["event"]["type"] == "game_created"
    assert first[0]["event"]["commitment"] == hashlib.sha256(secret).hexdigest()
    assert first[0]["event"]["dealing"] == "random" and first[0]["event"]["fairness"] == 2
    seated = [
        item["event"] for body in responses for item in body["events"]
        if item["event"]["type"] == "player_seated"
    ]  # fmt: skip
    assert [e["client_seed"] for e in seated][:2] == ["Anna's own", "Vera's"]
    assert len(seated[2]["client_seed"]) == 32  # drawn for the player who gave none
    for body in responses:
        assert body["view"]["dealing"] == "random" and body["view"]["secret"] is None
    listed = (await client.get("/v1/games")).json()["items"]
    assert next(g for g in listed if g["id"] == game_id)["dealing"] == "random"

    proof = (await client.get(f"/v1/games/{game_id}/proof")).json()
    assert proof["verdict"] == "verified_so_far" and proof["chain_ok"], proof["problems"]
    assert proof["committed_before_play"] and proof["commitment_opened"] is None
    assert {d["status"] for d in proof["deals"]} == {"pending"}
    assert secret.hex() not in json.dumps(proof)

    texts = await _play_to_the_end(client, pool, game_id, players, [secret.hex()])
    final = (await client.get(f"/v1/games/{game_id}", headers=players[1].auth)).json()
    assert final["view"]["secret"] == secret.hex()
    assert any(secret.hex() in text for text in texts[-6:])  # revealed to all, at the end only
    proof = (await client.get(f"/v1/games/{game_id}/proof")).json()
    assert proof["verdict"] == "verified" and proof["commitment_opened"] is True, proof["problems"]
    assert proof["fairness"] == 2 and {d["status"] for d in proof["deals"]} == {"matches"}
    assert proof["head"] == final["head"]


async def test_a_seeded_game_is_shown_as_seeded_to_every_seat_and_is_never_rated(
    client: httpx.AsyncClient, pool: asyncpg.Pool
) -> None:
    seed = "tournament-7"
    game_id, players, responses = await _table(client, pool, seed=seed)
    for body in responses:
        assert body["view"]["dealing"] == "seeded" and body["view"]["commitment"] is None
    for player in players:
        view = (await client.get(f"/v1/games/{game_id}", headers=player.auth)).json()
        assert view["view"]["dealing"] == "seeded"
    summary = next(g for g in (await client.get("/v1/games")).json()["items"] if g["id"] == game_id)
    assert summary["dealing"] == "seeded"
    hidden = [seed, seed.encode().hex(), hashlib.sha256(seed.encode()).hexdigest()]
    await _play_to_the_end(client, pool, game_id, players, hidden)

    rows = await pool.fetch(
        "SELECT event_type, schema_version, data::text FROM es.events"
        " WHERE stream_id = $1 ORDER BY version",
        game_stream(game_id),
    )
    events = [domain_codec().decode(r[0], r[1], r[2]) for r in rows]
    assert isinstance(events[-1], game.SecretRevealed)
    assert bytes.fromhex(events[-1].secret) == seed.encode()  # the seed, once the game is over
    board = ratings.Board()
    model = stats.EMPTY
    for event in events:
        board = ratings.apply(board, game_id, event)  # type: ignore[arg-type]
        model = stats.apply(model, event)  # type: ignore[arg-type]
    assert board.ratings == {} and board.history == {}
    assert model.dealing == "seeded" and model.finished
    proof = (await client.get(f"/v1/games/{game_id}/proof")).json()
    assert proof["verdict"] == "verified" and proof["dealing"] == "seeded"
