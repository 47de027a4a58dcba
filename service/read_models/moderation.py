"""Moderation: the collusion report (`projections.collusion`, docs/fair-play.md) for the players
who hold the moderator role, and nobody else.

The role is a row of ``api.moderators``, granted and revoked by the administrator alone
(``preferans moderators grant|revoke|list``, which connect with the migrations' DSN: the
request path's database role may read the table, never write it). The report is folded again
from the collusion read model and the analysis on each request (pure arithmetic, in a thread
so the event loop stays free); a report over 100,000 deals takes seconds (docs/fair-play.md §6).
"""

from __future__ import annotations

import asyncio
import uuid

import asyncpg
import msgspec

from projections import collusion
from service.exceptions import Forbidden
from service.read_models import storage

_IS_MODERATOR = "SELECT EXISTS (SELECT FROM api.moderators WHERE player_id = $1::uuid)"
_NAMES = "SELECT player_id::text, name FROM api.players WHERE player_id::text = ANY($1::text[])"


class ModerationReport(msgspec.Struct, frozen=True, kw_only=True):
    """A page of the ranked pairs, with the players' names."""

    games: int
    """Finished games read."""
    deals: int
    analysed: int
    """Of ``deals``, those the analyst has solved (the double-dummy figures need them)."""
    players: int
    flag_z: float
    """A pair whose score reaches it is flagged."""
    min_deals: int
    """A figure over fewer deals is shown but not scored."""
    total_pairs: int
    flagged_pairs: int
    pairs: tuple[collusion.PairReport, ...]
    """Ranked, the highest score first; each figure links the deals that weighed most."""
    names: dict[str, str]
    """Player id → name, for every player of the page's pairs."""


class Moderation:
    """The moderator's check and the report over a pool."""

    def __init__(self, pool: asyncpg.Pool) -> None:
        self.pool = pool

    async def is_moderator(self, player_id: str) -> bool:
        try:
            uuid.UUID(player_id)
        except ValueError:
            return False
        return bool(await self.pool.fetchval(_IS_MODERATOR, player_id))

    async def require(self, player_id: str) -> None:
        """`Forbidden` unless the player is a moderator."""
        if not await self.is_moderator(player_id):
            raise Forbidden("only a moderator may read the fair-play report", code="not_moderator")

    async def report(
        self, *, limit: int = 50, offset: int = 0, player: str | None = None
    ) -> ModerationReport:
        """A page of the ranked pairs (``player``: only his)."""
        records = await storage.read_collusion_records(self.pool)
        full = await asyncio.to_thread(collusion.report, records)
        pairs = full.pairs if player is None else tuple(collusion.pairs_of(full, player))
        page = pairs[offset : offset + limit]
        ids = sorted({p for pair in page for p in pair.players})
        names = {r[0]: r[1] for r in await self.pool.fetch(_NAMES, ids)}
        return ModerationReport(
            games=full.games, deals=full.deals, analysed=full.analysed, players=full.players,
            flag_z=full.flag_z, min_deals=collusion.MIN_DEALS, total_pairs=len(pairs),
            flagged_pairs=sum(p.flagged for p in pairs), pairs=page,
            names={i: names.get(i, i) for i in ids},
        )  # fmt: skip
