"""Tournaments as an application: a stream of their own, their tables' games, their secrets.

A tournament is the stream ``tournament-<uuid7>`` of `domain.tournament.messages` events, folded
by the pure decider of `domain.tournament.decider` and run by the same `CommandHandler` as a game
(load, decide, append at the version loaded, retry on a conflict). The service supplies what the
decider may not draw itself:

- the time (``at``, the service's clock) and the secrets: each round's secret and a duplicate's
  deals' secret are drawn by the database (``api.draw_tournament_secret``, migration 0023) and
  only their commitments are in the log until ``round_ended`` and ``deals_revealed``;
- the tables: when a round starts (or a robot run), each table's game is created with the
  tournament's frozen rules (`domain.tournament.format.table_rules`) and its players seated at
  once, so that the first deal is dealt with the creation. A duplicate table is dealt fixed
  layouts, every table of the round the same ones (`draw.duplicate_deck`); a robot run's deck
  is rotated so that the entrant holds seat ``k mod 3``'s cards in deal ``k``. The table's row in
  ``api.tournament_tables`` is claimed before its game is created (the game's id is the row's),
  so that a table is created once whichever process tries, and a duplicate table is embargoed
  from its first event on;
- the results: `TournamentService.settle` (run by the clerk, `service.workers.clerk`) records
  each ended table's settlement and deal outcomes, closes the round once every table has a
  result, starts the next, ends a robot event when its window closes and reveals a duplicate's
  deals once it is over.

The embargo (`Embargo`): until a duplicate event ends, a table's cards are seen by its own seats
while it is played and by nobody else; its replay, export, proof and sheet wait for the end.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import logging
import time
import uuid
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from typing import Any

import asyncpg
import msgspec

from domain import fairness, game
from domain.deal.messages import DealEnded
from domain.errors import PreferansError
from domain.table import PlayerAbsent
from domain.tournament import decider as td
from domain.tournament import messages as tm
from domain.tournament.draw import duplicate_deck
from domain.tournament.format import Format, InvalidTournament, table_rules
from service.eventlog.codec import EventCodec
from service.eventlog.handler import CommandContext, CommandHandler, CommandResult, Decider
from service.eventlog.log import EventLog
from service.eventlog.store import ANY, NO_STREAM, StreamConflict, uuid7
from service.exceptions import Forbidden, GameNotFound, NotFound, NotYet
from service.games.dealing import Layout, database_source
from service.games.service import GameService, GameSpec
from service.games.streams import game_stream
from service.platform.clock import SYSTEM_CLOCK, Clock
from service.platform.leadership import Leadership
from service.platform.lru import Lru
from service.players.accounts import Player, Players
from service.players.bots import BotPlayers, bot_id

TOURNAMENT_PREFIX = "tournament-"

TOURNAMENT_DECIDER: Decider[tm.TournamentCommand, td.State, tm.TournamentEvent] = Decider(
    initial_state=lambda: td.INITIAL_STATE, decide=td.decide, evolve=td.evolve
)
"""The tournaments' decider, for `service.eventlog.handler.CommandHandler`."""

log = logging.getLogger(__name__)

DAY_MS = 86_400_000
WAKE_AT_ONCE = 16
"""How many followers of a tournament are woken at a time (see `TournamentService._wake`)."""
WAKE_PAUSE = 0.005
"""Seconds between two slices of a tournament's followers woken."""
ROUND_SPREAD = 8.0
"""Seconds a round's tables are spread over: after each table the opening rests `ROUND_REST`
times as long as the table took, but never past that table's share of these seconds
(`TournamentService._open_round`), and not at all once it is behind. The other players'
requests get the time between; a round of 1,000 players is dealt in some 8 s, within the 10 s
of its target, and where each table takes longer than its share it goes at full speed
(docs/tournaments.md, The start of an event)."""
ROUND_REST = 2.0
"""The rest after a table, in the table's own time: the opening takes a third of the time."""


def tournament_stream(tournament_id: uuid.UUID | str) -> str:
    return f"{TOURNAMENT_PREFIX}{tournament_id}"


def tournament_codec() -> EventCodec:
    """The codec of the tournament's events: every one at schema 1 so far."""
    return EventCodec(tm.TournamentEvent)


def tournament_log(games_log: EventLog[Any]) -> EventLog[tm.TournamentEvent]:
    """The tournaments' log: the games' store, announcer and heads, with its own codec."""
    return games_log.with_codec(tournament_codec())


def kind_of(fmt: Format) -> str:
    """How the list names a format: ``robot``, ``duplicate``, ``schedule`` or ``swiss``."""
    if fmt.duplicate is not None:
        return "robot" if fmt.duplicate.robots is not None else "duplicate"
    return fmt.pairing


def check_service_format(fmt: Format) -> None:
    """What the service adds to the domain's checks: a duplicate round is its deals, played
    as fixed layouts (at most 100 per game)."""
    dup = fmt.duplicate
    if dup is None:
        return
    if fmt.length.kind != "deals" or fmt.length.deals != dup.deals_per_round:
        raise InvalidTournament(
            "a duplicate round is its deals: length {kind: deals, deals: deals_per_round}"
        )
    if dup.deals_per_round > 100:
        raise InvalidTournament("a duplicate round has at most 100 deals")


def duplicate_layouts(secret: bytes, round_no: int, deals: int, *, rotate: bool) -> list[Layout]:
    """The layouts every table of ``round_no`` plays (deal k dealt by seat (k − 1) mod 3, first
    dealer 0 everywhere); a robot run's (``rotate``) hands seat s the cards of seat
    (s + k − 1) mod 3, so that the entrant at seat 0 holds each seat's cards in turn."""
    out = []
    for deal_no in range(1, deals + 1):
        deck = duplicate_deck(secret, round_no, deal_no)
        hands, talon = fairness.deal_hands(deck, 3, (deal_no - 1) % 3)
        if rotate:
            hands = tuple(hands[(s + deal_no - 1) % 3] for s in range(3))
        out.append(Layout(hands=hands, talon=talon))
    return out


@dataclass(frozen=True, slots=True)
class TableRow:
    """A tournament table's game (``api.tournament_tables``)."""

    game_id: uuid.UUID
    tournament_id: uuid.UUID
    round_no: int
    table_no: int
    players: tuple[str, ...]
    embargoed: bool
    recorded: bool
    created: bool = True
    """Whether its game exists: a table's row is claimed before its game is created (a row
    without one is a table still being opened, or one a stopped process left to the clerk)."""
    finished: bool = False
    """Whether its game has ended, as its lobby row says (written with the game's end)."""


class Listed(msgspec.Struct, frozen=True, kw_only=True):
    """A tournament as the list shows it."""

    id: uuid.UUID
    name: str
    kind: str
    status: str
    organiser: str | None
    created_at: dt.datetime
    daily: dt.date | None = None
    opens_at: int | None = None
    closes_at: int | None = None
    rounds: int | None = None
    """The rounds the format plans."""
    round_no: int | None = None
    """The rounds started so far."""
    entrants: int | None = None
    """Entrants who have not withdrawn."""


_TABLE_FIELDS = (
    "t.game_id, t.tournament_id, t.round_no, t.table_no, t.players, t.embargoed, t.recorded"
)
_TABLE_COLUMNS = (
    f"{_TABLE_FIELDS},"
    " (SELECT g.status FROM api.games g WHERE g.game_id = t.game_id) AS game_status"
)


def _row(record: asyncpg.Record) -> TableRow:
    return TableRow(
        game_id=record["game_id"], tournament_id=record["tournament_id"],
        round_no=record["round_no"], table_no=record["table_no"],
        players=tuple(str(p) for p in record["players"]), embargoed=record["embargoed"],
        recorded=record["recorded"], created=record["game_status"] is not None,
        finished=record["game_status"] == "finished",
    )  # fmt: skip


class Embargo:
    """Which games are duplicate tables whose event has not ended (their cards hidden from all
    but their own seats, and their replay, export, proof and sheet withheld)."""

    def __init__(self, pool: asyncpg.Pool, cache_size: int = 20_000) -> None:
        self.pool = pool
        self._clear: Lru[uuid.UUID, bool] = Lru(cache_size)
        """Games known never to be embargoed again (no tournament's, or their event ended)."""

    async def seats(self, game_id: uuid.UUID) -> tuple[str, ...] | None:
        """The players of an embargoed table; None if the game is not embargoed."""
        if self._clear.get(game_id):
            return None
        row = await self.pool.fetchrow(
            "SELECT players, embargoed FROM api.tournament_tables WHERE game_id = $1", game_id
        )
        if row is None or not row["embargoed"]:
            self._clear.put(game_id, True)
            return None
        return tuple(str(p) for p in row["players"])

    async def may_watch(self, game_id: uuid.UUID, viewer: str | None) -> None:
        """Refuse anyone but the table's own players while it is embargoed (`Forbidden`)."""
        seats = await self.seats(game_id)
        if seats is not None and viewer not in seats:
            raise Forbidden(
                "a duplicate table is watched by nobody but its players until the event ends: "
                "the other tables play the same deals",
                code="duplicate_embargo",
            )

    async def may_disclose(self, game_id: uuid.UUID) -> None:
        """Refuse what shows every card of a table (a replay, an export, a proof, a sheet)
        while it is embargoed, to everyone (`NotYet`)."""
        if await self.seats(game_id) is not None:
            raise DuplicateEmbargo(
                "a duplicate table's deals are disclosed when the event ends: until then the "
                "other tables, and later entrants, play the same cards"
            )


class DuplicateEmbargo(NotYet):
    code = "tournament.duplicate_embargo"


class DailyExists(Exception):
    """The day's robot duplicate was created by another process first."""


class TournamentNotFound(NotFound):
    """No tournament has this id."""


class TournamentService:
    """Tournaments over the event log (see the module docstring)."""

    def __init__(
        self,
        log: EventLog[tm.TournamentEvent],
        games: GameService,
        players: Players,
        bots: BotPlayers,
        *,
        clock: Clock = SYSTEM_CLOCK,
        cache_size: int = 2_000,
    ) -> None:
        self.log = log
        self.pool = log.pool
        self.games = games
        self.players = players
        self.bots = bots
        self.clock = clock
        self.embargo = Embargo(self.pool)
        self.handler: CommandHandler[tm.TournamentCommand, td.State, tm.TournamentEvent] = (
            CommandHandler(log, TOURNAMENT_DECIDER, cache_size=cache_size, decide_apart=True)
        )
        self._locks: Lru[uuid.UUID, asyncio.Lock] = Lru(cache_size)
        self._changed: dict[uuid.UUID, set[asyncio.Event]] = {}
        """Each followed tournament's followers, woken by a hint."""
        self._hinted: dict[uuid.UUID, int] = {}
        self._waking: dict[uuid.UUID, bool] = {}
        """The tournaments whose followers are being woken, and whether once more after."""
        self._wakers: set[asyncio.Task[None]] = set()
        self._opening: dict[uuid.UUID, asyncio.Task[None]] = {}
        """The tournaments whose round's tables this process is opening (`_open_later`)."""

    # --- commands -----------------------------------------------------------------------------

    async def create(
        self, organiser: str | None, name: str, fmt: Format, *, daily: dt.date | None = None
    ) -> tuple[uuid.UUID, int, td.Tournament]:
        """A new tournament, ``organiser`` its arbiter; its round 1's (and a duplicate's
        deals') secret drawn by the database, committed to in ``tournament_created``."""
        check_service_format(fmt)
        tid = uuid7()
        commitment = await self._draw(tid, "round-1")
        deals = await self._draw(tid, "deals") if fmt.duplicate is not None else None
        command = tm.CreateTournament(
            at=self.clock.now_ms(), format=fmt, commitment=commitment, deals_commitment=deals
        )
        # The stream first, then its row in the list: a listed tournament can always be read.
        result = await self._handle(tid, command, organiser, expected=NO_STREAM)
        assert isinstance(result.state, td.Tournament)
        inserted = await self.pool.fetchval(
            "INSERT INTO api.tournaments (tournament_id, name, kind, status, organiser, daily)"
            " VALUES ($1, $2, $3, 'registering', $4, $5) ON CONFLICT (daily) DO NOTHING"
            " RETURNING tournament_id",
            tid, name, kind_of(fmt), uuid.UUID(organiser) if organiser else None, daily,
        )  # fmt: skip
        if inserted is None:  # another process made the day's event first: this one stays unlisted
            raise DailyExists(f"the robot duplicate of {daily} exists")
        return tid, result.version, result.state

    async def organiser(self, tid: uuid.UUID) -> str | None:
        row = await self.pool.fetchrow(
            "SELECT organiser FROM api.tournaments WHERE tournament_id = $1", tid
        )
        if row is None:
            raise TournamentNotFound("no tournament has this id")
        return str(row["organiser"]) if row["organiser"] is not None else None

    async def as_arbiter(self, tid: uuid.UUID, caller: str) -> None:
        """Refuse anyone but the organiser, the event's arbiter."""
        if await self.organiser(tid) != caller:
            raise Forbidden("only the tournament's organiser is its arbiter", code="not_arbiter")

    async def name_lineup(
        self, tid: uuid.UUID, caller: str, team: str, players: tuple[str, ...]
    ) -> CommandResult[td.State, tm.TournamentEvent]:
        """``team``'s lineup from the next round on, named by its captain (`decider.captain`)
        or the arbiter; anyone else is refused (`Forbidden`, ``not_captain``)."""
        _, state = await self.state(tid)
        if caller != td.captain(state, team) and caller != await self.organiser(tid):
            raise Forbidden(
                "a team's lineup is named by its captain (its first member registered) or the "
                "arbiter",
                code="not_captain",
            )
        return await self.command(tid, tm.NameLineup(team=team, players=players, by=caller), caller)

    async def command(
        self, tid: uuid.UUID, command: tm.TournamentCommand, actor: str | None
    ) -> CommandResult[td.State, tm.TournamentEvent]:
        """``command`` stamped with the service's time, decided and appended; then what its
        events call for (the tables of a round, a reveal)."""
        command = msgspec.structs.replace(command, at=self.clock.now_ms())
        async with self._lock(tid):
            result = await self._handle(tid, command, actor)
            await self._after(tid, result)
        return result

    async def start_round(
        self, tid: uuid.UUID, arbiter: str | None, pairing: Any = None
    ) -> CommandResult[td.State, tm.TournamentEvent]:
        """Start the next round: its secret from the database, the next one's commitment."""
        _, state = await self.state(tid)
        round_no = len(state.rounds) + 1
        secret = await self._secret(tid, f"round-{round_no}")
        following = await self._draw(tid, f"round-{round_no + 1}")
        command = tm.StartRound(
            secret=secret.hex(), next_commitment=following, pairing=pairing,
            arbiter=arbiter if pairing is not None else None,
        )  # fmt: skip
        return await self.command(tid, command, arbiter)

    async def _handle(
        self,
        tid: uuid.UUID,
        command: tm.TournamentCommand,
        actor: str | None,
        *,
        expected: Any = ANY,
    ) -> CommandResult[td.State, tm.TournamentEvent]:
        result = await self.handler.handle(
            tournament_stream(tid), command,
            context=CommandContext(actor=actor or "service:clerk", at=command.at),
            expected=expected,
        )  # fmt: skip
        if result.state is not None and isinstance(result.state, td.Tournament):
            status = (
                "finished" if isinstance(result.state, td.Finished)
                else "running" if isinstance(result.state, td.Running) else "registering"
            )  # fmt: skip
            await self.pool.execute(
                "UPDATE api.tournaments SET status = $2, updated_at = now()"
                " WHERE tournament_id = $1 AND status <> $2",
                tid, status,
            )  # fmt: skip
        return result

    async def _after(self, tid: uuid.UUID, result: CommandResult[td.State, Any]) -> None:
        state = result.state
        if not isinstance(state, td.Tournament):
            return
        for appended in result.appended:
            event = appended.event
            if isinstance(event, tm.RoundStarted):
                self._open_later(tid, state, event.round_no)
            elif isinstance(event, tm.RobotRunStarted):
                await self._open_run(tid, state, event.run)
            elif isinstance(event, tm.TournamentEnded):
                await self._ended(tid, state)

    async def _ended(self, tid: uuid.UUID, state: td.Tournament) -> None:
        """The event is over: a duplicate's deals revealed, its tables' embargo lifted."""
        if state.deals_commitment is not None and state.deals_secret is None:
            secret = await self._secret(tid, "deals")
            reveal = tm.RevealDeals(at=self.clock.now_ms(), secret=secret.hex())
            with contextlib.suppress(PreferansError):  # revealed already, by another process
                await self._handle(tid, reveal, None)
        await self.pool.execute(
            "UPDATE api.tournament_tables SET embargoed = false"
            " WHERE tournament_id = $1 AND embargoed",
            tid,
        )

    # --- the tables -------------------------------------------------------------------------

    def _open_later(self, tid: uuid.UUID, state: td.Tournament, round_no: int) -> None:
        """Open the round's tables after the command's answer: spread over `ROUND_SPREAD`
        seconds, they would hold the organiser's request (or the clerk's look) that long. The
        round's view lists each table's game as it is created. One process opens a round at a
        time, under a lock of the database's that a stopped process lets go of with its
        connection; the clerk opens what a round still lacks (`settle`)."""
        if tid in self._opening:
            return

        async def opening() -> None:
            opener = Leadership(self.pool)
            try:
                if await opener.lead(f"preferans:tournament-tables:{tid}"):
                    await self._open_round(tid, state, round_no)
            except Exception:  # the clerk opens what is missing on its next look
                log.exception("tournament %s: round %d's tables not all opened", tid, round_no)
            finally:
                del self._opening[tid]
                await opener.resign_all()

        self._opening[tid] = asyncio.get_running_loop().create_task(opening())

    async def stop(self) -> None:
        """Stop opening tables (the service closes): the clerk opens the rest later."""
        for task in list(self._opening.values()):
            task.cancel()
        await asyncio.gather(*self._opening.values(), return_exceptions=True)

    async def _open_round(self, tid: uuid.UUID, state: td.Tournament, round_no: int) -> None:
        fmt = state.format
        r = state.rounds[round_no - 1]
        layouts: list[Layout] = []
        if fmt.duplicate is not None:
            secret = await self._secret(tid, "deals")
            layouts = duplicate_layouts(
                secret, round_no, fmt.duplicate.deals_per_round, rotate=False
            )
        organiser = await self.organiser(tid)
        # One table after the other: each is a handful of round trips, and creating two or
        # four at a time dealt a thousand players' round a little sooner (2.0-2.5 s against
        # 3.1-3.4) but kept the event loop so busy that every other player's requests waited
        # (their p99 during the start 3.7-4.6 times its idle value, against 1.5-1.8; bench/
        # bench_tournament_start.py, docs/tournaments.md, The start of an event).
        dealer_of = (lambda t: 0) if fmt.duplicate is not None else (lambda t: t.first_dealer)
        todo = [t for t in r.tables if t.result is None and not t.annulled]
        opening = time.perf_counter()
        # The round's start wakes this process's followers of the standings, `WAKE_AT_ONCE` at
        # a time: the first tables wait that out rather than share the event loop with it
        # (together, they made most of the slow answers others got during a start).
        await asyncio.sleep(len(self._changed.get(tid, ())) / WAKE_AT_ONCE * WAKE_PAUSE)
        for n, t in enumerate(todo, start=1):
            began = time.perf_counter()
            await self._open_table(
                tid, state, round_no, t.table, t.seating, dealer_of(t), layouts,
                embargoed=fmt.duplicate is not None, organiser=organiser,
            )  # fmt: skip
            now = time.perf_counter()
            share = opening + ROUND_SPREAD * n / len(todo) - now
            if share > 0:
                await asyncio.sleep(min(ROUND_REST * (now - began), share))

    async def _open_run(self, tid: uuid.UUID, state: td.Tournament, run: int) -> None:
        fmt = state.format
        assert fmt.duplicate is not None and fmt.duplicate.robots is not None
        table = state.runs[run - 1]
        secret = await self._secret(tid, "deals")
        layouts = duplicate_layouts(secret, 0, fmt.duplicate.deals_per_round, rotate=True)
        await self._open_table(
            tid, state, 0, run, table.seating, 0, layouts, embargoed=True,
            organiser=await self.organiser(tid),
        )  # fmt: skip

    def _seat_id(self, player: str) -> str:
        """A seating's player as the game seats him: ``bot:<level>:<n>`` is the service's bot."""
        if player.startswith("bot:"):
            _, level, number = player.split(":")
            return bot_id(level, int(number))
        return player

    async def _open_table(
        self,
        tid: uuid.UUID,
        state: td.Tournament,
        round_no: int,
        table_no: int,
        seating: Sequence[str],
        first_dealer: int,
        layouts: Sequence[Layout],
        *,
        embargoed: bool,
        organiser: str | None,
    ) -> uuid.UUID:
        """The table's game: its row claimed first (a second call finds it), then the game
        created with every player seated, so that it is dealt at once; its players told."""
        ids = [self._seat_id(p) for p in seating]
        claimed = uuid7()
        game_id: uuid.UUID = await self.pool.fetchval(
            "INSERT INTO api.tournament_tables"
            " (game_id, tournament_id, round_no, table_no, players, embargoed)"
            " VALUES ($1, $2, $3, $4, $5::uuid[], $6)"
            " ON CONFLICT (tournament_id, round_no, table_no) DO UPDATE SET game_id ="
            " api.tournament_tables.game_id RETURNING game_id",
            claimed, tid, round_no, table_no, ids, embargoed,
        )  # fmt: skip
        if game_id != claimed:  # the row was claimed before: its game may exist already
            try:
                await self.games.state(game_id)
                return game_id  # created already
            except GameNotFound:
                pass
        fmt = state.format
        rules = table_rules(fmt, len(ids))
        spec = GameSpec(
            rules=rules,
            first_dealer=first_dealer,
            source=database_source(len(ids), layouts),
            take_seat=None,
            private=True,
        )
        known = await self.players.many(ids)
        for bot in self.bots.players.values():
            known.setdefault(bot.id, bot)
        seated = [
            (seat, known.get(pid) or Player(id=pid, name=pid)) for seat, pid in enumerate(ids)
        ]
        creator = Player(id=organiser or ids[0], name="organiser")
        try:
            await self.games.create(
                creator, spec, key=None, fingerprint=b"", bots=seated, game_id=game_id
            )
        except StreamConflict:
            return game_id  # another process created it first
        await self.pool.execute("SELECT api.notify_tournament_table($1)", game_id)
        return game_id

    async def tables(self, tid: uuid.UUID) -> list[TableRow]:
        rows = await self.pool.fetch(
            f"SELECT {_TABLE_COLUMNS} FROM api.tournament_tables t WHERE t.tournament_id = $1"
            " ORDER BY t.round_no, t.table_no",
            tid,
        )
        return [_row(r) for r in rows]

    # --- the clerk's round ------------------------------------------------------------------

    async def unfinished(self) -> list[uuid.UUID]:
        rows = await self.pool.fetch(
            "SELECT tournament_id FROM api.tournaments WHERE status <> 'finished'"
            " ORDER BY created_at LIMIT 500"
        )
        return [r["tournament_id"] for r in rows]

    async def with_results_to_record(self) -> list[uuid.UUID]:
        """The unfinished tournaments with a table whose game has ended unrecorded."""
        rows = await self.pool.fetch(
            "SELECT DISTINCT t.tournament_id FROM api.tournament_tables t"
            " JOIN api.games g USING (game_id) JOIN api.tournaments x USING (tournament_id)"
            " WHERE NOT t.recorded AND g.status = 'finished' AND x.status <> 'finished'"
        )
        return [r["tournament_id"] for r in rows]

    async def settle(self, tid: uuid.UUID) -> int:
        """One look at a tournament: every ended table's result recorded, a round whose tables
        all have one closed and the next started, a robot window that closed ended; how many
        commands it sent."""
        sent = 0
        async with self._lock(tid):
            _, state = await self.state(tid)
            if isinstance(state, td.Finished):
                return 0
            if state.rounds and tid not in self._opening:  # tables a process died before creating
                current = state.rounds[-1]
                if current.secret is None:
                    opened = await self._created(tid, current.round_no)
                    if opened < len(current.tables):
                        self._open_later(tid, state, current.round_no)  # unless opened already
            # Only the tables whose game has ended, asked of the database: a look comes with
            # every append anywhere, and loading each table's game to see that it went on took
            # the API as much CPU as opening the tables while a round of a thousand players was
            # being opened; reading every table's row, a third of that.
            ended = await self._to_record(tid)
            for row in ended:
                if await self._record(tid, state, row):
                    sent += 1
            if ended:  # what the recording changed
                _, state = await self.state(tid)
        sent += await self._advance(tid, state)
        return sent

    async def _created(self, tid: uuid.UUID, round_no: int) -> int:
        """How many of the round's tables have their game."""
        count: int = await self.pool.fetchval(
            "SELECT count(*) FROM api.tournament_tables t JOIN api.games g USING (game_id)"
            " WHERE t.tournament_id = $1 AND t.round_no = $2",
            tid, round_no,
        )  # fmt: skip
        return count

    async def _to_record(self, tid: uuid.UUID) -> list[TableRow]:
        """The tables whose game has ended and whose result is not recorded yet."""
        rows = await self.pool.fetch(
            f"SELECT {_TABLE_FIELDS}, g.status AS game_status FROM api.tournament_tables t"
            " JOIN api.games g USING (game_id)"
            " WHERE t.tournament_id = $1 AND NOT t.recorded AND g.status = 'finished'"
            " ORDER BY t.round_no, t.table_no",
            tid,
        )  # fmt: skip
        return [_row(r) for r in rows]

    async def _record(self, tid: uuid.UUID, state: td.Tournament, row: TableRow) -> bool:
        """Record a finished table's result (once: the row is marked recorded)."""
        _, closed = await self.games.state(row.game_id)
        if not isinstance(closed, game.PulkaClosed):
            return False
        t = _table_of(state, row.round_no, row.table_no)
        if t is None or t.result is not None or t.annulled:
            await self._mark(row.game_id)
            return False
        fmt = state.format
        logged = await self.games.log.read(game_stream(row.game_id))
        # A player the table marked absent after his timeouts was played for to its end: the
        # tournament removes him (and cards him, if the format says so) before his result.
        absent = dict.fromkeys(i.event.player for i in logged if isinstance(i.event, PlayerAbsent))
        for player in absent:
            if player in t.seating and player not in t.removed:
                removal = tm.ReportTimeoutRemoval(
                    at=self.clock.now_ms(), round_no=row.round_no, table=row.table_no,
                    player=player,
                )  # fmt: skip
                with contextlib.suppress(PreferansError):
                    await self._handle(tid, removal, None)
        outcomes: tuple[Any, ...] = ()
        if fmt.duplicate is not None:
            outcomes = tuple(i.event.outcome for i in logged if isinstance(i.event, DealEnded))
        settlement = closed.settlement
        rules = closed.rules
        timed_out = fmt.length.kind == "time" and max(settlement.pool) < rules.pool.target
        command = tm.RecordResult(
            round_no=row.round_no, table=row.table_no, whists=tuple(settlement.result),
            pool=tuple(settlement.pool), timed_out=timed_out, outcomes=outcomes,
        )  # fmt: skip
        try:
            result = await self._handle(
                tid, msgspec.structs.replace(command, at=self.clock.now_ms()), None
            )
            await self._after(tid, result)
        except PreferansError:
            return False  # a paused table records when it is resumed
        await self._mark(row.game_id)
        return True

    async def _mark(self, game_id: uuid.UUID) -> None:
        await self.pool.execute(
            "UPDATE api.tournament_tables SET recorded = true WHERE game_id = $1", game_id
        )

    async def _advance(self, tid: uuid.UUID, state: td.Tournament) -> int:
        """Close a round whose every table has a result, start the next; end a robot event
        whose window closed."""
        fmt = state.format
        now = self.clock.now_ms()
        robots = fmt.duplicate is not None and fmt.duplicate.robots is not None
        if robots:
            if now >= fmt.registration.closes_at:
                await self.command(tid, tm.EndEvent(), None)
                return 1
            return 0
        if not state.rounds or state.rounds[-1].secret is not None:
            return 0
        r = state.rounds[-1]
        if any(t.paused or (t.result is None and not t.annulled) for t in r.tables):
            return 0
        secret = await self._secret(tid, f"round-{r.round_no}")
        closed = await self.command(
            tid, tm.CloseRound(round_no=r.round_no, secret=secret.hex()), None
        )
        if isinstance(closed.state, td.Finished) or not isinstance(closed.state, td.Tournament):
            return 1
        await self.start_round(tid, None)
        return 2

    async def daily(self, level: str = "basic", deals: int = 6) -> uuid.UUID | None:
        """Today's robot duplicate (UTC), created once whichever process looks first: open
        from midnight to midnight, ``deals`` deals against two bots of ``level``."""
        now = self.clock.now_ms()
        today = dt.datetime.fromtimestamp(now / 1000, dt.UTC).date()
        exists = await self.pool.fetchval(
            "SELECT tournament_id FROM api.tournaments WHERE daily = $1", today
        )
        if exists is not None:
            return None
        start = int(dt.datetime.combine(today, dt.time(), dt.UTC).timestamp() * 1000)
        fmt = msgspec.convert(
            {
                "rounds": 1, "pairing": "swiss", "uneven": "byes",
                "length": {"kind": "deals", "deals": deals},
                "registration": {"opens_at": start, "closes_at": start + DAY_MS},
                "duplicate": {"deals_per_round": deals, "robots": {"level": level}},
            },
            Format,
        )  # fmt: skip
        try:
            tid, _, _ = await self.create(None, f"Daily robot duplicate {today}", fmt, daily=today)
        except DailyExists:
            return None
        return tid

    # --- reading ----------------------------------------------------------------------------

    async def state(self, tid: uuid.UUID) -> tuple[int, td.Tournament]:
        version, state = await self.handler.load(tournament_stream(tid))
        if not isinstance(state, td.Tournament):
            raise TournamentNotFound("no tournament has this id")
        return version, state

    async def events(
        self, tid: uuid.UUID, after: int = 0, limit: int = 500
    ) -> tuple[list[tuple[int, int, tm.TournamentEvent]], int, td.Tournament]:
        """The tournament's log after ``after``: ``(version, at ms, event)``, the version of
        the last event given, and the state (whoever shows them bares what is not public yet,
        `service.api.tournaments.public_event`)."""
        _, state = await self.state(tid)
        logged = await self.log.read(tournament_stream(tid), after + 1, limit=limit)
        out = [(item.version, item.event.at, item.event) for item in logged]
        return out, out[-1][0] if out else after, state

    async def page(
        self, cursor: uuid.UUID | None, limit: int, status: str | None = None
    ) -> list[Listed]:
        """A page of the list, newest first (only ``status``'s when given), each summarised."""
        rows = await self.pool.fetch(
            "SELECT tournament_id, name, kind, status, organiser, created_at, daily"
            " FROM api.tournaments WHERE ($1::uuid IS NULL OR tournament_id < $1)"
            " AND ($3::text IS NULL OR status = $3)"
            " ORDER BY tournament_id DESC LIMIT $2",
            cursor, limit, status,
        )  # fmt: skip
        return [await self._summarised(_listed(r)) for r in rows]

    async def _summarised(self, listed: Listed) -> Listed:
        """``listed`` with its registration window, rounds and field, read from its state (the
        handler's cache holds the states of the tournaments being followed)."""
        _, state = await self.state(listed.id)
        reg = state.format.registration
        return msgspec.structs.replace(
            listed, opens_at=reg.opens_at, closes_at=reg.closes_at, rounds=state.format.rounds,
            round_no=len(state.rounds),
            entrants=sum(1 for e in state.entrants if e.status != "withdrawn"),
        )  # fmt: skip

    async def name(self, tid: uuid.UUID) -> str:
        found = await self.pool.fetchval(
            "SELECT name FROM api.tournaments WHERE tournament_id = $1", tid
        )
        if found is None:
            raise TournamentNotFound("no tournament has this id")
        return str(found)

    async def history_of(self, player: uuid.UUID) -> list[Listed]:
        """The tournaments ``player`` played a table of, newest first (the last 200)."""
        rows = await self.pool.fetch(
            "SELECT tournament_id, name, kind, status, organiser, created_at, daily"
            " FROM api.tournaments t WHERE EXISTS (SELECT 1 FROM api.tournament_tables x"
            "  WHERE x.tournament_id = t.tournament_id AND $1 = ANY(x.players))"
            " ORDER BY tournament_id DESC LIMIT 200",
            player,
        )  # fmt: skip
        return [await self._summarised(_listed(r)) for r in rows]

    # --- live ---------------------------------------------------------------------------------

    def hint(self, stream_id: str, version: int) -> None:
        """A hint (`service.eventlog.hints`): a tournament's stream reached ``version`` (an
        empty ``stream_id``: look at every one followed)."""
        if stream_id and not stream_id.startswith(TOURNAMENT_PREFIX):
            return
        for tid in list(self._changed):
            if not stream_id or tournament_stream(tid) == stream_id:
                # the highest heard (hints may come out of order); -1: read it again
                self._hinted[tid] = max(version, self._hinted.get(tid, -1)) if stream_id else -1
                if tid in self._waking:
                    self._waking[tid] = True  # once more when this wake is done
                else:
                    self._waking[tid] = False
                    task = asyncio.get_running_loop().create_task(self._wake(tid))
                    self._wakers.add(task)
                    task.add_done_callback(self._wakers.discard)

    async def _wake(self, tid: uuid.UUID) -> None:
        """Wake the tournament's followers ``WAKE_AT_ONCE`` at a time, ``WAKE_PAUSE`` apart:
        a thousand followers woken at once sent their frames back to back for a tenth of a
        second, and every other request waited behind them; paced, they are all told within
        half a second and the event loop answers others between the slices."""
        try:
            again = True
            while again:
                for n, changed in enumerate(list(self._changed.get(tid, ())), start=1):
                    changed.set()
                    if n % WAKE_AT_ONCE == 0:
                        await asyncio.sleep(WAKE_PAUSE)
                again = self._waking.get(tid, False)
                self._waking[tid] = False
        finally:
            self._waking.pop(tid, None)

    async def follow(self, tid: uuid.UUID, ping: float) -> AsyncIterator[int | None]:
        """The tournament's version now, then each newer one (hinted, or read every ``ping``
        seconds should a hint be lost), and None after ``ping`` seconds of silence."""
        version, _ = await self.state(tid)
        yield version
        changed = asyncio.Event()
        self._changed.setdefault(tid, set()).add(changed)
        try:
            while True:
                try:
                    async with asyncio.timeout(ping):
                        await changed.wait()
                except TimeoutError:
                    now, _ = await self.state(tid)
                    if now == version:
                        yield None
                        continue
                else:
                    changed.clear()
                    # A hint names the version reached (the same one may come twice: from this
                    # process's append and from the channel): only a hint that names none
                    # sends a follower to the database, or a start's thousand followers would
                    # each read the tournament again.
                    hinted = self._hinted.get(tid, -1)
                    now = hinted if hinted >= 0 else (await self.state(tid))[0]
                if now > version:
                    version = now
                    yield version
        finally:
            waiting = self._changed.get(tid, set())
            waiting.discard(changed)
            if not waiting:
                self._changed.pop(tid, None)
                self._hinted.pop(tid, None)

    # --- secrets ----------------------------------------------------------------------------

    async def _draw(self, tid: uuid.UUID, slot: str) -> str:
        commitment = await self.pool.fetchval(
            "SELECT api.draw_tournament_secret($1, $2)", tid, slot
        )
        assert isinstance(commitment, str)
        return commitment

    async def _secret(self, tid: uuid.UUID, slot: str) -> bytes:
        secret = await self.pool.fetchval("SELECT api.tournament_secret($1, $2)", tid, slot)
        assert isinstance(secret, bytes)
        return secret

    def _lock(self, tid: uuid.UUID) -> asyncio.Lock:
        lock = self._locks.get(tid)
        if lock is None:
            lock = asyncio.Lock()
            self._locks.put(tid, lock)
        return lock


def _table_of(state: td.Tournament, round_no: int, table_no: int) -> td.Table | None:
    if round_no == 0:
        return state.runs[table_no - 1] if 0 < table_no <= len(state.runs) else None
    if not 0 < round_no <= len(state.rounds):
        return None
    tables = state.rounds[round_no - 1].tables
    return tables[table_no - 1] if 0 < table_no <= len(tables) else None


def _listed(row: asyncpg.Record) -> Listed:
    return Listed(
        id=row["tournament_id"], name=row["name"], kind=row["kind"], status=row["status"],
        organiser=str(row["organiser"]) if row["organiser"] else None,
        created_at=row["created_at"], daily=row["daily"],
    )  # fmt: skip
