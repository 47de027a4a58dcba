"""The public lobby live over a real server: a reset first, then each game's changed summary."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable

import httpx
import jsonschema_rs
import pytest
from apitools import SseLog, make_app, read_sse, register
from litestar import Litestar

from service.app import OPENAPI_PATH

pytestmark = pytest.mark.integration


@pytest.fixture
def app(database_dsn: str) -> Litestar:
    return make_app(database_dsn)


@pytest.fixture
async def http(server: str) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(base_url=server, timeout=30) as client:
        yield client


async def _until(condition: Callable[[], bool], timeout: float = 10) -> None:
    async with asyncio.timeout(timeout):
        while not condition():
            await asyncio.sleep(0.02)


def _games(log: SseLog, game_id: str) -> list[dict]:
    summaries = [json.loads(f.data) for f in log.frames if f.event == "game"]
    return [s for s in summaries if s["id"] == game_id]


async def test_the_lobby_stream_tells_each_change_of_a_public_table_and_hides_private_ones(
    http: httpx.AsyncClient, app: Litestar
) -> None:
    log = SseLog()

    async def follow() -> None:
        async with http.stream("GET", "/v1/lobby/stream") as response:
            assert response.status_code == 200
            assert response.headers["content-type"].startswith("text/event-stream")
            async for _ in read_sse(response, log):
                pass

    task = asyncio.ensure_future(follow())
    try:
        await _until(lambda: bool(log.frames))
        assert log.frames[0].event == "reset"  # registered: read the lists now
        assert app.state.lobby_hub.followed == 1
        players = [await register(http, f"lobby {i}") for i in range(3)]
        private = await http.post(
            "/v1/games", json={"seat": 0, "private": True}, headers=players[0].auth
        )
        assert private.status_code == 201, private.text
        created = await http.post("/v1/games", json={"seat": 0}, headers=players[0].auth)
        game_id = created.json()["id"]
        await _until(lambda: bool(_games(log, game_id)))
        first = _games(log, game_id)[0]
        assert first["status"] == "seating"
        assert first["players"] == [players[0].id, None, None]
        assert first["seated"][0]["name"] == players[0].name
        for seat in (1, 2):
            joined = await http.post(
                f"/v1/games/{game_id}/seats", json={"seat": seat}, headers=players[seat].auth
            )
            assert joined.status_code == 200, joined.text
        # Seated, then dealt (the database deals in a command of its own right after).
        await _until(lambda: bool(_games(log, game_id)[-1]["to_act"]))
        last = _games(log, game_id)[-1]
        assert last["status"] == "playing"
        assert last["players"] == [p.id for p in players]
        assert last["to_act"]  # the first deal is dealt: someone is to bid
        versions = [s["version"] for s in _games(log, game_id)]
        assert versions == sorted(versions)
        # The game's own later moves reach the lobby too (whose turn moved on).
        public = (await http.get(f"/v1/games/{game_id}")).json()
        seat = public["view"]["deal"]["to_act"][0]
        mine = (await http.get(f"/v1/games/{game_id}", headers=players[seat].auth)).json()
        acted = await http.post(
            f"/v1/games/{game_id}/actions",
            json=mine["legal_actions"][0],
            headers=players[seat].auth,
        )
        assert acted.status_code == 200, acted.text
        await _until(lambda: _games(log, game_id)[-1]["version"] == acted.json()["version"])
    finally:
        task.cancel()
    await _until(lambda: app.state.lobby_hub.followed == 0)
    private_id = private.json()["id"]
    assert all(json.loads(f.data).get("id") != private_id for f in log.frames)

    spec = json.loads(OPENAPI_PATH.read_text())
    schema = {"$ref": "#/components/schemas/LobbyFrame", "components": spec["components"]}
    check = jsonschema_rs.validator_for(schema)
    messages = [{"retry": log.retry}] + [
        {"event": f.event, "data": json.loads(f.data)} for f in log.frames
    ]
    for message in messages:
        errors = [str(e) for e in check.iter_errors(message)]
        assert errors == [], (message, errors)
    assert not check.is_valid({"event": "game", "data": {}})  # a summary has its fields


async def test_a_hint_that_hints_were_lost_resets_every_follower(
    http: httpx.AsyncClient, app: Litestar
) -> None:
    log = SseLog()

    async def follow() -> None:
        async with http.stream("GET", "/v1/lobby/stream") as response:
            async for _ in read_sse(response, log):
                pass

    task = asyncio.ensure_future(follow())
    try:
        await _until(lambda: app.state.lobby_hub.followed == 1 and bool(log.frames))
        app.state.lobby_hub.hint("", 0)  # what the hint hub says once its LISTEN reopened
        await _until(lambda: [f.event for f in log.frames] == ["reset", "reset"])
    finally:
        task.cancel()


async def test_a_table_every_player_abandoned_is_played_out_and_leaves_the_tables_in_play(
    http: httpx.AsyncClient,
) -> None:
    log = SseLog()

    async def follow() -> None:
        async with http.stream("GET", "/v1/lobby/stream") as response:
            async for _ in read_sse(response, log):
                pass

    task = asyncio.ensure_future(follow())
    try:
        await _until(lambda: bool(log.frames))
        players = [await register(http, f"gone {i}") for i in range(3)]
        created = await http.post(
            "/v1/games",
            json={"seat": 0, "overrides": {"pool": {"target": 1}}},
            headers=players[0].auth,
        )
        game_id = created.json()["id"]
        for seat in (1, 2):
            joined = await http.post(
                f"/v1/games/{game_id}/seats", json={"seat": seat}, headers=players[seat].auth
            )
            assert joined.status_code == 200, joined.text
        for player in players:
            left = await http.post(f"/v1/games/{game_id}/abandon", headers=player.auth)
            assert left.status_code == 200, left.text
        # The steward plays every abandoned seat to the end: the game ends, and says so.
        await _until(lambda: _games(log, game_id)[-1]["status"] == "finished", timeout=60)
    finally:
        task.cancel()
    statuses = [s["status"] for s in _games(log, game_id)]
    assert statuses[0] == "seating" and "playing" in statuses
