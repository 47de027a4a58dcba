"""Accounts: a login and a password on a player, signing in on a second device, recovery codes,
lockout, and a database that checks the password's proof itself.

A name-only player who sets up an account keeps his id and his games; a sign-in makes a new
token (a device the player lists and revokes); a wrong password and an unknown login fail alike
and in about the same time; failures lock a login out; a recovery code works once. The request
path's role cannot read a verifier, a code's hash or the database's secret, and cannot make a
token through ``api.sign_in`` without the password's proof.
"""

from __future__ import annotations

import statistics
import time
import uuid
from collections.abc import AsyncIterator

import asyncpg
import httpx
import pytest
from apitools import PROBLEM, make_app, register, seated_game
from litestar import Litestar
from litestar.testing import AsyncTestClient
from softkey import SoftKey

from migrations import APP_ROLE
from service.players import signin

pytestmark = pytest.mark.integration

PASSWORD = "correct horse battery"


def _problem(response: httpx.Response, status: int, slug: str) -> dict:
    assert response.status_code == status, response.text
    assert response.headers["content-type"] == PROBLEM
    body = response.json()
    assert body["type"] == f"/problems/{slug}"
    return body


async def _account(client: httpx.AsyncClient, auth: dict[str, str], **body: object) -> dict:
    response = await client.put("/v1/players/me/account", json=body, headers=auth)
    assert response.status_code == 200, response.text
    return response.json()


async def _sign_in(client: httpx.AsyncClient, login: str, password: str, **more: object):
    return await client.post("/v1/sessions", json={"login": login, "password": password, **more})


@pytest.fixture
async def lenient(database_dsn: str) -> AsyncIterator[AsyncTestClient[Litestar]]:
    """An app whose lockout is far away (for the cases that fail many times on purpose)."""
    app = make_app(database_dsn, {"sign_in_failures_per_login": 1000,
                                  "sign_in_failures_per_address": 1000})  # fmt: skip
    async with AsyncTestClient(app) as client:
        yield client


async def test_a_name_only_player_sets_up_an_account_and_signs_in_on_a_second_device(client):
    game_id, players = await seated_game(client)
    anna = players[0]
    before = (await client.get("/v1/players/me/account", headers=anna.auth)).json()
    assert before["login"] is None and not before["has_password"]
    saved = await _account(client, anna.auth, login="Anna.K", password=PASSWORD)
    assert saved["account"]["login"] == "anna.k" and saved["account"]["has_password"]
    codes = saved["recovery_codes"]
    assert len(codes) == 10 and len(set(codes)) == 10
    assert saved["account"]["recovery_codes_left"] == 10

    # A second device: no token, only the login (any case) and the password.
    signed = await _sign_in(client, "ANNA.K", PASSWORD, device="phone")
    assert signed.status_code == 201, signed.text
    assert signed.headers["cache-control"] == "no-store"
    body = signed.json()
    assert body["player"]["id"] == anna.id
    phone = {"Authorization": f"Bearer {body['token']}"}
    me = (await client.get("/v1/players/me", headers=phone)).json()
    assert me["id"] == anna.id and me["token"]["name"] == "phone"
    # His games came with him.
    mine = (await client.get("/v1/players/me/games", headers=phone)).json()
    assert [g["game"]["id"] for g in mine["active"]] == [game_id]
    # Both devices are listed; revoking the phone's token signs it out.
    tokens = (await client.get("/v1/players/me/tokens", headers=anna.auth)).json()["items"]
    assert [t["name"] for t in tokens] == ["first device", "phone"]
    revoked = await client.delete(f"/v1/players/me/tokens/{body['token_id']}", headers=anna.auth)
    assert revoked.status_code == 204
    _problem(await client.get("/v1/players/me", headers=phone), 401, "unauthenticated")
    # The account reads as it was set up, never with a verifier or a code.
    account = (await client.get("/v1/players/me/account", headers=anna.auth)).json()
    assert set(account) == {
        "login", "has_password", "created_at", "password_set_at", "recovery_codes_left"
    }  # fmt: skip


async def test_a_wrong_password_and_an_unknown_login_fail_alike(lenient, monkeypatch):
    anna = await register(lenient, "Anna")
    await _account(lenient, anna.auth, login="anna", password=PASSWORD)
    wrong = _problem(await _sign_in(lenient, "anna", "not the password"), 401, "sign-in-failed")
    nobody = _problem(await _sign_in(lenient, "nobody", "not the password"), 401, "sign-in-failed")
    malformed = _problem(await _sign_in(lenient, "no such login!", "x"), 401, "sign-in-failed")
    assert wrong == nobody == malformed
    # And in the same time: both derive the proof at the same cost, the cause, checked exactly;
    # the times themselves loosely (on a loaded machine a median moves by half, while a
    # skipped argon2id derivation would make one path several times faster).
    derived: dict[str, list[tuple[int, object]]] = {"wrong": [], "unknown": []}
    times: dict[str, list[float]] = {"wrong": [], "unknown": []}
    real_proof = signin.proof
    kind = "wrong"

    async def counted(password: bytes, salt: bytes, cost: object) -> bytes:
        derived[kind].append((len(salt), cost))
        return await real_proof(password, salt, cost)  # type: ignore[arg-type]

    monkeypatch.setattr(signin, "proof", counted)
    for n in range(12):
        for kind, login in (("wrong", "anna"), ("unknown", f"nobody{n}")):
            started = time.perf_counter()
            response = await _sign_in(lenient, login, "not the password")
            times[kind].append(time.perf_counter() - started)
            assert response.status_code == 401
    assert derived["wrong"] == derived["unknown"] and len(derived["wrong"]) == 12
    wrong_median, unknown_median = (statistics.median(t) for t in times.values())
    assert 0.5 < wrong_median / unknown_median < 2, (wrong_median, unknown_median)
    assert wrong_median > 0.01  # the proof is derived (argon2id) for an unknown login too


async def test_failed_sign_ins_lock_the_login_out_and_the_right_password_waits_too(client):
    anna = await register(client, "Anna")
    await _account(client, anna.auth, login="anna", password=PASSWORD)
    vera = await register(client, "Vera")
    await _account(client, vera.auth, login="vera", password=PASSWORD)
    for _ in range(5):
        _problem(await _sign_in(client, "anna", "guessing again"), 401, "sign-in-failed")
    locked = await _sign_in(client, "anna", PASSWORD)
    _problem(locked, 429, "sign-in-locked")
    assert 800 <= int(locked.headers["retry-after"]) <= 900
    # Another login from the same address is not locked (20 failures would lock the address).
    assert (await _sign_in(client, "vera", PASSWORD)).status_code == 201


async def test_the_address_is_locked_out_after_failures_on_many_logins(database_dsn):
    app = make_app(database_dsn, {"sign_in_failures_per_address": 3})
    async with AsyncTestClient(app) as client:
        anna = await register(client, "Anna")
        await _account(client, anna.auth, login="anna", password=PASSWORD)
        for n in range(3):
            _problem(await _sign_in(client, f"guess{n}", "wrong password"), 401, "sign-in-failed")
        _problem(await _sign_in(client, "anna", PASSWORD), 429, "sign-in-locked")


async def test_changing_the_password_needs_the_current_one(client):
    anna = await register(client, "Anna")
    await _account(client, anna.auth, login="anna", password=PASSWORD)
    refused = await client.put(
        "/v1/players/me/account", json={"password": "a new password"}, headers=anna.auth
    )
    assert _problem(refused, 403, "forbidden")["code"] == "wrong_password"
    refused = await client.put(
        "/v1/players/me/account",
        json={"password": "a new password", "current_password": "not it at all"},
        headers=anna.auth,
    )
    assert _problem(refused, 403, "forbidden")["code"] == "wrong_password"
    changed = await _account(
        client, anna.auth, password="a new password", current_password=PASSWORD
    )
    assert changed["recovery_codes"] is None  # kept: only the first password makes them
    _problem(await _sign_in(client, "anna", PASSWORD), 401, "sign-in-failed")
    assert (await _sign_in(client, "anna", "a new password")).status_code == 201
    renamed = await _account(client, anna.auth, login="anna-k", current_password="a new password")
    assert renamed["account"]["login"] == "anna-k"
    assert (await _sign_in(client, "anna-k", "a new password")).status_code == 201


async def test_a_recovery_code_signs_in_once_and_sets_a_new_password(client):
    anna = await register(client, "Anna")
    codes = (await _account(client, anna.auth, login="anna", password=PASSWORD))["recovery_codes"]
    recovered = await client.post(
        "/v1/sessions/recovery",
        json={"login": "anna", "recovery_code": codes[3].lower().replace("-", " "),
              "new_password": "remembered at last", "device": "new phone"},
    )  # fmt: skip
    assert recovered.status_code == 201, recovered.text
    assert recovered.json()["player"]["id"] == anna.id
    assert recovered.json()["recovery_codes_left"] == 9
    again = await client.post(
        "/v1/sessions/recovery",
        json={"login": "anna", "recovery_code": codes[3], "new_password": "and once more"},
    )
    _problem(again, 401, "sign-in-failed")
    _problem(await _sign_in(client, "anna", PASSWORD), 401, "sign-in-failed")
    assert (await _sign_in(client, "anna", "remembered at last")).status_code == 201
    new = await _account(
        client, anna.auth, new_recovery_codes=True, current_password="remembered at last"
    )
    assert len(new["recovery_codes"]) == 10 and not set(new["recovery_codes"]) & set(codes)


async def test_bad_account_input_is_refused_clearly(client):
    anna, vera = await register(client, "Anna"), await register(client, "Vera")
    await _account(client, anna.auth, login="anna", password=PASSWORD)
    taken = await client.put(
        "/v1/players/me/account", json={"login": "ANNA", "password": PASSWORD}, headers=vera.auth
    )
    _problem(taken, 409, "login-taken")
    for body, where in (
        ({"login": "a b", "password": PASSWORD}, "body.login"),
        ({"login": "vera", "password": "short"}, "body.password"),
        ({"login": "vera", "password": "VERA"}, "body.password"),
        ({"password": PASSWORD}, "body.login"),
    ):
        refused = await client.put("/v1/players/me/account", json=body, headers=vera.auth)
        errors = _problem(refused, 400, "validation")["errors"]
        field = where.removeprefix("body.")  # the schema's checks name it in the message
        assert errors[0]["path"] == where or f"$.{field}" in errors[0]["message"], refused.text
    read_only = (await client.post("/v1/players/me/tokens", json={"name": "tv", "scope": "read"},
                                   headers=vera.auth)).json()["token"]  # fmt: skip
    refused = await client.put(
        "/v1/players/me/account", json={"login": "vera", "password": PASSWORD},
        headers={"Authorization": f"Bearer {read_only}"},
    )  # fmt: skip
    assert _problem(refused, 403, "forbidden")["code"] == "insufficient_scope"
    _problem(await client.put("/v1/players/me/account", json={"login": "x1x"}), 401,
             "unauthenticated")  # fmt: skip


async def test_the_request_path_cannot_read_a_verifier_nor_sign_in_without_the_proof(
    client, database_dsn
):
    anna = await register(client, "Anna")
    await _account(client, anna.auth, login="anna", password=PASSWORD)
    conn = await asyncpg.connect(database_dsn, user=APP_ROLE)
    try:
        for forbidden in (
            "SELECT verifier FROM api.accounts",
            "SELECT salt FROM api.accounts",
            "SELECT code_hash FROM api.recovery_codes",
            "SELECT secret FROM api.account_secret",
            "SELECT * FROM api.sign_in_failures",
            "UPDATE api.accounts SET login = 'mine'",
            "DELETE FROM api.sign_in_failures",
        ):
            with pytest.raises(asyncpg.InsufficientPrivilegeError):
                await conn.execute(forbidden)
        # Without the password's proof, sign_in makes no token (whatever else it is told).
        row = await conn.fetchrow(
            "SELECT * FROM api.sign_in('anna', $1, 'x', ARRAY[5, 20], '15 min', '15 min',"
            " $2, $3, 'stolen')",
            b"\x00" * 32, uuid.uuid4(), b"\x01" * 32,
        )  # fmt: skip
        assert row["outcome"] == "failed"
        assert await conn.fetchval("SELECT count(*) FROM api.tokens WHERE name = 'stolen'") == 0
    finally:
        await conn.close()


# --- passkeys ------------------------------------------------------------------------------------

SITE = "http://testserver.local"  # what the in-process test client's requests come to


async def _add_passkey(client: httpx.AsyncClient, auth: dict[str, str], key: SoftKey) -> dict:
    ceremony = (await client.post("/v1/players/me/passkeys/options", headers=auth)).json()
    assert ceremony["options"]["rp"]["id"] == "testserver.local"
    credential = key.create(ceremony["options"])
    added = await client.post(
        "/v1/players/me/passkeys",
        json={"challenge_id": ceremony["challenge_id"], "credential": credential, "name": "phone"},
        headers=auth,
    )
    assert added.status_code == 201, added.text
    return added.json()


async def _passkey_sign_in(client: httpx.AsyncClient, key: SoftKey) -> httpx.Response:
    ceremony = (await client.post("/v1/sessions/passkey/options")).json()
    return await client.post(
        "/v1/sessions/passkey",
        json={"challenge_id": ceremony["challenge_id"], "credential": key.get(ceremony["options"]),
              "device": "laptop"},
    )  # fmt: skip


async def test_a_passkey_registered_on_one_device_signs_in_without_a_password(client):
    anna = await register(client, "Anna")
    key = SoftKey(SITE, "testserver.local")
    info = await _add_passkey(client, anna.auth, key)
    assert info["name"] == "phone"
    listed = (await client.get("/v1/players/me/passkeys", headers=anna.auth)).json()["items"]
    assert [k["id"] for k in listed] == [info["id"]]
    signed = await _passkey_sign_in(client, key)
    assert signed.status_code == 201, signed.text
    laptop = {"Authorization": f"Bearer {signed.json()['token']}"}
    me = (await client.get("/v1/players/me", headers=laptop)).json()
    assert me["id"] == anna.id and me["token"]["name"] == "laptop"
    # Removed, it signs in no more.
    assert (await client.delete(f"/v1/players/me/passkeys/{info['id']}",
                                headers=anna.auth)).status_code == 204  # fmt: skip
    _problem(await _passkey_sign_in(client, key), 401, "sign-in-failed")
    _problem(await client.delete(f"/v1/players/me/passkeys/{info['id']}", headers=anna.auth),
             404, "not-found")  # fmt: skip


async def test_a_replayed_cloned_or_phished_passkey_does_not_sign_in(client):
    anna = await register(client, "Anna")
    key = SoftKey(SITE, "testserver.local")
    await _add_passkey(client, anna.auth, key)
    # A replay: the same assertion, its challenge used up.
    ceremony = (await client.post("/v1/sessions/passkey/options")).json()
    answer = {"challenge_id": ceremony["challenge_id"], "credential": key.get(ceremony["options"])}
    assert (await client.post("/v1/sessions/passkey", json=answer)).status_code == 201
    _problem(await client.post("/v1/sessions/passkey", json=answer), 401, "sign-in-failed")
    # A clone whose counter stayed behind.
    twin = key.clone()
    twin.count = 0
    assert (await _passkey_sign_in(client, key)).status_code == 201
    _problem(await _passkey_sign_in(client, twin), 401, "sign-in-failed")
    # A look-alike site relaying the ceremony: its origin is not ours.
    phished = key.clone()
    phished.origin = "http://testserver.local.evil.example"
    _problem(await _passkey_sign_in(client, phished), 401, "sign-in-failed")
    elsewhere = SoftKey("http://evil.example", "evil.example")
    ceremony = (await client.post("/v1/players/me/passkeys/options", headers=anna.auth)).json()
    refused = await client.post(
        "/v1/players/me/passkeys",
        json={"challenge_id": ceremony["challenge_id"],
              "credential": elsewhere.create(ceremony["options"])},
        headers=anna.auth,
    )  # fmt: skip
    _problem(refused, 422, "passkey-refused")
    # Without a token nobody registers one, and a read token may not either.
    _problem(await client.post("/v1/players/me/passkeys/options"), 401, "unauthenticated")


async def test_the_purger_forgets_old_failures_and_challenges(client, purger_pool, pool):
    from service.players.accounts import Players

    await _sign_in(client, "nobody", "not the password")
    await client.post("/v1/sessions/passkey/options")
    await pool.execute("UPDATE api.webauthn_challenges SET expires_at = now() - interval '2 hours'")
    await pool.execute("UPDATE api.sign_in_failures SET since = now() - interval '2 days'")
    assert await Players(purger_pool).purge_sign_ins() == 3  # the login's, the address's, one
    assert await pool.fetchval("SELECT count(*) FROM api.sign_in_failures") == 0
