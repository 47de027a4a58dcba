"""No seat ever sees what it may not: not in its view, its event pages, or its live stream.

Random legal play over a real server. After every action each seat (and a spectator) reads its
view and the next page of its events; each follows the live stream throughout. Every card named
anywhere in them is checked against the truth, folded from the raw stored events: no card of
another hand (unless laid open), no talon card before it is shown, no discard but one's own;
and never the deals' secret (nor a seeded game's seed), which is revealed only at the end.
"""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import AsyncIterator
from typing import Any

import asyncpg
import httpx
import pytest
from apitools import SseLog, cards_in, hidden_from, own_hand, read_sse, seated_game

from domain import game
from service.eventlog.codec import domain_codec
from service.games.streams import game_stream

pytestmark = pytest.mark.integration

_codec = domain_codec()


@pytest.fixture
async def http(server: str) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(base_url=server, timeout=30) as client:
        yield client


async def _truth(pool: asyncpg.Pool, game_id: str) -> list[game.GameState]:
    """``states[v]``: the true game state after version v, from the raw events."""
    rows = await pool.fetch(
        "SELECT event_type, schema_version, data::text FROM es.events"
        " WHERE stream_id = $1 ORDER BY version",
        game_stream(game_id),  # type: ignore[arg-type]
    )
    states: list[game.GameState] = [game.INITIAL_STATE]
    for row in rows:
        event = _codec.decode(row[0], row[1], row[2])
        states.append(game.evolve(states[-1], event))  # type: ignore[arg-type]
    return states


async def _follow(http: httpx.AsyncClient, game_id: str, headers: dict[str, str], log: SseLog):
    async with http.stream("GET", f"/v1/games/{game_id}/stream", headers=headers) as response:
        async for _ in read_sse(response, log):
            pass


def _check(seen: Any, state: game.GameState, seat: int | None, where: str) -> int:
    leaked = cards_in(seen) & hidden_from(state, seat)
    assert not leaked, f"{where}: seat {seat} sees {sorted(leaked)}"
    return len(hidden_from(state, seat))


@pytest.mark.parametrize("seed", ["hidden-1", "hidden-2"])
async def test_no_view_page_or_stream_message_shows_a_hidden_card(
    http: httpx.AsyncClient, pool: asyncpg.Pool, seed: str
) -> None:
    game_id, players = await seated_game(http, seed=seed)
    secrets = [seed, seed.encode().hex()]  # a seeded game's secret is its seed's bytes

    def no_secret(text: str, where: str) -> None:
        assert not any(s in text for s in secrets), f"{where}: the deals' secret is shown"

    viewers: list[tuple[int | None, dict[str, str]]] = [
        *((seat, p.auth) for seat, p in enumerate(players)),
        (None, {}),
    ]
    logs = [SseLog() for _ in viewers]
    followers = [
        asyncio.ensure_future(_follow(http, game_id, headers, log))
        for (_, headers), log in zip(viewers, logs, strict=True)
    ]
    rng = random.Random(seed)
    read_up_to = [0] * len(viewers)
    checked = {"hidden": 0, "own hands": 0}

    async def look_as_everyone() -> tuple[list[game.GameState], dict[str, Any]]:
        """Every viewer reads his view and his next page of events; all is checked."""
        states = await _truth(pool, game_id)
        version = len(states) - 1
        for i, (seat, headers) in enumerate(viewers):
            shown = await http.get(f"/v1/games/{game_id}", headers=headers)
            no_secret(shown.text, f"view@{version}")
            view = shown.json()
            assert view["version"] == version
            checked["hidden"] += _check(view, states[version], seat, f"view@{version}")
            if seat is not None and own_hand(states[version], seat):
                assert set(view["view"]["deal"]["hand"]) == own_hand(states[version], seat)
                checked["own hands"] += 1
            page = await http.get(
                f"/v1/games/{game_id}/events", params={"cursor": read_up_to[i]}, headers=headers
            )
            no_secret(page.text, f"page after {read_up_to[i]}")
            for item in page.json()["items"]:
                _check(item["event"], states[item["version"]], seat, f"page {item['version']}")
            read_up_to[i] = page.json()["version"]
        return states, view

    try:
        states, public = await look_as_everyone()
        while public["view"]["deal_no"] <= 4:
            to_act = public["view"]["deal"]["to_act"][0]
            mine = await http.get(f"/v1/games/{game_id}", headers=players[to_act].auth)
            action = rng.choice(mine.json()["legal_actions"])
            response = await http.post(
                f"/v1/games/{game_id}/actions", json=action, headers=players[to_act].auth
            )
            assert response.status_code == 200, response.text
            no_secret(response.text, "response")
            states, public = await look_as_everyone()
            for item in response.json()["events"]:  # the actor's own events, in the response
                _check(item["event"], states[item["version"]], to_act, "response")
        version = len(states) - 1
        async with asyncio.timeout(10):
            while not all(log.frames and log.frames[-1].id == version for log in logs):
                await asyncio.sleep(0.02)
    finally:
        for task in followers:
            task.cancel()

    for (seat, _), log in zip(viewers, logs, strict=True):
        assert [f.id for f in log.frames] == list(range(1, version + 1))
        for frame in log.frames:
            assert frame.id is not None
            no_secret(frame.data, f"stream event {frame.id}")
            _check(json.loads(frame.data), states[frame.id], seat, f"stream event {frame.id}")
    assert checked["own hands"] > 0 and checked["hidden"] > 0  # the checks looked at something
    assert read_up_to == [version] * len(viewers)
