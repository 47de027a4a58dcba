"""The read models over HTTP: pool sheets, statistics, ratings, replays, export; and the
projection runner as a background task of the app.

Routes (under /v1):

    GET /games/{id}/sheet                  the pool sheet, JSON (`projections.sheet.SheetView`)
    GET /games/{id}/sheet.svg              the same sheet drawn by hand (`projections.sheet_svg`)
    GET /games/{id}/deals/{n}/replay?at=K  a finished deal step by step (`projections.replay`)
    GET /games/{id}/export                 the events of a finished game, NDJSON
    GET /players/{id}/stats                a player's statistics
    GET /players/{id}/rating               a player's rating and its history
    GET /ratings                           the leaderboard
    GET /projections                       each projection's position, lag and status

Sheets, statistics and ratings come from the asynchronous read models: their ETag is the game
version (sheet) they reflect, which may trail the game by the projection's lag. Replays and
exports fold the event log itself, so they are always exact.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import uuid
from collections.abc import AsyncIterator
from typing import Annotated, Any

import msgspec
from litestar import Controller, Litestar, Response, get
from litestar.di import NamedDependency
from litestar.exceptions import ValidationException
from litestar.params import FromPath, QueryParameter

from domain import game
from domain.errors import IllegalAction
from projections import replay as replays
from projections import sheet as sheets
from projections.ratings import Rating, RatingChange, leaderboard
from projections.replay import Replay
from projections.sheet import SheetView
from projections.sheet_svg import render_svg
from projections.stats import PlayerStats, player_stats
from service import read_models
from service.api.common import IfNoneMatchHeader, not_modified
from service.auth import OPTIONAL_SECURITY
from service.errors import GameNotFound, NotFound, etag, problem_responses
from service.event_store import EventStore
from service.game_export import MEDIA_TYPE as NDJSON
from service.game_export import export_lines
from service.games import GameService, Player, stream_of
from service.projections import Projections, ProjectionStatus

SVG = "image/svg+xml"


class GameNotOver(IllegalAction):
    """The game is still being played (an export waits for its end)."""

    code = "export.game_not_finished"


class DealStillInPlay(IllegalAction):
    """Nobody replays a deal still being played."""

    code = "replay.deal_in_progress"


async def _game_events(store: EventStore, game_id: uuid.UUID) -> list[Any]:
    records = await store.read_stream(stream_of(game_id))
    if not records:
        raise GameNotFound("no game has this id")
    return records


# --- sheets, replays, export --------------------------------------------------------------------


class SheetController(Controller):
    path = "/games"
    tags = ["read models"]  # noqa: RUF012

    async def _sheet(self, pool: Any, store: EventStore, game_id: uuid.UUID) -> tuple[int, Any]:
        found = await read_models.read_sheet(pool, str(game_id))
        if found is not None:
            return found
        if await store.stream_version(stream_of(game_id)) is None:
            raise GameNotFound("no game has this id")
        return 0, sheets.EMPTY  # the projection has not reached this game yet

    @get(
        "/{game_id:uuid}/sheet",
        summary="The pool sheet",
        description=(
            "The live pool sheet (пулька): each player's pool, mountain and whists on each other "
            "player, the all-pass streak, every scored deal with the entries it wrote and why, "
            "and the settlement once the game is over. Columns are also given as players write "
            'them, running sums such as `"2.6.10"`. Read from a projection: the ETag is the '
            "game version the sheet reflects, which may trail the game by a moment."
        ),
        responses=problem_responses("game-not-found", "validation"),
    )
    async def read_sheet(
        self,
        game_id: FromPath[uuid.UUID],
        pool: NamedDependency[Any],
        store: NamedDependency[EventStore],
        if_none_match: IfNoneMatchHeader = None,
    ) -> Response[SheetView]:
        version, model = await self._sheet(pool, store, game_id)
        headers = {"ETag": etag(version)}
        if not_modified(if_none_match, version):
            return Response(None, status_code=304, headers=headers)  # type: ignore[arg-type]
        return Response(sheets.sheet_view(str(game_id), model), headers=headers)

    @get(
        "/{game_id:uuid}/sheet.svg",
        summary="The pool sheet, drawn",
        description=(
            "The sheet as players draw it: a rectangle cut into one sector per player around a "
            "circle holding the pool target; in each sector the whists against each opponent "
            "along the edge, then the pool, then the mountain, every column written as running "
            "sums. An SVG document."
        ),
        media_type=SVG,
        responses=problem_responses("game-not-found", "validation"),
    )
    async def draw_sheet(
        self,
        game_id: FromPath[uuid.UUID],
        pool: NamedDependency[Any],
        store: NamedDependency[EventStore],
        games: NamedDependency[GameService],
        if_none_match: IfNoneMatchHeader = None,
    ) -> Response[str]:
        version, model = await self._sheet(pool, store, game_id)
        headers = {"ETag": etag(version)}
        if not_modified(if_none_match, version):
            return Response("", status_code=304, headers=headers, media_type=SVG)
        names = [await _name(games, p) for p in model.players]
        svg = render_svg(model, title=f"Pulka {game_id}", names=names)
        return Response(svg, headers=headers, media_type=SVG)

    @get(
        "/{game_id:uuid}/deals/{deal_no:int}/replay",
        summary="Replay a finished deal",
        description=(
            "Deal `deal_no` (from 1) step by step, rebuilt from the event log: every event, and "
            "the state after the first `at` of them (1: just dealt; default: the end). Once the "
            "game is over every deal is public and shows every hand, the talon and the discard. "
            "While it runs, a finished deal shows what the caller's seat saw at the time (his "
            "own hand and whatever lay face up; a spectator sees only the latter), and a deal "
            "still being played cannot be replayed (409)."
        ),
        security=OPTIONAL_SECURITY,
        responses=problem_responses(
            "game-not-found", "not-found", "illegal-action", "validation", "unauthenticated"
        ),
    )
    async def replay(
        self,
        game_id: FromPath[uuid.UUID],
        deal_no: FromPath[int],
        viewer: NamedDependency[Player | None],
        store: NamedDependency[EventStore],
        games: NamedDependency[GameService],
        at: Annotated[int | None, QueryParameter(ge=1, description="The step (1 … steps).")] = None,
    ) -> Replay:
        records = await _game_events(store, game_id)
        events = [games.codec.decode(r.event_type, r.schema_version, r.data) for r in records]
        try:
            return replays.replay(
                str(game_id),
                events,  # type: ignore[arg-type]
                deal_no,
                at=at,
                viewer_player=viewer.id if viewer else None,
            )
        except replays.DealNotFound as exc:
            raise NotFound(str(exc)) from None
        except replays.DealInProgress as exc:
            raise DealStillInPlay(str(exc)) from None
        except replays.StepOutOfRange as exc:
            raise ValidationException(
                str(exc), extra=[{"source": "query", "key": "at", "message": str(exc)}]
            ) from None

    @get(
        "/{game_id:uuid}/export",
        summary="Export a finished game",
        description=(
            "The game's events as newline-delimited JSON, one event per line in stream order "
            "(`version`, `type`, `schema_version`, `data`, `event_id`, `recorded_at`). Only "
            "once the game is over (409 before): nothing in it is secret any more."
        ),
        media_type=NDJSON,
        responses=problem_responses("game-not-found", "illegal-action", "validation"),
    )
    async def export(
        self,
        game_id: FromPath[uuid.UUID],
        store: NamedDependency[EventStore],
        games: NamedDependency[GameService],
    ) -> Response[bytes]:
        records = await _game_events(store, game_id)
        if records[-1].event_type != games.codec.type_name(game.GameEnded):
            raise GameNotOver("a game is exported once it is over")
        body = b"".join(export_lines(records))
        headers = {
            "ETag": etag(records[-1].version),
            "Content-Disposition": f'attachment; filename="game-{game_id}.ndjson"',
        }
        return Response(body, headers=headers, media_type=NDJSON)


async def _name(games: GameService, player: str | None) -> str | None:
    if player is None:
        return None
    try:
        return (await games.player(uuid.UUID(player))).name
    except (ValueError, NotFound):
        return None  # an imported game's players may not be registered here


# --- players: statistics and ratings --------------------------------------------------------------


class RatingHistoryLine(msgspec.Struct, frozen=True, kw_only=True):
    game_id: str
    game_no: int
    at: str
    """When the game ended (ISO 8601)."""
    result: int
    place: int
    players: int
    rating_before: float
    rating: float
    mu: float
    sigma: float


class RatingView(msgspec.Struct, frozen=True, kw_only=True):
    """A player's rating (openskill Plackett–Luce, ranked by settlement result)."""

    player_id: str
    rating: float
    """The conservative rating shown and ranked: ``mu − 3·sigma``."""
    mu: float
    sigma: float
    games: int
    provisional: bool
    """Fewer than 5 finished games."""
    history: tuple[RatingHistoryLine, ...]


def _line(at: Any, change: RatingChange) -> RatingHistoryLine:
    return RatingHistoryLine(
        game_id=change.game_id,
        game_no=change.game_no,
        at=at.isoformat(),
        result=change.result,
        place=change.place,
        players=change.players,
        rating_before=change.ordinal_before,
        rating=change.ordinal,
        mu=change.mu,
        sigma=change.sigma,
    )


class PlayerReadModelsController(Controller):
    path = "/players"
    tags = ["read models"]  # noqa: RUF012

    @get(
        "/{player_id:uuid}/stats",
        summary="A player's statistics",
        description=(
            "Over every game the player sat in: games and deals played, contracts declared per "
            "level and made (%), misère declared and made, whists made and failed (short of "
            "the obligation), half-whists, all-pass tricks per all-pass deal, and the average, "
            "best and worst settlement result per finished game."
        ),
        responses=problem_responses("player-not-found", "validation"),
    )
    async def stats(
        self,
        player_id: FromPath[uuid.UUID],
        pool: NamedDependency[Any],
        games: NamedDependency[GameService],
    ) -> PlayerStats:
        await games.player(player_id)
        rows = await read_models.read_player_games(pool, str(player_id))
        return player_stats(str(player_id), rows)

    @get(
        "/{player_id:uuid}/rating",
        summary="A player's rating and its history",
        description=(
            "The rating (`mu − 3·sigma`, openskill Plackett–Luce updated after every finished "
            "game from the ranking by settlement result), its uncertainty, whether it is still "
            "provisional (fewer than 5 games), and one history line per rated game."
        ),
        responses=problem_responses("player-not-found", "validation"),
    )
    async def rating(
        self,
        player_id: FromPath[uuid.UUID],
        pool: NamedDependency[Any],
        games: NamedDependency[GameService],
    ) -> RatingView:
        await games.player(player_id)
        found = await read_models.read_rating(pool, str(player_id))
        rating, history = (found.rating, found.history) if found else (Rating(), [])
        return RatingView(
            player_id=str(player_id),
            rating=rating.ordinal,
            mu=rating.mu,
            sigma=rating.sigma,
            games=rating.games,
            provisional=rating.provisional,
            history=tuple(_line(at, change) for at, change in history),
        )


class LeaderboardEntryView(msgspec.Struct, frozen=True, kw_only=True):
    rank: int
    player_id: str
    rating: float
    mu: float
    sigma: float
    games: int
    provisional: bool


class LeaderboardPage(msgspec.Struct, frozen=True, kw_only=True):
    items: tuple[LeaderboardEntryView, ...]
    total: int
    """Rated players."""
    next_cursor: str | None


def _cursor(offset: int) -> str:
    return base64.urlsafe_b64encode(f"o:{offset}".encode()).rstrip(b"=").decode()


def _offset(cursor: str | None) -> int:
    if cursor is None:
        return 0
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()
        kind, _, value = raw.partition(":")
        if kind == "o" and value.isdigit():
            return int(value)
    except ValueError:
        pass
    message = "not a leaderboard cursor"
    raise ValidationException(
        message, extra=[{"source": "query", "key": "cursor", "message": message}]
    )


class RatingsController(Controller):
    path = "/ratings"
    tags = ["read models"]  # noqa: RUF012

    @get(
        "/",
        summary="The leaderboard",
        description=(
            "Rated players by rating (`mu − 3·sigma`), best first. Pages follow `next_cursor`."
        ),
        responses=problem_responses("validation"),
    )
    async def leaderboard(
        self,
        pool: NamedDependency[Any],
        limit: Annotated[int, QueryParameter(ge=1, le=200)] = 50,
        cursor: Annotated[str | None, QueryParameter(max_length=64)] = None,
    ) -> LeaderboardPage:
        offset = _offset(cursor)
        total, rows = await read_models.read_leaderboard(pool, limit, offset)
        entries = leaderboard(dict(rows))
        items = tuple(
            LeaderboardEntryView(
                rank=offset + e.rank,
                player_id=e.player_id,
                rating=e.rating,
                mu=e.mu,
                sigma=e.sigma,
                games=e.games,
                provisional=e.provisional,
            )
            for e in entries
        )
        more = offset + len(items) < total
        return LeaderboardPage(
            items=items, total=total, next_cursor=_cursor(offset + len(items)) if more else None
        )


class ProjectionsController(Controller):
    path = "/projections"
    tags = ["service"]  # noqa: RUF012

    @get(
        "/",
        summary="The projections' status",
        description=(
            "Each read model's generations: position in the global log, events and seconds "
            "behind the head, and status (`running`, `rebuilding`, `failed` with the error)."
        ),
        responses=problem_responses(),
    )
    async def status(self, store: NamedDependency[EventStore]) -> list[ProjectionStatus]:
        return await Projections(store).status()


PROJECTION_ROUTE_HANDLERS = [
    SheetController,
    PlayerReadModelsController,
    RatingsController,
    ProjectionsController,
]
"""The read models' controllers, mounted under /v1 by `service.app`."""


@contextlib.asynccontextmanager
async def projections_lifespan(app: Litestar) -> AsyncIterator[None]:
    """Run the projections in the background while the app serves (catching up on start)."""
    runner = Projections(app.state.store)
    app.state.projections = runner
    task = asyncio.create_task(runner.run(), name="projections")
    try:
        yield
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
