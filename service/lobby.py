"""The lobby: every game's summary (status, seats, players) in ``api.games``, kept in step with
its stream.

The summary is a synchronous read model: `lobby_effects` gives the command handler the row a
command's events call for (a new game's, or a changed status or seat list), and ``es.command``
writes it in the statement that appends those events, so the lobby can never disagree with the
log. A new game's deal source (`service.dealing.DealSource`) goes with its row into
``api.deal_sources``, which the request path's role cannot read: it tells every hand to come,
and ``api.deal_source`` gives it back only while the game is being dealt.

The SQL reading ``api.games`` lives here.
"""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

import asyncpg
import msgspec

from domain import game
from domain.game import GameState, NoGame, Pulka, Status
from service.cursors import decode_cursor, encode_cursor
from service.dealing import DealSource, Layout
from service.exceptions import GameNotFound, InvalidCursor
from service.game_commands import Create
from service.streams import game_id_of


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


_SOURCE = "SELECT seats, seed, layouts FROM api.deal_source($1)"
_COLUMNS = "game_id, status, preset, seats, players::text[], created_by::text, created_at"
_LIST = f"""
SELECT {_COLUMNS}
  FROM api.games
 WHERE ($1::text IS NULL OR status = $1) AND ($2::uuid IS NULL OR game_id < $2)
 ORDER BY game_id DESC
 LIMIT $3"""
_SUMMARY = f"SELECT {_COLUMNS} FROM api.games WHERE game_id = $1"

_CURSOR = "games"


Summary = dict[str, Any]
"""The lobby's row of a game as ``es.command`` takes it: ``{"op": "insert" | "update", …}``."""


def lobby_effects(
    stream_id: str, command: Any, before: GameState, after: GameState, version: int
) -> Summary | None:
    """The lobby's row for a command's events: a new game's, or its changed summary."""
    game_id = game_id_of(stream_id)
    if game_id is None or not isinstance(after, Pulka):
        return None
    if isinstance(before, NoGame):
        if not isinstance(command, Create):
            return None
        return new_game_summary(game_id, after, command.source, created_by=command.player)
    assert isinstance(before, Pulka)
    if (game.status(before), before.players) == (game.status(after), after.players):
        return None
    return {"op": "update", "game_id": game_id, **_seats(after)}


def new_game_summary(
    game_id: uuid.UUID | str,
    state: Pulka,
    source: DealSource,
    *,
    created_by: str | None,
    imported: bool = False,
) -> Summary:
    """The row that lists a new game (created here, or imported), with its deal source."""
    return {
        "op": "insert",
        "game_id": str(game_id),
        "preset": state.rules.convention,
        "seats": source.seats,
        "created_by": created_by,
        "imported": imported,
        "seed": source.seed,
        "layouts": msgspec.to_builtins(source.layouts),
        **_seats(state),
    }


def _seats(state: Pulka) -> dict[str, Any]:
    return {"status": game.status(state), "players": list(state.players)}


class Lobby:
    """Reads the lobby (`GameSummary` rows and deal sources) over a pool."""

    def __init__(self, pool: asyncpg.Pool) -> None:
        self.pool = pool

    async def deal_source(self, game_id: uuid.UUID) -> DealSource:
        """The game's deal source; `GameNotFound` if there is no such game (or it is over)."""
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
