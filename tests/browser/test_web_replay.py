"""A finished deal replayed step by step in the page: every hand, the talon and the discard, and
the analysis of its cards and decisions."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest
from axetools import assert_accessible
from webtools import played_game, register

pytestmark = pytest.mark.integration

REPLAY = "[data-screen=replay]"


async def _at(page: Any, step: int) -> None:
    await page.wait_for_selector(f"{REPLAY}[data-at='{step}'][data-loading=false]")


async def test_a_replay_is_stepped_through_with_every_hand_shown(
    web: str, http: httpx.AsyncClient, open_page: Any, shoot: Any
) -> None:
    players = [await register(http, name) for name in ("Anna", "Vera", "Kolya")]
    game_id = await played_game(http, players, seed="replay", overrides={"pool": {"target": 2}})
    replay = (await http.get(f"/v1/games/{game_id}/deals/1/replay")).json()
    steps = replay["steps"]
    assert steps > 30  # the first deal was whisted and played out

    page = await open_page(token=players[1].token)
    await page.goto(f"{web}/#/game/{game_id}/replay/1")
    await _at(page, 1)
    # Just dealt: three hands of ten and the talon, all face up once the game is over.
    hands = await page.eval_on_selector_all(
        f"{REPLAY} .seat", "seats => seats.map(s => s.querySelectorAll('.card').length)"
    )
    assert hands == [10, 10, 10]
    talon = await page.eval_on_selector_all(
        f"{REPLAY} .talon .card", "cs => cs.map(c => c.dataset.card)"
    )
    assert talon == list(replay["state"]["talon"])
    shown = await page.eval_on_selector_all(
        f"{REPLAY} .seat .card", "cs => cs.map(c => c.dataset.card)"
    )
    dealt = {card for hand in replay["events"][0]["hands"] for card in hand}
    assert set(shown) == dealt

    # Step by the buttons, the keyboard and the slider.
    await page.click(f"{REPLAY} button[data-step=next]")
    await _at(page, 2)
    await page.focus(f"{REPLAY} button[data-step=next]")
    for step in range(3, 8):
        await page.keyboard.press("ArrowRight")
        await _at(page, step)
    assert await page.evaluate("location.hash") == f"#/game/{game_id}/replay/1/7"
    await page.keyboard.press("ArrowLeft")
    await _at(page, 6)

    # Mid-play: the trick on the table, the discard shown, the hands shrinking.
    middle = (
        next(
            k
            for k, event in enumerate(replay["events"], 1)
            if event["type"] == "card_played" and replay["events"][k - 2]["type"] == "trick_won"
        )
        + 1
    )
    await page.fill(f"{REPLAY} input[type=range]", str(middle))
    await page.dispatch_event(f"{REPLAY} input[type=range]", "change")
    await _at(page, middle)
    at_middle = (
        await http.get(f"/v1/games/{game_id}/deals/1/replay", params={"at": middle})
    ).json()
    trick = await page.eval_on_selector_all(
        f"{REPLAY} .trick .card", "cs => cs.map(c => c.dataset.card)"
    )
    assert sorted(trick) == sorted(p["card"] for p in at_middle["state"]["view"]["trick"])
    assert await page.locator(f"{REPLAY} .talon:has-text('Discard') .card").count() == 2
    await shoot(page, "replay")

    await page.keyboard.press("End")
    await _at(page, steps)
    text = await page.inner_text(f"{REPLAY} .step-event")
    assert "over" in text
    score = await page.locator(f"{REPLAY} h2:has-text('What the deal wrote') + ul li").count()
    assert score == len(replay["score"]["entries"])

    # The double-dummy analysis, once the projection has analysed the game: par at each step,
    # what the last card cost, and a mistake's button that jumps to its card.
    for _ in range(600):
        analysed = (await http.get(f"/v1/games/{game_id}/deals/1/replay")).json()["analysis"]
        if analysed is not None:
            break
        await asyncio.sleep(0.1)
    assert analysed is not None and analysed["cards"]
    await page.reload()
    await _at(page, steps)
    await page.wait_for_selector(f"{REPLAY} .analysis[data-analysis=ready]")
    first_card = next(k for k, e in enumerate(replay["events"], 1) if e["type"] == "card_played")
    await page.fill(f"{REPLAY} input[type=range]", str(first_card - 1))
    await page.dispatch_event(f"{REPLAY} input[type=range]", "change")
    await _at(page, first_card - 1)
    par = await page.get_attribute(f"{REPLAY} .analysis [data-par]", "data-par")
    assert par == str(analysed["cards"][0]["par"])  # before the opening lead
    if analysed["mistakes"]:
        mistake = analysed["mistakes"][0]
        await page.click(f"{REPLAY} .analysis button[data-mistake='{mistake['step']}']")
        cards = [k for k, e in enumerate(replay["events"], 1) if e["type"] == "card_played"]
        await _at(page, cards[mistake["step"]])
        cost = await page.get_attribute(f"{REPLAY} .analysis [data-cost]", "data-cost")
        assert cost == str(mistake["cost"])
    await shoot(page, "replay-analysis")
    await page.keyboard.press("End")
    await _at(page, steps)

    # On to the next deal.
    await page.click(f"{REPLAY} a:has-text('Next deal')")
    await page.wait_for_selector(f"{REPLAY} h1:has-text('deal 2')")
    await _at(page, 1)


async def test_the_replay_shows_each_decision_judged_in_the_pages_language(
    web: str, http: httpx.AsyncClient, open_page: Any, shoot: Any
) -> None:
    players = [await register(http, name) for name in ("Anna", "Vera", "Kolya")]
    game_id = await played_game(http, players, seed="decisions", overrides={"pool": {"target": 2}})
    url = f"/v1/games/{game_id}/deals/1/replay"
    for _ in range(1800):  # the analyst judges every decision of the game: some seconds
        analysed = (await http.get(url)).json()["analysis"]
        if analysed is not None:
            break
        await asyncio.sleep(0.1)
    assert analysed is not None and analysed["decisions"]
    decisions = analysed["decisions"]
    first, last = decisions[0], decisions[-1]
    for lang in ("en", "ru"):
        worded = (await http.get(url, params={"lang": lang})).json()["analysis"]["decisions"]
        page = await open_page(token=players[1].token, lang=lang)
        await page.goto(f"{web}/#/game/{game_id}/replay/1/{first['step']}")
        await _at(page, first["step"])
        await page.wait_for_selector(f"{REPLAY} .analysis[data-analysis=ready] .decision-list")
        # Every decision listed with its verdict and the service's sentence in this language.
        listed = await page.eval_on_selector_all(
            f"{REPLAY} .decision-list button",
            "bs => bs.map(b => [Number(b.dataset.decision), b.dataset.verdict, b.textContent])",
        )
        assert [(s, v) for s, v, _ in listed] == [(d["step"], d["verdict"]) for d in decisions]
        assert all(d["summary"] in text for (_, _, text), d in zip(listed, worded, strict=True))
        head = "Auction, " if lang == "en" else "Торговля, "
        assert worded[0]["summary"].startswith(head)
        # At the step of a decision: its alternatives and their values, the one made marked.
        values = await page.eval_on_selector_all(
            f"{REPLAY} table.options[data-here='{first['step']}'] td",
            "ts => ts.map(t => Number(t.dataset.value))",
        )
        assert values == [o["value"] for o in first["options"]]
        await assert_accessible(page, f"replay decisions {lang}")
        await shoot(page, f"replay-decisions-{lang}")
        # A decision's button takes the replay to the step it was made at.
        await page.click(f"{REPLAY} .decision-list button[data-decision='{last['step']}']")
        await _at(page, last["step"])
        await page.wait_for_selector(f"{REPLAY} table.options[data-here='{last['step']}']")
        await page.close()
