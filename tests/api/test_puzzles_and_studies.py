"""Puzzles and studies over HTTP: a player attempts the next puzzle and reads his history; a
study is forked from a finished deal, played to the deal's end, compared, annotated and shared
read-only; forking a game still in play is refused with a problem that says why."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import asyncpg
import pytest
from apitools import PROBLEM, Player, make_app, register, seated_game
from bot_games import append_games
from litestar import Litestar
from litestar.testing import AsyncTestClient

from migrations import APP_ROLE
from service.eventlog.log import game_log
from service.platform.database import create_pool, with_user

pytestmark = pytest.mark.integration


async def finished_games(database_dsn: str, players: list[Player], seeds: list[int]) -> list[Any]:
    pool = await create_pool(with_user(database_dsn, APP_ROLE), min_size=1, max_size=2)
    try:
        games, _ = await append_games(game_log(pool).store, [p.id for p in players], seeds)
    finally:
        await pool.close()
    return games


@pytest.fixture
async def client(database_dsn: str) -> AsyncIterator[AsyncTestClient[Litestar]]:
    """The app with its projections and miner running inline, and no analyst: on a shared
    machine the analyst's judging of decisions would only slow the miner these tests wait for."""
    async with AsyncTestClient(make_app(database_dsn, {"analysis": False})) as test_client:
        yield test_client


async def until_mined(client: AsyncTestClient[Litestar], database_dsn: str, count: int) -> None:
    """Wait (up to four minutes: the machine may be loaded) until the app's projections
    queued ``count`` games and its miner mined them."""
    conn = await asyncpg.connect(database_dsn)
    try:
        for _ in range(4800):
            done = await conn.fetchval("SELECT count(*) FILTER (WHERE done) FROM rm.puzzle_games_a")
            if done == count:
                return
            await asyncio.sleep(0.05)
    finally:
        await conn.close()
    raise AssertionError("the miner did not mine the finished games")


async def test_a_player_attempts_the_next_puzzle_and_reads_his_history(
    client: AsyncTestClient[Litestar], database_dsn: str
) -> None:
    players = [await register(client, f"bot table {i}") for i in range(3)]
    await finished_games(database_dsn, players, [41])
    await until_mined(client, database_dsn, 1)
    solver = await register(client, "Solver")

    unauthenticated = await client.get("/v1/puzzles/next")
    assert unauthenticated.status_code == 401
    shown = await client.get("/v1/puzzles/next", headers=solver.auth)
    assert shown.status_code == 200, shown.text
    puzzle = shown.json()
    assert puzzle["rating"] == {"mu": 25.0, "sigma": 25 / 3, "attempts": 0, "solved": 0}
    position = puzzle["position"]
    assert len(position["legal"]) >= 2 and position["seen"]["viewer"] == position["solver"]
    assert "solution" not in puzzle and "answer" not in shown.text
    again = await client.get(f"/v1/puzzles/{puzzle['id']}")  # anyone may read it
    assert again.status_code == 200 and again.json() == puzzle

    wrong = await client.post(f"/v1/puzzles/{puzzle['id']}/attempts", json={"card": "XX"},
                              headers=solver.auth)  # fmt: skip
    assert wrong.status_code == 400 and wrong.headers["content-type"] == PROBLEM
    attempted = await client.post(
        f"/v1/puzzles/{puzzle['id']}/attempts", json={"card": position["legal"][0]},
        headers=solver.auth,
    )  # fmt: skip
    assert attempted.status_code == 201, attempted.text
    attempt = attempted.json()
    solution = attempt["solution"]
    assert attempt["solved"] == (position["legal"][0] == solution["answer"])
    assert {v["card"] for v in solution["values"]} == set(position["legal"])
    assert [v["card"] for v in solution["values"] if v["total"] == position["par"]] == [
        solution["answer"]
    ]
    assert attempt["game_id"] and attempt["deal_no"] == position["deal_no"]
    twice = await client.post(
        f"/v1/puzzles/{puzzle['id']}/attempts", json={"card": position["legal"][0]},
        headers=solver.auth,
    )  # fmt: skip
    assert twice.status_code == 409 and twice.json()["code"] == "puzzle.attempted"

    history = (await client.get("/v1/players/me/puzzles", headers=solver.auth)).json()
    assert [a["puzzle_id"] for a in history["items"]] == [puzzle["id"]]
    assert history["rating"]["attempts"] == 1
    assert history["rating"]["mu"] == attempt["player"]["mu"]
    nxt = await client.get("/v1/puzzles/next", headers=solver.auth)
    assert nxt.status_code in (200, 404)
    if nxt.status_code == 200:
        assert nxt.json()["id"] != puzzle["id"]
    else:
        assert nxt.json()["type"] == "/problems/puzzle-not-found"
    missing = await client.get("/v1/puzzles/00000000-0000-4000-8000-000000000000")
    assert missing.status_code == 404 and missing.json()["type"] == "/problems/puzzle-not-found"


async def test_a_study_is_forked_played_to_the_end_compared_annotated_and_shared(
    client: AsyncTestClient[Litestar], database_dsn: str
) -> None:
    players = [await register(client, f"study table {i}") for i in range(3)]
    (game,) = await finished_games(database_dsn, players, [42])
    owner, friend = await register(client, "Owner"), await register(client, "Friend")

    forked = await client.post(
        "/v1/studies",
        json={"game_id": game.game_id, "deal_no": 1, "step": 1, "bots": [None, "basic", "basic"]},
        headers=owner.auth,
    )
    assert forked.status_code == 201, forked.text
    study = forked.json()
    sid = study["id"]
    assert forked.headers["location"] == f"/v1/studies/{sid}"
    assert study["mine"] and study["fork_step"] == 1 and study["steps"] >= 1
    assert all(hand for hand in study["state"]["hands"] if hand is not None)
    # The owner plays seat 0, the bots the others, to the deal's end.
    for _ in range(200):
        if study["over"]:
            break
        assert study["legal"], study["to_act"]
        (mine,) = study["legal"]
        assert mine["seat"] == 0
        moved = await client.post(
            f"/v1/studies/{sid}/moves", json={"seat": 0, "action": mine["actions"][-1]},
            headers={**owner.auth, "If-Match": f'"{study["version"]}"'},
        )  # fmt: skip
        assert moved.status_code == 200, moved.text
        study = moved.json()
    assert study["over"] and study["events"][-1]["type"] == "deal_ended"
    stale = await client.post(
        f"/v1/studies/{sid}/moves", json={"seat": 0, "action": {"type": "pass"}},
        headers={**owner.auth, "If-Match": '"1"'},
    )  # fmt: skip
    assert stale.status_code == 412

    compared = (await client.get(f"/v1/studies/{sid}/comparison", headers=owner.auth)).json()
    assert compared["fork_step"] == 1 and compared["study"]["finished"]
    assert compared["real"]["finished"] and compared["now"] is None
    played = [e["card"] for e in study["events"] if e["type"] == "card_played"]
    assert [c["analysis"]["card"] for c in compared["study"]["cards"]] == played

    noted = await client.post(f"/v1/studies/{sid}/notes", json={"step": 2, "text": "why not?"},
                              headers=owner.auth)  # fmt: skip
    assert noted.status_code == 201 and noted.json()["notes"][0]["text"] == "why not?"

    hidden = await client.get(f"/v1/studies/{sid}", headers=friend.auth)
    assert hidden.status_code == 404 and hidden.json()["type"] == "/problems/study-not-found"
    shared = await client.put(f"/v1/studies/{sid}/sharing", json={"shared": True},
                              headers=owner.auth)  # fmt: skip
    assert shared.status_code == 200 and shared.json()["shared"]
    seen = await client.get(f"/v1/studies/{sid}?at=2", headers=friend.auth)
    assert seen.status_code == 200
    body = seen.json()
    assert not body["mine"] and body["legal"] == [] and body["at"] == 2
    anonymous = await client.get(f"/v1/studies/{sid}")
    assert anonymous.status_code == 200
    refused = await client.post(f"/v1/studies/{sid}/notes", json={"step": 1, "text": "mine"},
                                headers=friend.auth)  # fmt: skip
    assert refused.status_code == 403 and refused.json()["code"] == "not_study_owner"

    listed = (await client.get("/v1/players/me/studies", headers=owner.auth)).json()
    assert [s["id"] for s in listed["items"]] == [sid]

    no_deal = await client.post("/v1/studies", json={"game_id": game.game_id, "deal_no": 999},
                                headers=owner.auth)  # fmt: skip
    assert no_deal.status_code == 404 and no_deal.json()["type"] == "/problems/not-found"
    no_step = await client.post(
        "/v1/studies", json={"game_id": game.game_id, "deal_no": 1, "step": 999},
        headers=owner.auth,
    )  # fmt: skip
    assert no_step.status_code == 404 and "steps 1" in no_step.json()["detail"]
    bots = await client.post(
        "/v1/studies", json={"game_id": game.game_id, "deal_no": 1, "bots": ["basic"]},
        headers=owner.auth,
    )  # fmt: skip
    assert bots.status_code == 409 and bots.json()["code"] == "illegal.bad_bots"


async def test_forking_a_game_still_in_play_is_refused_with_a_clear_problem(
    client: AsyncTestClient[Litestar],
) -> None:
    game_id, players = await seated_game(client)
    refused = await client.post(
        "/v1/studies", json={"game_id": game_id, "deal_no": 1}, headers=players[0].auth
    )
    assert refused.status_code == 409
    assert refused.headers["content-type"] == PROBLEM
    problem = refused.json()
    assert problem["type"] == "/problems/not-public-yet"
    assert problem["code"] == "study.game_in_play"
    assert "still being played" in problem["detail"]
    nobody = await client.post(
        "/v1/studies", json={"game_id": "00000000-0000-4000-8000-000000000000", "deal_no": 1},
        headers=players[0].auth,
    )  # fmt: skip
    assert nobody.status_code == 404
