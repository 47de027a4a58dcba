"""The table around the cards: leaving a seat, abandoning a game, coming back, seating the
service's bots, and invites to private tables."""

from __future__ import annotations

import uuid
from datetime import timedelta
from typing import Annotated, Any, Literal

import msgspec
from litestar import Controller, Request, Response, get, post
from litestar.di import NamedDependency
from litestar.params import Body, FromPath, JSONBody

from domain.table import AbandonSeat, LeaveSeat, ReturnToSeat
from service.api.auth import SECURITY
from service.api.common import (
    NO_STORE,
    PRIVATE,
    IdempotencyKeyHeader,
    IfMatchHeader,
    expected_version,
    send,
)
from service.api.errors import problem_responses
from service.api.games.schemas import BotSeat, GameOutcome, JoinGame
from service.api.players.schemas import InviteView, NewInvite
from service.eventlog.handler import request_hash
from service.exceptions import Forbidden
from service.games.commands import CALLERS_SEAT
from service.games.lobby import Lobby
from service.games.service import GameService
from service.players.accounts import Caller
from service.players.bots import BotPlayers
from service.players.invites import Invite, Invites

_COMMAND = ("validation", "unauthenticated", "forbidden", "idempotency-key-in-flight",
            "idempotency-key-reused", "version-mismatch")  # fmt: skip

Presence = Literal["leave", "abandon", "return"]
_COMMANDS: dict[Presence, type[LeaveSeat | AbandonSeat | ReturnToSeat]] = {
    "leave": LeaveSeat,
    "abandon": AbandonSeat,
    "return": ReturnToSeat,
}
_SUMMARIES = {
    "leave": "Leave your seat before the game starts",
    "abandon": "Abandon the game",
    "return": "Come back to your seat",
}
_DESCRIPTIONS = {
    "leave": "Before the cards are dealt: the seat is free again. Once the game has started, "
    "abandon it instead (409 `illegal.game_started`).",
    "abandon": "Leave a running game for good: the seat is played for to the end (by the "
    "table's stand-in), the abandonment counts in your statistics and your rating as the "
    "table's rules say (`table.abandon_rating`), and another player may take the seat where "
    "`table.reseat` allows it. Abandoning twice is 409 `illegal.already_abandoned`.",
    "return": "After timeouts in a row marked you absent: take your seat back (acting at "
    "it does the same). 409 `illegal.not_absent` if you were not absent.",
}


def _presence_route(kind: Presence) -> Any:
    command = _COMMANDS[kind]

    @post(
        f"/games/{{game_id:uuid}}/{kind}",
        status_code=200,
        operation_id=f"{kind}Game" if kind != "return" else "returnToGame",
        tags=["table"],
        summary=_SUMMARIES[kind],
        description=_DESCRIPTIONS[kind],
        security=SECURITY,
        responses=problem_responses(*_COMMAND, "not-seated", "game-not-found", "illegal-action"),
    )
    async def handler(
        request: Request[Any, Any, Any],
        game_id: FromPath[uuid.UUID],
        caller: NamedDependency[Caller],
        games: NamedDependency[GameService],
        idempotency_key: IdempotencyKeyHeader = None,
        if_match: IfMatchHeader = None,
    ) -> Response[GameOutcome]:
        path = request.url.path
        done = await games.at_table(
            game_id,
            caller,
            command(seat=CALLERS_SEAT),
            key=idempotency_key,
            fingerprint=request_hash("POST", path, if_match or ""),
            expected=expected_version(if_match),
        )
        return send(done, path)

    return handler


leave_game = _presence_route("leave")
abandon_game = _presence_route("abandon")
return_to_game = _presence_route("return")


class TableController(Controller):
    tags = ["table"]  # noqa: RUF012

    @post(
        "/games/{game_id:uuid}/bots",
        status_code=200,
        operation_id="seatBot",
        summary="Seat one of the service's bots",
        description=(
            "Gives a free seat (the first, or the one named) to a bot of the level asked: "
            "`random`, `basic`, `strong` or `expert`. Only the game's creator or a player seated "
            "at it may. The bot plays from exactly what its seat sees; it is shown and rated as a "
            "bot. The response is the caller's view; when the last seat is taken the cards "
            "are dealt."
        ),
        security=SECURITY,
        responses=problem_responses(*_COMMAND, "game-not-found", "illegal-action"),
    )
    async def seat_bot(
        self,
        request: Request[Any, Any, Any],
        game_id: FromPath[uuid.UUID],
        caller: NamedDependency[Caller],
        games: NamedDependency[GameService],
        bots: NamedDependency[BotPlayers],
        data: JSONBody[BotSeat | None] = None,
        idempotency_key: IdempotencyKeyHeader = None,
    ) -> Response[GameOutcome]:
        data = data or BotSeat()
        await bots.ensure(games.log.pool)
        _, state = await games.state(game_id)
        assert hasattr(state, "players")
        bot = bots.free(data.level, state)  # type: ignore[arg-type]
        path = request.url.path
        done = await games.seat_bot(
            game_id,
            caller,
            bot,
            data.seat,
            key=idempotency_key,
            fingerprint=request_hash("POST", path, msgspec.json.encode(data)),
        )
        return send(done, path)

    @post(
        "/games/{game_id:uuid}/invites",
        status_code=201,
        operation_id="createInvite",
        summary="Invite a player to the table",
        description=(
            "A code (shown this once) that seats its holder with `POST /v1/invites/{code}/seats`"
            " until it expires; with `player`, only that player, who is notified (`invited`). "
            "A private table is joined only this way. Only the game's creator or a player "
            "seated there may invite."
        ),
        security=SECURITY,
        responses=problem_responses(
            "validation", "unauthenticated", "forbidden", "game-not-found", "player-not-found"
        ),
    )
    async def create_invite(
        self,
        game_id: FromPath[uuid.UUID],
        caller: NamedDependency[Caller],
        lobby: NamedDependency[Lobby],
        invites: NamedDependency[Invites],
        data: JSONBody[NewInvite | None] = None,
    ) -> Response[Invite]:
        caller.may_play()
        data = data or NewInvite()
        summary = await lobby.summary(game_id)
        if caller.id != summary.created_by and caller.id not in summary.players:
            raise Forbidden(
                "only the game's creator or a player seated there invites", code="not_at_table"
            )
        invitee = str(data.player) if data.player else None
        invite = await invites.create(
            game_id, caller.id, invitee, timedelta(seconds=data.expires_in)
        )
        return Response(invite, status_code=201, headers=NO_STORE)

    @get(
        "/invites/{code:str}",
        operation_id="readInvite",
        summary="What an invite opens",
        description="The game an invite code seats you at, and whether it has expired.",
        responses=problem_responses("validation", "invite-not-found"),
    )
    async def read_invite(
        self,
        code: FromPath[str],
        invites: NamedDependency[Invites],
        lobby: NamedDependency[Lobby],
    ) -> Response[InviteView]:
        invited = await invites.find(code)
        view = InviteView(game=await lobby.summary(invited.game_id), expired=invited.expired)
        return Response(view, headers=PRIVATE)

    @post(
        "/invites/{code:str}/seats",
        status_code=200,
        operation_id="joinByInvite",
        summary="Take a seat with an invite",
        description=(
            "Seats the caller at the invite's game (the seat named, or the first free one). "
            "410 once the invite has expired, 403 if it names another player."
        ),
        security=SECURITY,
        responses=problem_responses(
            *_COMMAND, "invite-not-found", "invite-expired", "game-not-found", "illegal-action"
        ),
    )
    async def join_by_invite(
        self,
        request: Request[Any, Any, Any],
        code: FromPath[str],
        caller: NamedDependency[Caller],
        games: NamedDependency[GameService],
        invites: NamedDependency[Invites],
        data: Annotated[JoinGame | None, Body()] = None,
        idempotency_key: IdempotencyKeyHeader = None,
    ) -> Response[GameOutcome]:
        data = data or JoinGame()
        invited = await invites.find(code)
        path = request.url.path
        done = await games.join(
            invited.game_id,
            caller,
            data.seat,
            key=idempotency_key,
            fingerprint=request_hash("POST", path, msgspec.json.encode(data)),
            expected=None,
            invite=code,
            seed=data.client_seed,
        )
        return send(done, path)


ROUTES = [leave_game, abandon_game, return_to_game, TableController]
