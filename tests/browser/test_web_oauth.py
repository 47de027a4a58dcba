"""OAuth in the browser, as an app and a player meet it: a developer registers an app on his
account page; the app (this test, as a native app would) sends the player's browser to the
authorize URL with a PKCE challenge; the player, signed out, signs up and comes back to the
consent page, which names the app and its scopes; he approves; the browser lands at the app's
redirect URI with the code; the app exchanges it with its verifier, calls the API, refreshes,
finds a scope it was not given refused, and the player revokes it from his account page."""

from __future__ import annotations

import base64
import hashlib
import secrets
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

import pytest
from axetools import assert_accessible
from webtools import sign_up

pytestmark = pytest.mark.integration

REDIRECT = "https://pulka-app.example/callback"
FORM = {"Content-Type": "application/x-www-form-urlencoded"}


def _bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


async def _landed(page: Any) -> dict[str, list[str]]:
    """Where the browser came back to the app: its redirect URI's query."""
    await page.wait_for_url(f"{REDIRECT}?*")
    target = urlsplit(page.url)
    assert f"{target.scheme}://{target.netloc}{target.path}" == REDIRECT
    return parse_qs(target.query)


async def test_an_app_signs_a_player_in_through_the_consent_page(web, http, open_page, shoot):
    # The developer registers his app on the account page.
    dev = await open_page()
    await dev.goto(web)
    await sign_up(dev, "App Maker")
    await dev.click("[data-nav=account]")
    await dev.wait_for_selector("form.apps")
    await dev.fill("#app-name", "Pulka Mobile")
    await dev.fill("#app-redirect", REDIRECT)
    await dev.click("form.apps button[type=submit]")
    client_id = await dev.locator("form.apps code[data-client-id]").first.text_content()
    assert client_id

    # The app's side: a PKCE pair, the authorize URL from the server's metadata.
    metadata = (await http.get("/.well-known/oauth-authorization-server")).json()
    verifier = secrets.token_urlsafe(48)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest())
    query = urlencode({
        "response_type": "code", "client_id": client_id, "redirect_uri": REDIRECT,
        "scope": "read", "state": "xyz-42", "code_challenge": challenge.rstrip(b"=").decode(),
        "code_challenge_method": "S256",
    })  # fmt: skip

    # The player's browser: the app's redirect URI is the app (answered here, not fetched).
    player = await open_page()
    await player.route(f"{REDIRECT}*", lambda route: route.fulfill(
        status=200, content_type="text/html", body="<!doctype html><title>Pulka Mobile</title>"
    ))  # fmt: skip
    await player.goto(f"{metadata['authorization_endpoint']}?{query}")
    # Signed out: he signs up (in the lobby's form) and the page brings him back.
    await player.click("[data-screen=consent] [data-key=consent-signup]")
    await player.fill("#reg-name", "Anna")
    await player.click("form.register button[type=submit]")
    await player.wait_for_selector("[data-screen=consent] [data-key=consent-approve]")
    assert "Pulka Mobile" in await player.text_content(".consent-ask")
    assert "Anna" in await player.text_content(".consent-ask")
    scopes = await player.eval_on_selector_all(".scopes li", "ls => ls.map(l => l.dataset.scope)")
    assert scopes == ["read"]
    await assert_accessible(player, "consent")
    await shoot(player, "oauth-consent")
    await player.click("[data-key=consent-approve]")
    back = await _landed(player)
    assert back["state"] == ["xyz-42"]

    # The app exchanges the code with its verifier, and calls the API as Anna.
    exchanged = await http.post("/oauth/token", headers=FORM, content=urlencode({
        "grant_type": "authorization_code", "code": back["code"][0], "redirect_uri": REDIRECT,
        "code_verifier": verifier, "client_id": client_id,
    }))  # fmt: skip
    assert exchanged.status_code == 200, exchanged.text
    tokens = exchanged.json()
    me = await http.get("/v1/players/me", headers=_bearer(tokens["access_token"]))
    assert me.status_code == 200 and me.json()["name"] == "Anna"
    # A scope it was not given is refused: a read token opens no table, sees no account.
    opened = await http.post("/v1/games", headers=_bearer(tokens["access_token"]),
                             json={"seats": 3, "seat": 0})  # fmt: skip
    assert opened.status_code == 403 and opened.json()["code"] == "insufficient_scope"
    account = await http.get("/v1/players/me/account", headers=_bearer(tokens["access_token"]))
    assert account.status_code == 403

    refreshed = await http.post("/oauth/token", headers=FORM, content=urlencode({
        "grant_type": "refresh_token", "refresh_token": tokens["refresh_token"],
        "client_id": client_id,
    }))  # fmt: skip
    assert refreshed.status_code == 200, refreshed.text
    fresh = refreshed.json()
    assert (await http.get("/v1/players/me", headers=_bearer(fresh["access_token"]))).is_success
    stale = await http.get("/v1/players/me", headers=_bearer(tokens["access_token"]))
    assert stale.status_code == 401

    # Declining sends the browser back with access_denied.
    await player.goto(f"{metadata['authorization_endpoint']}?{query}")
    await player.wait_for_selector("[data-key=consent-deny]")
    await player.click("[data-key=consent-deny]")
    assert (await _landed(player))["error"] == ["access_denied"]

    # Anna sees the app on her account page and revokes it: its tokens stop at once.
    await player.goto(f"{web}/#/account")
    row = player.locator(f".authorised li[data-app='{client_id}']")
    await row.wait_for()
    assert "Pulka Mobile" in await row.text_content()
    await shoot(player, "oauth-account-apps")
    await row.locator("button").click()
    await player.wait_for_selector(".authorised li[data-app]", state="detached")
    gone = await http.get("/v1/players/me", headers=_bearer(fresh["access_token"]))
    assert gone.status_code == 401
    again = await http.post("/oauth/token", headers=FORM, content=urlencode({
        "grant_type": "refresh_token", "refresh_token": fresh["refresh_token"],
        "client_id": client_id,
    }))  # fmt: skip
    assert again.status_code == 400 and again.json()["error"] == "invalid_grant"


async def test_a_refused_request_says_so_and_goes_back_only_to_a_known_redirect(web, open_page):
    page = await open_page(expected=("400",))
    await page.goto(web)
    await sign_up(page, "Vera")
    bad = urlencode({"response_type": "code", "client_id": "no-such-app-000000",
                     "redirect_uri": "https://evil.example/cb", "code_challenge": "x" * 43,
                     "code_challenge_method": "S256"})  # fmt: skip
    await page.goto(f"{web}/oauth/authorize?{bad}")
    alert = page.locator("[data-screen=consent] [role=alert]")
    await alert.wait_for()
    assert await alert.get_attribute("data-error") == "invalid_client"
    assert await page.locator("[data-key=consent-back]").count() == 0
    assert await page.locator("[data-key=consent-approve]").count() == 0
    await assert_accessible(page, "consent refused")
