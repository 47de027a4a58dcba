"""Accounts in the browser, through the page alone: a name-only player keeps his player with a
login and a password (his recovery codes shown once), signs in on a second device, sees both
devices and signs the other out; a passkey (Chromium's virtual authenticator) added on one
device signs in on another without a password."""

from __future__ import annotations

from typing import Any

import pytest
from axetools import assert_accessible
from webtools import sign_up

pytestmark = pytest.mark.integration

PASSWORD = "a long enough secret"


async def _account_screen(page: Any) -> None:
    await page.click("[data-nav=account], [data-nav=signin]")
    await page.wait_for_selector("[data-screen=account]")


async def test_a_player_sets_a_password_and_signs_in_on_a_second_device(web, open_page, shoot):
    first = await open_page()
    await first.goto(web)
    await sign_up(first, "Anna")
    await _account_screen(first)
    await first.wait_for_selector("form.setup")
    await first.fill("#acc-login", "anna.k")
    await first.fill("#acc-password", PASSWORD)
    await first.click("form.setup button[type=submit]")
    codes = first.locator(".codes-list code")
    await codes.first.wait_for()
    assert await codes.count() == 10
    assert await first.evaluate("document.activeElement.id") == "codes-title"
    await assert_accessible(first, "account codes")
    await shoot(first, "account-codes")

    # Its wrong password is a 401, and so is its token once the first device signs it out.
    phone = await open_page(viewport=(390, 844), mobile=True, lang="ru", expected=("401",))
    await phone.goto(web)
    await _account_screen(phone)
    await assert_accessible(phone, "sign-in ru 390")
    await phone.fill("#signin-login", "ANNA.K")
    await phone.fill("#signin-password", "not the password")
    await phone.click("form.signin button[type=submit]")
    await phone.wait_for_selector(".toast")
    assert (await phone.text_content(".toast .close >> xpath=..")).startswith(
        "Неверный логин или пароль."
    )  # in the page's language
    await phone.fill("#signin-password", PASSWORD)
    await phone.click("form.signin button[type=submit]")
    await phone.wait_for_selector("[data-screen=lobby]")
    assert (await phone.text_content(".topbar .me")) == "Anna"
    await shoot(phone, "account-signed-in-phone-ru")

    # The first device lists both and signs the phone out.
    await first.reload()
    await first.wait_for_selector("[data-screen=account] .devices li")
    devices = first.locator(".devices li")
    assert await devices.count() == 2
    await first.click(".devices li button")
    await first.wait_for_function("() => document.querySelectorAll('.devices li').length === 1")
    await phone.reload()
    await phone.wait_for_selector("[data-nav=signin]")  # the phone's token is refused now


async def _virtual_authenticator(page: Any) -> Any:
    session = await page.context.new_cdp_session(page)
    await session.send("WebAuthn.enable")
    added = await session.send("WebAuthn.addVirtualAuthenticator", {"options": {
        "protocol": "ctap2", "transport": "internal", "hasResidentKey": True,
        "hasUserVerification": True, "isUserVerified": True, "automaticPresenceSimulation": True,
    }})  # fmt: skip
    return session, added["authenticatorId"]


async def test_a_passkey_added_on_one_device_signs_in_on_another(web, open_page, shoot):
    site = web.replace("127.0.0.1", "localhost")  # a passkey's site is a host name, not an IP
    page = await open_page()
    session, authenticator = await _virtual_authenticator(page)
    await page.goto(site)
    await sign_up(page, "Vera")
    await _account_screen(page)
    await page.click("[data-key=passkey-add]")
    await page.wait_for_selector(".passkeys li")
    await assert_accessible(page, "account passkey")
    await shoot(page, "account-passkey")
    held = await session.send("WebAuthn.getCredentials", {"authenticatorId": authenticator})
    credentials = held["credentials"]
    assert len(credentials) == 1 and credentials[0]["isResidentCredential"]

    # Another browser profile holding the same passkey (a synced password manager).
    other = await open_page()
    other_session, other_authenticator = await _virtual_authenticator(other)
    await other_session.send("WebAuthn.addCredential", {
        "authenticatorId": other_authenticator, "credential": credentials[0],
    })  # fmt: skip
    await other.goto(site)
    await _account_screen(other)
    await other.click("[data-key=passkey-signin]")
    await other.wait_for_selector("[data-screen=lobby]")
    assert (await other.text_content(".topbar .me")) == "Vera"
