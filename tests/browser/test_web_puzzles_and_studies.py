"""Puzzles and studies in the page: a puzzle attempted and its answer shown; a study forked from
a replay, played to the deal's end, compared, annotated, shared and read by another player.
Every screen is checked with axe (no serious or critical violation)."""

from __future__ import annotations

import asyncio
from typing import Any

import asyncpg
import httpx
import pytest
from axetools import assert_accessible
from bot_games import append_games
from webtools import register

from migrations import APP_ROLE
from service.eventlog.log import game_log
from service.platform.database import create_pool, with_user

pytestmark = pytest.mark.integration


@pytest.fixture
async def web(mining_web: str) -> str:
    """The app without its analyst (`mining_web`): conftest's ``http`` follows it."""
    return mining_web


PUZZLES = "[data-screen=puzzles]"
STUDY = "[data-screen=study]"


async def finished_game(database_dsn: str, http: httpx.AsyncClient, seed: int) -> str:
    """A finished pulka of three registered players (played by the basic bots), mined."""
    players = [await register(http, f"Table {seed} {i}") for i in range(3)]
    pool = await create_pool(with_user(database_dsn, APP_ROLE), min_size=1, max_size=2)
    try:
        (game,), _ = await append_games(game_log(pool).store, [p.id for p in players], [seed])
    finally:
        await pool.close()
    conn = await asyncpg.connect(database_dsn)
    try:
        for _ in range(4800):  # up to four minutes: the machine may be loaded
            if await conn.fetchval("SELECT count(*) FROM rm.puzzle_games_a WHERE done") == 1:
                return game.game_id
            await asyncio.sleep(0.05)
    finally:
        await conn.close()
    raise AssertionError("the finished game was not mined")


async def test_a_puzzle_is_attempted_and_its_answer_shown(
    web: str, http: httpx.AsyncClient, open_page: Any, shoot: Any, database_dsn: str
) -> None:
    await finished_game(database_dsn, http, 51)
    solver = await register(http, "Solver")
    # When every puzzle is tried, the next one is a 404 the page words as "none left".
    page = await open_page(token=solver.token, expected=("status of 404",))
    await page.goto(f"{web}/#/puzzles")
    await page.wait_for_selector(f"{PUZZLES}[data-loading=false][data-attempted=false]")
    puzzle_id = await page.get_attribute(PUZZLES, "data-puzzle")
    assert puzzle_id
    shown = (await http.get(f"/v1/puzzles/{puzzle_id}")).json()["position"]
    # Every hand of the layout is drawn; the legal cards of the hand to play are buttons.
    cards_of = "cs => cs.map(c => c.dataset.card)"
    drawn = await page.eval_on_selector_all(f"{PUZZLES} .seat .card", cards_of)
    assert sorted(drawn) == sorted(c for hand in shown["hands"] if hand for c in hand)
    on_table = await page.eval_on_selector_all(
        f"{PUZZLES} .trick .card", "cs => cs.map(c => c.dataset.card)"
    )
    assert sorted(on_table) == sorted(p["card"] for p in shown["seen"]["trick"])
    playable = await page.eval_on_selector_all(
        f"{PUZZLES} .seat button.card:not([disabled])", "cs => cs.map(c => c.dataset.card)"
    )
    assert sorted(playable) == sorted(shown["legal"])
    await assert_accessible(page, "a puzzle")
    await shoot(page, "puzzle")

    await page.click(f"{PUZZLES} .seat button.card[data-card='{shown['legal'][0]}']")
    await page.wait_for_selector(f"{PUZZLES}[data-attempted=true] [data-solved]")
    mine = {"Authorization": f"Bearer {solver.token}"}
    attempt = (await http.get("/v1/players/me/puzzles", headers=mine)).json()
    answer = attempt["items"][0]["solution"]["answer"]
    assert (
        await page.get_attribute(f"{PUZZLES} [data-solved]", "data-solved")
        == str(shown["legal"][0] == answer).lower()
    )
    marked = page.locator(f"{PUZZLES} .puzzle-values li.answer[data-card='{answer}']")
    assert await marked.count() == 1
    assert await page.locator(f"{PUZZLES} [data-attempt='{puzzle_id}']").count() == 1
    await assert_accessible(page, "a puzzle attempted")

    more = await http.get("/v1/puzzles/next", headers={"Authorization": f"Bearer {solver.token}"})
    await page.click(f"{PUZZLES} button[data-key=next-puzzle]")
    await page.wait_for_selector(f"{PUZZLES}[data-loading=false][data-attempted=false]")
    if more.status_code == 200:
        assert await page.get_attribute(PUZZLES, "data-puzzle") == more.json()["id"]
    else:
        assert more.status_code == 404
        await page.wait_for_selector(f"{PUZZLES} [data-none]")


async def test_a_study_is_forked_played_annotated_and_shared_in_the_page(
    web: str, http: httpx.AsyncClient, open_page: Any, shoot: Any, database_dsn: str
) -> None:
    game_id = await finished_game(database_dsn, http, 52)
    owner, friend = await register(http, "Owner"), await register(http, "Friend")
    page = await open_page(token=owner.token)
    await page.goto(f"{web}/#/game/{game_id}/replay/1/1")
    await page.wait_for_selector("[data-screen=replay][data-at='1'][data-loading=false]")
    await page.click("[data-screen=replay] button[data-key=fork]")
    await page.wait_for_selector(f"{STUDY}[data-loading=false][data-steps='1']")
    study_id = (await page.evaluate("location.hash")).split("/")[2]
    await assert_accessible(page, "a new study")

    # Every seat is the owner's: he plays the deal to its end, a control at a time.
    for _ in range(120):
        if await page.get_attribute(STUDY, "data-over") == "true":
            break
        version = await page.get_attribute(STUDY, "data-version")
        cards = page.locator(f"{STUDY} .seat button.card:not([disabled])")
        if await cards.count():
            if await page.locator(f"{STUDY} button[data-action-type=discard]").count():
                await cards.nth(0).click()  # two cards put away, then the discard sent
                await cards.nth(1).click()
                await page.click(f"{STUDY} button[data-action-type=discard]")
            else:
                await cards.first.click()
        else:
            await page.locator(f"{STUDY} .actions button.action:not([disabled])").first.click()
        await page.wait_for_selector(
            f"{STUDY}[data-loading=false]:not([data-version='{version}'])", timeout=15_000
        )
    assert await page.get_attribute(STUDY, "data-over") == "true"
    await page.wait_for_selector(f"{STUDY} [data-compare=ready] [data-result=study]")
    await assert_accessible(page, "a study played out")

    study = (await http.get(f"/v1/studies/{study_id}",
                            headers={"Authorization": f"Bearer {owner.token}"})).json()  # fmt: skip
    assert study["over"] and study["events"][-1]["type"] == "deal_ended"

    await page.fill(f"{STUDY} textarea[data-key=note]", "what if the talon had been left?")
    await page.click(f"{STUDY} button[data-key=note-add]")
    await page.wait_for_selector(f"{STUDY} [data-note-step]")
    await page.click(f"{STUDY} button[data-key=share]")
    await page.wait_for_selector(f"{STUDY} input[data-key=link]")
    link = await page.input_value(f"{STUDY} input[data-key=link]")
    assert link.endswith(f"#/study/{study_id}")
    await shoot(page, "study")

    other = await open_page(token=friend.token)
    await other.goto(link)
    await other.wait_for_selector(f"{STUDY}[data-loading=false] [data-note-step]")
    assert await other.locator(f"{STUDY} textarea").count() == 0  # read-only
    assert await other.locator(f"{STUDY} button[data-key=share]").count() == 0
    await assert_accessible(other, "a shared study, read by another player")
