"""Tournaments in the page: an organiser creates an event through the form (a refusal shown
first), registers, sees the others' registrations arrive live, starts round 1, sees the
standings and the round's protocol with its table, pauses the table from the arbiter's console
and reads the decision, with its reason, in the log; the list and a player's profile show the
event. A robot duplicate's "play my run" opens the run's table, whose pool sheet is drawn (fetched
with the player's token past the duplicate embargo). A team event is created by the form, a
captain registers his
team and names its lineup from the page, and the arbiter starts a round with his own pairing
(a refused one first) and picks a substitute from the entrants. Every screen is checked with
axe (no serious or critical violation)."""

from __future__ import annotations

import time
from typing import Any

import httpx
import pytest
from axetools import assert_accessible
from webtools import register

pytestmark = pytest.mark.integration

LIST = "[data-screen=tournaments]"
EVENT = "[data-screen=tournament]"
HOUR = 3_600_000


async def test_an_event_is_created_run_and_arbitrated_through_the_page(
    web: str, http: httpx.AsyncClient, open_page: Any, shoot: Any
) -> None:
    organiser = await register(http, "Organiser")
    others = [await register(http, name) for name in ("Boris", "Vera")]
    # The refusals the test brings about are logged by the browser as failed requests.
    page = await open_page(token=organiser.token, expected=("status of 422", "status of 409"))
    await page.goto(f"{web}/#/tournaments")
    await page.wait_for_selector(f"{LIST}[data-loading=false]")
    await assert_accessible(page, "the tournaments' list")

    # A registration that closes before it opens is refused, in the service's words.
    await page.fill("#t-name", "Browser cup")
    await page.fill("#t-rounds", "1")
    await page.fill("#t-amount", "1")
    opens = await page.input_value("#t-opens")
    await page.fill("#t-closes", opens)
    await page.click("button[data-key=create-tournament]")
    refusal = page.locator("[data-key=create-error] p")
    await refusal.wait_for()
    assert "close after it opens" in (await refusal.text_content() or "")
    await page.fill("#t-closes", "2099-01-01T12:00")
    await page.fill("#t-weight", "150")
    await page.click("button[data-key=create-tournament]")
    await page.wait_for_selector(f"{EVENT}[data-loading=false][data-status=registering]")
    tid = (await page.evaluate("location.hash")).split("/")[2]
    view = (await http.get(f"/v1/tournaments/{tid}")).json()
    assert view["name"] == "Browser cup" and view["organiser"] == organiser.id
    assert view["format"]["rounds"] == 1 and view["format"]["length"] == {
        "kind": "deals", "deals": 1, "pool_target": 10, "minutes": 0, "on_time": "finish_deal",
    }  # fmt: skip
    assert await page.locator(f"{EVENT} [data-rule=length]").text_content() == "deals: 1"
    assert view["format"]["rating_weight"] == 150
    assert "150%" in (await page.locator(f"{EVENT} [data-rule=rating]").text_content() or "")
    assert await page.locator(f"{EVENT} [data-panel=arbiter]").count() == 1

    # The organiser registers by the page; the others by the API arrive through the stream.
    await page.click(f"{EVENT} button[data-key=register]")
    await page.wait_for_selector(f"{EVENT} [data-entrant=registered]")
    for p in others:
        joined = await http.post(f"/v1/tournaments/{tid}/registrations", headers=p.auth)
        assert joined.status_code == 200, joined.text
    await page.wait_for_selector(f"{EVENT} [data-entrants='3']", timeout=10_000)
    assert await page.locator(f"{EVENT} [data-standing]").count() == 3
    await assert_accessible(page, "an event while registering")

    # Round 1 started from the console: its table, with a link to its game, and the standings.
    await page.click(f"{EVENT} button[data-key=start-round]")
    row = "[data-round='1'] tr[data-table='1']:not([data-game=''])"
    await page.wait_for_selector(f"{EVENT}[data-status=running] {row}", timeout=10_000)
    game = await page.get_attribute(f"{EVENT} {row}", "data-game")
    view = (await http.get(f"/v1/tournaments/{tid}")).json()
    (table,) = view["rounds"][0]["tables"]
    assert game == table["game_id"]
    assert (
        await page.locator(f"{EVENT} a[data-key=my-table]").get_attribute("href")
        == f"#/game/{game}"
    )
    seated = await page.eval_on_selector_all(
        f"{EVENT} [data-round='1'] tr[data-table='1'] [data-player]",
        "as => as.map(a => a.dataset.player)",
    )
    assert seated == table["seating"]
    # A visitor who did not register is offered no registration: the event takes no late entry.
    visitor = await open_page(token=(await register(http, "Visitor")).token)
    await visitor.goto(f"{web}/#/tournaments/{tid}")
    await visitor.wait_for_selector(f"{EVENT}[data-loading=false][data-status=running]")
    assert await visitor.locator(f"{EVENT} button[data-key=register]").count() == 0
    await visitor.close()
    # While the round's table plays, the console offers no start (the service would refuse it).
    assert await page.locator(f"{EVENT} button[data-key=start-round]").count() == 0

    # The arbiter pauses the table, with a reason; the log shows the decision and the reason.
    await page.click(f"{EVENT} details[data-decision=pause_table] summary")
    await page.fill("#arb-pause_table-reason", "a dispute over the talon")
    await page.click(f"{EVENT} button[data-key='decide:pause_table']")
    decided = page.locator(f"{EVENT} li[data-log-type=table_paused]")
    await decided.wait_for(timeout=10_000)
    assert "a dispute over the talon" in (await decided.text_content() or "")
    await page.wait_for_selector(f"{EVENT} tr[data-table='1'][data-state=paused]")
    log = (await http.get(f"/v1/tournaments/{tid}/log")).json()["items"]
    assert [i["event"]["reason"] for i in log if i["type"] == "table_paused"] == [
        "a dispute over the talon"
    ]
    # Pausing it again is refused; the refusal is shown in the form.
    await page.click(f"{EVENT} details[data-decision=pause_table] summary")
    await page.click(f"{EVENT} details[data-decision=pause_table] summary")
    await page.fill("#arb-pause_table-reason", "again")
    await page.click(f"{EVENT} button[data-key='decide:pause_table']")
    await page.wait_for_selector(
        f"{EVENT} [data-arbiter-form=pause_table] [data-problem='illegal.table_paused']"
    )
    await assert_accessible(page, "an event running, with the arbiter's console")
    await shoot(page, "tournament")

    # The list shows it running with its field; the filter leaves out the others.
    await page.goto(f"{web}/#/tournaments")
    await page.wait_for_selector(
        f"{LIST}[data-loading=false] tr[data-tournament='{tid}'][data-status=running]"
    )
    assert (
        await page.locator(f"{LIST} tr[data-tournament='{tid}'] [data-entrants]").text_content()
        == "3"
    )
    await shoot(page, "tournaments")
    await page.click(f"{LIST} button[data-key='filter:finished']")
    await page.wait_for_selector(
        f"{LIST}[data-loading=false] button[data-filter=finished][aria-pressed=true]"
    )
    assert await page.locator(f"{LIST} tr[data-tournament='{tid}']").count() == 0

    # A player's profile lists the tournaments he played a table of.
    await page.goto(f"{web}/#/player/{others[0].id}")
    await page.wait_for_selector(f"[data-panel=tournaments] li[data-tournament='{tid}']")
    await assert_accessible(page, "a profile with its tournaments")


async def test_a_robot_duplicate_run_is_played_from_the_page(
    web: str, http: httpx.AsyncClient, open_page: Any, shoot: Any
) -> None:
    organiser, player = await register(http, "Host"), await register(http, "Soloist")
    now = int(time.time() * 1000)
    fmt = {"rounds": 1, "uneven": "byes", "length": {"kind": "deals", "deals": 3},
           "duplicate": {"deals_per_round": 3, "robots": {"level": "basic"}},
           "registration": {"opens_at": now - 1000, "closes_at": now + HOUR}}  # fmt: skip
    created = await http.post("/v1/tournaments", json={"name": "Robots", "format": fmt},
                              headers=organiser.auth)  # fmt: skip
    assert created.status_code == 201, created.text
    tid = created.json()["id"]
    # No request of the page is refused: the pool sheet's drawing of a duplicate table (which
    # the embargo shows to its own players only) is fetched with the player's token.
    page = await open_page(token=player.token, lang="ru")
    await page.goto(f"{web}/#/tournaments/{tid}")
    await page.wait_for_selector(f"{EVENT}[data-loading=false] [data-panel=runs]")
    assert await page.locator(f"{EVENT} [data-panel=arbiter]").count() == 0  # not his event
    await page.click(f"{EVENT} button[data-key=register]")
    await page.click(f"{EVENT} button[data-key=play-run]")
    await page.wait_for_selector("[data-screen=table]")
    game = (await page.evaluate("location.hash")).split("/")[2]
    # The sheet's drawing is shown from the SVG fetched with the token; without it, refused.
    drawn = await page.wait_for_function(
        "() => { const img = document.querySelector('[data-screen=table] img.sheet-svg');"
        " return img && img.src.startsWith('blob:') && img.complete && img.naturalWidth > 0"
        " && img.src; }",
        timeout=15_000,
    )
    assert (await drawn.json_value()).startswith("blob:")
    refused = await http.get(f"/v1/games/{game}/sheet.svg")
    assert refused.status_code == 403 and refused.json()["code"] == "duplicate_embargo"
    drawing = page.locator("[data-screen=table] summary[data-key=sheet-drawing]")
    if await drawing.count():  # a narrow table page keeps the drawing folded
        await drawing.first.click()
    await shoot(page, "tournament-robot-table")
    view = (await http.get(f"/v1/tournaments/{tid}")).json()
    assert [r["game_id"] for r in view["runs"]] == [game]
    await page.goto(f"{web}/#/tournaments/{tid}")
    await page.wait_for_selector(f"{EVENT}[data-loading=false]")
    await page.wait_for_selector(f"{EVENT} a[data-key=my-run][href='#/game/{game}']")
    await page.wait_for_selector(f"{EVENT} li[data-log-type=robot_run_started]")
    await assert_accessible(page, "a robot duplicate with a run")
    await shoot(page, "tournament-robot")


async def test_a_team_event_lineups_and_the_arbiters_own_pairing_through_the_page(
    web: str, http: httpx.AsyncClient, open_page: Any, shoot: Any
) -> None:
    organiser = await register(http, "Arbiter")
    captain = await register(http, "Captain")
    # The organiser creates a team event through the list's form.
    arbiter = await open_page(token=organiser.token, expected=("status of 409",))
    await arbiter.goto(f"{web}/#/tournaments")
    await arbiter.wait_for_selector(f"{LIST}[data-loading=false]")
    await arbiter.fill("#t-name", "Teams")
    await arbiter.fill("#t-rounds", "2")
    await arbiter.fill("#t-amount", "1")
    await arbiter.fill("#t-closes", "2099-01-01T12:00")
    await arbiter.check("input[name=t-teams]")
    await arbiter.click("button[data-key=create-tournament]")
    await arbiter.wait_for_selector(f"{EVENT}[data-loading=false] [data-rule=teams]")
    tid = (await arbiter.evaluate("location.hash")).split("/")[2]
    assert (await http.get(f"/v1/tournaments/{tid}")).json()["format"]["teams"] == {
        "min_size": 3, "max_size": 5, "playing": 3,
    }  # fmt: skip

    # The captain registers his team through the page; the rest join by the API.
    page = await open_page(token=captain.token, expected=("status of 409",))
    await page.goto(f"{web}/#/tournaments/{tid}")
    await page.wait_for_selector(f"{EVENT}[data-loading=false] [data-panel=teams]")
    await page.fill("#register-team", "North")
    await page.click(f"{EVENT} button[data-key=register]")
    await page.wait_for_selector(f"{EVENT} [data-panel=teams] tr[data-team=North]")
    north = [captain] + [await register(http, f"North {i}") for i in (2, 3, 4)]
    south = [await register(http, f"South {i}") for i in (1, 2, 3)]
    east = [await register(http, f"East {i}") for i in (1, 2, 3)]
    for team, members in (("North", north[1:]), ("South", south), ("East", east)):
        for p in members:
            joined = await http.post(
                f"/v1/tournaments/{tid}/registrations", json={"team": team}, headers=p.auth
            )
            assert joined.status_code == 200, joined.text
    form = f"{EVENT} form[data-lineup-form=North]"
    await page.wait_for_selector(f"{form} input[value='{north[3].id}']", timeout=10_000)
    # Every registration shown first: a change of the teams rebuilds the lineup forms.
    await page.wait_for_selector(f"{EVENT} li[data-member='{east[2].id}']", timeout=10_000)
    assert await page.locator(f"{EVENT} form[data-lineup-form]").count() == 1  # his team only
    # Two ticked is refused in the form; then the fourth member in for the second.
    await page.uncheck(f"{form} input[value='{north[1].id}']")
    # Another team's change (a fourth member for South, who then withdraws) reaches the page
    # and leaves the captain's half-made choice alone.
    fourth = await register(http, "South 4")
    joined = await http.post(
        f"/v1/tournaments/{tid}/registrations", json={"team": "South"}, headers=fourth.auth
    )
    assert joined.status_code == 200, joined.text
    await page.wait_for_selector(f"{EVENT} li[data-member='{fourth.id}']", timeout=10_000)
    assert not await page.is_checked(f"{form} input[value='{north[1].id}']")
    left = await http.delete(f"/v1/tournaments/{tid}/registrations", headers=fourth.auth)
    assert left.status_code in (200, 204), left.text
    version = (await http.get(f"/v1/tournaments/{tid}")).json()["version"]
    await page.wait_for_selector(f"{EVENT}[data-version='{version}']", timeout=10_000)
    assert not await page.is_checked(f"{form} input[value='{north[1].id}']")
    await page.click(f"{form} button[type=submit]")
    await page.wait_for_selector(f"{form} [data-problem='illegal.bad_lineup']")
    await page.check(f"{form} input[value='{north[3].id}']")
    await page.click(f"{form} button[type=submit]")
    playing = f"{EVENT} tr[data-team=North] li[data-member='{north[3].id}'][data-playing=true]"
    await page.wait_for_selector(playing, timeout=10_000)
    await page.wait_for_selector(f"{EVENT} li[data-log-type=lineup_named]")
    await assert_accessible(page, "a team event with the captain's lineup form")
    view = (await http.get(f"/v1/tournaments/{tid}")).json()
    lineup = next(t["lineup"] for t in view["teams"] if t["team"] == "North")
    assert set(lineup) == {north[0].id, north[2].id, north[3].id}

    # The arbiter's own pairing: everyone at one table is refused, in the service's words.
    await arbiter.wait_for_selector(  # the console, rebuilt with the lineups as they are now
        f"{EVENT} [data-pairing-player='{north[3].id}']", state="attached"
    )
    await arbiter.click(f"{EVENT} details[data-decision=pairing] summary")
    field = [north[0], north[2], north[3], *south, *east]
    assert await arbiter.locator(f"{EVENT} [data-pairing-player]").count() == 9
    for p in field:
        await arbiter.select_option(f"{EVENT} [data-pairing-player='{p.id}']", "1")
    await arbiter.click(f"{EVENT} button[data-key=start-pairing]")
    await arbiter.wait_for_selector(
        f"{EVENT} [data-arbiter-form=pairing] [data-problem='illegal.bad_pairing']"
    )
    await assert_accessible(arbiter, "the arbiter's own pairing, refused")
    await shoot(arbiter, "tournament-pairing", element=f"{EVENT} [data-panel=arbiter]")
    # Then each team's players spread over three tables, one of each team at every table.
    tables = [[north[0], south[0], east[0]], [north[2], south[1], east[1]],
              [north[3], south[2], east[2]]]  # fmt: skip
    for n, members in enumerate(tables, start=1):
        for p in members:
            await arbiter.select_option(f"{EVENT} [data-pairing-player='{p.id}']", str(n))
    await arbiter.click(f"{EVENT} button[data-key=start-pairing]")
    await arbiter.wait_for_selector(f"{EVENT}[data-status=running] [data-round='1']")
    view = (await http.get(f"/v1/tournaments/{tid}")).json()
    seated = [sorted(t["seating"]) for t in view["rounds"][0]["tables"]]
    assert sorted(seated) == sorted(sorted(p.id for p in members) for members in tables)
    log = (await http.get(f"/v1/tournaments/{tid}/log")).json()["items"]
    assert [i["event"]["pairing"] for i in log if i["type"] == "round_started"] == ["arbiter"]

    # A substitute is chosen from the entrants: North's fourth, who sits out, for its captain.
    await arbiter.click(f"{EVENT} details[data-decision=replace_player] summary")
    await arbiter.select_option("#arb-replace_player-player", north[0].id)
    await arbiter.select_option("#arb-replace_player-substitute", north[1].id)
    await arbiter.fill("#arb-replace_player-reason", "the captain was called away")
    await arbiter.click(f"{EVENT} button[data-key='decide:replace_player']")
    await arbiter.wait_for_selector(f"{EVENT} li[data-log-type=player_replaced]", timeout=10_000)
    replaced = next(
        i["event"] for i in (await http.get(f"/v1/tournaments/{tid}/log")).json()["items"]
        if i["type"] == "player_replaced"
    )  # fmt: skip
    assert (replaced["player"], replaced["substitute"]) == (north[0].id, north[1].id)
    await assert_accessible(arbiter, "the arbiter's console of a team event")
    await shoot(arbiter, "tournament-teams")
