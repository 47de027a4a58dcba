"""Dumps: every finished rated game in one compressed file, written now and then by a worker.

The background process leads the job (`service.platform.leadership`, so one process of the
deployment writes a dump) and, every ``PREFERANS_DUMP_INTERVAL`` seconds, writes into
``PREFERANS_DUMP_DIR`` (docs/ppn.md, Dumps)::

    preferans-20261206T2000Z.ndjson.gz         the games, each its NDJSON export, gzip
    preferans-20261206T2000Z.ndjson.gz.sha256  its SHA-256, as ``sha256sum -c`` reads it
    preferans-20261206T2000Z.heads             a line per game: its id and its chain's head
    preferans-20261206T2000Z.json              the manifest: counts, sizes, checksum, cut

The games are those finished and rated (never seeded or fixed deals, never a friendly), not at
a private table, not a duplicate table whose event is open, with an id up to the cut (the newest
finished game when the dump began), finished when their page is read. They are read in pages of
ids, each page's streams in one statement (`service.games.bulk.pages`): nothing holds a
transaction open for the dump's length. The files are written under temporary names and
renamed, the manifest last, so a listing never shows a dump half written; the oldest beyond
``PREFERANS_DUMP_KEEP`` are deleted.

With ``PREFERANS_DUMP_PSEUDONYMS`` every player id, in the headers and in the events' data, is
replaced by a pseudonym (the HMAC-SHA256 of the id under a key drawn for this dump, as a UUID)
and every name by ``Player <first 8 hex digits>``: the same player is the same pseudonym
throughout one dump, and unrelated across dumps. The chain's fields are kept as stored, so the
heads still pin each game against its proof on the service, but a pseudonymised event no
longer hashes to them (say so to whoever checks the file).
"""

from __future__ import annotations

import asyncio
import gzip
import hashlib
import hmac
import logging
import os
import re
import secrets
import time
import uuid
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import msgspec

from service.eventlog.log import EventLog
from service.eventlog.store import RecordedEvent
from service.games.bulk import PAGE, GameFilter, Listed, game_bytes, pages
from service.games.export import ExportPlayer
from service.platform.leadership import Leadership
from service.platform.worker_kit import Worker

log = logging.getLogger(__name__)

LEADER = "dumps"
LEVEL = 6
"""gzip's level: zlib's default. On 2.1 MB of exports level 9 took 0.138 s against 0.083 s
for a file 1.1% smaller (581 KB against 587 KB)."""
NAME = re.compile(r"^preferans-\d{8}T\d{6}Z(\.ndjson\.gz(\.sha256)?|\.heads|\.json)$")
"""The names of a dump's files (nothing else in the directory is ever served)."""
_LAST_GAME = """
SELECT game_id FROM api.games WHERE status = 'finished' ORDER BY status, game_id DESC LIMIT 1"""


class DumpInfo(msgspec.Struct, frozen=True, kw_only=True):
    """A dump's manifest (``<stem>.json``)."""

    name: str
    """The compressed file's name."""
    created_at: datetime
    games: int
    events: int
    bytes: int
    sha256: str
    checksum_file: str
    heads_file: str
    pseudonymised: bool
    format: str = "preferans-game/1 NDJSON, gzip"
    through: uuid.UUID | None = None
    """The newest game id the dump could include (its cut)."""
    seconds: float = 0.0
    """How long it took to write."""


_manifest = msgspec.json.Decoder(DumpInfo)


def pseudonym(key: bytes, player_id: str) -> str:
    """A player's pseudonym in a dump keyed by ``key``: an UUID made of the id's HMAC."""
    digest = hmac.new(key, player_id.encode(), hashlib.sha256).digest()
    return str(uuid.UUID(bytes=digest[:16], version=4))


def pseudonymised(
    key: bytes, listed: Listed, records: Sequence[RecordedEvent]
) -> tuple[Listed, list[RecordedEvent]]:
    """The game with every player id replaced by its pseudonym, names by ``Player xxxxxxxx``."""
    swap = {p.id: pseudonym(key, p.id) for p in listed.players}
    players = tuple(
        ExportPlayer(id=swap[p.id], name=f"Player {swap[p.id][:8]}") for p in listed.players
    )
    out = []
    for r in records:
        data = r.data
        for real, alias in swap.items():
            data = data.replace(real, alias)
        out.append(msgspec.structs.replace(r, data=data))
    return Listed(listed.game_id, players), out


def list_dumps(directory: Path) -> list[DumpInfo]:
    """The dumps in ``directory``, newest first (those whose manifest is written)."""
    found = []
    for path in directory.glob("preferans-*.json") if directory.is_dir() else ():
        try:
            found.append(_manifest.decode(path.read_bytes()))
        except (OSError, msgspec.DecodeError):
            continue
    return sorted(found, key=lambda d: d.name, reverse=True)


def dump_file(directory: Path, name: str) -> Path | None:
    """The file of a dump called ``name``, if it is one and exists."""
    if not NAME.match(name):
        return None
    path = directory / name
    return path if path.is_file() else None


class Dumper:
    """Writes a dump every ``interval`` seconds, if this process leads the job."""

    def __init__(
        self,
        log: EventLog[Any],
        directory: Path,
        *,
        interval: float,
        pseudonyms: bool = False,
        keep: int = 7,
        page: int = PAGE,
    ) -> None:
        self.log = log
        self.directory = directory
        self.interval = interval
        self.pseudonyms = pseudonyms
        self.keep = keep
        self.page = page
        self.leadership = Leadership(log.pool)
        self.worker = Worker(
            "dumps", self._round, interval=interval, backoff=min(interval, 60.0),
            after=self.leadership.resign_all,
        )  # fmt: skip

    async def run(self) -> None:
        await self.worker.run()

    async def _round(self) -> float | None:
        if not await self.leadership.lead(LEADER):
            return None
        newest = list_dumps(self.directory)
        age = time.time() - newest[0].created_at.timestamp() if newest else self.interval
        if age < self.interval:
            return self.interval - age
        await self.dump()
        return None

    async def dump(self, now: datetime | None = None) -> DumpInfo:
        """Write a dump now (see the module docstring)."""
        started = time.perf_counter()
        now = now or datetime.now(UTC)
        stem = "preferans-" + now.strftime("%Y%m%dT%H%M%SZ")
        name = stem + ".ndjson.gz"
        self.directory.mkdir(parents=True, exist_ok=True)
        through = await self.log.pool.fetchval(_LAST_GAME)
        key = secrets.token_bytes(32) if self.pseudonyms else b""
        found = GameFilter(rated=True, through=through)
        part = self.directory / (name + ".part")
        heads_part = self.directory / (stem + ".heads.part")
        digest = hashlib.sha256()
        games = events = 0
        with open(part, "wb") as raw, open(heads_part, "w") as heads:
            hashing = _Hashing(raw, digest)
            with gzip.GzipFile(
                filename=name[:-3], mode="wb", fileobj=hashing, mtime=0, compresslevel=LEVEL
            ) as out:
                async for batch in pages(self.log, found, self.page):
                    chunks = []
                    for listed, records in batch:
                        if self.pseudonyms:
                            listed, records = pseudonymised(key, listed, records)
                        chunks.append(game_bytes(self.log, listed, records, "ndjson"))
                        heads.write(f"{listed.game_id} {records[-1].hash.hex()}\n")
                        games += 1
                        events += len(records)
                    await asyncio.to_thread(out.write, b"".join(chunks))
        size = part.stat().st_size
        checksum = digest.hexdigest()
        info = DumpInfo(
            name=name, created_at=now, games=games, events=events, bytes=size, sha256=checksum,
            checksum_file=name + ".sha256", heads_file=stem + ".heads",
            pseudonymised=self.pseudonyms, through=through,
            seconds=round(time.perf_counter() - started, 3),
        )  # fmt: skip
        os.replace(part, self.directory / name)
        os.replace(heads_part, self.directory / info.heads_file)
        _write(self.directory / info.checksum_file, f"{checksum}  {name}\n".encode())
        _write(self.directory / (stem + ".json"), msgspec.json.format(msgspec.json.encode(info)))
        self._prune()
        log.info("dump %s: %d games, %d events, %d bytes", name, games, events, size)
        return info

    def _prune(self) -> None:
        for old in list_dumps(self.directory)[self.keep :]:
            stem = old.name.removesuffix(".ndjson.gz")
            for path in (stem + ".json", old.name, old.checksum_file, old.heads_file):
                (self.directory / path).unlink(missing_ok=True)


class _Hashing:
    """A file that hashes what is written to it (the gzip stream's bytes, as stored)."""

    def __init__(self, raw: Any, digest: Any) -> None:
        self.raw = raw
        self.digest = digest

    def write(self, data: bytes) -> int:
        self.digest.update(data)
        return int(self.raw.write(data))

    def flush(self) -> None:
        self.raw.flush()


def _write(path: Path, data: bytes) -> None:
    part = path.with_name(path.name + ".part")
    part.write_bytes(data)
    os.replace(part, path)


class DumpShelf:
    """The dumps as the API serves them: the list, and a dump's file by name."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory

    def list(self) -> list[DumpInfo]:
        return list_dumps(self.directory)

    def file(self, name: str) -> Path | None:
        return dump_file(self.directory, name)
