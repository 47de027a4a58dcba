"""A seated player's actions: bid, pass, take the talon, discard, declare, whist, play …"""

from __future__ import annotations

import typing
import uuid
from typing import Annotated, Any

import msgspec
from litestar import Controller, Request, Response, post
from litestar.di import NamedDependency
from litestar.openapi.spec import Example
from litestar.params import Body, FromPath

from service.api.actions.schemas import Action, canonical, to_command
from service.api.auth import SECURITY
from service.api.common import (
    IdempotencyKeyHeader,
    IfMatchHeader,
    expected_version,
    send,
)
from service.api.errors import problem_responses
from service.api.games.schemas import GameOutcome
from service.eventlog.handler import request_hash
from service.games.commands import CALLERS_SEAT
from service.games.service import GameService
from service.players.accounts import Caller

DISCRIMINATOR = {
    "propertyName": "type",
    "mapping": {
        cls.__struct_config__.tag: f"#/components/schemas/{cls.__name__}"
        for cls in typing.get_args(Action)
    },
}

EXAMPLES = [
    Example(summary=summary, value=value)
    for summary, value in (
        ("Bid six spades", {"type": "bid", "bid": "6S"}),
        ("Pass", {"type": "pass"}),
        ("Take the talon", {"type": "take_talon"}),
        ("Discard two cards", {"type": "discard", "cards": ["7S", "8D"]}),
        ("Declare seven no-trump", {"type": "declare", "contract": "7NT"}),
        ("Whist", {"type": "whist", "choice": "whist"}),
        ("Play open", {"type": "choose_play", "open": True}),
        ("Play the ace of hearts", {"type": "play", "card": "AH"}),
    )
]


class ActionsController(Controller):
    path = "/games"
    tags = ["actions"]  # noqa: RUF012

    @post(
        "/{game_id:uuid}/actions",
        status_code=200,
        operation_id="act",
        summary="Act at your seat",
        description=(
            "One action of the caller's seat; the seat comes from the bearer token. The body is "
            "one of the shapes `legal_actions` lists, tagged by `type`. The response holds the "
            "events it caused as the caller may see them (the next deal's too, when it ends a "
            "deal), and the caller's new view. An action the rules forbid is a 409 whose `code` "
            "names the rule."
        ),
        security=SECURITY,
        responses=problem_responses(
            "validation",
            "bad-notation",
            "unauthenticated",
            "not-seated",
            "game-not-found",
            "game-quarantined",
            "illegal-action",
            "idempotency-key-in-flight",
            "version-mismatch",
            "payload-too-large",
            "idempotency-key-reused",
        ),
    )
    async def act(
        self,
        request: Request[Any, Any, Any],
        game_id: FromPath[uuid.UUID],
        data: Annotated[
            Action,
            Body(
                description="One of `legal_actions`, tagged by `type`.",
                examples=EXAMPLES,
                schema_extra={"discriminator": DISCRIMINATOR},
            ),
        ],
        caller: NamedDependency[Caller],
        games: NamedDependency[GameService],
        idempotency_key: IdempotencyKeyHeader = None,
        if_match: IfMatchHeader = None,
    ) -> Response[GameOutcome]:
        action = canonical(data)
        path = request.url.path
        done = await games.act(
            game_id,
            caller,
            to_command(action, CALLERS_SEAT),
            key=idempotency_key,
            fingerprint=request_hash("POST", path, msgspec.json.encode(action), if_match or ""),
            expected=expected_version(if_match),
        )
        return send(done, path)
