"""The analyst: the analysis of finished games (their cards double-dummy, their decisions over the
layouts each player could not tell apart), in a worker process of its own.

The ``analysis`` read model (`service.read_models.storage.AnalysisReadModel`) only queues a game
when its end reaches the projections (``rm.analysis_games_<slot>``). Every service process runs an
`Analyst` beside its projections; it leases one queued game at a time (a short transaction: the
lease is a timestamp, never a lock held while the solver works), reads the game's events,
solves every deal in its worker process, and writes the deals and the players' tricks lost
against par in one short transaction that also marks the game done, if the lease is still its
own and the slot still exists. A process killed mid-analysis leaves a lease that expires; the
game is analysed again elsewhere, once.

Why apart from the runner: the analysis takes seconds of CPU per game (docs/bots.md §8.3).
Inside the runner's transaction it would delay every other projection (the sheet, the
statistics) by as much and, once the transaction wrote, hold the cluster's xid horizon back for
every feed follower.
"""

from __future__ import annotations

import asyncio
import atexit
import concurrent.futures
import logging
import multiprocessing
from collections.abc import Sequence

import msgspec

from domain import game
from projections import game_analysis
from projections.decisions import LAYOUTS
from service.eventlog.log import EventLog
from service.platform.leases import Lease
from service.platform.orphans import die_with_parent
from service.platform.worker_kit import Worker
from service.read_models.storage import slot_of

log = logging.getLogger(__name__)

LEASE_SECONDS = 300
"""Long enough for the longest game's analysis; a dead process's lease expires after it."""

_encoder = msgspec.json.Encoder()
_decoder = msgspec.json.Decoder(game_analysis.GameAnalysis)

# The slots of the analysis' active and rebuilding generations (both need their games analysed).
_SLOTS = """
SELECT p.active, c.projection FROM rm.projections p
  LEFT JOIN es.projection_checkpoints c ON c.projection LIKE 'analysis@%'
 WHERE p.name = 'analysis'"""

_DONE = """
UPDATE rm.analysis_games_{s} SET done = true, leased_until = NULL
 WHERE game_id = $1 AND leased_until = $2 AND NOT done"""

_DEALS = """
INSERT INTO rm.analysis_deals_{s} (game_id, deal_no, analysis)
SELECT $1, n, a::jsonb FROM unnest($2::int[], $3::text[]) AS t(n, a)
ON CONFLICT DO NOTHING"""

_PLAYERS = """
INSERT INTO rm.analysis_players_{s} (player_id, game_id, deals, tricks_lost)
SELECT p, $1, d, l FROM unnest($2::text[], $3::int[], $4::int[]) AS t(p, d, l)
ON CONFLICT (player_id, game_id) DO UPDATE
   SET deals = EXCLUDED.deals, tricks_lost = EXCLUDED.tricks_lost"""


def analyse_events(events: Sequence[game.Event], layouts: int = LAYOUTS) -> bytes:
    """`projections.game_analysis.analyse_game` of a game's events (read and decoded by the
    event log in the calling process), each decision judged over ``layouts`` layouts at most,
    as JSON: what the worker process runs (its arguments cross processes pickled, its result as
    JSON)."""
    return _encoder.encode(game_analysis.analyse_game(list(events), layouts=layouts))


class _Solver:
    """One worker process for the solver, started on first use (spawned: a fork of a process
    running an event loop and threads is unsafe). In its own process the search neither stalls
    the event loop nor competes with it for the GIL."""

    def __init__(self) -> None:
        self._pool: concurrent.futures.ProcessPoolExecutor | None = None

    async def run(self, events: list[game.Event], layouts: int) -> bytes:
        loop = asyncio.get_running_loop()
        for _ in range(2):
            if self._pool is None:
                self._pool = concurrent.futures.ProcessPoolExecutor(
                    max_workers=1,
                    mp_context=multiprocessing.get_context("spawn"),
                    initializer=die_with_parent,  # a killed parent leaves no solver behind
                )
                atexit.register(self._pool.shutdown, wait=False, cancel_futures=True)
            try:
                return await loop.run_in_executor(self._pool, analyse_events, events, layouts)
            except concurrent.futures.process.BrokenProcessPool:
                self._pool = None  # the worker died (killed, out of memory): a fresh one
        # Twice broken: analyse in a thread rather than not at all (the loop stays responsive).
        return await asyncio.to_thread(analyse_events, events, layouts)


_solver = _Solver()


class Analyst:
    """See the module docstring. `run` is the background loop; `drain` analyses every queued
    game now (tests, one-off jobs)."""

    def __init__(
        self, log: EventLog[game.Event], *, idle_interval: float = 1.0, layouts: int = LAYOUTS
    ) -> None:
        self.log = log
        self.layouts = layouts
        """Layouts each decision is judged over at most (0: the cards alone)."""
        """Where a game's events come from: the one event log, its codec included."""
        self.pool = log.pool
        self.idle_interval = idle_interval
        self.analysed = 0
        self.worker = Worker("analyst", self._round, interval=idle_interval)
        self._queues: dict[str, Lease] = {}

    def _queue(self, slot: str) -> Lease:
        """The lease of a slot's queued games: one at a time, the oldest version first."""
        if slot not in self._queues:
            self._queues[slot] = Lease(
                f"rm.analysis_games_{slot}", key="game_id", due="leased_until",
                order_by="version", unset_is_due=True, unless="done",
                returning=("stream_id", "version"),
            )  # fmt: skip
        return self._queues[slot]

    async def run(self) -> None:
        await self.worker.run()

    async def _round(self) -> float | None:
        """One queued game analysed, then the next at once; the interval when none waits."""
        return 0.0 if await self.analyse_one() else None

    async def drain(self, slots: Sequence[str] | None = None) -> int:
        """Analyse queued games until none is left (leased elsewhere ones excepted), in the
        live generations' slots or in ``slots``."""
        done = 0
        while await self.analyse_one(slots):
            done += 1
        return done

    async def _slots(self) -> list[str]:
        rows = await self.pool.fetch(_SLOTS)
        generations = {int(r["projection"].split("@")[1]) for r in rows if r["projection"]}
        generations |= {r["active"] for r in rows}
        return [slot_of(g) for g in sorted(generations, reverse=True)]

    async def analyse_one(self, slots: Sequence[str] | None = None) -> bool:
        """Lease a queued game of any live generation, analyse it, store it; False if none."""
        for slot in slots if slots is not None else await self._slots():
            leased = await self._queue(slot).claim(self.pool, seconds=LEASE_SECONDS)
            if not leased:
                continue
            game_id, lease = leased[0]["game_id"], leased[0]["leased_until"]
            stream_id, version = leased[0]["stream_id"], leased[0]["version"]
            logged = await self.log.read(stream_id, 1, limit=version)
            events = [item.event for item in logged]
            found = _decoder.decode(await _solver.run(events, self.layouts))
            async with self.pool.acquire() as conn, conn.transaction():
                # The lease first: if it expired and another process took the game, or the
                # slot was emptied by a rebuild's switch, write nothing.
                if await conn.execute(_DONE.format(s=slot), game_id, lease) != "UPDATE 1":
                    return True
                await conn.execute(
                    _DEALS.format(s=slot),
                    game_id,
                    [d.deal_no for d in found.deals],
                    [_encoder.encode(d.analysis).decode() for d in found.deals],
                )
                await conn.execute(
                    _PLAYERS.format(s=slot),
                    game_id,
                    [p.player for p in found.players],
                    [p.deals for p in found.players],
                    [p.tricks_lost for p in found.players],
                )
            self.analysed += 1
            return True
        return False
