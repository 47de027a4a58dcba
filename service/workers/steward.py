"""The steward (распорядитель): the service acting at a table by itself.

It acts where nobody else will. Its ``table`` duty: a seat's time ran out
(`domain.table.TimeOut`), a seat to act whose player is absent or abandoned the game
(`domain.table.PlayFor`). Its ``bots`` duty: a bot of the service to move
(`service.players.bots`), which thinks, so it runs in a process of its own (``preferans bots``,
started by ``preferans serve``), never on the API's event loop. Every command's effects keep
``api.games.due_at`` (the moment the service must act at the table) and ``bot_due_at`` (a bot is
to move) (`service.games.lobby`); a steward sleeps until the earliest of its column (or a hint that
something was appended), then claims the due games with a lease: the column moves ``lease``
seconds ahead under ``FOR UPDATE SKIP LOCKED``, so of several processes exactly one works on a
game at a time, and a process that dies mid-way leaves the game to another once the lease runs
out. What it finally does is decided at the game's exact version
(If-Match) under an idempotency key of game, version and seat, so a timeout fires once however
many processes see it, and a timeout racing a late human move resolves to one of them: the
domain refuses the move after the deadline, and the version refuses whichever comes second.

The move made for a seat is the table's rule (``table.stand_in``): the ``basic`` bot, seeing
exactly what the seat sees at the version it acts on, or the simplest legal move; a bot's move
that is not among the seat's legal moves gives way to the simplest. The rules always leave the
seat to act a move (tests/property/test_stand_in_properties.py plays thousands of deals so).

No table can stall the others or itself: a failure at one table (a bug, a stand-in move the
rules refuse) is that table's alone, and the round serves the rest. After
``failures_to_arbiter`` failed turns in a row the table is marked for an arbiter: logged once,
counted (``preferans_tables_for_arbiter_total``, ``preferans_tables_awaiting_arbiter``), and its
due time cleared, so that no steward leases it again every few seconds; a command that moves the
game (a player back, an arbiter's) writes its due time anew and lifts the mark. A database that
fails is no table's fault: that fails the round, which the worker kit retries after a backoff.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import multiprocessing
import random
import uuid
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from typing import Literal

import asyncpg

from bots import LEVELS, BotView, Budget, seat_input, think
from bots.budget import as_budget
from bots.common import default_action
from domain import game
from domain import table as tbl
from domain.deal.messages import AnswerClaim, Claim, SeatCommand
from domain.errors import PreferansError
from service.eventlog.store import IdempotencyKeyInFlight, StreamConflict
from service.exceptions import GameNotFound, Unavailable
from service.games.service import GameService
from service.games.streams import game_stream
from service.platform.clock import SYSTEM_CLOCK, Clock
from service.platform.entropy import SYSTEM_ENTROPY, Entropy
from service.platform.leases import Lease
from service.platform.lru import Lru
from service.platform.metrics import (
    BOT_THINK_SECONDS,
    STEWARD_TABLE_FAILURES,
    TABLES_AWAITING_ARBITER,
    TABLES_FOR_ARBITER,
    TIMEOUTS_PENDING,
)
from service.platform.orphans import die_with_parent
from service.platform.worker_kit import Worker
from service.players.bots import BotPlayers

log = logging.getLogger(__name__)

Duty = Literal["table", "bots"]
WAITING_SWEEP = 5.0
"""Seconds between two looks for tables left waiting for their deal."""
ROUND_PACE = 0.05
"""Seconds at least between two rounds of the table's steward: every append hints it, and a
tournament's start (333 tables created in three seconds) woke it for a round per append, each
a few queries on the request path's process; a clock's deadline is late by 50 ms at most."""

ROUND_TIMEOUT = 60.0
"""Seconds a round may take before it is cancelled as failed (its stack logged): every bot and
every timeout of the deployment waits on the steward's rounds, so one that hangs (an await that
never ends) must not stop them for ever. A round's own work is a few seconds at most: a bot's
thinking has its wall-clock cap, and a game left half served goes back to the lease."""

_COLUMN: dict[Duty, str] = {"table": "due_at", "bots": "bot_due_at"}


class _Sql:
    """The steward's statements, over its duty's column, each column judged by the clock that
    wrote it: ``due_at`` holds the deadlines of the commands' stamps, so the table's duty
    compares it with the steward's clock (passed in, ms since the epoch: a test moves it);
    ``bot_due_at`` is the database's ``now()`` at the command that made a bot the one to act,
    so the bots' duty compares it with the database's clock."""

    def __init__(self, column: str, pace: float) -> None:
        due = f"{column} + interval '{pace:.3f} seconds'"
        self.passes_now = column == "due_at"
        now = "to_timestamp({}::float8 / 1000)" if self.passes_now else "now()"
        # How long until the next is due, and how many tables wait on a time (the metrics').
        self.next = (
            f"SELECT extract(epoch FROM min({due}) - {now.format('$1')})::float8, count({column})"
            " FROM api.games"
        )
        self.restore = f"""
UPDATE api.games
   SET {column} = greatest(to_timestamp($2::float8 / 1000),
                           {now.format("$4")} + interval '20 milliseconds')
 WHERE game_id = $1 AND version <= $3"""
        # ``<=``: the row's version moves only when a command changes the row (a trick won by
        # the seat that played last leaves whose turn it is as it was), so the state read may
        # be newer than the row; a command that did change the row since wrote its own due.
        self.clear = f"UPDATE api.games SET {column} = NULL WHERE game_id = $1 AND version <= $2"


class NoMoveForSeat(Exception):
    """The seat to act has no legal move: a fold the rules never produce (a bug, or a log the
    rules could not have written). The table is then one for an arbiter."""


def simplest(legal: list[SeatCommand]) -> SeatCommand:
    """The simplest legal move: a claim rejected, else the first move listed (never a claim)."""
    for action in legal:
        if isinstance(action, AnswerClaim) and not action.accept:
            return action
    moves = [a for a in legal if not isinstance(a, Claim)]
    if not moves:
        raise NoMoveForSeat(f"no legal move among {legal!r}")
    return default_action(moves)


_DATABASE_TROUBLE = (
    asyncpg.PostgresConnectionError,
    asyncpg.CannotConnectNowError,
    asyncpg.InterfaceError,
    asyncpg.InternalClientError,
    OSError,  # TimeoutError and ConnectionError among them
    Unavailable,
)
"""Failures of the database, not of a table: the round fails and is retried."""


@dataclass
class _Log:
    """A game's events as the steward last read them (tail reads bring it up to date)."""

    events: list[game.Event] = field(default_factory=list)


def thought_of(level: str, seed: int, budget: Budget) -> str:
    """How a bot's move was chosen, as its events' metadata keep it: ``strong seed=9f…
    layouts=bid:40,… seconds=1.5``. ``LEVELS[level](seat_input(events[:version], seat),
    Random(int(seed, 16)), Budget.parse(…))`` on what follows the seed thinks it again: exactly
    under layout or node counts (unless the seconds' safety net ended that search), and under a
    wall-clock budget alone only as far as the machine then got."""
    return " ".join((level, f"seed={seed:016x}", budget.describe()))


class Steward:
    """See the module docstring. One per process; run `run` as a background task."""

    def __init__(
        self,
        games: GameService,
        pool: asyncpg.Pool,
        *,
        duty: Duty = "table",
        bots: BotPlayers | None = None,
        poll_interval: float = 1.0,
        lease: float = 5.0,
        batch: int = 32,
        think_budget: Budget | float = 1.5,
        think_processes: int = 0,
        pace: float = 0.0,
        clock: Clock = SYSTEM_CLOCK,
        entropy: Entropy = SYSTEM_ENTROPY,
        failures_to_arbiter: int = 5,
    ) -> None:
        """``pace``: seconds at least from the moment a bot's turn comes to its move (a bot
        that answered at once would be hard to follow); counts for the ``bots`` duty.
        ``entropy`` gives the generator the bots (and the stand-ins) think with.
        ``failures_to_arbiter``: failed turns in a row at one table before it is marked for
        an arbiter (see the module docstring). ``think_processes``: worker processes the
        strong bots think in (0: a thread of this process, so concurrent tables share its
        interpreter and wait for each other)."""
        self.games = games
        self._swept_at = 0
        self.clock = clock
        """The time it judges a turn by: the clock the games stamp their commands with."""
        self.pool = pool
        self.duty = duty
        self.bots = bots
        self._pace = max(0.0, pace) if duty == "bots" else 0.0
        self._sql = _Sql(_COLUMN[duty], self._pace)
        self._claim = Lease("api.games", key="game_id", due=_COLUMN[duty])
        """The claim of the games due (``pace`` ago), leased ``lease`` seconds."""
        self.poll_interval = poll_interval
        self.lease = lease
        self.batch = batch
        self.think_budget = as_budget(think_budget)
        self.think_processes = max(0, think_processes)
        self._thinkers: ProcessPoolExecutor | None = None
        """The pool the strong bots think in, started at the first strong move."""
        self.worker = Worker(
            f"steward-{duty}", self._round, interval=poll_interval,
            pace=ROUND_PACE if duty != "bots" else 0.0, round_timeout=ROUND_TIMEOUT,
        )  # fmt: skip
        """Its loop (`service.platform.worker_kit`): `run` runs it, `hint` wakes it."""
        self._logs: Lru[uuid.UUID, _Log] = Lru(256)
        self._rng = entropy.generator()
        self.acted = 0
        """Commands this steward has issued (timeouts, moves for absent seats, bot moves)."""
        self.failures_to_arbiter = max(1, failures_to_arbiter)
        self._failures: dict[uuid.UUID, int] = {}
        """Failed turns in a row per table (none: its last turn went well)."""
        self.for_arbiter: dict[uuid.UUID, int] = {}
        """The tables marked for an arbiter, with the version they stalled at."""

    def _now(self) -> tuple[int, ...]:
        """The time the duty's statements compare with, if it is the steward's clock's."""
        return (self.clock.now_ms(),) if self._sql.passes_now else ()

    def _now_ms(self) -> int | None:
        """The time the duty's lease compares with: the steward's clock's, or None for the
        database's."""
        return self.clock.now_ms() if self._sql.passes_now else None

    def hint(self, *_: object) -> None:
        """Something was appended: a deadline may have moved nearer."""
        self.worker.hint()

    async def run(self) -> None:
        try:
            await self.worker.run()
        finally:
            self.close()

    def close(self) -> None:
        """Stop the thinking processes (a move being thought is abandoned: its lease runs
        out and the move is thought again elsewhere)."""
        if self._thinkers is not None:
            self._thinkers.shutdown(wait=False, cancel_futures=True)
            self._thinkers = None

    async def _think(self, level: str, view: BotView, seed: int, budget: Budget) -> SeatCommand:
        """A strong decision off the event loop: in the pool of processes when there is one
        (every table thinks on a core of its own), else in a thread."""
        if self.think_processes:
            if self._thinkers is None:
                # spawned, not forked: the children start clean of this process's threads
                # and event loop, and import only the bots and the domain
                self._thinkers = ProcessPoolExecutor(
                    self.think_processes, mp_context=multiprocessing.get_context("spawn"),
                    initializer=die_with_parent,  # a killed worker leaves no thinker behind
                )  # fmt: skip
            loop = asyncio.get_running_loop()
            try:
                return await loop.run_in_executor(self._thinkers, think, level, view, seed, budget)
            except BrokenProcessPool:
                # a thinker died (killed, out of memory): a new pool for the next move, and
                # this one thought here, from the same seed, so the move is the same
                log.warning("a bot's thinking process died; the pool is started again")
                self.close()
        return await asyncio.to_thread(think, level, view, seed, budget)

    async def _round(self) -> float | None:
        """Serve the tables due now; the seconds until the next is due (None: not known)."""
        if self.duty == "table":
            await self._deal_waiting()
        claimed = await self._claim.claim(
            self.pool, seconds=self.lease, limit=self.batch, now_ms=self._now_ms(),
            grace=self._pace,
        )  # fmt: skip
        # Its lag: how late it comes to the table that waited longest (0 when none is due).
        self.worker.report_lag(max((r["overdue"] for r in claimed), default=0.0))
        due = [r["game_id"] for r in claimed]
        if due:
            await asyncio.gather(*(self._serve(game_id) for game_id in due))
            if len(due) == self.batch:
                return 0.0  # more may be due: claim again at once
        wait, waiting = await self.pool.fetchrow(self._sql.next, *self._now())
        if self.duty == "table":
            TIMEOUTS_PENDING.set(waiting)
        return None if wait is None else float(wait)

    async def _deal_waiting(self) -> None:
        """Every `WAITING_SWEEP` seconds, deal the tables left waiting for their deal
        (`GameService.deal_waiting`): no deadline brings the steward there."""
        now = self.clock.now_ms()
        if now - self._swept_at < WAITING_SWEEP * 1000:
            return
        self._swept_at = now
        dealt = await self.games.deal_waiting()
        if dealt:
            log.warning("steward: dealt %d table(s) left waiting for their deal", dealt)

    async def _serve(self, game_id: uuid.UUID) -> None:
        """`_serve_table`, with a failure kept to this table (`_failed`) unless the database
        failed: the other tables of the round go on."""
        try:
            await self._serve_table(game_id)
        except _DATABASE_TROUBLE:
            raise
        except Exception as failure:  # any bug at one table is that table's alone
            await self._failed(game_id, failure)
        else:
            self._recovered(game_id)

    async def _failed(self, game_id: uuid.UUID, failure: BaseException) -> None:
        """One more failed turn at ``game_id``; the ``failures_to_arbiter``-th in a row marks
        it for an arbiter (logged once) and clears its due time, so it is leased no more."""
        STEWARD_TABLE_FAILURES.labels(self.duty).inc()
        count = self._failures.get(game_id, 0) + 1
        self._failures[game_id] = count
        if count == 1:
            log.warning("steward: %s failed, will retry: %r", game_id, failure)
        if count < self.failures_to_arbiter:
            return
        with contextlib.suppress(GameNotFound):
            version, _ = await self.games.state(game_id)
            await self.pool.execute(self._sql.clear, game_id, version)
            if game_id not in self.for_arbiter:
                self.for_arbiter[game_id] = version
                TABLES_FOR_ARBITER.labels(self.duty).inc()
                TABLES_AWAITING_ARBITER.labels(self.duty).inc()
                log.error(
                    "steward: table %s marked for an arbiter at version %d after %d failed "
                    "turns in a row (%s duty): %r", game_id, version, count, self.duty, failure,
                )  # fmt: skip
        self._failures.pop(game_id, None)

    def _recovered(self, game_id: uuid.UUID) -> None:
        """A turn at ``game_id`` went well: its count of failures starts again, and a mark
        for an arbiter is lifted (something moved the game, or it was due once more)."""
        self._failures.pop(game_id, None)
        if self.for_arbiter.pop(game_id, None) is not None:
            TABLES_AWAITING_ARBITER.labels(self.duty).dec()
            log.info("steward: table %s moves again, no longer for an arbiter", game_id)

    async def _serve_table(self, game_id: uuid.UUID) -> None:
        """Act at ``game_id`` while there is something for the service to do now; then give
        the game back its true ``due_at`` in place of the lease, unless a command did.
        A refusal of the domain fails the turn (`_failed`): the same state would be refused
        the same move again at the next lease."""
        # The table's duties follow one another at once (a seat played for, then the next);
        # a bot moves once a claim, so that the next bot's move waits for its pace.
        for _ in range(1 if self.duty == "bots" else 64):
            try:
                if not await self._act_once(game_id):
                    break
            except (StreamConflict, IdempotencyKeyInFlight):
                continue  # someone acted first: look again
            except GameNotFound:
                return
            except PreferansError:
                raise  # the stand-in's move was refused: counted against the table
        else:
            if self.duty == "table":
                return  # still busy: the lease brings it back soon
        with contextlib.suppress(GameNotFound):
            version, state = await self.games.state(game_id)
            due = self._due(state)
            if due is None:
                await self.pool.execute(self._sql.clear, game_id, version)
            else:
                await self.pool.execute(self._sql.restore, game_id, due, version, *self._now())

    def _due(self, state: game.GameState) -> int | None:
        """When the service must act at this table next (ms since the epoch), if ever."""
        if not isinstance(state, game.Pulka) or game.is_terminal(state):
            return None
        times = []
        for seat in game.to_act(state):
            player = state.players[seat]
            if self.duty == "bots":
                if self.bots is not None and player is not None and self.bots.is_bot(player):
                    times.append(self.clock.now_ms())
            elif tbl.played_for(state.table, seat) is not None:
                times.append(self.clock.now_ms())
            elif (due := tbl.deadline(state.rules, state.table, seat)) is not None:
                times.append(due)
        return min(times, default=None)

    async def _act_once(self, game_id: uuid.UUID) -> bool:
        version, state = await self.games.state(game_id)
        if not isinstance(state, game.Pulka) or game.is_terminal(state):
            return False
        now = self.clock.now_ms()
        rules, table = state.rules, state.table
        for seat in game.to_act(state):
            player = state.players[seat]
            if self.duty == "bots":
                if self.bots is None or player is None or not self.bots.is_bot(player):
                    continue
                move, thought = await self._bot_move(
                    game_id, version, seat, self.bots.level(player)
                )
                await self.games.play_as_bot(game_id, player, move, version, thought=thought)
            elif tbl.played_for(table, seat) is not None:
                move = await self._stand_in(game_id, version, state, seat)
                await self.games.steward(game_id, tbl.PlayFor(seat=seat, move=move), version, now)
            elif (due := tbl.deadline(rules, table, seat)) is not None and due <= now:
                move = await self._stand_in(game_id, version, state, seat)
                await self.games.steward(game_id, tbl.TimeOut(seat=seat, move=move), version, now)
            else:
                continue
            self.acted += 1
            return True
        return False

    async def _stand_in(
        self, game_id: uuid.UUID, version: int, state: game.Pulka, seat: int
    ) -> SeatCommand:
        """The move made for ``seat``: one of its legal moves at ``version``, always."""
        legal = game.legal_actions(state, seat)
        fallback = simplest(legal)  # raises NoMoveForSeat before any bot thinks
        if state.rules.table.stand_in == "basic":
            move, _ = await self._bot_move(game_id, version, seat, "basic")
            if move in legal and not isinstance(move, Claim):
                return move
        return fallback

    async def _bot_move(self, game_id: uuid.UUID, version: int, seat: int, level: str
                        ) -> tuple[SeatCommand, str]:  # fmt: skip
        """The move of a bot at ``seat``, from exactly what the seat sees at ``version``, and how
        it was thought (`thought_of`): each move's generator has a seed of its own, so the move
        can be thought again from the log alone."""
        events = await self._events(game_id)
        if len(events) < version:
            # read behind the state (a reader lagging): look again, as after a conflict
            raise StreamConflict(game_stream(game_id), version, len(events))
        view = seat_input(events[:version], seat)
        decide = LEVELS[level]
        budget = self.think_budget
        seed = self._rng.getrandbits(64)
        rng = random.Random(seed)
        with BOT_THINK_SECONDS.labels(level).time():
            if level in ("strong", "expert"):  # a search off the event loop, up to the budget
                move = await self._think(level, view, seed, budget)
            else:
                move = decide(view, rng, budget)
        return move, thought_of(level, seed, budget)

    async def _events(self, game_id: uuid.UUID) -> list[game.Event]:
        held = self._logs.get(game_id)
        if held is None:
            held = _Log()
            self._logs.put(game_id, held)
        tail = await self.games.log.read(game_stream(game_id), len(held.events) + 1)
        held.events.extend(item.event for item in tail)
        return held.events
