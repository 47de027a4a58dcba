"""The table's manners: a phone screen, the keyboard, and both languages."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from webtools import TABLE, advance, quick_choice, seated_game, snapshot_of, table_state, wait_past

pytestmark = pytest.mark.integration

NAMES = ("Anna", "Vera", "Kolya")


async def test_the_table_fits_a_phone_and_a_card_is_played_by_touch(
    web: str, http: httpx.AsyncClient, open_page: Any, shoot: Any
) -> None:
    game_id, players = await seated_game(http, NAMES, seed="phone")

    def first_deal_whisted(snapshot: dict[str, Any]) -> dict[str, Any]:
        return quick_choice(snapshot, whist=True, open_play=False)

    # Anna (seat 0) whists the first deal; play on until she has a card to play.
    snapshot = await advance(
        http,
        game_id,
        players,
        until=lambda s: s["seat"] == 0 and any(a["type"] == "play" for a in s["legal_actions"]),
        choose=first_deal_whisted,
    )
    page = await open_page(viewport=(390, 844), token=players[0].token, mobile=True)
    await page.goto(f"{web}/#/game/{game_id}")
    await page.wait_for_selector(f"{TABLE}[data-my-turn=true]")

    # Nothing is wider than the screen; every card of the hand is on it.
    width = await page.evaluate("document.documentElement.scrollWidth")
    assert width <= 390
    boxes = await page.eval_on_selector_all(
        f"{TABLE} .hand.mine .card", "cs => cs.map(c => c.getBoundingClientRect().right)"
    )
    assert len(boxes) == len(snapshot["view"]["deal"]["hand"])
    assert max(boxes) <= 390
    await shoot(page, "phone")

    legal = [a["card"] for a in snapshot["legal_actions"] if a["type"] == "play"]
    await page.tap(f"{TABLE} button.card[data-card='{legal[0]}']")
    await wait_past(page, snapshot["version"])
    after = await snapshot_of(http, game_id, players[0])
    assert legal[0] not in after["view"]["deal"]["hand"]


async def test_the_table_is_played_by_keyboard_in_russian_and_english(
    web: str, http: httpx.AsyncClient, open_page: Any
) -> None:
    game_id, players = await seated_game(http, NAMES, seed="keyboard")
    vera = players[1]  # the first hand: she bids first
    page = await open_page(token=vera.token, lang="ru")
    await page.goto(f"{web}/#/game/{game_id}")
    await page.wait_for_selector(f"{TABLE}[data-my-turn=true]")

    # Russian: the buttons, the cards' names, the page's language.
    assert await page.get_attribute("html", "lang") == "ru"
    assert await page.inner_text(f"{TABLE} button[data-action-type=pass]") == "Пас"
    labels = await page.eval_on_selector_all(
        f"{TABLE} .hand.mine .card", "cs => cs.map(c => c.getAttribute('aria-label'))"
    )
    ranks = ("семёрка", "восьмёрка", "девятка", "десятка", "валет", "дама", "король", "туз")
    assert labels and all(label.split()[0] in ranks for label in labels)

    # Every label exists in both languages.
    missing = await page.evaluate(
        """async () => { const { STRINGS } = await import("/web/js/i18n.js");
             const en = Object.keys(STRINGS.en), ru = Object.keys(STRINGS.ru);
             return [en.filter(k => !ru.includes(k)), ru.filter(k => !en.includes(k))]; }"""
    )
    assert missing == [[], []]

    await page.click("button[data-lang=en]")
    await page.wait_for_function("document.documentElement.lang === 'en'")
    assert await page.inner_text(f"{TABLE} button[data-action-type=pass]") == "Pass"

    # Tab reaches the first legal action; arrows move along them; Enter acts.
    for _ in range(12):
        await page.keyboard.press("Tab")
        if await page.evaluate("document.activeElement.dataset.actionType || ''"):
            break
    first = await page.evaluate("document.activeElement.dataset.action")
    await page.keyboard.press("ArrowRight")
    second = await page.evaluate("document.activeElement.dataset.action")
    assert second and second != first
    await page.keyboard.press("ArrowLeft")
    assert await page.evaluate("document.activeElement.dataset.action") == first
    await page.keyboard.press("End")
    assert await page.evaluate("document.activeElement.dataset.actionType") == "pass"
    version = int((await table_state(page))["version"])
    await page.keyboard.press("Enter")
    await wait_past(page, version)
    seen = await snapshot_of(http, game_id, vera)
    assert seen["view"]["deal"]["auction"][0] == {
        "seat": 1,
        "call": "PASS",
        "hold": False,
        "dark": False,
    }
    assert await page.inner_text(f"{TABLE} .seat[data-seat='1'] .call") == "Pass"
