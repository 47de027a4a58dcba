"""Passkeys (WebAuthn): a player signs in with a key his device keeps, no password typed.

A signed-in player registers a passkey in two steps: the options (a fresh challenge, kept in the
database five minutes, used once) and the browser's answer, whose attestation py_webauthn (Duo's
library, the one the WebAuthn guides point to) verifies before the credential's public key is
stored (`api.add_passkey`). Signing in is the same two steps without a token: options whose
challenge names no user (passkeys are discoverable: the device offers its own), then the
assertion, verified against the stored public key; `api.passkey_sign_in` uses the challenge up,
moves the signature counter forward (a counter that went back is a cloned key: refused) and
makes the device's token.

The relying party is the site: ``rp_id`` its host name and ``origins`` the page origins allowed
to ask (`Settings.webauthn_rp_id`, `Settings.webauthn_origins`; by default the host and origin
the request came to, which is right when the service serves its own web client).

The SQL of ``api.passkeys`` and ``api.webauthn_challenges`` lives here.
"""

from __future__ import annotations

import secrets
import uuid
from datetime import datetime
from typing import Any

import asyncpg
import msgspec
import webauthn
from webauthn.helpers import exceptions as webauthn_errors
from webauthn.helpers.structs import (
    AuthenticatorSelectionCriteria,
    PublicKeyCredentialDescriptor,
    ResidentKeyRequirement,
    UserVerificationRequirement,
)

from service.eventlog.store import uuid7
from service.exceptions import Forbidden, NotFound, PasskeyRefused, SignInFailed
from service.players.accounts import Caller, Players, TokenInfo, new_token, token_hash
from service.players.names import clean_name
from service.players.signin import SignedIn

RP_NAME = "Preferans"
_CHALLENGE = "SELECT api.webauthn_challenge($1, $2, $3, $4)"
_READ_CHALLENGE = """
SELECT challenge FROM api.webauthn_challenges
 WHERE challenge_id = $1 AND purpose = $2 AND used_at IS NULL AND expires_at > now()"""
_ADD = "SELECT api.add_passkey($1, $2, $3, $4, $5, $6)"
_REMOVE = "SELECT api.remove_passkey($1, $2)"
_KEY = "SELECT public_key, sign_count FROM api.passkeys WHERE credential_id = $1"
_MINE = """
SELECT credential_id, name, created_at, last_used_at FROM api.passkeys
 WHERE player_id = $1 ORDER BY created_at, credential_id"""
_SIGN_IN = "SELECT * FROM api.passkey_sign_in($1, $2, $3, $4, $5, $6)"


class RelyingParty(msgspec.Struct, frozen=True):
    """Who asks for the passkey: the site's host name and the page origins it serves."""

    rp_id: str
    origins: tuple[str, ...]


class PasskeyInfo(msgspec.Struct, frozen=True, kw_only=True):
    """A passkey as its player lists it."""

    id: str
    """The credential's id, base64url."""
    name: str
    created_at: datetime
    last_used_at: datetime | None = None


class Ceremony(msgspec.Struct, frozen=True, kw_only=True):
    """The options a browser passes to ``navigator.credentials.create`` or ``.get``, and the
    challenge's id to send back with its answer."""

    challenge_id: str
    options: dict[str, Any]


def _b64(data: bytes) -> str:
    return webauthn.helpers.bytes_to_base64url(data)


def _raw_id(credential: dict[str, Any]) -> bytes | None:
    try:
        return webauthn.base64url_to_bytes(str(credential["rawId"]))
    except (KeyError, ValueError, TypeError):
        return None


class Passkeys:
    """Registers, lists and removes passkeys, and signs in with them (the module docstring)."""

    def __init__(
        self,
        pool: asyncpg.Pool,
        players: Players,
        *,
        rp_id: str | None = None,
        origins: tuple[str, ...] = (),
    ) -> None:
        self.pool = pool
        self.players = players
        self.rp_id = rp_id
        self.origins = origins

    def relying_party(self, scheme: str, host: str) -> RelyingParty:
        """The relying party as configured, else the one the request came to (``host`` is
        its Host header, a port perhaps included)."""
        name = host.rsplit(":", 1)[0] if not host.endswith("]") else host
        return RelyingParty(
            rp_id=self.rp_id or name.strip("[]").lower(),
            origins=self.origins or (f"{scheme}://{host.lower()}",),
        )

    async def _challenge(self, caller: Caller | None, purpose: str) -> tuple[uuid.UUID, bytes]:
        challenge_id, challenge = uuid7(), secrets.token_bytes(32)
        try:
            await self.pool.execute(
                _CHALLENGE, caller.token_hash if caller else None, purpose, challenge_id, challenge
            )
        except asyncpg.PostgresError as exc:
            if exc.sqlstate == "P0401":
                raise Forbidden("this token may not add a passkey", code="token_refused") from None
            raise
        return challenge_id, challenge

    async def _stored_challenge(self, challenge_id: uuid.UUID, purpose: str) -> bytes | None:
        value = await self.pool.fetchval(_READ_CHALLENGE, challenge_id, purpose)
        return bytes(value) if value is not None else None

    async def registration_options(self, caller: Caller, rp: RelyingParty) -> Ceremony:
        caller.may_play()
        challenge_id, challenge = await self._challenge(caller, "register")
        known = await self.pool.fetch(_MINE, uuid.UUID(caller.id))
        options = webauthn.generate_registration_options(
            rp_id=rp.rp_id, rp_name=RP_NAME, user_name=caller.name,
            user_id=uuid.UUID(caller.id).bytes, user_display_name=caller.name,
            challenge=challenge,
            authenticator_selection=AuthenticatorSelectionCriteria(
                resident_key=ResidentKeyRequirement.REQUIRED,
                user_verification=UserVerificationRequirement.PREFERRED,
            ),
            exclude_credentials=[
                PublicKeyCredentialDescriptor(id=bytes(r["credential_id"])) for r in known
            ],
        )  # fmt: skip
        return Ceremony(
            challenge_id=str(challenge_id),
            options=msgspec.json.decode(webauthn.options_to_json(options)),
        )

    async def register(
        self,
        caller: Caller,
        challenge_id: uuid.UUID,
        credential: dict[str, Any],
        name: str,
        rp: RelyingParty,
    ) -> PasskeyInfo:
        caller.may_play()
        name = clean_name(name, "body.name")
        challenge = await self._stored_challenge(challenge_id, "register")
        if challenge is None:
            raise PasskeyRefused("no such challenge, or it expired: ask for options again")
        try:
            verified = webauthn.verify_registration_response(
                credential=credential, expected_challenge=challenge,
                expected_rp_id=rp.rp_id, expected_origin=list(rp.origins),
            )  # fmt: skip
        except (webauthn_errors.WebAuthnException, ValueError, KeyError, TypeError) as exc:
            raise PasskeyRefused(f"the passkey does not verify: {exc}") from None
        outcome = await self.pool.fetchval(
            _ADD, caller.token_hash, challenge_id, verified.credential_id,
            verified.credential_public_key, verified.sign_count, name,
        )  # fmt: skip
        if outcome == "challenge_refused":
            raise PasskeyRefused("the challenge was used or expired: ask for options again")
        if outcome == "too_many_passkeys":
            raise Forbidden("a player keeps at most 20 passkeys: remove one first",
                            code="too_many_passkeys")  # fmt: skip
        if outcome == "credential_known":
            raise PasskeyRefused("this passkey is registered already")
        for info in await self.of(caller):
            if info.id == _b64(verified.credential_id):
                return info
        raise AssertionError("a passkey just added is not listed")

    async def of(self, caller: Caller) -> list[PasskeyInfo]:
        rows = await self.pool.fetch(_MINE, uuid.UUID(caller.id))
        return [
            PasskeyInfo(id=_b64(bytes(r[0])), name=r[1], created_at=r[2], last_used_at=r[3])
            for r in rows
        ]

    async def remove(self, caller: Caller, passkey_id: str) -> None:
        caller.may_play()
        try:
            credential = webauthn.base64url_to_bytes(passkey_id)
        except ValueError:
            raise NotFound("none of your passkeys has this id") from None
        if not await self.pool.fetchval(_REMOVE, caller.token_hash, credential):
            raise NotFound("none of your passkeys has this id")

    async def sign_in_options(self, rp: RelyingParty) -> Ceremony:
        challenge_id, challenge = await self._challenge(None, "sign_in")
        options = webauthn.generate_authentication_options(
            rp_id=rp.rp_id, challenge=challenge,
            user_verification=UserVerificationRequirement.PREFERRED,
        )  # fmt: skip
        return Ceremony(
            challenge_id=str(challenge_id),
            options=msgspec.json.decode(webauthn.options_to_json(options)),
        )

    async def sign_in(
        self,
        challenge_id: uuid.UUID,
        credential: dict[str, Any],
        device: str,
        rp: RelyingParty,
    ) -> SignedIn:
        device = clean_name(device, "body.device")
        credential_id = _raw_id(credential)
        challenge = await self._stored_challenge(challenge_id, "sign_in")
        key = await self.pool.fetchrow(_KEY, credential_id) if credential_id else None
        if credential_id is None or challenge is None or key is None:
            raise SignInFailed("this passkey does not sign in here")
        try:
            verified = webauthn.verify_authentication_response(
                credential=credential, expected_challenge=challenge, expected_rp_id=rp.rp_id,
                expected_origin=list(rp.origins), credential_public_key=bytes(key[0]),
                credential_current_sign_count=key[1],
            )  # fmt: skip
        except (webauthn_errors.WebAuthnException, ValueError, KeyError, TypeError):
            raise SignInFailed("this passkey does not sign in here") from None
        token, token_id = new_token(), uuid7()
        row = await self.pool.fetchrow(
            _SIGN_IN, challenge_id, credential_id, verified.new_sign_count, token_id,
            token_hash(token), device,
        )  # fmt: skip
        assert row is not None
        if row["outcome"] == "too_many_tokens":
            raise Forbidden("a player holds at most 50 tokens: revoke one first",
                            code="too_many_tokens")  # fmt: skip
        if row["outcome"] != "ok":
            raise SignInFailed("this passkey does not sign in here")
        player = await self.players.get(row["player_id"])
        info = TokenInfo(id=str(token_id), name=device, scope="play", created_at=row["created_at"])
        return SignedIn(player=player, token=token, info=info)
