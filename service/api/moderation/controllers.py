"""Moderation (docs/fair-play.md).

Routes (under /v1):

    GET /moderation/pairs          the pairs of players ranked by their collusion score
    GET /moderation/me             whether the caller is a moderator

A moderator only: anyone else gets 403 ``not_moderator``; a player never sees figures, his own
or another's.
"""

from __future__ import annotations

import uuid
from typing import Annotated

from litestar import Controller, Response, get
from litestar.di import NamedDependency
from litestar.params import QueryParameter

from service.api.auth import SECURITY
from service.api.common import NO_STORE
from service.api.errors import problem_responses
from service.api.moderation.schemas import ModeratorView
from service.players.accounts import Caller
from service.read_models.moderation import Moderation, ModerationReport


class ModerationController(Controller):
    path = "/moderation"
    tags = ["moderation"]  # noqa: RUF012

    @get(
        "/pairs",
        operation_id="readCollusionReport",
        summary="The collusion report: pairs of players ranked",
        description=(
            "For moderators only (403 `not_moderator` for anyone else). Every pair of players "
            "who sat together in a finished game, ranked by its score: the highest z-score of "
            "its figures (fed tricks, double-dummy accuracy defending together, all-pass "
            "gifts, passes for the other's contract, whists flowing one way), each measured "
            "against the giver's own record with others and the population's mean; co-seating "
            "beside them, unscored. Each figure links the deals that weighed most. A screen for "
            "a moderator to look at, never a verdict (docs/fair-play.md). `player`: only the "
            "pairs of that player."
        ),
        security=SECURITY,
        responses=problem_responses("unauthenticated", "forbidden", "validation"),
    )
    async def pairs(
        self,
        caller: NamedDependency[Caller],
        moderation: NamedDependency[Moderation],
        limit: Annotated[int, QueryParameter(ge=1, le=500)] = 50,
        offset: Annotated[int, QueryParameter(ge=0, le=1_000_000)] = 0,
        player: Annotated[uuid.UUID | None, QueryParameter()] = None,
    ) -> Response[ModerationReport]:
        await moderation.require(caller.id)
        found = await moderation.report(
            limit=limit, offset=offset, player=None if player is None else str(player)
        )
        return Response(found, headers=NO_STORE)

    @get(
        "/me",
        operation_id="readModeratorRole",
        summary="Whether you are a moderator",
        description="`moderator`: true when the caller holds the moderator role.",
        security=SECURITY,
        responses=problem_responses("unauthenticated"),
    )
    async def me(
        self, caller: NamedDependency[Caller], moderation: NamedDependency[Moderation]
    ) -> Response[ModeratorView]:
        is_moderator = await moderation.is_moderator(caller.id)
        return Response(ModeratorView(moderator=is_moderator), headers=NO_STORE)


ROUTE_HANDLERS = [ModerationController]
