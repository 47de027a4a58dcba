"""The read models' SQL: how each projection stores a batch, and how the API reads them.

Each `ReadModel` turns a batch of decoded events into writes with the pure ``apply`` functions of
`projections`, inside the transaction the runner (`service.projections`) opens, which also moves
the projection's checkpoint. Tables live in schema ``rm``, in two slots (``_a`` / ``_b``) for
blue/green rebuilds (migration ``0003_read_models``); the readers below always read the slot of
the generation ``rm.projections`` names as active, in the same statement, so a switch is atomic
for them.

Idempotency: every per-game row keeps the stream version it reflects and an event at or below it
is skipped, so a batch applied twice writes nothing new.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable, Sequence
from datetime import datetime
from typing import Any, ClassVar, Generic, NamedTuple, TypeVar

import asyncpg
import msgspec

from domain.game import Event, GameEnded
from projections import analysis, collusion, ratings, sheet, stats
from service.eventlog.store import RecordedEvent
from service.games.streams import game_id_of

M = TypeVar("M", bound=msgspec.Struct)

_encoder = msgspec.json.Encoder()


class Decoded(NamedTuple):
    """A stored event with its decoded domain event."""

    record: RecordedEvent
    event: Event


class PoisonEvent(Exception):
    """A projection could not apply this event; it stops there (status ``failed``)."""

    def __init__(self, record: RecordedEvent, cause: BaseException) -> None:
        super().__init__(
            f"{record.event_type} {record.stream_id}@{record.version} "
            f"(position {record.global_position}): {type(cause).__name__}: {cause}"
        )
        self.record = record
        self.cause = cause


def slot_of(generation: int) -> str:
    """The table slot a generation writes: ``a`` for odd generations, ``b`` for even ones."""
    return "a" if generation % 2 else "b"


class ReadModel:
    """One projection's storage. Subclasses set the class attributes and `apply`."""

    name: ClassVar[str]
    code_version: ClassVar[int]
    """Bump it when the projection's logic changes: the service then rebuilds it blue/green."""
    handled: ClassVar[frozenset[str]]
    """Stored event types the projection reads (only these are decoded for it)."""
    tables: ClassVar[tuple[str, ...]]
    """Base table names in ``rm``; the slot suffix is added."""

    async def apply(self, conn: asyncpg.Connection, slot: str, batch: Sequence[Decoded]) -> None:
        """Write ``batch`` (this projection's events, in feed order) in ``conn``'s transaction.

        Raises `PoisonEvent` for an event the pure projection refuses.
        """
        raise NotImplementedError

    async def truncate(self, conn: asyncpg.Connection, slot: str) -> None:
        names = ", ".join(f"rm.{t}_{slot}" for t in self.tables)
        await conn.execute(f"TRUNCATE {names}")


# --- per-game documents -------------------------------------------------------------------------


class GameDocs(Generic[M]):
    """Per-game models in ``rm.<table>_<slot> (game_id, version, model)``."""

    def __init__(self, table: str, model: type[M], empty: M, apply: Callable[[M, Event], M]):
        self.table = table
        self.empty = empty
        self.step = apply
        self.decoder = msgspec.json.Decoder(model)

    async def load(
        self, conn: asyncpg.Connection, slot: str, game_ids: Sequence[str]
    ) -> dict[str, tuple[int, M]]:
        rows = await conn.fetch(
            f"SELECT game_id, version, model::text FROM rm.{self.table}_{slot}"
            " WHERE game_id = ANY($1::text[])",
            list(game_ids),
        )
        return {r[0]: (r[1], self.decoder.decode(r[2])) for r in rows}

    def fold(
        self, docs: dict[str, tuple[int, M]], batch: Sequence[Decoded], on_event: Any = None
    ) -> set[str]:
        """Apply ``batch`` to ``docs`` in place; the ids of the games that changed.

        ``on_event(game_id, before, after, decoded)`` is called after each applied event.
        """
        changed: set[str] = set()
        for item in batch:
            game_id = game_id_of(item.record.stream_id)
            if game_id is None:
                continue
            version, model = docs.get(game_id, (0, self.empty))
            if item.record.version <= version:
                continue  # applied before: idempotent per (stream_id, version)
            try:
                new = self.step(model, item.event)
            except Exception as exc:
                raise PoisonEvent(item.record, exc) from exc
            docs[game_id] = (item.record.version, new)
            changed.add(game_id)
            if on_event is not None:
                on_event(game_id, model, new, item)
        return changed

    async def save(
        self,
        conn: asyncpg.Connection,
        slot: str,
        docs: dict[str, tuple[int, M]],
        changed: set[str],
    ) -> None:
        if not changed:
            return
        ids = sorted(changed)
        await conn.execute(
            f"""INSERT INTO rm.{self.table}_{slot} (game_id, version, model)
                SELECT g, v, m::jsonb
                  FROM unnest($1::text[], $2::bigint[], $3::text[]) AS t(g, v, m)
                ON CONFLICT (game_id) DO UPDATE
                   SET version = EXCLUDED.version, model = EXCLUDED.model""",
            ids,
            [docs[g][0] for g in ids],
            [_encoder.encode(docs[g][1]).decode() for g in ids],
        )


def _game_ids(batch: Sequence[Decoded]) -> list[str]:
    return sorted({g for d in batch if (g := game_id_of(d.record.stream_id)) is not None})


# --- the pool sheet -----------------------------------------------------------------------------


class SheetReadModel(ReadModel):
    """`projections.sheet` per game (``GET /v1/games/{id}/sheet``).

    A game's scored deals are rows of their own, written once; the game's row holds the rest
    of the model. So a batch rewrites small rows, however long the game.
    """

    name = "sheet"
    code_version = 3  # 2: a deal line's tricks by seat, a list (see `_deal_line`); 3: a dealer
    # at four who played the talon of an all-pass has his tricks, not null
    handled = sheet.HANDLED
    tables = ("sheet", "sheet_deals")

    def __init__(self) -> None:
        self.docs = GameDocs("sheet", sheet.GameSheet, sheet.EMPTY, sheet.apply)

    async def apply(self, conn: asyncpg.Connection, slot: str, batch: Sequence[Decoded]) -> None:
        docs = await self.docs.load(conn, slot, _game_ids(batch))  # deals not loaded: ()
        changed = self.docs.fold(docs, batch)
        lines = [(g, d) for g in sorted(changed) for d in docs[g][1].deals]
        for g in changed:
            version, model = docs[g]
            docs[g] = (version, msgspec.structs.replace(model, deals=()))
        await self.docs.save(conn, slot, docs, changed)
        if lines:
            await conn.execute(
                f"""INSERT INTO rm.sheet_deals_{slot} (game_id, deal_no, line)
                    SELECT g, n, l::jsonb
                      FROM unnest($1::text[], $2::int[], $3::text[]) AS t(g, n, l)""",
                [g for g, _ in lines],
                [d.deal_no for _, d in lines],
                [_encoder.encode(d).decode() for _, d in lines],
            )


# --- statistics ---------------------------------------------------------------------------------


class StatsReadModel(ReadModel):
    """`projections.stats`: a model per game and a row per (player, game)."""

    name = "stats"
    code_version = 2  # 2: abandoned games
    handled = stats.HANDLED
    tables = ("stats_games", "stats_players")

    def __init__(self) -> None:
        self.docs = GameDocs("stats_games", stats.GameStats, stats.EMPTY, stats.apply)

    async def apply(self, conn: asyncpg.Connection, slot: str, batch: Sequence[Decoded]) -> None:
        docs = await self.docs.load(conn, slot, _game_ids(batch))
        changed = self.docs.fold(docs, batch)
        await self.docs.save(conn, slot, docs, changed)
        rows = [(p, r) for g in sorted(changed) for p, r in stats.player_rows(g, docs[g][1])]
        if rows:
            await conn.execute(
                f"""INSERT INTO rm.stats_players_{slot} (player_id, game_id, row)
                    SELECT p, g, r::jsonb
                      FROM unnest($1::text[], $2::text[], $3::text[]) AS t(p, g, r)
                    ON CONFLICT (player_id, game_id) DO UPDATE SET row = EXCLUDED.row""",
                [p for p, _ in rows],
                [r.game_id for _, r in rows],
                [_encoder.encode(r).decode() for _, r in rows],
            )


# --- ratings ------------------------------------------------------------------------------------


class _Ended(NamedTuple):
    game_id: str
    game: ratings.RatedGame
    record: RecordedEvent


class RatingsReadModel(ReadModel):
    """`projections.ratings`: seats per game, a rating per player and each player's history."""

    name = "ratings"
    code_version = 3  # 2: a player who abandoned ranks last (table.abandon_rating); 3: weights
    handled = ratings.HANDLED
    tables = ("rating_games", "ratings", "rating_history")

    def __init__(self) -> None:
        self.docs = GameDocs(
            "rating_games", ratings.RatedGame, ratings.RatedGame(), ratings.apply_game
        )

    async def apply(self, conn: asyncpg.Connection, slot: str, batch: Sequence[Decoded]) -> None:
        docs = await self.docs.load(conn, slot, _game_ids(batch))
        ended: list[_Ended] = []

        def on_event(game_id: str, before: Any, after: Any, item: Decoded) -> None:
            if isinstance(item.event, GameEnded) and before.result is None and after.rated:
                ended.append(_Ended(game_id, after, item.record))

        changed = self.docs.fold(docs, batch, on_event)
        await self.docs.save(conn, slot, docs, changed)
        if not ended:
            return
        players = sorted({p for e in ended for p in e.game.players if p is not None})
        rows = await conn.fetch(
            f"SELECT player_id, mu, sigma, games FROM rm.ratings_{slot}"
            " WHERE player_id = ANY($1::text[])",
            players,
        )
        current = {r[0]: ratings.Rating(mu=r[1], sigma=r[2], games=r[3]) for r in rows}
        touched: dict[str, datetime] = {}
        history: list[tuple[str, ratings.RatingChange, RecordedEvent]] = []
        for e in ended:  # in feed order: a rating depends on the order of games
            try:
                updates = ratings.rate_finished(e.game_id, e.game, current)
            except Exception as exc:
                raise PoisonEvent(e.record, exc) from exc
            for player, rating, change in updates:
                current[player] = rating
                touched[player] = e.record.recorded_at
                history.append((player, change, e.record))
        ids = sorted(touched)
        await conn.execute(
            f"""INSERT INTO rm.ratings_{slot} (player_id, mu, sigma, games, rating, updated_at)
                SELECT * FROM unnest($1::text[], $2::float8[], $3::float8[], $4::int[],
                                     $5::float8[], $6::timestamptz[])
                ON CONFLICT (player_id) DO UPDATE
                   SET mu = EXCLUDED.mu, sigma = EXCLUDED.sigma, games = EXCLUDED.games,
                       rating = EXCLUDED.rating, updated_at = EXCLUDED.updated_at""",
            ids,
            [current[p].mu for p in ids],
            [current[p].sigma for p in ids],
            [current[p].games for p in ids],
            [current[p].ordinal for p in ids],
            [touched[p] for p in ids],
        )
        await conn.execute(
            f"""INSERT INTO rm.rating_history_{slot}
                       (player_id, game_no, game_id, position, at, change)
                SELECT p, n, g, pos, at, c::jsonb
                  FROM unnest($1::text[], $2::int[], $3::text[], $4::bigint[], $5::timestamptz[],
                              $6::text[]) AS t(p, n, g, pos, at, c)""",
            [p for p, _, _ in history],
            [c.game_no for _, c, _ in history],
            [c.game_id for _, c, _ in history],
            [r.global_position for _, _, r in history],
            [r.recorded_at for _, _, r in history],
            [_encoder.encode(c).decode() for _, c, _ in history],
        )


# --- the double-dummy analysis -------------------------------------------------------------------


class AnalysisReadModel(ReadModel):
    """`projections.game_analysis` of every finished game: each deal's par and card costs, and
    each player's tricks lost against par. A game's information is public once it is over (as
    its replays are), so its end queues it here; the solver's seconds of work are done apart,
    by `service.read_models.analyst`, so that neither this runner's other projections nor the feed's
    horizon ever wait on them."""

    name = "analysis"
    code_version = 2
    """2: each deal's decisions are judged too (a rebuild analyses every finished game again)."""
    handled = frozenset({GameEnded.__struct_config__.tag})  # type: ignore[arg-type]
    tables = ("analysis_games", "analysis_deals", "analysis_players")

    async def apply(self, conn: asyncpg.Connection, slot: str, batch: Sequence[Decoded]) -> None:
        ended = [
            (g, d.record.stream_id, d.record.version)
            for d in batch
            if isinstance(d.event, GameEnded) and (g := game_id_of(d.record.stream_id))
        ]
        if ended:
            await conn.execute(
                f"""INSERT INTO rm.analysis_games_{slot} (game_id, stream_id, version)
                    SELECT * FROM unnest($1::text[], $2::text[], $3::bigint[])
                    ON CONFLICT DO NOTHING""",
                [g for g, _, _ in ended],
                [s for _, s, _ in ended],
                [v for _, _, v in ended],
            )


# --- the puzzles ------------------------------------------------------------------------------


class PuzzlesReadModel(ReadModel):
    """`projections.puzzles` of every finished game: the positions where one card alone keeps
    par. As for the analysis, a game's end only queues it here; the solver's work is done
    apart, by `service.read_models.miner`. A queued game is one that is over; whether its
    puzzles may be shown yet (a duplicate table's event still open) is asked when they are
    served (`service.read_models.puzzles`)."""

    name = "puzzles"
    code_version = 1
    handled = frozenset({GameEnded.__struct_config__.tag})  # type: ignore[arg-type]
    tables = ("puzzle_games", "puzzles")

    async def apply(self, conn: asyncpg.Connection, slot: str, batch: Sequence[Decoded]) -> None:
        ended = [
            (g, d.record.stream_id, d.record.version)
            for d in batch
            if isinstance(d.event, GameEnded) and (g := game_id_of(d.record.stream_id))
        ]
        if ended:
            await conn.execute(
                f"""INSERT INTO rm.puzzle_games_{slot} (game_id, stream_id, version)
                    SELECT * FROM unnest($1::text[], $2::text[], $3::bigint[])
                    ON CONFLICT DO NOTHING""",
                [g for g, _, _ in ended],
                [s for _, s, _ in ended],
                [v for _, _, v in ended],
            )


# --- the collusion statistics -------------------------------------------------------------------


class CollusionReadModel(ReadModel):
    """`projections.collusion`: each game's seats and scored deals' facts, one row per game. The
    double-dummy side of the figures is the analysis' (``rm.analysis_deals``), joined when the
    report is read (`read_collusion_records`)."""

    name = "collusion"
    code_version = 1
    handled = collusion.HANDLED
    tables = ("collusion_games",)

    def __init__(self) -> None:
        self.docs = GameDocs(
            "collusion_games", collusion.CollusionGame, collusion.EMPTY, collusion.apply
        )

    async def apply(self, conn: asyncpg.Connection, slot: str, batch: Sequence[Decoded]) -> None:
        docs = await self.docs.load(conn, slot, _game_ids(batch))
        changed = self.docs.fold(docs, batch)
        await self.docs.save(conn, slot, docs, changed)


READ_MODELS: tuple[type[ReadModel], ...] = (
    SheetReadModel,
    StatsReadModel,
    RatingsReadModel,
    AnalysisReadModel,
    PuzzlesReadModel,
    CollusionReadModel,
)


# --- reading the active generation ---------------------------------------------------------------


def _active(projection: str, table: str, columns: str, where: str, tail: str = "") -> str:
    """A query over the slot of ``projection``'s active generation, in one statement (its
    table is ``r`` in ``where``)."""
    branches = " UNION ALL ".join(
        f"(SELECT {columns} FROM rm.{table}_{slot} r WHERE p.active % 2 = {parity} AND {where}"
        f" {tail})"
        for slot, parity in (("a", 1), ("b", 0))
    )
    return (
        f"SELECT t.* FROM rm.projections p CROSS JOIN LATERAL ({branches}) t"
        f" WHERE p.name = '{projection}'"
    )


_SHEET = _active("sheet", "sheet", "version, model::text AS model", "game_id = $1")
_SHEET_DEALS = _active(
    "sheet", "sheet_deals", "deal_no, line::text AS line", "game_id = $1", "ORDER BY deal_no"
) + " ORDER BY deal_no"  # fmt: skip
_PLAYER_ROWS = _active("stats", "stats_players", "row::text AS row", "player_id = $1")
_RATING = _active("ratings", "ratings", "mu, sigma, games", "player_id = $1")
_HISTORY = _active(
    "ratings", "rating_history", "game_no, at, change::text AS change", "player_id = $1",
    "ORDER BY game_no",
)  # fmt: skip
# Which side of the board a rated player is on: the service's bots and programs playing
# through the API are computers (a player unknown to api.players, e.g. imported, is a human).
_COMPUTER = (
    "coalesce((SELECT ap.kind IN ('bot', 'program') FROM api.players ap"
    " WHERE ap.player_id::text = r.player_id::text), false)"
)
_ON_BOARD = f"($3::boolean IS NULL OR {_COMPUTER} = $3::boolean)"
_BOARD = _active(
    "ratings", "ratings", "player_id, mu, sigma, games, rating", _ON_BOARD,
    "ORDER BY rating DESC, player_id LIMIT $1::bigint + $2::bigint",
) + " ORDER BY rating DESC, player_id LIMIT $1 OFFSET $2"  # fmt: skip
# The page and the board's size in one statement, so one snapshot: read apart, a rating
# written between them gave a page of three players on a board of none.
_BOARD_PAGE = (
    "SELECT (SELECT coalesce(sum(n), 0)::bigint FROM ("
    + _active("ratings", "ratings", "count(*) AS n", _ON_BOARD)
    + ") counts) AS total, page.* FROM (SELECT 1) one LEFT JOIN ("
    + _BOARD
    + ") page ON true ORDER BY page.rating DESC, page.player_id"
)

_DEAL_ANALYSIS = _active(
    "analysis", "analysis_deals", "analysis::text AS analysis", "game_id = $1 AND deal_no = $2"
)
_PLAYER_PAR = _active("analysis", "analysis_players", "deals, tricks_lost", "player_id = $1")

_sheet_decoder = msgspec.json.Decoder(sheet.GameSheet)
_deal_decoder = msgspec.json.Decoder(sheet.SheetDeal)
_row_decoder = msgspec.json.Decoder(stats.PlayerGame)
_change_decoder = msgspec.json.Decoder(ratings.RatingChange)

Conn = Any
"""An asyncpg connection or pool."""


async def read_sheet(conn: Conn, game_id: str) -> tuple[int, sheet.GameSheet] | None:
    """The game's sheet and the stream version it reflects; None if the projection has none.

    The game's row and its deals are read in one snapshot (a read-only transaction holds no
    transaction id, so it never holds the feed's horizon back).
    """
    async with _connection(conn) as c, c.transaction(isolation="repeatable_read", readonly=True):
        row = await c.fetchrow(_SHEET, game_id)
        if row is None:
            return None
        deals = await c.fetch(_SHEET_DEALS, game_id)
    model = _sheet_decoder.decode(row["model"])
    lines = tuple(_deal_line(r["line"], len(model.players)) for r in deals)
    return row["version"], msgspec.structs.replace(model, deals=lines)


def _deal_line(raw: str | bytes, seats: int) -> sheet.SheetDeal:
    """A stored deal line; one written by code version 1 (its tricks keyed by seat, an object)
    reads as the list it is now, until the rebuild rewrites it."""
    try:
        return _deal_decoder.decode(raw)
    except msgspec.ValidationError:
        line = msgspec.json.decode(raw)
        taken = {int(seat): n for seat, n in line.get("tricks", {}).items()}
        line["tricks"] = [taken.get(s) for s in range(seats)]
        return msgspec.convert(line, sheet.SheetDeal)


@contextlib.asynccontextmanager
async def _connection(conn: Conn) -> AsyncIterator[asyncpg.Connection]:
    if isinstance(conn, asyncpg.Pool):
        async with conn.acquire() as acquired:
            yield acquired
    else:
        yield conn


async def read_player_games(conn: Conn, player_id: str) -> list[stats.PlayerGame]:
    """The player's statistics rows, one per game he sat in."""
    return [_row_decoder.decode(r["row"]) for r in await conn.fetch(_PLAYER_ROWS, player_id)]


class RatingRecord(NamedTuple):
    rating: ratings.Rating
    history: list[tuple[datetime, ratings.RatingChange]]


async def read_rating(conn: Conn, player_id: str) -> RatingRecord | None:
    """The player's rating and history; None if he has finished no game yet."""
    row = await conn.fetchrow(_RATING, player_id)
    if row is None:
        return None
    history = [
        (r["at"], _change_decoder.decode(r["change"]))
        for r in await conn.fetch(_HISTORY, player_id)
    ]
    return RatingRecord(
        ratings.Rating(mu=row["mu"], sigma=row["sigma"], games=row["games"]), history
    )


async def read_leaderboard(
    conn: Conn, limit: int, offset: int = 0, computers: bool | None = None
) -> tuple[int, list[tuple[str, ratings.Rating]]]:
    """The number of rated players, and a page of them by rating, best first; only the
    computer players (bots, programs) if ``computers``, only the humans if it is False."""
    rows = await conn.fetch(_BOARD_PAGE, limit, offset, computers)
    return int(rows[0]["total"]), [
        (r["player_id"], ratings.Rating(mu=r["mu"], sigma=r["sigma"], games=r["games"]))
        for r in rows
        if r["player_id"] is not None
    ]


_deal_analysis = msgspec.json.Decoder(analysis.DealAnalysis)


async def read_deal_analysis(
    conn: Conn, game_id: str, deal_no: int
) -> analysis.DealAnalysis | None:
    """The double-dummy analysis of a deal of a finished game; None until the projection has
    analysed the game."""
    row = await conn.fetchrow(_DEAL_ANALYSIS, game_id, deal_no)
    return None if row is None else _deal_analysis.decode(row["analysis"])


async def read_player_par(conn: Conn, player_id: str) -> tuple[int, int]:
    """``(deals, tricks lost against par)`` over the player's analysed games."""
    rows = await conn.fetch(_PLAYER_PAR, player_id)
    return sum(r["deals"] for r in rows), sum(r["tricks_lost"] for r in rows)


# --- the collusion statistics ------------------------------------------------------------------

_COLLUSION_GAMES = _active(
    "collusion", "collusion_games", "game_id, model::text AS model", "finished"
)
# Each analysed deal's cards added up per seat that chose them, in the database (a deal's
# analysis is some 10 KB of JSON; what the statistics need, a few numbers).
_DEAL_PLAYS = _active(
    "analysis",
    "analysis_deals",
    """game_id, deal_no,
       (SELECT coalesce(jsonb_agg(jsonb_build_array(s.seat, s.n, s.best, s.cost)
                                  ORDER BY s.seat), '[]')
          FROM (SELECT (c->>'by')::int AS seat, count(*) AS n,
                       count(*) FILTER (WHERE (c->>'cost')::int <= 0) AS best,
                       sum(greatest((c->>'cost')::int, 0)) AS cost
                  FROM jsonb_array_elements(r.analysis->'cards') c GROUP BY 1) s)::text AS seats,
       coalesce(r.analysis->'opening_par', '[]')::text AS opening_par,
       coalesce(r.analysis->'result', '[]')::text AS result""",
    "true",
)

_collusion_decoder = msgspec.json.Decoder(collusion.CollusionGame)
_seats_decoder = msgspec.json.Decoder(tuple[collusion.SeatPlay, ...])
_by_seat_decoder = msgspec.json.Decoder(tuple[int | None, ...])


async def read_collusion_records(conn: Conn) -> list[collusion.DealRecord]:
    """Every deal of every finished game with its double-dummy play where the analyst has
    solved it, read in one snapshot."""
    async with _connection(conn) as c, c.transaction(isolation="repeatable_read", readonly=True):
        games = await c.fetch(_COLLUSION_GAMES)
        plays = await c.fetch(_DEAL_PLAYS)
    by_game: dict[str, dict[int, collusion.DealPlay]] = {}
    for r in plays:
        by_game.setdefault(r["game_id"], {})[r["deal_no"]] = collusion.DealPlay(
            seats=_seats_decoder.decode(r["seats"]),
            opening_par=_by_seat_decoder.decode(r["opening_par"]),
            result=_by_seat_decoder.decode(r["result"]),
        )
    out: list[collusion.DealRecord] = []
    for r in games:
        model = _collusion_decoder.decode(r["model"])
        out += collusion.records(r["game_id"], model, by_game.get(r["game_id"]))
    return out
