"""Accounts: a login and a password on a player, signing in from any device, recovery codes.

A player is a name and his tokens (`service.players.accounts`); an account adds a unique login
and a password, so that a new device signs in instead of copying a token. A guest or a
name-only player upgrades by setting one: his id, games, statistics and rating stay his. What
each step sends to the database, and what the database keeps, is in migration 0020 and
`service.players.passwords`: proofs, never passwords; the database compares them and makes the
token, so the request path cannot sign anyone in without his password.

Signing in fails the same way, in the same time, for a wrong password and for a login nobody
holds (the proof is derived either way, with a salt the database derives for unknown logins).
Failures are counted per login and per address; past `SignInPolicy`'s limits within its window
that login or address is locked out for a while (`SignInLocked`, with the seconds left).

The SQL of ``api.accounts`` and ``api.recovery_codes`` lives here.
"""

from __future__ import annotations

import hashlib
import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta

import asyncpg
import msgspec

from service.eventlog.store import uuid7
from service.exceptions import BadRequest, Forbidden, LoginTaken, SignInFailed, SignInLocked
from service.players.accounts import Caller, Player, Players, TokenInfo, new_token, token_hash
from service.players.names import clean_name
from service.players.passwords import (
    DEFAULT_COST,
    Cost,
    check_password,
    clean_login,
    code_bytes,
    new_salt,
    proof,
    recovery_codes,
    verifier,
)

_SALT = "SELECT salt, cost FROM api.password_salt($1)"
_SET = "SELECT api.set_account($1, $2, $3, $4, $5::jsonb, $6, $7)"
_SIGN_IN = "SELECT * FROM api.sign_in($1, $2, $3, $4, $5, $6, $7, $8, $9)"
_RECOVER = "SELECT * FROM api.recover($1, $2, $3, $4, $5, $6, $7, $8::jsonb, $9, $10, $11, $12)"
_ACCOUNT = """
SELECT a.login, a.created_at, a.password_set_at,
       (SELECT count(*) FROM api.recovery_codes r
         WHERE r.player_id = a.player_id AND r.used_at IS NULL)::int
  FROM api.accounts a WHERE a.player_id = $1"""
_LOGIN_TAKEN = "accounts_login_key"


@dataclass(frozen=True)
class SignInPolicy:
    """How many failed sign-ins a login and an address may have within ``window`` seconds
    before they are locked out for ``lockout`` seconds."""

    per_login: int = 5
    per_address: int = 20
    window: float = 900.0
    lockout: float = 900.0


class Account(msgspec.Struct, frozen=True, kw_only=True):
    """A player's account as he sees it (never a verifier nor a code)."""

    login: str | None
    """Null until he sets one up (a name-only player)."""
    has_password: bool
    created_at: datetime | None
    password_set_at: datetime | None = None
    recovery_codes_left: int = 0


class SignedIn(msgspec.Struct, frozen=True, kw_only=True):
    player: Player
    token: str
    info: TokenInfo
    recovery_codes_left: int | None = None


class Accounts:
    """Sets up accounts and signs players in (see the module docstring)."""

    def __init__(self, pool: asyncpg.Pool, players: Players, policy: SignInPolicy) -> None:
        self.pool = pool
        self.players = players
        self.policy = policy

    async def account(self, player: Player) -> Account | None:
        """The player's account; None before he set one up."""
        row = await self.pool.fetchrow(_ACCOUNT, uuid.UUID(player.id))
        if row is None:
            return None
        return Account(
            login=row[0], has_password=row[2] is not None, created_at=row[1],
            password_set_at=row[2], recovery_codes_left=row[3],
        )  # fmt: skip

    async def set_up(
        self,
        caller: Caller,
        *,
        login: str | None,
        password: str | None,
        current: str | None,
        new_codes: bool = False,
    ) -> tuple[Account, list[str] | None]:
        """Set or change the caller's login and/or password (his current password is needed
        once he has one). New recovery codes come with the first password, or when asked
        for; they are returned this once."""
        caller.may_play()
        had = await self.account(caller)
        login = clean_login(login) if login is not None else None
        effective = login or (had.login if had else None)
        secret = check_password(password, effective) if password is not None else None
        if had is None and login is None:
            raise BadRequest("a login is needed to set up an account", where="body.login")
        salt = cost = check = None
        if secret is not None:
            salt, cost = new_salt(), DEFAULT_COST
            check = verifier(await proof(secret, salt, cost))
        current_proof = None
        if had is not None and had.login and had.has_password and current is not None:
            current_proof = await self._proof_of(had.login, current.encode())
        codes = None
        if new_codes or (secret is not None and not (had and had.has_password)):
            codes = recovery_codes()
        try:
            outcome = await self.pool.fetchval(
                _SET, caller.token_hash, login, current_proof, salt,
                msgspec.to_builtins(cost) if cost else None, check,
                [hashlib.sha256(code_bytes(c)).digest() for c in codes] if codes else None,
            )  # fmt: skip
        except asyncpg.UniqueViolationError as exc:
            if exc.constraint_name == _LOGIN_TAKEN:
                raise LoginTaken("another player holds this login") from None
            raise
        except asyncpg.PostgresError as exc:
            if exc.sqlstate in ("P0401", "P0403"):
                raise Forbidden(f"this token may not set up an account: {exc}",
                                code="token_refused") from None  # fmt: skip
            raise
        if outcome == "wrong_password":
            raise Forbidden(
                "the current password is needed, and it does not match",
                code="wrong_password",
            )
        account = await self.account(caller)
        assert account is not None
        return account, codes

    async def sign_in(self, login: str, password: str, address: str, device: str) -> SignedIn:
        """A new token for the player whose login and password these are."""
        login, device = self._login_of(login), clean_name(device, "body.device")
        check = await self._proof_of(login, password.encode())
        token, token_id = new_token(), uuid7()
        row = await self.pool.fetchrow(
            _SIGN_IN, login, check, address, self._limits, self._window, self._lockout,
            token_id, token_hash(token), device,
        )  # fmt: skip
        return await self._signed_in(row, token, token_id, device)

    async def recover(
        self, login: str, code: str, password: str, address: str, device: str
    ) -> SignedIn:
        """A recovery code, once: a new password and a new token."""
        login, device = self._login_of(login), clean_name(device, "body.device")
        secret = check_password(password, login, "body.new_password")
        salt = new_salt()
        check = verifier(await proof(secret, salt, DEFAULT_COST))
        token, token_id = new_token(), uuid7()
        row = await self.pool.fetchrow(
            _RECOVER, login, code_bytes(code), address, self._limits, self._window,
            self._lockout, salt, msgspec.to_builtins(DEFAULT_COST), check, token_id,
            token_hash(token), device,
        )  # fmt: skip
        return await self._signed_in(row, token, token_id, device, codes_left=row["codes_left"])

    # --- the parts ---------------------------------------------------------------------------

    @property
    def _limits(self) -> list[int]:
        return [self.policy.per_login, self.policy.per_address]

    @property
    def _window(self) -> timedelta:
        return timedelta(seconds=self.policy.window)

    @property
    def _lockout(self) -> timedelta:
        return timedelta(seconds=self.policy.lockout)

    @staticmethod
    def _login_of(login: str) -> str:
        """A login as typed at sign-in, normalised; one that cannot exist fails like any
        other unknown login (not as a malformed request: it would tell the two apart)."""
        try:
            return clean_login(login)
        except BadRequest:
            return "~" + hashlib.sha256(login.encode()).hexdigest()[:31]

    async def _proof_of(self, login: str, password: bytes) -> bytes:
        row = await self.pool.fetchrow(_SALT, login)
        assert row is not None
        return await proof(password, bytes(row[0]), msgspec.convert(_json(row[1]), Cost))

    async def _signed_in(
        self,
        row: asyncpg.Record | None,
        token: str,
        token_id: uuid.UUID,
        device: str,
        codes_left: int | None = None,
    ) -> SignedIn:
        assert row is not None
        outcome = row["outcome"]
        if outcome == "locked":
            raise SignInLocked(
                "too many failed sign-ins for this login or from this address: wait",
                retry_after=int(row["retry_after"]),
            )
        if outcome == "failed":
            raise SignInFailed("the login or the password is wrong")
        if outcome == "too_many_tokens":
            raise Forbidden("a player holds at most 50 tokens: revoke one first",
                            code="too_many_tokens")  # fmt: skip
        player = await self.players.get(row["player_id"])
        info = TokenInfo(id=str(token_id), name=device, scope="play", created_at=row["created_at"])
        return SignedIn(player=player, token=token, info=info, recovery_codes_left=codes_left)


def _json(value: object) -> object:
    return msgspec.json.decode(value) if isinstance(value, (str, bytes)) else value
