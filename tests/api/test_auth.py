"""Bearer tokens: a player acts only with his token, only for his own seat."""

from __future__ import annotations

import hashlib

import asyncpg
import httpx
import pytest
from apitools import PROBLEM, register, seated_game

pytestmark = pytest.mark.integration


async def _version(client: httpx.AsyncClient, game_id: str) -> int:
    response = await client.get(f"/v1/games/{game_id}")
    assert response.status_code == 200
    return int(response.json()["version"])


async def _to_act(client: httpx.AsyncClient, game_id: str) -> int:
    return int((await client.get(f"/v1/games/{game_id}")).json()["view"]["deal"]["to_act"][0])


@pytest.mark.parametrize(
    "authorization",
    [None, "Bearer not-a-token-we-issued", "Basic dXNlcjpwYXNz", "Bearer", "Bearer " + "x" * 600],
)
async def test_an_action_without_a_valid_token_is_401_and_appends_nothing(
    client: httpx.AsyncClient, authorization: str | None
) -> None:
    game_id, _ = await seated_game(client, seed="auth")
    before = await _version(client, game_id)
    headers = {"Authorization": authorization} if authorization is not None else {}

    response = await client.post(
        f"/v1/games/{game_id}/actions", json={"type": "pass"}, headers=headers
    )

    assert response.status_code == 401
    assert response.headers["content-type"] == PROBLEM
    assert response.headers["www-authenticate"].startswith("Bearer")
    assert response.json()["type"] == "/problems/unauthenticated"
    assert await _version(client, game_id) == before


async def test_a_seat_cannot_act_in_another_seats_turn(client: httpx.AsyncClient) -> None:
    game_id, players = await seated_game(client, seed="turns")
    before = await _version(client, game_id)
    waiting = (await _to_act(client, game_id) + 1) % 3

    response = await client.post(
        f"/v1/games/{game_id}/actions", json={"type": "pass"}, headers=players[waiting].auth
    )

    assert response.status_code == 409
    problem = response.json()
    assert (problem["type"], problem["code"]) == (
        "/problems/illegal-action",
        "illegal.not_your_turn",
    )
    assert "turn" in problem["detail"]
    assert await _version(client, game_id) == before


async def test_the_seat_comes_from_the_token_never_from_the_body(client: httpx.AsyncClient) -> None:
    game_id, players = await seated_game(client, seed="seat in body")
    before = await _version(client, game_id)
    turn = await _to_act(client, game_id)
    other = (turn + 1) % 3

    response = await client.post(
        f"/v1/games/{game_id}/actions",
        json={"type": "pass", "seat": turn},
        headers=players[other].auth,
    )

    assert response.status_code == 400
    assert response.json()["type"] == "/problems/validation"
    assert "seat" in response.json()["detail"]
    assert await _version(client, game_id) == before


async def test_a_player_without_a_seat_cannot_act(client: httpx.AsyncClient) -> None:
    game_id, _ = await seated_game(client, seed="outsider")
    outsider = await register(client, "kibitzer")
    before = await _version(client, game_id)

    response = await client.post(
        f"/v1/games/{game_id}/actions", json={"type": "pass"}, headers=outsider.auth
    )

    assert response.status_code == 403
    assert response.json()["type"] == "/problems/not-seated"
    assert await _version(client, game_id) == before


async def test_a_spectator_reads_the_game_without_any_hand(client: httpx.AsyncClient) -> None:
    game_id, players = await seated_game(client, seed="spectator")
    outsider = await register(client, "kibitzer")

    for headers in ({}, outsider.auth):
        view = (await client.get(f"/v1/games/{game_id}", headers=headers)).json()
        assert view["seat"] is None
        assert view["legal_actions"] == []
        assert view["view"]["deal"]["hand"] == []
        assert view["view"]["deal"]["hand_sizes"] == [10, 10, 10]
    seated = (await client.get(f"/v1/games/{game_id}", headers=players[1].auth)).json()
    assert seated["seat"] == 1 and len(seated["view"]["deal"]["hand"]) == 10


async def test_a_token_sent_but_unknown_is_401_even_where_spectators_may_read(
    client: httpx.AsyncClient,
) -> None:
    game_id, _ = await seated_game(client, seed="typo")
    response = await client.get(f"/v1/games/{game_id}", headers={"Authorization": "Bearer typo"})
    assert response.status_code == 401
    assert response.json()["type"] == "/problems/unauthenticated"


async def test_creating_and_joining_games_need_a_token(client: httpx.AsyncClient) -> None:
    game_id, _ = await seated_game(client, seed="join")
    assert (await client.post("/v1/games", json={})).status_code == 401
    assert (await client.post(f"/v1/games/{game_id}/seats", json={})).status_code == 401


async def test_the_token_is_shown_once_and_stored_only_as_its_hash(
    client: httpx.AsyncClient, pool: asyncpg.Pool
) -> None:
    player = await register(client, "Ada")

    row = await pool.fetchrow("SELECT * FROM api.players WHERE player_id = $1::uuid", player.id)
    assert row is not None
    assert all(player.token not in str(value) for value in row.values())
    token = await pool.fetchrow("SELECT * FROM api.tokens WHERE player_id = $1::uuid", player.id)
    assert token["token_hash"] == hashlib.sha256(player.token.encode()).digest()
    assert all(player.token not in str(value) for value in token.values())
    me = (await client.get("/v1/players/me", headers=player.auth)).json()
    assert {k: me[k] for k in ("id", "name", "kind")} == {
        "id": player.id,
        "name": "Ada",
        "kind": "human",
    }
    assert me["token"]["scope"] == "play" and me["token"]["name"] == "first device"
    assert "token" not in (await client.get(f"/v1/players/{player.id}")).json()
