"""Bearer tokens: who is calling.

A player gets a random token at ``POST /v1/players`` and more with ``POST
/v1/players/me/tokens`` (one per device); the service keeps only their sha256
(`service.players.accounts`). Every game command needs ``Authorization: Bearer <token>`` with a
token of scope ``play``, and the seat it acts for is the seat that token's player holds: never one
named in the request.

Two Litestar dependencies:

- ``caller``: the authenticated `Caller` (the player and his token); a missing, unknown or
  revoked token is `Unauthenticated` (401).
- ``viewer``: the same, or None without an Authorization header (a spectator may read a game);
  a token that is sent but unknown is still 401, so a client never mistakes a typo for
  spectating.

An app's token (OAuth, `service.players.oauth`) is held to its scopes on every route, before
the route reads its body, by `app_scopes` (run by the app's ``before_request`` hook,
`service.api.common.check_request`; not a Litestar guard, which copies the route handler on
every call: 6% of a seat view's CPU in bench_api): a ``read`` token makes only safe requests
(GET, HEAD); no app token reaches a route marked `FIRST_PARTY` (the account, its passkeys,
devices and apps, the consent itself), whatever its scope.

`admitted_viewer` says, with no lookup, whether ``viewer`` would admit a request (the edge's
304, `service.api.games.views.unchanged_game`).
"""

from __future__ import annotations

from typing import Any

from litestar import Request
from litestar.di import NamedDependency, Provide

from service.exceptions import Forbidden, Unauthenticated
from service.players.accounts import Caller, Players

SECURITY: list[dict[str, list[str]]] = [{"bearer": []}]
"""OpenAPI security requirement of the routes that need a token."""
OPTIONAL_SECURITY: list[dict[str, list[str]]] = [{}, {"bearer": []}]
"""The document's default OpenAPI security: a token is optional (a spectator reads a game
without one). Routes that need one say `SECURITY`; the others leave ``security`` unset, so a
generated client takes an anonymous client there too."""


FIRST_PARTY: dict[str, Any] = {"first_party": True}
"""A route's ``opt`` that no app's token may call: the account is the player's own business."""
SAFE_METHODS = frozenset({"GET", "HEAD"})
_UNKNOWN = "this bearer token is not one we issued, or it was revoked or has expired"
_FOUND = "preferans.caller"
"""Where `app_scopes` leaves the caller it found (the token and who holds it), so that the
route's ``caller`` or ``viewer`` does not look the token up again."""


async def _holder(request: Request[Any, Any, Any], players: Players, token: str) -> Caller | None:
    found: tuple[str, Caller | None] | None = request.scope.get(_FOUND)  # type: ignore[assignment]
    if found is not None and found[0] == token:
        return found[1]
    return await players.authenticate(token)


async def app_scopes(connection: Request[Any, Any, Any]) -> None:
    """What every route checks first: an app's token only within its scopes (module docstring).
    A player's own tokens pass (each route checks their scope, `Caller.may_play`)."""
    header = connection.headers.get("authorization")
    players: Players | None = connection.app.state.get("players")
    if header is None or players is None:
        return
    scheme, _, token = header.strip().partition(" ")
    token = token.strip()
    if scheme.lower() != "bearer" or not token or len(token) > 512:
        return  # the route's own dependency refuses it (401)
    caller = await players.authenticate(token)
    connection.scope[_FOUND] = (token, caller)  # type: ignore[literal-required]
    if caller is None or caller.app is None:
        return
    if connection.route_handler.opt.get("first_party"):
        raise Forbidden("an app's token may not manage the account", code="insufficient_scope")
    if caller.scope != "play" and connection.scope.get("method") not in SAFE_METHODS:
        raise Forbidden(
            "this app's token has the 'read' scope: it reads, it may not act",
            code="insufficient_scope",
        )


def _token(request: Request[Any, Any, Any]) -> str | None:
    header = request.headers.get("authorization")
    if header is None:
        return None
    scheme, _, token = header.strip().partition(" ")
    token = token.strip()
    if scheme.lower() != "bearer" or not token or len(token) > 512:
        raise Unauthenticated("send the token as 'Authorization: Bearer <token>'")
    return token


async def caller(request: Request[Any, Any, Any], players: NamedDependency[Players]) -> Caller:
    token = _token(request)
    if token is None:
        raise Unauthenticated("this needs a bearer token: 'Authorization: Bearer <token>'")
    player = await _holder(request, players, token)
    if player is None:
        raise Unauthenticated(_UNKNOWN)
    return player


async def viewer(
    request: Request[Any, Any, Any], players: NamedDependency[Players]
) -> Caller | None:
    token = _token(request)
    if token is None:
        return None
    player = await _holder(request, players, token)
    if player is None:
        raise Unauthenticated(_UNKNOWN)
    return player


def admitted_viewer(authorization: bytes, players: Players) -> bool:
    """Whether ``viewer`` would admit a request with this Authorization header (``b""``: none)
    without a lookup: no header (a spectator), or a token `Players.known_caller` knows. False
    means only that the full way must tell (a lookup, maybe a 401)."""
    if not authorization:
        return True
    scheme, _, token = authorization.decode("latin-1").strip().partition(" ")
    token = token.strip()
    if scheme.lower() != "bearer" or not token or len(token) > 512:
        return False
    return players.known_caller(token) is not None


DEPENDENCIES = {"caller": Provide(caller), "viewer": Provide(viewer)}
