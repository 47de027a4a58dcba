"""OAuth 2.1 for third-party apps: apps, consent, codes with PKCE, tokens that rotate (issue 23).

The protocol is authlib's (``authlib.oauth2``: RFC 6749's authorization code grant and refresh
grant, RFC 7636's PKCE, RFC 7009's revocation, RFC 7662's introspection), framework-neutral
classes this module hands its storage to; the SQL, and what the database keeps, are migration
0022's. OAuth 2.1's profile of it:

- the authorization code grant only, with PKCE S256 required of every client (no implicit
  grant, no password grant, no ``plain`` challenge); a redirect URI matches exactly;
- public clients (no secret: a mobile or browser app) and confidential ones (a secret, sent
  with HTTP Basic or in the form);
- an access token lasts `ACCESS_TTL` and is a row of ``api.tokens`` (scope ``read`` or
  ``play``), so the service checks it as it checks any token; a refresh token works once and is
  replaced at each refresh; one presented again revokes its whole family (the grant).

Scopes: ``read`` reads what the player sees; ``play`` also acts for him (tables, games, chat,
invites, rematches). No app token manages the account (login, password, passkeys, devices,
apps), whatever its scope: `service.api.auth` refuses it on those routes.

authlib is synchronous and the storage is asyncpg's: `OAuthServer` runs authlib's request
handling in a worker thread, whose storage calls run on the event loop and wait for it
(`_Bridge`). Each storage call is one statement; the ones that make or revoke tokens are the
database's functions, atomic on their own (a code is exchanged once even by two racing
requests).
"""

from __future__ import annotations

import asyncio
import hashlib
import re
import secrets
import uuid
from collections.abc import Coroutine, Iterable
from datetime import UTC, datetime, timedelta
from typing import Any, TypeVar
from urllib.parse import urlsplit

import asyncpg
import msgspec
from authlib.oauth2 import rfc6749, rfc7009, rfc7636, rfc7662
from authlib.oauth2.rfc6749 import (
    ClientMixin,
    InvalidGrantError,
    InvalidRequestError,
    OAuth2Error,
    OAuth2Request,
)
from authlib.oauth2.rfc6749.requests import BasicOAuth2Payload

from service.eventlog.store import NOTIFY_CHANNEL, uuid7
from service.exceptions import AuthorizationRefused, BadRequest, Forbidden, NotFound
from service.players.accounts import REVOKED, Caller, Player, Players, new_token, token_hash
from service.players.names import clean_name

T = TypeVar("T")

SCOPES = ("read", "play")
"""``read``: what the player sees; ``play``: that, and acting for him."""
ACCESS_TTL = timedelta(hours=1)
REFRESH_TTL = timedelta(days=30)
"""A refresh token unused this long lapses (each refresh starts a new one)."""
CODE_TTL = timedelta(minutes=5)
AUTH_METHODS = ["client_secret_basic", "client_secret_post", "none"]
"""How a client authenticates at the token, revocation and introspection endpoints: a public
client by its id alone (``none``), a confidential one by its secret."""
MAX_REDIRECT_URIS = 10


class AppNotFound(NotFound):
    """No such app, or not one of the caller's."""


class App(msgspec.Struct, frozen=True, kw_only=True):
    """A registered app as its owner sees it (never its secret)."""

    client_id: str
    name: str
    redirect_uris: list[str]
    scope: str
    """The scopes it may ask for, space-separated."""
    public: bool
    """No secret: a mobile, desktop or browser app; it proves itself with PKCE alone."""
    created_at: datetime


class NewApp(msgspec.Struct, frozen=True, kw_only=True):
    app: App
    client_secret: str | None = None
    """A confidential app's secret, shown this once (kept only as its sha256)."""


class AuthorisedApp(msgspec.Struct, frozen=True, kw_only=True):
    """An app the player let act for him, and what he let it do."""

    client_id: str
    name: str
    scope: str
    authorised_at: datetime
    """When he first authorised it (of the grants still standing)."""


class Consent(msgspec.Struct, frozen=True, kw_only=True):
    """What the consent page shows before the player approves or declines."""

    client_id: str
    app_name: str
    scopes: list[str]
    redirect_uri: str
    state: str | None = None


# --- the SQL ---------------------------------------------------------------------------------

_CLIENT = """
SELECT client_id, name, redirect_uris, scope, created_at, public
  FROM api.oauth_clients WHERE client_id = $1 AND removed_at IS NULL"""
_SECRET_OK = "SELECT api.oauth_client_secret_ok($1, $2)"
_ADD = "SELECT api.oauth_add_client($1, $2, $3, $4, $5, $6)"
_REMOVE = "SELECT api.oauth_remove_client($1, $2)"
_OWNED = """
SELECT client_id, name, redirect_uris, scope, created_at, public FROM api.oauth_clients
 WHERE owner_id = $1 AND removed_at IS NULL ORDER BY created_at, client_id"""
_ISSUE_CODE = "SELECT api.oauth_issue_code($1, $2, $3, $4, $5, $6, $7, $8)"
_CODE = """
SELECT player_id::text, redirect_uri, scope, challenge, challenge_method
  FROM api.oauth_codes WHERE code_hash = $1 AND client_id = $2 AND expires_at > now()"""
_EXCHANGE = "SELECT * FROM api.oauth_exchange_code($1, $2, $3, $4, $5, $6, $7, $8)"
_REFRESH_TOKEN = """
SELECT g.player_id::text, g.client_id, g.scope, r.expires_at, g.created_at
  FROM api.oauth_refresh_tokens r JOIN api.oauth_grants g USING (grant_id)
 WHERE r.token_hash = $1 AND g.revoked_at IS NULL AND r.expires_at > now()"""
_ROTATE = "SELECT * FROM api.oauth_refresh($1, $2, $3, $4, $5, $6, $7)"
_ACCESS_TOKEN = """
SELECT t.player_id::text, g.client_id, g.scope, t.expires_at, t.created_at,
       t.revoked_at IS NOT NULL, p.name
  FROM api.tokens t JOIN api.oauth_grants g USING (grant_id) JOIN api.players p
    ON p.player_id = t.player_id
 WHERE t.token_hash = $1"""
_REFRESH_INFO = """
SELECT g.player_id::text, g.client_id, g.scope, r.expires_at, r.created_at,
       (r.used_at IS NOT NULL OR g.revoked_at IS NOT NULL), p.name
  FROM api.oauth_refresh_tokens r JOIN api.oauth_grants g USING (grant_id)
  JOIN api.players p ON p.player_id = g.player_id
 WHERE r.token_hash = $1"""
_REVOKE = "SELECT api.oauth_revoke($1, $2)"
_FORGET = "SELECT api.oauth_forget_app($1, $2)"
_AUTHORISED = """
SELECT g.client_id, c.name, string_agg(DISTINCT s, ' ' ORDER BY s), min(g.created_at)
  FROM api.oauth_grants g JOIN api.oauth_clients c USING (client_id),
       unnest(string_to_array(g.scope, ' ')) AS s
 WHERE g.player_id = $1 AND g.revoked_at IS NULL AND c.removed_at IS NULL
 GROUP BY g.client_id, c.name ORDER BY min(g.created_at), g.client_id"""
_NOTIFY = "SELECT pg_notify($1, $2)"
_PURGE = "SELECT api.oauth_purge($1)"


async def purge(pool: asyncpg.Pool, older: timedelta = timedelta(days=1)) -> int:
    """Forget codes and refresh tokens ``older`` past their expiry, and the refresh tokens of
    grants revoked that long ago (the purger's role); how many."""
    purged: int = await pool.fetchval(_PURGE, older)
    return purged


_CLIENT_ID = re.compile(r"[A-Za-z0-9_-]{16,64}")


def is_client_id(value: str | None) -> bool:
    """Whether ``value`` could be a client id this server made (others name no app, and never
    reach the database)."""
    return value is not None and _CLIENT_ID.fullmatch(value) is not None


_VSCHAR = re.compile(r"[\x20-\x7e]*")
_NOT_VSCHAR = "every parameter is printable ASCII (RFC 6749, appendix A)"


def _printable(pairs: list[tuple[str, str]]) -> bool:
    """Whether every name and value is RFC 6749's VSCHAR (authlib would put one that is not in
    an error description, which may not hold it)."""
    return all(_VSCHAR.fullmatch(k) and _VSCHAR.fullmatch(v) for k, v in pairs)


def _digest(value: str) -> bytes:
    return hashlib.sha256(value.encode()).digest()


def _scope_list(scope: str | None) -> list[str]:
    return [s for s in (scope or "").split() if s]


def clean_scope(scope: str | None, where: str = "body.scope") -> str:
    """A set of scopes in a fixed order; `BadRequest` for one this server does not know."""
    wanted = set(_scope_list(scope)) or set(SCOPES)
    unknown = sorted(wanted - set(SCOPES))
    if unknown:
        raise BadRequest(f"unknown scope {unknown[0]!r} (known: read, play)", where=where)
    return " ".join(s for s in SCOPES if s in wanted)


def clean_redirect_uri(uri: str, where: str) -> str:
    """A redirect URI an app may register: absolute, no fragment; https, or http only to this
    machine (RFC 8252's loopback, for native apps and tests), or an app's own scheme
    (``com.example.app:/callback``)."""
    if len(uri) > 512 or any(c.isspace() or ord(c) < 32 or ord(c) == 127 for c in uri):
        raise BadRequest("a redirect URI is at most 512 characters, without spaces", where=where)
    try:
        parts = urlsplit(uri)
    except ValueError:
        raise BadRequest("not a URI", where=where) from None
    if not parts.scheme or parts.fragment or "#" in uri:
        raise BadRequest("a redirect URI is absolute and has no fragment", where=where)
    if parts.scheme == "http" and parts.hostname not in ("localhost", "127.0.0.1", "::1"):
        raise BadRequest("http is for loopback redirect URIs only: use https", where=where)
    if parts.scheme in ("https", "http") and not parts.hostname:
        raise BadRequest("a web redirect URI names its host", where=where)
    if parts.scheme in ("javascript", "data", "file", "vbscript"):
        raise BadRequest(f"{parts.scheme}: is no redirect URI", where=where)
    return uri


# --- authlib's models ------------------------------------------------------------------------


class _Client(ClientMixin):  # type: ignore[misc]  # authlib ships no annotations
    def __init__(self, row: asyncpg.Record, bridge: _Bridge) -> None:
        self.client_id: str = row["client_id"]
        self.name: str = row["name"]
        self.redirect_uris: list[str] = list(row["redirect_uris"])
        self.scope: str = row["scope"]
        self.public: bool = row["public"]
        self._bridge = bridge

    def get_client_id(self) -> str:
        return self.client_id

    def get_default_redirect_uri(self) -> str | None:
        # OAuth 2.1: a request names its redirect URI unless the app registered only one.
        return self.redirect_uris[0] if len(self.redirect_uris) == 1 else None

    def get_allowed_scope(self, scope: str | None) -> str | None:
        allowed = set(_scope_list(self.scope))
        wanted = set(_scope_list(scope)) or allowed
        if not wanted <= allowed:
            return None
        return " ".join(s for s in SCOPES if s in wanted)

    def check_redirect_uri(self, redirect_uri: str) -> bool:
        return redirect_uri in self.redirect_uris

    def check_client_secret(self, client_secret: str) -> bool:
        if self.public:
            return False
        ok: bool = self._bridge.run(self._bridge.pool.fetchval(
            _SECRET_OK, self.client_id, client_secret.encode()
        ))  # fmt: skip
        return ok

    def check_endpoint_auth_method(self, method: str, endpoint: str) -> bool:
        if self.public:
            return method == "none"
        return method in ("client_secret_basic", "client_secret_post")

    def check_response_type(self, response_type: str) -> bool:
        return response_type == "code"

    def check_grant_type(self, grant_type: str) -> bool:
        return grant_type in ("authorization_code", "refresh_token")


class _Code:
    def __init__(self, digest: bytes, row: asyncpg.Record) -> None:
        self.digest = digest
        self.player_id: str = row[0]
        self.redirect_uri: str = row[1]
        self.scope: str = row[2]
        self.challenge: str = row[3]
        self.challenge_method: str = row[4]

    def get_redirect_uri(self) -> str:
        return self.redirect_uri

    def get_scope(self) -> str:
        return self.scope


class _Token:
    """An access or refresh token as the revocation and introspection endpoints see it."""

    def __init__(self, digest: bytes, kind: str, row: asyncpg.Record) -> None:
        self.digest = digest
        self.kind = kind
        self.player_id: str = row[0]
        self.client_id: str = row[1]
        self.scope: str = row[2]
        self.expires_at: datetime = row[3]
        self.issued_at: datetime = row[4]
        self.revoked: bool = bool(row[5]) if len(row) > 5 else False
        self.player_name: str | None = row[6] if len(row) > 6 else None

    def check_client(self, client: _Client) -> bool:
        return self.client_id == client.client_id

    def get_scope(self) -> str:
        return self.scope

    def get_expires_in(self) -> int:
        return max(0, int((self.expires_at - datetime.now(UTC)).total_seconds()))

    def is_expired(self) -> bool:
        return self.expires_at <= datetime.now(UTC)

    def is_revoked(self) -> bool:
        return self.revoked


# --- authlib's server, over the database -------------------------------------------------------


class _Bridge:
    """Runs a coroutine on the event loop from authlib's worker thread and waits for it."""

    def __init__(self, pool: asyncpg.Pool, loop: asyncio.AbstractEventLoop) -> None:
        self.pool = pool
        self.loop = loop

    def run(self, coroutine: Coroutine[Any, Any, T]) -> T:
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result()


class _Request(OAuth2Request):  # type: ignore[misc]
    def __init__(
        self,
        method: str,
        uri: str,
        headers: dict[str, str],
        query: Iterable[tuple[str, str]] = (),
        form: Iterable[tuple[str, str]] = (),
    ) -> None:
        # Not OAuth2Request.__init__: its https check reads the URI the request came to, which
        # behind a TLS proxy is plain http; the issuer's scheme is checked instead
        # (`service.api.oauth`).
        self.method, self.uri, self.headers = method, uri, headers
        self._body: Any = None
        self.client: Any = None
        self.auth_method: Any = None
        self.user: Any = None
        self.authorization_code: Any = None
        self.refresh_token: Any = None
        self.credential: Any = None
        self._scope: Any = None
        query, form = list(query), list(form)
        self._args = dict(query)
        self._form = dict(form)
        payload = BasicOAuth2Payload({**self._args, **self._form})
        lists: dict[str, list[str]] = {}
        for key, value in (*query, *form):
            lists.setdefault(key, []).append(value)
        payload._datalist = lists  # authlib reads repeated parameters there
        self.payload = payload

    @property
    def args(self) -> dict[str, str]:
        return self._args

    @property
    def form(self) -> dict[str, str]:
        return self._form


class _PKCE(rfc7636.CodeChallenge):  # type: ignore[misc]
    """PKCE as OAuth 2.1 has it: S256, of every client, on every authorization request."""

    SUPPORTED_CODE_CHALLENGE_METHOD = ["S256"]  # noqa: RUF012

    def validate_code_challenge(self, grant: Any, redirect_uri: str) -> None:
        data = grant.request.payload.data
        if not data.get("code_challenge"):
            raise InvalidRequestError("PKCE is required: send 'code_challenge'",
                                      redirect_uri=redirect_uri)  # fmt: skip
        if data.get("code_challenge_method") != "S256":
            raise InvalidRequestError("'code_challenge_method' must be S256",
                                      redirect_uri=redirect_uri)  # fmt: skip
        super().validate_code_challenge(grant, redirect_uri)

    def validate_code_verifier(self, grant: Any, result: Any) -> None:
        if not grant.request.form.get("code_verifier"):
            raise InvalidRequestError("Missing 'code_verifier'")
        super().validate_code_verifier(grant, result)

    def get_authorization_code_challenge(self, authorization_code: _Code) -> str:
        return authorization_code.challenge

    def get_authorization_code_challenge_method(self, authorization_code: _Code) -> str:
        return authorization_code.challenge_method


class _CodeGrant(rfc6749.grants.AuthorizationCodeGrant):  # type: ignore[misc]
    TOKEN_ENDPOINT_AUTH_METHODS = AUTH_METHODS

    def save_authorization_code(self, code: str, request: _Request) -> None:
        server: _Server = self.server
        caller: Caller = request.user
        outcome = server.bridge.run(server.bridge.pool.fetchval(
            _ISSUE_CODE, caller.token_hash, _digest(code), request.client.client_id,
            request.payload.redirect_uri or request.client.get_default_redirect_uri(),
            request.scope, request.payload.data["code_challenge"],
            request.payload.data["code_challenge_method"], CODE_TTL,
        ))  # fmt: skip
        if outcome != "ok":
            raise InvalidRequestError("the app is gone, or no longer has this redirect URI")

    def query_authorization_code(self, code: str, client: _Client) -> _Code | None:
        server: _Server = self.server
        digest = _digest(code)
        row = server.bridge.run(server.bridge.pool.fetchrow(_CODE, digest, client.client_id))
        return _Code(digest, row) if row is not None else None

    def delete_authorization_code(self, authorization_code: _Code) -> None:
        """Nothing: the exchange that saved the tokens used the code up (`_Server.save_token`)."""

    def authenticate_user(self, authorization_code: _Code) -> Player:
        server: _Server = self.server
        return server.bridge.run(server.players.get(uuid.UUID(authorization_code.player_id)))


class _RefreshGrant(rfc6749.grants.RefreshTokenGrant):  # type: ignore[misc]
    TOKEN_ENDPOINT_AUTH_METHODS = AUTH_METHODS
    INCLUDE_NEW_REFRESH_TOKEN = True  # rotation: each refresh token works once

    def authenticate_refresh_token(self, refresh_token: str) -> _Token | None:
        server: _Server = self.server
        digest = _digest(refresh_token)
        row = server.bridge.run(server.bridge.pool.fetchrow(_REFRESH_TOKEN, digest))
        return _Token(digest, "refresh_token", row) if row is not None else None

    def authenticate_user(self, refresh_token: _Token) -> Player:
        server: _Server = self.server
        return server.bridge.run(server.players.get(uuid.UUID(refresh_token.player_id)))

    def revoke_old_credential(self, refresh_token: _Token) -> None:
        """Nothing: the rotation that saved the new tokens used the old one up."""


class _Lookup:
    """The token lookup of the revocation and introspection endpoints."""

    server: _Server
    CLIENT_AUTH_METHODS = AUTH_METHODS

    def query_token(self, token_string: str, token_type_hint: str | None) -> _Token | None:
        digest = _digest(token_string)
        kinds = [("access_token", _ACCESS_TOKEN), ("refresh_token", _REFRESH_INFO)]
        if token_type_hint == "refresh_token":
            kinds.reverse()
        for kind, sql in kinds:
            row = self.server.bridge.run(self.server.bridge.pool.fetchrow(sql, digest))
            if row is not None:
                return _Token(digest, kind, row)
        return None


class _Revocation(_Lookup, rfc7009.RevocationEndpoint):  # type: ignore[misc]
    def revoke_token(self, token: _Token, request: _Request) -> None:
        bridge = self.server.bridge
        hashes = bridge.run(bridge.pool.fetchval(_REVOKE, token.client_id, token.digest))
        bridge.run(self.server.announce(hashes))


class _Introspection(_Lookup, rfc7662.IntrospectionEndpoint):  # type: ignore[misc]
    def check_permission(self, token: _Token, client: _Client, request: _Request) -> bool:
        return token.client_id == client.client_id  # an app's own tokens only

    def introspect_token(self, token: _Token) -> dict[str, Any]:
        return {
            "active": True, "client_id": token.client_id, "token_type": token.kind,
            "scope": token.scope, "sub": token.player_id, "username": token.player_name,
            "exp": int(token.expires_at.timestamp()), "iat": int(token.issued_at.timestamp()),
        }  # fmt: skip


class _Server(rfc6749.AuthorizationServer):  # type: ignore[misc]
    def __init__(self, players: Players, bridge: _Bridge) -> None:
        super().__init__(scopes_supported=list(SCOPES))
        self.players = players
        self.bridge = bridge
        self.register_token_generator("default", self._generate)
        self.register_grant(_CodeGrant, [_PKCE(required=True)])
        self.register_grant(_RefreshGrant)
        self.register_endpoint(_Revocation)
        self.register_endpoint(_Introspection)

    async def announce(self, hashes: list[bytes] | None) -> None:
        await announce_revoked(self.bridge.pool, self.players, hashes)

    def query_client(self, client_id: str) -> _Client | None:
        return self.bridge.run(_client(self.bridge, client_id))

    @staticmethod
    def _generate(
        grant_type: str,
        client: _Client,
        user: Player | None = None,
        scope: str | None = None,
        expires_in: int | None = None,
        include_refresh_token: bool = True,
    ) -> dict[str, Any]:
        token: dict[str, Any] = {
            "token_type": "Bearer",
            "access_token": new_token(),
            "expires_in": int(ACCESS_TTL.total_seconds()),
            "scope": scope or "",
        }
        if include_refresh_token:
            token["refresh_token"] = new_token()
        return token

    def save_token(self, token: dict[str, Any], request: _Request) -> None:
        """Store the tokens made, in one call of the database that also uses up the code or
        the refresh token they were made from; a second use revokes what the first gave."""
        pool, token_id = self.bridge.pool, uuid7()
        access = token_hash(token["access_token"])
        refresh = token_hash(token["refresh_token"]) if "refresh_token" in token else None
        if request.refresh_token is not None:
            row = self.bridge.run(pool.fetchrow(
                _ROTATE, request.refresh_token.digest, request.client.client_id, token_id,
                access, ACCESS_TTL, refresh, REFRESH_TTL,
            ))  # fmt: skip
        else:
            row = self.bridge.run(pool.fetchrow(
                _EXCHANGE, request.authorization_code.digest, request.client.client_id,
                uuid7(), token_id, access, ACCESS_TTL, refresh, REFRESH_TTL,
            ))  # fmt: skip
        assert row is not None
        self.bridge.run(self.announce(list(row["revoked"] or [])))
        if row["outcome"] == "reused":
            raise InvalidGrantError(
                "this was used before: everything it gave is revoked, sign in again"
            )
        if row["outcome"] != "ok":
            raise InvalidGrantError("unknown, expired or revoked")
        token["scope"] = row["scope"]

    def create_oauth2_request(self, request: _Request) -> _Request:
        return request

    def create_json_request(self, request: Any) -> Any:
        raise NotImplementedError("no endpoint here takes JSON")

    def handle_response(
        self, status: int, body: Any, headers: list[tuple[str, str]]
    ) -> tuple[int, Any, list[tuple[str, str]]]:
        return status, body, headers

    def send_signal(self, name: str, *args: Any, **kwargs: Any) -> None:
        return None


async def _client(bridge: _Bridge, client_id: str) -> _Client | None:
    if not is_client_id(client_id):
        return None
    row = await bridge.pool.fetchrow(_CLIENT, client_id)
    return _Client(row, bridge) if row is not None else None


async def announce_revoked(
    pool: asyncpg.Pool, players: Players, hashes: list[bytes] | None
) -> None:
    """Drop revoked access tokens from every process's cache (`Players.on_news`)."""
    for digest in hashes or ():
        players.on_news(REVOKED + bytes(digest).hex())
        await pool.execute(_NOTIFY, NOTIFY_CHANNEL, REVOKED + bytes(digest).hex())


Answer = tuple[int, Any, list[tuple[str, str]]]
"""What an OAuth endpoint answers: a status, a JSON body (or "" for a redirect), headers."""
_INVALID: Answer = (400, {"error": "invalid_request", "error_description": _NOT_VSCHAR}, [])


class OAuthServer:
    """The authorization server (see the module docstring): apps, consent, the endpoints."""

    def __init__(self, pool: asyncpg.Pool, players: Players, issuer: str | None = None) -> None:
        self.pool = pool
        self.players = players
        self.issuer = issuer
        """The public origin the endpoints are reached at (PREFERANS_OAUTH_ISSUER); None: the
        origin each request came to."""

    def _server(self) -> _Server:
        return _Server(self.players, _Bridge(self.pool, asyncio.get_running_loop()))

    # --- the protocol's endpoints -----------------------------------------------------------

    async def token(self, uri: str, headers: dict[str, str], form: list[tuple[str, str]]) -> Answer:
        """The token endpoint: a code (with its PKCE verifier) or a refresh token for tokens."""
        if not _printable(form):
            return _INVALID
        server = self._server()
        request = _Request("POST", uri, headers, form=form)
        return await asyncio.to_thread(server.create_token_response, request)

    async def revoke(
        self, uri: str, headers: dict[str, str], form: list[tuple[str, str]]
    ) -> Answer:
        if not _printable(form):
            return _INVALID
        server = self._server()
        request = _Request("POST", uri, headers, form=form)
        return await asyncio.to_thread(server.create_endpoint_response, "revocation", request)

    async def introspect(
        self, uri: str, headers: dict[str, str], form: list[tuple[str, str]]
    ) -> Answer:
        if not _printable(form):
            return _INVALID
        server = self._server()
        request = _Request("POST", uri, headers, form=form)
        return await asyncio.to_thread(server.create_endpoint_response, "introspection", request)

    async def consent(self, caller: Caller, uri: str, query: list[tuple[str, str]]) -> Consent:
        """What the consent page asks the player: the app and the scopes of this request, once
        authlib found it good (the client known, the redirect URI its own, PKCE S256)."""
        first_party(caller)
        if not _printable(query):
            raise AuthorizationRefused("invalid_request", _NOT_VSCHAR, None)
        server = self._server()
        request = _Request("GET", uri, {}, query=query)
        grant = await asyncio.to_thread(_consent_grant, server, request, caller)
        return Consent(
            client_id=grant.client.client_id, app_name=grant.client.name,
            scopes=_scope_list(request.scope), redirect_uri=grant.redirect_uri,
            state=request.payload.state,
        )  # fmt: skip

    async def decide(
        self, caller: Caller, uri: str, query: list[tuple[str, str]], approve: bool
    ) -> str:
        """The player's answer: where his browser goes next (the app's redirect URI with a
        code, or with ``error=access_denied``)."""
        first_party(caller)
        if not _printable(query):
            raise AuthorizationRefused("invalid_request", _NOT_VSCHAR, None)
        server = self._server()
        request = _Request("POST", uri, {}, query=query)
        return await asyncio.to_thread(_decide, server, request, caller, approve)

    # --- apps: their owners' side ----------------------------------------------------------

    async def register(
        self, caller: Caller, name: str, redirect_uris: list[str], scope: str | None,
        confidential: bool,
    ) -> NewApp:  # fmt: skip
        """A new app of the caller's; a confidential one's secret is returned this once."""
        first_party(caller)
        caller.may_play()
        name = clean_name(name, "body.name")
        if not 1 <= len(redirect_uris) <= MAX_REDIRECT_URIS:
            raise BadRequest(f"between 1 and {MAX_REDIRECT_URIS} redirect URIs",
                             where="body.redirect_uris")  # fmt: skip
        uris = [clean_redirect_uri(u, f"body.redirect_uris[{i}]") for i, u in
                enumerate(redirect_uris)]  # fmt: skip
        scope = clean_scope(scope)
        client_id = secrets.token_urlsafe(18)
        secret = secrets.token_urlsafe(32) if confidential else None
        try:
            made = await self.pool.fetchval(
                _ADD, caller.token_hash, client_id, name, list(dict.fromkeys(uris)),
                hashlib.sha256(secret.encode()).digest() if secret else None, scope,
            )  # fmt: skip
        except asyncpg.PostgresError as exc:
            if exc.sqlstate != "P0403":
                raise
            raise Forbidden("this token may not register an app", code="token_refused") from None
        if made is None:
            raise Forbidden("a player registers at most 20 apps: remove one first",
                            code="too_many_apps")  # fmt: skip
        app = App(client_id=client_id, name=name, redirect_uris=list(dict.fromkeys(uris)),
                  scope=scope, public=secret is None, created_at=made)  # fmt: skip
        return NewApp(app=app, client_secret=secret)

    async def apps_of(self, player: Player) -> list[App]:
        rows = await self.pool.fetch(_OWNED, uuid.UUID(player.id))
        return [
            App(client_id=r[0], name=r[1], redirect_uris=list(r[2]), scope=r[3], public=r[5],
                created_at=r[4])
            for r in rows
        ]  # fmt: skip

    async def remove(self, caller: Caller, client_id: str) -> None:
        """Remove an app of the caller's: every token it holds, anyone's, is revoked."""
        first_party(caller)
        if not is_client_id(client_id):
            raise AppNotFound("none of your apps has this client id")
        hashes = await self.pool.fetchval(_REMOVE, caller.token_hash, client_id)
        if hashes is None:
            raise AppNotFound("none of your apps has this client id")
        await announce_revoked(self.pool, self.players, hashes)

    # --- apps: the players' side ------------------------------------------------------------

    async def authorised(self, player: Player) -> list[AuthorisedApp]:
        rows = await self.pool.fetch(_AUTHORISED, uuid.UUID(player.id))
        return [AuthorisedApp(client_id=r[0], name=r[1], scope=r[2], authorised_at=r[3])
                for r in rows]  # fmt: skip

    async def forget(self, caller: Caller, client_id: str) -> None:
        """Revoke an app the caller authorised: its tokens for him, at once, everywhere."""
        first_party(caller)
        if not is_client_id(client_id):
            raise AppNotFound("you have not authorised an app with this client id")
        try:
            hashes = await self.pool.fetchval(_FORGET, caller.token_hash, client_id)
        except asyncpg.PostgresError as exc:
            if exc.sqlstate != "P0403":
                raise
            raise Forbidden("this token may not revoke apps", code="token_refused") from None
        if hashes is None:
            raise AppNotFound("you have not authorised an app with this client id")
        await announce_revoked(self.pool, self.players, hashes)


def first_party(caller: Caller) -> None:
    """`Forbidden` for an app's token: only the player himself manages his account."""
    if caller.app is not None:
        raise Forbidden("an app's token may not manage the account", code="insufficient_scope")


def _consent_grant(server: _Server, request: _Request, caller: Caller) -> Any:
    try:
        return server.get_consent_grant(request, end_user=caller)
    except OAuth2Error as error:
        raise _failure(server, request, error) from None


def _decide(server: _Server, request: _Request, caller: Caller, approve: bool) -> str:
    grant = _consent_grant(server, request, caller)
    status, _, headers = server.create_authorization_response(
        request, grant_user=caller if approve else None, grant=grant
    )
    location = dict(headers).get("Location")
    if status != 302 or location is None:  # pragma: no cover - authlib redirects or raises
        raise AuthorizationRefused("server_error", "the authorization did not complete", None)
    return str(location)


def _failure(server: _Server, request: _Request, error: OAuth2Error) -> AuthorizationRefused:
    redirect_to = None
    if error.redirect_uri:
        error.state = request.payload.state
        _, _, headers = server.handle_error_response(request, error)
        redirect_to = dict(headers).get("Location")
    return AuthorizationRefused(
        error.error, error.get_error_description() or error.error, redirect_to
    )
