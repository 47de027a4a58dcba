"""The lobby: every game's summary in ``api.games`` (status, seats, whose turn and until when),
and the notifications a command sends its players, kept in step with the game's stream.

Both are written by the statement that appends a command's events (``es.command`` hands them
to ``api.command_effects``, the writer ``es.command_writer`` names), so neither can disagree
with the log: `lobby_effects` gives the command handler what a command's events call for, from
the game's state before and after them.

- The row: a new game's (with its deal source, which goes into ``api.deal_sources``, a table
  the request path's role cannot read: it tells every hand to come), or its changed status,
  players, seats to act, deadline and ``due_at``: when the service must act at the table itself
  (a deadline, an absent or abandoned seat to play for; ``api.command_effects`` adds a bot to
  move). `service.workers.steward` acts on ``due_at``.
- The notifications (`notes`): a seat's turn (or a claim to answer), a game started or ended,
  an opponent absent, back or gone, a timeout.
- The writing token, so that a token revoked a moment ago cannot write.

The SQL reading ``api.games`` lives here.
"""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any, Literal

import asyncpg
import msgspec

from domain import game
from domain import table as tbl
from domain.deal.state import Playing
from domain.game import GameState, NoGame, Pulka, Status
from service.exceptions import GameNotFound, InvalidCursor
from service.games.commands import Create
from service.games.dealing import DealNotDue, DealSource, DueDeal, Layout
from service.games.streams import game_id_of
from service.platform.cursors import decode_cursor, encode_cursor


class SeatSummary(msgspec.Struct, frozen=True, kw_only=True):
    """Who sits at a seat, as the lobby shows it."""

    seat: int
    player: str | None
    """The player's id; null while the seat is free."""
    name: str | None = None
    kind: str | None = None
    """``human``, ``bot``, ``program`` (a bot playing through the API) or ``guest``."""


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
    seated: tuple[SeatSummary, ...] = ()
    """Each seat's player with his name and kind."""
    to_act: tuple[int, ...] = ()
    """The seats to act now."""
    deadline: datetime | None = None
    """When the first of their clocks runs out (tables with a clock)."""
    private: bool = False
    """Joined with an invite only; never listed in the public lobby."""
    version: int = 0
    """The game's version this summary reflects."""
    dealing: str = "random"
    """How it is dealt (docs/fairness.md): ``random`` (committed, the players' seeds mixed
    in), ``seeded`` or ``fixed`` (the creator can know the hands: never rated), or ``legacy``
    (dealt before commitments)."""
    rating_weight: int = 100
    """How much the game moves its players' ratings, in percent of an ordinary game
    (``table.rating_weight``): 0 is a friendly (не на рейтинг), never rated, like a game whose
    deals were chosen."""


Summary = dict[str, Any]
"""What ``api.command_effects`` takes: ``{"op": "insert" | "update", …, "notes": […],
"token": …}``."""


def lobby_effects(
    stream_id: str, command: Any, before: GameState, after: GameState, version: int
) -> Summary | None:
    """What a command's events write beside them: the lobby's row, the notifications, the
    token check (see the module docstring)."""
    game_id = game_id_of(stream_id)
    if game_id is None:
        return None
    effects: Summary = {}
    token = getattr(command, "token", None)
    if token is not None:
        effects["token"] = token.hex()
    if not isinstance(after, Pulka):  # a creation refused: the token vouches for its key alone
        return effects or None
    at = getattr(command, "at", None)
    if isinstance(before, NoGame):
        if isinstance(command, Create):
            assert command.source is not None, "a new game brings its deal source"
            effects |= new_game_summary(
                game_id, after, command.source, created_by=command.player, private=command.private
            )
        return effects or None
    assert isinstance(before, Pulka)
    row = _row(after, at)
    if _row_key(before) != _row_key(after):
        effects |= {"op": "update", "game_id": str(game_id), **row}
    notes = notifications(game_id, before, after, version)
    if notes:
        effects["notes"] = notes
    return effects or None


def new_game_summary(
    game_id: uuid.UUID | str,
    state: Pulka,
    source: DealSource,
    *,
    created_by: str | None,
    imported: bool = False,
    private: bool = False,
) -> Summary:
    """The row that lists a new game (created here, or imported), with its deal source."""
    return {
        "op": "insert",
        "game_id": str(game_id),
        "preset": state.rules.convention,
        "seats": source.seats,
        "created_by": created_by,
        "imported": imported,
        "private": private,
        "seed": source.seed,
        "layouts": msgspec.to_builtins(source.layouts),
        "secret": source.secret.hex() if source.secret is not None else None,
        "dealing": state.dealing or "legacy",
        "rating_weight": state.rules.table.rating_weight,
        **_row(state, None),
    }


def _row_key(state: Pulka) -> tuple[Any, ...]:
    clocks = tuple(
        (tbl.deadline(state.rules, state.table, s), tbl.played_for(state.table, s))
        for s in game.to_act(state)
    )
    return game.status(state), state.players, game.to_act(state), clocks


def _row(state: Pulka, at: int | None) -> dict[str, Any]:
    """The columns of a game's row that change as it is played."""
    to_act = game.to_act(state)
    deadlines = [d for s in to_act if (d := tbl.deadline(state.rules, state.table, s)) is not None]
    played_for = [s for s in to_act if tbl.played_for(state.table, s) is not None]
    due = at if played_for and at is not None else min(deadlines, default=None)
    return {
        "status": game.status(state),
        "players": list(state.players),
        "to_act": list(to_act),
        "deadline_ms": min(deadlines, default=None),
        "due_ms": due,
    }


NoteKind = Literal[
    "your_turn",
    "claim",
    "game_started",
    "game_ended",
    "player_absent",
    "player_returned",
    "player_left",
    "timed_out",
    "invited",
    "rematch_offered",
    "rematch_declined",
    "rematch_started",
    "tournament_table",
]


def notifications(
    game_id: uuid.UUID | str, before: Pulka, after: Pulka, version: int
) -> list[dict[str, Any]]:
    """The notifications a change from ``before`` to ``after`` sends the game's players."""
    notes: list[dict[str, Any]] = []

    def note(to: int, kind: NoteKind, **data: Any) -> None:
        player = after.players[to]
        if player is not None and to not in after.table.abandoned:
            data["version"] = version
            notes.append(
                {"player": player, "kind": kind, "game_id": str(game_id), "data": data,
                 "order": len(notes)}
            )  # fmt: skip

    seats = range(len(after.players))
    was, now = game.status(before), game.status(after)
    if was == "seating" and now != "seating":
        for seat in seats:
            note(seat, "game_started")
    for seat in seats:
        if after.table.timeouts and after.table.timeouts[seat] > (
            before.table.timeouts[seat] if before.table.timeouts else 0
        ):
            note(seat, "timed_out", seat=seat)
    changes: tuple[tuple[frozenset[int], NoteKind], ...] = (
        (after.table.absent - before.table.absent, "player_absent"),
        (before.table.absent - after.table.absent - after.table.abandoned, "player_returned"),
        (after.table.abandoned - before.table.abandoned, "player_left"),
    )
    for moved, kind in changes:
        for gone in sorted(moved):
            for seat in seats:
                if seat != gone:
                    note(seat, kind, seat=gone, player=after.players[gone])
    if now != "finished":
        waiting = set(game.to_act(before))
        claim = after.deal.claim if isinstance(after.deal, Playing) else None
        for seat in game.to_act(after):
            if seat in waiting:
                continue
            deadline = tbl.deadline(after.rules, after.table, seat)
            if claim is not None and seat in claim.asked:
                note(seat, "claim", seat=seat, by=claim.seat, tricks=claim.tricks,
                     remaining=claim.remaining, deadline=deadline)  # fmt: skip
            else:
                note(seat, "your_turn", seat=seat, deadline=deadline)
    elif was != "finished":
        assert isinstance(after, game.PulkaClosed)
        result = list(after.settlement.result)
        for seat in seats:
            note(seat, "game_ended", seat=seat, result=result[seat])
    return notes


_SOURCE = "SELECT seats, seed, layouts, secret FROM api.deal_source($1)"
_DUE = "SELECT deal_no, deck, layout FROM api.due_deal($1, $2)"
_WAITING = """
SELECT game_id FROM api.games
 WHERE status = 'playing' AND to_act = '{}' ORDER BY game_id LIMIT $1"""
_REFUSED = "P0409"  # api.due_deal, api.game_secret, api.draw_secret (migration 0018)
_COLUMNS = """
g.game_id, g.status, g.preset, g.seats, g.players::text[], g.created_by::text, g.created_at,
ARRAY(SELECT p.name FROM unnest(g.players) WITH ORDINALITY AS s(id, n)
        LEFT JOIN api.players p ON p.player_id = s.id ORDER BY s.n) AS names,
ARRAY(SELECT p.kind FROM unnest(g.players) WITH ORDINALITY AS s(id, n)
        LEFT JOIN api.players p ON p.player_id = s.id ORDER BY s.n) AS kinds,
g.to_act, g.deadline, g.private, g.version, g.dealing, g.rating_weight"""
_LIST = f"""
SELECT {_COLUMNS}
  FROM api.games g
 WHERE NOT g.private AND ($1::text IS NULL OR g.status = $1)
   AND ($2::uuid IS NULL OR g.game_id < $2)
 ORDER BY g.game_id DESC
 LIMIT $3"""
_SUMMARY = f"SELECT {_COLUMNS} FROM api.games g WHERE g.game_id = $1"
_PUBLIC = f"SELECT {_COLUMNS} FROM api.games g WHERE g.game_id = ANY($1::uuid[]) AND NOT g.private"
_ACTIVE = f"""
SELECT {_COLUMNS}
  FROM api.games g
 WHERE g.players @> ARRAY[$1::uuid] AND g.status <> 'finished'
 ORDER BY (g.players[g.to_act[1] + 1] = $1::uuid) IS TRUE DESC, g.deadline NULLS LAST,
          g.game_id DESC
 LIMIT $2"""
_FINISHED = f"""
SELECT {_COLUMNS}
  FROM api.games g
 WHERE g.players @> ARRAY[$1::uuid] AND g.status = 'finished'
   AND ($2::uuid IS NULL OR g.game_id < $2)
 ORDER BY g.game_id DESC
 LIMIT $3"""
_PRIVATE = "SELECT private, status FROM api.games WHERE game_id = $1"

_CURSOR = "games"
_MINE = "my-games"
ACTIVE_LIMIT = 200
"""Active games listed at most (a player has a few at a time)."""


class Lobby:
    """Reads the lobby (`GameSummary` rows and deal sources) over a pool."""

    def __init__(self, pool: asyncpg.Pool) -> None:
        self.pool = pool

    async def deal_source(self, game_id: uuid.UUID) -> DealSource | None:
        """The game's deal source; None if there is no such game, or it is over (nothing is
        left to deal: ``api.deal_source`` answers nothing then). Which of the two it is, the
        game's log says."""
        row = await self.pool.fetchrow(_SOURCE, game_id)
        if row is None:
            return None
        layouts = msgspec.convert(row["layouts"], tuple[Layout, ...])
        return DealSource(
            seats=row["seats"], layouts=layouts, seed=row["seed"], secret=row["secret"]
        )

    async def draw_secret(self, game_id: uuid.UUID) -> str:
        """The commitment (hex) to a secret the database draws for the game about to be
        created as ``game_id``: the secret itself never leaves the database before the end."""
        commitment = await self.pool.fetchval("SELECT api.draw_secret($1)", game_id)
        assert isinstance(commitment, str)
        return commitment

    async def due_deal(self, game_id: uuid.UUID, deal_no: int) -> DueDeal:
        """Deal ``deal_no`` of a game the database deals (``api.due_deal``); `DealNotDue` if
        it is not the due one (or the game is over)."""
        try:
            row = await self.pool.fetchrow(_DUE, game_id, deal_no)
        except asyncpg.PostgresError as exc:
            if exc.sqlstate == _REFUSED:
                raise DealNotDue(f"{exc.args[0]}: {getattr(exc, 'detail', None)}") from None
            raise
        assert row is not None
        layout = msgspec.convert(row["layout"], Layout) if row["layout"] is not None else None
        deck = tuple(row["deck"]) if row["deck"] is not None else None
        return DueDeal(deal_no=row["deal_no"], deck=deck, layout=layout)

    async def waiting(self, limit: int = 50) -> list[uuid.UUID]:
        """Games in play where no seat is to act: a table waiting for its deal (or between a
        command and the deal that follows it)."""
        return [r[0] for r in await self.pool.fetch(_WAITING, limit)]

    async def game_secret(self, game_id: uuid.UUID) -> bytes | None:
        """The secret of a game the database dealt, once its log holds ``game_ended``
        (``api.game_secret``); None before (or for a game it did not deal)."""
        try:
            secret = await self.pool.fetchval("SELECT api.game_secret($1)", game_id)
        except asyncpg.PostgresError as exc:
            if exc.sqlstate == _REFUSED:
                return None
            raise
        return bytes(secret) if secret is not None else None

    async def summary(self, game_id: uuid.UUID) -> GameSummary:
        row = await self.pool.fetchrow(_SUMMARY, game_id)
        if row is None:
            raise GameNotFound("no game has this id")
        return _summary(row)

    async def public_summaries(self, game_ids: list[uuid.UUID]) -> list[GameSummary]:
        """The summaries of those of ``game_ids`` the public lobby lists (not private ones)."""
        return [_summary(row) for row in await self.pool.fetch(_PUBLIC, game_ids)]

    async def is_private(self, game_id: uuid.UUID) -> bool:
        row = await self.pool.fetchrow(_PRIVATE, game_id)
        if row is None:
            raise GameNotFound("no game has this id")
        return bool(row[0])

    async def page(
        self, status: Status | None, cursor: str | None, limit: int
    ) -> tuple[list[GameSummary], str | None]:
        """A page of the public lobby, newest first, and the cursor of the next page (None: the
        end). Private tables are never listed."""
        after = _game_of(_CURSOR, cursor) if cursor else None
        rows = await self.pool.fetch(_LIST, status, after, limit + 1)
        items = [_summary(row) for row in rows[:limit]]
        more = len(rows) > limit
        return items, encode_cursor(_CURSOR, str(items[-1].id)) if more else None

    async def games_of(
        self, player_id: str, cursor: str | None, limit: int
    ) -> tuple[list[GameSummary], list[GameSummary], str | None]:
        """A player's games: every active one (those where it is his turn first, then by
        deadline), and a page of his finished ones, newest first, with the next page's cursor.
        A cursor pages the finished games only (the active ones come on the first page)."""
        player = uuid.UUID(player_id)
        active: list[GameSummary] = []
        if cursor is None:
            active = [_summary(r) for r in await self.pool.fetch(_ACTIVE, player, ACTIVE_LIMIT)]
        after = _game_of(_MINE, cursor) if cursor else None
        rows = await self.pool.fetch(_FINISHED, player, after, limit + 1)
        finished = [_summary(row) for row in rows[:limit]]
        more = len(rows) > limit
        return active, finished, encode_cursor(_MINE, str(finished[-1].id)) if more else None


def _game_of(kind: str, cursor: str) -> uuid.UUID:
    value = decode_cursor(kind, cursor)
    try:
        return uuid.UUID(value)
    except ValueError:
        raise InvalidCursor(f"not a cursor of this list: {cursor!r}") from None


def _summary(row: asyncpg.Record) -> GameSummary:
    players = tuple(row[4])
    return GameSummary(
        id=row[0],
        status=row[1],
        preset=row[2],
        seats=row[3],
        players=players,
        created_by=row[5],
        created_at=row[6],
        seated=tuple(
            SeatSummary(seat=s, player=p, name=n, kind=k)
            for s, (p, n, k) in enumerate(zip(players, row[7], row[8], strict=True))
        ),
        to_act=tuple(row[9]),
        deadline=row[10],
        private=row[11],
        version=row[12],
        dealing=row[13],
        rating_weight=row[14],
    )
