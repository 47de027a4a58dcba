"""The moderator's page (#/moderation, docs/fair-play.md): the ranked pairs with their figures and
links to the deals' replays; a player who is not a moderator is told the report is not his.
Checked with axe (no serious or critical violation)."""

from __future__ import annotations

import asyncio
from typing import Any

import asyncpg
import httpx
import pytest
from axetools import assert_accessible
from bot_games import append_games
from webtools import register

from migrations import APP_ROLE, PROJECTIONS_ROLE
from service.eventlog.log import game_log
from service.platform.database import create_pool, with_user
from service.read_models.analyst import Analyst

pytestmark = pytest.mark.integration

SCREEN = "[data-screen=moderation]"


@pytest.fixture
async def web(mining_web: str) -> str:
    """The app without its analyst: the test drains the analysis itself (the cards alone)."""
    return mining_web


async def finished_games(database_dsn: str, http: httpx.AsyncClient) -> list[str]:
    players = [await register(http, f"Fair {i}") for i in range(3)]
    pool = await create_pool(with_user(database_dsn, APP_ROLE), min_size=1, max_size=2)
    try:
        games, _ = await append_games(game_log(pool).store, [p.id for p in players], [61, 62])
    finally:
        await pool.close()
    conn = await asyncpg.connect(database_dsn)
    try:
        for _ in range(4800):  # up to four minutes: the machine may be loaded
            folded = await conn.fetchval("SELECT count(*) FROM rm.collusion_games_a WHERE finished")
            if folded == 2 and await conn.fetchval("SELECT count(*) FROM rm.analysis_games_a") == 2:
                break
            await asyncio.sleep(0.05)
        else:
            raise AssertionError("the finished games were not folded")
    finally:
        await conn.close()
    analyst_pool = await create_pool(with_user(database_dsn, PROJECTIONS_ROLE), max_size=2)
    try:
        await Analyst(game_log(analyst_pool), layouts=0).drain(["a"])
    finally:
        await analyst_pool.close()
    return [g.game_id for g in games]


async def test_a_moderator_reads_the_ranked_pairs_and_opens_a_deal_and_a_player_may_not(
    web: str, http: httpx.AsyncClient, open_page: Any, shoot: Any, database_dsn: str
) -> None:
    game_ids = await finished_games(database_dsn, http)
    player = await register(http, "Curious")
    page = await open_page(token=player.token, expected=("status of 403",))
    await page.goto(f"{web}/#/moderation")
    await page.wait_for_selector(f"{SCREEN}[data-refused=true]")
    assert await page.locator("[data-nav=moderation]").count() == 0  # no link for a player

    moderator = await register(http, "Moderator")
    conn = await asyncpg.connect(database_dsn)  # the administrator grants the role
    try:
        await conn.execute("INSERT INTO api.moderators (player_id) VALUES ($1)", moderator.id)
    finally:
        await conn.close()
    page = await open_page(token=moderator.token)
    await page.goto(f"{web}/#/")
    await page.click("[data-nav=moderation]")  # the top bar links the report for a moderator
    await page.wait_for_selector(f"{SCREEN}[data-loading=false] li.pair")
    assert await page.locator("li.pair").count() == 3
    ranks = await page.locator("li.pair").evaluate_all("els => els.map(e => e.dataset.rank)")
    assert ranks == ["1", "2", "3"]
    assert await page.locator("[data-figure=co_seating]").count() == 3
    await assert_accessible(page, SCREEN)
    await shoot(page, "moderation")
    link = page.locator("a.deal-link").first
    game_id = await link.get_attribute("data-game")
    assert game_id in game_ids
    await link.click()
    await page.wait_for_selector("[data-screen=replay]")
    assert f"#/game/{game_id}/replay/" in page.url
