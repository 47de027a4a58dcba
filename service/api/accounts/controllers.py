"""Accounts: a login and a password on the caller's player, and signing in with them.

    GET  /v1/players/me/account     the caller's account (404 before he sets one up)
    PUT  /v1/players/me/account     set up or change the login, the password, recovery codes
    POST /v1/sessions               sign in: a new token for this device
    POST /v1/sessions/recovery      a recovery code, once: a new password and a new token
    POST /v1/players/me/passkeys/options, POST/GET /v1/players/me/passkeys, DELETE …/{id}
                                    register, list and remove the caller's passkeys
    POST /v1/sessions/passkey/options, POST /v1/sessions/passkey
                                    sign in with a passkey

Devices are the player's tokens (``/v1/players/me/tokens`` lists and revokes them).
"""

from __future__ import annotations

from typing import Any

from litestar import Controller, Request, Response, delete, get, post, put
from litestar.di import NamedDependency
from litestar.params import FromPath, JSONBody

from service.api.accounts.schemas import (
    AccountSaved,
    AccountSetUp,
    NewPasskey,
    PasskeyList,
    PasskeySignIn,
    Recovery,
    SessionCreated,
    SignIn,
)
from service.api.auth import FIRST_PARTY, SECURITY
from service.api.common import NO_STORE, PRIVATE
from service.api.errors import problem_responses
from service.players.accounts import Caller
from service.players.passkeys import Ceremony, PasskeyInfo, Passkeys, RelyingParty
from service.players.signin import Account, Accounts, SignedIn


def _address(request: Request[Any, Any, Any]) -> str:
    client = request.client
    return client.host if client else "unknown"


def _relying_party(request: Request[Any, Any, Any], passkeys: Passkeys) -> RelyingParty:
    return passkeys.relying_party(request.url.scheme, request.headers.get("host", "localhost"))


def _created(signed: SignedIn) -> Response[SessionCreated]:
    body = SessionCreated(
        player=signed.player, token=signed.token, token_id=signed.info.id,
        recovery_codes_left=signed.recovery_codes_left,
    )  # fmt: skip
    return Response(body, status_code=201, headers=NO_STORE)  # a bearer token


class AccountController(Controller):
    path = "/players/me/account"
    tags = ["players"]  # noqa: RUF012
    opt = FIRST_PARTY

    @get(
        "/",
        operation_id="readAccount",
        summary="Your account",
        description="The caller's login, whether a password is set, and how many recovery "
        "codes are left; `login` null (and no password) while he has set up none.",
        security=SECURITY,
        responses=problem_responses("unauthenticated"),
    )
    async def read(
        self, caller: NamedDependency[Caller], accounts: NamedDependency[Accounts]
    ) -> Response[Account]:
        account = await accounts.account(caller)
        none_yet = Account(login=None, has_password=False, created_at=None)
        return Response(account or none_yet, headers=PRIVATE)

    @put(
        "/",
        operation_id="setUpAccount",
        summary="Set up or change your account",
        description=(
            "Sets the caller's login and/or password: a guest or a name-only player keeps his "
            "id, games, statistics and rating. Once a password is set, every change needs "
            "`current_password` (403 `forbidden`, code `wrong_password`). The first password "
            "comes with ten recovery codes, shown this once; `new_recovery_codes` replaces "
            "them. The password is stored only as a check the database compares (argon2id; "
            "never the password). Needs a `play` token."
        ),
        security=SECURITY,
        responses=problem_responses("unauthenticated", "forbidden", "validation", "login-taken"),
    )
    async def set_up(
        self,
        data: JSONBody[AccountSetUp],
        caller: NamedDependency[Caller],
        accounts: NamedDependency[Accounts],
    ) -> Response[AccountSaved]:
        account, codes = await accounts.set_up(
            caller, login=data.login, password=data.password, current=data.current_password,
            new_codes=data.new_recovery_codes,
        )  # fmt: skip
        return Response(AccountSaved(account=account, recovery_codes=codes), headers=NO_STORE)


class SessionsController(Controller):
    path = "/sessions"
    tags = ["players"]  # noqa: RUF012

    @post(
        "/",
        status_code=201,
        operation_id="signIn",
        summary="Sign in with a login and password",
        description=(
            "A new bearer token for this device (named `device`), shown this once. A wrong "
            "password and an unknown login get the same 401 `sign-in-failed`, in the same "
            "time. Failures are counted per login and per address: past the limit, 429 "
            "`sign-in-locked` with Retry-After."
        ),
        responses=problem_responses("validation", "sign-in-failed", "sign-in-locked"),
    )
    async def sign_in(
        self,
        request: Request[Any, Any, Any],
        data: JSONBody[SignIn],
        accounts: NamedDependency[Accounts],
    ) -> Response[SessionCreated]:
        signed = await accounts.sign_in(data.login, data.password, _address(request), data.device)
        return _created(signed)

    @post(
        "/recovery",
        status_code=201,
        operation_id="recoverAccount",
        summary="Sign in with a recovery code and set a new password",
        description=(
            "Each recovery code works once: it sets `new_password` and gives a new token. "
            "Failures count like sign-in failures (the same 401 and 429)."
        ),
        responses=problem_responses("validation", "sign-in-failed", "sign-in-locked"),
    )
    async def recover(
        self,
        request: Request[Any, Any, Any],
        data: JSONBody[Recovery],
        accounts: NamedDependency[Accounts],
    ) -> Response[SessionCreated]:
        signed = await accounts.recover(
            data.login, data.recovery_code, data.new_password, _address(request), data.device
        )
        return _created(signed)


class PasskeysController(Controller):
    path = "/players/me/passkeys"
    tags = ["players"]  # noqa: RUF012
    opt = FIRST_PARTY

    @post(
        "/options",
        status_code=200,
        operation_id="passkeyRegistrationOptions",
        summary="Options to register a passkey",
        description="Pass `options` to `navigator.credentials.create` (after decoding its "
        "base64url fields, or through `PublicKeyCredential.parseCreationOptionsFromJSON`), "
        "then POST the result with `challenge_id` within five minutes. Needs a `play` token.",
        security=SECURITY,
        responses=problem_responses("unauthenticated", "forbidden"),
    )
    async def options(
        self,
        request: Request[Any, Any, Any],
        caller: NamedDependency[Caller],
        passkeys: NamedDependency[Passkeys],
    ) -> Response[Ceremony]:
        ceremony = await passkeys.registration_options(caller, _relying_party(request, passkeys))
        return Response(ceremony, headers=NO_STORE)

    @post(
        "/",
        status_code=201,
        operation_id="addPasskey",
        summary="Register a passkey",
        description="Stores the passkey's public key once its attestation verifies (the "
        "challenge is used up). The passkey then signs in on `POST /v1/sessions/passkey`.",
        security=SECURITY,
        responses=problem_responses(
            "unauthenticated", "forbidden", "validation", "passkey-refused"
        ),
    )
    async def add(
        self,
        request: Request[Any, Any, Any],
        data: JSONBody[NewPasskey],
        caller: NamedDependency[Caller],
        passkeys: NamedDependency[Passkeys],
    ) -> Response[PasskeyInfo]:
        info = await passkeys.register(
            caller, data.challenge_id, data.credential, data.name,
            _relying_party(request, passkeys),
        )  # fmt: skip
        return Response(info, status_code=201, headers=PRIVATE)

    @get(
        "/",
        operation_id="listPasskeys",
        summary="Your passkeys",
        security=SECURITY,
        responses=problem_responses("unauthenticated"),
    )
    async def list(
        self, caller: NamedDependency[Caller], passkeys: NamedDependency[Passkeys]
    ) -> Response[PasskeyList]:
        return Response(PasskeyList(items=await passkeys.of(caller)), headers=PRIVATE)

    @delete(
        "/{passkey_id:str}",
        status_code=204,
        operation_id="removePasskey",
        summary="Remove a passkey",
        description="It signs in no more (the tokens it made stay until revoked).",
        security=SECURITY,
        responses=problem_responses("unauthenticated", "forbidden", "not-found", "validation"),
    )
    async def remove(
        self,
        passkey_id: FromPath[str],
        caller: NamedDependency[Caller],
        passkeys: NamedDependency[Passkeys],
    ) -> None:
        await passkeys.remove(caller, passkey_id)


class PasskeySessionsController(Controller):
    path = "/sessions/passkey"
    tags = ["players"]  # noqa: RUF012

    @post(
        "/options",
        status_code=200,
        operation_id="passkeySignInOptions",
        summary="Options to sign in with a passkey",
        description="Pass `options` to `navigator.credentials.get`; the device offers the "
        "passkeys it keeps for this site. POST the result with `challenge_id` within five "
        "minutes.",
        responses=problem_responses("validation"),
    )
    async def options(
        self, request: Request[Any, Any, Any], passkeys: NamedDependency[Passkeys]
    ) -> Response[Ceremony]:
        ceremony = await passkeys.sign_in_options(_relying_party(request, passkeys))
        return Response(ceremony, headers=NO_STORE)

    @post(
        "/",
        status_code=201,
        operation_id="signInWithPasskey",
        summary="Sign in with a passkey",
        description="A new bearer token for this device, shown this once. An assertion that "
        "does not verify, a used or expired challenge, an unknown passkey or a signature "
        "counter that went back (a cloned key) is 401 `sign-in-failed`.",
        responses=problem_responses("validation", "sign-in-failed"),
    )
    async def sign_in(
        self,
        request: Request[Any, Any, Any],
        data: JSONBody[PasskeySignIn],
        passkeys: NamedDependency[Passkeys],
    ) -> Response[SessionCreated]:
        signed = await passkeys.sign_in(
            data.challenge_id, data.credential, data.device, _relying_party(request, passkeys)
        )
        return _created(signed)


ROUTES = [AccountController, SessionsController, PasskeysController, PasskeySessionsController]
