"""Whole pulkas played by the service's basic bots (each seeing only its seat), appended to the
store event by event, the games interleaved: deals played as a table plays them, which hold
puzzles (the integration and API tests of puzzles and studies)."""

from __future__ import annotations

import random
import uuid
from dataclasses import dataclass

import msgspec

from bots import LEVELS
from bots.view import SeatFeed
from domain import game as g
from domain.rules import rules_for
from domain.simulation import random_deal
from service.eventlog.codec import domain_codec
from service.eventlog.store import FEED_START, EventStore, FeedCursor, NewEvent, uuid7


@dataclass
class Game:
    game_id: str
    events: list[g.Event]
    state: g.GameState

    @property
    def stream_id(self) -> str:
        return f"game-{self.game_id}"


@dataclass
class Log:
    cursor: FeedCursor = FEED_START
    """The feed position of the last append: wait for it in the feed."""


def bot_pulka(
    seed: int,
    players: list[str],
    *,
    target: int = 3,
    stop_after: int | None = None,
    table: dict[str, object] | None = None,
) -> list[g.Event]:
    """A pulka of ``players`` played by the basic bots from ``seed`` (``stop_after``: only its
    first events, a game still in play; ``table``: overrides of the table's rules)."""
    rules = rules_for("sochi", {"pool": {"target": target}, "table": table or {}})
    rng = random.Random(seed)
    state: g.GameState = g.INITIAL_STATE
    events: list[g.Event] = []
    feeds = [SeatFeed(s) for s in range(3)]

    def do(command: g.Command) -> None:
        nonlocal state
        for e in g.decide(command, state):
            state = g.evolve(state, e)
            events.append(e)
            for feed in feeds:
                feed.add(e)

    do(g.CreateGame(rules=rules, first_dealer=0))
    for seat, player in enumerate(players):
        do(g.TakeSeat(seat=seat, player=player))
    while not g.is_terminal(state) and (stop_after is None or len(events) < stop_after):
        assert isinstance(state, g.Pulka)
        if g.needs_cards(state):
            do(random_deal(rng, 3, state.next_dealer))
            continue
        seat = g.to_act(state)[0]
        do(LEVELS["basic"](feeds[seat].view(), rng, 0.2))
    return events


async def append_games(
    store: EventStore, players: list[str], seeds: list[int], *, unfinished: int = 0
) -> tuple[list[Game], Log]:
    """Bot pulkas of ``players`` appended to ``store`` (the last ``unfinished`` stop
    mid-game), and the log of the appends (its ``cursor``: wait for it in the feed)."""
    games = []
    for n, seed in enumerate(seeds):
        stop = 150 if n >= len(seeds) - unfinished else None
        events = bot_pulka(seed, players, stop_after=stop)
        game_id = str(uuid.UUID(int=random.Random(seed).getrandbits(128), version=4))
        games.append(Game(game_id, events, g.fold(events)))
    log = Log()
    codec = domain_codec()
    rng = random.Random(0)
    done = [0] * len(games)
    while pending := [k for k, gm in enumerate(games) if done[k] < len(gm.events)]:
        k = rng.choice(pending)
        batch = games[k].events[done[k] : done[k] + rng.randint(1, 40)]
        new = []
        for event in batch:
            name, version, data = codec.encode(event)
            new.append(NewEvent(event_id=uuid7(), event_type=name, schema_version=version,
                                data=msgspec.Raw(data)))  # fmt: skip
        appended = await store.append(games[k].stream_id, new, done[k])
        log.cursor = max(log.cursor, appended.cursor)
        done[k] += len(batch)
    return games, log
