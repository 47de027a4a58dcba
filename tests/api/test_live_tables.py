"""Live tables through the API: clocks and timeouts made by the steward, absence and return,
leaving and abandoning, claims, bots, private tables and invites, a player's own games and
notifications, tokens per device."""

from __future__ import annotations

import asyncio
import random
from typing import Any

import asyncpg
import httpx
import pytest
from apitools import PROBLEM, Player, layouts, make_app, register
from litestar.testing import AsyncTestClient

from bots import LEVELS, Budget, seat_input
from domain import game
from service.eventlog.log import game_log
from service.platform.clock import ManualClock

pytestmark = pytest.mark.integration

# One second a move, no bank; two timeouts in a row mark a seat absent; the simplest stand-in
# keeps the moves made for it easy to follow. One deal, so the game ends.
CLOCKED = {
    "table": {"move_seconds": 1, "timeouts_to_absent": 2, "stand_in": "simplest"},
    "pool": {"max_deals": 1},
}


UNHURRIED = {**CLOCKED, "table": {**CLOCKED["table"], "move_seconds": 600}}
"""Ten minutes a move: a deadline passes only when a test's manual clock is moved past it."""


async def events_of(client: httpx.AsyncClient, game_id: str) -> list[dict[str, Any]]:
    page = await client.get(f"/v1/games/{game_id}/events", params={"limit": 500})
    assert page.status_code == 200, page.text
    return [item["event"] for item in page.json()["items"]]


async def view(client: httpx.AsyncClient, game_id: str, player: Player) -> dict[str, Any]:
    response = await client.get(f"/v1/games/{game_id}", headers=player.auth)
    assert response.status_code == 200, response.text
    return response.json()


async def act(
    client: httpx.AsyncClient, game_id: str, player: Player, action: dict[str, Any]
) -> httpx.Response:
    return await client.post(f"/v1/games/{game_id}/actions", json=action, headers=player.auth)


async def game_with(
    client: httpx.AsyncClient, overrides: dict[str, Any], **body: Any
) -> tuple[str, list[Player]]:
    """A seated table of three with these rules (every deal's cards fixed by seed)."""
    players = [await register(client, f"p{i}") for i in range(3)]
    created = await client.post(
        "/v1/games",
        json={"seat": 0, "overrides": overrides, "layouts": layouts(seed=11, count=3), **body},
        headers=players[0].auth,
    )
    assert created.status_code == 201, created.text
    game_id = created.json()["id"]
    for seat, player in enumerate(players[1:], 1):
        joined = await client.post(
            f"/v1/games/{game_id}/seats", json={"seat": seat}, headers=player.auth
        )
        assert joined.status_code == 200, joined.text
    return game_id, players


def first_move(legal: list[dict[str, Any]]) -> dict[str, Any]:
    """A quick, legal move: pass where one may, else the first listed (never a claim)."""
    moves = [a for a in legal if a["type"] not in ("claim", "answer_claim")]
    for action in moves:
        if action["type"] == "pass" or (action["type"] == "whist" and action["choice"] == "pass"):
            return action
    return moves[0] if moves else next(a for a in legal if a.get("accept") is False)


async def play_until_finished(
    client: httpx.AsyncClient,
    game_id: str,
    players: list[Player],
    rounds: int = 600,
    *,
    clock: tuple[ManualClock, Any, int] | None = None,
) -> dict[str, Any]:
    """``players`` make their quickest moves (the others are left to the steward) until the
    game is over; its final view. With ``clock`` (the app's manual clock, the app and the seat
    left to the steward), that seat's turn runs out when the clock is moved past its deadline,
    not in real time."""
    for _ in range(rounds):
        body = await view(client, game_id, players[0])
        if body["view"]["status"] == "finished":
            return body
        acted = False
        for player in players:
            mine = await view(client, game_id, player)
            if mine["legal_actions"]:
                response = await act(client, game_id, player, first_move(mine["legal_actions"]))
                assert response.status_code in (200, 409), response.text  # 409: time ran out
                acted = True
        if not acted and clock is not None:
            manual, app, seat = clock
            seen = (await view(client, game_id, players[0]))["view"]["clocks"][seat]
            deadline = seen["deadline"]
            # An absent seat is played for at once: moving the clock past a deadline then would
            # time out the next seat's turn instead. Time still passes between two looks: the
            # steward gives back a table it found busy due 20 ms later by its clock, and a
            # clock that never moves would leave that table waiting forever.
            if seen["presence"] != "absent" and deadline is not None:
                manual.advance(max(0, deadline - manual.now_ms()) / 1000 + 0.5)  # past it
            else:
                manual.advance(0.05)
            app.state.steward.hint()
        if not acted:
            await asyncio.sleep(0.05)
    raise AssertionError("the game did not end")


async def test_a_seat_that_never_acts_is_moved_for_marked_absent_and_the_game_ends(
    database_dsn: str,
) -> None:
    clock = ManualClock()  # the silent seat's turns run out when the test moves the clock
    app = make_app(database_dsn, clock=clock)
    async with AsyncTestClient(app) as client:
        await _silent_seat_played_for(client, app, clock)


async def _silent_seat_played_for(client: httpx.AsyncClient, app: Any, clock: ManualClock) -> None:
    game_id, players = await game_with(client, UNHURRIED)
    silent = 1  # the first hand: seat 0 created the game and deals the first deal
    await play_until_finished(client, game_id, [players[0], players[2]], clock=(clock, app, silent))

    events = await events_of(client, game_id)
    kinds = [e["type"] for e in events]
    timeouts = [e for e in events if e["type"] == "timed_out"]
    assert [t["in_a_row"] for t in timeouts[:2]] == [1, 2]
    assert all(t["seat"] == silent for t in timeouts), timeouts
    absent = kinds.index("player_absent")
    assert events[absent]["seat"] == silent and events[absent]["timeouts"] == 2
    # From then on the seat is played for at once, each move saying why.
    played_for = [i for i, e in enumerate(events) if e["type"] == "played_for"]
    assert played_for and all(events[i]["reason"] == "absent" for i in played_for)
    assert all(i > absent for i in played_for)
    # Every move of the silent seat comes right after a timeout or a played_for.
    for i, event in enumerate(events):
        if event.get("seat") == silent and event["type"] in ("passed", "bid_made", "card_played"):
            assert events[i - 1]["type"] in ("timed_out", "played_for", "player_absent"), i
    assert kinds[-2:] == ["game_ended", "secret_revealed"]
    deadlines = [(t["seat"], t["at"]) for t in timeouts]
    assert len(deadlines) == len(set(deadlines))  # no deadline fired twice
    final = await view(client, game_id, players[silent])
    assert final["view"]["clocks"][silent]["presence"] == "absent"


async def test_a_late_move_is_refused_by_name_and_the_absent_player_comes_back(
    database_dsn: str,
) -> None:
    # The service's clock is a manual one: the deadline passes when the test says so, and the
    # steward judges it by that clock, so nothing here waits for a second to go by.
    clock = ManualClock()
    app = make_app(database_dsn, clock=clock)
    async with AsyncTestClient(app) as client:
        await _late_move_refused(client, app, clock)


async def _late_move_refused(client: httpx.AsyncClient, app: Any, clock: ManualClock) -> None:
    game_id, players = await game_with(client, UNHURRIED)
    late = players[1]
    first = await view(client, game_id, late)
    deadline = first["view"]["clocks"][1]["deadline"]
    assert deadline is not None and first["server_time"] <= deadline
    action = first_move(first["legal_actions"])
    clock.advance((deadline - clock.now_ms()) / 1000 + 0.5)  # past the deadline
    for _ in range(200):  # the steward, woken, moves for the seat at once
        app.state.steward.hint()
        if "timed_out" in [e["type"] for e in await events_of(client, game_id)]:
            break
        await asyncio.sleep(0.02)
    refused = await act(client, game_id, late, action)
    assert refused.status_code == 409, refused.text
    assert refused.json()["code"] in ("illegal.timed_out", "illegal.time_out")
    assert "time ran out" in refused.json()["detail"]
    events = await events_of(client, game_id)
    assert [e["type"] for e in events].count("timed_out") >= 1
    # Absent only after two in a row; coming back is explicit (or by acting).
    back = await client.post(f"/v1/games/{game_id}/return", headers=late.auth)
    if back.status_code == 409:
        assert back.json()["code"] == "illegal.not_absent"
    else:
        assert back.status_code == 200
        assert back.json()["view"]["clocks"][1]["presence"] == "present"


async def test_leave_before_the_start_abandon_after_it_and_the_seat_is_played_to_the_end(
    client: httpx.AsyncClient,
) -> None:
    a, b, c, d = [await register(client, name) for name in "abcd"]
    rules = {"table": {"stand_in": "simplest", "reseat": True}, "pool": {"max_deals": 1}}
    created = await client.post("/v1/games", json={"seat": 0, "overrides": rules}, headers=a.auth)
    game_id = created.json()["id"]
    joined = await client.post(f"/v1/games/{game_id}/seats", json={"seat": 1}, headers=b.auth)
    assert joined.status_code == 200
    left = await client.post(f"/v1/games/{game_id}/leave", headers=b.auth)
    assert left.status_code == 200, left.text
    assert left.json()["view"]["players"][1] is None
    again = await client.post(f"/v1/games/{game_id}/leave", headers=b.auth)
    assert again.status_code == 403 and again.headers["content-type"] == PROBLEM
    for player, seat in ((b, 1), (c, 2)):
        joined = await client.post(
            f"/v1/games/{game_id}/seats", json={"seat": seat}, headers=player.auth
        )
        assert joined.status_code == 200, joined.text
    too_late = await client.post(f"/v1/games/{game_id}/leave", headers=c.auth)
    assert too_late.status_code == 409 and too_late.json()["code"] == "illegal.game_started"

    gone = await client.post(f"/v1/games/{game_id}/abandon", headers=c.auth)
    assert gone.status_code == 200, gone.text
    assert gone.json()["seat"] is None  # a spectator now
    assert gone.json()["view"]["clocks"][2]["presence"] == "abandoned"
    twice = await client.post(f"/v1/games/{game_id}/abandon", headers=c.auth)
    assert twice.status_code == 409 and twice.json()["code"] == "illegal.abandoned"
    # The table reseats: d takes the abandoned seat and plays it from here.
    taken = await client.post(f"/v1/games/{game_id}/seats", json={"seat": 2}, headers=d.auth)
    assert taken.status_code == 200, taken.text
    assert taken.json()["seat"] == 2
    assert taken.json()["seated"][2]["name"] == "d"
    # d abandons too: the steward plays seat 2 to the end while a and b play.
    assert (await client.post(f"/v1/games/{game_id}/abandon", headers=d.auth)).status_code == 200
    await play_until_finished(client, game_id, [a, b])
    events = await events_of(client, game_id)
    assert {e["player"] for e in events if e["type"] == "seat_abandoned"} == {c.id, d.id}
    assert any(e["type"] == "played_for" and e["reason"] == "abandoned" for e in events)


async def _contract_to_claim(client: httpx.AsyncClient) -> tuple[str, list[Player]]:
    """Seat 0 declares 6♠ with the top spades; seat 1 whists and plays open, leading the
    first trick with his card and seat 2's; the declarer is to play."""
    hands = [
        "AS KS QS JS TS 9S AC KC AD KD".split(),
        "8S 7S QC JC TC 9C QD JD TD 9D".split(),
        "8C 7C 8D 7D AH KH QH JH TH 9H".split(),
    ]
    players = [await register(client, f"c{i}") for i in range(3)]
    created = await client.post(
        "/v1/games",
        json={"seat": 0, "layouts": [{"hands": hands, "talon": ["8H", "7H"]}]},
        headers=players[0].auth,
    )
    game_id = created.json()["id"]
    for seat in (1, 2):
        joined = await client.post(
            f"/v1/games/{game_id}/seats", json={"seat": seat}, headers=players[seat].auth
        )
        assert joined.status_code == 200
    script = [
        (1, {"type": "pass"}),
        (2, {"type": "pass"}),
        (0, {"type": "bid", "bid": "6S"}),
        (0, {"type": "take_talon"}),
        (0, {"type": "discard", "cards": ["8H", "7H"]}),
        (0, {"type": "declare", "contract": "6S"}),
        (1, {"type": "whist", "choice": "whist"}),
        (2, {"type": "whist", "choice": "pass"}),
        (1, {"type": "choose_play", "open": True}),
        (1, {"type": "play", "card": "QD"}),
        (1, {"type": "play", "card": "8D"}),  # seat 2's card: the whister plays both
    ]
    for seat, action in script:
        done = await act(client, game_id, players[seat], action)
        assert done.status_code == 200, (action, done.text)
    return game_id, players


async def test_claims_are_listed_made_rejected_and_accepted_with_the_cards_open(
    client: httpx.AsyncClient,
) -> None:
    game_id, players = await _contract_to_claim(client)
    declarer, whister, passer = players
    offered = (await view(client, game_id, declarer))["legal_actions"]
    claims = [a for a in offered if a["type"] == "claim"]
    assert [a["tricks"] for a in claims] == list(range(10, -1, -1))
    others = (await view(client, game_id, whister))["legal_actions"]
    assert not any(a["type"] == "claim" for a in others)
    wrong = await act(client, game_id, whister, {"type": "claim", "tricks": 3})
    assert wrong.status_code == 409 and wrong.json()["code"] == "illegal.claim_not_yours"

    claimed = await act(client, game_id, declarer, {"type": "claim", "tricks": 10})
    assert claimed.status_code == 200, claimed.text
    second = await act(client, game_id, declarer, {"type": "claim", "tricks": 9})
    assert second.status_code == 409 and second.json()["code"] == "illegal.claim_pending"
    asked = await view(client, game_id, whister)
    assert asked["view"]["deal"]["claim"]["asked"] == [1]  # open play: the whister answers
    assert {a["type"] for a in asked["legal_actions"]} == {"answer_claim"}
    not_asked = await act(client, game_id, passer, {"type": "answer_claim", "accept": True})
    assert not_asked.status_code == 409 and not_asked.json()["code"] == "illegal.not_asked"
    rejected = await act(client, game_id, whister, {"type": "answer_claim", "accept": False})
    assert rejected.status_code == 200
    assert rejected.json()["view"]["deal"]["claim"] is None
    # Play goes on; one claim per trick: the declarer claims again in the next trick.
    again = await act(client, game_id, declarer, {"type": "claim", "tricks": 9})
    assert again.status_code == 409 and again.json()["code"] == "illegal.claim_limited"
    mine = (await view(client, game_id, declarer))["legal_actions"]
    assert not any(a["type"] == "claim" for a in mine)
    played = await act(client, game_id, declarer, first_move(mine))
    assert played.status_code == 200, played.text
    while (state := await view(client, game_id, declarer))["view"]["deal"]["to_act"] != [0]:
        moved = await act(client, game_id, whister, first_move(
            (await view(client, game_id, whister))["legal_actions"]
        ))  # fmt: skip
        assert moved.status_code == 200, moved.text
    won = state["view"]["deal"]["tricks"][0]
    claimed = await act(client, game_id, declarer, {"type": "claim", "tricks": 8})
    assert claimed.status_code == 200, claimed.text
    accepted = await act(client, game_id, whister, {"type": "answer_claim", "accept": True})
    assert accepted.status_code == 200, accepted.text
    seen = [e["event"] for e in accepted.json()["events"]]
    ended = next(e for e in seen if e["type"] == "deal_ended")
    assert ended["outcome"]["tricks"][0] == won + 8 and sum(ended["outcome"]["tricks"]) == 10
    kinds = [e["type"] for e in await events_of(client, game_id)]
    assert kinds.count("claim_made") == 2 and kinds.count("claim_answered") == 2


async def test_bots_fill_the_table_and_play_from_their_seats(client: httpx.AsyncClient) -> None:
    human = await register(client, "human")
    created = await client.post(
        "/v1/games", json={"seat": 0, "overrides": {"pool": {"max_deals": 1}}}, headers=human.auth
    )
    game_id = created.json()["id"]
    outsider = await register(client, "outsider")
    refused = await client.post(f"/v1/games/{game_id}/bots", json={}, headers=outsider.auth)
    assert refused.status_code == 403 and refused.json()["code"] == "not_at_table"
    for level in ("basic", "random"):
        seated = await client.post(
            f"/v1/games/{game_id}/bots", json={"level": level}, headers=human.auth
        )
        assert seated.status_code == 200, seated.text
    body = seated.json()
    assert [s["kind"] for s in body["seated"]] == ["human", "bot", "bot"]
    assert body["seated"][1]["name"] == "Basic bot 1"
    await play_until_finished(client, game_id, [human])
    events = await events_of(client, game_id)
    assert any(e["type"] in ("passed", "bid_made") and e["seat"] in (1, 2) for e in events)


async def test_a_private_table_is_joined_only_with_its_invite(
    client: httpx.AsyncClient, pool: asyncpg.Pool
) -> None:
    host, friend, stranger, named = [await register(client, n) for n in ("h", "f", "s", "n")]
    created = await client.post("/v1/games", json={"seat": 0, "private": True}, headers=host.auth)
    game_id = created.json()["id"]
    listed = (await client.get("/v1/games")).json()["items"]
    assert game_id not in [g["id"] for g in listed]
    no_invite = await client.post(f"/v1/games/{game_id}/seats", json={}, headers=stranger.auth)
    assert no_invite.status_code == 403 and no_invite.json()["code"] == "private_table"

    invite = await client.post(f"/v1/games/{game_id}/invites", json={}, headers=host.auth)
    assert invite.status_code == 201, invite.text
    code = invite.json()["code"]
    assert (await client.get(f"/v1/invites/{code}")).json()["game"]["id"] == game_id
    joined = await client.post(f"/v1/invites/{code}/seats", json={}, headers=friend.auth)
    assert joined.status_code == 200 and joined.json()["seat"] == 1

    personal = await client.post(
        f"/v1/games/{game_id}/invites", json={"player": named.id}, headers=host.auth
    )
    personal_code = personal.json()["code"]
    others = await client.post(f"/v1/invites/{personal_code}/seats", json={}, headers=stranger.auth)
    assert others.status_code == 403 and others.json()["code"] == "not_invited"
    notes = (await client.get("/v1/players/me/notifications", headers=named.auth)).json()
    assert [n["kind"] for n in notes["items"]] == ["invited"]
    assert notes["items"][0]["game_id"] == game_id

    await pool.execute("UPDATE api.invites SET expires_at = now() - interval '1 second'")
    expired = await client.post(f"/v1/invites/{personal_code}/seats", json={}, headers=named.auth)
    assert expired.status_code == 410 and expired.headers["content-type"] == PROBLEM
    unknown = await client.post("/v1/invites/not-a-real-code/seats", json={}, headers=named.auth)
    assert unknown.status_code == 404


async def test_my_games_show_whose_turn_it_is_and_my_notifications_follow(
    client: httpx.AsyncClient,
) -> None:
    me = await register(client, "me")
    others = [await register(client, f"o{i}") for i in range(4)]
    games = []
    for pair in (others[0:2], others[2:4]):
        created = await client.post(
            "/v1/games",
            json={"seat": 1, "overrides": {"table": {"move_seconds": 60}}},
            headers=me.auth,
        )
        game_id = created.json()["id"]
        for seat, player in zip((0, 2), pair, strict=True):
            joined = await client.post(
                f"/v1/games/{game_id}/seats", json={"seat": seat}, headers=player.auth
            )
            assert joined.status_code == 200
        games.append(game_id)
    mine = (await client.get("/v1/players/me/games", headers=me.auth)).json()
    assert {g["game"]["id"] for g in mine["active"]} == set(games)
    assert all(g["my_turn"] and g["seat"] == 1 for g in mine["active"])  # seat 1 leads
    assert all(g["game"]["deadline"] is not None for g in mine["active"])
    assert [s["name"] for s in mine["active"][0]["game"]["seated"]][1] == "me"
    assert mine["finished"] == [] and mine["next_cursor"] is None
    notes = (await client.get("/v1/players/me/notifications", headers=me.auth)).json()
    turns = [n for n in notes["items"] if n["kind"] == "your_turn"]
    assert {n["game_id"] for n in turns} == set(games)
    assert all(n["data"]["deadline"] is not None for n in turns)
    seqs = [n["seq"] for n in notes["items"]]
    assert seqs == list(range(1, len(seqs) + 1))
    after = await client.get(
        "/v1/players/me/notifications", params={"cursor": notes["last_seq"]}, headers=me.auth
    )
    assert after.json()["items"] == []


async def test_tokens_per_device_scopes_revocation_and_idempotent_registration(
    client: httpx.AsyncClient,
) -> None:
    key = {"Idempotency-Key": "reg-1"}
    first = await client.post("/v1/players", json={"name": "Ana"}, headers=key)
    again = await client.post("/v1/players", json={"name": "Ana"}, headers=key)
    assert first.status_code == again.status_code == 201
    assert first.json()["id"] == again.json()["id"]
    assert first.json()["token"] != again.json()["token"]  # the first, never used, is revoked
    reused = await client.post("/v1/players", json={"name": "Other"}, headers=key)
    assert reused.status_code == 422 and reused.json()["type"].endswith("idempotency-key-reused")

    auth = {"Authorization": f"Bearer {again.json()['token']}"}
    made = await client.post(
        "/v1/players/me/tokens", json={"name": "tablet", "scope": "read"}, headers=auth
    )
    assert made.status_code == 201, made.text
    token_id = made.json()["info"]["id"]
    reader = {"Authorization": f"Bearer {made.json()['token']}"}
    listed = (await client.get("/v1/players/me/tokens", headers=auth)).json()["items"]
    assert [t["name"] for t in listed] == ["first device", "first device", "tablet"]
    assert all("token" not in t for t in listed)
    assert (await client.get("/v1/players/me", headers=reader)).json()["token"]["scope"] == "read"
    write = await client.post("/v1/games", json={"seat": 0}, headers=reader)
    assert write.status_code == 403 and write.json()["code"] == "insufficient_scope"

    revoked = await client.delete(f"/v1/players/me/tokens/{token_id}", headers=auth)
    assert revoked.status_code == 204
    assert (await client.get("/v1/players/me", headers=reader)).status_code == 401
    twice = await client.delete(f"/v1/players/me/tokens/{token_id}", headers=auth)
    assert twice.status_code == 204  # revoking twice changes nothing
    missing = await client.delete(
        "/v1/players/me/tokens/01a23159-0000-7000-8000-000000000000", headers=auth
    )
    assert missing.status_code == 404
    listed = (await client.get("/v1/players/me/tokens", headers=auth)).json()["items"]
    assert listed[-1]["revoked_at"] is not None and listed[1]["last_used_at"] is not None
    assert listed[0]["revoked_at"] is not None  # the token of the answer that was repeated


async def test_a_bot_cannot_be_logged_into_and_a_program_is_shown_as_a_bot(
    client: httpx.AsyncClient, pool: asyncpg.Pool
) -> None:
    program = await client.post("/v1/players", json={"name": "MyBot", "kind": "program"})
    assert program.status_code == 201 and program.json()["kind"] == "program"
    body = (await client.get(f"/v1/players/{program.json()['id']}")).json()
    assert body["kind"] == "program"
    bot_kind = await client.post("/v1/players", json={"name": "X", "kind": "bot"})
    assert bot_kind.status_code == 400
    tokens = await pool.fetchval(
        "SELECT count(*) FROM api.tokens t JOIN api.players p USING (player_id)"
        " WHERE p.kind = 'bot'"
    )
    assert tokens == 0


async def test_a_whole_pulka_of_three_bots_ends_and_settles(client: httpx.AsyncClient) -> None:
    host = await register(client, "host")
    rules = {"pool": {"target": 2, "max_deals": 12}}
    created = await client.post("/v1/games", json={"overrides": rules}, headers=host.auth)
    game_id = created.json()["id"]
    for level in ("basic", "basic", "random"):
        seated = await client.post(
            f"/v1/games/{game_id}/bots", json={"level": level}, headers=host.auth
        )
        assert seated.status_code == 200, seated.text
    for _ in range(600):
        body = (await client.get(f"/v1/games/{game_id}")).json()
        if body["view"]["status"] == "finished":
            break
        await asyncio.sleep(0.05)
    assert body["view"]["status"] == "finished"
    assert sum(body["view"]["settlement"]["result"]) == 0
    assert [s["kind"] for s in body["seated"]] == ["bot", "bot", "bot"]
    # Computer players are flagged in the statistics, the ratings and the leaderboard.
    bots = {s["player"] for s in body["seated"]}
    for _ in range(600):
        board = (await client.get("/v1/ratings")).json()
        if {e["player_id"] for e in board["items"]} >= bots:
            break
        await asyncio.sleep(0.05)
    assert {e["kind"] for e in board["items"] if e["player_id"] in bots} == {"bot"}
    assert all(e["name"] for e in board["items"])
    # Humans and computers are ranked apart: each side's board holds its own kind only.
    computers = (await client.get("/v1/ratings", params={"players": "computers"})).json()
    humans = (await client.get("/v1/ratings", params={"players": "humans"})).json()
    assert bots <= {e["player_id"] for e in computers["items"]}
    assert {e["kind"] for e in computers["items"]} <= {"bot", "program"}
    assert {e["kind"] for e in humans["items"]} <= {"human", "guest"}
    assert [e["rank"] for e in computers["items"]] == list(range(1, len(computers["items"]) + 1))
    assert computers["total"] + humans["total"] == board["total"]
    some_bot = sorted(bots)[0]
    assert (await client.get(f"/v1/players/{some_bot}/stats")).json()["kind"] == "bot"
    assert (await client.get(f"/v1/players/{some_bot}/rating")).json()["kind"] == "bot"


async def test_an_expert_bot_plays_a_whole_game_through_the_api(
    client: httpx.AsyncClient, pool: asyncpg.Pool
) -> None:
    """The expert level is seated like any other, plays every decision of a game to its end
    from its seat's view, and its calls are thought again from the log."""
    host = await register(client, "host")
    rules = {"pool": {"target": 2, "max_deals": 2}}
    created = await client.post("/v1/games", json={"overrides": rules}, headers=host.auth)
    game_id = created.json()["id"]
    for level in ("expert", "basic", "basic"):
        seated = await client.post(
            f"/v1/games/{game_id}/bots", json={"level": level}, headers=host.auth
        )
        assert seated.status_code == 200, seated.text
    for _ in range(2400):
        body = (await client.get(f"/v1/games/{game_id}")).json()
        if body["view"]["status"] == "finished":
            break
        await asyncio.sleep(0.05)
    assert body["view"]["status"] == "finished"
    assert sum(body["view"]["settlement"]["result"]) == 0
    assert [s["name"].split()[0] for s in body["seated"]] == ["Expert", "Basic", "Basic"]
    log = game_log(pool, announce=False)
    stored = await log.store.read_stream(f"game-{game_id}")
    events = [log.decode(r) for r in stored]
    experts: dict[str, Any] = {}  # a command's first event: its version follows the seat's view
    for r in stored:
        if r.metadata.get("thought", "").startswith("expert "):
            experts.setdefault(r.metadata["idempotency_key"], r)
    assert len(experts) >= 10
    # the auction is the learned evaluator's (no wall-clock cap can cut it); the whisting, as
    # the strong bot's, repeats only when the cap did not end its search
    learned = [
        r for r in experts.values() if type(events[r.version - 1]).__name__ in ("BidMade", "Passed")
    ]
    assert learned
    for record in learned:
        level, seed, *limits = record.metadata["thought"].split()
        again = LEVELS[level](
            seat_input(events[: record.version - 1], record.metadata["seat"]),
            random.Random(int(seed[5:], 16)),
            Budget.parse(" ".join(limits)),
        )  # fmt: skip
        at = record.version - 1
        produced = game.decide(again, game.fold(events[:at]))
        assert produced == events[at : at + len(produced)], record.metadata


async def test_a_game_created_with_bots_at_its_seats_starts_and_the_bots_play_at_once(
    client: httpx.AsyncClient,
) -> None:
    host = await register(client, "host")
    bots = [{"level": "basic"}, {"level": "basic", "seat": 2}]
    created = await client.post("/v1/games", json={"seat": 0, "bots": bots}, headers=host.auth)
    assert created.status_code == 201, created.text
    body = created.json()
    assert [s["kind"] for s in body["seated"]] == ["human", "bot", "bot"]
    assert body["view"]["status"] == "playing"
    game_id = body["id"]
    # The dealer is seat 0, so the first hand is a bot's: it bids with nobody else acting.
    for _ in range(200):
        view = (await client.get(f"/v1/games/{game_id}", headers=host.auth)).json()
        if view["version"] > body["version"]:
            break
        await asyncio.sleep(0.05)
    assert view["version"] > body["version"]
    # Two bots on one seat, or on the creator's: refused, nothing created.
    for wrong in ([{"seat": 0}], [{"seat": 1}, {"seat": 1}]):
        refused = await client.post("/v1/games", json={"seat": 0, "bots": wrong}, headers=host.auth)
        assert refused.status_code == 409, refused.text
        assert refused.headers["content-type"] == PROBLEM
    unknown = await client.post(
        "/v1/games", json={"seat": 0, "bots": [{"level": "genius"}]}, headers=host.auth
    )
    assert unknown.status_code == 400
    mine = (await client.get("/v1/players/me/games", headers=host.auth)).json()
    assert [g["game"]["id"] for g in mine["active"]] == [game_id]


async def test_a_bots_move_keeps_how_it_was_thought_and_is_thought_again_from_the_log(
    client: httpx.AsyncClient, pool: asyncpg.Pool
) -> None:
    """Each bot move's events keep its level, the seed of its generator and its budget
    (`Metadata.thought`): the same decision from the same seat view gives the same move."""
    host = await register(client, "host")
    created = await client.post(
        "/v1/games", json={"bots": [{"level": "basic"}, {"level": "random"}, {"level": "basic"}]},
        headers=host.auth,
    )  # fmt: skip
    assert created.status_code == 201, created.text
    game_id = created.json()["id"]
    for _ in range(400):
        if (await client.get(f"/v1/games/{game_id}")).json()["version"] >= 30:
            break
        await asyncio.sleep(0.05)
    log = game_log(pool, announce=False)
    stored = await log.store.read_stream(f"game-{game_id}")
    events = [log.decode(r) for r in stored]
    firsts: dict[str, Any] = {}  # a command's first event: its version follows the seat's view
    for r in stored:
        if r.metadata.get("thought"):
            firsts.setdefault(r.metadata["idempotency_key"], r)
    thought = list(firsts.values())
    assert len(thought) >= 10, [r.metadata for r in stored]
    for record in thought:
        level, seed, *limits = record.metadata["thought"].split()
        assert level in ("basic", "random") and seed.startswith("seed=")
        again = LEVELS[level](
            seat_input(events[: record.version - 1], record.metadata["seat"]),
            random.Random(int(seed[5:], 16)),
            Budget.parse(" ".join(limits)),
        )  # fmt: skip
        at = record.version - 1
        produced = game.decide(again, game.fold(events[:at]))
        assert produced == events[at : at + len(produced)], record.metadata
