"""A claim made and accepted, through three pages (three players, three browser profiles).

Anna opens a seeded table from the lobby, Vera (on a phone, in Russian) and Kolya take the other
seats from its link. The first hand bids, the others pass, both defenders whist; on his first
lead the declarer claims every trick left with the claim control, the two defenders see the
claim and accept it, and every page's log says how it ended. No API call is made by the test.
"""

from __future__ import annotations

import asyncio
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


async def claim_policy(page: Any, claimed: dict[str, Any]) -> str:
    """The first hand bids, the others pass, defenders whist; the declarer claims all the
    tricks left at his first lead; a claim is accepted."""
    offer = await shown(page)
    by_type: dict[str, list[dict[str, Any]]] = {}
    for action in offer["actions"]:
        by_type.setdefault(action["type"], []).append(action)
    if "answer_claim" in by_type:
        return await click_action(page, next(a for a in by_type["answer_claim"] if a["accept"]))
    if offer["claim"] and not claimed:
        options = await page.eval_on_selector_all(
            f"{TABLE} select.claim-tricks option", "os => os.map(o => Number(o.value))"
        )
        assert options == sorted(options, reverse=True) and options[-1] == 0, options
        await page.select_option(f"{TABLE} select.claim-tricks", str(options[0]))
        claimed.update(page=page, tricks=options[0])
        # By keyboard: the number, then Tab to the one Claim button, then Enter.
        await page.focus(f"{TABLE} select.claim-tricks")
        await page.keyboard.press("Tab")
        assert await page.evaluate("document.activeElement.dataset.actionType") == "claim"
        await page.keyboard.press("Enter")
        return "claim"
    if "bid" in by_type and offer["bids"] == 0:
        return await click_action(page, by_type["bid"][0])
    if "pass" in by_type:
        return await click_action(page, by_type["pass"][0])
    if "whist" in by_type:
        whists = [a for a in by_type["whist"] if a["choice"] == "whist"]
        return await click_action(page, (whists or by_type["whist"])[0])
    if offer["discard"]:
        for card in offer["cards"][:2]:
            await page.click(f"{TABLE} button.card[data-card='{card}']")
        await page.click(f"{TABLE} button[data-action-type=discard]")
        return "discard"
    for kind in ("take_talon", "declare", "choose_play"):
        if kind in by_type:
            return await click_action(page, by_type[kind][0])
    if offer["cards"]:
        await page.click(f"{TABLE} button.card[data-card='{offer['cards'][0]}']")
        return "play"
    raise AssertionError(f"nothing to do: {offer}")


async def next_to_act(pages: list[Any]) -> Any:
    """The first of ``pages`` whose table says it is its turn."""
    waits = {asyncio.create_task(wait_for_turn_or_end(p, timeout=30_000)): p for p in pages}
    done, pending = await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
    for task in pending:
        task.cancel()
    await asyncio.gather(*pending, return_exceptions=True)
    task = done.pop()
    task.result()
    return waits[task]


async def test_a_claim_is_made_with_one_control_and_accepted_by_the_others(
    web: str, open_page: Any, shoot: Any
) -> None:
    anna = await open_page()
    await anna.goto(web + "/")
    await sign_up(anna, "Anna")
    await anna.fill("#target", "2")
    await anna.click("form.create summary")
    await anna.fill("#seed", "browser-claims")
    await anna.click("button[data-key=open-table]")
    await anna.wait_for_selector(f"{TABLE}[data-status=seating]")
    link = anna.url

    vera = await open_page(viewport=(390, 844), mobile=True, lang="ru")
    kolya = await open_page()
    for page, name in ((vera, "Vera"), (kolya, "Kolya")):
        await page.goto(web + "/")
        await sign_up(page, name)
        await page.goto(link)
        await page.click(f"{TABLE} button[data-key^='join:']")
        await page.wait_for_selector(f"{TABLE}[data-seat]:not([data-seat=''])")
    pages = [anna, vera, kolya]
    await anna.wait_for_selector(f"{TABLE}[data-status=playing]")

    claimed: dict[str, Any] = {}
    answered: list[Any] = []
    for _ in range(60):
        page = await next_to_act(pages)
        state = await table_state(page)
        if claimed and page is not claimed["page"] and not answered:
            # The claim as the others see it, before anyone answers.
            await page.wait_for_selector(f"{TABLE} .claim-panel")
            for other in pages:
                if other is not claimed["page"]:
                    await other.wait_for_selector(f"{TABLE} .claim-panel")
            await shoot(kolya, "claim-asked-1280")
            await shoot(vera, "claim-asked-390-ru")
            await shoot(claimed["page"], "claim-made")
        kind = await claim_policy(page, claimed)
        if kind == "answer_claim":
            answered.append(page)
        await wait_past(page, int(state["version"]))
        if len(answered) == 2:
            break
    else:
        pytest.fail("no claim was made and answered")
    assert claimed and claimed["page"] not in answered

    # The deal ended as claimed; every page's log says so (each in its own language).
    await anna.wait_for_selector(f"{TABLE} .log-lines li:has-text('Claim agreed')")
    log = await anna.inner_text(f"{TABLE} .log-lines")
    assert f"claims all {claimed['tricks']} tricks left" in log
    assert log.count("accepts the claim") == 2
    # The log names the players, even those whose names came after their seating did.
    assert "Vera sat down." in log and "Kolya sat down." in log and "Seat " not in log
    await vera.wait_for_selector(f"{TABLE} .log-lines li:has-text('Заявка принята')")
    assert "принимает заявку" in await vera.inner_text(f"{TABLE} .log-lines")
    await shoot(vera, "claim-agreed-390-ru")
    # The lines already written follow the language chosen.
    await vera.click("button[data-lang=en]")
    await vera.wait_for_selector(f"{TABLE} .log-lines li:has-text('Claim agreed')")
    # Nowhere a button per number of tricks.
    for page in pages:
        assert await page.locator(f"{TABLE} button[data-action-type=claim]").count() <= 1
