"""A game as the caller sees it: his seat's view (or a spectator's) and what he may do."""

from __future__ import annotations

import uuid
from typing import Any

from litestar import Controller, Response, get
from litestar.di import NamedDependency
from litestar.openapi.datastructures import ResponseSpec
from litestar.params import FromPath

from domain import game
from service.api.auth import admitted_viewer
from service.api.common import (
    PRIVATE,
    IfNoneMatchHeader,
    legal,
    not_modified,
    seen_version,
)
from service.api.errors import etag, problem_responses
from service.api.games.schemas import GameSnapshot
from service.games.service import GameService
from service.games.tournaments import Embargo
from service.players.accounts import Caller

Header = tuple[bytes, bytes]


_PRIVATE_304 = [(name.lower().encode(), value.encode()) for name, value in PRIVATE.items()]


def unchanged_game(scope: Any, authorization: bytes, if_none_match: bytes) -> list[Header] | None:
    """The edge's answer to a conditional read of a game (`service.api.edge`): the headers of
    its 304 when the If-None-Match names the version this process knows to be current and the
    caller's token is one it knows; None for the full way (`ViewsController.read_game`, which
    answers the same 304 from the same knowledge, or reads the log)."""
    if len(if_none_match) > 1024:  # IfNoneMatchHeader's bound: the full way says 400
        return None
    state = scope["app"].state
    if not admitted_viewer(authorization, state["players"]):
        return None
    game_id = scope["path_params"]["game_id"]
    known = state["games"].known_version(game_id)
    if known is None or not not_modified(if_none_match.decode("latin-1"), known):
        return None
    return [(b"etag", etag(known).encode()), *_PRIVATE_304]


class ViewsController(Controller):
    path = "/games"
    tags = ["games"]  # noqa: RUF012

    @get(
        "/{game_id:uuid}",
        operation_id="readGame",
        summary="Read a game",
        description=(
            "The caller's view: his own cards and everything lying face up, never another "
            "hand, a talon not yet shown or a discard not his. Without a token (or unseated) it "
            "is a spectator's view. `legal_actions` lists the bodies the caller may POST to "
            "`/actions` now. The ETag is the game's version; send it as If-None-Match to get "
            "304 while nothing has changed."
        ),
        responses={
            304: ResponseSpec(
                data_container=None, description="Not modified: your ETag is the game's version."
            ),
            **problem_responses(
                "unauthenticated", "game-not-found", "game-quarantined", "validation", "forbidden"
            ),
        },
        opt={"unchanged": unchanged_game},
    )
    async def read_game(
        self,
        game_id: FromPath[uuid.UUID],
        viewer: NamedDependency[Caller | None],
        games: NamedDependency[GameService],
        embargo: NamedDependency[Embargo],
        if_none_match: IfNoneMatchHeader = None,
    ) -> Response[GameSnapshot]:
        await embargo.may_watch(game_id, viewer.id if viewer else None)
        if if_none_match is not None:
            known = games.known_version(game_id)
            if known is not None and not_modified(if_none_match, known):
                headers = {"ETag": etag(known), **PRIVATE}
                return Response(None, status_code=304, headers=headers)  # type: ignore[arg-type]
        version, state, head = await games.view_state(game_id, seen_version(if_none_match))
        headers = {"ETag": etag(version), **PRIVATE}
        if not_modified(if_none_match, version):
            return Response(None, status_code=304, headers=headers)  # type: ignore[arg-type]
        assert isinstance(state, game.Pulka)
        seat = game.seat_of(state, viewer.id) if viewer else None
        snapshot = GameSnapshot(
            id=game_id,
            version=version,
            seat=seat,
            view=game.game_view(state, seat),
            legal_actions=legal(state, seat),
            seated=await games.named(state),
            server_time=games.clock.now_ms(),
            head=head.hex(),
        )
        return Response(snapshot, headers=headers)
