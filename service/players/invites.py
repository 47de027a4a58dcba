"""Invites to private tables: a code, shown once, that seats its holder (or the one player it
names) until it expires.

A private table (``private: true`` at creation) is never listed in the public lobby, and its
seats are taken only with an invite code (``POST /v1/invites/{code}/seats``), which a seated
player or the creator makes (``POST /v1/games/{id}/invites``). The service keeps only the code's
sha256 (``api.invites``); an invite that names a player notifies him (``invited``).

The SQL of ``api.invites`` lives here.
"""

from __future__ import annotations

import hashlib
import secrets
import uuid
from datetime import datetime, timedelta

import asyncpg
import msgspec

from service.exceptions import InviteNotFound, PlayerNotFound

DEFAULT_TTL = timedelta(days=7)
MAX_TTL = timedelta(days=30)

_CREATE = "SELECT api.create_invite($1, $2, $3, $4, $5)"
_FIND = "SELECT game_id, expired, invitee::text FROM api.invite_game($1)"


class Invite(msgspec.Struct, frozen=True, kw_only=True):
    """A new invite: its code (shown this once) and until when it seats."""

    code: str
    game_id: uuid.UUID
    expires_at: datetime
    invitee: str | None = None


class Invited(msgspec.Struct, frozen=True, kw_only=True):
    """What a presented code opens."""

    game_id: uuid.UUID
    expired: bool
    invitee: str | None


def code_hash(code: str) -> bytes:
    return hashlib.sha256(code.encode()).digest()


class Invites:
    def __init__(self, pool: asyncpg.Pool) -> None:
        self.pool = pool

    async def create(
        self, game_id: uuid.UUID, by: str, invitee: str | None, ttl: timedelta = DEFAULT_TTL
    ) -> Invite:
        code = secrets.token_urlsafe(18)
        try:
            expires = await self.pool.fetchval(
                _CREATE,
                code_hash(code),
                game_id,
                uuid.UUID(by),
                uuid.UUID(invitee) if invitee else None,
                min(ttl, MAX_TTL),
            )
        except asyncpg.ForeignKeyViolationError:  # the invitee is nobody we know
            raise PlayerNotFound("no player has the id the invite names") from None
        return Invite(code=code, game_id=game_id, expires_at=expires, invitee=invitee)

    async def find(self, code: str) -> Invited:
        """The invite of ``code``; `InviteNotFound` if there is none."""
        if not 8 <= len(code) <= 64:
            raise InviteNotFound("no invite has this code")
        row = await self.pool.fetchrow(_FIND, code_hash(code))
        if row is None:
            raise InviteNotFound("no invite has this code")
        return Invited(game_id=row[0], expired=row[1], invitee=row[2])
