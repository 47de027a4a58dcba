"""Finished games as their exports, for the tests of PPN, bulk exports and dumps: played by the
bots (`bot_games.bot_pulka`), chained as the store chains them, and copied under new ids so that
a test has thousands without playing thousands."""

from __future__ import annotations

import asyncio
import json
import random
import uuid
from collections.abc import Sequence
from datetime import UTC, datetime

import msgspec
from bot_games import bot_pulka

from bots import LEVELS
from bots.view import SeatFeed
from domain import fairness
from domain import game as g
from domain.rules import rules_for
from service.eventlog import chain
from service.eventlog.codec import domain_codec
from service.eventlog.log import EventLog
from service.eventlog.store import RecordedEvent
from service.games.export import (
    ExportHeader,
    ExportLine,
    ExportPlayer,
    encode_line,
    export_lines,
    import_game,
)

_codec = domain_codec()


def recorded(game_id: uuid.UUID, events: Sequence[g.Event], seed: int = 0) -> list[RecordedEvent]:
    """``events`` as the store would hold them in game ``game_id``'s stream: ids, salts, the
    jsonb text of their data and the hash chain."""
    rng = random.Random(seed)
    stream = f"game-{game_id}"
    prev = chain.GENESIS
    out = []
    for version, event in enumerate(events, start=1):
        name, schema, data = _codec.encode(event)
        value = json.loads(data)
        salt = rng.randbytes(16)
        event_id = uuid.UUID(int=rng.getrandbits(128), version=4)
        digest = chain.event_hash(prev, stream, version, event_id, name, schema, salt, value)
        out.append(RecordedEvent(
            version, 1, stream, version, event_id, name, schema, chain.jsonb_text(value), {},
            datetime.now(UTC), salt, prev, digest,
        ))  # fmt: skip
        prev = digest
    return out


def fair_pulka(
    seed: int, players: Sequence[str], *, target: int = 1, secret: bytes = bytes(range(32))
) -> list[g.Event]:
    """A pulka the basic bots play with fair deals, as the service deals them: committed to
    ``secret``, each deck derived from it and the players' seeds (scheme 2), the secret revealed
    at the end (docs/fairness.md). Stamped with a clock of its own from 2026-12-06 20:00 UTC."""
    rules = rules_for("sochi", {"pool": {"target": target}})
    rng = random.Random(seed)
    state: g.GameState = g.INITIAL_STATE
    events: list[g.Event] = []
    feeds = [SeatFeed(s) for s in range(3)]
    clock = 1_796_587_200_000

    def do(command: g.Command) -> None:
        nonlocal state, clock
        clock += 1000
        for e in g.decide(msgspec.structs.replace(command, at=clock), state):
            state = g.evolve(state, e)
            events.append(e)
            for feed in feeds:
                feed.add(e)

    do(g.CreateGame(rules=rules, dealing="random", commitment=fairness.commitment(secret),
                    fairness=2))  # fmt: skip
    for seat, player in enumerate(players):
        do(g.TakeSeat(seat=seat, player=player, client_seed=f"seed of seat {seat}"))
    while not g.is_terminal(state):
        assert isinstance(state, g.Pulka)
        if g.needs_cards(state):
            deck = fairness.deck_for(secret, g.deal_seeds(state), state.deal_no + 1, 2)
            hands, talon = fairness.deal_hands(deck, 3, state.next_dealer)
            do(g.DealCards(hands=hands, talon=talon))
            continue
        seat = g.to_act(state)[0]
        do(LEVELS["basic"](feeds[seat].view(), rng, 0.2))
    do(g.RevealSecret(secret=secret.hex()))
    return events


def finished_export(
    seed: int,
    players: Sequence[str],
    *,
    target: int = 3,
    names: Sequence[str] | None = None,
    fair: bool = False,
    table: dict[str, object] | None = None,
) -> list[bytes]:
    """The NDJSON export of a pulka the bots play to its end (``fair``: dealt as the service
    deals, `fair_pulka`; ``table``: overrides of the table's rules)."""
    events = (
        fair_pulka(seed, players, target=target)
        if fair
        else bot_pulka(seed, list(players), target=target, table=table)
    )
    game_id = uuid.UUID(int=random.Random(seed).getrandbits(128), version=4)
    named = [
        ExportPlayer(id=p, name=None if names is None else names[i]) for i, p in enumerate(players)
    ]
    return list(export_lines(game_id, recorded(game_id, events, seed), named))


def copy_of(lines: Sequence[bytes], game_id: uuid.UUID) -> list[bytes]:
    """The export as another game's: a new id, and the events' ids left for the import to
    derive (the chain is recomputed on import, over the new stream)."""
    header = msgspec.json.decode(lines[0], type=ExportHeader)
    out = [
        msgspec.json.encode(
            msgspec.structs.replace(header, game_id=game_id, stream_id=None, head=None)
        )
        + b"\n"
    ]
    for raw in lines[1:]:
        line = msgspec.json.decode(raw, type=ExportLine)
        out.append(
            encode_line(msgspec.structs.replace(line, event_id=None, prev_hash=None, hash=None))
        )
    return out


async def import_copies(
    log: EventLog[g.Event], lines: Sequence[bytes], count: int, *, concurrency: int = 1
) -> list[uuid.UUID]:
    """``count`` copies of a finished game imported, each under an id of its own (in id order),
    ``concurrency`` at a time."""
    ids = sorted(uuid.uuid4() for _ in range(count))
    gate = asyncio.Semaphore(concurrency)

    async def one(game_id: uuid.UUID) -> None:
        async with gate:
            await import_game(log, copy_of(lines, game_id))

    await asyncio.gather(*(one(game_id) for game_id in ids))
    return ids
