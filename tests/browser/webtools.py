"""What the browser tests share: players driven by the API, their choice of action, and the
page's side of a turn (what the client shows, and clicking it).

The players by API act exactly as any client would: they follow the game's SSE stream, read
their view after each event and send one of its ``legal_actions``.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any

import httpx

Snapshot = dict[str, Any]
Action = dict[str, Any]
Choose = Callable[[Snapshot], Action]

TABLE = "[data-screen=table]"


@dataclass
class Player:
    id: str
    token: str
    name: str

    @property
    def auth(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"}


async def register(http: httpx.AsyncClient, name: str) -> Player:
    response = await http.post("/v1/players", json={"name": name})
    assert response.status_code == 201, response.text
    body = response.json()
    return Player(id=body["id"], token=body["token"], name=body["name"])


def quick_choice(snapshot: Snapshot, *, whist: bool = False, open_play: bool = True) -> Action:
    """A short deal: the first hand bids the lowest bid and the others pass, the declarer takes
    the talon, puts away the first legal discard and plays the bid; a defender passes (or, with
    ``whist``, whists, so that the deal is played out, open when ``open_play``); cards are played
    in the order the service lists them."""
    legal = snapshot["legal_actions"]
    deal = snapshot["view"]["deal"]
    by_type: dict[str, list[Action]] = {}
    for action in legal:
        by_type.setdefault(action["type"], []).append(action)
    if "bid" in by_type or "pass" in by_type:
        first = deal["hands_order"][0] == snapshot["seat"]
        opened = any(call["call"] != "PASS" for call in deal["auction"])
        if first and not opened and "bid" in by_type:
            return by_type["bid"][0]
        return (by_type.get("pass") or by_type["bid"])[0]
    if "whist" in by_type:
        calls = {a["choice"]: a for a in by_type["whist"]}
        return calls["whist" if whist and "whist" in calls else "pass"]
    if "choose_play" in by_type:
        return next(a for a in by_type["choose_play"] if a["open"] == open_play)
    if "declare" in by_type:
        same = [a for a in by_type["declare"] if a["contract"] == deal["bid"]]
        return (same or by_type["declare"])[0]
    for kind in ("look_at_cards", "take_talon", "discard", "play"):
        if kind in by_type:
            return by_type[kind][0]
    return legal[0]


async def snapshot_of(http: httpx.AsyncClient, game_id: str, player: Player) -> Snapshot:
    response = await http.get(f"/v1/games/{game_id}", headers=player.auth)
    assert response.status_code == 200, response.text
    return response.json()


async def act_if_asked(
    http: httpx.AsyncClient, game_id: str, player: Player, choose: Choose = quick_choice
) -> Snapshot:
    """Act while the view lists something to do; the snapshot once it lists nothing."""
    while True:
        snapshot = await snapshot_of(http, game_id, player)
        if not snapshot["legal_actions"]:
            return snapshot
        response = await http.post(
            f"/v1/games/{game_id}/actions",
            json=choose(snapshot),
            headers={**player.auth, "If-Match": f'"{snapshot["version"]}"'},
        )
        assert response.status_code in (200, 412), response.text  # 412: the game moved on


async def follow_and_play(
    http: httpx.AsyncClient, game_id: str, player: Player, choose: Choose = quick_choice
) -> None:
    """Play ``player``'s seat until cancelled: after every event of the stream, act if asked."""
    last = 0
    while True:
        try:
            headers = {**player.auth, "Last-Event-ID": str(last)}
            async with http.stream("GET", f"/v1/games/{game_id}/stream", headers=headers) as sse:
                await act_if_asked(http, game_id, player, choose)
                async for line in sse.aiter_lines():
                    if line.startswith("id:"):
                        last = int(line[3:])
                        await act_if_asked(http, game_id, player, choose)
        except (httpx.TransportError, httpx.StreamError):
            await asyncio.sleep(0.2)


@contextlib.asynccontextmanager
async def api_opponents(
    http: httpx.AsyncClient, game_id: str, names: tuple[str, ...], choose: Choose = quick_choice
) -> AsyncIterator[list[Player]]:
    """Seat one API player per name at ``game_id`` and let each play its seat by ``choose``."""
    players = [await register(http, name) for name in names]
    for player in players:
        joined = await http.post(f"/v1/games/{game_id}/seats", json={}, headers=player.auth)
        assert joined.status_code == 200, joined.text
    tasks = [asyncio.create_task(follow_and_play(http, game_id, p, choose)) for p in players]
    try:
        yield players
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        for task in tasks:
            if not task.cancelled() and task.exception() is not None:
                raise task.exception()  # type: ignore[misc]


async def played_game(http: httpx.AsyncClient, players: list[Player], **body: Any) -> str:
    """A game of ``players`` created and played to its end by API with `quick_choice` (the first
    deal whisted and played out, closed, so that its replay has tricks)."""
    created = await http.post(
        "/v1/games", json={"seats": len(players), "seat": 0, **body}, headers=players[0].auth
    )
    assert created.status_code == 201, created.text
    game_id = created.json()["id"]
    for player in players[1:]:
        joined = await http.post(f"/v1/games/{game_id}/seats", json={}, headers=player.auth)
        assert joined.status_code == 200, joined.text

    def choose(snapshot: Snapshot) -> Action:
        first_deal = snapshot["view"]["deal_no"] == 1
        return quick_choice(snapshot, whist=first_deal, open_play=False)

    for _ in range(2000):
        public = (await http.get(f"/v1/games/{game_id}")).json()
        if public["view"]["status"] == "finished":
            return game_id
        seat = public["view"]["deal"]["to_act"][0]
        await act_if_asked(http, game_id, players[seat], choose)
    raise AssertionError("the game did not finish")


# --- the page's side ------------------------------------------------------------------------


async def table_state(page: Any) -> dict[str, str]:
    """The table screen's data attributes: version, status, phase, myTurn, connection …"""
    return await page.eval_on_selector(TABLE, "e => ({...e.dataset})")


async def wait_for_turn_or_end(page: Any, timeout: float = 30_000) -> dict[str, str]:
    await page.wait_for_function(
        """() => { const s = document.querySelector("[data-screen=table]")?.dataset;
                   return s && (s.myTurn === "true" || s.status === "finished"); }""",
        timeout=timeout,
    )
    return await table_state(page)


async def wait_past(page: Any, version: int, timeout: float = 15_000) -> None:
    await page.wait_for_function(
        """v => Number(document.querySelector("[data-screen=table]")?.dataset.version) > v""",
        arg=version,
        timeout=timeout,
    )


async def page_token(page: Any) -> str:
    token: str = await page.evaluate("localStorage.getItem('preferans.token')")
    return token


def action_selector(action: Action) -> str:
    text = json.dumps(action, separators=(",", ":"), ensure_ascii=False)
    return f"button[data-action='{text}']"


async def shown_controls(page: Any) -> tuple[set[str], list[str]]:
    """The enabled card buttons (their cards) and the enabled action buttons (their JSON)."""
    cards = await page.eval_on_selector_all(
        f"{TABLE} button.card:not(:disabled)", "els => els.map(e => e.dataset.card)"
    )
    actions = await page.eval_on_selector_all(
        f"{TABLE} button[data-action]:not(:disabled)", "els => els.map(e => e.dataset.action)"
    )
    return set(cards), actions


async def act_in_page(page: Any, action: Action, *, keyboard: bool = False) -> None:
    """Do ``action`` the way a person would: click (or focus and press Enter on) what shows it."""
    if action["type"] == "play":
        target = page.locator(f"{TABLE} button.card[data-card='{action['card']}']")
    elif action["type"] == "discard":
        for card in action["cards"]:
            await page.locator(f"{TABLE} button.card[data-card='{card}']").click()
        target = page.locator(f"{TABLE} button[data-action-type=discard]")
    else:
        target = page.locator(action_selector(action))
    if keyboard:
        await target.focus()
        await page.keyboard.press("Enter")
    else:
        await target.click()


async def seated_game(
    http: httpx.AsyncClient, names: tuple[str, ...], **body: Any
) -> tuple[str, list[Player]]:
    """A game with every seat taken by API players (in seat order): its first deal is dealt."""
    players = [await register(http, name) for name in names]
    created = await http.post(
        "/v1/games", json={"seats": len(players), "seat": 0, **body}, headers=players[0].auth
    )
    assert created.status_code == 201, created.text
    game_id = created.json()["id"]
    for player in players[1:]:
        joined = await http.post(f"/v1/games/{game_id}/seats", json={}, headers=player.auth)
        assert joined.status_code == 200, joined.text
    return game_id, players


async def advance(
    http: httpx.AsyncClient,
    game_id: str,
    players: list[Player],
    until: Callable[[Snapshot], bool],
    choose: Choose = quick_choice,
) -> Snapshot:
    """Play every seat by API until ``until`` holds for the snapshot of the seat to act."""
    for _ in range(500):
        public = (await http.get(f"/v1/games/{game_id}")).json()
        seat = public["view"]["deal"]["to_act"][0]
        snapshot = await snapshot_of(http, game_id, players[seat])
        if until(snapshot):
            return snapshot
        response = await http.post(
            f"/v1/games/{game_id}/actions", json=choose(snapshot), headers=players[seat].auth
        )
        assert response.status_code == 200, response.text
    raise AssertionError("never reached")


async def shown(page: Any) -> dict[str, Any]:
    """What the page offers now, read from the page alone: the enabled action buttons (their
    JSON), the enabled cards, whether a discard or a claim control is shown, and how many bids
    this deal's auction has seen."""
    offer: dict[str, Any] = await page.evaluate(
        """() => {
          const table = document.querySelector("[data-screen=table]");
          const enabled = (sel) => [...table.querySelectorAll(sel)].filter((b) => !b.disabled);
          return {
            actions: enabled("button[data-action]").map((b) => JSON.parse(b.dataset.action)),
            cards: enabled("button.card").map((b) => b.dataset.card),
            discard: table.querySelector("button[data-action-type=discard]") !== null,
            claim: table.querySelector("select.claim-tricks") !== null,
            bids: table.querySelectorAll(".panel.auction .calls .bid").length,
          };
        }"""
    )
    return offer


async def click_action(page: Any, action: Action) -> str:
    """Click the button that shows ``action``; its type."""
    await page.click(action_selector(action))
    return str(action["type"])


async def sign_up(page: Any, name: str) -> None:
    """Sign up in the lobby's form (the page is on the lobby)."""
    await page.fill("#reg-name", name)
    await page.click("form.register button[type=submit]")
    await page.wait_for_selector("form.create")
