"""A private table and its invite, through the page alone: the host opens a private table (not
in the lobby), makes an invite link at the table, and a friend with no player yet opens the
link, signs up inline and sits down in one step; both pages are at the same table."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from axetools import assert_accessible
from webtools import TABLE, page_token, sign_up

pytestmark = pytest.mark.integration


async def test_a_friend_without_an_account_joins_a_private_table_from_its_invite_link(
    web: str, open_page: Any, shoot: Any
) -> None:
    host = await open_page()
    await host.goto(web)
    await sign_up(host, "Anna")
    await host.check("form.create input[name=private]")
    await host.check("form.create input[name=friendly]")  # не на рейтинг
    await host.click("form.create button[data-key=open-table]")
    await host.wait_for_selector(f"{TABLE} .panel.seating")
    game_url = host.url
    async with httpx.AsyncClient(base_url=web) as http:
        seen = await http.get(
            f"/v1/games/{game_url.rsplit('/', 1)[1]}",
            headers={"Authorization": f"Bearer {await page_token(host)}"},
        )
    assert seen.json()["view"]["rules"]["table"]["rating_weight"] == 0  # a friendly
    await host.click("button[data-key=invite-make]")
    link = await host.input_value("input.invite-link")
    assert "#/invite/" in link
    await assert_accessible(host, "seating with an invite link")
    await shoot(host, "invite-link-1280", element=".panel.seating")

    # The private table is nowhere in anyone's lobby.
    stranger = await open_page(lang="ru")
    await stranger.goto(web)
    await stranger.wait_for_selector("[data-screen=lobby]")
    game_id = game_url.rsplit("/", 1)[1]
    assert await stranger.locator(f"[data-game='{game_id}'], a[href$='{game_id}']").count() == 0

    friend = await open_page(viewport=(390, 844), mobile=True, lang="ru")
    await friend.goto(link)
    await friend.wait_for_selector("[data-screen=invite] form.invite #invite-name")
    await assert_accessible(friend, "invite ru 390")
    await shoot(friend, "invite-ru-390")
    await friend.fill("#invite-name", "Vera")
    await friend.click("button[data-key=invite-sit]")
    await friend.wait_for_selector(f"{TABLE}")
    assert friend.url.endswith(f"#/game/{game_id}")
    assert (await friend.text_content(".topbar .me")) == "Vera"
    await host.wait_for_function(
        "() => [...document.querySelectorAll('.seat-list strong')]"
        ".some(e => e.textContent === 'Vera')"
    )
