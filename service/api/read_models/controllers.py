"""The read models over HTTP: pool sheets, statistics, ratings, replays, export.

Routes (under /v1):

    GET /games/{id}/sheet                  the pool sheet, JSON (`projections.sheet.SheetView`)
    GET /games/{id}/sheet.svg              the same sheet drawn by hand (`projections.sheet_svg`)
    GET /games/{id}/deals/{n}/replay?at=K  a finished deal step by step (`projections.replay`)
    GET /games/{id}/export                 a finished game, NDJSON (`service.games.export`)
    GET /players/{id}/stats                a player's statistics
    GET /players/{id}/rating               a player's rating and its history
    GET /ratings                           the leaderboard
    GET /projections                       each projection's position, lag and status

Sheets, statistics and ratings come from the asynchronous read models: their ETag is the game
version (sheet) they reflect, which may trail the game by the projection's lag. Replays and
exports fold the event log itself, so they are always exact.
"""

from __future__ import annotations

import uuid
from typing import Annotated, Any, Literal

import msgspec
from litestar import Controller, Request, Response, get
from litestar.di import NamedDependency
from litestar.params import FromPath, QueryParameter

from domain import game
from projections import ppn
from projections import replay as replays
from projections import sheet as sheets
from projections.analysis_text import worded
from projections.ratings import Rating, RatingChange, leaderboard
from projections.replay import Replay
from projections.sheet import SheetView
from projections.sheet_svg import LANGS, Lang, render_svg
from projections.stats import PlayerStats, player_stats
from service.api.common import PRIVATE, IfNoneMatchHeader, not_modified
from service.api.errors import etag, problem_responses
from service.api.read_models.schemas import (
    LeaderboardEntryView,
    LeaderboardPage,
    RatingHistoryLine,
    RatingView,
)
from service.eventlog.log import EventLog, Logged
from service.exceptions import (
    DealStillInPlay,
    GameNotFound,
    NotFound,
)
from service.games.export import MEDIA_TYPE as NDJSON
from service.games.export import load_export
from service.games.proof import Proof, from_records, prove
from service.games.streams import game_stream
from service.games.tournaments import Embargo
from service.platform.cursors import decode_int_cursor, encode_cursor
from service.players.accounts import Caller, Players
from service.read_models import storage as read_models
from service.read_models.runner import Projections, ProjectionStatus

SVG = "image/svg+xml"
PPN = ppn.MEDIA_TYPE
OCTET_STREAM = "application/octet-stream"


def _download_type(request: Request[Any, Any, Any], native: str) -> str:
    """``native``, or bytes when the client asks for them rather than it (a generated client
    reads a download as bytes)."""
    accept = request.headers.get("accept", "")
    return OCTET_STREAM if OCTET_STREAM in accept and native not in accept else native


def _sheet_lang(asked: Lang | None, accept_language: str) -> Lang:
    """The language the sheet is worded in: ``lang`` if given, else the first of
    Accept-Language's tags (by their q weights) the drawing knows, else English."""
    if asked is not None:
        return asked
    ranked: list[tuple[float, str]] = []
    for k, item in enumerate(accept_language.split(",")):
        tag, _, params = item.strip().partition(";")
        q = 1.0
        if params.strip().startswith("q="):
            try:
                q = float(params.strip()[2:])
            except ValueError:
                q = 0.0
        ranked.append((-q, f"{k:04d}{tag.strip().lower()}"))
    for _, key in sorted(ranked):
        primary = key[4:].split("-")[0]
        if primary in LANGS:
            return primary
    return "en"


SheetLang = Annotated[
    Lang | None,
    QueryParameter(
        description=(
            "The language of the drawing's words (the heading, the settlement, the notes): "
            "`en` or `ru`. Without it the `Accept-Language` header chooses; English otherwise."
        ),
    ),
]

AnalysisLang = Annotated[
    Lang | None,
    QueryParameter(
        description=(
            "The language of the analysis' sentences (its summary, the mistakes, each "
            "decision's verdict): `en` or `ru`. Without it the `Accept-Language` header "
            "chooses; English otherwise."
        ),
    ),
]

MinVersion = Annotated[
    int | None,
    QueryParameter(
        ge=0,
        le=10**12,
        description=(
            "Read your writes: the sheet as of at least this game version (the one your last "
            "command returned). If the projection has not reached it yet, the sheet is folded "
            "from the game's events instead, so it is never older than what you have seen."
        ),
    ),
]
ExportFormat = Annotated[
    Literal["ndjson", "ppn"],
    QueryParameter(
        description=(
            "`ndjson` (the default): the header line and one line per event; `ppn`: the same "
            "game as PPN text, its record (tags, hands, auction, play by tricks, the sheet's "
            "lines) above the same log (docs/ppn.md)."
        ),
    ),
]
_BOARD_CURSOR = "board"


async def _game_events(event_log: EventLog[game.Event], game_id: uuid.UUID) -> list[Logged[Any]]:
    logged = await event_log.read(game_stream(game_id))
    if not logged:
        raise GameNotFound("no game has this id")
    return logged


# --- sheets, replays, export --------------------------------------------------------------------


class SheetController(Controller):
    path = "/games"
    tags = ["read models"]  # noqa: RUF012

    async def _sheet(
        self, event_log: EventLog[game.Event], game_id: uuid.UUID, min_version: int | None
    ) -> tuple[int, sheets.GameSheet]:
        found = await read_models.read_sheet(event_log.pool, str(game_id))
        if found is not None and found[0] >= (min_version or 0):
            return found
        # The projection has not reached this game (or the version the client holds) yet:
        # fold its sheet from the log itself (the same pure apply the projection runs).
        model = sheets.EMPTY
        logged = await _game_events(event_log, game_id)
        for item in logged:
            model = sheets.apply(model, item.event)
        return logged[-1].version, model

    @get(
        "/{game_id:uuid}/sheet",
        operation_id="readSheet",
        summary="The pool sheet",
        description=(
            "The live pool sheet (пулька): each player's pool, mountain and whists on each other "
            "player, the all-pass streak, every scored deal with the entries it wrote and why, "
            "and the settlement once the game is over. Columns are also given as players write "
            'them, running sums such as `"2.6.10"`. Read from a projection: the ETag is the '
            "game version the sheet reflects, which may trail the game by a moment, unless "
            "`min_version` asks for at least the version you hold."
        ),
        responses=problem_responses("game-not-found", "validation", "forbidden"),
    )
    async def read_sheet(
        self,
        game_id: FromPath[uuid.UUID],
        event_log: NamedDependency[EventLog[game.Event]],
        viewer: NamedDependency[Caller | None],
        embargo: NamedDependency[Embargo],
        if_none_match: IfNoneMatchHeader = None,
        min_version: MinVersion = None,
    ) -> Response[SheetView]:
        await embargo.may_watch(game_id, viewer.id if viewer else None)
        version, model = await self._sheet(event_log, game_id, min_version)
        headers = {"ETag": etag(version)}
        if not_modified(if_none_match, version):
            return Response(None, status_code=304, headers=headers)  # type: ignore[arg-type]
        return Response(sheets.sheet_view(str(game_id), model), headers=headers)

    @get(
        "/{game_id:uuid}/sheet.svg",
        operation_id="drawSheet",
        summary="The pool sheet, drawn",
        description=(
            "The sheet as players draw it: a rectangle cut into one sector per player around a "
            "circle holding the pool target; in each sector the whists against each opponent "
            "along the edge, then the pool, then the mountain, every column written as running "
            "sums. An SVG document, worded in `lang` (or as `Accept-Language` asks)."
        ),
        media_type=SVG,
        responses=problem_responses("game-not-found", "validation", "forbidden"),
    )
    async def draw_sheet(
        self,
        request: Request[Any, Any, Any],
        game_id: FromPath[uuid.UUID],
        event_log: NamedDependency[EventLog[game.Event]],
        players: NamedDependency[Players],
        viewer: NamedDependency[Caller | None],
        embargo: NamedDependency[Embargo],
        if_none_match: IfNoneMatchHeader = None,
        min_version: MinVersion = None,
        lang: SheetLang = None,
    ) -> Response[str]:
        await embargo.may_watch(game_id, viewer.id if viewer else None)
        version, model = await self._sheet(event_log, game_id, min_version)
        accept_language = request.headers.get("accept-language", "")
        worded = _sheet_lang(lang, accept_language)
        headers = {"ETag": etag(version), "Vary": "Accept-Language", "Content-Language": worded}
        # The ETag is the game version, the same in every language: a 304 is safe when the URL
        # names the language (or nothing asks for one), not when the header alone chose it.
        if (lang is not None or not accept_language) and not_modified(if_none_match, version):
            return Response("", status_code=304, headers=headers, media_type=SVG)
        names = [await players.name_of(p) for p in model.players]
        svg = render_svg(model, names=names, lang=worded)
        return Response(svg, headers=headers, media_type=_download_type(request, SVG))

    @get(
        "/{game_id:uuid}/deals/{deal_no:int}/replay",
        operation_id="replayDeal",
        summary="Replay a finished deal",
        description=(
            "Deal `deal_no` (from 1) step by step, rebuilt from the event log: every event, and "
            "the state after the first `at` of them (1: just dealt; default: the end). Once the "
            "game is over every deal is public and shows every hand, the talon and the discard. "
            "A step past the deal's last is 404. "
            "While it runs, a finished deal shows what the caller's seat saw at the time (his "
            "own hand and whatever lay face up; a spectator sees only the latter), and a deal "
            "still being played cannot be replayed (409). Once the game is over the replay "
            "also carries the deal's analysis (`analysis`), a moment after the game's end: the "
            "play double-dummy (par before every card, what each card cost, the decisive "
            "mistakes) and each decision (every call of the auction, the discard, the contract, "
            "each whist call, open or closed play, an accepted claim) judged over the layouts "
            "its player could not tell apart: every alternative's mean result in whists, the "
            "loss against the best one with its 95% interval, and the layouts judged. Its "
            "sentences are worded in `lang` (or as `Accept-Language` asks)."
        ),
        responses=problem_responses(
            "game-not-found", "not-found", "not-public-yet", "validation", "unauthenticated"
        ),
    )
    async def replay(
        self,
        request: Request[Any, Any, Any],
        game_id: FromPath[uuid.UUID],
        deal_no: FromPath[int],
        viewer: NamedDependency[Caller | None],
        event_log: NamedDependency[EventLog[game.Event]],
        players: NamedDependency[Players],
        embargo: NamedDependency[Embargo],
        at: Annotated[int | None, QueryParameter(ge=1, description="The step (1 … steps).")] = None,
        lang: AnalysisLang = None,
    ) -> Response[Replay]:
        await embargo.may_disclose(game_id)
        logged = await _game_events(event_log, game_id)
        try:
            shown = replays.replay(
                str(game_id),
                [item.event for item in logged],
                deal_no,
                at=at,
                viewer_player=viewer.id if viewer else None,
            )
        except replays.DealNotFound as exc:
            raise NotFound(str(exc)) from None
        except replays.DealInProgress as exc:
            raise DealStillInPlay(str(exc)) from None
        except replays.StepOutOfRange as exc:  # the deal has no such step: nothing to show
            raise NotFound(str(exc)) from None
        worded_in = _sheet_lang(lang, request.headers.get("accept-language", ""))
        headers = {**PRIVATE, "Vary": "Accept-Language", "Content-Language": worded_in}
        if shown.visibility == "full":  # the game is over: its analysis is public too
            found = await read_models.read_deal_analysis(event_log.pool, str(game_id), deal_no)
            if found is not None:
                seats = {
                    e.seat: e.player
                    for e in (item.event for item in logged)
                    if isinstance(e, game.PlayerSeated)
                }
                names = [
                    await players.name_of(seats[s]) if s in seats else None
                    for s in range(max(seats, default=-1) + 1)
                ]
                found = worded(found, worded_in, names)
            shown = msgspec.structs.replace(shown, analysis=found)
        return Response(shown, headers=headers)  # what this viewer's seat saw

    @get(
        "/{game_id:uuid}/export",
        operation_id="exportGame",
        summary="Export a finished game",
        description=(
            "The game as newline-delimited JSON: a header line (`format`, `game_id`, the "
            "players' ids and names, `stream_id`, the chain's `head`), then one line per event "
            "in stream order (`version`, `type`, `schema_version`, `data`, `event_id`, "
            "`recorded_at`, and its link in the hash chain: `salt`, `prev_hash`, `hash`). Only "
            "once the game is over (409 before): nothing in it is secret any more, the deals' "
            "secret included. `preferans games import` reads it back in as the same game; "
            "`preferans games verify` checks it (docs/fairness.md). `format=ppn` gives it as "
            "PPN text instead (docs/ppn.md), which `preferans games import` reads too."
        ),
        media_type=NDJSON,
        responses=problem_responses(
            "game-not-found", "game-quarantined", "not-public-yet", "validation"
        ),
    )
    async def export(
        self,
        request: Request[Any, Any, Any],
        game_id: FromPath[uuid.UUID],
        event_log: NamedDependency[EventLog[game.Event]],
        players: NamedDependency[Players],
        embargo: NamedDependency[Embargo],
        format: ExportFormat = "ndjson",
    ) -> Response[bytes]:
        await embargo.may_disclose(game_id)
        found = await load_export(event_log, players, game_id)
        if format == "ppn":
            body, native, suffix = found.ppn().encode(), PPN, "ppn"
        else:
            body, native, suffix = b"".join(found.ndjson()), NDJSON, "ndjson"
        headers = {
            "ETag": etag(found.records[-1].version),
            "Content-Disposition": f'attachment; filename="game-{game_id}.{suffix}"',
        }
        return Response(body, headers=headers, media_type=_download_type(request, native))

    @get(
        "/{game_id:uuid}/proof",
        operation_id="proveGame",
        summary="Check a game's hash chain, commitment and decks",
        description=(
            "Recomputes the game's hash chain from its stored events, and, once the secret is "
            "revealed (when the game is over), that it opens the commitment published in "
            "`game_created` and that every deal's cards are the deck derived from it and the "
            "players' client seeds (docs/fairness.md). Names the first event and the first "
            "deal that do not match. Before the reveal it says what can be checked so far: the "
            "chain, and the commitment made before anyone acted. It shows no card and no salt."
        ),
        responses=problem_responses("game-not-found", "validation", "not-public-yet"),
    )
    async def proof(
        self,
        game_id: FromPath[uuid.UUID],
        event_log: NamedDependency[EventLog[game.Event]],
        embargo: NamedDependency[Embargo],
    ) -> Response[Proof]:
        await embargo.may_disclose(game_id)
        # As stored, not decoded: the proof names an event that cannot be read or folded too.
        records = await event_log.read_stored(game_stream(game_id))
        if not records:
            raise GameNotFound("no game has this id")
        checked = prove(game_stream(game_id), from_records(records), event_log.codec)
        return Response(checked, headers={"ETag": etag(records[-1].version), **PRIVATE})


# --- players: statistics and ratings --------------------------------------------------------------


def _line(at: Any, change: RatingChange) -> RatingHistoryLine:
    return RatingHistoryLine(
        game_id=change.game_id,
        game_no=change.game_no,
        at=at.isoformat(),
        result=change.result,
        place=change.place,
        players=change.players,
        weight=change.weight,
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
        operation_id="readPlayerStats",
        summary="A player's statistics",
        description=(
            "Over every game the player sat in: games and deals played, contracts declared per "
            "level and made (%), misère declared and made, whists made and failed (short of "
            "the obligation), half-whists, all-pass tricks per all-pass deal, the average, "
            "best and worst settlement result per finished game, and the tricks his cards gave "
            "away against double-dummy par per analysed deal (finished games only)."
        ),
        responses=problem_responses("player-not-found", "validation"),
    )
    async def stats(
        self,
        player_id: FromPath[uuid.UUID],
        event_log: NamedDependency[EventLog[game.Event]],
        players: NamedDependency[Players],
    ) -> PlayerStats:
        player = await players.get(player_id)
        rows = await read_models.read_player_games(event_log.pool, str(player_id))
        par = await read_models.read_player_par(event_log.pool, str(player_id))
        return msgspec.structs.replace(player_stats(str(player_id), rows, par), kind=player.kind)

    @get(
        "/{player_id:uuid}/rating",
        operation_id="readPlayerRating",
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
        event_log: NamedDependency[EventLog[game.Event]],
        players: NamedDependency[Players],
    ) -> RatingView:
        player = await players.get(player_id)
        found = await read_models.read_rating(event_log.pool, str(player_id))
        rating, history = (found.rating, found.history) if found else (Rating(), [])
        return RatingView(
            player_id=str(player_id),
            kind=player.kind,
            rating=rating.ordinal,
            mu=rating.mu,
            sigma=rating.sigma,
            games=rating.games,
            provisional=rating.provisional,
            history=tuple(_line(at, change) for at, change in history),
        )


class RatingsController(Controller):
    path = "/ratings"
    tags = ["read models"]  # noqa: RUF012

    @get(
        "/",
        operation_id="readLeaderboard",
        summary="The leaderboard",
        description=(
            "Rated players by rating (`mu − 3·sigma`), best first, each with his name and kind "
            "(computer players are flagged `bot` or `program`). `players=humans` lists the "
            "humans (and guests) only, `players=computers` the bots and programs only: the "
            "two are ranked apart, since bots play many more games. Pages follow "
            "`next_cursor`."
        ),
        responses=problem_responses("validation"),
    )
    async def leaderboard(
        self,
        event_log: NamedDependency[EventLog[game.Event]],
        players: NamedDependency[Players],
        limit: Annotated[int, QueryParameter(ge=1, le=200)] = 50,
        cursor: Annotated[str | None, QueryParameter(max_length=64)] = None,
        players_on: Annotated[
            Literal["humans", "computers"] | None, QueryParameter(name="players")
        ] = None,
    ) -> LeaderboardPage:
        offset = decode_int_cursor(_BOARD_CURSOR, cursor, maximum=10**9) if cursor else 0
        computers = None if players_on is None else players_on == "computers"
        total, rows = await read_models.read_leaderboard(event_log.pool, limit, offset, computers)
        known = await players.many(player for player, _ in rows)
        items = tuple(
            LeaderboardEntryView(
                rank=offset + e.rank,
                player_id=e.player_id,
                name=known[e.player_id].name if e.player_id in known else "",
                kind=known[e.player_id].kind if e.player_id in known else "human",
                rating=e.rating,
                mu=e.mu,
                sigma=e.sigma,
                games=e.games,
                provisional=e.provisional,
            )
            for e in leaderboard(dict(rows))
        )
        more = offset + len(items) < total
        next_cursor = encode_cursor(_BOARD_CURSOR, str(offset + len(items))) if more else None
        return LeaderboardPage(items=items, total=total, next_cursor=next_cursor)


class ProjectionsController(Controller):
    path = "/projections"
    tags = ["service"]  # noqa: RUF012

    @get(
        "/",
        operation_id="readProjectionStatus",
        summary="The projections' status",
        description=(
            "Each read model's generations: position in the global log, events and seconds "
            "behind the head, and status (`running`, `rebuilding`, `failed` with the error)."
        ),
        responses=problem_responses(),
    )
    async def status(self, projections: NamedDependency[Projections]) -> list[ProjectionStatus]:
        return await projections.status()


ROUTE_HANDLERS = [
    SheetController,
    PlayerReadModelsController,
    RatingsController,
    ProjectionsController,
]
"""The read models' controllers, mounted under /v1 by `service.app`."""
