"""Issue 21, item 4: a log the rules could not have produced is caught by verification, and a
game whose log cannot be folded is quarantined (409 ``game-quarantined``), never a 500.

The forgeries are written straight into ``es.*`` with the schema owner's pool, as a
compromised request path could before migration 0016 (``es.append`` accepted any events):
another seat's card, a secret revealed early, an event of an unknown type, an event after the
game's end. Since 0016 the log refuses all but the first (tests/integration/test_log_refusals.py),
so `_forge` lifts the games' catalog first: a log written before 0016 can still hold them."""

from __future__ import annotations

import uuid
from typing import Any

import asyncpg
import httpx
import msgspec
import pytest
from apitools import PROBLEM, seated_game

from domain import game as g
from domain.deal.messages import CardPlayed
from domain.deal.state import Playing
from service.eventlog.log import game_log
from service.eventlog.store import Metadata, NewEvent, uuid7
from service.games.streams import game_stream
from service.platform.metrics import STREAMS_QUARANTINED

pytestmark = pytest.mark.integration


async def _forge(pool: asyncpg.Pool, game_id: str, *events: g.Event | NewEvent) -> int:
    """Append ``events`` to the game's stream as the request path's ``es.append`` would: any
    event, the chain kept valid. The version of the first one."""
    log = game_log(pool, announce=False)
    stream = game_stream(uuid.UUID(game_id))
    # The log refuses an unknown type, a reveal before the end and anything after it since
    # 0016 (es.admit): forge them as a log written before it could hold them.
    await pool.execute("DELETE FROM es.stream_kinds WHERE stream_type = 'game'")
    new = [
        e if isinstance(e, NewEvent) else log.new_events([e], [uuid7()], Metadata())[0]
        for e in events
    ]
    appended = await log.append(stream, new)
    return appended.first_version


def _unknown(data: dict[str, Any]) -> NewEvent:
    return NewEvent(
        event_id=uuid7(), event_type="gold_awarded", schema_version=1,
        data=msgspec.Raw(msgspec.json.encode(data)), metadata=Metadata(salt="00" * 16),
    )  # fmt: skip


async def _state(pool: asyncpg.Pool, game_id: str) -> g.GameState:
    log = game_log(pool, announce=False)
    return g.fold([item.event for item in await log.read(game_stream(uuid.UUID(game_id)))])


async def _to_play(client: httpx.AsyncClient, game_id: str, players: list[Any]) -> None:
    """Bid until the deal is played (an all-pass: every seat passes)."""
    for _ in range(10):
        view = (await client.get(f"/v1/games/{game_id}", headers=players[0].auth)).json()
        if view["view"]["deal"].get("phase") == "playing" or not view["view"]["deal"]["to_act"]:
            return
        seat = view["view"]["deal"]["to_act"][0]
        seen = (await client.get(f"/v1/games/{game_id}", headers=players[seat].auth)).json()
        if any(a["type"] == "play" for a in seen["legal_actions"]):
            return
        move = next((a for a in seen["legal_actions"] if a["type"] == "pass"), None)
        assert move is not None, seen["legal_actions"]
        r = await client.post(f"/v1/games/{game_id}/actions", json=move, headers=players[seat].auth)
        assert r.status_code == 200, r.text


async def _playing(client: httpx.AsyncClient, pool: asyncpg.Pool) -> tuple[str, list[Any]]:
    game_id, players = await seated_game(client)
    await _to_play(client, game_id, players)
    return game_id, players


async def test_another_seats_card_fails_the_proof_naming_the_event(
    client: httpx.AsyncClient, pool: asyncpg.Pool
) -> None:
    game_id, _ = await _playing(client, pool)
    state = await _state(pool, game_id)
    assert isinstance(state, g.Pulka) and isinstance(state.deal, Playing)
    to_act = g.to_act(state)[0]
    other = next(s for s in range(3) if s != to_act)
    version = await _forge(pool, game_id, CardPlayed(seat=other, card=state.deal.hands[other][0]))
    proof = (await client.get(f"/v1/games/{game_id}/proof")).json()
    assert proof["verdict"] == "failed" and proof["chain_ok"] and not proof["rules_ok"]
    illegal = proof["first_illegal_event"]
    assert (illegal["version"], illegal["type"]) == (version, "card_played")
    assert "illegal.not_your_turn" in illegal["reason"]
    assert f"event {version} (card_played)" in proof["problems"][0]


async def test_an_early_secret_fails_the_proof_naming_the_event(
    client: httpx.AsyncClient, pool: asyncpg.Pool
) -> None:
    game_id, _ = await _playing(client, pool)
    version = await _forge(pool, game_id, g.SecretRevealed(secret="00" * 32))
    proof = (await client.get(f"/v1/games/{game_id}/proof")).json()
    assert proof["verdict"] == "failed"
    illegal = proof["first_illegal_event"]
    assert (illegal["version"], illegal["type"]) == (version, "secret_revealed")
    assert "illegal.not_over" in illegal["reason"]


async def test_a_game_whose_log_cannot_be_read_is_quarantined_on_every_read(
    client: httpx.AsyncClient, pool: asyncpg.Pool
) -> None:
    game_id, players = await _playing(client, pool)
    state = await _state(pool, game_id)
    to_act = g.to_act(state)[0]
    card = g.legal_actions(state, to_act)[0]
    move = {"type": "play", "card": getattr(card, "card", None)}
    before = STREAMS_QUARANTINED._value.get()
    version = await _forge(pool, game_id, _unknown({"ounces": 7}))
    auth = players[0].auth
    base = f"/v1/games/{game_id}"
    # The forger sent no hint: this process learns of the event at its next read of the log,
    # which a command always makes (a view within the head's trust is answered from what the
    # process knows, as its 304 is). From then on every read is refused, the view's included.
    reads = [
        client.post(f"{base}/actions", json=move, headers=players[to_act].auth),  # a legal card
        client.get(base, headers=auth),
        client.get(f"{base}/events", headers=auth),
        client.get(f"{base}/stream", headers=auth),
        client.get(f"{base}/export", headers=auth),
    ]
    for read in reads:
        answer = await read
        assert answer.status_code == 409, (answer.request.url, answer.text)
        assert answer.headers["content-type"].startswith(PROBLEM)
        problem = answer.json()
        assert problem["type"] == "/problems/game-quarantined"
        assert f"event {version} (gold_awarded)" in problem["detail"]
    # The proof still answers, and names it.
    proof = (await client.get(f"{base}/proof")).json()
    assert proof["verdict"] == "failed"
    assert proof["first_illegal_event"]["version"] == version
    assert "cannot be decoded" in proof["first_illegal_event"]["reason"]
    # Alerted on once for the stream, however often it is read.
    assert STREAMS_QUARANTINED._value.get() == before + 1
    # Other games are untouched.
    other, _ = await seated_game(client)
    assert (await client.get(f"/v1/games/{other}")).status_code == 200
