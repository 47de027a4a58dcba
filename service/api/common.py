"""What the controllers share: headers (Idempotency-Key, If-Match, If-None-Match, caching),
rendering a command's answer (the first time and, from the same outcome, on a replay), and the
refusal of query parameters a route does not take."""

from __future__ import annotations

import re
from typing import Annotated, Any

import msgspec
from litestar import Request, Response
from litestar.params import HeaderParameter

from domain import game
from service.api.actions.schemas import Action, from_command
from service.api.auth import app_scopes
from service.api.errors import etag, problem_response
from service.api.games.schemas import GameOutcome
from service.eventlog.store import STREAM_EXISTS
from service.exceptions import BadRequest, Unauthenticated
from service.games.service import Done

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
        pattern=r'^(\*|(W/)?("[0-9]{1,18}"|[0-9]{1,18})(, ?(W/)?("[0-9]{1,18}"|[0-9]{1,18}))*)$',
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

PRIVATE: dict[str, str] = {"Cache-Control": "private, no-cache", "Vary": "Authorization"}
"""Headers of a body that depends on who asks (a seat's view, its events): no shared cache may
keep it, and a private one revalidates with the ETag."""
NO_STORE: dict[str, str] = {"Cache-Control": "no-store"}
"""Headers of a body no cache may keep at all (a bearer token, a command's outcome)."""
_ETAG = re.compile(r'\s*(W/)?"?(\d{1,18})"?\s*')
_KNOWN_PARAMETERS: dict[int, tuple[Any, frozenset[str]]] = {}
_encoder = msgspec.json.Encoder()


def expected_version(if_match: str | None) -> int | frozenset[int] | None:
    """The versions If-Match accepts (RFC 9110 §13.1.1): ``*`` any existing version, else the
    list of its strong ETags (``"12", "13"``; a bare ``12`` is read as ``"12"``). Weak ETags
    never match under If-Match: a list of nothing but weak ones can hold for no version (an
    empty set: 412)."""
    if if_match is None:
        return None
    tags = [tag.strip() for tag in if_match.split(",")]
    if tags == ["*"]:
        return STREAM_EXISTS
    versions: set[int] = set()
    for tag in tags:
        match = _ETAG.fullmatch(tag)
        if match is None or tag.count('"') == 1:
            raise BadRequest(
                f'If-Match takes ETags such as "12" (or a list of them), not {if_match!r}',
                where="header.If-Match",
            )
        if not match[1]:  # strong comparison: a weak tag matches nothing
            versions.add(int(match[2]))
    if len(versions) == 1:
        return next(iter(versions))
    return frozenset(versions)


def seen_version(if_none_match: str | None) -> int:
    """The highest game version an If-None-Match names: the client saw it (0 if none)."""
    if if_none_match is None:
        return 0
    seen = [int(m[2]) for tag in if_none_match.split(",")
            if (m := _ETAG.fullmatch(tag.strip())) is not None]  # fmt: skip
    return max(seen, default=0)


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


def send(done: Done, path: str, *, status: int = 200, location: bool = False) -> Response[Any]:
    """A command's answer: its outcome as a `GameOutcome` with its ETag (and ``Location``, for
    a new game), or on a replay of a refused command the problem its first request got; marked
    when it is a replay. Rendered from ``done`` alone, so a replay answers byte for byte as the
    first request did."""
    if done.refusal is not None:
        response: Response[Any] = problem_response(done.refusal, path)
        response.headers["Idempotent-Replayed"] = "true"
        return response
    assert done.outcome is not None
    outcome = done.outcome
    state = outcome.state
    assert isinstance(state, game.Pulka)
    body = GameOutcome(
        id=outcome.game_id,
        version=outcome.version,
        seat=outcome.seat,
        events=outcome.events,
        view=game.game_view(state, outcome.seat),
        legal_actions=legal(state, outcome.seat),
        seated=outcome.seated,
        server_time=outcome.at,
        head=outcome.head.hex() if outcome.head is not None else None,
    )
    headers = {"ETag": etag(outcome.version)}
    if location:
        headers["Location"] = f"/v1/games/{outcome.game_id}"
    if done.replayed:
        headers["Idempotent-Replayed"] = "true"
    headers.update(NO_STORE)  # the caller's own events and view
    headers["Vary"] = "Authorization"
    return Response(_encoder.encode(body), status_code=status, headers=headers, media_type=JSON)


async def check_request(request: Request[Any, Any, Any]) -> None:
    """The ``before_request`` hook: an app's token within its scopes (`app_scopes`), then what
    Litestar's own parsing lets through."""
    await app_scopes(request)
    refuse_anonymous(request)
    refuse_unknown_query_parameters(request)
    await refuse_lax_bodies(request)


def refuse_anonymous(request: Request[Any, Any, Any]) -> None:
    """401 before anything about the request is judged, when the route needs a caller (a
    ``caller`` parameter) and no token came: without it a malformed body was a 400 first, and
    an anonymous client learnt what the route accepts."""
    needed = request.route_handler.parsed_fn_signature.parameters.get("caller")
    if needed is not None and not needed.is_optional and "authorization" not in request.headers:
        raise Unauthenticated("this needs a bearer token: 'Authorization: Bearer <token>'")


async def refuse_lax_bodies(request: Request[Any, Any, Any]) -> None:
    """400 for a body that fits its type only under lax conversion. Litestar converts what it
    decoded leniently (fine for a query's text), so ``"private": 0`` would pass as false and
    ``"seat": "1"`` as 1; a JSON body must be what its schema says."""
    field = request.route_handler.parsed_fn_signature.parameters.get("data")
    if field is None:
        return
    body_type = field.annotation
    body = await request.body()
    if not body.strip():
        return  # Litestar answers a missing body itself
    try:
        raw = _integral(msgspec.json.decode(body))
    except msgspec.DecodeError:
        return  # not JSON: Litestar's own refusal says so
    try:
        msgspec.convert(raw, body_type, strict=True)
    except msgspec.ValidationError as exc:
        raise BadRequest(str(exc), where="body") from None
    if _holds_nul(raw):  # PostgreSQL stores no NUL in text
        raise BadRequest("a request's text may not hold U+0000", where="body")


def _holds_nul(value: Any) -> bool:
    if isinstance(value, str):
        return "\x00" in value
    if isinstance(value, list):
        return any(_holds_nul(v) for v in value)
    if isinstance(value, dict):
        return any(_holds_nul(k) or _holds_nul(v) for k, v in value.items())
    return False


def _integral(value: Any) -> Any:
    """``value`` with each whole float (``2.0``) an int, as JSON Schema counts it."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, list):
        return [_integral(v) for v in value]
    if isinstance(value, dict):
        return {k: _integral(v) for k, v in value.items()}
    return value


def refuse_unknown_query_parameters(request: Request[Any, Any, Any]) -> None:
    """400 for a query parameter the route does not take (a typo such as ``?limt=5`` would
    otherwise pass unnoticed)."""
    if not request.scope["query_string"]:
        return None  # most requests: no MultiDict made to learn it (py-spy: 3.7% of a 304's)
    sent = request.query_params.keys()
    if not sent:
        return None
    handler = request.route_handler
    cached = _KNOWN_PARAMETERS.get(id(handler))
    if cached is None or cached[0] is not handler:  # an id is unique only while its object lives
        model = handler.create_kwargs_model(path_parameters=dict(request.path_params))
        cached = (handler, frozenset(p.field_alias for p in model.expected_query_params))
        _KNOWN_PARAMETERS[id(handler)] = cached
    known = cached[1]
    unknown = sorted(set(sent) - known)
    if unknown:
        takes = ", ".join(sorted(known)) or "none"
        raise BadRequest(
            f"unknown query parameter {unknown[0]!r} (this route takes: {takes})",
            where=f"query.{unknown[0]}",
        )
    return None
