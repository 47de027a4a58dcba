"""OAuth 2.1 over HTTP: the protocol's endpoints, apps, consent and the apps a player authorised.

The protocol (RFC 6749 with PKCE, RFC 7009, RFC 7662, RFC 8414), outside /v1 as its RFCs name
them, answering in their JSON (not problem+json)::

    GET  /.well-known/oauth-authorization-server   the server's metadata
    GET  /oauth/authorize          an app sends the player's browser here; it goes on to the
                                   web client's consent page (#/oauth/authorize?…)
    POST /oauth/token              a code and its PKCE verifier, or a refresh token, for tokens
    POST /oauth/revoke             an app revokes one of its tokens (RFC 7009)
    POST /oauth/introspect         an app asks about one of its tokens (RFC 7662)

The API the web client and app authors use (problem+json; a player's own ``play`` token, never
an app's)::

    POST/GET /v1/apps, DELETE /v1/apps/{client_id}        register, list, remove your apps
    GET/POST /v1/oauth/consent                            what an authorization asks; answer it
    GET /v1/players/me/apps, DELETE …/{client_id}         the apps you authorised; revoke one

What each does is `service.players.oauth`'s.
"""

from __future__ import annotations

from typing import Annotated, Any
from urllib.parse import parse_qsl, urlencode, urlsplit

import msgspec
from litestar import Controller, Request, Response, delete, get, post
from litestar.di import NamedDependency
from litestar.openapi.datastructures import ResponseSpec
from litestar.params import FromPath, JSONBody, QueryParameter
from litestar.response import Redirect

from service.api.auth import FIRST_PARTY, SECURITY
from service.api.common import NO_STORE, PRIVATE
from service.api.errors import problem_responses
from service.exceptions import BadRequest
from service.players.accounts import Caller
from service.players.oauth import (
    ACCESS_TTL,
    SCOPES,
    App,
    AuthorisedApp,
    Consent,
    NewApp,
    OAuthServer,
)

# --- the wire shapes ---------------------------------------------------------------------------

RedirectUri = Annotated[str, msgspec.Meta(min_length=1, max_length=512,
                                          examples=["https://app.example/callback"])]  # fmt: skip
AppName = Annotated[str, msgspec.Meta(min_length=1, max_length=64, examples=["Pulka Mobile"])]
ScopeText = Annotated[
    str,
    msgspec.Meta(
        max_length=64, pattern=r"^(read|play)( (read|play))*$", examples=["read play"],
        description="Space-separated: `read` (what you see), `play` (acting for you).",
    ),
]  # fmt: skip


class AppRegistration(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A new app: its name (shown on the consent page) and where it takes the player back to."""

    name: AppName
    redirect_uris: Annotated[list[RedirectUri], msgspec.Meta(min_length=1, max_length=10)]
    """Exact URIs (compared as strings): https, an app's own scheme, or http to loopback."""
    scope: ScopeText = "read play"
    """The scopes it may ask for."""
    confidential: bool = False
    """A server-side app that keeps a secret; otherwise public (mobile, desktop, browser)."""


class AppList(msgspec.Struct, frozen=True, kw_only=True):
    items: list[App]


class AuthorisedAppList(msgspec.Struct, frozen=True, kw_only=True):
    items: list[AuthorisedApp]


class ConsentAnswer(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """The player's answer to an authorization request."""

    request: Annotated[str, msgspec.Meta(min_length=1, max_length=4096)]
    """The authorization request's query string, as the app sent it to /oauth/authorize."""
    approve: bool


class ConsentDone(msgspec.Struct, frozen=True, kw_only=True):
    redirect_to: str
    """The app's redirect URI with ``code`` and ``state`` (or ``error=access_denied``)."""


def _form_schema(title: str, description: str, fields: dict[str, str]) -> dict[str, Any]:
    return {
        "title": title, "description": description, "type": "object",
        "properties": {name: {"type": "string", "description": text}
                       for name, text in fields.items()},
    }  # fmt: skip


_CLIENT_FIELDS = {
    "client_id": "A public client's id (a confidential one may send it with `client_secret`).",
    "client_secret": "A confidential client's secret, if not sent with HTTP Basic.",
}
TOKEN_FORM = _form_schema(
    "TokenForm",
    "RFC 6749 §4.1.3 and §6, form-encoded. A public client sends its `client_id`; a "
    "confidential one authenticates with HTTP Basic (or `client_id` and `client_secret`).",
    {
        "grant_type": "`authorization_code` or `refresh_token`.",
        "code": "The code the redirect URI received.",
        "redirect_uri": "The redirect URI of the authorization request, exactly.",
        "code_verifier": "PKCE (RFC 7636): the secret whose S256 the authorization request sent.",
        "refresh_token": "The refresh token the last answer gave (each works once).",
        "scope": "Narrower scopes on a refresh, if wanted.",
        **_CLIENT_FIELDS,
    },
)
TOKEN_QUERY = _form_schema(
    "TokenQuery",
    "RFC 7009 §2.1 and RFC 7662 §2.1, form-encoded, with the client's authentication.",
    {
        "token": "The access or refresh token.",
        "token_type_hint": "`access_token` or `refresh_token`.",
        **_CLIENT_FIELDS,
    },
)
FORMS = {"oauthToken": TOKEN_FORM, "oauthRevoke": TOKEN_QUERY, "oauthIntrospect": TOKEN_QUERY}
"""The form each protocol endpoint takes (`service.api.openapi` documents it): read from the raw
body, so that a repeated parameter is authlib's ``invalid_request``, as the RFC has it."""


class TokenAnswer(msgspec.Struct, frozen=True, kw_only=True):
    """RFC 6749 §5.1."""

    access_token: str
    token_type: str
    expires_in: int
    refresh_token: str
    """Works once: the next refresh returns a new one. Presented again, it revokes them all."""
    scope: str


class TokenQuery(msgspec.Struct, frozen=True, kw_only=True):
    """RFC 7009 §2.1 and RFC 7662 §2.1, form-encoded, with the client's authentication."""

    token: str | None = None
    token_type_hint: str | None = None
    client_id: str | None = None
    client_secret: str | None = None


class Introspection(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """RFC 7662 §2.2: ``active`` false for a token that is not the app's, expired or revoked."""

    active: bool
    client_id: str | None = None
    token_type: str | None = None
    scope: str | None = None
    sub: str | None = None
    """The player's id."""
    username: str | None = None
    """The player's name."""
    exp: int | None = None
    iat: int | None = None


class OAuthError(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """RFC 6749 §5.2."""

    error: str
    """``invalid_request``, ``invalid_client``, ``invalid_grant``, ``unauthorized_client``,
    ``unsupported_grant_type``, ``invalid_scope`` …"""
    error_description: str | None = None


class Metadata(msgspec.Struct, frozen=True, kw_only=True):
    """RFC 8414 §2."""

    issuer: str
    authorization_endpoint: str
    token_endpoint: str
    revocation_endpoint: str
    introspection_endpoint: str
    scopes_supported: list[str]
    response_types_supported: list[str]
    response_modes_supported: list[str]
    grant_types_supported: list[str]
    token_endpoint_auth_methods_supported: list[str]
    revocation_endpoint_auth_methods_supported: list[str]
    introspection_endpoint_auth_methods_supported: list[str]
    code_challenge_methods_supported: list[str]
    service_documentation: str


# --- the protocol ------------------------------------------------------------------------------

_OAUTH_ERRORS = {
    400: ResponseSpec(OAuthError, description="RFC 6749 §5.2: the request is refused",
                      generate_examples=False),
    401: ResponseSpec(OAuthError, description="`invalid_client`: the client did not "
                      "authenticate", generate_examples=False),
}  # fmt: skip
_LOOPBACK = ("localhost", "127.0.0.1", "::1")
Query = Annotated[str | None, QueryParameter(max_length=512)]
"""A parameter of an authorization request (RFC 6749 §4.1.1, RFC 7636 §4.3), as the app sent
it: authlib checks them all, from the query string itself."""


def issuer(request: Request[Any, Any, Any], oauth: OAuthServer) -> str:
    """The server's public origin: PREFERANS_OAUTH_ISSUER, else the one the request came to.
    OAuth needs TLS: an issuer over plain http is refused unless it is this machine."""
    origin = (oauth.issuer or f"{request.url.scheme}://{request.headers.get('host', '')}").rstrip(
        "/"
    )
    parts = urlsplit(origin)
    if parts.scheme != "https" and parts.hostname not in _LOOPBACK:
        raise BadRequest("OAuth is served over https only (set PREFERANS_OAUTH_ISSUER behind a "
                         "TLS proxy)", where="header.host")  # fmt: skip
    return origin


def _headers(request: Request[Any, Any, Any]) -> dict[str, str]:
    wanted = ("authorization", "content-type")
    return {k.title(): v for k, v in request.headers.items() if k.lower() in wanted}


async def _form(request: Request[Any, Any, Any]) -> list[tuple[str, str]]:
    content_type = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if content_type != "application/x-www-form-urlencoded":
        return [("_not_a_form", "1")]  # authlib then finds no grant: invalid_request
    try:
        return parse_qsl((await request.body()).decode(), keep_blank_values=True,
                         strict_parsing=False, max_num_fields=32)  # fmt: skip
    except (UnicodeDecodeError, ValueError):
        return []


def _answer(answer: tuple[int, Any, list[tuple[str, str]]]) -> Response[Any]:
    status, body, headers = answer
    merged = {**dict(headers), **NO_STORE, "Pragma": "no-cache"}
    merged.pop("Content-Type", None)
    return Response(body, status_code=status, headers=merged, media_type="application/json")


class ProtocolController(Controller):
    tags = ["oauth"]  # noqa: RUF012
    include_in_schema = True

    @get(
        "/.well-known/oauth-authorization-server",
        operation_id="oauthMetadata",
        summary="The authorization server's metadata (RFC 8414)",
        description="Where the endpoints are, and what this server supports: the "
        "authorization code grant with PKCE S256, refresh tokens that rotate.",
        responses=problem_responses("validation"),
    )
    async def metadata(
        self, request: Request[Any, Any, Any], oauth: NamedDependency[OAuthServer]
    ) -> Metadata:
        base = issuer(request, oauth)
        methods = ["client_secret_basic", "client_secret_post", "none"]
        return Metadata(
            issuer=base, authorization_endpoint=f"{base}/oauth/authorize",
            token_endpoint=f"{base}/oauth/token", revocation_endpoint=f"{base}/oauth/revoke",
            introspection_endpoint=f"{base}/oauth/introspect", scopes_supported=list(SCOPES),
            response_types_supported=["code"], response_modes_supported=["query"],
            grant_types_supported=["authorization_code", "refresh_token"],
            token_endpoint_auth_methods_supported=methods,
            revocation_endpoint_auth_methods_supported=methods,
            introspection_endpoint_auth_methods_supported=methods,
            code_challenge_methods_supported=["S256"],
            service_documentation=f"{base}/schema",
        )  # fmt: skip

    @get(
        "/oauth/authorize",
        operation_id="oauthAuthorize",
        summary="Start an authorization (RFC 6749 §4.1.1)",
        description="An app sends the player's browser here with `response_type=code`, its "
        "`client_id`, `redirect_uri`, `scope`, `state` and a PKCE `code_challenge` with "
        "`code_challenge_method=S256`. The browser goes on to the web client's consent page, "
        "which names the app and the scopes; the player approves or declines there and comes "
        "back to `redirect_uri` with `code` and `state` (or `error`).",
        status_code=303,
        responses={
            303: ResponseSpec(None, description="On to the consent page"),
            **problem_responses("validation"),
        },
    )
    async def authorize(
        self,
        request: Request[Any, Any, Any],
        response_type: Query = None,
        client_id: Query = None,
        redirect_uri: Query = None,
        scopes: Annotated[str | None, QueryParameter(query="scope", max_length=512)] = None,
        oauth_state: Annotated[str | None, QueryParameter(query="state", max_length=512)] = None,
        code_challenge: Query = None,
        code_challenge_method: Query = None,
    ) -> Redirect:
        query = request.scope["query_string"].decode("latin-1")
        return Redirect(f"/#/oauth/authorize?{query}", status_code=303, headers=NO_STORE)

    @post(
        "/oauth/token",
        operation_id="oauthToken",
        opt={"form": True},
        summary="Tokens for a code or a refresh token (RFC 6749 §4.1.3, §6)",
        description="`grant_type=authorization_code` with `code`, `redirect_uri` and "
        "`code_verifier`, or `grant_type=refresh_token` with `refresh_token`; a public client "
        "adds `client_id`. The access token lasts an hour "
        f"({int(ACCESS_TTL.total_seconds())} s); the refresh token works once and comes back "
        "new. A code or a refresh token used a second time is refused and revokes every "
        "token it gave.",
        status_code=200,
        responses={**problem_responses("unsupported-media-type"), **_OAUTH_ERRORS},
    )
    async def token(
        self,
        request: Request[Any, Any, Any],
        oauth: NamedDependency[OAuthServer],
    ) -> Response[TokenAnswer]:
        uri = issuer(request, oauth) + "/oauth/token"
        return _answer(await oauth.token(uri, _headers(request), await _form(request)))

    @post(
        "/oauth/revoke",
        operation_id="oauthRevoke",
        opt={"form": True},
        summary="Revoke a token (RFC 7009)",
        description="The app's own access or refresh token; a refresh token takes every "
        "token of its authorization with it. 200 whether or not the token was known.",
        status_code=200,
        responses={**problem_responses("unsupported-media-type"), **_OAUTH_ERRORS},
    )
    async def revoke(
        self,
        request: Request[Any, Any, Any],
        oauth: NamedDependency[OAuthServer],
    ) -> Response[dict[str, str]]:
        uri = issuer(request, oauth) + "/oauth/revoke"
        return _answer(await oauth.revoke(uri, _headers(request), await _form(request)))

    @post(
        "/oauth/introspect",
        operation_id="oauthIntrospect",
        opt={"form": True},
        summary="What a token is (RFC 7662)",
        description="For the app's own tokens only: another app's is `active: false`.",
        status_code=200,
        responses={**problem_responses("unsupported-media-type"), **_OAUTH_ERRORS},
    )
    async def introspect(
        self,
        request: Request[Any, Any, Any],
        oauth: NamedDependency[OAuthServer],
    ) -> Response[Introspection]:
        uri = issuer(request, oauth) + "/oauth/introspect"
        return _answer(await oauth.introspect(uri, _headers(request), await _form(request)))


# --- apps, consent, authorised apps (under /v1) --------------------------------------------------


class AppsController(Controller):
    path = "/apps"
    tags = ["oauth"]  # noqa: RUF012
    opt = FIRST_PARTY

    @post(
        "/",
        status_code=201,
        operation_id="registerApp",
        summary="Register an app",
        description="An app that will ask players to let it act for them (OAuth 2.1, "
        "authorization code with PKCE). A confidential app's `client_secret` is shown this "
        "once. Needs your own `play` token.",
        security=SECURITY,
        responses=problem_responses("unauthenticated", "forbidden", "validation"),
    )
    async def register(
        self, data: JSONBody[AppRegistration], caller: NamedDependency[Caller],
        oauth: NamedDependency[OAuthServer],
    ) -> Response[NewApp]:  # fmt: skip
        made = await oauth.register(
            caller, data.name, data.redirect_uris, data.scope, data.confidential
        )
        return Response(made, status_code=201, headers=NO_STORE)

    @get(
        "/",
        operation_id="listApps",
        summary="Your apps",
        security=SECURITY,
        responses=problem_responses("unauthenticated", "forbidden"),
    )
    async def list(
        self, caller: NamedDependency[Caller], oauth: NamedDependency[OAuthServer]
    ) -> Response[AppList]:
        return Response(AppList(items=await oauth.apps_of(caller)), headers=PRIVATE)

    @delete(
        "/{client_id:str}",
        status_code=204,
        operation_id="removeApp",
        summary="Remove an app",
        description="Every token it holds, for every player, is revoked at once.",
        security=SECURITY,
        responses=problem_responses("unauthenticated", "forbidden", "not-found", "validation"),
    )
    async def remove(
        self, client_id: FromPath[str], caller: NamedDependency[Caller],
        oauth: NamedDependency[OAuthServer],
    ) -> None:  # fmt: skip
        await oauth.remove(caller, client_id)


class ConsentController(Controller):
    path = "/oauth/consent"
    tags = ["oauth"]  # noqa: RUF012
    opt = FIRST_PARTY

    @get(
        "/",
        operation_id="readConsent",
        summary="What an authorization request asks",
        description="The consent page's question: the app's name and the scopes it asks, "
        "once the request is found good. A request refused is 400 `authorization-refused` "
        "with RFC 6749's `code`, and `redirect_to` when the browser should go back to the app "
        "with the error.",
        security=SECURITY,
        responses=problem_responses("unauthenticated", "forbidden", "authorization-refused"),
    )
    async def read(
        self,
        request: Request[Any, Any, Any],
        caller: NamedDependency[Caller],
        oauth: NamedDependency[OAuthServer],
        response_type: Query = None,
        client_id: Query = None,
        redirect_uri: Query = None,
        scopes: Annotated[str | None, QueryParameter(query="scope", max_length=512)] = None,
        oauth_state: Annotated[str | None, QueryParameter(query="state", max_length=512)] = None,
        code_challenge: Query = None,
        code_challenge_method: Query = None,
    ) -> Response[Consent]:
        query = parse_qsl(request.scope["query_string"].decode("latin-1"), keep_blank_values=True)
        uri = issuer(request, oauth) + "/oauth/authorize"
        return Response(await oauth.consent(caller, uri, query), headers=NO_STORE)

    @post(
        "/",
        status_code=200,
        operation_id="answerConsent",
        summary="Approve or decline an authorization request",
        description="Approved, the app gets a code (five minutes, once) at its redirect URI; "
        "declined, `error=access_denied`. Send the browser to `redirect_to`.",
        security=SECURITY,
        responses=problem_responses(
            "unauthenticated", "forbidden", "validation", "authorization-refused"
        ),
    )
    async def answer(
        self,
        request: Request[Any, Any, Any],
        data: JSONBody[ConsentAnswer],
        caller: NamedDependency[Caller],
        oauth: NamedDependency[OAuthServer],
    ) -> Response[ConsentDone]:
        query = parse_qsl(data.request.removeprefix("?"), keep_blank_values=True)
        uri = issuer(request, oauth) + "/oauth/authorize?" + urlencode(query)
        to = await oauth.decide(caller, uri, query, data.approve)
        return Response(ConsentDone(redirect_to=to), headers=NO_STORE)


class AuthorisedAppsController(Controller):
    path = "/players/me/apps"
    tags = ["oauth"]  # noqa: RUF012
    opt = FIRST_PARTY

    @get(
        "/",
        operation_id="listAuthorisedApps",
        summary="The apps you let act for you",
        security=SECURITY,
        responses=problem_responses("unauthenticated", "forbidden"),
    )
    async def list(
        self, caller: NamedDependency[Caller], oauth: NamedDependency[OAuthServer]
    ) -> Response[AuthorisedAppList]:
        return Response(AuthorisedAppList(items=await oauth.authorised(caller)), headers=PRIVATE)

    @delete(
        "/{client_id:str}",
        status_code=204,
        operation_id="revokeAuthorisedApp",
        summary="Revoke an app you authorised",
        description="Its tokens for you stop working at once, everywhere.",
        security=SECURITY,
        responses=problem_responses("unauthenticated", "forbidden", "not-found", "validation"),
    )
    async def revoke(
        self, client_id: FromPath[str], caller: NamedDependency[Caller],
        oauth: NamedDependency[OAuthServer],
    ) -> None:  # fmt: skip
        await oauth.forget(caller, client_id)


V1_ROUTES = [AppsController, ConsentController, AuthorisedAppsController]
ROOT_ROUTES = [ProtocolController]
