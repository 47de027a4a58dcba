"""Players: registering, the caller's own tokens, games and notifications.

``POST /v1/players`` gives a name a player and his first bearer token (safe to retry with an
Idempotency-Key); ``/v1/players/me/…`` is the caller's: his tokens (list, create, revoke), his
games (active first, with whose turn it is and the deadline; finished ones paged), and his
notifications, page by page or as one Server-Sent Events stream across all his games.
"""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import AsyncIterator
from typing import Annotated, Any

import msgspec
from litestar import Controller, Request, Response, delete, get, post
from litestar.di import NamedDependency
from litestar.openapi.datastructures import ResponseSpec
from litestar.params import FromPath, HeaderParameter, JSONBody, QueryParameter
from litestar.response import Stream

from service.api.auth import FIRST_PARTY, SECURITY
from service.api.common import NO_STORE, PRIVATE, IdempotencyKeyHeader
from service.api.errors import problem_responses
from service.api.games.events import SseSettings, resume_point
from service.api.players.schemas import (
    Me,
    MyGame,
    MyGames,
    NewPlayer,
    NewToken,
    Notification,
    NotificationPage,
    PlayerCreated,
    TokenCreated,
    TokenList,
)
from service.eventlog.handler import request_hash
from service.games.lobby import GameSummary, Lobby
from service.players.accounts import Caller, Player, Players
from service.players.notifications import Note, Notes, NotesHub

_encoder = msgspec.json.Encoder()


def _notification(note: Note) -> Notification:
    fields = {"seq": note.seq, "kind": note.kind, "game_id": note.game_id, "data": note.data,
              "created_at": note.created_at}  # fmt: skip
    typed: Notification = msgspec.convert(fields, Notification)
    return typed


def _my_game(summary: GameSummary, player: str) -> MyGame:
    seat = summary.players.index(player) if player in summary.players else None
    return MyGame(game=summary, seat=seat, my_turn=seat is not None and seat in summary.to_act)


async def _note_frames(
    hub: NotesHub, notes: Notes, players: Players, caller: Caller, after: int, sse: SseSettings
) -> AsyncIterator[bytes]:
    yield f"retry: {sse.retry_ms}\n\n".encode()
    async for note in hub.stream(notes, caller.id, after, sse.ping_interval):
        if note is None:
            if not await players.still_valid(caller):
                return  # the token was revoked: end the stream
            yield b": ping\n\n"
            continue
        data = _encoder.encode(_notification(note))
        yield b"id: %d\nevent: %s\ndata: %s\n\n" % (note.seq, note.kind.encode(), data)


class PlayersController(Controller):
    path = "/players"
    tags = ["players"]  # noqa: RUF012

    @post(
        "/",
        status_code=201,
        operation_id="registerPlayer",
        summary="Register a player",
        description=(
            "Returns the player's id and his first bearer token. The token is shown only here "
            "and stored only as a hash: keep it. Send it as `Authorization: Bearer <token>`. "
            "With an `Idempotency-Key` (kept 24 h, like every key) a retry registers nobody new: "
            "it returns the same player, with a fresh token only while the token answered "
            "before was never used (the answer was lost; that token is revoked). Once it was "
            "used, a retry returns the player with `token` and `token_id` null: a token is "
            "never shown twice. A name that looks like a registered player's (another script's "
            "look-alike letters, full-width forms, another case) is 409 `name-taken`. "
            "`kind: program` "
            "registers a program that plays through the API: it is shown and rated as a bot."
        ),
        responses=problem_responses(
            "validation", "payload-too-large", "idempotency-key-reused", "name-taken"
        ),
    )
    async def create_player(
        self,
        request: Request[Any, Any, Any],
        data: JSONBody[NewPlayer],
        players: NamedDependency[Players],
        idempotency_key: IdempotencyKeyHeader = None,
    ) -> Response[PlayerCreated]:
        key = hashlib.sha256(idempotency_key.encode()).digest() if idempotency_key else None
        fingerprint = request_hash("POST", request.url.path, msgspec.json.encode(data))
        player, token, info = await players.register(
            data.name, kind=data.kind, device=data.device, key=key, request=fingerprint
        )
        created = PlayerCreated(
            id=player.id, name=player.name, kind=data.kind, token=token,
            token_id=info.id if info else None,
        )  # fmt: skip
        return Response(created, status_code=201, headers=NO_STORE)  # a bearer token

    @get(
        "/me",
        operation_id="readMe",
        summary="Who the token belongs to",
        security=SECURITY,
        responses=problem_responses("unauthenticated"),
    )
    async def me(
        self, caller: NamedDependency[Caller], players: NamedDependency[Players]
    ) -> Response[Me]:
        token = await players.token_info(caller)
        me = Me(id=caller.id, name=caller.name, kind=caller.kind, token=token)
        return Response(me, headers=PRIVATE)

    @get(
        "/me/tokens",
        operation_id="listTokens",
        opt=FIRST_PARTY,
        summary="Your tokens",
        description="Every token of the caller (one per device), revoked ones included.",
        security=SECURITY,
        responses=problem_responses("unauthenticated"),
    )
    async def list_tokens(
        self, caller: NamedDependency[Caller], players: NamedDependency[Players]
    ) -> Response[TokenList]:
        return Response(TokenList(items=await players.tokens(caller)), headers=PRIVATE)

    @post(
        "/me/tokens",
        status_code=201,
        operation_id="createToken",
        opt=FIRST_PARTY,
        summary="A token for another device",
        description=(
            "A new bearer token of the caller, shown this once. `scope: read` makes a token "
            "that reads but cannot act. Needs a `play` token."
        ),
        security=SECURITY,
        responses=problem_responses("unauthenticated", "forbidden", "validation"),
    )
    async def create_token(
        self,
        data: JSONBody[NewToken],
        caller: NamedDependency[Caller],
        players: NamedDependency[Players],
    ) -> Response[TokenCreated]:
        caller.may_play()
        token, info = await players.issue(caller, data.name, data.scope)
        return Response(TokenCreated(token=token, info=info), status_code=201, headers=NO_STORE)

    @delete(
        "/me/tokens/{token_id:uuid}",
        status_code=204,
        operation_id="revokeToken",
        opt=FIRST_PARTY,
        summary="Revoke a token",
        description=(
            "The token is refused from now on, in every process of the service: a write at "
            "once, a read within the moment it takes to tell the others. Revoking a revoked "
            "token again is a no-op. Needs a `play` token (it may be the token revoked)."
        ),
        security=SECURITY,
        responses=problem_responses(
            "unauthenticated", "forbidden", "token-not-found", "validation"
        ),
    )
    async def revoke_token(
        self,
        token_id: FromPath[uuid.UUID],
        caller: NamedDependency[Caller],
        players: NamedDependency[Players],
    ) -> None:
        caller.may_play()
        await players.revoke(caller, token_id)

    @get(
        "/me/games",
        operation_id="listMyGames",
        summary="Your games",
        description=(
            "Every game of the caller not finished yet, those where it is his turn first (a "
            "move, or a claim to answer), then by deadline; and a page of his finished games, "
            "newest first. `cursor` pages the finished games."
        ),
        security=SECURITY,
        responses=problem_responses("unauthenticated", "validation"),
    )
    async def my_games(
        self,
        caller: NamedDependency[Caller],
        lobby: NamedDependency[Lobby],
        cursor: Annotated[str | None, QueryParameter(max_length=64)] = None,
        limit: Annotated[int, QueryParameter(ge=1, le=200)] = 20,
    ) -> Response[MyGames]:
        active, finished, next_cursor = await lobby.games_of(caller.id, cursor, limit)
        body = MyGames(
            active=[_my_game(g, caller.id) for g in active],
            finished=[_my_game(g, caller.id) for g in finished],
            next_cursor=next_cursor,
        )
        return Response(body, headers=PRIVATE)

    @get(
        "/me/notifications",
        operation_id="listNotifications",
        summary="Your notifications, page by page",
        description=(
            "The caller's notifications after the `seq` `cursor` (from the first without it), "
            "oldest first: your turn (with the game and the deadline), a claim to answer, a "
            "game started or ended, an invitation, an opponent absent, back or gone, a timeout. "
            "Poll with `cursor` set to the page's `last_seq`; one cheap call covers every game."
        ),
        security=SECURITY,
        responses=problem_responses("unauthenticated", "validation"),
    )
    async def notifications(
        self,
        caller: NamedDependency[Caller],
        notes: NamedDependency[Notes],
        cursor: Annotated[
            str | None,
            QueryParameter(
                pattern=r"^[0-9]{1,15}$", description="The seq after which the page starts."
            ),
        ] = None,
        limit: Annotated[int, QueryParameter(ge=1, le=500)] = 100,
    ) -> Response[NotificationPage]:
        after = int(cursor) if cursor else 0
        items = [_notification(n) for n in await notes.after(caller.id, after, limit)]
        page = NotificationPage(items=items, last_seq=items[-1].seq if items else after)
        return Response(page, headers=PRIVATE)

    @get(
        "/me/stream",
        operation_id="followMe",
        summary="Your notifications live (Server-Sent Events)",
        description=(
            "`text/event-stream` of the caller's notifications across all his games: `id:` "
            "the notification's `seq`, `event:` its kind, `data:` the notification as JSON, "
            "and a `: ping` comment after 15 s of silence. Reconnect with `Last-Event-ID` (or "
            "`?after=`): nothing is lost or repeated. One connection serves every game; the "
            "stream ends if its token is revoked."
        ),
        security=SECURITY,
        media_type="text/event-stream",
        responses={
            200: ResponseSpec(
                data_container=str,
                generate_examples=False,
                media_type="text/event-stream",
                description="The notification stream.",
            ),
            **problem_responses("unauthenticated", "validation"),
        },
    )
    async def follow_me(
        self,
        caller: NamedDependency[Caller],
        players: NamedDependency[Players],
        notes: NamedDependency[Notes],
        notes_hub: NamedDependency[NotesHub],
        sse: NamedDependency[SseSettings],
        after: Annotated[int | None, QueryParameter(ge=0, le=10**15)] = None,
        last_event_id: Annotated[
            str | None,
            HeaderParameter(name="Last-Event-ID", required=False, pattern=r"^[0-9]{1,18}$"),
        ] = None,
    ) -> Stream:
        start = resume_point(after, last_event_id)
        return Stream(
            _note_frames(notes_hub, notes, players, caller, start, sse),
            media_type="text/event-stream",
            headers={**PRIVATE, "X-Accel-Buffering": "no"},
        )

    @get(
        "/{player_id:uuid}",
        operation_id="readPlayer",
        summary="A player's public name and kind",
        responses=problem_responses("validation", "player-not-found"),
    )
    async def read_player(
        self, player_id: FromPath[uuid.UUID], players: NamedDependency[Players]
    ) -> Player:
        return await players.get(player_id)
