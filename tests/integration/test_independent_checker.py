"""A finished game's export, checked by a dozen lines that know nothing of the service.

The game is played through the service's own command handling against PostgreSQL (its secret
drawn, its seats' client seeds recorded, its chain computed by es.append); the checker below
uses only hashlib and json, as docs/fairness.md describes, and recomputes the chain and every
deck from the export alone.
"""

from __future__ import annotations

import hashlib
import json
import random

import asyncpg
import pytest

from domain import game
from domain.rules import rules_for
from service.eventlog.handler import CommandContext, CommandHandler
from service.eventlog.log import game_log
from service.eventlog.store import uuid7
from service.games.commands import GAME_DECIDER, Act, Create, Join
from service.games.dealing import new_source
from service.games.export import ExportPlayer, export_lines
from service.games.streams import game_stream

pytestmark = pytest.mark.integration

# --- the independent checker: hashlib and json, nothing else (docs/fairness.md) --------------

DECK = [rank + suit for suit in "SCDH" for rank in "789TJQKA"]


def jsonb(v):  # the data as jsonb prints it: keys by length then bytewise, ", " and ": "
    if isinstance(v, dict):
        keys = sorted(v, key=lambda k: (len(k.encode()), k.encode()))
        return "{" + ", ".join(f"{jsonb(k)}: {jsonb(v[k])}" for k in keys) + "}"
    if isinstance(v, list):
        return "[" + ", ".join(map(jsonb, v)) + "]"
    return json.dumps(v, ensure_ascii=False)


def deck(secret, seeds, n):  # SHAKE-256 read by Fisher–Yates with rejection sampling
    lines = ["preferans-deal-v1", secret, str(n)]
    lines += [hashlib.sha256(seed.encode()).hexdigest() for seed in seeds]
    stream, cards = iter(hashlib.shake_256("\n".join(lines).encode()).digest(1024)), list(DECK)
    for i in range(31, 0, -1):
        j = next(b for b in stream if b < 256 - 256 % (i + 1)) % (i + 1)
        cards[i], cards[j] = cards[j], cards[i]
    return cards


def check(lines):
    header, *events = [json.loads(line) for line in lines if line.strip()]
    prev = "0" * 64
    for pos, e in enumerate(events, 1):
        assert e["version"] == pos and e["prev_hash"] == prev, f"event {pos}"
        link = [prev, header["stream_id"], str(pos), e["event_id"], e["type"]]
        link += [str(e["schema_version"]), e["salt"], jsonb(e["data"])]
        prev = hashlib.sha256("\n".join(link).encode()).hexdigest()
        assert e["hash"] == prev, f"event {pos}"
    assert header["head"] == prev, "head"
    data = [e["data"] for e in events]
    secret = next(d["secret"] for d in data if d["type"] == "secret_revealed")
    assert hashlib.sha256(bytes.fromhex(secret)).hexdigest() == data[0]["commitment"]
    seeds, n = [], 0
    for d in data:
        seeds += [d["client_seed"]] if d["type"] == "player_seated" else []
        if d["type"] == "deal_started":
            n, cards = n + 1, deck(secret, seeds, n + 1)
            active = [s for s, hand in enumerate(d["hands"]) if hand or len(d["hands"]) == 3]
            for i, seat in enumerate(active):  # ten each to the active seats, in seat order
                assert d["hands"][seat] == sorted(cards[10 * i : 10 * i + 10], key=DECK.index), n
            assert d["talon"] == cards[30:32], n
    return n


# --- a finished game to check ------------------------------------------------------------------


async def play_fair_game(pool: asyncpg.Pool, seats: int, seed: str | None = None) -> list[bytes]:
    """A game played to its end through `GAME_DECIDER` and es.command; its export's lines."""
    log = game_log(pool, announce=False)
    handler = CommandHandler(log, GAME_DECIDER)
    rules = rules_for("sochi", {"players": seats, "pool": {"target": 10, "max_deals": 3}})
    source = new_source(seats, seed=seed)
    game_id = uuid7()
    stream = game_stream(game_id)
    players = [f"0190{i:04x}-0000-7000-8000-000000000000" for i in range(seats)]
    world = {"source": source, "entropy": b"", "at": 0}
    ctx = CommandContext(actor="test")
    created = Create(player=players[0], rules=rules, take_seat=0, client_seed="Anna's", **world)
    await handler.handle(stream, created, context=ctx)
    for seat in range(1, seats):
        join = Join(player=players[seat], wanted=seat, client_seed=f"seat {seat}", **world)
        await handler.handle(stream, join, context=ctx)
    rng = random.Random(stream)
    _, state = await handler.load(stream)
    while not game.is_terminal(state):
        seat = game.to_act(state)[0]
        move = rng.choice(game.legal_actions(state, seat))
        act = Act(player=players[seat], command=move, **world)
        state = (await handler.handle(stream, act, context=ctx)).state
    records = [item.record for item in await log.read(stream)]
    named = [ExportPlayer(id=p) for p in players]
    return list(export_lines(game_id, records, named))


@pytest.mark.parametrize("seats", [3, 4])
async def test_the_independent_checker_recomputes_the_chain_and_every_deck(
    app_pool: asyncpg.Pool, seats: int
) -> None:
    lines = await play_fair_game(app_pool, seats)
    assert check([line.decode() for line in lines]) >= 3  # every deal recomputed
