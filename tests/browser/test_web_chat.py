"""Table talk and "play again", through the pages alone (no API call behind their backs).

Anna opens a table from the lobby, Vera (on a phone, in Russian) and Kolya take the other seats
from its link, and Sasha watches. The players chat; a message written as markup is shown as the
text it is; a fixed phrase is shown in each reader's language; Sasha's message reaches Sasha's
page and never the players' during the game. Then Anna and Vera finish a pulka against one of
the service's bots, Anna offers a rematch, Vera accepts it, and both pages land on the new table.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from axetools import assert_accessible
from webtools import TABLE, click_action, shown, sign_up, table_state, wait_for_turn_or_end

pytestmark = pytest.mark.integration

CHAT = f"{TABLE} [data-panel=chat]"
REMATCH = f"{TABLE} [data-panel=rematch]"
MARKUP = "<img src=x onerror=alert(1)><b>bold</b>"


async def say(page: Any, text: str) -> None:
    await page.fill(f"{CHAT} #chat-text", text)
    await page.click(f"{CHAT} button[data-key=chat-send]")


async def said(page: Any) -> list[str]:
    return await page.eval_on_selector_all(
        f"{CHAT} .chat-line .chat-body", "els => els.map(e => e.textContent)"
    )


async def open_table(open_page: Any, web: str, target: int) -> tuple[Any, str]:
    anna = await open_page()
    await anna.goto(web + "/")
    await sign_up(anna, "Anna")
    await anna.fill("#target", str(target))
    await anna.click("button[data-key=open-table]")
    await anna.wait_for_selector(f"{TABLE}[data-status=seating]")
    return anna, anna.url


async def join(open_page: Any, web: str, link: str, name: str, **options: Any) -> Any:
    page = await open_page(**options)
    await page.goto(web + "/")
    await sign_up(page, name)
    await page.goto(link)
    await page.click(f"{TABLE} button[data-key^='join:']")
    await page.wait_for_selector(f"{TABLE}[data-seat]:not([data-seat=''])")
    return page


async def test_players_chat_and_a_spectators_words_never_reach_them_during_the_game(
    web: str, open_page: Any, shoot: Any
) -> None:
    anna, link = await open_table(open_page, web, 10)
    vera = await join(open_page, web, link, "Vera", viewport=(390, 844), mobile=True, lang="ru")
    kolya = await join(open_page, web, link, "Kolya")
    sasha = await open_page()
    await sasha.goto(web + "/")
    await sign_up(sasha, "Sasha")
    await sasha.goto(link)
    for page in (anna, vera, kolya, sasha):
        await page.wait_for_selector(f"{TABLE}[data-status=playing]")
        await page.wait_for_selector(f"{CHAT} #chat-text")

    await say(anna, "Good evening, all")
    await vera.wait_for_selector(f"{CHAT} .chat-body:text-is('Good evening, all')")
    await say(vera, MARKUP)
    await anna.wait_for_selector(f"{CHAT} .chat-line:last-child .chat-body")
    await anna.wait_for_function(
        "t => [...document.querySelectorAll('[data-panel=chat] .chat-body')]"
        ".some(e => e.textContent === t)",
        arg=MARKUP,
    )
    # Plain text: no element came out of it, no script ran (the page reports errors).
    for page in (anna, kolya, sasha):
        await page.wait_for_function(
            "t => [...document.querySelectorAll('[data-panel=chat] .chat-body')]"
            ".some(e => e.textContent === t)",
            arg=MARKUP,
        )
        assert await page.locator(f"{CHAT} img, {CHAT} b").count() == 0
    await kolya.click(f"{CHAT} button[data-phrase=good_luck]")
    await vera.wait_for_selector(f"{CHAT} .chat-body:text-is('Удачи')")
    await anna.wait_for_selector(f"{CHAT} .chat-body:text-is('Good luck')")

    # The spectator speaks: his page shows it, the players' pages never do while they play.
    await say(sasha, "Anna holds both aces")
    await sasha.wait_for_selector(f"{CHAT} .chat-body:text-is('Anna holds both aces')")
    await say(kolya, "next")
    for page in (anna, vera):
        await page.wait_for_selector(f"{CHAT} .chat-body:text-is('next')")
    await asyncio.sleep(1.5)  # several rounds of the table talk's poller
    for page in (anna, vera, kolya):
        assert "Anna holds both aces" not in await said(page)
        assert await page.locator(f"{CHAT} .from-spectator").count() == 0
    await sasha.wait_for_selector(f"{CHAT} .chat-body:text-is('next')")
    assert (await said(sasha))[-3:] == ["Good luck", "Anna holds both aces", "next"]

    # Mute: Anna hides Kolya's messages on her page only.
    await anna.click(f"{CHAT} button[data-mute]:near(.chat-body:text-is('next'))")
    await anna.wait_for_function(
        "() => ![...document.querySelectorAll('[data-panel=chat] .chat-body')]"
        ".some(e => e.textContent === 'next')"
    )
    assert "next" in await said(vera)

    for page, who in ((anna, "player 1280"), (vera, "player 390 ru"), (sasha, "spectator")):
        await assert_accessible(page, f"chat {who}")
    await shoot(anna, "chat-1280", element=CHAT)
    await shoot(vera, "chat-390-ru", element=CHAT)
    await shoot(sasha, "chat-spectator-1280", element=CHAT)
    await anna.click("button[data-lang=ru]")
    await anna.wait_for_selector(f"{CHAT} h2:text-is('Разговор за столом')")
    await shoot(anna, "chat-1280-ru", element=CHAT)
    await vera.click("button[data-lang=en]")
    await vera.wait_for_selector(f"{CHAT} h2:text-is('Table talk')")
    await shoot(vera, "chat-390", element=CHAT)


async def play_by_page(page: Any) -> str:
    """Short deals: the first bid, then passes, no whist; the first legal card."""
    offer = await shown(page)
    by_type: dict[str, list[dict[str, Any]]] = {}
    for action in offer["actions"]:
        by_type.setdefault(action["type"], []).append(action)
    if "answer_claim" in by_type:
        return await click_action(page, next(a for a in by_type["answer_claim"] if a["accept"]))
    if "bid" in by_type and offer["bids"] == 0:
        return await click_action(page, by_type["bid"][0])
    if "pass" in by_type:
        return await click_action(page, by_type["pass"][0])
    if "whist" in by_type:
        passes = [a for a in by_type["whist"] if a["choice"] == "pass"]
        return await click_action(page, (passes or by_type["whist"])[0])
    if offer["discard"]:
        for card in offer["cards"][:2]:
            await page.click(f"{TABLE} button.card[data-card='{card}']")
        await page.click(f"{TABLE} button[data-action-type=discard]")
        return "discard"
    for kind in ("take_talon", "declare", "choose_play", "look_at_hand"):
        if kind in by_type:
            return await click_action(page, by_type[kind][0])
    if offer["cards"]:
        await page.click(f"{TABLE} button.card[data-card='{offer['cards'][0]}']")
        return "play"
    if offer["actions"]:
        return await click_action(page, offer["actions"][0])
    return "nothing"


async def test_a_rematch_offered_and_accepted_takes_both_pages_to_the_new_table(
    live_web: Any, open_page: Any, shoot: Any
) -> None:
    web = live_web.url  # the service's bots move in the app's own process
    anna, link = await open_table(open_page, web, 1)
    vera = await join(open_page, web, link, "Vera", viewport=(390, 844), mobile=True, lang="ru")
    await anna.click(f"{TABLE} button.seat-bot")  # the third seat: one of the service's bots
    pages = [anna, vera]
    for page in pages:
        await page.wait_for_selector(f"{TABLE}[data-status=playing]")
    old_game = anna.url.rsplit("/", 1)[-1]
    for _ in range(1500):
        states = [await table_state(p) for p in pages]
        if all(s["status"] == "finished" for s in states):
            break
        turns = [p for p, s in zip(pages, states, strict=True) if s["myTurn"] == "true"]
        if not turns:
            waits = [asyncio.create_task(wait_for_turn_or_end(p)) for p in pages]
            await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
            for task in waits:
                task.cancel()
            await asyncio.gather(*waits, return_exceptions=True)
            continue
        page = turns[0]
        version = (await table_state(page))["version"]
        await play_by_page(page)
        await page.wait_for_function(
            "v => { const s = document.querySelector('[data-screen=table]')?.dataset;"
            " return s && (s.version !== v || s.myTurn !== 'true'); }",
            arg=version,
            timeout=15_000,
        )
    else:
        pytest.fail("the pulka did not end")

    for page in pages:
        await page.wait_for_selector(f"{REMATCH} [data-rematch=offer]")
    await shoot(anna, "rematch-offer-1280", element=REMATCH)
    await anna.click(f"{REMATCH} [data-rematch=offer]")
    await vera.wait_for_selector(f"{REMATCH} [data-rematch=accept]")
    await anna.wait_for_selector(f"{REMATCH} [data-rematch-status=open]")
    assert await anna.locator(f"{REMATCH} [data-rematch=accept]").count() == 0
    await assert_accessible(vera, "rematch asked 390 ru")
    await assert_accessible(anna, "rematch waiting 1280")
    await shoot(vera, "rematch-asked-390-ru", element=REMATCH)
    await shoot(anna, "rematch-waiting-1280", element=REMATCH)
    await vera.click("button[data-lang=en]")
    await vera.wait_for_selector(f"{REMATCH} h2:text-is('Play again')")
    await shoot(vera, "rematch-asked-390", element=REMATCH)
    await anna.click("button[data-lang=ru]")
    await anna.wait_for_selector(f"{REMATCH} h2:text-is('Ещё одна пулька')")
    await shoot(anna, "rematch-waiting-1280-ru", element=REMATCH)

    await vera.click(f"{REMATCH} [data-rematch=accept]")
    new_games = set()
    for page in pages:
        await page.wait_for_function(
            "old => location.hash.startsWith('#/game/') && !location.hash.includes(old)",
            arg=old_game,
            timeout=15_000,
        )
        await page.wait_for_selector(f"{TABLE}[data-status=playing]")
        state = await table_state(page)
        assert state["seat"] != ""  # seated at the new table, as at the old one
        new_games.add(page.url.rsplit("/", 1)[-1])
    assert len(new_games) == 1 and old_game not in new_games
    assert (await table_state(anna))["seat"] == "0" and (await table_state(vera))["seat"] == "1"
