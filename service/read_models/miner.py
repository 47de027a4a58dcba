"""The miner: puzzles mined from finished games, in a worker process of its own.

The ``puzzles`` read model (`service.read_models.storage.PuzzlesReadModel`) only queues a game
when its end reaches the projections (``rm.puzzle_games_<slot>``). The miner works as the
analyst does (`service.read_models.analyst`): it leases one queued game at a time (a short
transaction, the lease a timestamp), reads the game's events, mines every deal in its solver
process (`projections.puzzles.mine_game`), and writes the puzzles in one short transaction that
also marks the game done (with the number found and the mining's CPU milliseconds), if the
lease is still its own and the slot still exists.

A puzzle's id is derived from its game, deal and step (`puzzle_id`), so that a rebuild of the
read model finds the same ids, and the ratings and attempts kept beside them
(`service.read_models.puzzles`) still name them.
"""

from __future__ import annotations

import asyncio
import atexit
import concurrent.futures
import logging
import multiprocessing
import time
import uuid
from collections.abc import Sequence

import msgspec

from domain import game
from projections import puzzles
from service.eventlog.log import EventLog
from service.platform.leases import Lease
from service.platform.orphans import die_with_parent
from service.platform.worker_kit import Worker
from service.read_models.storage import slot_of

log = logging.getLogger(__name__)

LEASE_SECONDS = 300
PUZZLE_NAMESPACE = uuid.UUID("6f3e2a90-9b1c-4d7e-8a55-2c41f0e7b9d3")


class Mined(msgspec.Struct, frozen=True, kw_only=True):
    """What the solver process sends back: the puzzles, and the CPU time they took."""

    puzzles: tuple[puzzles.Puzzle, ...]
    cpu_ms: int


_encoder = msgspec.json.Encoder()
_decoder = msgspec.json.Decoder(Mined)

_SLOTS = """
SELECT p.active, c.projection FROM rm.projections p
  LEFT JOIN es.projection_checkpoints c ON c.projection LIKE 'puzzles@%'
 WHERE p.name = 'puzzles'"""

_DONE = """
UPDATE rm.puzzle_games_{s} SET done = true, leased_until = NULL, puzzles = $3, mined_ms = $4
 WHERE game_id = $1 AND leased_until = $2 AND NOT done"""

_PUZZLES = """
INSERT INTO rm.puzzles_{s} (puzzle_id, game_id, deal_no, step, theme, puzzle)
SELECT i, $1, n, k, t, p::jsonb FROM unnest($2::uuid[], $3::int[], $4::int[], $5::text[],
                                              $6::text[]) AS x(i, n, k, t, p)
ON CONFLICT DO NOTHING"""


def puzzle_id(game_id: str, deal_no: int, step: int) -> uuid.UUID:
    """The id of the puzzle at ``step`` of deal ``deal_no`` of ``game_id``, the same every
    time it is mined."""
    return uuid.uuid5(PUZZLE_NAMESPACE, f"{game_id}:{deal_no}:{step}")


def mine_events(events: Sequence[game.Event]) -> bytes:
    """`projections.puzzles.mine_game` of a game's events, with its CPU time, as JSON: what
    the solver process runs."""
    started = time.process_time()
    found = puzzles.mine_game(list(events))
    cpu_ms = round((time.process_time() - started) * 1000)
    return _encoder.encode(Mined(puzzles=found, cpu_ms=cpu_ms))


class _MinerProcess:
    """The miner's worker process, started on first use (spawned, as the analyst's is: a fork
    of a process running an event loop and threads is unsafe), so that the search neither
    stalls the event loop nor competes with it for the GIL."""

    def __init__(self) -> None:
        self._pool: concurrent.futures.ProcessPoolExecutor | None = None

    async def run(self, events: list[game.Event]) -> bytes:
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
                return await loop.run_in_executor(self._pool, mine_events, events)
            except concurrent.futures.process.BrokenProcessPool:
                self._pool = None  # the worker died (killed, out of memory): a fresh one
        return await asyncio.to_thread(mine_events, events)  # twice broken: in a thread


_process = _MinerProcess()


class Miner:
    """See the module docstring. `run` is the background loop; `drain` mines every queued
    game now (tests, one-off jobs)."""

    def __init__(self, log: EventLog[game.Event], *, idle_interval: float = 1.0) -> None:
        self.log = log
        self.pool = log.pool
        self.mined = 0
        self.worker = Worker("miner", self._round, interval=idle_interval)
        self._queues: dict[str, Lease] = {}

    def _queue(self, slot: str) -> Lease:
        if slot not in self._queues:
            self._queues[slot] = Lease(
                f"rm.puzzle_games_{slot}", key="game_id", due="leased_until",
                order_by="version", unset_is_due=True, unless="done",
                returning=("stream_id", "version"),
            )  # fmt: skip
        return self._queues[slot]

    async def run(self) -> None:
        await self.worker.run()

    async def _round(self) -> float | None:
        return 0.0 if await self.mine_one() else None

    async def drain(self, slots: Sequence[str] | None = None) -> int:
        """Mine queued games until none is left (leased elsewhere ones excepted)."""
        done = 0
        while await self.mine_one(slots):
            done += 1
        return done

    async def _slots(self) -> list[str]:
        rows = await self.pool.fetch(_SLOTS)
        generations = {int(r["projection"].split("@")[1]) for r in rows if r["projection"]}
        generations |= {r["active"] for r in rows}
        return [slot_of(g) for g in sorted(generations, reverse=True)]

    async def mine_one(self, slots: Sequence[str] | None = None) -> bool:
        """Lease a queued game of any live generation, mine it, store its puzzles; False if
        none is queued."""
        for slot in slots if slots is not None else await self._slots():
            leased = await self._queue(slot).claim(self.pool, seconds=LEASE_SECONDS)
            if not leased:
                continue
            game_id, lease = leased[0]["game_id"], leased[0]["leased_until"]
            stream_id, version = leased[0]["stream_id"], leased[0]["version"]
            logged = await self.log.read(stream_id, 1, limit=version)
            raw = await _process.run([item.event for item in logged])
            found = _decoder.decode(raw)
            rows = found.puzzles
            async with self.pool.acquire() as conn, conn.transaction():
                done = _DONE.format(s=slot)
                if await conn.execute(done, game_id, lease, len(rows), found.cpu_ms) != "UPDATE 1":
                    return True  # the lease expired and another took it, or a rebuild switched
                await conn.execute(
                    _PUZZLES.format(s=slot),
                    game_id,
                    [puzzle_id(game_id, p.position.deal_no, p.position.step) for p in rows],
                    [p.position.deal_no for p in rows],
                    [p.position.step for p in rows],
                    [p.position.theme for p in rows],
                    [_encoder.encode(p).decode() for p in rows],
                )
            self.mined += 1
            return True
        return False
