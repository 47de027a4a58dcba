"""Server-Sent Events over a real server: every event in order, resumable without gaps."""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import AsyncIterator, Awaitable, Callable

import httpx
import jsonschema_rs
import pytest
from apitools import Player, SseLog, choose, make_app, read_sse, seated_game
from litestar import Litestar

from service.app import OPENAPI_PATH
from service.games.streams import game_stream

pytestmark = pytest.mark.integration


SMALL_QUEUE = {"test_a_follower_who_falls_behind_is_dropped_and_can_resume"}
"""Tests whose followers hold 4 events at most, to fall behind on purpose. The others keep the
service's own size: with 4, a follower of a busy machine's server fell behind a deal's burst of
events (its end, its score, the next deal) and was dropped mid-test."""


@pytest.fixture
def app(database_dsn: str, request: pytest.FixtureRequest) -> Litestar:
    if request.function.__name__ in SMALL_QUEUE:
        return make_app(database_dsn, live_queue_size=4)
    return make_app(database_dsn)


@pytest.fixture
async def http(server: str) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(base_url=server, timeout=30) as client:
        yield client


async def _follow(
    http: httpx.AsyncClient,
    game_id: str,
    log: SseLog,
    headers: dict[str, str] | None = None,
    params: dict[str, int] | None = None,
) -> None:
    async with http.stream(
        "GET", f"/v1/games/{game_id}/stream", headers=headers or {}, params=params
    ) as response:
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/event-stream")
        assert response.headers["cache-control"] == "private, no-cache"
        assert response.headers["vary"] == "Authorization"
        async for _ in read_sse(response, log):
            pass


async def _until(condition: Callable[[], bool], timeout: float = 10) -> None:
    async with asyncio.timeout(timeout):
        while not condition():
            await asyncio.sleep(0.02)


async def _play(
    http: httpx.AsyncClient, game_id: str, players: list[Player], steps: int, seed: int
) -> int:
    """``steps`` quick legal actions; returns the game's version after them."""
    rng = random.Random(seed)
    version = 0
    for _ in range(steps):
        public = (await http.get(f"/v1/games/{game_id}")).json()
        seat = public["view"]["deal"]["to_act"][0]
        mine = (await http.get(f"/v1/games/{game_id}", headers=players[seat].auth)).json()
        action = choose(rng, mine["legal_actions"], quick=True)
        response = await http.post(
            f"/v1/games/{game_id}/actions", json=action, headers=players[seat].auth
        )
        assert response.status_code == 200, response.text
        version = response.json()["version"]
    return version


async def _page(http: httpx.AsyncClient, game_id: str, headers: dict[str, str]) -> list[dict]:
    response = await http.get(f"/v1/games/{game_id}/events", params={"limit": 500}, headers=headers)
    return response.json()["items"]


async def _background(coroutine: Awaitable[None]) -> asyncio.Task[None]:
    task = asyncio.ensure_future(coroutine)
    await asyncio.sleep(0.05)
    return task


async def test_the_stream_delivers_every_event_of_a_deal_in_order(
    http: httpx.AsyncClient,
) -> None:
    game_id, players = await seated_game(http, seed="sse deal")
    seat_log, spectator_log = SseLog(), SseLog()
    followers = [
        await _background(_follow(http, game_id, seat_log, players[0].auth)),
        await _background(_follow(http, game_id, spectator_log)),
    ]
    try:
        deal_no = 1
        version = 0
        while deal_no == 1:  # until the first deal is scored and the second dealt
            version = await _play(http, game_id, players, 1, seed=version)
            deal_no = (await http.get(f"/v1/games/{game_id}")).json()["view"]["deal_no"]
        await _until(
            lambda: all(
                log.frames and log.frames[-1].id == version for log in (seat_log, spectator_log)
            )
        )
    finally:
        for task in followers:
            task.cancel()
    for log, headers in ((seat_log, players[0].auth), (spectator_log, {})):
        assert log.retry == 100
        assert [f.id for f in log.frames] == list(range(1, version + 1))
        received = [{"version": f.id, "event": json.loads(f.data)} for f in log.frames]
        assert received == await _page(http, game_id, headers)
        assert [f.event for f in log.frames] == [e["event"]["type"] for e in received]
    types = [f.event for f in seat_log.frames]
    assert types.count("deal_started") == 2 and "deal_scored" in types
    seat_hands = json.loads(seat_log.frames[types.index("deal_started")].data)["hands"]
    spectator_hands = json.loads(spectator_log.frames[types.index("deal_started")].data)["hands"]
    assert [len(h) for h in seat_hands] == [10, 0, 0]
    assert spectator_hands == [[], [], []]


@pytest.mark.parametrize("resume", ["Last-Event-ID", "after"])
async def test_a_follower_resumes_after_a_disconnect_without_gaps_or_repeats(
    http: httpx.AsyncClient, resume: str
) -> None:
    game_id, players = await seated_game(http, seed="sse resume")
    first = SseLog()
    task = await _background(_follow(http, game_id, first, players[1].auth))
    version = await _play(http, game_id, players, 6, seed=1)
    await _until(lambda: bool(first.frames) and first.frames[-1].id == version)
    task.cancel()
    last_id = first.frames[-1].id

    version = await _play(http, game_id, players, 8, seed=2)  # while disconnected
    second = SseLog()
    headers, params = dict(players[1].auth), None
    if resume == "Last-Event-ID":
        headers["Last-Event-ID"] = str(last_id)
    else:
        params = {"after": last_id}
    task = await _background(_follow(http, game_id, second, headers, params))
    version = await _play(http, game_id, players, 3, seed=3)  # and live again
    await _until(lambda: bool(second.frames) and second.frames[-1].id == version)
    task.cancel()

    ids = [f.id for f in first.frames] + [f.id for f in second.frames]
    assert ids == list(range(1, version + 1))
    assert second.frames[0].id == last_id + 1


async def test_an_idle_stream_is_kept_alive_with_pings(http: httpx.AsyncClient) -> None:
    game_id, _ = await seated_game(http, seed="sse idle")
    log = SseLog()
    task = await _background(_follow(http, game_id, log))
    await _until(lambda: log.pings >= 2, timeout=5)  # the tests' ping interval is 0.3 s
    task.cancel()
    assert [f.id for f in log.frames] == [1, 2, 3, 4, 5]


async def test_a_follower_who_falls_behind_is_dropped_and_can_resume(
    http: httpx.AsyncClient, app: Litestar
) -> None:
    game_id, players = await seated_game(http, seed="sse slow")
    live = app.state.live
    async with live.subscribe(game_stream(game_id)) as slow:  # a follower that never reads
        assert [len(slow.backlog), slow.dropped] == [5, False]
        version = await _play(http, game_id, players, 6, seed=4)  # more than its queue of 4
        await _until(lambda: slow.dropped)
        assert slow.queue.qsize() == 4
    # A dropped stream ends; the client comes back and gets the rest.
    log = SseLog()
    task = await _background(_follow(http, game_id, log, params={"after": 5}))
    await _until(lambda: bool(log.frames) and log.frames[-1].id == version)
    task.cancel()
    assert [f.id for f in log.frames] == list(range(6, version + 1))


async def test_followers_share_one_poller_and_hold_no_connection_each(
    http: httpx.AsyncClient, app: Litestar
) -> None:
    game_id, players = await seated_game(http, seed="sse many")
    pool = app.state.event_log.pool

    async def connections_held() -> int:
        """Connections out of the pool all through half a second. The app's background tasks
        (the stewards' rounds, the projections' commits, the poller's reads) take one for a few
        milliseconds now and then, longer on a busy machine; a follower's would stay out."""
        await asyncio.sleep(0.3)  # the last requests return their connections
        in_use = []
        for _ in range(25):
            in_use.append(pool.get_size() - pool.get_idle_size())
            await asyncio.sleep(0.02)
        return int(min(in_use))

    before = await connections_held()
    logs = [SseLog() for _ in range(12)]
    tasks = [
        await _background(_follow(http, game_id, log, players[i % 3].auth))
        for i, log in enumerate(logs)
    ]
    version = await _play(http, game_id, players, 4, seed=5)
    await _until(lambda: all(log.frames and log.frames[-1].id == version for log in logs))
    during = await connections_held()
    assert not any(task.done() for task in tasks)  # all twelve still follow
    followed = app.state.live.followed
    for task in tasks:
        task.cancel()
    await _until(lambda: app.state.live.followed == 0)  # disconnects unsubscribe (litestar#3772)
    assert followed == 1
    assert during == before


def _messages(log: SseLog) -> list[dict]:
    """What a stream sent, one JSON object per message: the opening ``retry``, then events."""
    events = [{"id": f.id, "event": f.event, "data": json.loads(f.data)} for f in log.frames]
    return [{"retry": log.retry}, *events]


async def test_every_frame_of_both_streams_matches_its_declared_schema(
    http: httpx.AsyncClient,
) -> None:
    spec = json.loads(OPENAPI_PATH.read_text())

    def validator(frame: str) -> jsonschema_rs.Validator:
        schema = {"$ref": f"#/components/schemas/{frame}", "components": spec["components"]}
        return jsonschema_rs.validator_for(schema)

    game_id, players = await seated_game(http, seed="sse frames")
    game_log, notes_log = SseLog(), SseLog()

    async def follow_me() -> None:
        async with http.stream("GET", "/v1/players/me/stream", headers=players[1].auth) as r:
            async for _ in read_sse(r, notes_log):
                pass

    followers = [
        await _background(_follow(http, game_id, game_log, players[0].auth)),
        await _background(follow_me()),
    ]
    try:
        version = await _play(http, game_id, players, 6, seed=5)
        await _until(lambda: bool(game_log.frames) and game_log.frames[-1].id == version)
        await _until(lambda: bool(notes_log.frames))
    finally:
        for task in followers:
            task.cancel()
    for frame, log in (("GameStreamFrame", game_log), ("NotificationFrame", notes_log)):
        check = validator(frame)
        for message in _messages(log):
            errors = [str(e) for e in check.iter_errors(message)]
            assert errors == [], (frame, message, errors)
        assert not check.is_valid({"id": 1, "event": "your_turn"})  # the data is required
