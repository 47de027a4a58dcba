"""Moderation over HTTP (docs/fair-play.md): the collusion report is a moderator's alone; a player
gets 403 for it, his own pairs included; the administrator grants the role from the command
line; the report ranks the pairs of finished games with their figures and links to the deals."""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import AsyncIterator

import asyncpg
import pytest
from apitools import PROBLEM, make_app, register
from bot_games import append_games
from litestar import Litestar
from litestar.testing import AsyncTestClient

from migrations import APP_ROLE, PROJECTIONS_ROLE
from service.eventlog.log import game_log
from service.platform.database import create_pool, with_user
from service.read_models.analyst import Analyst

pytestmark = pytest.mark.integration


@pytest.fixture
async def client(database_dsn: str) -> AsyncIterator[AsyncTestClient[Litestar]]:
    """The app with its projections inline; the analysis is drained by the test itself (the
    cards alone), so no analyst of the app's competes with it."""
    async with AsyncTestClient(
        make_app(database_dsn, {"analysis": False, "puzzles": False})
    ) as test_client:
        yield test_client


async def preferans(dsn: str, *args: str) -> tuple[int, str]:
    """The ``preferans`` command, as the administrator runs it."""
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "service.cli", *args, env={**os.environ, "DATABASE_URL": dsn},
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    out, err = await process.communicate()
    assert process.returncode is not None
    return process.returncode, out.decode() + err.decode()


async def until_folded(database_dsn: str, games: int) -> None:
    conn = await asyncpg.connect(database_dsn)
    try:
        for _ in range(2400):
            done = await conn.fetchval(
                "SELECT count(*) FILTER (WHERE finished) FROM rm.collusion_games_a"
            )
            queued = await conn.fetchval("SELECT count(*) FROM rm.analysis_games_a")
            if done == games and queued == games:
                return
            await asyncio.sleep(0.05)
    finally:
        await conn.close()
    raise AssertionError("the projections did not fold the finished games")


async def test_only_a_moderator_reads_the_collusion_report_with_links_to_the_deals(
    client: AsyncTestClient[Litestar], database_dsn: str
) -> None:
    players = [await register(client, f"fair play {i}") for i in range(3)]
    pool = await create_pool(with_user(database_dsn, APP_ROLE), min_size=1, max_size=2)
    try:
        games, _ = await append_games(game_log(pool).store, [p.id for p in players], [41, 42])
    finally:
        await pool.close()
    await until_folded(database_dsn, len(games))
    analyst_pool = await create_pool(with_user(database_dsn, PROJECTIONS_ROLE), max_size=2)
    try:  # the analyst's own role, the cards alone
        assert await Analyst(game_log(analyst_pool), layouts=0).drain(["a"]) == len(games)
    finally:
        await analyst_pool.close()

    assert (await client.get("/v1/moderation/pairs")).status_code == 401
    player = players[0]
    refused = await client.get("/v1/moderation/pairs", headers=player.auth)
    assert refused.status_code == 403 and refused.headers["content-type"] == PROBLEM
    assert refused.json()["code"] == "not_moderator"
    mine = await client.get(f"/v1/moderation/pairs?player={player.id}", headers=player.auth)
    assert mine.status_code == 403  # not even his own figures
    role = await client.get("/v1/moderation/me", headers=player.auth)
    assert role.status_code == 200 and role.json() == {"moderator": False}

    moderator = await register(client, "moderator")
    status, said = await preferans(database_dsn, "moderators", "grant", moderator.name)
    assert status == 0 and moderator.id in said, said
    status, said = await preferans(database_dsn, "moderators", "list")
    assert status == 0 and moderator.id in said and player.id not in said
    assert (await client.get("/v1/moderation/me", headers=moderator.auth)).json() == {
        "moderator": True
    }
    shown = await client.get("/v1/moderation/pairs", headers=moderator.auth)
    assert shown.status_code == 200, shown.text
    assert shown.headers["cache-control"] == "no-store"
    report = shown.json()
    assert report["games"] == 2 and report["deals"] > 0 and report["analysed"] == report["deals"]
    assert report["total_pairs"] == 3 and len(report["pairs"]) == 3
    assert set(report["names"]) == {p.id for p in players}
    assert report["names"][player.id] == player.name
    scores = [p["score"] for p in report["pairs"]]
    assert scores == sorted(scores, reverse=True)
    figures = [f for p in report["pairs"] for f in p["figures"]]
    names = {f["name"] for f in figures}
    assert {"co_seating", "whist_flow", "fed_tricks"} <= names
    game_ids = {g.game_id for g in games}
    links = [link for f in figures for link in f["examples"]]
    assert links and all(link["game_id"] in game_ids and link["deal_no"] >= 1 for link in links)

    only = await client.get(
        f"/v1/moderation/pairs?player={player.id}&limit=1", headers=moderator.auth
    )
    assert only.status_code == 200 and only.json()["total_pairs"] == 2
    assert [player.id in p["players"] for p in only.json()["pairs"]] == [True]
    bad = await client.get("/v1/moderation/pairs?limit=0", headers=moderator.auth)
    assert bad.status_code == 400 and bad.headers["content-type"] == PROBLEM

    assert (await preferans(database_dsn, "moderators", "revoke", moderator.id))[0] == 0
    assert (await preferans(database_dsn, "moderators", "revoke", moderator.id))[0] == 1
    gone = await client.get("/v1/moderation/pairs", headers=moderator.auth)
    assert gone.status_code == 403
