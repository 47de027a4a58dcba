"""Players and their tokens: a name, a kind, and any number of bearer tokens (one per device).

Kinds: a ``human`` registers with ``POST /v1/players`` and gets his first token; a ``program``
(a bot that plays through the API) registers the same way and is shown and rated as a bot; a
``bot`` is one of the service's own players (`service.players.bots`), with no token, so nobody
logs in as one; a ``guest`` is a player of an imported game who is not registered here.

A token is 32 random bytes shown once; the service keeps its sha256 with a name, a scope
(``play``: everything; ``read``: only reads), its creation, last use and revocation
(``api.tokens``). A lookup hashes the presented token. Tokens are cached per process (a minute
at most); a revocation is announced on the event store's hint channel and every process drops
the token the moment the news arrives (`Players.on_news`). The cache is trusted only while the
news is heard (``hearing``: the LISTEN connection is up), so a revocation another process made
while this one was deaf is refused here at once; a write by a revoked token is refused anyway
by the statement that would write it (``api.command_effects``). Names are personal data
and stay out of the event log, which only ever holds player ids.

The SQL of ``api.players`` and ``api.tokens`` lives here.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import secrets
import time
import uuid
from collections.abc import Callable, Iterable, Sequence
from datetime import UTC, datetime, timedelta
from typing import Literal

import asyncpg
import msgspec

from service.eventlog.store import NOTIFY_CHANNEL, IdempotencyKeyReused, uuid7
from service.exceptions import Forbidden, NameTaken, PlayerNotFound, TokenNotFound
from service.platform.lru import Lru
from service.players.names import clean_name, skeleton

__all__ = ["clean_name"]  # re-exported: where names were always checked

log = logging.getLogger(__name__)

PlayerKind = Literal["human", "guest", "bot", "program"]
Scope = Literal["play", "read"]
BOT_KINDS: frozenset[str] = frozenset({"bot", "program"})
"""Kinds shown and rated as bots."""


class Player(msgspec.Struct, frozen=True, kw_only=True):
    id: str
    name: str
    kind: PlayerKind = "human"

    @property
    def is_bot(self) -> bool:
        return self.kind in BOT_KINDS


class Caller(Player, frozen=True, kw_only=True):
    """A player as his bearer token presents him: which token, and what it may do."""

    token_id: str
    token_hash: bytes
    scope: Scope = "play"
    app: str | None = None
    """The client id of the app this token was issued to (OAuth, `service.players.oauth`);
    None for the player's own tokens."""
    expires_at: datetime | None = None
    """An app's access token lapses then; the player's own tokens last until revoked."""

    def may_play(self) -> None:
        """`Forbidden` unless the token may write."""
        if self.scope != "play":
            raise Forbidden(
                "this token has the 'read' scope: it reads, it may not act",
                code="insufficient_scope",
            )


class TokenInfo(msgspec.Struct, frozen=True, kw_only=True):
    """A token as its player lists it (never the token itself)."""

    id: str
    name: str
    scope: Scope
    created_at: datetime
    last_used_at: datetime | None = None
    revoked_at: datetime | None = None


TOKENS_PER_PLAYER = 50
REVOKED = "revoked-token:"
"""The prefix of a revoked token's hash (hex) announced on the event store's hint channel: every
process drops it from its cache (`Players.on_news`)."""
TOKEN_TTL = 60.0
"""Seconds a token stays cached before it is looked up again (should news be lost)."""


def new_token() -> str:
    """A fresh bearer token: 32 random bytes, URL-safe."""
    return secrets.token_urlsafe(32)


def token_hash(token: str) -> bytes:
    """What is stored for a token (its sha256); the token itself is never stored."""
    return hashlib.sha256(token.encode()).digest()


_REGISTER = "SELECT * FROM api.register_player($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)"
_PURGE_REGISTRATIONS = "SELECT api.purge_registrations($1)"
_PURGE_SIGN_INS = "SELECT api.purge_sign_in_failures($1) + api.purge_webauthn_challenges()"
_UNCLAIMED = """
SELECT p.player_id, p.name FROM api.players p
 WHERE p.kind <> 'guest'
   AND NOT EXISTS (SELECT FROM api.player_names n WHERE n.player_id = p.player_id)
 ORDER BY p.created_at, p.player_id"""
_CLAIM = """
INSERT INTO api.player_names (skeleton, player_id)
SELECT s, id FROM unnest($1::text[], $2::uuid[]) WITH ORDINALITY AS c(s, id, n) ORDER BY n
ON CONFLICT DO NOTHING"""
# Tokens change only through the owner's functions (migration 0017): another token for the
# calling token's player, a touch, a revocation (a registration's first token is
# api.register_player's).
_TOKEN_REFUSED = ("P0401", "P0403")
_ADD_TOKEN = "SELECT api.add_token($1, $2, $3, $4, $5)"
_BY_TOKEN = """
SELECT p.player_id::text, p.name, p.kind, t.token_id::text, t.scope, g.client_id, t.expires_at
  FROM api.tokens t JOIN api.players p USING (player_id)
  LEFT JOIN api.oauth_grants g ON g.grant_id = t.grant_id
 WHERE t.token_hash = $1 AND t.revoked_at IS NULL
   AND (t.expires_at IS NULL OR t.expires_at > now())"""
_TOUCH = "SELECT api.touch_token($1)"
_TOKENS = """
SELECT token_id::text, name, scope, created_at, last_used_at, revoked_at
  FROM api.tokens WHERE player_id = $1 AND grant_id IS NULL ORDER BY created_at, token_id"""
_TOKEN = """
SELECT token_id::text, name, scope, created_at, last_used_at, revoked_at
  FROM api.tokens WHERE token_id = $1"""
_REVOKE = "SELECT api.revoke_token($1, $2)"
_OWNED = "SELECT revoked_at FROM api.tokens WHERE token_id = $1 AND player_id = $2"
_NOTIFY_REVOKED = "SELECT pg_notify($1, $2)"
_BY_ID = "SELECT player_id::text, name, kind FROM api.players WHERE player_id = $1"
_BY_IDS = "SELECT player_id::text, name, kind FROM api.players WHERE player_id = ANY($1::uuid[])"
_KNOWN = "SELECT player_id::text FROM api.players WHERE player_id = ANY($1::uuid[])"
_GUESTS = """
INSERT INTO api.players (player_id, name, kind)
SELECT id, name, 'guest' FROM unnest($1::uuid[], $2::text[]) AS g(id, name)
ON CONFLICT (player_id) DO NOTHING"""
_BOT = """
WITH bot AS (INSERT INTO api.players (player_id, name, kind) VALUES ($1, $2, 'bot'))
INSERT INTO api.player_names (skeleton, player_id) VALUES ($3, $1)"""
_NAME_TAKEN = "player_names_pkey"
_TAKEN = "a player with this name, or one that looks like it, exists"


class Players:
    """Registers players, issues and revokes their tokens, finds them by token or id."""

    def __init__(
        self,
        pool: asyncpg.Pool,
        *,
        token_cache: int = 16_384,
        hearing: Callable[[], bool] = lambda: True,
        key_ttl: float = 86_400.0,
    ) -> None:
        self.pool = pool
        self.key_ttl = key_ttl
        """Seconds a registration's Idempotency-Key is kept (the TTL of every key)."""
        self._names_claimed = False
        self.hearing = hearing
        """Whether the hint channel's news is heard now (the cached tokens are trusted only
        then)."""
        self._tokens: Lru[bytes, tuple[Caller, float]] = Lru(token_cache)
        self._players: Lru[str, Player] = Lru(token_cache)

    # --- registering and tokens --------------------------------------------------------------

    async def register(
        self,
        name: str,
        *,
        kind: Literal["human", "program"] = "human",
        device: str = "first device",
        key: bytes | None = None,
        request: bytes = b"",
    ) -> tuple[Player, str | None, TokenInfo | None]:
        """A new player and his first token (returned this once, stored only as a hash).

        Names are checked (`service.players.names`): one that looks like a registered
        player's is `NameTaken`. With ``key`` (the sha256 of an Idempotency-Key, kept
        ``key_ttl`` seconds) a repeat of the same request gives the same player again, and a
        fresh token only while the token handed out last was never used: the answer may have
        been lost, and the token it held is revoked. Once that token was used the answer had
        arrived, and a repeat (whoever sends it) gets the player with no token (None, None).
        The same key with another request is `IdempotencyKeyReused`; past its TTL a key is a
        new request (and its name is then taken)."""
        name = clean_name(name)
        device = clean_name(device, "body.device")
        token, token_id = new_token(), uuid7()
        try:
            row = await self.pool.fetchrow(
                _REGISTER, uuid7(), name, skeleton(name), kind, key, request if key else None,
                timedelta(seconds=self.key_ttl), token_id, token_hash(token), device,
                NOTIFY_CHANNEL,
            )  # fmt: skip
        except asyncpg.UniqueViolationError as exc:
            if exc.constraint_name == _NAME_TAKEN:
                raise NameTaken(
                    "a player with this name, or one that looks like it, exists"
                ) from None
            raise
        except asyncpg.PostgresError as exc:
            if exc.sqlstate == "P0422":
                raise IdempotencyKeyReused(exc.args[0]) from None
            raise
        assert row is not None
        player = Player(id=str(row[0]), name=row[1], kind=row[2])
        self._players.put(player.id, player)
        if row[3] is None:
            return player, None, None
        info = TokenInfo(id=str(token_id), name=device, scope="play", created_at=row[3])
        return player, token, info

    async def purge_registrations(self, batch: int = 5000) -> int:
        """Delete expired registration keys, ``batch`` at a time; how many."""
        total = 0
        while True:
            deleted: int = await self.pool.fetchval(_PURGE_REGISTRATIONS, batch)
            total += deleted
            if deleted < batch:
                return total

    async def purge_sign_ins(self, older: float = 86_400.0) -> int:
        """Forget failed sign-ins counted more than ``older`` seconds ago (and not locking
        anything out any more) and passkey challenges expired an hour ago; how many."""
        purged: int = await self.pool.fetchval(_PURGE_SIGN_INS, timedelta(seconds=older))
        return purged

    async def claim_names(self) -> int:
        """Enter the skeletons of players registered before names were compared, oldest
        first (a later look-alike keeps his name and claims none); once per process, the
        next calls do nothing. How many were entered."""
        if self._names_claimed:
            return 0
        rows = await self.pool.fetch(_UNCLAIMED)
        skeletons = [skeleton(r[1]) for r in rows]
        if rows:
            await self.pool.execute(_CLAIM, skeletons, [r[0] for r in rows])
        self._names_claimed = True
        return len(rows)

    async def issue(self, player: Caller, name: str, scope: Scope) -> tuple[str, TokenInfo]:
        """Another token for the player of ``player``'s token (a new device), and its listing:
        made from the calling token, so never for another player nor above its scope."""
        async with self.pool.acquire() as conn:
            return await self._issue(conn, player, clean_name(name), scope)

    async def _issue(
        self, conn: asyncpg.Connection, player: Caller, name: str, scope: Scope
    ) -> tuple[str, TokenInfo]:
        token, token_id = new_token(), uuid7()
        digest = token_hash(token)
        try:
            created = await conn.fetchval(
                _ADD_TOKEN, player.token_hash, token_id, digest, name, scope
            )
        except asyncpg.PostgresError as exc:
            if exc.sqlstate not in _TOKEN_REFUSED:  # the calling token revoked meanwhile, or
                raise  # a scope above its own
            raise Forbidden(f"no such token may be made: {exc}", code="token_refused") from exc
        if created is None:
            raise Forbidden(
                f"a player holds at most {TOKENS_PER_PLAYER} tokens: revoke one first",
                code="too_many_tokens",
            )
        info = TokenInfo(id=str(token_id), name=name, scope=scope, created_at=created)
        return token, info

    async def token_info(self, caller: Caller) -> TokenInfo:
        """The listing of the token ``caller`` called with (an app's too)."""
        r = await self.pool.fetchrow(_TOKEN, uuid.UUID(caller.token_id))
        if r is None:
            raise TokenNotFound("this token is gone")
        return TokenInfo(
            id=r[0], name=r[1], scope=r[2], created_at=r[3], last_used_at=r[4], revoked_at=r[5]
        )

    async def still_valid(self, caller: Caller) -> bool:
        """Whether ``caller``'s token is still good (cached; read again once dropped)."""
        if self._tokens.get(caller.token_hash) is not None and self.hearing():
            return True
        row = await self.pool.fetchrow(_BY_TOKEN, caller.token_hash)
        return row is not None

    async def tokens(self, player: Player) -> list[TokenInfo]:
        rows = await self.pool.fetch(_TOKENS, uuid.UUID(player.id))
        return [
            TokenInfo(
                id=r[0], name=r[1], scope=r[2], created_at=r[3], last_used_at=r[4], revoked_at=r[5]
            )
            for r in rows
        ]

    async def revoke(self, player: Caller, token_id: uuid.UUID) -> None:
        """Revoke one of ``player``'s tokens, in every process at once; `TokenNotFound` if he
        has no such token. Revoking a revoked token again changes nothing."""
        async with self.pool.acquire() as conn:
            digest = await conn.fetchval(_REVOKE, player.token_hash, token_id)
            if digest is None:
                if await conn.fetchrow(_OWNED, token_id, uuid.UUID(player.id)) is None:
                    raise TokenNotFound("none of your tokens has this id")
                return
            self._tokens.pop(bytes(digest))
            await conn.execute(_NOTIFY_REVOKED, NOTIFY_CHANNEL, REVOKED + bytes(digest).hex())

    def on_news(self, payload: str) -> None:
        """News from the hint channel (`service.eventlog.hints.HintHub.on_news`): a revoked token is
        dropped; ``""`` (news may have been missed) drops every cached token."""
        if not payload:
            self._tokens.clear()
        elif payload.startswith(REVOKED):
            with contextlib.suppress(ValueError):
                self._tokens.pop(bytes.fromhex(payload.removeprefix(REVOKED)))

    def known_caller(self, token: str) -> Caller | None:
        """Who holds ``token`` as this process knows it without a lookup: None unless the
        token was found less than `TOKEN_TTL` ago and no revocation could have gone unheard
        since."""
        return self._known(token_hash(token))

    def _known(self, digest: bytes) -> Caller | None:
        held = self._tokens.get(digest)
        if held is not None and time.monotonic() - held[1] < TOKEN_TTL and self.hearing():
            lapses = held[0].expires_at
            if lapses is None or datetime.now(UTC) < lapses:
                return held[0]
        return None

    async def authenticate(self, token: str) -> Caller | None:
        """Who holds ``token`` (and what it may do), or None if it is unknown or revoked."""
        digest = token_hash(token)
        known = self._known(digest)
        if known is not None:
            return known
        row = await self.pool.fetchrow(_BY_TOKEN, digest)
        if row is None:
            self._tokens.pop(digest)
            return None
        caller = Caller(
            id=row[0],
            name=row[1],
            kind=row[2],
            token_id=row[3],
            token_hash=digest,
            scope=row[4],
            app=row[5],
            expires_at=row[6],
        )
        self._tokens.put(digest, (caller, time.monotonic()))
        with contextlib.suppress(asyncpg.PostgresError):
            await self.pool.execute(_TOUCH, digest)
        return caller

    # --- looking players up ------------------------------------------------------------------

    async def get(self, player_id: uuid.UUID) -> Player:
        """The player with this id; `PlayerNotFound` if there is none."""
        cached = self._players.get(str(player_id))
        if cached is not None:
            return cached
        row = await self.pool.fetchrow(_BY_ID, player_id)
        if row is None:
            raise PlayerNotFound("no player has this id")
        player = Player(id=row[0], name=row[1], kind=row[2])
        self._players.put(player.id, player)
        return player

    async def many(self, ids: Iterable[str | None]) -> dict[str, Player]:
        """The players among ``ids`` known here (names never change, so they are cached)."""
        wanted = {i for i in ids if i is not None}
        found = {i: p for i in wanted if (p := self._players.get(i)) is not None}
        missing = []
        for i in wanted - found.keys():
            with contextlib.suppress(ValueError):
                missing.append(uuid.UUID(i))
        if missing:
            for row in await self.pool.fetch(_BY_IDS, missing):
                player = Player(id=row[0], name=row[1], kind=row[2])
                self._players.put(player.id, player)
                found[player.id] = player
        return found

    def remember(self, player: Player) -> None:
        """Know ``player`` without a lookup (the service's bots)."""
        self._players.put(player.id, player)

    def cached(self, player_id: str) -> Player | None:
        return self._players.get(player_id)

    async def name_of(self, player_id: str | None) -> str | None:
        """The player's name, or None for a free seat or an id unknown here."""
        if player_id is None:
            return None
        try:
            return (await self.get(uuid.UUID(player_id))).name
        except (ValueError, PlayerNotFound):
            return None

    async def add_bot(self, name: str) -> Player:
        """One of the service's own players (kind ``bot``: no token)."""
        player_id = uuid7()
        name = clean_name(name)
        try:
            await self.pool.execute(_BOT, player_id, name, skeleton(name))
        except asyncpg.UniqueViolationError:
            raise NameTaken(_TAKEN) from None
        player = Player(id=str(player_id), name=name, kind="bot")
        self._players.put(player.id, player)
        return player


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
