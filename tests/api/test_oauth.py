"""OAuth 2.1 for apps: a player registers an app, another consents, the app exchanges the code
with its PKCE verifier, calls the API, refreshes (the refresh token rotates), revokes; every
refusal is the RFC's error JSON; an app's token is refused outside its scopes on every route."""

from __future__ import annotations

import base64
import hashlib
import re
import secrets
from collections.abc import AsyncIterator
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

import httpx
import pytest
from apitools import PROBLEM, Player, make_app, register
from litestar import Litestar
from litestar.testing import AsyncTestClient

pytestmark = pytest.mark.integration

REDIRECT = "https://app.example/callback"
FORM = {"Content-Type": "application/x-www-form-urlencoded"}


@pytest.fixture
async def client(database_dsn: str) -> AsyncIterator[AsyncTestClient[Litestar]]:
    # The test client speaks plain http to "testserver.local": as behind a TLS proxy, the
    # issuer is configured.
    app = make_app(database_dsn, {"oauth_issuer": "https://testserver.local"})
    async with AsyncTestClient(app) as client:
        yield client


def pkce() -> tuple[str, str]:
    verifier = secrets.token_urlsafe(48)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest())
    return verifier, challenge.rstrip(b"=").decode()


async def new_app(client: httpx.AsyncClient, owner: Player, **body: Any) -> dict[str, Any]:
    body = {"name": "Pulka Mobile", "redirect_uris": [REDIRECT], **body}
    response = await client.post("/v1/apps", json=body, headers=owner.auth)
    assert response.status_code == 201, response.text
    return response.json()


def authorize_query(client_id: str, challenge: str, **more: str) -> str:
    params = {
        "response_type": "code", "client_id": client_id, "redirect_uri": REDIRECT,
        "scope": "read play", "state": "st4te", "code_challenge": challenge,
        "code_challenge_method": "S256", **more,
    }  # fmt: skip
    return urlencode({k: v for k, v in params.items() if v is not None})


async def consent(
    client: httpx.AsyncClient, player: Player, query: str, approve: bool = True
) -> dict[str, list[str]]:
    response = await client.post(
        "/v1/oauth/consent", json={"request": query, "approve": approve}, headers=player.auth
    )
    assert response.status_code == 200, response.text
    target = urlsplit(response.json()["redirect_to"])
    assert f"{target.scheme}://{target.netloc}{target.path}" == REDIRECT
    return parse_qs(target.query)


async def exchange(client: httpx.AsyncClient, **form: str) -> httpx.Response:
    return await client.post("/oauth/token", content=urlencode(form), headers=FORM)


async def tokens_for(
    client: httpx.AsyncClient, player: Player, app: dict[str, Any], scope: str = "read play"
) -> dict[str, Any]:
    verifier, challenge = pkce()
    query = authorize_query(app["app"]["client_id"], challenge, scope=scope)
    code = (await consent(client, player, query))["code"][0]
    response = await exchange(
        client, grant_type="authorization_code", code=code, redirect_uri=REDIRECT,
        code_verifier=verifier, client_id=app["app"]["client_id"],
    )  # fmt: skip
    assert response.status_code == 200, response.text
    return response.json()


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


async def test_the_whole_flow_code_pkce_token_call_refresh_revoke(client):
    owner, anna = await register(client, "App Maker"), await register(client, "Anna")
    app = await new_app(client, owner)
    assert app["app"]["public"] is True and app["client_secret"] is None
    client_id = app["app"]["client_id"]

    metadata = (await client.get("/.well-known/oauth-authorization-server")).json()
    assert metadata["issuer"] == "https://testserver.local"
    assert metadata["token_endpoint"] == "https://testserver.local/oauth/token"
    assert metadata["code_challenge_methods_supported"] == ["S256"]
    assert metadata["grant_types_supported"] == ["authorization_code", "refresh_token"]

    verifier, challenge = pkce()
    query = authorize_query(client_id, challenge)
    start = await client.get(f"/oauth/authorize?{query}", follow_redirects=False)
    assert start.status_code == 303
    assert start.headers["location"] == f"/#/oauth/authorize?{query}"

    asked = await client.get(f"/v1/oauth/consent?{query}", headers=anna.auth)
    assert asked.status_code == 200, asked.text
    assert asked.json() == {
        "client_id": client_id, "app_name": "Pulka Mobile", "scopes": ["read", "play"],
        "redirect_uri": REDIRECT, "state": "st4te",
    }  # fmt: skip
    back = await consent(client, anna, query)
    assert back["state"] == ["st4te"]

    response = await exchange(
        client, grant_type="authorization_code", code=back["code"][0], redirect_uri=REDIRECT,
        code_verifier=verifier, client_id=client_id,
    )  # fmt: skip
    assert response.status_code == 200, response.text
    assert response.headers["cache-control"] == "no-store"
    tokens = response.json()
    assert tokens["token_type"] == "Bearer" and tokens["expires_in"] == 3600
    assert tokens["scope"] == "read play"

    me = await client.get("/v1/players/me", headers=bearer(tokens["access_token"]))
    assert me.status_code == 200 and me.json()["id"] == anna.id
    assert me.json()["token"]["name"] == "Pulka Mobile"
    apps = (await client.get("/v1/players/me/apps", headers=anna.auth)).json()["items"]
    assert [(a["client_id"], a["name"], a["scope"]) for a in apps] == [
        (client_id, "Pulka Mobile", "play read")
    ]
    devices = (await client.get("/v1/players/me/tokens", headers=anna.auth)).json()["items"]
    assert all(d["name"] != "Pulka Mobile" for d in devices)  # an app is no device

    # The refresh token rotates; the old access token is done with.
    refreshed = await exchange(
        client, grant_type="refresh_token", refresh_token=tokens["refresh_token"],
        client_id=client_id,
    )  # fmt: skip
    assert refreshed.status_code == 200, refreshed.text
    fresh = refreshed.json()
    assert fresh["refresh_token"] != tokens["refresh_token"]
    assert (
        await client.get("/v1/players/me", headers=bearer(tokens["access_token"]))
    ).status_code == 401
    assert (
        await client.get("/v1/players/me", headers=bearer(fresh["access_token"]))
    ).status_code == 200

    # Introspection: the app's own token is active; revoked, it is not.
    looked = await client.post(
        "/oauth/introspect", headers=FORM,
        content=urlencode({"token": fresh["access_token"], "client_id": client_id}),
    )  # fmt: skip
    assert looked.status_code == 200, looked.text
    info = looked.json()
    assert info["active"] is True and info["sub"] == anna.id and info["client_id"] == client_id
    assert info["scope"] == "read play" and info["username"] == anna.name

    revoked = await client.post(
        "/oauth/revoke", headers=FORM,
        content=urlencode({"token": fresh["refresh_token"], "client_id": client_id,
                           "token_type_hint": "refresh_token"}),
    )  # fmt: skip
    assert revoked.status_code == 200, revoked.text
    # A refresh token revoked takes its access token with it.
    assert (
        await client.get("/v1/players/me", headers=bearer(fresh["access_token"]))
    ).status_code == 401
    looked = await client.post(
        "/oauth/introspect", headers=FORM,
        content=urlencode({"token": fresh["access_token"], "client_id": client_id}),
    )  # fmt: skip
    assert looked.json() == {"active": False}
    again = await exchange(
        client, grant_type="refresh_token", refresh_token=fresh["refresh_token"],
        client_id=client_id,
    )  # fmt: skip
    assert again.status_code == 400 and again.json()["error"] == "invalid_grant"


async def test_a_rotated_refresh_token_presented_again_revokes_the_family(client):
    owner, anna = await register(client, "App Maker"), await register(client, "Anna")
    app = await new_app(client, owner)
    client_id = app["app"]["client_id"]
    first = await tokens_for(client, anna, app)
    second = (
        await exchange(
            client,
            grant_type="refresh_token",
            refresh_token=first["refresh_token"],
            client_id=client_id,
        )
    ).json()
    stolen = await exchange(
        client, grant_type="refresh_token", refresh_token=first["refresh_token"],
        client_id=client_id,
    )  # fmt: skip
    assert stolen.status_code == 400 and stolen.json()["error"] == "invalid_grant"
    # The legitimate holder's newer tokens are gone too: the family is revoked.
    assert (
        await client.get("/v1/players/me", headers=bearer(second["access_token"]))
    ).status_code == 401
    later = await exchange(
        client, grant_type="refresh_token", refresh_token=second["refresh_token"],
        client_id=client_id,
    )  # fmt: skip
    assert later.status_code == 400 and later.json()["error"] == "invalid_grant"


async def test_the_token_endpoints_errors_are_the_rfcs(client):
    owner, anna = await register(client, "App Maker"), await register(client, "Anna")
    app = await new_app(client, owner)
    client_id = app["app"]["client_id"]

    verifier, challenge = pkce()
    code = (await consent(client, anna, authorize_query(client_id, challenge)))["code"][0]
    common = {"grant_type": "authorization_code", "code": code, "client_id": client_id}

    bad_verifier = await exchange(client, **common, redirect_uri=REDIRECT,
                                  code_verifier=pkce()[0])  # fmt: skip
    assert bad_verifier.status_code == 400
    assert bad_verifier.json()["error"] == "invalid_grant"
    assert bad_verifier.headers["content-type"].startswith("application/json")

    no_verifier = await exchange(client, **common, redirect_uri=REDIRECT)
    assert no_verifier.status_code == 400 and no_verifier.json()["error"] == "invalid_request"

    wrong_uri = await exchange(client, **common, redirect_uri="https://app.example/other",
                               code_verifier=verifier)  # fmt: skip
    assert wrong_uri.status_code == 400 and wrong_uri.json()["error"] == "invalid_grant"

    good = await exchange(client, **common, redirect_uri=REDIRECT, code_verifier=verifier)
    assert good.status_code == 200, good.text
    access = good.json()["access_token"]
    reused = await exchange(client, **common, redirect_uri=REDIRECT, code_verifier=verifier)
    assert reused.status_code == 400 and reused.json()["error"] == "invalid_grant"
    # A code used twice revokes what it gave (RFC 6749 §4.1.2).
    assert (await client.get("/v1/players/me", headers=bearer(access))).status_code == 401

    unknown = await exchange(
        client,
        grant_type="authorization_code",
        code="nope",
        client_id="x" * 24,
        redirect_uri=REDIRECT,
        code_verifier=verifier,
    )
    assert unknown.status_code in (400, 401) and unknown.json()["error"] == "invalid_client"

    password = await exchange(client, grant_type="password", username="anna", password="x",
                              client_id=client_id)  # fmt: skip
    assert password.status_code == 400
    assert password.json()["error"] == "unsupported_grant_type"

    # A confidential client must authenticate; with its secret (HTTP Basic) it may.
    private = await new_app(client, owner, name="Pulka Server", confidential=True)
    secret, private_id = private["client_secret"], private["app"]["client_id"]
    verifier, challenge = pkce()
    code = (await consent(client, anna, authorize_query(private_id, challenge)))["code"][0]
    form = {"grant_type": "authorization_code", "code": code, "redirect_uri": REDIRECT,
            "code_verifier": verifier}  # fmt: skip
    anonymous = await exchange(client, **form, client_id=private_id)
    assert anonymous.status_code in (400, 401) and anonymous.json()["error"] == "invalid_client"
    wrong = await client.post("/oauth/token", content=urlencode(form), headers=FORM,
                              auth=(private_id, "not the secret"))  # fmt: skip
    assert wrong.status_code == 401 and wrong.json()["error"] == "invalid_client"
    right = await client.post("/oauth/token", content=urlencode(form), headers=FORM,
                              auth=(private_id, secret))  # fmt: skip
    assert right.status_code == 200, right.text


async def test_the_authorization_request_is_checked_before_the_player_is_asked(client):
    owner, anna = await register(client, "App Maker"), await register(client, "Anna")
    app = await new_app(client, owner, scope="read")
    client_id = app["app"]["client_id"]
    _, challenge = pkce()

    async def asked(query: str) -> dict[str, Any]:
        response = await client.get(f"/v1/oauth/consent?{query}", headers=anna.auth)
        assert response.status_code == 400, response.text
        assert response.headers["content-type"] == PROBLEM
        body = response.json()
        assert body["type"] == "/problems/authorization-refused"
        return body

    # No redirect when the client or its redirect URI is not known good: the page says so.
    unknown = await asked(authorize_query("y" * 24, challenge))
    assert unknown["code"] == "invalid_client" and "redirect_to" not in unknown
    elsewhere = await asked(
        authorize_query(client_id, challenge, redirect_uri="https://evil.example/cb")
    )
    assert "redirect_to" not in elsewhere
    # Back to the app with the error once both are good.
    no_pkce = await asked(authorize_query(client_id, challenge, code_challenge=None, scope="read"))
    assert no_pkce["code"] == "invalid_request"
    assert no_pkce["redirect_to"].startswith(REDIRECT + "?error=invalid_request")
    plain = await asked(authorize_query(client_id, challenge, code_challenge_method="plain",
                                        scope="read"))  # fmt: skip
    assert plain["code"] == "invalid_request"
    too_much = await asked(authorize_query(client_id, challenge, scope="read play"))
    assert too_much["code"] == "invalid_scope" and "state=st4te" in too_much["redirect_to"]
    implicit = await asked(authorize_query(client_id, challenge, response_type="token",
                                           scope="read"))  # fmt: skip
    assert implicit["code"] == "unsupported_response_type"

    declined = await consent(client, anna, authorize_query(client_id, challenge, scope="read"),
                             approve=False)  # fmt: skip
    assert declined["error"] == ["access_denied"] and declined["state"] == ["st4te"]


async def test_a_player_lists_the_apps_he_authorised_and_revokes_one(client):
    owner, anna = await register(client, "App Maker"), await register(client, "Anna")
    app = await new_app(client, owner)
    client_id = app["app"]["client_id"]
    tokens = await tokens_for(client, anna, app)
    gone = await client.delete(f"/v1/players/me/apps/{client_id}", headers=anna.auth)
    assert gone.status_code == 204, gone.text
    assert (await client.get("/v1/players/me/apps", headers=anna.auth)).json()["items"] == []
    assert (
        await client.get("/v1/players/me", headers=bearer(tokens["access_token"]))
    ).status_code == 401
    refresh = await exchange(
        client,
        grant_type="refresh_token",
        refresh_token=tokens["refresh_token"],
        client_id=client_id,
    )
    assert refresh.json()["error"] == "invalid_grant"
    again = await client.delete(f"/v1/players/me/apps/{client_id}", headers=anna.auth)
    assert again.status_code == 404

    # The owner removes his app: every player's tokens for it go.
    vera = await register(client, "Vera")
    held = await tokens_for(client, vera, app)
    assert (await client.delete(f"/v1/apps/{client_id}", headers=anna.auth)).status_code == 404
    assert (await client.delete(f"/v1/apps/{client_id}", headers=owner.auth)).status_code == 204
    assert (
        await client.get("/v1/players/me", headers=bearer(held["access_token"]))
    ).status_code == 401


async def test_registering_an_app_checks_its_redirect_uris(client):
    owner = await register(client, "App Maker")
    for uri in ("http://app.example/cb", "https://app.example/cb#frag", "javascript:alert(1)",
                "relative/cb"):  # fmt: skip
        response = await client.post("/v1/apps", headers=owner.auth,
                                     json={"name": "X", "redirect_uris": [uri]})  # fmt: skip
        assert response.status_code == 400, (uri, response.text)
    native = await new_app(
        client, owner, redirect_uris=["com.example.pulka:/oauth", "http://127.0.0.1:7777/cb"]
    )
    assert native["app"]["redirect_uris"] == [
        "com.example.pulka:/oauth",
        "http://127.0.0.1:7777/cb",
    ]
    listed = (await client.get("/v1/apps", headers=owner.auth)).json()["items"]
    assert [a["client_id"] for a in listed] == [native["app"]["client_id"]]


# --- scopes, on every route ----------------------------------------------------------------------

PATH_PARAMETER = re.compile(r"\{[^}]+\}")
UUID = "00000000-0000-7000-8000-000000000000"
SAFE = {"get", "head"}


def operations(spec: dict[str, Any]) -> list[tuple[str, str, str]]:
    """Every operation of the spec: method, path (its parameters filled in), operation id."""
    found = []
    for path, item in spec["paths"].items():
        for method, op in item.items():
            if method not in {"get", "post", "put", "patch", "delete", "head"}:
                continue
            kinds = {p["name"]: p.get("schema", {}).get("type") for p in op.get("parameters", [])
                     if p["in"] == "path"}  # fmt: skip
            filled = PATH_PARAMETER.sub(
                lambda m, kinds=kinds: "1" if kinds.get(m.group(0)[1:-1]) == "integer" else UUID,
                path,
            )
            found.append((method, filled, op["operationId"]))
    return found


FIRST_PARTY = {
    "readAccount", "setUpAccount", "passkeyRegistrationOptions", "addPasskey", "listPasskeys",
    "removePasskey", "listTokens", "createToken", "revokeToken", "registerApp", "listApps",
    "removeApp", "readConsent", "answerConsent", "listAuthorisedApps", "revokeAuthorisedApp",
}  # fmt: skip
"""The routes no app's token reaches: the account, its passkeys, devices and apps."""


async def test_an_apps_token_is_refused_outside_its_scopes_on_every_route(client):
    owner, anna = await register(client, "App Maker"), await register(client, "Anna")
    app = await new_app(client, owner)
    read = (await tokens_for(client, anna, app, scope="read"))["access_token"]
    play = (await tokens_for(client, anna, app, scope="read play"))["access_token"]
    spec = (await client.get("/schema/openapi.json")).json()
    ops = operations(spec)
    assert {op for _, _, op in ops} >= FIRST_PARTY
    walked = 0
    for method, path, op in ops:
        if path.startswith("/oauth/") or path.startswith("/.well-known"):
            continue  # the protocol's own endpoints take no bearer token
        for token, refused in ((read, method not in SAFE or op in FIRST_PARTY),
                               (play, op in FIRST_PARTY)):  # fmt: skip
            if not refused:
                continue
            response = await client.request(method.upper(), path, headers=bearer(token),
                                             json={})  # fmt: skip
            assert response.status_code == 403, (method, path, response.text)
            body = response.json()
            assert body["type"] == "/problems/forbidden" and body["code"] == "insufficient_scope"
            walked += 1
    assert walked > 40
    # Within its scopes the token works: a read token reads, a play token creates a table.
    assert (await client.get("/v1/players/me/games", headers=bearer(read))).status_code == 200
    made = await client.post("/v1/games", headers=bearer(play), json={"seats": 3, "seat": 0})
    assert made.status_code == 201, made.text
    chat = await client.post(f"/v1/games/{made.json()['id']}/chat", headers=bearer(read),
                             json={"text": "hi"})  # fmt: skip
    assert chat.status_code == 403


async def test_the_purger_forgets_the_refresh_tokens_of_revoked_sign_ins(client, pool):
    from datetime import timedelta

    from service.players.oauth import purge

    owner, anna = await register(client, "App Maker"), await register(client, "Anna")
    app = await new_app(client, owner)
    client_id = app["app"]["client_id"]
    kept, gone = await tokens_for(client, anna, app), await tokens_for(client, anna, app)
    revoked = await client.post(
        "/oauth/revoke", headers=FORM,
        content=urlencode({"token": gone["refresh_token"], "client_id": client_id}),
    )  # fmt: skip
    assert revoked.status_code == 200
    count = "SELECT count(*) FROM api.oauth_refresh_tokens WHERE token_hash = sha256($1::bytea)"
    assert await pool.fetchval(count, gone["refresh_token"].encode()) == 1
    assert await purge(pool, older=timedelta(seconds=-60)) >= 1  # "a day ago", moved to now
    assert await pool.fetchval(count, gone["refresh_token"].encode()) == 0
    assert await pool.fetchval(count, kept["refresh_token"].encode()) == 1
    still = await exchange(
        client, grant_type="refresh_token", refresh_token=kept["refresh_token"], client_id=client_id
    )
    assert still.status_code == 200, still.text
