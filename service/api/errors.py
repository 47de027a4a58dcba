"""The one place that maps errors to HTTP, and every problem type the API can answer with.

Each refusal becomes an RFC 9457 ``application/problem+json`` body whose ``type`` is a stable,
relative URI ``/problems/<slug>``; the service serves a short page for each at that path. The
slug, status and title of a kind never change within /v1; ``detail`` is for humans and may.

The errors themselves are defined where they arise, free of HTTP: the domain's in
`domain.errors`, the service's in `service.exceptions`, the event store's in
`service.eventlog.store`. How they map: `NotationError` 400 ``bad-notation``; `InvalidRules` 422
``invalid-rules``; `InvalidLayout` 422 ``invalid-layout``; `IllegalAction` (any subclass) 409
``illegal-action`` with the rule's ``code``; `NotYet` 409 ``not-public-yet``; `StreamConflict`
412 ``version-mismatch`` with the current ``ETag``; `IdempotencyKeyReused` 422;
`IdempotencyKeyInFlight` 409; `BadRequest` (a cursor, a header) and `InvalidIdempotencyKey` 400
``validation``; `AlreadyImported` 409; `ImportRefused` 422; Litestar's validation errors 400
``validation`` with ``errors``; a database that cannot serve (`DATABASE_DOWN`: a refused or
broken connection, asyncpg's ``InternalClientError`` on a connection a restart left broken) 503
``unavailable`` with Retry-After; an unexpected exception 500 ``internal`` (logged, its text
never sent).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any, NamedTuple

import asyncpg
import msgspec
from litestar import Request, Response
from litestar.exceptions import HTTPException, ValidationException
from litestar.openapi.datastructures import ResponseSpec
from litestar.openapi.spec import Example

from domain.errors import IllegalAction, InvalidLayout, InvalidRules, NotationError, PreferansError
from service.eventlog.store import (
    CommitUnknown,
    DuplicateEventId,
    IdempotencyKeyInFlight,
    IdempotencyKeyReused,
    InvalidIdempotencyKey,
    LogRefused,
    StreamConflict,
    StreamUnreadable,
    WriteRefused,
)
from service.exceptions import (
    AlreadyImported,
    AuthorizationRefused,
    BadRequest,
    ChatRefused,
    Forbidden,
    GameNotFound,
    HeadersTooLarge,
    ImportRefused,
    InviteExpired,
    InviteNotFound,
    LoginTaken,
    NameTaken,
    NotFound,
    NotSeated,
    NotYet,
    PasskeyRefused,
    PayloadTooLarge,
    PlayerNotFound,
    PuzzleNotFound,
    PuzzleRefused,
    RangeNotSatisfiable,
    RateLimited,
    RematchRefused,
    RequestTimeout,
    SignInFailed,
    SignInLocked,
    StudyNotFound,
    TokenNotFound,
    Unauthenticated,
    Unavailable,
    UnsupportedMediaType,
)
from service.platform.database import DatabaseUnavailable

log = logging.getLogger(__name__)

PROBLEM_MEDIA_TYPE = "application/problem+json"
PROBLEM_BASE = "/problems/"
RETRY_AFTER = "2"
"""Seconds a client should wait after a 503 of an unavailable database."""

DATABASE_DOWN: tuple[type[BaseException], ...] = (
    DatabaseUnavailable,  # no connection could be had
    OSError,  # refused, reset, unreachable
    TimeoutError,  # connecting, or waiting for a pooled connection
    asyncpg.PostgresConnectionError,
    asyncpg.InterfaceError,  # a pool closing, a connection gone
    asyncpg.InternalClientError,  # a pooled connection a restart or a killed backend broke
    asyncpg.CannotConnectNowError,
    asyncpg.TooManyConnectionsError,
    asyncpg.AdminShutdownError,
    asyncpg.CrashShutdownError,
    asyncpg.QueryCanceledError,  # statement_timeout
    asyncpg.LockNotAvailableError,  # lock_timeout
    asyncpg.ReadOnlySQLTransactionError,  # a standby after a failover
    asyncpg.UndefinedFunctionError,  # the schema is behind this code
)
"""Failures that say the database cannot serve now, not that the request was wrong."""


# --- the wire shape ---------------------------------------------------------------------------


class FieldError(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """One reason a request was refused: where (``body.cards[1]``, ``query.limit``) and why."""

    path: str | None = None
    message: str


class Problem(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """An RFC 9457 problem; members after ``instance`` are extensions present for some kinds."""

    type: str
    """A stable URI reference, ``/problems/<slug>``; GET it for a description."""
    title: str
    """Short and fixed per ``type``."""
    status: int
    detail: str
    """This occurrence, for a human: for an illegal action it names the rule."""
    instance: str | None = None
    """The request path."""
    code: str | None = None
    """``illegal-action`` and the other domain refusals: the rule's stable code
    (``illegal.not_your_turn``, ``illegal.bid_not_higher`` …)."""
    errors: tuple[FieldError, ...] | None = None
    """``validation``: each field that was refused."""
    expected: int | None = None
    """``version-mismatch``: the version the request was made against (its If-Match)."""
    actual: int | None = None
    """``version-mismatch``: the game's current version (also in the ETag header)."""
    dependency: str | None = None
    """``unavailable``: what is down (``database`` …), when known."""
    redirect_to: str | None = None
    """``authorization-refused``: where the browser goes with the error, if anywhere."""


class Kind(NamedTuple):
    slug: str
    status: int
    title: str
    description: str
    """What it means and what a client should do: served at ``/problems/<slug>``."""

    @property
    def type(self) -> str:
        return PROBLEM_BASE + self.slug


_KINDS = (
    Kind(
        "validation",
        400,
        "The request is malformed",
        "The body is not JSON, misses a required field, has an unknown field or a value of the "
        "wrong type, or a query parameter or header is malformed. `errors` lists each one. Fix "
        "the request; retrying it unchanged fails the same way.",
    ),
    Kind(
        "bad-notation",
        400,
        "Bad card or bid notation",
        "A card is written rank then suit (`7S`, `TD`, `AH`; ranks 7 8 9 T J Q K A, suits S C D "
        "H), a bid level then strain (`6S`, `7NT`) or `MISER`, with `WT` for a game without "
        "the talon (`9SWT`, `MISERWT`).",
    ),
    Kind(
        "unauthenticated",
        401,
        "A valid bearer token is needed",
        "Send `Authorization: Bearer <token>` with the token `POST /v1/players` returned. "
        "The token is shown only once; a lost token means a new player.",
    ),
    Kind(
        "not-seated",
        403,
        "You have no seat at this game",
        "Only a seated player acts, and only for his own seat; the seat comes from the token, "
        "never from the request. Join first with `POST /v1/games/{id}/seats`.",
    ),
    Kind(
        "forbidden",
        403,
        "This token may not do that",
        "The token is valid but may not do this: `code` says why (`insufficient_scope`: a "
        "`read` token sent a write; `private_table`: the table is joined with an invite; "
        "`not_invited`: the invite names another player).",
    ),
    Kind("not-found", 404, "No such resource", "The path names nothing this service has."),
    Kind("token-not-found", 404, "No such token", "None of your tokens has this id."),
    Kind("invite-not-found", 404, "No such invite", "No invite has this code."),
    Kind(
        "invite-expired",
        410,
        "The invite has expired",
        "The invite code was valid, and its time is over. Ask for a new one.",
    ),
    Kind("game-not-found", 404, "No such game", "No game has this id."),
    Kind(
        "puzzle-not-found",
        404,
        "No such puzzle",
        "No puzzle has this id, or it is not served (its game is a duplicate table whose event "
        "is still open); from `GET /v1/puzzles/next`: you have attempted every puzzle served "
        "so far.",
    ),
    Kind(
        "study-not-found",
        404,
        "No such study",
        "No study has this id, or its owner has not shared it: a study is read by its owner, "
        "and by anyone with its link once he shares it.",
    ),
    Kind(
        "puzzle-refused",
        409,
        "The puzzle does not take this attempt",
        "`code` says why: `puzzle.attempted` (a puzzle is rated once per player: your attempt "
        "is in `GET /v1/players/me/puzzles`), `puzzle.not_a_choice` (the hand may not play "
        "that card: the puzzle's `position.legal` lists those it may).",
    ),
    Kind(
        "name-taken",
        409,
        "The name is taken",
        "A player holds this name, or one that looks like it: the same letters in another "
        "case, another script's look-alikes (a Cyrillic «а» for a Latin «a»), full-width "
        "forms (Unicode TR39 skeletons are compared). Choose another name.",
    ),
    Kind("player-not-found", 404, "No such player", "No player has this id."),
    Kind(
        "login-taken",
        409,
        "The login is taken",
        "Another player's account has this login. Choose another one.",
    ),
    Kind(
        "sign-in-failed",
        401,
        "The login or the password is wrong",
        "No account has this login with this password. The same answer is given for a login "
        "nobody holds. Failed attempts are counted per login and per address: past the limit, "
        "sign-in is locked for a while (`sign-in-locked`).",
    ),
    Kind(
        "passkey-refused",
        422,
        "The passkey was not registered",
        "The answer of `navigator.credentials.create` did not verify (another site's origin, "
        "a used or expired challenge, a malformed credential), or the passkey is registered "
        "already. Ask for new options and try again.",
    ),
    Kind(
        "sign-in-locked",
        429,
        "Too many failed sign-ins",
        "This login, or this address, failed to sign in too many times within the window: no "
        "attempt is heard until the `Retry-After` seconds have passed. A forgotten password is "
        "reset with a recovery code (`POST /v1/sessions/recovery`).",
    ),
    Kind("method-not-allowed", 405, "Method not allowed", "The path exists, not with this method."),
    Kind(
        "illegal-action",
        409,
        "The rules do not allow this now",
        "Well-formed, but the rules forbid it in this state: another seat's turn, the wrong "
        "phase, a card that does not follow suit, a seat already taken. `code` names the rule "
        "(`illegal.not_your_turn` …) and `detail` explains it. Read the game again: "
        "`legal_actions` lists what you may do.",
    ),
    Kind(
        "game-quarantined",
        409,
        "The game's log cannot be read",
        "An event of this game cannot be decoded or folded by the rules (a forged or corrupt "
        "log): the game is quarantined, and every read and command of it answers this until "
        "an operator repairs it. `detail` names the event (its version, type and why); "
        "`GET /v1/games/{id}/proof` checks the whole log.",
    ),
    Kind(
        "not-public-yet",
        409,
        "Not public yet",
        "What you asked for would show what a seat may not see yet: a deal still being played "
        "cannot be replayed, and a game is exported once it is over. `code` says which. Ask "
        "again later.",
    ),
    Kind(
        "already-imported",
        409,
        "The game is already here",
        "The export's game, or one of its events, is already stored on this server; a game is "
        "kept once so that its statistics and ratings count once.",
    ),
    Kind(
        "idempotency-key-in-flight",
        409,
        "The first request with this key is still running",
        "Another request with the same Idempotency-Key has not finished. Retry shortly with "
        "the same key: you will get its response.",
    ),
    Kind(
        "version-mismatch",
        412,
        "The game has moved on",
        "The If-Match version is not the game's current version (`actual`, also sent as the "
        "ETag). Read the game again and decide anew.",
    ),
    Kind(
        "request-timeout",
        408,
        "The request was not sent in time",
        "The request's body did not arrive within the time allowed; send it whole and promptly.",
    ),
    Kind(
        "payload-too-large",
        413,
        "The request body is too large",
        "Request bodies are limited to a few kilobytes; no request of this API needs more.",
    ),
    Kind(
        "unsupported-media-type",
        415,
        "Unsupported media type",
        "Send request bodies as `application/json` (a `charset` parameter may follow; no other "
        "type, not even another `+json` one).",
    ),
    Kind(
        "headers-too-large",
        431,
        "Request header fields too large",
        "The request's header fields, names and values together, are larger than any request "
        "of this API needs (16 KiB). Send fewer or shorter ones.",
    ),
    Kind(
        "rate-limited",
        429,
        "Too many requests",
        "This token or address sent more requests than its policy allows in the window (see the "
        "`RateLimit` and `RateLimit-Policy` headers). Retry after the `Retry-After` seconds.",
    ),
    Kind(
        "chat-refused",
        422,
        "The table does not take this message",
        "`code` says why: `chat.too_long` (at most 300 characters), `chat.empty`, "
        "`chat.phrases_only` (the table's rule: only the fixed phrases while the game is "
        "played), `chat.unknown_phrase`, `chat.text_or_phrase` (send one of the two), "
        "`chat.mute_self`. Too many messages in a row are `rate-limited`.",
    ),
    Kind(
        "rematch-refused",
        409,
        "No rematch can be offered or answered now",
        "`code` says why: `rematch.game_not_over` (a rematch follows a finished game), "
        "`rematch.already_offered`, `rematch.no_offer`, `rematch.not_open` (declined or "
        "accepted already). Read the offer again: `GET /v1/games/{id}/rematch`.",
    ),
    Kind(
        "invalid-rules",
        422,
        "The rules options are invalid",
        "An unknown preset, an unknown option, or an option out of range; see "
        "docs/conventions.md for every option of `overrides`.",
    ),
    Kind(
        "invalid-layout",
        422,
        "The layout is not a deal",
        "Each layout must deal the 32 cards exactly once: ten to each playing hand, two to the "
        "talon (and none to a sitting-out dealer at a table of four).",
    ),
    Kind(
        "invalid-export",
        422,
        "The file is not a game's export",
        "An export is a header line and then one line per event, versions 1, 2, … without a "
        "gap, starting with `game_created`, of a finished game; `detail` names the first line "
        "that is not.",
    ),
    Kind(
        "idempotency-key-reused",
        422,
        "The idempotency key was used for another request",
        "An Idempotency-Key names one request: the same method, path, body and If-Match. Use a "
        "new key for a new request.",
    ),
    Kind(
        "authorization-refused",
        400,
        "The app's authorization request is refused",
        "An OAuth authorization request the server does not accept: an unknown app, a redirect "
        "URI it did not register, a scope it may not ask, no PKCE S256 challenge. `code` is "
        "RFC 6749's error (`invalid_request`, `invalid_client`, `invalid_scope` …); "
        "`redirect_to`, when present, is the app's redirect URI with that error, where the "
        "consent page sends the browser.",
    ),
    Kind("bad-request", 400, "Bad request", "The request cannot be served as sent."),
    Kind(
        "range-not-satisfiable",
        416,
        "The range lies outside the file",
        "A download's `Range` names bytes the file does not have: `Content-Range: bytes */N` "
        "gives its size. Ask again within it, or without `Range` for the whole file.",
    ),
    Kind(
        "already-applied",
        409,
        "This request was already applied",
        "The events this request would append are already stored (its Idempotency-Key has "
        "expired since): read the game to see its state.",
    ),
    Kind(
        "internal",
        500,
        "Internal error",
        "Something failed on our side. If it was a command, read the game to see whether it "
        "took effect, or retry it with the same Idempotency-Key, which is safe.",
    ),
    Kind(
        "unavailable",
        503,
        "Service unavailable",
        "The database is unreachable, overloaded or failing over, or its schema is not current. "
        "Nothing was changed; retry after the Retry-After seconds.",
    ),
    Kind(
        "commit-unknown",
        503,
        "The command's outcome is unknown",
        "The command reached the database and the connection failed before its outcome came "
        "back: it may have taken effect or not. Retry it with the same Idempotency-Key (it is "
        "then either replayed or done once), or read the game before deciding again.",
    ),
)
KINDS: dict[str, Kind] = {kind.slug: kind for kind in _KINDS}
"""Every problem kind by slug."""


# --- exceptions to problems -------------------------------------------------------------------


class Mapped(NamedTuple):
    problem: Problem
    headers: dict[str, str]


def _problem(slug: str, detail: str, **extensions: Any) -> Problem:
    kind = KINDS[slug]
    return Problem(
        type=kind.type, title=kind.title, status=kind.status, detail=detail, **extensions
    )


def _validation(exc: ValidationException) -> Problem:
    errors: list[FieldError] = []
    extra = exc.extra if isinstance(exc.extra, list) else [exc.extra] if exc.extra else []
    for item in extra:
        if isinstance(item, dict):
            source, key = item.get("source"), item.get("key")
            source = getattr(source, "value", source)  # Litestar's ParamType: "query", "header"
            if source == "body" or key == "data":  # the body as a whole; msgspec names the field
                source, key = "body", None
            where = ".".join(str(p) for p in (source, key) if p)
            errors.append(FieldError(path=where or None, message=str(item.get("message", ""))))
    detail = errors[0].message if len(errors) == 1 and errors[0].message else exc.detail
    return _problem("validation", detail, errors=tuple(errors) or None)


_HTTP_SLUGS = {
    400: "validation",  # Litestar's: a body that is not JSON, a malformed parameter
    401: "unauthenticated",
    404: "not-found",
    405: "method-not-allowed",
    413: "payload-too-large",
    415: "unsupported-media-type",
    431: "headers-too-large",
    503: "unavailable",
}


def _http(exc: HTTPException) -> Problem:
    status = exc.status_code
    slug = _HTTP_SLUGS.get(status, "bad-request" if status < 500 else "internal")
    if slug == "internal":
        return _problem("internal", "an internal error occurred")
    detail = exc.detail or KINDS[slug].title
    if slug == "validation":
        return _problem(slug, detail, errors=(FieldError(path="body", message=detail),))
    problem = _problem(slug, detail)
    if status != problem.status:  # a 4xx we have no kind of our own for
        problem = msgspec.structs.replace(problem, status=status)
    return problem


def map_exception(exc: Exception) -> Mapped:
    """The problem (and extra headers) for any exception; the only exception-to-HTTP table."""
    headers: dict[str, str] = {}
    problem: Problem
    match exc:
        case IllegalAction():
            problem = _problem("illegal-action", exc.message, code=exc.code)
        case NotationError():
            problem = _problem("bad-notation", exc.message, code=exc.code)
        case InvalidRules():
            problem = _problem("invalid-rules", exc.message, code=exc.code)
        case InvalidLayout():
            problem = _problem("invalid-layout", exc.message, code=exc.code)
        case PreferansError():
            problem = _problem("illegal-action", exc.message, code=exc.code)
        case Unauthenticated():
            problem = _problem("unauthenticated", exc.message)
            headers["WWW-Authenticate"] = 'Bearer realm="preferans"'
        case NotSeated():
            problem = _problem("not-seated", exc.message)
        case Forbidden():
            problem = _problem("forbidden", exc.message, code=exc.code)
        case LogRefused():
            problem = _problem("forbidden", str(exc), code="log_refused")
        case WriteRefused():
            problem = _problem("unauthenticated", "this bearer token was revoked")
            headers["WWW-Authenticate"] = 'Bearer realm="preferans", error="invalid_token"'
        case TokenNotFound():
            problem = _problem("token-not-found", exc.message)
        case InviteNotFound():
            problem = _problem("invite-not-found", exc.message)
        case InviteExpired():
            problem = _problem("invite-expired", exc.message)
        case NameTaken():
            problem = _problem("name-taken", exc.message)
        case GameNotFound():
            problem = _problem("game-not-found", exc.message)
        case PlayerNotFound():
            problem = _problem("player-not-found", exc.message)
        case PuzzleNotFound():
            problem = _problem("puzzle-not-found", exc.message)
        case StudyNotFound():
            problem = _problem("study-not-found", exc.message)
        case PuzzleRefused():
            problem = _problem("puzzle-refused", exc.message, code=exc.code)
        case NotFound():
            problem = _problem("not-found", exc.message)
        case RangeNotSatisfiable():
            problem = _problem("range-not-satisfiable", exc.message)
            headers["Content-Range"] = f"bytes */{exc.size}"
        case BadRequest():
            errors = (FieldError(path=exc.where, message=exc.message),)
            problem = _problem("validation", exc.message, errors=errors)
        case Unavailable():
            problem = _problem("unavailable", exc.message, dependency=exc.dependency)
            headers["Retry-After"] = RETRY_AFTER
        case StreamUnreadable():
            problem = _problem("game-quarantined", str(exc))
        case CommitUnknown():
            problem = _problem("commit-unknown", str(exc))
            headers["Retry-After"] = "1"
        case DuplicateEventId():
            problem = _problem("already-applied", "the events of this request are already stored")
        case _ if isinstance(exc, DATABASE_DOWN):
            log.warning("database unavailable: %s: %s", type(exc).__name__, exc)
            problem = _problem(
                "unavailable",
                "the database is unavailable; nothing was changed",
                dependency="database",
            )
            headers["Retry-After"] = RETRY_AFTER
        case RequestTimeout():
            problem = _problem("request-timeout", exc.message)
            headers["Connection"] = "close"
        case PayloadTooLarge():
            problem = _problem("payload-too-large", exc.message)
            headers["Connection"] = "close"
        case UnsupportedMediaType():
            problem = _problem("unsupported-media-type", exc.message)
        case HeadersTooLarge():
            problem = _problem("headers-too-large", exc.message)
            headers["Connection"] = "close"
        case SignInFailed():
            problem = _problem("sign-in-failed", exc.message)
        case SignInLocked():
            problem = _problem("sign-in-locked", exc.message)
            headers["Retry-After"] = str(exc.retry_after)
        case PasskeyRefused():
            problem = _problem("passkey-refused", exc.message)
        case AuthorizationRefused():
            problem = _problem(
                "authorization-refused", exc.message, code=exc.error, redirect_to=exc.redirect_to
            )
        case LoginTaken():
            problem = _problem("login-taken", exc.message)
        case RateLimited():
            problem = _problem("rate-limited", exc.message)
            headers["Retry-After"] = str(exc.retry_after)
        case ChatRefused():
            problem = _problem("chat-refused", exc.message, code=exc.code)
        case RematchRefused():
            problem = _problem("rematch-refused", exc.message, code=exc.code)
        case NotYet():
            problem = _problem("not-public-yet", exc.message, code=exc.code)
        case AlreadyImported():
            problem = _problem("already-imported", exc.message)
        case ImportRefused():
            problem = _problem("invalid-export", exc.message)
        case StreamConflict():
            problem = _problem(
                "version-mismatch",
                f"the game is at version {exc.actual or 0}, not {exc.expected}"
                if exc.expected is not None
                else f"the game is at version {exc.actual or 0}, which If-Match does not name",
                expected=exc.expected,
                actual=exc.actual or 0,
            )
            headers["ETag"] = etag(exc.actual or 0)
        case IdempotencyKeyReused():
            problem = _problem("idempotency-key-reused", str(exc))
        case IdempotencyKeyInFlight():
            problem = _problem("idempotency-key-in-flight", str(exc))
            headers["Retry-After"] = "1"
        case InvalidIdempotencyKey():
            problem = _problem(
                "validation",
                str(exc),
                errors=(FieldError(path="header.Idempotency-Key", message=str(exc)),),
            )
        case ValidationException():
            problem = _validation(exc)
        case HTTPException():
            problem = _http(exc)
            headers.update(exc.headers or {})
        case _:
            log.error("unhandled %s", type(exc).__name__, exc_info=exc)
            problem = _problem("internal", "an internal error occurred")
    return Mapped(problem, headers)


def etag(version: int) -> str:
    """The strong entity tag of a game version: ``"12"``."""
    return f'"{version}"'


_encoder = msgspec.json.Encoder()


class RawProblem(NamedTuple):
    """A problem as bytes, for what answers below Litestar (the edge's raw ASGI refusals)."""

    status: int
    headers: tuple[tuple[str, str], ...]
    body: bytes


def raw_problem(exc: Exception, instance: str | None = None) -> RawProblem:
    """``exc`` as a problem+json response's status, headers and body."""
    problem, headers = map_exception(exc)
    if instance is not None:
        problem = msgspec.structs.replace(problem, instance=instance)
    headers = {**headers, "Content-Type": PROBLEM_MEDIA_TYPE}
    return RawProblem(problem.status, tuple(headers.items()), _encoder.encode(problem))


def problem_response(exc: Exception, instance: str) -> Response[Problem]:
    """``exc`` as the problem+json response to a request for ``instance``: what the exception
    handler sends, and what a replayed refusal sends again."""
    problem, headers = map_exception(exc)
    problem = msgspec.structs.replace(problem, instance=instance)
    return Response(
        problem, status_code=problem.status, headers=headers, media_type=PROBLEM_MEDIA_TYPE
    )


def problem_handler(request: Request[Any, Any, Any], exc: Exception) -> Response[Problem]:
    """Litestar's exception handler for every exception: one problem+json response."""
    return problem_response(exc, request.url.path)


EXCEPTION_HANDLERS: dict[
    int | type[Exception], Callable[[Request[Any, Any, Any], Any], Response[Any]]
] = {
    Exception: problem_handler,
}
"""For ``Litestar(exception_handlers=…)``: every exception goes through `map_exception`."""


# --- OpenAPI ----------------------------------------------------------------------------------


def problem_responses(*slugs: str) -> dict[int, ResponseSpec]:
    """OpenAPI response specs for the problems a route may answer, one example per kind."""
    by_status: dict[int, list[Kind]] = {}
    for slug in (*slugs, "internal"):
        kind = KINDS[slug]
        by_status.setdefault(kind.status, []).append(kind)
    return {
        status: ResponseSpec(
            data_container=Problem,
            generate_examples=False,
            description=" / ".join(f"`{k.slug}`: {k.title}" for k in kinds),
            media_type=PROBLEM_MEDIA_TYPE,
            examples=[Example(summary=k.title, value=_example(k)) for k in kinds],
        )
        for status, kinds in sorted(by_status.items())
    }


def _example(kind: Kind) -> dict[str, Any]:
    default = {"type": kind.type, "title": kind.title, "status": kind.status, "detail": kind.title}
    return _EXAMPLES.get(kind.slug, default)


_EXAMPLES: dict[str, dict[str, Any]] = {
    "illegal-action": {
        "type": "/problems/illegal-action",
        "title": KINDS["illegal-action"].title,
        "status": 409,
        "detail": "it is seat 2's turn to bid, not seat 0's",
        "instance": "/v1/games/0190c6a2-6f1e-7c3a-9d51-3b7e2a1c4f00/actions",
        "code": "illegal.not_your_turn",
    },
    "version-mismatch": {
        "type": "/problems/version-mismatch",
        "title": KINDS["version-mismatch"].title,
        "status": 412,
        "detail": "the game is at version 14, not 12",
        "expected": 12,
        "actual": 14,
    },
    "validation": {
        "type": "/problems/validation",
        "title": KINDS["validation"].title,
        "status": 400,
        "detail": "Object contains unknown field `seat`",
        "errors": [{"path": "body.seat", "message": "Object contains unknown field `seat`"}],
    },
}
