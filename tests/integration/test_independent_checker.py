"""A finished game's export, checked by a dozen lines that know nothing of the service.

The games are played against PostgreSQL: one of each derivation (docs/fairness.md). A game of
the first (``fairness`` 1, as every game was before migration 0018) goes through the command
handling with its secret drawn by the service; a game of the second goes through `GameService`
on the request path's role, the database drawing its secret and dealing it. The checker below
uses only hashlib and json, as docs/fairness.md describes, and recomputes the chain and every
deck from the export alone.
"""

from __future__ import annotations

import hashlib
import json
import random
import uuid

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
from service.games.lobby import Lobby
from service.games.service import GameService, game_spec
from service.games.streams import game_stream
from service.players.accounts import Player

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


def deck(secret, seeds, n, scheme):  # a byte stream read by Fisher–Yates, rejection sampling
    lines = [f"preferans-deal-v{scheme}", secret, str(n)]
    data = "\n".join(lines + [hashlib.sha256(s.encode()).hexdigest() for s in seeds]).encode()
    if scheme == 1:  # SHAKE-256
        stream = iter(hashlib.shake_256(data).digest(1024))
    else:  # SHA-256 in counter mode: sha256(data || k as 4 bytes big-endian), k = 0, 1, …
        stream = iter(b"".join(hashlib.sha256(data + k.to_bytes(4, "big")).digest()
                               for k in range(32)))  # fmt: skip
    cards = list(DECK)
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
            n, cards = n + 1, deck(secret, seeds, n + 1, data[0].get("fairness", 1))
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
    assert json.loads(lines[1])["data"]["fairness"] == 1
    assert check([line.decode() for line in lines]) >= 3  # every deal recomputed


async def play_game_dealt_by_the_database(
    app_pool: asyncpg.Pool, pool: asyncpg.Pool, seats: int
) -> list[bytes]:
    """A game played to its end through `GameService` as the API plays it (the database draws
    its secret and deals it); its export's lines."""
    players = [Player(id=str(uuid.uuid4()), name=f"ic{i}") for i in range(seats)]
    for player in players:
        await pool.execute(
            "INSERT INTO api.players (player_id, name, kind) VALUES ($1, $2, 'human')",
            uuid.UUID(player.id), f"{player.name} {player.id[:8]}",
        )  # fmt: skip
    log = game_log(app_pool, announce=False)
    service = GameService(log, Lobby(app_pool))
    overrides = {"pool": {"target": 10, "max_deals": 3}}
    spec = game_spec(
        preset="sochi", overrides=overrides, seats=seats, first_dealer=0, layouts=(),
        seed=None, seat=0, seat_seed="Anna's",
    )  # fmt: skip
    done = await service.create(players[0], spec, key=None, fingerprint=b"")
    assert done.outcome is not None
    game_id = done.outcome.game_id
    for seat in range(1, seats):
        await service.join(game_id, players[seat], seat, key=None, fingerprint=b"",
                           expected=None, seed=f"seat {seat}")  # fmt: skip
    rng = random.Random(str(game_id))
    _, state = await service.state(game_id)
    while not game.is_terminal(state):
        seat = game.to_act(state)[0]
        move = rng.choice(game.legal_actions(state, seat))
        await service.act(game_id, players[seat], move, key=None, fingerprint=b"", expected=None)
        _, state = await service.state(game_id)
    records = [item.record for item in await log.read(game_stream(game_id))]
    return list(export_lines(game_id, records, [ExportPlayer(id=p.id) for p in players]))


@pytest.mark.parametrize("seats", [3, 4])
async def test_the_independent_checker_recomputes_a_game_the_database_dealt(
    app_pool: asyncpg.Pool, pool: asyncpg.Pool, seats: int
) -> None:
    lines = await play_game_dealt_by_the_database(app_pool, pool, seats)
    assert json.loads(lines[1])["data"]["fairness"] == 2
    assert json.loads(lines[-1])["type"] == "secret_revealed"  # after game_ended, from the db
    assert check([line.decode() for line in lines]) >= 3  # every deal recomputed
