"""Players: ``POST /v1/players`` gives a name a bearer token; ``GET`` reads one back."""

from __future__ import annotations

import uuid

from litestar import Controller, Response, get, post
from litestar.di import NamedDependency
from litestar.params import FromPath, JSONBody

from service.api.auth import SECURITY
from service.api.common import NO_STORE, PRIVATE
from service.api.schemas import NewPlayer, PlayerCreated
from service.errors import problem_responses
from service.players import Player, Players


class PlayersController(Controller):
    path = "/players"
    tags = ["players"]  # noqa: RUF012

    @post(
        "/",
        status_code=201,
        operation_id="registerPlayer",
        summary="Register a player",
        description=(
            "Returns the player's id and bearer token. The token is shown only here and stored "
            "only as a hash: keep it. Send it as `Authorization: Bearer <token>`."
        ),
        responses=problem_responses("validation", "payload-too-large"),
    )
    async def create_player(
        self, data: JSONBody[NewPlayer], players: NamedDependency[Players]
    ) -> Response[PlayerCreated]:
        player, token = await players.register(data.name)
        created = PlayerCreated(id=player.id, name=player.name, token=token)
        return Response(created, status_code=201, headers=NO_STORE)  # a bearer token

    @get(
        "/me",
        operation_id="readMe",
        summary="Who the token belongs to",
        security=SECURITY,
        responses=problem_responses("unauthenticated"),
    )
    async def me(self, caller: NamedDependency[Player]) -> Response[Player]:
        return Response(caller, headers=PRIVATE)

    @get(
        "/{player_id:uuid}",
        operation_id="readPlayer",
        summary="A player's public name",
        responses=problem_responses("validation", "player-not-found"),
    )
    async def read_player(
        self, player_id: FromPath[uuid.UUID], players: NamedDependency[Players]
    ) -> Player:
        return await players.get(player_id)
