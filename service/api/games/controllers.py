"""Games: create one, list them (the lobby, also live), take a seat."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from typing import Annotated, Any, Literal

import msgspec
from litestar import Controller, Request, Response, get, post
from litestar.di import NamedDependency
from litestar.openapi.datastructures import ResponseSpec
from litestar.openapi.spec import Example
from litestar.params import Body, FromPath, FromQuery, JSONBody, QueryParameter
from litestar.response import Stream

from service.api.auth import SECURITY
from service.api.common import (
    PRIVATE,
    IdempotencyKeyHeader,
    IfMatchHeader,
    expected_version,
    send,
)
from service.api.errors import problem_responses
from service.api.games.events import SseSettings
from service.api.games.schemas import GameOutcome, GamePage, JoinGame, NewGame
from service.eventlog.handler import request_hash
from service.games.dealing import Layout
from service.games.lobby import Lobby
from service.games.lobby_live import RESET, LobbyHub
from service.games.service import GameService, game_spec
from service.players.accounts import Caller, Player
from service.players.bots import BotPlayers

_COMMAND_PROBLEMS = (
    "validation",
    "unauthenticated",
    "idempotency-key-in-flight",
    "idempotency-key-reused",
    "payload-too-large",
)


NEW_GAME_EXAMPLES = [
    Example(summary="Sochi, three seats, the creator at seat 0", value={"seat": 0}),
    Example(
        summary="Leningrad to a pool of 20, four seats",
        value={"preset": "leningrad", "seats": 4, "overrides": {"pool": {"target": 20}}},
    ),
    Example(summary="Reproducible deals", value={"preset": "rostov", "seed": "tournament-7"}),
]


_encoder = msgspec.json.Encoder()


async def _lobby_frames(hub: LobbyHub, sse: SseSettings) -> AsyncIterator[bytes]:
    yield f"retry: {sse.retry_ms}\n\n".encode()
    async for change in hub.stream(sse.ping_interval):
        if change is None:
            yield b": ping\n\n"
        elif change is RESET:
            yield b"event: reset\ndata: {}\n\n"
        else:
            yield b"event: game\ndata: %s\n\n" % _encoder.encode(change)


class LobbyController(Controller):
    path = "/lobby"
    tags = ["games"]  # noqa: RUF012

    @get(
        "/stream",
        operation_id="followLobby",
        summary="Follow the public lobby live (Server-Sent Events)",
        description=(
            "`text/event-stream` of the public lobby's changes: first `retry:`, then `event: "
            "reset` (read the lists now: from here on no change is missed), then `event: game` "
            "with a game's `GameSummary` each time its row changes (created, a seat taken or "
            "left, whose turn, started, finished), and a `: ping` comment after 15 s of "
            "silence. A summary carries the game's `version`: keep the highest. A `reset` "
            "comes again whenever changes may have been missed; the stream has no resume "
            "point, so after a reconnection the lists are read again. Private tables never "
            "appear."
        ),
        media_type="text/event-stream",
        responses={
            200: ResponseSpec(
                data_container=str,
                generate_examples=False,
                media_type="text/event-stream",
                description="The lobby's changes.",
            ),
            **problem_responses("validation"),
        },
    )
    async def follow_lobby(
        self, lobby_hub: NamedDependency[LobbyHub], sse: NamedDependency[SseSettings]
    ) -> Stream:
        return Stream(
            _lobby_frames(lobby_hub, sse),
            media_type="text/event-stream",
            headers={**PRIVATE, "X-Accel-Buffering": "no"},
        )


class GamesController(Controller):
    path = "/games"
    tags = ["games"]  # noqa: RUF012

    @post(
        "/",
        status_code=201,
        operation_id="createGame",
        summary="Create a game",
        description=(
            "Creates a game (pulka) with a preset's rules and any overrides. The creator is "
            "seated only if the body names a `seat`. The cards are dealt once every seat is "
            "taken. Answers like an action: the creator's events and view, with a `Location`."
        ),
        security=SECURITY,
        responses=problem_responses(
            *_COMMAND_PROBLEMS, "bad-notation", "invalid-rules", "invalid-layout", "illegal-action"
        ),
    )
    async def create_game(
        self,
        request: Request[Any, Any, Any],
        data: Annotated[NewGame, Body(examples=NEW_GAME_EXAMPLES)],
        caller: NamedDependency[Caller],
        games: NamedDependency[GameService],
        bots: NamedDependency[BotPlayers],
        idempotency_key: IdempotencyKeyHeader = None,
    ) -> Response[GameOutcome]:
        seated_bots: list[tuple[int | None, Player]] = []
        if data.bots:
            await bots.ensure(games.log.pool)
            chosen = bots.for_new_game([b.level for b in data.bots])
            seated_bots = [(b.seat, bot) for b, bot in zip(data.bots, chosen, strict=True)]
        spec = game_spec(
            preset=data.preset,
            overrides=msgspec.to_builtins(data.overrides) if data.overrides else None,
            seats=data.seats,
            first_dealer=data.first_dealer,
            layouts=[
                Layout(hands=tuple(map(tuple, x.hands)), talon=(x.talon[0], x.talon[1]))
                for x in data.layouts or ()
            ],
            seed=data.seed,
            seat=data.seat,
            private=data.private,
            seat_seed=data.client_seed,
            entropy=games.entropy,
        )
        path = request.url.path
        done = await games.create(
            caller,
            spec,
            key=idempotency_key,
            fingerprint=request_hash("POST", path, msgspec.json.encode(data)),
            bots=seated_bots,
        )
        return send(done, path, status=201, location=True)

    @get(
        "/",
        operation_id="listGames",
        summary="List games",
        description=(
            "The public lobby, newest first, optionally by status; page with `next_cursor`. "
            "Private tables are never listed (their players find them in "
            "`/v1/players/me/games`)."
        ),
        responses=problem_responses("validation"),
    )
    async def list_games(
        self,
        lobby: NamedDependency[Lobby],
        status: FromQuery[Literal["seating", "playing", "finished"] | None] = None,
        cursor: Annotated[str | None, QueryParameter(max_length=64)] = None,
        limit: Annotated[int, QueryParameter(ge=1, le=200)] = 50,
    ) -> GamePage:
        items, next_cursor = await lobby.page(status, cursor, limit)
        return GamePage(items=items, next_cursor=next_cursor)

    @post(
        "/{game_id:uuid}/seats",
        status_code=200,
        operation_id="takeSeat",
        summary="Take a seat",
        description=(
            "Seats the caller at the seat named, or the first free one. When the last seat is "
            "taken the first deal is dealt in the same step, so the response already holds the "
            "caller's cards."
        ),
        security=SECURITY,
        responses=problem_responses(
            *_COMMAND_PROBLEMS,
            "game-not-found",
            "illegal-action",
            "version-mismatch",
            "forbidden",
        ),
    )
    async def take_seat(
        self,
        request: Request[Any, Any, Any],
        game_id: FromPath[uuid.UUID],
        caller: NamedDependency[Caller],
        games: NamedDependency[GameService],
        data: JSONBody[JoinGame | None] = None,
        idempotency_key: IdempotencyKeyHeader = None,
        if_match: IfMatchHeader = None,
    ) -> Response[GameOutcome]:
        data = data or JoinGame()
        path = request.url.path
        done = await games.join(
            game_id,
            caller,
            data.seat,
            key=idempotency_key,
            fingerprint=request_hash("POST", path, msgspec.json.encode(data), if_match or ""),
            expected=expected_version(if_match),
            seed=data.client_seed,
        )
        return send(done, path)
