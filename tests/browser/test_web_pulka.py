"""A whole pulka played through the page: sign up, open a table, play every turn in the browser.

The other two seats are API clients playing their legal actions. When the service can seat bots,
the `OPPONENTS` line below becomes the server's bots and nothing else here changes.
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from webtools import (
    TABLE,
    Player,
    act_in_page,
    api_opponents,
    page_token,
    quick_choice,
    shown_controls,
    snapshot_of,
    table_state,
    wait_for_turn_or_end,
    wait_past,
)

pytestmark = pytest.mark.integration

OPPONENTS = api_opponents  # later: the service's bots, seated at the table's two other seats
POOL = 2


def page_choice(snapshot: dict[str, Any]) -> dict[str, Any]:
    """The page player's plan: whist the first deal and play it open (so the page plays the
    passer's open hand too); afterwards the same short deals as everyone else."""
    return quick_choice(snapshot, whist=snapshot["view"]["deal_no"] == 1, open_play=True)


async def test_a_whole_pulka_is_played_through_the_page(
    web: str, http: httpx.AsyncClient, open_page: Any, shoot: Any
) -> None:
    page = await open_page()
    await page.goto(web + "/")

    # Sign up and open a table: Sochi to a pool of 2, seeded deals, the creator seated.
    await page.fill("#reg-name", "Anna")
    await page.click("form.register button[type=submit]")
    await page.wait_for_selector("form.create")
    await page.fill("#target", str(POOL))
    await page.click("form.create summary")
    await page.fill("#seed", "browser-pulka")
    await shoot(page, "lobby")
    await page.click("form.create button[data-key=open-table]")
    await page.wait_for_selector(f"{TABLE}[data-status=seating]")
    game_id = page.url.rsplit("/", 1)[-1]
    me = Player(id="", token=await page_token(page), name="Anna")
    # Someone without a seat (or a name) watches the same table.
    spectator = await open_page()
    await spectator.goto(page.url)

    played = {"cards": 0, "types": set()}
    async with OPPONENTS(http, game_id, ("Vera", "Kolya")):
        # The page learns from its stream that the table filled and the cards were dealt.
        await page.wait_for_selector(f"{TABLE}[data-status=playing]")
        for _ in range(400):
            state = await wait_for_turn_or_end(page)
            if state["status"] == "finished":
                break
            snapshot = await snapshot_of(http, game_id, me)
            legal = snapshot["legal_actions"]
            assert legal, "the page says it is our turn, the service lists nothing to do"

            # Only what legal_actions lists is clickable: every legal card and no other.
            cards, buttons = await shown_controls(page)
            discards = [a for a in legal if a["type"] == "discard"]
            if discards:
                assert cards == {c for a in discards for c in a["cards"]}
            else:
                assert cards == {a["card"] for a in legal if a["type"] == "play"}
            assert sorted(buttons) == sorted(
                _json(a) for a in legal if a["type"] not in ("play", "discard", "claim")
            )
            # A claim is one control, a number of tricks, offering exactly the legal ones.
            claims = sorted(a["tricks"] for a in legal if a["type"] == "claim")
            offered = await page.eval_on_selector_all(
                f"{TABLE} select.claim-tricks option", "os => os.map(o => Number(o.value))"
            )
            assert sorted(offered) == claims

            action = page_choice(snapshot)
            if action["type"] == "play" and played["cards"] == 4:
                await shoot(page, "table")  # mid-deal, the passer's hand open
                # The spectator sees the same table, face down but for the open hands, and
                # can do nothing.
                await spectator.wait_for_selector(f"{TABLE}[data-version='{snapshot['version']}']")
                assert await spectator.inner_text(f"{TABLE} .chip:has-text('Watching')")
                assert await shown_controls(spectator) == (set(), [])
                assert await spectator.locator(f"{TABLE} .hand.mine").count() == 0
                public = (await http.get(f"/v1/games/{game_id}")).json()["view"]["deal"]
                shown = await spectator.locator(f"{TABLE} .hand.open .card").count()
                assert shown == sum(len(h or ()) for h in public["open_hands"]) > 0
            # Every other card goes by keyboard: focus it and press Enter.
            await act_in_page(
                page, action, keyboard=action["type"] == "play" and played["cards"] % 2 == 1
            )
            played["cards"] += action["type"] == "play"
            played["types"].add(action["type"])
            await wait_past(page, snapshot["version"])
        else:
            pytest.fail("the pulka did not end")

    # Everything a deal needs went through the page: bidding, talon, discard, whist, play.
    assert {
        "bid",
        "pass",
        "take_talon",
        "discard",
        "declare",
        "whist",
        "choose_play",
        "play",
    } <= played["types"]
    assert played["cards"] >= 10

    final = await snapshot_of(http, game_id, me)
    results = final["view"]["settlement"]["result"]
    assert sum(results) == 0
    await page.wait_for_selector("[data-screen=settlement]")
    rows = await page.eval_on_selector_all(
        "[data-screen=settlement] tbody tr", "rows => rows.map(r => Number(r.dataset.result))"
    )
    assert sorted(rows) == sorted(results)

    # The sheet caught up with the end of the game: every deal, entry by entry.
    deals = final["view"]["deal_no"]
    await page.wait_for_function(
        "n => document.querySelectorAll('.sheet .deal-lines > li').length === n", arg=deals
    )
    await shoot(page, "settlement")
    await page.click(".sheet details.deals summary")  # the deals, entry by entry
    await shoot(page, "sheet", element=".panel.sheet")
    state = await table_state(page)
    assert state["status"] == "finished"
    await spectator.wait_for_selector("[data-screen=settlement]")


def _json(action: dict[str, Any]) -> str:
    import json

    return json.dumps(action, separators=(",", ":"), ensure_ascii=False)
