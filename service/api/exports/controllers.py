"""Open data over HTTP (docs/ppn.md).

Routes (under /v1):

    GET /players/{id}/games/export   a player's finished games, streamed: NDJSON or PPN, by
                                     date, convention and rated (`service.games.bulk`)
    GET /dumps                       the dumps of every finished rated game, newest first
    GET /dumps/{name}                a dump's file (the games, its checksum, its heads), with
                                     HTTP ranges: a broken download resumes where it stopped

A bulk export holds what the single game's export holds, game by game and in its bytes:
finished games only, never a duplicate table whose event is open, and a private table's games
only for its own players.
"""

from __future__ import annotations

import asyncio
import re
import uuid
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated, Any, Literal

from litestar import Controller, Request, Response, get
from litestar.di import NamedDependency
from litestar.openapi.datastructures import ResponseSpec
from litestar.params import FromPath, QueryParameter
from litestar.response import Stream

from projections import ppn
from service.api.common import PRIVATE
from service.api.errors import problem_responses
from service.api.exports.schemas import DumpList, DumpView
from service.eventlog.log import EventLog
from service.exceptions import BadRequest, NotFound, RangeNotSatisfiable
from service.games import bulk
from service.games.export import MEDIA_TYPE as NDJSON
from service.players.accounts import Caller, Players
from service.workers.dumps import DumpInfo, DumpShelf

CHUNK = 64 * 1024
OCTET_STREAM = "application/octet-stream"
_RANGE = re.compile(r"^bytes=(\d*)-(\d*)$")

Since = Annotated[
    datetime | None,
    QueryParameter(description="Games created at or after this time (RFC 3339; UTC if bare)."),
]
Until = Annotated[
    datetime | None,
    QueryParameter(description="Games created before this time (RFC 3339; UTC if bare)."),
]
Convention = Annotated[
    str | None,
    QueryParameter(
        pattern=r"^[a-z0-9_-]{1,64}$",
        description="Games of this convention (preset) only: `sochi`, `leningrad`, `rostov` …",
    ),
]
Rated = Annotated[
    bool | None,
    QueryParameter(
        description=(
            "`true`: rated games only (dealt at random, never from a chosen seed or layout, "
            "and not a friendly: `table.rating_weight` above 0); `false`: unrated only; "
            "absent: both."
        ),
    ),
]
BulkFormat = Annotated[
    Literal["ndjson", "ppn"],
    QueryParameter(
        description=(
            "`ndjson`: each game's export one after another, every game starting with its "
            "header line; `ppn`: each game's PPN text, a blank line between games."
        ),
    ),
]


def _utc(moment: datetime | None) -> datetime | None:
    return moment if moment is None or moment.tzinfo else moment.replace(tzinfo=UTC)


def byte_range(header: str | None, size: int) -> tuple[int, int] | None:
    """The first and last byte a ``Range`` header asks of a file of ``size`` bytes; None for
    the whole file (no header, one that is not a single byte range, which RFC 9110 lets a
    server ignore); `RangeNotSatisfiable` when the range lies outside the file."""
    if not header:
        return None
    found = _RANGE.match(header.strip())
    if found is None:
        return None
    first, last = found.groups()
    if not first and not last:
        return None
    if not first:  # the last N bytes
        suffix = int(last)
        if suffix == 0 or size == 0:
            raise RangeNotSatisfiable("an empty suffix range", size=size)
        return max(0, size - suffix), size - 1
    start = int(first)
    end = size - 1 if not last else min(int(last), size - 1)
    if last and int(last) < start:
        return None  # invalid syntax: ignored, the whole file
    if start >= size:
        raise RangeNotSatisfiable(
            f"the file has {size} bytes; the range starts at {start}", size=size
        )
    return start, end


async def _file_bytes(path: Path, start: int, length: int) -> AsyncIterator[bytes]:
    with open(path, "rb") as source:
        source.seek(start)
        left = length
        while left > 0:
            chunk = await asyncio.to_thread(source.read, min(CHUNK, left))
            if not chunk:
                return
            left -= len(chunk)
            yield chunk


def _view(dump: DumpInfo) -> DumpView:
    return DumpView(
        name=dump.name, url=f"/v1/dumps/{dump.name}", created_at=dump.created_at,
        games=dump.games, events=dump.events, bytes=dump.bytes, sha256=dump.sha256,
        checksum_url=f"/v1/dumps/{dump.checksum_file}", heads_url=f"/v1/dumps/{dump.heads_file}",
        pseudonymised=dump.pseudonymised, format=dump.format, through=dump.through,
    )  # fmt: skip


class PlayerExportController(Controller):
    path = "/players"
    tags = ["open data"]  # noqa: RUF012

    @get(
        "/{player_id:uuid}/games/export",
        operation_id="exportPlayerGames",
        summary="A player's finished games, in bulk",
        description=(
            "Every finished game of the player, oldest first, streamed as it is read (a few "
            "games at a time, however many there are): as NDJSON (each game's export, header "
            "line first, exactly as `GET /v1/games/{id}/export` gives it) or as PPN "
            "(docs/ppn.md). Filters: `since` and `until` (the game's creation), `convention`, "
            "`rated`. Only finished games, never a duplicate table whose event is still open; "
            "a private table's games only for the player himself (with his token)."
        ),
        responses={
            200: ResponseSpec(
                data_container=bytes,
                generate_examples=False,
                media_type=NDJSON,
                description=(
                    "The games (`format=ppn`: `" + ppn.MEDIA_TYPE + "`; bytes, "
                    "`application/octet-stream`, when `Accept` asks for them rather than it)."
                ),
            ),
            **problem_responses("validation", "player-not-found"),
        },
    )
    async def export_player_games(
        self,
        request: Request[Any, Any, Any],
        player_id: FromPath[uuid.UUID],
        viewer: NamedDependency[Caller | None],
        players: NamedDependency[Players],
        event_log: NamedDependency[EventLog[Any]],
        since: Since = None,
        until: Until = None,
        convention: Convention = None,
        rated: Rated = None,
        format: BulkFormat = "ndjson",
    ) -> Stream:
        since, until = _utc(since), _utc(until)
        if since is not None and until is not None and since >= until:
            raise BadRequest("`since` must come before `until`", where="query.until")
        await players.get(player_id)  # 404 for a player unknown here
        found = bulk.GameFilter(
            player=player_id, since=since, until=until, convention=convention, rated=rated,
            private_too=viewer is not None and viewer.id == str(player_id),
        )  # fmt: skip
        native = ppn.MEDIA_TYPE if format == "ppn" else NDJSON
        accept = request.headers.get("accept", "")
        media = OCTET_STREAM if OCTET_STREAM in accept and native not in accept else native
        return Stream(
            bulk.stream(event_log, found, format),
            media_type=media,
            headers={
                **PRIVATE,
                "Content-Disposition": f'attachment; filename="games-{player_id}.{format}"',
                "X-Accel-Buffering": "no",
            },
        )


class DumpsController(Controller):
    path = "/dumps"
    tags = ["open data"]  # noqa: RUF012

    @get(
        "/",
        operation_id="listDumps",
        summary="The dumps of every finished rated game",
        description=(
            "Newest first. Each dump holds every finished rated game up to its cut, each as its "
            "NDJSON export, gzip-compressed; beside it its SHA-256 (`checksum_url`) and each "
            "game's hash-chain head (`heads_url`). Written by the service now and then "
            "(`PREFERANS_DUMP_INTERVAL`), players pseudonymised if it is so set up."
        ),
        responses=problem_responses("validation"),
    )
    async def list_dumps(self, dumps: NamedDependency[DumpShelf]) -> DumpList:
        listed = await asyncio.to_thread(dumps.list)
        return DumpList(items=[_view(d) for d in listed])

    @get(
        "/{name:str}",
        operation_id="downloadDump",
        summary="Download a dump's file",
        description=(
            "A dump's compressed games (`.ndjson.gz`), its checksum (`.sha256`) or its heads "
            "(`.heads`). `Range: bytes=N-` resumes a broken download: 206 with `Content-Range` "
            "(a single range; several are answered with the whole file), 416 with "
            "`Content-Range: bytes */size` when the range starts past the end."
        ),
        media_type="application/octet-stream",
        responses={
            200: ResponseSpec(
                data_container=bytes,
                generate_examples=False,
                media_type="application/octet-stream",
                description="The whole file.",
            ),
            206: ResponseSpec(
                data_container=bytes,
                generate_examples=False,
                media_type="application/octet-stream",
                description="The bytes asked for.",
            ),
            **problem_responses("not-found", "range-not-satisfiable", "validation"),
        },
    )
    async def download_dump(
        self,
        request: Request[Any, Any, Any],
        name: FromPath[str],
        dumps: NamedDependency[DumpShelf],
    ) -> Response[Any]:
        path = dumps.file(name)
        if path is None:
            raise NotFound("no dump has this name")
        stat = await asyncio.to_thread(path.stat)
        size = stat.st_size
        tag = f'"{size:x}-{stat.st_mtime_ns:x}"'
        asked = request.headers.get("range")
        if_range = request.headers.get("if-range")
        span = byte_range(asked, size) if if_range in (None, tag) else None
        start, end = span if span is not None else (0, size - 1)
        headers = {
            "Accept-Ranges": "bytes",
            "ETag": tag,
            "Content-Length": str(end - start + 1),
            "Content-Disposition": f'attachment; filename="{path.name}"',
            "Cache-Control": "public, max-age=86400",
        }
        if span is not None:
            headers["Content-Range"] = f"bytes {start}-{end}/{size}"
        return Stream(
            _file_bytes(path, start, end - start + 1),
            status_code=206 if span is not None else 200,
            media_type="application/octet-stream",
            headers=headers,
        )


ROUTE_HANDLERS = [PlayerExportController, DumpsController]
