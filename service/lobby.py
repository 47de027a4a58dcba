"""The lobby: every game's summary (status, seats, players) in ``api.games``, kept in step with
its stream.

The summary is a synchronous read model: `lobby_effects` gives the command handler the write a
command's events call for (the row of a new game, a changed status or seat list), and the
handler makes it in the transaction that appends those events, so the lobby can never disagree
with the log. The same row keeps the game's deal source (`service.dealing.DealSource`), which
tells every hand to come and is never served.

The SQL of ``api.games`` lives here.
"""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

import asyncpg
import msgspec

from domain import game
from domain.game import GameState, NoGame, Pulka, Status
from service.commands import InTransaction
from service.cursors import decode_cursor, encode_cursor
from service.dealing import DealSource, Layout
from service.exceptions import GameNotFound, InvalidCursor
from service.game_commands import Create
from service.streams import game_id_of, game_stream


class GameSummary(msgspec.Struct, frozen=True, kw_only=True):
    """A game as the lobby lists it."""

    id: uuid.UUID
    status: Status
    preset: str
    seats: int
    players: tuple[str | None, ...]
    """The player at each seat, null while it is free."""
    created_by: str | None
    """Who created it; null for an imported game."""
    created_at: datetime


_INSERT = """
INSERT INTO api.games (game_id, stream_id, status, preset, seats, players, created_by, version,
                       seed, layouts, imported)
VALUES ($1, $2, $3, $4, $5, $6::uuid[], $7, $8, $9, $10, $11)"""
_UPDATE = """
UPDATE api.games SET status = $2, players = $3::uuid[], version = $4
 WHERE game_id = $1 AND version < $4"""
_SOURCE = "SELECT seats, seed, layouts FROM api.games WHERE game_id = $1"
_COLUMNS = "game_id, status, preset, seats, players::text[], created_by::text, created_at"
_LIST = f"""
SELECT {_COLUMNS}
  FROM api.games
 WHERE ($1::text IS NULL OR status = $1) AND ($2::uuid IS NULL OR game_id < $2)
 ORDER BY game_id DESC
 LIMIT $3"""
_SUMMARY = f"SELECT {_COLUMNS} FROM api.games WHERE game_id = $1"

_CURSOR = "games"


def lobby_effects(
    stream_id: str, command: Any, before: GameState, after: GameState, version: int
) -> InTransaction | None:
    """The lobby's write for a command's events: a new game's row, or its changed summary."""
    game_id = game_id_of(stream_id)
    if game_id is None or not isinstance(after, Pulka):
        return None
    if isinstance(before, NoGame):
        if not isinstance(command, Create):
            return None
        return new_game_row(
            uuid.UUID(game_id), after, version, command.source, created_by=command.player
        )
    assert isinstance(before, Pulka)
    if (game.status(before), before.players) == (game.status(after), after.players):
        return None
    return _changed(uuid.UUID(game_id), after, version)


def new_game_row(
    game_id: uuid.UUID,
    state: Pulka,
    version: int,
    source: DealSource,
    *,
    created_by: str | None,
    imported: bool = False,
) -> InTransaction:
    """The write that lists a new game (created here, or imported)."""

    async def write(conn: asyncpg.Connection) -> None:
        await conn.execute(
            _INSERT,
            game_id,
            game_stream(game_id),
            game.status(state),
            state.rules.convention,
            source.seats,
            list(state.players),
            created_by,
            version,
            source.seed,
            msgspec.to_builtins(source.layouts),
            imported,
        )

    return write


def _changed(game_id: uuid.UUID, state: Pulka, version: int) -> InTransaction:
    async def write(conn: asyncpg.Connection) -> None:
        # Guarded by the version, so a late write can never take the row back in time.
        await conn.execute(_UPDATE, game_id, game.status(state), list(state.players), version)

    return write


class Lobby:
    """Reads the lobby (`GameSummary` rows and deal sources) over a pool."""

    def __init__(self, pool: asyncpg.Pool) -> None:
        self.pool = pool

    async def deal_source(self, game_id: uuid.UUID) -> DealSource:
        """The game's deal source; `GameNotFound` if there is no such game."""
        row = await self.pool.fetchrow(_SOURCE, game_id)
        if row is None:
            raise GameNotFound("no game has this id")
        layouts = msgspec.convert(row["layouts"], tuple[Layout, ...])
        return DealSource(seats=row["seats"], layouts=layouts, seed=row["seed"])

    async def summary(self, game_id: uuid.UUID) -> GameSummary:
        row = await self.pool.fetchrow(_SUMMARY, game_id)
        if row is None:
            raise GameNotFound("no game has this id")
        return _summary(row)

    async def page(
        self, status: Status | None, cursor: str | None, limit: int
    ) -> tuple[list[GameSummary], str | None]:
        """A page of the lobby, newest first, and the cursor of the next page (None: the end)."""
        after = _game_of(cursor) if cursor else None
        rows = await self.pool.fetch(_LIST, status, after, limit + 1)
        items = [_summary(row) for row in rows[:limit]]
        more = len(rows) > limit
        return items, encode_cursor(_CURSOR, str(items[-1].id)) if more else None


def _game_of(cursor: str) -> uuid.UUID:
    value = decode_cursor(_CURSOR, cursor)
    try:
        return uuid.UUID(value)
    except ValueError:
        raise InvalidCursor(f"not a cursor of this list: {cursor!r}") from None


def _summary(row: asyncpg.Record) -> GameSummary:
    return GameSummary(
        id=row[0],
        status=row[1],
        preset=row[2],
        seats=row[3],
        players=tuple(row[4]),
        created_by=row[5],
        created_at=row[6],
    )
