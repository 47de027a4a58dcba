"""The puzzles as a player meets them: the next one near his rating, an attempt, his history.

The puzzles themselves are the ``puzzles`` read model (mined by `service.read_models.miner`,
read from its active slot). Beside them, in ``api.puzzle_ratings``, ``api.puzzle_players`` and
``api.puzzle_attempts`` (migration 0024), are what players do with them: a player's first
attempt at a puzzle is kept once and never changed, and rates both him and the puzzle
(`projections.puzzle_rating`) in the same transaction, under the player's row lock and then the
puzzle's (always in that order, so that two attempts never wait on each other in a circle).

What is never served: a puzzle of a game still in play (the read model queues a game at its
end only) and a puzzle of a duplicate table whose event is still open (its cards are the other
tables' cards: every query here leaves out a game ``api.tournament_tables`` marks embargoed).
Before an attempt a puzzle shows its position, never its answer, the values of its cards, the
card played at the table or the game it came from.
"""

from __future__ import annotations

import datetime as dt
import uuid

import asyncpg
import msgspec

from domain.cards import parse_card
from projections.puzzle_rating import (
    MU,
    SIGMA,
    Attempt,
    PuzzleRating,
    fold_attempts,
    rate_attempt,
)
from projections.puzzles import Puzzle, PuzzlePosition, PuzzleSolution, Theme
from service.exceptions import InvalidCursor, PuzzleNotFound, PuzzleRefused
from service.platform.cursors import decode_cursor, encode_cursor

_decoder = msgspec.json.Decoder(Puzzle)


class PuzzleRatingView(msgspec.Struct, frozen=True, kw_only=True):
    """A puzzle rating (a player's or a puzzle's): openskill's mu and sigma."""

    mu: float
    sigma: float
    attempts: int
    solved: int
    """Attempts that found the answer: the player's puzzles solved, or the puzzle's solvers."""


class PuzzleView(msgspec.Struct, frozen=True, kw_only=True):
    """A puzzle as shown before its attempt: the position and its rating."""

    id: uuid.UUID
    position: PuzzlePosition
    rating: PuzzleRatingView


class PuzzleRatingChange(msgspec.Struct, frozen=True, kw_only=True):
    before: float
    mu: float
    sigma: float


class AttemptView(msgspec.Struct, frozen=True, kw_only=True):
    """A player's rated attempt at a puzzle, and what it revealed."""

    puzzle_id: uuid.UUID
    card: str
    solved: bool
    at: dt.datetime
    theme: Theme | None = None
    solution: PuzzleSolution | None = None
    """The answer, every card's value, the card played at the table (None if the puzzle is no
    longer served)."""
    game_id: uuid.UUID | None = None
    """The game the puzzle came from: its replay shows the whole deal."""
    deal_no: int | None = None
    step: int | None = None
    player: PuzzleRatingChange
    puzzle: PuzzleRatingChange


class PuzzleHistory(msgspec.Struct, frozen=True, kw_only=True):
    rating: PuzzleRatingView
    """The player's puzzle rating (the starting one before his first attempt)."""
    items: tuple[AttemptView, ...]
    """Newest first."""
    next_cursor: str | None = None


_CURSOR = "puzzles"
_EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)

_SERVED = (
    "NOT EXISTS (SELECT 1 FROM api.tournament_tables t WHERE t.game_id::text = {g} AND t.embargoed)"
)
"""A puzzle's game is not a duplicate table whose event is still open."""


def _in_active_slot(columns: str, where: str, tail: str = "") -> str:
    """A query over the active slot of ``rm.puzzles`` (its rows are ``x``)."""
    branches = " UNION ALL ".join(
        f"(SELECT {columns} FROM rm.puzzles_{slot} x WHERE p.active % 2 = {parity} AND {where}"
        f" AND {_SERVED.format(g='x.game_id')} {tail})"
        for slot, parity in (("a", 1), ("b", 0))
    )
    return (
        f"SELECT t.* FROM rm.projections p CROSS JOIN LATERAL ({branches}) t"
        " WHERE p.name = 'puzzles'"
    )


_PUZZLE = _in_active_slot("x.puzzle_id, x.game_id, x.puzzle::text AS puzzle", "x.puzzle_id = $1")
_PUZZLES = _in_active_slot(
    "x.puzzle_id, x.game_id, x.puzzle::text AS puzzle", "x.puzzle_id = ANY($1::uuid[])"
)
_RATED_SERVED = (
    "EXISTS (SELECT 1 FROM rm.projections p WHERE p.name = 'puzzles' AND ("
    + " OR ".join(
        f"(p.active % 2 = {parity} AND EXISTS (SELECT 1 FROM rm.puzzles_{slot} x"
        f" WHERE x.puzzle_id = r.puzzle_id AND {_SERVED.format(g='x.game_id')}))"
        for slot, parity in (("a", 1), ("b", 0))
    )
    + "))"
)
_UNTRIED = (
    "NOT EXISTS (SELECT 1 FROM api.puzzle_attempts a WHERE a.player_id = $1"
    " AND a.puzzle_id = r.puzzle_id)"
)
_NEAREST_ABOVE = f"""
SELECT r.puzzle_id, r.mu FROM api.puzzle_ratings r
 WHERE r.mu >= $2 AND {_UNTRIED} AND {_RATED_SERVED}
 ORDER BY r.mu, r.puzzle_id LIMIT 1"""
_NEAREST_BELOW = f"""
SELECT r.puzzle_id, r.mu FROM api.puzzle_ratings r
 WHERE r.mu < $2 AND {_UNTRIED} AND {_RATED_SERVED}
 ORDER BY r.mu DESC, r.puzzle_id LIMIT 1"""
_UNRATED = _in_active_slot(
    "x.puzzle_id",
    "NOT EXISTS (SELECT 1 FROM api.puzzle_ratings q WHERE q.puzzle_id = x.puzzle_id)",
    "ORDER BY x.puzzle_id LIMIT 1",
)

_RATING_COLUMNS = "mu, sigma, attempts, solved"


def _rating(row: asyncpg.Record | None) -> PuzzleRating:
    if row is None:
        return PuzzleRating()
    return PuzzleRating(
        mu=row["mu"], sigma=row["sigma"], attempts=row["attempts"], solved=row["solved"]
    )


def _view(rating: PuzzleRating) -> PuzzleRatingView:
    return PuzzleRatingView(
        mu=rating.mu, sigma=rating.sigma, attempts=rating.attempts, solved=rating.solved
    )


class Puzzles:
    """The puzzles' reads and attempts (see the module docstring), on the request path's pool."""

    def __init__(self, pool: asyncpg.Pool) -> None:
        self.pool = pool

    async def _found(self, conn: asyncpg.Connection | asyncpg.Pool, puzzle_id: uuid.UUID
                     ) -> tuple[Puzzle, str]:  # fmt: skip
        row = await conn.fetchrow(_PUZZLE, puzzle_id)
        if row is None:
            raise PuzzleNotFound("no puzzle has this id, or its deal is not public yet")
        return _decoder.decode(row["puzzle"]), row["game_id"]

    async def get(self, puzzle_id: uuid.UUID) -> PuzzleView:
        """The puzzle's position and rating, never its answer."""
        puzzle, _ = await self._found(self.pool, puzzle_id)
        row = await self.pool.fetchrow(
            f"SELECT {_RATING_COLUMNS} FROM api.puzzle_ratings WHERE puzzle_id = $1", puzzle_id
        )
        return PuzzleView(id=puzzle_id, position=puzzle.position, rating=_view(_rating(row)))

    async def rating(self, player: str) -> PuzzleRating:
        row = await self.pool.fetchrow(
            f"SELECT {_RATING_COLUMNS} FROM api.puzzle_players WHERE player_id = $1",
            uuid.UUID(player),
        )
        return _rating(row)

    async def next_for(self, player: str) -> PuzzleView:
        """The puzzle ``player`` has not tried whose rating is nearest his (an unrated puzzle
        stands at the starting rating); `PuzzleNotFound` when he has tried them all."""
        mu = (await self.rating(player)).mu
        who = uuid.UUID(player)
        candidates: list[tuple[float, uuid.UUID]] = []
        for query in (_NEAREST_ABOVE, _NEAREST_BELOW):
            row = await self.pool.fetchrow(query, who, mu)
            if row is not None:
                candidates.append((row["mu"], row["puzzle_id"]))
        unrated = await self.pool.fetchrow(_UNRATED)
        if unrated is not None:
            candidates.append((MU, unrated["puzzle_id"]))
        if not candidates:
            raise PuzzleNotFound("no puzzle is left for you to try: more come with every game")
        _, chosen = min(candidates, key=lambda c: (abs(c[0] - mu), str(c[1])))
        return await self.get(chosen)

    async def attempt(self, player: str, puzzle_id: uuid.UUID, card: str) -> AttemptView:
        """``player``'s attempt with ``card`` (any spelling `domain.cards` reads): kept, rated,
        and the solution revealed."""
        card = parse_card(card)  # malformed: NotationError (400 bad-notation)
        who = uuid.UUID(player)
        async with self.pool.acquire() as conn, conn.transaction():
            puzzle, game_id = await self._found(conn, puzzle_id)
            if card not in puzzle.position.legal:
                raise PuzzleRefused(
                    f"the hand may play {', '.join(puzzle.position.legal)}, not {card}",
                    code="puzzle.not_a_choice",
                )
            await conn.execute(
                "INSERT INTO api.puzzle_players (player_id, mu, sigma) VALUES ($1, $2, $3)"
                " ON CONFLICT DO NOTHING",
                who, MU, SIGMA,
            )  # fmt: skip
            mine = _rating(await conn.fetchrow(
                f"SELECT {_RATING_COLUMNS} FROM api.puzzle_players WHERE player_id = $1"
                " FOR UPDATE", who,
            ))  # fmt: skip
            tried = await conn.fetchval(
                "SELECT true FROM api.puzzle_attempts WHERE player_id = $1 AND puzzle_id = $2",
                who, puzzle_id,
            )  # fmt: skip
            if tried:
                raise PuzzleRefused(
                    "a puzzle is rated once per player: your attempt is in your history",
                    code="puzzle.attempted",
                )
            await conn.execute(
                "INSERT INTO api.puzzle_ratings (puzzle_id, mu, sigma) VALUES ($1, $2, $3)"
                " ON CONFLICT DO NOTHING",
                puzzle_id, MU, SIGMA,
            )  # fmt: skip
            theirs = _rating(await conn.fetchrow(
                f"SELECT {_RATING_COLUMNS} FROM api.puzzle_ratings WHERE puzzle_id = $1"
                " FOR UPDATE", puzzle_id,
            ))  # fmt: skip
            solved = card == puzzle.solution.answer
            me, it = rate_attempt(mine, theirs, solved)
            at = await conn.fetchval(
                "INSERT INTO api.puzzle_attempts (player_id, puzzle_id, card, solved,"
                " player_before, player_mu, player_sigma, puzzle_before, puzzle_mu, puzzle_sigma)"
                " VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING at",
                who, puzzle_id, card, solved, mine.mu, me.mu, me.sigma, theirs.mu, it.mu,
                it.sigma,
            )  # fmt: skip
            await conn.execute(
                "UPDATE api.puzzle_players SET mu = $2, sigma = $3, attempts = $4, solved = $5,"
                " updated_at = now() WHERE player_id = $1",
                who, me.mu, me.sigma, me.attempts, me.solved,
            )  # fmt: skip
            await conn.execute(
                "UPDATE api.puzzle_ratings SET mu = $2, sigma = $3, attempts = $4, solved = $5"
                " WHERE puzzle_id = $1",
                puzzle_id, it.mu, it.sigma, it.attempts, it.solved,
            )  # fmt: skip
        return AttemptView(
            puzzle_id=puzzle_id, card=card, solved=solved, at=at,
            theme=puzzle.position.theme, solution=puzzle.solution,
            game_id=uuid.UUID(game_id), deal_no=puzzle.position.deal_no,
            step=puzzle.position.step,
            player=PuzzleRatingChange(before=mine.mu, mu=me.mu, sigma=me.sigma),
            puzzle=PuzzleRatingChange(before=theirs.mu, mu=it.mu, sigma=it.sigma),
        )  # fmt: skip

    async def history(
        self, player: str, cursor: str | None = None, limit: int = 20
    ) -> PuzzleHistory:
        """``player``'s attempts, newest first, a page at a time, and his puzzle rating."""
        who = uuid.UUID(player)
        after: tuple[dt.datetime, uuid.UUID] | None = None
        if cursor is not None:
            at_us, _, pid = decode_cursor(_CURSOR, cursor).partition(" ")
            try:
                after = (_EPOCH + dt.timedelta(microseconds=int(at_us)), uuid.UUID(pid))
            except (ValueError, OverflowError):
                raise InvalidCursor(f"not a cursor of this list: {cursor!r}") from None
        rows = await self.pool.fetch(
            "SELECT * FROM api.puzzle_attempts WHERE player_id = $1"
            " AND ($2::timestamptz IS NULL OR (at, puzzle_id) < ($2, $3::uuid))"
            " ORDER BY at DESC, puzzle_id DESC LIMIT $4",
            who, after[0] if after else None, after[1] if after else None, limit,
        )  # fmt: skip
        found = {
            r["puzzle_id"]: (_decoder.decode(r["puzzle"]), r["game_id"])
            for r in await self.pool.fetch(_PUZZLES, [r["puzzle_id"] for r in rows])
        }
        items = []
        for r in rows:
            shown = found.get(r["puzzle_id"])
            items.append(AttemptView(
                puzzle_id=r["puzzle_id"], card=r["card"], solved=r["solved"], at=r["at"],
                theme=shown[0].position.theme if shown else None,
                solution=shown[0].solution if shown else None,
                game_id=uuid.UUID(shown[1]) if shown else None,
                deal_no=shown[0].position.deal_no if shown else None,
                step=shown[0].position.step if shown else None,
                player=PuzzleRatingChange(before=r["player_before"], mu=r["player_mu"],
                                    sigma=r["player_sigma"]),
                puzzle=PuzzleRatingChange(before=r["puzzle_before"], mu=r["puzzle_mu"],
                                    sigma=r["puzzle_sigma"]),
            ))  # fmt: skip
        next_cursor = None
        if len(rows) == limit:
            last = rows[-1]
            stamp = (last["at"] - _EPOCH) // dt.timedelta(microseconds=1)
            next_cursor = encode_cursor(_CURSOR, f"{stamp} {last['puzzle_id']}")
        return PuzzleHistory(
            rating=_view(await self.rating(player)), items=tuple(items), next_cursor=next_cursor
        )


# --- the ratings rebuilt from the attempts ------------------------------------------------------


class RatingsCheck(msgspec.Struct, frozen=True, kw_only=True):
    """The kept puzzle ratings against those folded from the attempts, in their order."""

    attempts: int
    players: int
    puzzles: int
    differing: list[str]
    """``player <id>`` or ``puzzle <id>``: each rating kept otherwise than the attempts give."""
    rewritten: bool = False


_TABLES = {
    "player": ("api.puzzle_players", "player_id"),
    "puzzle": ("api.puzzle_ratings", "puzzle_id"),
}


async def check_ratings(conn: asyncpg.Connection, *, rebuild: bool = False) -> RatingsCheck:
    """Fold every rated attempt in the order it was rated (``seq``, migration 0026) and compare
    with the kept ratings; with ``rebuild``, write the folded ones over those that differ. As
    the administrator, the attempts locked against new ones meanwhile (they wait, then rate
    on the rebuilt ratings)."""
    async with conn.transaction():
        await conn.execute(
            "LOCK TABLE api.puzzle_attempts, api.puzzle_players, api.puzzle_ratings"
            " IN SHARE ROW EXCLUSIVE MODE"
        )
        rows = await conn.fetch(
            "SELECT player_id::text, puzzle_id::text, solved FROM api.puzzle_attempts ORDER BY seq"
        )
        folded = dict(zip(
            ("player", "puzzle"),
            fold_attempts(Attempt(r["player_id"], r["puzzle_id"], r["solved"]) for r in rows),
            strict=True,
        ))  # fmt: skip
        differing: list[str] = []
        for kind, (table, key) in _TABLES.items():
            kept = {
                r[key]: _rating(r)
                for r in await conn.fetch(f"SELECT {key}::text, {_RATING_COLUMNS} FROM {table}")
            }
            wrong = sorted(k for k in kept.keys() | folded[kind].keys()
                           if kept.get(k) != folded[kind].get(k))  # fmt: skip
            differing += [f"{kind} {k}" for k in wrong]
            if rebuild and wrong:
                await conn.execute(
                    f"DELETE FROM {table} WHERE {key} = ANY($1::uuid[])",
                    [k for k in wrong if k not in folded[kind]],
                )
                await conn.executemany(
                    f"INSERT INTO {table} ({key}, {_RATING_COLUMNS}) VALUES ($1, $2, $3, $4, $5)"
                    f" ON CONFLICT ({key}) DO UPDATE SET mu = excluded.mu,"
                    " sigma = excluded.sigma, attempts = excluded.attempts,"
                    " solved = excluded.solved",
                    [(k, r.mu, r.sigma, r.attempts, r.solved)
                     for k in wrong if (r := folded[kind].get(k)) is not None],
                )  # fmt: skip
    return RatingsCheck(
        attempts=len(rows), players=len(folded["player"]), puzzles=len(folded["puzzle"]),
        differing=differing, rewritten=rebuild and bool(differing),
    )  # fmt: skip
