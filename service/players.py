"""Players: a name, a kind, and the sha256 of a random bearer token.

A ``human`` player registers with ``POST /v1/players`` and gets his token once; the service keeps
only its hash, and a lookup hashes the presented token. A ``guest`` is a player of an imported
game who is not registered here: named, listed, without a token, so nobody can log in as him.
Names are personal data and stay out of the event log, which only ever holds player ids.

The SQL of ``api.players`` lives here.
"""

from __future__ import annotations

import hashlib
import secrets
import unicodedata
import uuid
from collections.abc import Sequence
from typing import Literal

import asyncpg
import msgspec

from service.event_store import uuid7
from service.exceptions import BadRequest, PlayerNotFound
from service.lru import Lru

PlayerKind = Literal["human", "guest"]


class Player(msgspec.Struct, frozen=True, kw_only=True):
    id: str
    name: str
    kind: PlayerKind = "human"


NAME_LENGTH = 64

_REFUSED_CATEGORIES = frozenset({"Cc", "Cf", "Co", "Cs", "Cn", "Zl", "Zp"})
"""Control, format (bidi overrides, zero-width joiners and spaces), private-use, surrogate and
unassigned code points, and line and paragraph separators: nothing a name shows or needs."""


def clean_name(text: str) -> str:
    """A player's name as stored: NFC, trimmed, 1 to 64 printable characters. `BadRequest`
    naming the fault otherwise (a name that reverses text, hides characters or is blank)."""
    name = unicodedata.normalize("NFC", text).strip()
    if not name:
        raise BadRequest("a name needs at least one visible character", where="body.name")
    if len(name) > NAME_LENGTH:
        raise BadRequest(f"a name has at most {NAME_LENGTH} characters", where="body.name")
    for char in name:
        if unicodedata.category(char) in _REFUSED_CATEGORIES:
            raise BadRequest(
                f"a name may not hold U+{ord(char):04X} ({unicodedata.name(char, 'unnamed')})",
                where="body.name",
            )
    return name


def new_token() -> str:
    """A fresh bearer token: 32 random bytes, URL-safe."""
    return secrets.token_urlsafe(32)


def token_hash(token: str) -> bytes:
    """What is stored for a token (its sha256); the token itself is never stored."""
    return hashlib.sha256(token.encode()).digest()


_INSERT = "INSERT INTO api.players (player_id, name, token_hash, kind) VALUES ($1, $2, $3, $4)"
_BY_TOKEN = "SELECT player_id::text, name, kind FROM api.players WHERE token_hash = $1"
_BY_ID = "SELECT player_id::text, name, kind FROM api.players WHERE player_id = $1"
_KNOWN = "SELECT player_id::text FROM api.players WHERE player_id = ANY($1::uuid[])"
_GUESTS = """
INSERT INTO api.players (player_id, name, kind)
SELECT id, name, 'guest' FROM unnest($1::uuid[], $2::text[]) AS g(id, name)
ON CONFLICT (player_id) DO NOTHING"""


class Players:
    """Registers players and finds them by token or id, over a pool."""

    def __init__(self, pool: asyncpg.Pool, *, token_cache: int = 16_384) -> None:
        self.pool = pool
        self._tokens: Lru[bytes, Player] = Lru(token_cache)

    async def register(self, name: str) -> tuple[Player, str]:
        """A new player and his bearer token (returned this once, stored only as a hash)."""
        name = clean_name(name)
        player_id, token = uuid7(), new_token()
        digest = token_hash(token)
        await self.pool.execute(_INSERT, player_id, name, digest, "human")
        player = Player(id=str(player_id), name=name)
        self._tokens.put(digest, player)
        return player, token

    async def authenticate(self, token: str) -> Player | None:
        """The player holding ``token``, or None."""
        digest = token_hash(token)
        player = self._tokens.get(digest)
        if player is None:
            row = await self.pool.fetchrow(_BY_TOKEN, digest)
            if row is None:
                return None
            player = Player(id=row[0], name=row[1], kind=row[2])
            self._tokens.put(digest, player)
        return player

    async def get(self, player_id: uuid.UUID) -> Player:
        """The player with this id; `PlayerNotFound` if there is none."""
        row = await self.pool.fetchrow(_BY_ID, player_id)
        if row is None:
            raise PlayerNotFound("no player has this id")
        return Player(id=row[0], name=row[1], kind=row[2])

    async def name_of(self, player_id: str | None) -> str | None:
        """The player's name, or None for a free seat or an id unknown here."""
        if player_id is None:
            return None
        try:
            return (await self.get(uuid.UUID(player_id))).name
        except (ValueError, PlayerNotFound):
            return None


async def add_guests(
    conn: asyncpg.Connection, guests: Sequence[tuple[uuid.UUID, str]]
) -> list[str]:
    """Add the players among ``guests`` (id, name) who are not known here, as guests, in the
    caller's transaction; returns the ids added."""
    ids = [g for g, _ in guests]
    known = {r[0] for r in await conn.fetch(_KNOWN, ids)}
    new = [(g, n) for g, n in guests if str(g) not in known]
    if new:
        await conn.execute(_GUESTS, [g for g, _ in new], [n for _, n in new])
    return [str(g) for g, _ in new]
