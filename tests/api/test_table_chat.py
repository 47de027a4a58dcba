"""Chat at the table and rematches: rooms kept apart, limits, mutes, reports, the "phrases only"
rule, delivery on the game's stream, never in the log; and "play again" with the same table."""

from __future__ import annotations

import asyncio
import json
import random
from typing import Any

import asyncpg
import httpx
import pytest
from apitools import PROBLEM, Player, SseLog, choose, read_sse, register, seated_game
from litestar import Litestar
from litestar.testing import AsyncTestClient

pytestmark = pytest.mark.integration

Client = AsyncTestClient[Litestar]
QUICK = {"pool": {"target": 1}}


async def say(client: Client, game_id: str, who: Player, **body: Any) -> httpx.Response:
    return await client.post(f"/v1/games/{game_id}/chat", json=body, headers=who.auth)


async def read_chat(client: Client, game_id: str, who: Player | None) -> list[str]:
    page = await client.get(f"/v1/games/{game_id}/chat", headers=who.auth if who else {})
    assert page.status_code == 200, page.text
    return [m["body"] for m in page.json()["items"]]


async def play_to_the_end(client: Client, game_id: str, players: list[Player]) -> None:
    rng = random.Random(7)
    by_id = {p.id: p for p in players}
    for _ in range(3000):
        public = (await client.get(f"/v1/games/{game_id}")).json()
        if public["view"]["status"] == "finished":
            return
        to_act = public["view"]["deal"]["to_act"]
        if not to_act:
            await asyncio.sleep(0.05)  # a bot's move, or the next deal, on its way
            continue
        seated = public["seated"][to_act[0]]["player"]
        if seated not in by_id:
            await asyncio.sleep(0.05)
            continue
        me = by_id[seated]
        mine = (await client.get(f"/v1/games/{game_id}", headers=me.auth)).json()
        if not mine["legal_actions"]:
            continue
        action = choose(rng, mine["legal_actions"], quick=True)
        await client.post(f"/v1/games/{game_id}/actions", json=action, headers=me.auth)
    raise AssertionError("the pulka did not end")


async def test_the_players_never_read_the_spectators_room_while_the_game_is_played(
    client: Client,
) -> None:
    game_id, players = await seated_game(client, overrides=QUICK)
    spectator = await register(client, "kibitzer")
    assert (await say(client, game_id, players[0], text="good luck all")).status_code == 201
    said = await say(client, game_id, spectator, text="west holds the ace of spades")
    assert said.status_code == 201 and said.json()["room"] == "spectators"
    for player in players:
        assert await read_chat(client, game_id, player) == ["good luck all"]
    both = ["west holds the ace of spades", "good luck all"]
    assert await read_chat(client, game_id, spectator) == both
    assert await read_chat(client, game_id, None) == both
    await play_to_the_end(client, game_id, players)
    assert await read_chat(client, game_id, players[1]) == both  # once the game is over


async def test_a_message_holds_at_most_300_characters_and_five_per_ten_seconds(
    client: Client,
) -> None:
    game_id, players = await seated_game(client)
    too_long = await say(client, game_id, players[0], text="x" * 301)
    assert too_long.status_code == 422 and too_long.headers["content-type"] == PROBLEM
    assert too_long.json()["code"] == "chat.too_long"
    empty = await say(client, game_id, players[0], text="   ")
    assert empty.status_code == 422 and empty.json()["code"] == "chat.empty"
    for n in range(5):
        assert (await say(client, game_id, players[0], text=f"m{n}")).status_code == 201
    flood = await say(client, game_id, players[0], text="one more")
    assert flood.status_code == 429 and flood.json()["type"] == "/problems/rate-limited"
    assert int(flood.headers["retry-after"]) >= 1
    # Per player per table: another player still speaks.
    assert (await say(client, game_id, players[1], text="calm down")).status_code == 201


async def test_a_table_of_phrases_only_takes_no_free_text_while_the_game_is_played(
    client: Client,
) -> None:
    game_id, players = await seated_game(client)
    spectator = await register(client, "watcher")
    rule = await client.put(
        f"/v1/games/{game_id}/chat/rules", json={"phrases_only": True}, headers=spectator.auth
    )
    assert rule.status_code == 403
    rule = await client.put(
        f"/v1/games/{game_id}/chat/rules", json={"phrases_only": True}, headers=players[1].auth
    )
    assert rule.status_code == 200
    refused = await say(client, game_id, players[0], text="I have all the trumps")
    assert refused.status_code == 422 and refused.json()["code"] == "chat.phrases_only"
    said = await say(client, game_id, players[0], phrase="good_luck")
    assert said.status_code == 201
    assert (said.json()["phrase"], said.json()["body"]) == ("good_luck", "Good luck")
    unknown = await say(client, game_id, players[0], phrase="i_hold_the_ace")
    assert unknown.status_code == 400
    page = (await client.get(f"/v1/games/{game_id}/chat")).json()
    assert page["phrases_only"] is True


async def test_a_muted_author_is_hidden_from_the_muter_alone_and_a_report_is_kept(
    client: Client, database_dsn: str
) -> None:
    game_id, players = await seated_game(client)
    said = await say(client, game_id, players[1], text="you play like a potato")
    seq = said.json()["seq"]
    muted = await client.put(f"/v1/players/me/mutes/{players[1].id}", headers=players[0].auth)
    assert muted.status_code == 200 and muted.json()["muted"] == [players[1].id]
    assert await read_chat(client, game_id, players[0]) == []
    assert await read_chat(client, game_id, players[2]) == ["you play like a potato"]
    self_mute = await client.put(f"/v1/players/me/mutes/{players[0].id}", headers=players[0].auth)
    assert self_mute.status_code == 422
    report = await client.post(
        f"/v1/games/{game_id}/chat/{seq}/reports", json={"reason": "rude"}, headers=players[0].auth
    )
    assert report.status_code == 202 and report.json() == {"reported": True}
    again = await client.post(f"/v1/games/{game_id}/chat/{seq}/reports", headers=players[0].auth)
    assert again.json() == {"reported": False}
    missing = await client.post(f"/v1/games/{game_id}/chat/999999/reports", headers=players[0].auth)
    assert missing.status_code == 404
    connection = await asyncpg.connect(database_dsn)
    try:
        rows = await connection.fetch("SELECT reporter::text, reason FROM api.chat_reports")
    finally:
        await connection.close()
    assert [tuple(r) for r in rows] == [(players[0].id, "rude")]
    unmuted = await client.delete(f"/v1/players/me/mutes/{players[1].id}", headers=players[0].auth)
    assert unmuted.json()["muted"] == []
    assert await read_chat(client, game_id, players[0]) == ["you play like a potato"]


async def test_chat_is_not_in_the_games_events_nor_in_its_export(client: Client) -> None:
    game_id, players = await seated_game(client, overrides=QUICK)
    before = (await client.get(f"/v1/games/{game_id}/events", params={"limit": 500})).json()
    await say(client, game_id, players[0], text="secret words")
    after = (await client.get(f"/v1/games/{game_id}/events", params={"limit": 500})).json()
    assert after["version"] == before["version"]
    await play_to_the_end(client, game_id, players)
    export = await client.get(f"/v1/games/{game_id}/export")
    assert export.status_code == 200
    assert "secret words" not in export.text and '"chat' not in export.text
    proof = await client.get(f"/v1/games/{game_id}/proof")
    assert proof.status_code == 200 and proof.json()["verdict"] == "verified"


async def test_not_at_a_table_that_does_not_exist(client: Client) -> None:
    player = await register(client, "lost")
    said = await say(client, "0190a000-0000-7000-8000-000000000000", player, text="hello?")
    assert said.status_code == 404 and said.headers["content-type"] == PROBLEM
    anonymous = await client.post(
        "/v1/games/0190a000-0000-7000-8000-000000000000/chat", json={"text": "hi"}
    )
    assert anonymous.status_code == 401


async def test_the_stream_brings_the_players_their_room_and_the_spectators_both(
    server: str,
) -> None:
    async with httpx.AsyncClient(base_url=server, timeout=10) as http:
        game_id, players = await seated_game(http)
        spectator = await register(http, "rail bird")
        logs = {"player": SseLog(), "spectator": SseLog()}

        async def follow(who: Player, log: SseLog, wanted: int) -> None:
            async with http.stream(
                "GET", f"/v1/games/{game_id}/stream", headers=who.auth
            ) as response:
                async for _ in read_sse(response, log):
                    if len([f for f in log.frames if f.event == "chat"]) >= wanted:
                        return

        watchers = [
            asyncio.create_task(follow(players[1], logs["player"], 2)),
            asyncio.create_task(follow(spectator, logs["spectator"], 3)),
        ]
        await asyncio.sleep(1.0)  # both streams open
        for who, text in ((players[0], "hi"), (spectator, "hand 2 is cold"), (players[2], "go")):
            response = await http.post(
                f"/v1/games/{game_id}/chat", json={"text": text}, headers=who.auth
            )
            assert response.status_code == 201
        await asyncio.wait_for(asyncio.gather(*watchers), 15)
    player_chat = [f for f in logs["player"].frames if f.event == "chat"]
    assert [json.loads(f.data)["body"] for f in player_chat] == ["hi", "go"]
    assert all(f.id is None for f in player_chat)  # no game version: Last-Event-ID unmoved
    seen = [json.loads(f.data)["body"] for f in logs["spectator"].frames if f.event == "chat"]
    assert seen == ["hi", "hand 2 is cold", "go"]
    assert all("hand 2 is cold" not in f.data for f in logs["player"].frames)


async def test_a_rematch_accepted_by_all_makes_the_same_table_with_the_next_dealer(
    client: Client,
) -> None:
    game_id, players = await seated_game(client, overrides=QUICK, first_dealer=1)
    early = await client.post(f"/v1/games/{game_id}/rematch", headers=players[0].auth)
    assert early.status_code == 409 and early.json()["code"] == "rematch.game_not_over"
    await play_to_the_end(client, game_id, players)
    outsider = await register(client, "outsider")
    assert (
        await client.post(f"/v1/games/{game_id}/rematch", headers=outsider.auth)
    ).status_code == 403
    offered = await client.post(f"/v1/games/{game_id}/rematch", headers=players[0].auth)
    assert offered.status_code == 201, offered.text
    assert offered.json()["status"] == "open"
    twice = await client.post(f"/v1/games/{game_id}/rematch", headers=players[1].auth)
    assert twice.status_code == 409 and twice.json()["code"] == "rematch.already_offered"
    notes = (await client.get("/v1/players/me/notifications", headers=players[1].auth)).json()
    assert any(n["kind"] == "rematch_offered" for n in notes["items"])
    one = await client.post(
        f"/v1/games/{game_id}/rematch/answer", json={"accept": True}, headers=players[1].auth
    )
    assert one.json()["status"] == "open" and one.json()["next_game"] is None
    last = await client.post(
        f"/v1/games/{game_id}/rematch/answer", json={"accept": True}, headers=players[2].auth
    )
    assert last.status_code == 200, last.text
    assert last.json()["status"] == "accepted"
    next_game = last.json()["next_game"]
    assert next_game and next_game != game_id
    old = (await client.get(f"/v1/games/{game_id}/events", params={"limit": 1})).json()
    new = (await client.get(f"/v1/games/{next_game}/events", params={"limit": 200})).json()
    created = new["items"][0]["event"]
    assert created["rules"] == old["items"][0]["event"]["rules"]
    assert created["first_dealer"] == 2
    game = (await client.get(f"/v1/games/{next_game}", headers=players[0].auth)).json()
    assert [s["player"] for s in game["seated"]] == [p.id for p in players]
    assert game["view"]["status"] == "playing"
    assert (await client.get(f"/v1/games/{game_id}/rematch")).json()["next_game"] == next_game
    notes = (await client.get("/v1/players/me/notifications", headers=players[0].auth)).json()
    assert any(n["kind"] == "rematch_started" for n in notes["items"])
    late = await client.post(
        f"/v1/games/{game_id}/rematch/answer", json={"accept": False}, headers=players[1].auth
    )
    assert late.status_code == 409 and late.json()["code"] == "rematch.not_open"


async def test_one_refusal_closes_the_rematch_offer(client: Client) -> None:
    game_id, players = await seated_game(client, overrides=QUICK)
    await play_to_the_end(client, game_id, players)
    assert (await client.get(f"/v1/games/{game_id}/rematch")).json() is None
    no_offer = await client.post(
        f"/v1/games/{game_id}/rematch/answer", json={"accept": True}, headers=players[1].auth
    )
    assert no_offer.status_code == 409 and no_offer.json()["code"] == "rematch.no_offer"
    await client.post(f"/v1/games/{game_id}/rematch", headers=players[2].auth)
    declined = await client.post(
        f"/v1/games/{game_id}/rematch/answer", json={"accept": False}, headers=players[0].auth
    )
    assert declined.json()["status"] == "declined" and declined.json()["next_game"] is None
    notes = (await client.get("/v1/players/me/notifications", headers=players[2].auth)).json()
    assert any(n["kind"] == "rematch_declined" for n in notes["items"])


async def test_the_services_bots_agree_to_a_rematch_at_once(client: Client) -> None:
    human = await register(client, "solo")
    created = await client.post(
        "/v1/games",
        json={"seat": 0, "overrides": QUICK, "bots": [{"level": "random"}, {"level": "random"}]},
        headers=human.auth,
    )
    game_id = created.json()["id"]
    await play_to_the_end(client, game_id, [human])
    offered = await client.post(f"/v1/games/{game_id}/rematch", headers=human.auth)
    assert offered.status_code == 201, offered.text
    assert offered.json()["status"] == "accepted" and offered.json()["next_game"]
    new = (await client.get(f"/v1/games/{offered.json()['next_game']}")).json()
    old = (await client.get(f"/v1/games/{game_id}")).json()
    assert [s["player"] for s in new["seated"]] == [s["player"] for s in old["seated"]]
