"""A player's own games, his notifications, his profile and the live lobby, in the page.

The page's player acts and looks through the page alone; the other players (and the games the
page's player is seated at before the test looks) are set up by API, as in the other browser
tests. The lobby follows its stream: a table opened in another browser context appears without a
reload, and the lists are read once, not polled.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import httpx
import pytest
from axetools import assert_accessible
from webtools import TABLE, Player, page_token, played_game, register, sign_up, snapshot_of

pytestmark = pytest.mark.integration

MINE = "[data-screen=mine]"
PROFILE = "[data-screen=profile]"
LOBBY = "[data-screen=lobby]"


async def shoot_both(page: Any, shoot: Any, name: str) -> None:
    """``name``-1280.png and ``name``-390.png: the screen on a desk and on a phone, each with
    no serious or critical axe violation."""
    await assert_accessible(page, f"{name} 1280")
    await shoot(page, f"{name}-1280")
    await page.set_viewport_size({"width": 390, "height": 844})
    assert await page.evaluate("document.documentElement.scrollWidth") <= 390, name
    await assert_accessible(page, f"{name} 390")
    await shoot(page, f"{name}-390")
    await page.set_viewport_size({"width": 1280, "height": 900})


async def _game(http: httpx.AsyncClient, seated: list[Player]) -> str:
    """A game of ``seated`` in seat order, dealt at once; seat 0 deals, so seat 1 is to bid."""
    created = await http.post("/v1/games", json={"seat": 0}, headers=seated[0].auth)
    assert created.status_code == 201, created.text
    game_id = created.json()["id"]
    for seat, player in enumerate(seated[1:], 1):
        joined = await http.post(
            f"/v1/games/{game_id}/seats", json={"seat": seat}, headers=player.auth
        )
        assert joined.status_code == 200, joined.text
    return game_id


async def _pass(http: httpx.AsyncClient, game_id: str, player: Player) -> None:
    snapshot = await snapshot_of(http, game_id, player)
    action = next(a for a in snapshot["legal_actions"] if a["type"] == "pass")
    response = await http.post(
        f"/v1/games/{game_id}/actions",
        json=action,
        headers={**player.auth, "If-Match": f'"{snapshot["version"]}"'},
    )
    assert response.status_code == 200, response.text


async def _unread(page: Any) -> int:
    return int(await page.get_attribute("a.bell", "data-unread"))


async def test_a_player_with_two_games_sees_which_waits_for_him_and_is_told_of_his_turn(
    web: str, http: httpx.AsyncClient, open_page: Any, shoot: Any
) -> None:
    anna, vera, kolya = [await register(http, n) for n in ("Anna", "Vera", "Kolya")]
    waiting = await _game(http, [vera, anna, kolya])  # Anna at seat 1: hers to bid
    other = await _game(http, [anna, vera, kolya])  # Vera is to bid, then Kolya, then Anna

    page = await open_page(token=anna.token)
    await page.goto(f"{web}/#/")
    await page.wait_for_selector("a.bell[data-unread='3']")  # two games started, one turn
    assert (await page.text_content("a.bell .badge")).strip() == "3"

    # By keyboard: the top bar's first stop after the brand is "My games", with its badge.
    await page.focus("a.brand")
    await page.keyboard.press("Tab")
    assert await page.evaluate("document.activeElement.matches('a.bell')")
    await page.keyboard.press("Enter")
    await page.wait_for_selector(f"{MINE} [data-list=mine-active] li[data-game]")
    rows = await page.eval_on_selector_all(
        f"{MINE} [data-list=mine-active] li[data-game]",
        "rows => rows.map(r => [r.dataset.game, r.dataset.myTurn])",
    )
    assert rows == [[waiting, "true"], [other, "false"]]  # the one waiting for him first
    notes = await page.eval_on_selector_all(
        f"{MINE} [data-list=mine-notes] li", "rows => rows.map(r => r.dataset.note)"
    )
    assert sorted(notes) == ["game_started", "game_started", "your_turn"]
    await page.wait_for_selector("a.bell[data-unread='0']")  # looked at: the badge clears
    assert await page.query_selector("a.bell .badge") is None
    await shoot_both(page, shoot, "mine-en")
    await page.click("button.lang[data-lang=ru]")
    await page.wait_for_selector(f"{MINE} h1:text('Мои игры')")
    await shoot_both(page, shoot, "mine-ru")
    await page.click("button.lang[data-lang=en]")

    # At the table that waits for her, Anna hears of her turn in the other game.
    await page.click(f"{MINE} a[data-key='go:{waiting}']")
    await page.wait_for_selector(f"{TABLE}[data-my-turn=true]")
    await _pass(http, other, vera)
    await _pass(http, other, kolya)
    toast = f".toast.note[data-game='{other}']"
    await page.wait_for_selector(toast)
    assert "Your turn in another game" in await page.text_content(toast)
    await page.wait_for_selector("a.bell[data-unread='1']")
    await shoot(page, "mine-toast-1280")
    await page.click(f"{toast} a")
    await page.wait_for_function(f"location.hash === '#/game/{other}'")
    await page.wait_for_selector(f"{TABLE}[data-my-turn=true]")
    assert await page.query_selector(toast) is None


async def test_the_profile_draws_the_rating_history_and_links_finished_games_to_replays(
    web: str, http: httpx.AsyncClient, open_page: Any, shoot: Any
) -> None:
    players = [await register(http, name) for name in ("Anna", "Vera", "Kolya")]
    games = [await played_game(http, players, overrides={"pool": {"target": 2}}) for _ in range(2)]
    anna = players[0]
    page = await open_page(token=anna.token)
    await page.goto(f"{web}/#/player/{anna.id}")
    # The ratings are a projection: the page shows what it has caught up with.
    for _ in range(50):
        await page.wait_for_selector(f"{PROFILE}[data-loading=false]")
        if len(await page.query_selector_all(f"{PROFILE} svg.rating-chart circle.point")) == 2:
            break
        await asyncio.sleep(0.3)
        await page.reload()
    points = await page.eval_on_selector_all(
        f"{PROFILE} svg.rating-chart circle.point", "cs => cs.map(c => c.dataset.game)"
    )
    assert points == games
    assert await page.query_selector(f"{PROFILE} svg.rating-chart polyline.line") is not None
    explained = await page.text_content(f"{PROFILE} [data-panel=rating]")
    assert "μ − 3σ" in explained and "uncertainty" in explained
    assert await page.text_content(f"{PROFILE} [data-stat=games]") == "2"
    assert await page.query_selector(f"{PROFILE} [data-stat=par]") is not None
    # His finished games in bulk, downloaded as the open text format (docs/ppn.md).
    async with page.expect_download() as downloading:
        await page.click(f"{PROFILE} a[data-download=ppn]")
    ppn = Path(await (await downloading.value).path()).read_text()
    assert all(f'[Game "{g}"]' in ppn for g in games), ppn[:400]
    await shoot_both(page, shoot, "profile-en")
    await page.click("button.lang[data-lang=ru]")
    await page.wait_for_selector(f"{PROFILE} h2:text('Рейтинг')")
    await shoot_both(page, shoot, "profile-ru")
    await page.click("button.lang[data-lang=en]")

    # The lobby's leaderboard: humans apart from bots, the scale said in a sentence.
    await page.click("a.brand")
    await page.wait_for_selector(f"{LOBBY} [data-board=humans] li[data-player='{anna.id}']")
    assert await page.query_selector(f"{LOBBY} [data-board=computers]") is not None
    assert "μ − 3σ" in await page.text_content(f"{LOBBY} .leaders")
    await shoot(page, "leaders-en-1280", element=f"{LOBBY} .leaders")
    await page.click(f"{LOBBY} [data-board=humans] li[data-player='{anna.id}'] a")
    await page.wait_for_selector(f"{PROFILE}[data-player='{anna.id}'] svg.rating-chart")

    # A finished game opens on its replay.
    await page.click(f"{PROFILE} a[data-replay='{games[0]}']")
    await page.wait_for_selector("[data-screen=replay][data-loading=false]")
    assert (await page.evaluate("location.hash")).startswith(f"#/game/{games[0]}/replay/1")


async def test_the_lobby_follows_its_stream_and_a_finished_table_leaves_it(
    web: str, http: httpx.AsyncClient, open_page: Any, shoot: Any
) -> None:
    watcher = await open_page()
    lists: list[str] = []
    watcher.on("request", lambda r: lists.append(r.url) if "/v1/games?" in r.url else None)
    await watcher.goto(f"{web}/#/")
    await watcher.wait_for_selector(f"{LOBBY}[data-live=live] [data-list=seating] .box > *")
    await watcher.wait_for_selector(f"{LOBBY} [data-list=seating] p.muted:text('None just now.')")
    assert len(lists) == 3  # each list read once, at the stream's reset

    # Another visitor opens a friendly table in his own browser: it appears, no reload, and
    # says it moves nobody's rating before anyone sits down.
    host = await open_page()
    await host.goto(f"{web}/#/")
    await sign_up(host, "Boris")
    await host.check("form.create input[name=friendly]")
    await host.click("form.create button[data-key=open-table]")
    await host.wait_for_selector(TABLE)
    game_id = host.url.rsplit("/", 1)[1]
    await watcher.wait_for_selector(f"{LOBBY} [data-list=seating] li[data-game='{game_id}']")
    assert "Boris" in await watcher.text_content(f"{LOBBY} li[data-game='{game_id}']")
    tag = f"{LOBBY} li[data-game='{game_id}'] [data-tag=friendly]"
    assert (await watcher.text_content(tag)) == "friendly"

    # He leaves it before anyone joins: a table nobody sits at is abandoned, and leaves the list.
    left = await http.post(
        f"/v1/games/{game_id}/leave",
        headers={"Authorization": f"Bearer {await page_token(host)}"},
    )
    assert left.status_code == 200, left.text
    await watcher.wait_for_selector(
        f"{LOBBY} [data-list=seating] li[data-game='{game_id}']", state="detached"
    )

    # A table played to its end leaves the lists of tables in play for the finished one.
    players = [await register(http, name) for name in ("Anna", "Vera", "Kolya")]
    finished = await played_game(http, players, seed="lobby", overrides={"pool": {"target": 1}})
    await watcher.wait_for_selector(f"{LOBBY} [data-list=finished] li[data-game='{finished}']")
    for status in ("seating", "playing"):
        row = f"[data-list={status}] li[data-game='{finished}']"
        assert await watcher.query_selector(row) is None
    await asyncio.sleep(6)  # longer than the old poll's 5 s
    assert len(lists) == 3, lists  # still only the first reading: nothing polls
    assert await watcher.get_attribute(LOBBY, "data-live") == "live"
    await shoot_both(watcher, shoot, "lobby-live-en")
    await watcher.click("button.lang[data-lang=ru]")
    await watcher.wait_for_selector(f"{LOBBY} h1:text('Лобби')")
    await shoot_both(watcher, shoot, "lobby-live-ru")
