"""The sheet, the log, the bidding grid and the page's accessibility, through the page alone.

Every main screen (the lobby, the table bidding, playing and with a claim, the sheet, the
drawing, the replay, the settlement) is checked with axe-core in both languages, and saved as a
screenshot at 390 and 1280 pixels wide to tests/browser/artifacts/.
"""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
from axetools import assert_accessible
from webtools import (
    TABLE,
    advance,
    played_game,
    quick_choice,
    register,
    seated_game,
    sign_up,
    snapshot_of,
    table_state,
    wait_past,
)

pytestmark = pytest.mark.integration

NAMES = ("Anna", "Vera", "Kolya")
WIDTHS = (1280, 390)
LANGS = ("en", "ru")


async def overflow(page: Any, selector: str) -> list[str]:
    """What makes ``selector`` wider than its box: its scrollWidth over its clientWidth, or a
    descendant reaching past its right edge (the visually hidden ones aside)."""
    found: list[str] = await page.evaluate(
        """(sel) => { const panel = document.querySelector(sel);
             const edge = panel.getBoundingClientRect().right + 1;
             const out = panel.scrollWidth > panel.clientWidth + 1
               ? [`${sel}: ${panel.scrollWidth} > ${panel.clientWidth}`] : [];
             for (const e of panel.querySelectorAll("*")) {
               if (e.closest(".visually-hidden, details:not([open]) > :not(summary)")) continue;
               const right = e.getBoundingClientRect().right;
               if (right > edge) out.push(`${e.tagName}.${e.className}: ${right} > ${edge}`);
             }
             return out; }""",
        selector,
    )
    return found


async def page_fits(page: Any) -> None:
    width = await page.evaluate("document.documentElement.scrollWidth")
    client = await page.evaluate("document.documentElement.clientWidth")
    assert width <= client, f"the page scrolls sideways: {width} > {client}"


async def test_the_finished_game_its_sheet_drawing_and_settlement_fit_and_read_in_both_languages(
    web: str, http: httpx.AsyncClient, open_page: Any, shoot: Any
) -> None:
    players = [await register(http, name) for name in ("Anna Karenina-Vronskaya", "Vera", "Kolya")]
    game_id = await played_game(http, players, seed="sheet", overrides={"pool": {"target": 2}})
    settled = (await snapshot_of(http, game_id, players[0]))["view"]["settlement"]
    for lang in LANGS:
        for width in WIDTHS:
            page = await open_page(viewport=(width, 900), token=players[0].token, lang=lang)
            drawings: list[str] = []  # the sheet.svg the page fetched (it shows them as Blobs)
            page.on("response", lambda r, d=drawings: "/sheet.svg" in r.url and d.append(r.url))
            await page.goto(f"{web}/#/game/{game_id}")
            await page.wait_for_selector("[data-screen=settlement] .settlement-steps li")
            await page.wait_for_selector(".sheet .deal-lines > li", state="attached")
            await page.wait_for_function(  # fetched with the token, shown from a Blob
                "() => { const img = document.querySelector('.sheet img.sheet-svg');"
                " return img?.src.startsWith('blob:') && img.complete; }"
            )
            # Neither the sheet nor the settlement is wider than its panel; nor is the page.
            for panel in (".panel.sheet", ".panel.settlement"):
                assert await overflow(page, panel) == [], (lang, width, panel)
            await page_fits(page)
            # Names, never seat numbers, in every explanation.
            text = await page.inner_text(".panel.sheet")
            text += await page.inner_text(".panel.settlement")
            assert "seat " not in text.lower() and "место " not in text.lower()
            steps = await page.eval_on_selector_all(
                ".settlement-steps li", "items => items.map((li) => li.textContent)"
            )
            assert len(steps) >= 5 and all(p.name in " ".join(steps) for p in players)
            assert str(abs(settled["result"][0])) in steps[-1]
            await assert_accessible(page, f"settlement {lang} {width}")
            await shoot(page, f"settlement-{lang}-{width}")
            await page.click(".sheet .deals summary")
            await shoot(page, f"sheet-{lang}-{width}", element=".panel.sheet")

            # The drawing opens full screen, in the page's language, and zooms.
            await page.click("button.sheet-open")
            dialog = page.locator("dialog.sheet-dialog[open]")
            await dialog.wait_for()
            box = await dialog.bounding_box()
            assert box["width"] >= width * 0.95 and box["height"] >= 900 * 0.9
            src = await page.get_attribute("dialog.sheet-dialog img", "src")
            assert src.startswith("blob:")
            # The drawing the page fetched is in the page's language.
            fetched = [url for url in drawings if f"lang={lang}" in url]
            assert fetched, drawings
            drawn = (await http.get(fetched[-1], headers=players[0].auth)).text
            words = (
                ("Расчёт, в вистах", "висты, пуля, гора")
                if lang == "ru"
                else ("Settlement, in whists", "whists, pool, mountain")
            )
            assert all(word in drawn for word in words), drawn[-800:]
            await page.wait_for_function(
                "() => document.querySelector('dialog.sheet-dialog img').naturalWidth > 0"
            )
            await shoot(page, f"drawing-{lang}-{width}", element="dialog.sheet-dialog")
            before = (await page.locator("dialog.sheet-dialog img").bounding_box())["width"]
            await page.click("dialog.sheet-dialog button.zoom-in")
            after = (await page.locator("dialog.sheet-dialog img").bounding_box())["width"]
            assert after > before * 1.2
            await assert_accessible(page, f"drawing {lang} {width}")
            await page.keyboard.press("Escape")
            await dialog.wait_for(state="detached")
            assert await page.evaluate("document.activeElement.classList.contains('sheet-open')")

            # The replay of the first deal.
            await page.goto(f"{web}/#/game/{game_id}/replay/1/5")
            await page.wait_for_selector("[data-screen=replay][data-loading=false]")
            await page_fits(page)
            said = (await page.inner_text("[data-screen=replay]")).lower()
            assert "seat " not in said and "место " not in said
            await assert_accessible(page, f"replay {lang} {width}")
            await shoot(page, f"replay-{lang}-{width}")
            await page.close()


async def test_a_table_reopened_mid_deal_shows_the_log_and_bids_by_the_grid(
    web: str, http: httpx.AsyncClient, open_page: Any, shoot: Any
) -> None:
    game_id, players = await seated_game(http, NAMES, seed="grid")
    # Vera, the first hand, bids; Kolya passes; Anna (seat 0) is to speak.
    snapshot = await advance(http, game_id, players, until=lambda s: s["seat"] == 0)
    auction = snapshot["view"]["deal"]["auction"]
    assert len(auction) == 2
    legal = snapshot["legal_actions"]
    legal_bids = {a["bid"] for a in legal if a["type"] == "bid" and not a.get("dark")}
    for lang in LANGS:
        for width in WIDTHS:
            page = await open_page(viewport=(width, 900), token=players[0].token, lang=lang)
            drawings: list[str] = []  # the sheet.svg the page fetched (it shows them as Blobs)
            page.on("response", lambda r, d=drawings: "/sheet.svg" in r.url and d.append(r.url))
            await page.goto(f"{web}/#/game/{game_id}")
            await page.wait_for_selector(f"{TABLE}[data-my-turn=true] .bid-grid")
            # The log of the deal so far, rebuilt from the game's events.
            await page.wait_for_function(
                "() => document.querySelectorAll('.log-lines li').length >= 3"
            )
            kinds = await page.eval_on_selector_all(
                ".log-lines li", "ls => ls.map((l) => l.dataset.kind)"
            )
            assert kinds[-1] == "deal_started" and kinds.count("bid_made") == 1
            assert kinds.count("passed") == 1
            log = await page.inner_text(".log-lines")
            assert "Vera" in log and "Kolya" in log
            # The grid: every legal bid enabled, every other one shown and disabled.
            grid = await page.eval_on_selector_all(
                ".bid-grid button.cell",
                """bs => bs.map((b) => [b.dataset.action
                     ? JSON.parse(b.dataset.action).bid ?? 'PASS' : null, b.disabled])""",
            )
            enabled = {bid for bid, disabled in grid if bid and not disabled}
            assert enabled == legal_bids | {"PASS"}
            assert len(grid) == 27  # 5 levels × 5 strains, misère, pass
            await page_fits(page)
            await assert_accessible(page, f"bidding {lang} {width}")
            await shoot(page, f"bidding-{lang}-{width}")
            await page.close()

    # Bid through the grid by keyboard: the lowest legal bid; focus stays on the table's next step.
    page = await open_page(token=players[0].token)
    await page.goto(f"{web}/#/game/{game_id}")
    await page.wait_for_selector(f"{TABLE}[data-my-turn=true] .bid-grid")
    await page.click(f"{TABLE} .sheet summary[data-key=sheet-drawing]")  # kept open on redraws
    first = page.locator(".bid-grid button.action-bid:not(:disabled)").first
    bid = await first.get_attribute("data-action")
    await first.focus()
    version = int((await table_state(page))["version"])
    await page.keyboard.press("Enter")
    await wait_past(page, version)
    after = await snapshot_of(http, game_id, players[0])
    assert after["view"]["deal"]["auction"][-1]["seat"] == 0
    assert after["view"]["deal"]["auction"][-1]["call"] == json.loads(bid)["bid"]
    assert await page.eval_on_selector(f"{TABLE} .sheet details", "d => d.open")
    focused = await page.evaluate("document.activeElement === document.body")
    assert not focused, "after the bid the focus fell to the page's body"


async def test_the_lobby_and_the_table_in_play_are_accessible_and_sign_up_focuses_the_lobby(
    web: str, http: httpx.AsyncClient, open_page: Any, shoot: Any
) -> None:
    for lang in LANGS:
        for width in WIDTHS:
            page = await open_page(viewport=(width, 900), lang=lang)
            await page.goto(web + "/")
            await page.wait_for_selector("form.register")
            await assert_accessible(page, f"sign-up {lang} {width}")
            await sign_up(page, f"Anna {lang}{width}")
            await page.wait_for_function("() => document.activeElement !== document.body")
            focus = await page.evaluate(
                """() => { const e = document.activeElement;
                     return [e.tagName, !!e.closest('[data-screen=lobby]')]; }"""
            )
            assert focus[1] and focus[0] in ("INPUT", "SELECT", "BUTTON"), focus
            first = await page.evaluate(
                """() => document.querySelector("[data-screen=lobby]").querySelector(
                     "button:not(:disabled), input, select") === document.activeElement"""
            )
            assert first
            await page_fits(page)
            await assert_accessible(page, f"lobby {lang} {width}")
            await shoot(page, f"lobby-{lang}-{width}")
            await page.click("a[data-nav=account]")
            await page.wait_for_selector("[data-screen=account] form.setup")
            await page_fits(page)
            await assert_accessible(page, f"account {lang} {width}")
            await shoot(page, f"account-{lang}-{width}")
            await page.close()

    # The table in play, and with a claim to answer.
    game_id, players = await seated_game(http, NAMES, seed="axe play")

    def whisted(snapshot: dict[str, Any]) -> dict[str, Any]:
        return quick_choice(snapshot, whist=True, open_play=False)

    await advance(
        http, game_id, players, choose=whisted,
        until=lambda s: s["seat"] == 0 and any(a["type"] == "play" for a in s["legal_actions"]),
    )  # fmt: skip
    for lang in LANGS:
        for width in WIDTHS:
            page = await open_page(viewport=(width, 900), token=players[0].token, lang=lang)
            drawings: list[str] = []  # the sheet.svg the page fetched (it shows them as Blobs)
            page.on("response", lambda r, d=drawings: "/sheet.svg" in r.url and d.append(r.url))
            await page.goto(f"{web}/#/game/{game_id}")
            await page.wait_for_selector(
                f"{TABLE}[data-my-turn=true] .hand.mine button.card:not(:disabled)"
            )
            await page_fits(page)
            await assert_accessible(page, f"play {lang} {width}")
            await shoot(page, f"play-{lang}-{width}")
            await page.close()

    # A card played by keyboard: focus goes on to the table, never back to the page's body.
    page = await open_page(token=players[0].token)
    await page.goto(f"{web}/#/game/{game_id}")
    card = page.locator(f"{TABLE} .hand.mine button.card:not(:disabled)").first
    await card.wait_for()
    played = await card.get_attribute("data-card")
    await card.focus()
    version = int((await table_state(page))["version"])
    await page.keyboard.press("Enter")
    await wait_past(page, version)
    assert played not in (await snapshot_of(http, game_id, players[0]))["view"]["deal"]["hand"]
    where = await page.evaluate(
        "() => document.activeElement.closest('[data-screen=table]') !== null"
    )
    assert where, "after the card the focus left the table"
    await page.close()

    # A claim to answer: another seat claims by API; the page shows the claim panel.
    claimer = await advance(
        http, game_id, players, choose=whisted,
        until=lambda s: s["seat"] != 0 and any(a["type"] == "claim" for a in s["legal_actions"]),
    )  # fmt: skip
    tricks = max(a["tricks"] for a in claimer["legal_actions"] if a["type"] == "claim")
    made = await http.post(
        f"/v1/games/{game_id}/actions",
        json={"type": "claim", "tricks": tricks},
        headers=players[claimer["seat"]].auth,
    )
    assert made.status_code == 200, made.text
    for lang in LANGS:
        for width in WIDTHS:
            page = await open_page(viewport=(width, 900), token=players[0].token, lang=lang)
            drawings: list[str] = []  # the sheet.svg the page fetched (it shows them as Blobs)
            page.on("response", lambda r, d=drawings: "/sheet.svg" in r.url and d.append(r.url))
            await page.goto(f"{web}/#/game/{game_id}")
            await page.wait_for_selector(f"{TABLE} .claim-panel")
            await page.wait_for_selector(f"{TABLE} button[data-action-type=answer_claim]")
            await page_fits(page)
            await assert_accessible(page, f"claim {lang} {width}")
            await shoot(page, f"claim-{lang}-{width}")
            await page.close()
