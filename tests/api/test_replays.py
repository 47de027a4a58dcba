"""A replayed command answers byte for byte what its first execution answered.

The key row keeps only what the command decided (`service.eventlog.store.Decision`); the API
renders the response again from it and from the log at the command's version. So each keyed
command kind is sent twice (and again after the game moved on) and the two answers compared
whole: status, every header but the replay's own mark and the request's id, and the body.
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from apitools import make_app, register, seated_game
from litestar.testing import AsyncTestClient

pytestmark = pytest.mark.integration

PER_REQUEST = {"idempotent-replayed", "x-request-id", "date"}
"""Headers a replay may differ in: its own mark, and what every request gets anew."""


def answer(response: httpx.Response) -> tuple[int, list[tuple[str, str]], bytes]:
    headers = [(k, v) for k, v in response.headers.multi_items() if k not in PER_REQUEST]
    return response.status_code, headers, response.content


async def twice(
    client: httpx.AsyncClient, url: str, headers: dict[str, str], body: Any = None
) -> tuple[httpx.Response, httpx.Response]:
    first = await client.post(url, json=body, headers=headers)
    again = await client.post(url, json=body, headers=headers)
    assert "idempotent-replayed" not in first.headers, first.text
    assert again.headers["idempotent-replayed"] == "true"
    assert answer(again) == answer(first)
    return first, again


async def replayed(
    client: httpx.AsyncClient, url: str, headers: dict[str, str], first: httpx.Response,
    body: Any = None,
) -> None:  # fmt: skip
    again = await client.post(url, json=body, headers=headers)
    assert again.headers.get("idempotent-replayed") == "true", (again.status_code, again.text)
    assert answer(again) == answer(first)


async def _view(client: httpx.AsyncClient, game_id: str, auth: dict[str, str]) -> dict[str, Any]:
    response = await client.get(f"/v1/games/{game_id}", headers=auth)
    assert response.status_code == 200
    return response.json()


async def test_every_keyed_command_replays_its_first_answer_byte_for_byte(
    client: httpx.AsyncClient,
) -> None:
    creator, second, third = [await register(client, name) for name in ("C", "S", "T")]
    key = {"Idempotency-Key": "create-1"}
    created, _ = await twice(client, "/v1/games", {**creator.auth, **key}, {"seat": 0, "seed": "r"})
    assert created.status_code == 201 and created.headers["location"]
    game_id = created.json()["id"]

    seat_url = f"/v1/games/{game_id}/seats"
    join_key = {**second.auth, "Idempotency-Key": "join-1"}
    joined, _ = await twice(client, seat_url, join_key, {"seat": 1})

    invited = await client.post(f"/v1/games/{game_id}/invites", json={}, headers=creator.auth)
    assert invited.status_code == 201, invited.text
    invite_url = f"/v1/invites/{invited.json()['code']}/seats"
    invite_key = {**third.auth, "Idempotency-Key": "invite-1"}
    by_invite, _ = await twice(client, invite_url, invite_key, {})
    assert len(by_invite.json()["view"]["deal"]["hand"]) == 10  # the last seat: dealt

    players = [creator, second, third]
    view = await _view(client, game_id, creator.auth)
    actions = f"/v1/games/{game_id}/actions"
    to_act = view["view"]["deal"]["to_act"][0]
    waiting = (to_act + 1) % 3
    refusal_key = {**players[waiting].auth, "Idempotency-Key": "refused-1"}
    refused, _ = await twice(client, actions, refusal_key, {"type": "pass"})
    assert refused.status_code == 409

    bid_key = {**players[to_act].auth, "Idempotency-Key": "bid-1"}
    first_bid, _ = await twice(client, actions, bid_key, {"type": "pass"})

    # The game moves on; every replay still answers as of its command's version.
    for _ in range(40):
        state = await _view(client, game_id, creator.auth)
        deal = state["view"].get("deal") or {}
        if not deal.get("to_act"):
            break
        seat = deal["to_act"][0]
        seen = await _view(client, game_id, players[seat].auth)
        legal = seen["legal_actions"]
        move = next((a for a in legal if a["type"] == "play"), legal[0])
        key = {**players[seat].auth, "Idempotency-Key": f"move-{seen['version']}"}
        moved, _ = await twice(client, actions, key, move)
        if move["type"] == "play":
            card_key, card_move, card_answer = key, move, moved
            break
    else:
        pytest.fail("no card was played")

    abandon = f"/v1/games/{game_id}/abandon"
    abandon_key = {**third.auth, "Idempotency-Key": "abandon-1"}
    await twice(client, abandon, abandon_key)

    bots_url = f"/v1/games/{game_id}/bots"
    # (every seat is taken: a refusal, keyed, replayed as one)
    await twice(client, bots_url, {**creator.auth, "Idempotency-Key": "bot-1"}, {})

    for url, headers, first, body in (
        ("/v1/games", {**creator.auth, "Idempotency-Key": "create-1"}, created,
         {"seat": 0, "seed": "r"}),
        (seat_url, join_key, joined, {"seat": 1}),
        (invite_url, invite_key, by_invite, {}),
        (actions, refusal_key, refused, {"type": "pass"}),
        (actions, bid_key, first_bid, {"type": "pass"}),
        (actions, card_key, card_answer, card_move),
    ):  # fmt: skip
        await replayed(client, url, headers, first, body)


async def test_a_seated_bot_and_a_left_seat_replay_byte_for_byte(
    client: httpx.AsyncClient,
) -> None:
    creator, other = await register(client, "C"), await register(client, "O")
    created = await client.post("/v1/games", json={"seat": 0}, headers=creator.auth)
    game_id = created.json()["id"]
    joined = await client.post(f"/v1/games/{game_id}/seats", json={}, headers=other.auth)
    assert joined.status_code == 200
    leave = f"/v1/games/{game_id}/leave"
    left, _ = await twice(client, leave, {**other.auth, "Idempotency-Key": "leave-1"})
    assert left.status_code == 200
    bots_url = f"/v1/games/{game_id}/bots"
    bot_key = {**creator.auth, "Idempotency-Key": "bot-1"}
    seated, _ = await twice(client, bots_url, bot_key, {"level": "random"})
    assert seated.status_code == 200
    # A second bot deals the cards (and the bots may play on): the replays stay as they were.
    await client.post(bots_url, json={"level": "random"}, headers=creator.auth)
    await replayed(client, bots_url, bot_key, seated, {"level": "random"})
    await replayed(client, leave, {**other.auth, "Idempotency-Key": "leave-1"}, left)


async def test_a_keyed_command_replays_after_a_restart_once_its_game_is_over(
    client: httpx.AsyncClient, database_dsn: str
) -> None:
    """Issue 21, finding 8: after a restart the deal source is read from ``api.deal_source``,
    which answers nothing for a finished game; the keyed replay was refused with 404
    game-not-found before its key was looked at, instead of answering its stored 200."""
    game_id, players = await seated_game(client, overrides={"pool": {"max_deals": 1}})
    actions = f"/v1/games/{game_id}/actions"
    answered: list[tuple[dict[str, str], dict[str, Any], httpx.Response]] = []
    for _ in range(60):
        state = await _view(client, game_id, players[0].auth)
        if state["view"]["status"] == "finished":
            break
        seat = state["view"]["deal"]["to_act"][0]
        seen = await _view(client, game_id, players[seat].auth)
        legal = seen["legal_actions"]
        move = next((a for a in legal if a["type"] == "pass"), legal[0])  # an all-pass: quick
        key = {**players[seat].auth, "Idempotency-Key": f"move-{seen['version']}"}
        moved = await client.post(actions, json=move, headers=key)
        assert moved.status_code == 200, moved.text
        answered.append((key, move, moved))
    else:
        pytest.fail("the deal did not end")
    # A new process on the same database: nothing of the game is in its memory.
    async with AsyncTestClient(make_app(database_dsn)) as restarted:
        for key, move, first in (answered[0], answered[-1]):
            await replayed(restarted, actions, key, first, move)
        # And a new command to the finished game is refused by the rules, not as unknown.
        key, move, _ = answered[-1]
        again = await restarted.post(actions, json=move, headers=players[0].auth)
        assert again.status_code == 409, again.text
        assert again.json()["code"] == "illegal.game_over"


async def test_the_deal_a_command_led_to_is_in_its_answer_when_another_process_dealt_it(
    app: Any, client: httpx.AsyncClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The last seat taken leads to the first deal, which this process deals right after the
    command. Should another process deal it first (the steward's sweep of tables waiting for
    their deal, in the moment between the two), the answer still holds the deal, as it does
    on a replay: the same answer whoever dealt."""
    players = [await register(client, name) for name in ("A", "B", "C")]
    created = await client.post("/v1/games", json={"seats": 3, "seat": 0}, headers=players[0].auth)
    game_id = created.json()["id"]
    seats = f"/v1/games/{game_id}/seats"
    await client.post(seats, json={"seat": 1}, headers=players[1].auth)
    games = app.state["games"]
    follow_up = games._follow_up

    async def beaten(*args: Any) -> None:
        await follow_up(*args)  # the other process's deal, committed first
        return None  # ours then finds the deal done

    monkeypatch.setattr(games, "_follow_up", beaten)
    key = {**players[2].auth, "Idempotency-Key": "last-seat"}
    first = await client.post(seats, json={"seat": 2}, headers=key)
    assert first.status_code == 200, first.text
    assert len(first.json()["view"]["deal"]["hand"]) == 10
    assert first.headers["etag"] == f'"{(await _view(client, game_id, key))["version"]}"'
    await replayed(client, seats, key, first, {"seat": 2})
