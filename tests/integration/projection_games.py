"""Random games played with the domain and appended through the event store, interleaved;
their double-dummy analyses, solved once a session."""

from __future__ import annotations

import random
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

import msgspec

from domain import game as g
from domain.rules import rules_for
from domain.simulation import play_random_pulka
from projections.game_analysis import GameAnalysis, analyse_game
from service.eventlog.codec import domain_codec
from service.eventlog.store import FEED_START, EventStore, FeedCursor, NewEvent, uuid7

CODEC = domain_codec()


def play(preset: str, players: list[str], target: int, seed: int, *, stop_after=None):
    """The events of a game played with random legal actions, grouped per command."""
    rules = rules_for(preset, {"players": len(players), "pool": {"target": target}})
    return play_random_pulka(rules, random.Random(seed), players, stop_after=stop_after)


@dataclass
class Game:
    game_id: str
    appends: list[list[g.Event]]
    state: g.GameState
    done: int = 0
    """Appends already written."""

    @property
    def stream_id(self) -> str:
        return f"game-{self.game_id}"

    @property
    def events(self) -> list[g.Event]:
        return [e for batch in self.appends for e in batch]


@dataclass
class Log:
    """What was appended, in the global order: (game id, event)."""

    order: list[tuple[str, g.Event]] = field(default_factory=list)
    cursor: FeedCursor = FEED_START
    """The feed cursor of the last append (wait for it: the feed ends at the xid horizon)."""

    def of(self, game_id: str) -> list[g.Event]:
        return [e for gid, e in self.order if gid == game_id]


def new_events(events: list[g.Event]) -> list[NewEvent]:
    out = []
    for event in events:
        event_type, schema_version, data = CODEC.encode(event)
        out.append(
            NewEvent(event_id=uuid7(), event_type=event_type, schema_version=schema_version,
                     data=msgspec.Raw(data))
        )  # fmt: skip
    return out


async def append_interleaved(
    store: EventStore, games: list[Game], log: Log, rng: random.Random, *, limit: int | None = None
) -> int:
    """Append the games' remaining commands, picking a random game each time; how many."""
    written = 0
    while limit is None or written < limit:
        pending = [gm for gm in games if gm.done < len(gm.appends)]
        if not pending:
            break
        gm = rng.choice(pending)
        batch = gm.appends[gm.done]
        version = sum(len(b) for b in gm.appends[: gm.done])
        appended = await store.append(gm.stream_id, new_events(batch), version)
        log.cursor = max(log.cursor, appended.cursor)
        log.order += [(gm.game_id, e) for e in batch]
        gm.done += 1
        written += 1
    return written


def random_games(count: int, players: list[str], seed: int, *, unfinished: int = 0) -> list[Game]:
    """``count`` games among ``players`` (3 or 4 seated each), the last ``unfinished`` cut short."""
    rng = random.Random(seed)
    games = []
    for n in range(count):
        size = rng.choice([3, 3, 4])
        seated = rng.sample(players, size)
        preset = rng.choice(["sochi", "leningrad", "rostov"])
        stop = rng.randrange(20, 80) if n >= count - unfinished else None
        state, appends = play(preset, seated, rng.choice([2, 3]), rng.getrandbits(32),
                              stop_after=stop)  # fmt: skip
        games.append(Game(str(uuid.UUID(int=rng.getrandbits(128), version=4)), appends, state))
    return games


# --- the analyses, each game's solved once ------------------------------------------------------

# The solver takes seconds a game, and the projection tests meet the same games again and again:
# as the analyst's work, as a test's expectation, again after a rebuild. A game's analysis is a
# pure function of its events, so it is kept by those exact events: whoever asks with other
# events (a truncated stream, another game) gets their own analysis, never a remembered one.
_ANALYSES: dict[bytes, GameAnalysis] = {}
_analysis_json = msgspec.json.Decoder(GameAnalysis)


def _key(events: Sequence[g.Event]) -> bytes:
    return msgspec.msgpack.encode(list(events))


TEST_LAYOUTS = 1
"""Layouts each decision is judged over in these tests (the service's default is 16): the
analysis of decisions is the bulk of a game's analysis (three quarters of the CPU of the
read-models test at 4 layouts), these tests analyse many games, and what they prove is the
runner's, whatever the verdicts (projections/decisions.py has its own tests)."""


def analysis_of(events: Sequence[g.Event]) -> GameAnalysis:
    """`projections.game_analysis.analyse_game` of ``events``, solved at most once a session."""
    key = _key(events)
    if (found := _ANALYSES.get(key)) is None:
        found = _ANALYSES[key] = analyse_game(list(events), layouts=TEST_LAYOUTS)
    return found


class Solver(Protocol):
    async def run(self, events: list[g.Event], layouts: int) -> bytes: ...


class RememberingSolver:
    """The analyst's solver, consulting the session's analyses first: a game is solved in the
    analyst's worker process the first time it is queued (its result kept for `analysis_of`), and
    answered from memory when a test or a rebuild meets it again."""

    def __init__(self, solver: Solver) -> None:
        self.solver = solver

    async def run(self, events: list[g.Event], layouts: int) -> bytes:
        del layouts  # every decision judged over TEST_LAYOUTS, as `analysis_of` judges it
        key = _key(events)
        if (found := _ANALYSES.get(key)) is not None:
            return msgspec.json.encode(found)
        raw = await self.solver.run(events, TEST_LAYOUTS)
        _ANALYSES[key] = _analysis_json.decode(raw)
        return raw
