"""Racing clients over a real server: If-Match makes one of two writers lose with 412, and an
Idempotency-Key makes any number of retries (even simultaneous ones) append once."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import httpx
import pytest
from apitools import PROBLEM, register, seated_game

pytestmark = pytest.mark.integration


@pytest.fixture
async def http(server: str) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(base_url=server, timeout=30) as client:
        yield client


async def _state(http: httpx.AsyncClient, game_id: str) -> dict:
    response = await http.get(f"/v1/games/{game_id}")
    assert response.status_code == 200
    return response.json()


async def test_two_joiners_racing_with_one_if_match_one_wins_one_gets_412(
    http: httpx.AsyncClient,
) -> None:
    creator, first, second = [await register(http, name) for name in ("C", "F", "S")]
    created = await http.post("/v1/games", json={"seat": 0, "seed": "race"}, headers=creator.auth)
    game_id, etag = created.json()["id"], created.headers["etag"]

    responses = await asyncio.gather(
        *(
            http.post(f"/v1/games/{game_id}/seats", json={}, headers={**p.auth, "If-Match": etag})
            for p in (first, second)
        )
    )

    assert sorted(r.status_code for r in responses) == [200, 412]
    won = next(r for r in responses if r.status_code == 200)
    lost = next(r for r in responses if r.status_code == 412)
    assert lost.headers["content-type"] == PROBLEM
    assert lost.json()["type"] == "/problems/version-mismatch"
    assert lost.headers["etag"] == won.headers["etag"] == f'"{lost.json()["actual"]}"'
    game = await _state(http, game_id)
    assert game["version"] == 3 and game["view"]["players"].count(None) == 1


async def test_one_seat_racing_two_actions_with_one_if_match_gets_one_through(
    http: httpx.AsyncClient,
) -> None:
    game_id, players = await seated_game(http, seed="one seat")
    game = await _state(http, game_id)
    seat = game["view"]["deal"]["to_act"][0]
    headers = {**players[seat].auth, "If-Match": f'"{game["version"]}"'}

    responses = await asyncio.gather(
        http.post(f"/v1/games/{game_id}/actions", json={"type": "pass"}, headers=headers),
        http.post(
            f"/v1/games/{game_id}/actions", json={"type": "bid", "bid": "6S"}, headers=headers
        ),
    )

    assert sorted(r.status_code for r in responses) == [200, 412]
    assert (await _state(http, game_id))["version"] == game["version"] + 1


async def test_a_stale_if_match_is_412_and_a_current_one_goes_through(
    http: httpx.AsyncClient,
) -> None:
    game_id, players = await seated_game(http, seed="stale")
    game = await _state(http, game_id)
    seat = game["view"]["deal"]["to_act"][0]
    url = f"/v1/games/{game_id}/actions"

    stale = await http.post(
        url, json={"type": "pass"}, headers={**players[seat].auth, "If-Match": '"1"'}
    )
    current = await http.post(
        url,
        json={"type": "pass"},
        headers={**players[seat].auth, "If-Match": stale.headers["etag"]},
    )

    assert (stale.status_code, stale.json()["expected"], stale.json()["actual"]) == (
        412,
        1,
        game["version"],
    )
    assert current.status_code == 200
    assert current.headers["etag"] == f'"{game["version"] + 1}"'


async def test_retries_with_one_idempotency_key_append_once(http: httpx.AsyncClient) -> None:
    game_id, players = await seated_game(http, seed="retry")
    game = await _state(http, game_id)
    seat = game["view"]["deal"]["to_act"][0]
    headers = {**players[seat].auth, "Idempotency-Key": "retry-0001"}
    url = f"/v1/games/{game_id}/actions"

    first = await http.post(url, json={"type": "pass"}, headers=headers)
    again = await http.post(url, json={"type": "pass"}, headers=headers)

    assert first.status_code == again.status_code == 200
    assert again.content == first.content
    assert "idempotent-replayed" not in first.headers
    assert again.headers["idempotent-replayed"] == "true"
    assert again.headers["etag"] == first.headers["etag"]
    assert (await _state(http, game_id))["version"] == game["version"] + 1


async def test_simultaneous_retries_with_one_idempotency_key_append_once(
    http: httpx.AsyncClient,
) -> None:
    game_id, players = await seated_game(http, seed="simultaneous")
    game = await _state(http, game_id)
    seat = game["view"]["deal"]["to_act"][0]
    headers = {**players[seat].auth, "Idempotency-Key": "same-key-everywhere"}

    responses = await asyncio.gather(
        *(
            http.post(f"/v1/games/{game_id}/actions", json={"type": "pass"}, headers=headers)
            for _ in range(8)
        )
    )

    assert {r.status_code for r in responses} == {200}
    assert len({r.content for r in responses}) == 1
    assert sum("idempotent-replayed" not in r.headers for r in responses) == 1
    assert (await _state(http, game_id))["version"] == game["version"] + 1


async def test_an_idempotency_key_names_one_request(http: httpx.AsyncClient) -> None:
    game_id, players = await seated_game(http, seed="reuse")
    game = await _state(http, game_id)
    seat = game["view"]["deal"]["to_act"][0]
    headers = {**players[seat].auth, "Idempotency-Key": "k-reused"}
    url = f"/v1/games/{game_id}/actions"

    first = await http.post(url, json={"type": "pass"}, headers=headers)
    other = await http.post(url, json={"type": "bid", "bid": "6S"}, headers=headers)

    assert first.status_code == 200
    assert other.status_code == 422
    assert other.json()["type"] == "/problems/idempotency-key-reused"
    assert (await _state(http, game_id))["version"] == game["version"] + 1


async def test_a_refusal_under_a_key_is_replayed_too(http: httpx.AsyncClient) -> None:
    game_id, players = await seated_game(http, seed="refusal")
    game = await _state(http, game_id)
    waiting = (game["view"]["deal"]["to_act"][0] + 1) % 3
    headers = {**players[waiting].auth, "Idempotency-Key": "refused-once"}
    url = f"/v1/games/{game_id}/actions"

    first = await http.post(url, json={"type": "pass"}, headers=headers)
    again = await http.post(url, json={"type": "pass"}, headers=headers)

    assert first.status_code == again.status_code == 409
    assert first.json() == again.json()
    assert again.headers["content-type"] == PROBLEM
    assert again.headers["idempotent-replayed"] == "true"
    assert (await _state(http, game_id))["version"] == game["version"]


async def test_creating_a_game_under_a_key_twice_creates_one_game(http: httpx.AsyncClient) -> None:
    creator = await register(http, "C")
    headers = {**creator.auth, "Idempotency-Key": "create-once"}

    responses = await asyncio.gather(
        *(http.post("/v1/games", json={"seed": "x"}, headers=headers) for _ in range(4))
    )

    assert {r.status_code for r in responses} == {201}
    assert len({r.json()["id"] for r in responses}) == 1
    assert len((await http.get("/v1/games")).json()["items"]) == 1
