"""Accounts and signing in on the wire."""

from __future__ import annotations

import uuid
from typing import Annotated, Any

import msgspec

from service.api.text import Name
from service.players.accounts import Player
from service.players.passkeys import PasskeyInfo
from service.players.signin import Account

Login = Annotated[
    str,
    msgspec.Meta(
        min_length=3, max_length=32, pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]{2,31}$",
        examples=["anna.k"],
        description="3 to 32 letters a-z, digits, `_`, `.` or `-`, starting with a letter or a "
        "digit (case is ignored).",
    ),
]  # fmt: skip
Password = Annotated[
    str,
    msgspec.Meta(
        min_length=10, max_length=256, pattern=r"^[^\x00]+$",
        description="10 to 256 characters.",
    ),
]  # fmt: skip
Secret = Annotated[str, msgspec.Meta(min_length=1, max_length=256, pattern=r"^[^\x00]+$")]
"""A password or a code as sent to be checked: its length says nothing about it."""


class AccountSetUp(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """What to set on the caller's account; what is left out stays as it is."""

    login: Login | None = None
    """Needed to set up the account; changes it later."""
    password: Password | None = None
    """A new password."""
    current_password: Secret | None = None
    """Needed for any change once the account has a password."""
    new_recovery_codes: bool = False
    """Replace the recovery codes with new ones (the first password always makes them)."""


class AccountSaved(msgspec.Struct, frozen=True, kw_only=True):
    account: Account
    recovery_codes: list[str] | None
    """New recovery codes, shown this once (each signs in once without the password and sets
    a new one): with the first password, or when asked for. Null otherwise."""


class SignIn(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    login: Secret
    password: Secret
    device: Name = "signed-in device"
    """The new token's name (the device it is for)."""


class Recovery(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    login: Secret
    recovery_code: Secret
    new_password: Password
    device: Name = "recovered device"


class SessionCreated(msgspec.Struct, frozen=True, kw_only=True):
    player: Player
    token: str
    """A new bearer token for this device: shown this once."""
    token_id: str
    """To revoke it (``DELETE /v1/players/me/tokens/{id}``)."""
    recovery_codes_left: int | None = None
    """After a recovery: how many unused codes remain."""


class NewPasskey(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    challenge_id: uuid.UUID
    """From the options this answers."""
    credential: dict[str, Any]
    """What ``navigator.credentials.create`` returned, as JSON
    (``PublicKeyCredential.toJSON()``); like every text of a request, none of its strings may
    hold U+0000."""
    name: Name = "passkey"
    """What the player calls it (the device or the password manager that keeps it)."""


class PasskeyList(msgspec.Struct, frozen=True, kw_only=True):
    items: list[PasskeyInfo]


class PasskeySignIn(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    challenge_id: uuid.UUID
    credential: dict[str, Any]
    """What ``navigator.credentials.get`` returned, as JSON (no U+0000 in its strings)."""
    device: Name = "passkey device"
