"""What the controllers share: headers (Idempotency-Key, If-Match, If-None-Match), rendering a
command's outcome, and sending a response stored under an idempotency key."""

from __future__ import annotations

import re
from typing import Annotated, Any

import msgspec
from litestar import Response
from litestar.params import HeaderParameter

from domain import game
from service.api.schemas import Action, GameOutcome, from_command
from service.errors import etag, stored_problem
from service.event_store import STREAM_EXISTS, StoredResponse
from service.exceptions import BadRequest
from service.games import Done, Outcome, Render, RenderRefusal

IdempotencyKeyHeader = Annotated[
    str | None,
    HeaderParameter(
        name="Idempotency-Key",
        required=False,
        min_length=1,
        max_length=255,
        description=(
            "Makes a retry safe: a repeat with the same key (and the same request) appends "
            "nothing and gets the first response again, with `Idempotent-Replayed: true`. "
            "Kept 24 hours. The same key with another request is a 422."
        ),
    ),
]
IfMatchHeader = Annotated[
    str | None,
    HeaderParameter(
        name="If-Match",
        required=False,
        max_length=64,
        description=(
            'Act only if the game is still at this version (its ETag, e.g. `"12"`); else 412 '
            "with the current ETag. Without it the command is decided against the newest state."
        ),
    ),
]
IfNoneMatchHeader = Annotated[
    str | None,
    HeaderParameter(
        name="If-None-Match",
        required=False,
        max_length=1024,
        description="The ETag you hold: 304 Not Modified, with no body, if it is still current.",
    ),
]

JSON = "application/json"
_ETAG = re.compile(r'\s*(W/)?"?(\d{1,18})"?\s*')
_encoder = msgspec.json.Encoder()


def expected_version(if_match: str | None) -> int | None:
    """The version pinned by If-Match (``"12"``; ``*`` means any existing version)."""
    if if_match is None:
        return None
    if if_match.strip() == "*":
        return STREAM_EXISTS
    match = _ETAG.fullmatch(if_match)
    if match is None or match[1]:
        raise BadRequest(
            f'If-Match takes one strong ETag such as "12", not {if_match!r}',
            where="header.If-Match",
        )
    return int(match[2])


def not_modified(if_none_match: str | None, version: int) -> bool:
    """Whether If-None-Match names ``version`` (weak comparison, as RFC 9110 says)."""
    if if_none_match is None:
        return False
    tags = [tag.strip() for tag in if_none_match.split(",")]
    return "*" in tags or any(
        (m := _ETAG.fullmatch(tag)) is not None and int(m[2]) == version for tag in tags
    )


def legal(state: game.GameState, seat: int | None) -> list[Action]:
    """Everything ``seat`` may send now, as request bodies."""
    if seat is None:
        return []
    return [from_command(command) for command in game.legal_actions(state, seat)]


def outcome_renderer(status: int, *, location: bool = False) -> Render:
    """Renders a command's outcome as a `GameOutcome` response with its ETag."""

    def render(outcome: Outcome) -> StoredResponse:
        state = outcome.state
        assert isinstance(state, game.Pulka)
        body = GameOutcome(
            id=outcome.game_id,
            version=outcome.version,
            seat=outcome.seat,
            events=outcome.events,
            view=game.game_view(state, outcome.seat),
            legal_actions=legal(state, outcome.seat),
        )
        headers = [("Content-Type", JSON), ("ETag", etag(outcome.version))]
        if location:
            headers.append(("Location", f"/v1/games/{outcome.game_id}"))
        return StoredResponse(status, tuple(headers), _encoder.encode(body))

    return render


def refusal_renderer(path: str) -> RenderRefusal:
    """Renders a refusal as the problem stored under an idempotency key."""
    return lambda exc: stored_problem(exc, instance=path)


def send(done: Done) -> Response[Any]:
    """The stored (or just rendered) response, marked when it is a replay."""
    stored = done.response
    headers = {name: value for name, value in stored.headers if name.lower() != "content-type"}
    media_type = next((v for n, v in stored.headers if n.lower() == "content-type"), JSON)
    if done.replayed:
        headers["Idempotent-Replayed"] = "true"
    return Response(stored.body, status_code=stored.status, headers=headers, media_type=media_type)
