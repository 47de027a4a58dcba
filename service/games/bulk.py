"""Many finished games at once: a player's games streamed, and the pages a dump is read in.

Both read the same way, so that neither holds a long transaction on the primary nor the whole
result in memory: the games' ids come in keyset pages (`GameFilter`, ``game_id > last``, a
page at a time, each its own short statement), and each game's events are read, written out
and let go before the next. Only finished games are read, never a private table's for anyone
but its players, and never a duplicate table whose event is still open (its deals are being
played at other tables: `service.games.tournaments.Embargo`): the same public record the
single game's export gives (`service.games.export`), in the same bytes.

Formats: ``ndjson`` is each game's export one after the other (every game begins with its
header line); ``ppn`` is each game's PPN text, separated by a blank line
(`projections.ppn.read_all` reads them back).
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator, Sequence
from datetime import datetime
from typing import Any, Literal

import asyncpg
import msgspec

from projections import ppn
from service.eventlog.log import EventLog
from service.eventlog.store import RecordedEvent, StreamUnreadable
from service.games.export import ExportPlayer, export_lines, ppn_game
from service.games.streams import game_stream

Format = Literal["ndjson", "ppn"]

PAGE = 25
"""Games read per page (their ids in one statement, their events in another): a page of long
games is some 17,000 events in memory at once."""


class GameFilter(msgspec.Struct, frozen=True, kw_only=True):
    """Which finished games: a player's (or everyone's), created in ``[since, until)``, of a
    convention, rated or not (None: either)."""

    player: uuid.UUID | None = None
    since: datetime | None = None
    until: datetime | None = None
    convention: str | None = None
    rated: bool | None = None
    private_too: bool = False
    """Private tables too (for their own player only)."""
    through: uuid.UUID | None = None
    """Games up to this id only (a dump's cut: the games finished before it began)."""


class Listed(msgspec.Struct, frozen=True):
    game_id: uuid.UUID
    players: tuple[ExportPlayer, ...]


# The lobby row says finished in the transaction that appends the game's end, so a game listed
# here has all its events. Rated as the ratings say (`projections.ratings.is_rated`): deals
# nobody could choose, and a weight above 0 (a friendly is not rated).
_PAGE = """
SELECT g.game_id,
       ARRAY(SELECT s.id::text FROM unnest(g.players) WITH ORDINALITY AS s(id, n)
              WHERE s.id IS NOT NULL ORDER BY s.n) AS ids,
       ARRAY(SELECT p.name FROM unnest(g.players) WITH ORDINALITY AS s(id, n)
              LEFT JOIN api.players p ON p.player_id = s.id
              WHERE s.id IS NOT NULL ORDER BY s.n) AS names
  FROM api.games g
 WHERE g.status = 'finished'
   AND ($1::uuid IS NULL OR g.players @> ARRAY[$1::uuid])
   AND ($2::timestamptz IS NULL OR g.created_at >= $2)
   AND ($3::timestamptz IS NULL OR g.created_at < $3)
   AND ($4::text IS NULL OR g.preset = $4)
   AND ($5::boolean IS NULL
        OR (g.dealing NOT IN ('seeded', 'fixed') AND g.rating_weight > 0) = $5)
   AND ($6 OR NOT g.private)
   AND ($7::uuid IS NULL OR g.game_id > $7)
   AND ($8::uuid IS NULL OR g.game_id <= $8)
   AND NOT EXISTS (SELECT 1 FROM api.tournament_tables t
                    WHERE t.game_id = g.game_id AND t.embargoed)
 ORDER BY g.game_id
 LIMIT $9"""


async def page(
    pool: asyncpg.Pool, found: GameFilter, after: uuid.UUID | None, limit: int = PAGE
) -> list[Listed]:
    """The next ``limit`` games of ``found`` after ``after``, in id (time) order."""
    rows = await pool.fetch(
        _PAGE, found.player, found.since, found.until, found.convention, found.rated,
        found.private_too, after, found.through, limit,
    )  # fmt: skip
    out = []
    for row in rows:
        players = tuple(
            ExportPlayer(id=pid, name=name)
            for pid, name in zip(row["ids"], row["names"], strict=True)
        )
        out.append(Listed(row["game_id"], players))
    return out


def game_bytes(
    log: EventLog[Any], listed: Listed, records: Sequence[RecordedEvent], fmt: Format
) -> bytes:
    """One game as its export writes it (NDJSON lines, or PPN text and a blank line)."""
    if fmt == "ndjson":
        return b"".join(export_lines(listed.game_id, records, listed.players))
    events = [log.decode(r) for r in records]
    found = ppn_game(listed.game_id, records, listed.players)
    return (ppn.write(found, events) + "\n").encode()


async def pages(
    log: EventLog[Any], found: GameFilter, limit: int = PAGE
) -> AsyncIterator[list[tuple[Listed, list[RecordedEvent]]]]:
    """The games of ``found`` with their events, a page at a time: two short statements a
    page (the ids, then their streams), no transaction held between them."""
    after: uuid.UUID | None = None
    while True:
        listed = await page(log.pool, found, after, limit)
        if not listed:
            return
        streams = await log.read_stored_streams([game_stream(g.game_id) for g in listed])
        yield [
            (g, streams[game_stream(g.game_id)])
            for g in listed
            if game_stream(g.game_id) in streams
        ]
        if len(listed) < limit:
            return
        after = listed[-1].game_id


async def stream(
    log: EventLog[Any], found: GameFilter, fmt: Format, limit: int = 20
) -> AsyncIterator[bytes]:
    """The games of ``found``, one chunk of bytes per game (see the module docstring)."""
    async for batch in pages(log, found, limit):
        for listed, records in batch:
            try:
                if fmt == "ppn":  # a pulka's fold and text, tens of ms: not on the loop
                    chunk = await asyncio.to_thread(game_bytes, log, listed, records, fmt)
                else:
                    chunk = game_bytes(log, listed, records, fmt)
            except StreamUnreadable:  # quarantined (and alerted on): left out, not a 500
                continue
            yield chunk
