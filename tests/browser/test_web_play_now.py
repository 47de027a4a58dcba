"""Playing against the service's bots, and the clock, through the page alone.

A lone visitor signs up, presses "Play now" and plays a whole pulka against bots; a player who
opened a table fills its free seats with bots from the seating screen and lets his time run out.
Every move is chosen from what the page shows and made by clicking it: the test calls no API.
The bots think in the app's own process (``live_web``); the table's clock is a manual one, and
the browser's clock is moved with it (Playwright's ``page.clock``), so nothing waits for time to
pass.
"""

from __future__ import annotations

from typing import Any

import pytest
from webtools import (
    TABLE,
    click_action,
    shown,
    sign_up,
    table_state,
    wait_for_turn_or_end,
    wait_past,
)

pytestmark = pytest.mark.integration

POOL = 2


async def move_by_sight(page: Any) -> str:
    """One move chosen from the page as a cautious player would: bid the lowest bid when nobody
    has bid yet, else pass; never whist; take the talon, discard the first two cards, name the
    lowest contract the grid allows; play the first card allowed. Returns the move's type."""
    offer = await shown(page)
    by_type: dict[str, list[dict[str, Any]]] = {}
    for action in offer["actions"]:
        by_type.setdefault(action["type"], []).append(action)

    async def click(action: dict[str, Any]) -> str:
        return await click_action(page, action)

    if "answer_claim" in by_type:  # the bots never claim; reject all the same
        return await click(next(a for a in by_type["answer_claim"] if not a["accept"]))
    if "bid" in by_type and offer["bids"] == 0:
        return await click(by_type["bid"][0])
    if "pass" in by_type:
        return await click(by_type["pass"][0])
    if "whist" in by_type:
        passes = [a for a in by_type["whist"] if a["choice"] == "pass"]
        return await click((passes or by_type["whist"])[0])
    if offer["discard"]:
        for card in offer["cards"][:2]:
            await page.click(f"{TABLE} button.card[data-card='{card}']")
        await page.click(f"{TABLE} button[data-action-type=discard]")
        return "discard"
    for kind in ("take_talon", "declare", "choose_play", "look_at_cards", "bid"):
        if kind in by_type:
            return await click(by_type[kind][0])
    if offer["cards"]:
        await page.click(f"{TABLE} button.card[data-card='{offer['cards'][0]}']")
        return "play"
    if offer["actions"]:
        return await click(offer["actions"][0])
    raise AssertionError(f"the page says it is our turn but offers nothing: {offer}")


async def shoot_both(page: Any, shoot: Any, name: str) -> None:
    """``name``-1280.png and ``name``-390.png: the same screen on a desk and on a phone."""
    await shoot(page, f"{name}-1280")
    await page.set_viewport_size({"width": 390, "height": 844})
    assert await page.evaluate("document.documentElement.scrollWidth") <= 390, name
    await shoot(page, f"{name}-390")
    await page.set_viewport_size({"width": 1280, "height": 900})


async def test_a_lone_visitor_plays_a_whole_pulka_against_bots_from_the_lobby(
    live_web: Any, open_page: Any, shoot: Any
) -> None:
    phone = await open_page(viewport=(390, 844), mobile=True)
    await phone.goto(live_web.url + "/")
    await sign_up(phone, "Lena")
    await shoot(phone, "lobby-390")
    page = await open_page()
    await page.goto(live_web.url + "/")
    await sign_up(page, "Anna")
    # The Russian lobby: the same controls, named in Russian.
    await page.click("button[data-lang=ru]")
    await page.wait_for_selector("fieldset.play-now legend:has-text('Играть сейчас')")
    await shoot(page, "lobby-1280-ru")
    await page.click("button[data-lang=en]")

    # One click: the rules chosen in the form, a pool of 2, basic bots in both other seats.
    await page.fill("#target", str(POOL))
    levels = await page.eval_on_selector_all("#bot_level option", "os => os.map(o => o.value)")
    assert levels == ["random", "basic", "strong", "expert"]
    await page.select_option("#bot_level", "basic")
    await page.click("button[data-key=play-now]")
    await page.wait_for_selector(f"{TABLE}[data-status=playing]")
    names = await page.eval_on_selector_all(
        f"{TABLE} .seat .seat-name", "ns => ns.map(n => n.textContent)"
    )
    assert names[0] == "Anna" and all("bot" in n.lower() for n in names[1:]), names

    played: dict[str, int] = {}
    for _ in range(600):
        state = await wait_for_turn_or_end(page, timeout=60_000)
        if state["status"] == "finished":
            break
        if state["phase"] == "declaring" and "declaring" not in played:
            played["declaring"] = 0
            await shoot_both(page, shoot, "declare")
            assert await page.locator(f"{TABLE} .declare-grid button.cell").count() == 25
        if state["phase"] == "awaiting_talon" and "talon" not in played:
            played["talon"] = 0
            assert await page.inner_text(f"{TABLE} .talon-note")
            await shoot_both(page, shoot, "talon")
        kind = await move_by_sight(page)
        played[kind] = played.get(kind, 0) + 1
        try:
            await wait_past(page, int(state["version"]), timeout=30_000)
        except Exception:
            print("STUCK", kind, state, await shown(page))
            await shoot(page, "stuck")
            raise
    else:
        pytest.fail(f"the pulka did not end: {played}")

    await page.wait_for_selector("[data-screen=settlement]")
    rows = await page.eval_on_selector_all(
        "[data-screen=settlement] tbody tr", "rows => rows.map(r => Number(r.dataset.result))"
    )
    assert len(rows) == 3 and sum(rows) == 0
    await shoot(page, "bots-settlement-1280")
    # Every move of Anna's seat was made here (the table has no clock: nobody else moves for
    # her), the bidding of every deal at least (one deal can end a pool of 2: a bot's misère
    # writes 10).
    assert played.get("bid", 0) + played.get("pass", 0) >= 1, played


async def test_a_seated_player_fills_the_table_with_bots_and_sees_his_time_run_out(
    live_web: Any, open_page: Any, shoot: Any
) -> None:
    page = await open_page()
    await page.clock.install()  # the page's clock moves with the service's manual one
    await page.goto(live_web.url + "/")
    await sign_up(page, "Anna")
    await page.fill("#target", str(POOL))
    await page.fill("#move_seconds", "20")
    await page.fill("#bank_seconds", "30")
    await page.click("button[data-key=open-table]")
    await page.wait_for_selector(f"{TABLE}[data-status=seating]")

    # The free seats get bots of the level chosen, from the seating screen.
    await page.select_option("#seat-bot-level", "random")
    await shoot_both(page, shoot, "seating-bots")
    for seat in (1, 2):
        await page.click(f"{TABLE} button.seat-bot[data-seat='{seat}']")
        await page.wait_for_selector(
            f"{TABLE} button.seat-bot[data-seat='{seat}']", state="detached"
        )
    await page.wait_for_selector(f"{TABLE}[data-status=playing]")

    # Anna deals; the bots bid first, then it is her turn, and her countdown runs: 20 seconds
    # for the move and her bank of 30 behind them.
    await page.wait_for_selector(f"{TABLE}[data-my-turn=true]", timeout=60_000)
    clock = f"{TABLE} .seat[data-seat='0'] .seat-clock"
    await page.wait_for_selector(f"{clock}.acting")
    left = int(await page.get_attribute(clock, "data-left") or 0)
    assert 45 <= left <= 50, left
    assert "bank 0:30" in await page.inner_text(clock)
    assert "bank 0:30" in await page.inner_text(f"{TABLE} .seat[data-seat='1'] .seat-clock")
    assert await page.get_attribute(clock, "data-low") == "false"

    # 42 seconds on, the move's time and most of the bank spent: the warning shows (and the
    # sound can be turned off).
    await page.clock.fast_forward(42_000)
    await page.wait_for_selector(f"{clock}.low")
    assert "bank 0:0" in await page.inner_text(clock)  # the bank runs once the move's time is out
    await page.wait_for_function(
        "() => document.getElementById('announce').textContent === 'Low on time!'"
    )
    await shoot(page, "clock-low-1280")
    await page.click(f"{TABLE} button.sound")
    assert await page.get_attribute(f"{TABLE} button.sound", "aria-pressed") == "false"
    assert await page.evaluate("localStorage.getItem('preferans.sound')") == "off"

    # Her time runs out on the service's clock: the move is made for her, and the page says so.
    version = int((await table_state(page))["version"])
    live_web.pass_time(51)
    await page.wait_for_selector(f"{TABLE} .notice.timeout", timeout=30_000)
    assert "Time ran out" in await page.inner_text(f"{TABLE} .notice.timeout")
    await wait_past(page, version)
    log = await page.inner_text(f"{TABLE} .log-lines")
    assert "Time ran out for Anna." in log
    assert "(time ran out: played for them)" in log
    await shoot(page, "timeout-1280")
    phone = await open_page(
        viewport=(390, 844),
        mobile=True,
        lang="ru",
        token=await page.evaluate("localStorage.getItem('preferans.token')"),
    )
    await phone.goto(page.url)
    await phone.wait_for_selector(f"{TABLE}[data-status=playing]")
    await phone.wait_for_selector(f"{TABLE} .seat-clock")
    assert await phone.evaluate("document.documentElement.scrollWidth") <= 390
    await shoot(phone, "clock-390-ru")
