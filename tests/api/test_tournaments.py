"""Tournaments through the public API (issue 24): a whole Swiss event, a whole duplicate event,
a robot duplicate, the duplicate tables' embargo door by door, the arbiter, and bad input."""

from __future__ import annotations

import asyncio
import random
import time
from typing import Any

import httpx
import pytest
from apitools import PROBLEM, Player, cards_in, choose, make_app, register
from litestar import Litestar
from litestar.testing import AsyncTestClient

pytestmark = pytest.mark.integration

HOUR = 3_600_000


@pytest.fixture
def app(database_dsn: str) -> Litestar:
    return make_app(database_dsn, {"daily_robot_duplicate": False})


def _format(**over: Any) -> dict[str, Any]:
    now = int(time.time() * 1000)
    body: dict[str, Any] = {
        "rounds": 2,
        "pairing": "swiss",
        "length": {"kind": "deals", "deals": 1},
        "registration": {"opens_at": now - 1000, "closes_at": now + HOUR},
    }
    body.update(over)
    return body


async def _players(client: httpx.AsyncClient, n: int) -> list[Player]:
    return [await register(client, f"entrant {i}") for i in range(n)]


async def _create(client: httpx.AsyncClient, organiser: Player, **fmt: Any) -> dict[str, Any]:
    created = await client.post(
        "/v1/tournaments", json={"name": "Test cup", "format": _format(**fmt)},
        headers=organiser.auth,
    )  # fmt: skip
    assert created.status_code == 201, created.text
    return created.json()


async def _play_table(
    client: httpx.AsyncClient, game: str, by_id: dict[str, Player], rng: random.Random
) -> dict[str, Any]:
    """Every seat of the table played by its own player's token, to the game's end."""
    for _ in range(3000):
        first = next(iter(by_id.values()))
        any_view = (await client.get(game, headers=first.auth)).json()
        players = any_view["view"]["players"]
        seated = next(by_id[p] for p in players if p in by_id)
        public = (await client.get(game, headers=seated.auth)).json()
        if public["view"]["status"] == "finished":
            return public
        to_act = public["view"]["deal"]["to_act"]
        if not to_act:
            await asyncio.sleep(0.05)
            continue
        player = by_id.get(players[to_act[0]])
        if player is None:  # a bot's seat: the steward moves for it
            await asyncio.sleep(0.05)
            continue
        mine = (await client.get(game, headers=player.auth)).json()
        if not mine["legal_actions"]:
            await asyncio.sleep(0.05)
            continue
        action = choose(rng, mine["legal_actions"], quick=True)
        done = await client.post(f"{game}/actions", json=action, headers=player.auth)
        assert done.status_code in (200, 409, 412), done.text
    raise AssertionError("the table did not finish")


def _round_ready(n: int) -> Any:
    def ready(body: dict[str, Any]) -> bool:
        rounds = body["rounds"]
        return len(rounds) == n and all(t["game"] for t in rounds[-1]["tables"])

    return ready


async def _until(client: Any, path: str, check: Any, app: Litestar, tries: int = 200) -> Any:
    for _ in range(tries):
        body = (await client.get(path)).json()
        if check(body):
            return body
        await asyncio.sleep(0.05)
    raise AssertionError(f"{path} never came to the expected state: {body}")


async def test_a_whole_swiss_event_of_nine_in_two_rounds(app: Litestar) -> None:
    rng = random.Random(24)
    async with AsyncTestClient(app) as client:
        organiser, *field = await _players(client, 10)
        by_id = {p.id: p for p in field}
        created = await _create(client, organiser)
        tid = created["id"]
        assert created["status"] == "registering" and created["organiser"] == organiser.id
        listed = (await client.get("/v1/tournaments")).json()["items"]
        assert any(t["id"] == tid and t["kind"] == "swiss" for t in listed)
        for p in field:
            joined = await client.post(f"/v1/tournaments/{tid}/registrations", headers=p.auth)
            assert joined.status_code == 200, joined.text
        again = await client.post(f"/v1/tournaments/{tid}/registrations", headers=field[0].auth)
        assert again.status_code == 409 and again.headers["content-type"] == PROBLEM
        assert again.json()["code"] == "illegal.already_registered"
        # Only the organiser starts it.
        refused = await client.post(f"/v1/tournaments/{tid}/rounds", headers=field[0].auth)
        assert refused.status_code == 403, refused.text
        started = await client.post(f"/v1/tournaments/{tid}/rounds", headers=organiser.auth)
        assert started.status_code == 200, started.text
        view = started.json()
        assert view["status"] == "running"
        (round1,) = view["rounds"]
        assert len(round1["tables"]) == 3 and round1["secret"] is None
        seated = sorted(p for t in round1["tables"] for p in t["seating"])
        assert seated == sorted(by_id)
        # Each table's game exists with its players seated and dealt; they are told.
        for t in round1["tables"]:
            game = (await client.get(t["game"], headers=by_id[t["seating"][0]].auth)).json()
            assert game["view"]["players"] == t["seating"]
            assert game["view"]["status"] == "playing"
            assert game["view"]["rules"]["pool"]["max_deals"] == 1
        notes = (await client.get("/v1/players/me/notifications", headers=field[0].auth)).json()
        assert any(n["kind"] == "tournament_table" for n in notes["items"]), notes
        for t in round1["tables"]:
            await _play_table(client, t["game"], by_id, rng)
        view = await _until(
            client, f"/v1/tournaments/{tid}", _round_ready(2), app
        )
        round1, round2 = view["rounds"]
        assert round1["secret"] is not None  # revealed: the seats can be recomputed
        assert all(t["result"] is not None for t in round1["tables"])
        for t in round1["tables"]:
            assert sum(t["result"]["whists"]) == 0
        # Swiss: nobody meets a round-1 opponent again (nine players make that possible).
        met = {frozenset((a, b)) for t in round1["tables"] for a in t["seating"]
               for b in t["seating"] if a != b}  # fmt: skip
        again_met = {frozenset((a, b)) for t in round2["tables"] for a in t["seating"]
                     for b in t["seating"] if a != b}  # fmt: skip
        assert not met & again_met
        for t in round2["tables"]:
            await _play_table(client, t["game"], by_id, rng)
        view = await _until(
            client, f"/v1/tournaments/{tid}", lambda b: b["status"] == "finished", app
        )
        standings = view["standings"]
        assert sorted(s["player"] for s in standings) == sorted(by_id)
        assert all(s["rounds"] == 2 for s in standings)
        assert [s["place"] for s in standings] == sorted(s["place"] for s in standings)
        # The log holds every step; the exports publish the pairings and results.
        log = (await client.get(f"/v1/tournaments/{tid}/log", params={"limit": 500})).json()
        types = [i["type"] for i in log["items"]]
        assert types[0] == "tournament_created"
        assert types.count("player_registered") == 9
        assert types.count("round_started") == 2 and types.count("round_ended") == 2
        assert types.count("table_result_recorded") == 6 and types[-1] == "tournament_ended"
        text = await client.get(f"/v1/tournaments/{tid}/export", params={"format": "text"})
        assert text.status_code == 200 and text.headers["content-type"].startswith("text/plain")
        assert "Round 1" in text.text and "Round 2" in text.text and "Standings" in text.text
        assert field[0].name in text.text
        exported = (await client.get(f"/v1/tournaments/{tid}/export")).json()
        assert exported["standings"] == standings
        history = (await client.get(f"/v1/players/{field[0].id}/tournaments")).json()
        assert [t["id"] for t in history["items"]] == [tid]
