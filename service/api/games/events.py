"""Following a game: its events page by page, or live as Server-Sent Events.

Both show the caller's redacted events only, each with its stream version (1, 2, 3 … without
gaps), so a client resumes exactly where it stopped: ``?cursor=<version>`` for pages, the SSE
``Last-Event-ID`` header (or ``?after=``) for the stream.

The stream also carries what is said at the table (``event: chat``, the messages the caller
reads, `service.games.chat`) and the changes of a finished game's rematch offer (``event:
rematch``). Neither is an event of the game: they have no ``id:`` (so ``Last-Event-ID`` stays the
game's version) and are not replayed on a reconnection; a client reads the chat's recent page
(``GET /v1/games/{id}/chat``) and the offer (``GET …/rematch``) when it (re)connects.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Annotated

import msgspec
from litestar import Controller, Response, get
from litestar.di import NamedDependency
from litestar.openapi.datastructures import ResponseSpec
from litestar.params import FromPath, HeaderParameter, QueryParameter
from litestar.response import Stream

from domain.game import GameState
from service.api.common import PRIVATE
from service.api.errors import problem_responses
from service.api.games.schemas import EventPage
from service.exceptions import BadRequest
from service.games.chat import ChatMessage, Rematch, TableTalk
from service.games.live import Live
from service.games.service import GameService, SeenEvent
from service.games.streams import game_stream
from service.games.tournaments import Embargo
from service.players.accounts import Caller

_encoder = msgspec.json.Encoder()


@dataclass(frozen=True, slots=True)
class SseSettings:
    """Server-Sent Events knobs (tests shorten the ping)."""

    ping_interval: float = 15.0
    """Seconds of silence before a ``: ping`` comment keeps proxies from closing the stream."""
    retry_ms: int = 2000
    """The reconnection delay the client is told to use."""


def sse_frame(seen: SeenEvent) -> bytes:
    tag = type(seen.event).__struct_config__.tag
    data = _encoder.encode(seen.event)
    return b"id: %d\nevent: %s\ndata: %s\n\n" % (seen.version, str(tag).encode(), data)


def talk_frame(frame: ChatMessage | Rematch) -> bytes:
    kind = b"chat" if isinstance(frame, ChatMessage) else b"rematch"
    return b"event: %s\ndata: %s\n\n" % (kind, _encoder.encode(frame))


async def _sse(
    live: Live, stream_id: str, player: str | None, after: int, settings: SseSettings
) -> AsyncIterator[bytes]:
    yield f"retry: {settings.retry_ms}\n\n".encode()
    async for seen in live.follow(stream_id, player, after, settings.ping_interval):
        yield b": ping\n\n" if seen is None else sse_frame(seen)


async def _table_sse(
    live: Live, talk: TableTalk, games: GameService, game_id: uuid.UUID, player: str | None,
    after: int, settings: SseSettings,
) -> AsyncIterator[bytes]:  # fmt: skip
    """The game's frames and the table's talk, merged; ends when the game's follow ends."""
    out: asyncio.Queue[bytes | None] = asyncio.Queue(64)

    async def game_frames() -> None:
        try:
            async for frame in _sse(live, game_stream(game_id), player, after, settings):
                await out.put(frame)
        finally:
            await out.put(None)

    async def state_now() -> GameState:
        return (await games.state(game_id))[1]

    async def talk_frames() -> None:
        async for frame in talk.follow(game_id, player, state_now):
            await out.put(talk_frame(frame))

    tasks = [asyncio.create_task(game_frames()), asyncio.create_task(talk_frames())]
    try:
        while (frame := await out.get()) is not None:
            yield frame
        tasks[0].result()  # the game's follow failed: let the stream fail the same way
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


def resume_point(after: int | None, last_event_id: str | None) -> int:
    if last_event_id is not None:
        text = last_event_id.strip()
        if not text.isdigit() or len(text) > 18:
            raise BadRequest(
                f"Last-Event-ID is the number of the last event you hold, not {last_event_id!r}",
                where="header.Last-Event-ID",
            )
        return int(text)
    return after or 0


class EventsController(Controller):
    path = "/games"
    tags = ["events"]  # noqa: RUF012

    @get(
        "/{game_id:uuid}/events",
        operation_id="listEvents",
        summary="The game's events, page by page",
        description=(
            "The caller's redacted events after the version `cursor` (from the start without "
            "it), oldest first. Page on with `next_cursor` while it is set; once it is null, "
            "poll with `cursor` set to the page's `version` (the last version you hold). "
            "`min_version` (a version you know exists, e.g. the ETag your own action returned) "
            "makes sure the page is read where that version is visible."
        ),
        responses=problem_responses(
            "unauthenticated", "game-not-found", "game-quarantined", "validation", "forbidden"
        ),
    )
    async def list_events(
        self,
        game_id: FromPath[uuid.UUID],
        viewer: NamedDependency[Caller | None],
        games: NamedDependency[GameService],
        embargo: NamedDependency[Embargo],
        cursor: Annotated[
            str | None,
            QueryParameter(
                pattern=r"^[0-9]{1,12}$", description="The version after which the page starts."
            ),
        ] = None,
        limit: Annotated[int, QueryParameter(ge=1, le=500)] = 100,
        min_version: Annotated[int, QueryParameter(ge=0, le=10**12)] = 0,
    ) -> Response[EventPage]:
        after = int(cursor) if cursor else 0
        player = viewer.id if viewer else None
        await embargo.may_watch(game_id, player)
        items, last = await games.history(
            game_id, player, after, limit, seen=max(min_version, after)
        )
        page = EventPage(
            items=items, next_cursor=str(last) if len(items) == limit else None, version=last
        )
        return Response(page, headers=PRIVATE)

    @get(
        "/{game_id:uuid}/stream",
        operation_id="followGame",
        summary="Follow the game live (Server-Sent Events)",
        description=(
            "`text/event-stream`: first `retry:`, then one message per event after the resume "
            "point, `id:` its version, `event:` its type, `data:` the caller's redacted event "
            "as JSON, and a `: ping` comment after 15 s of silence. Reconnect with the "
            "`Last-Event-ID` header (or `?after=`): nothing is lost or repeated. A client that "
            "falls far behind is disconnected, and resumes the same way. Between the events, "
            "`event: chat` frames (no `id:`) carry the table's messages the caller reads, and "
            "`event: rematch` frames a finished game's rematch offer as it changes."
        ),
        media_type="text/event-stream",
        responses={
            200: ResponseSpec(
                data_container=str,
                generate_examples=False,
                media_type="text/event-stream",
                description="The event stream.",
            ),
            **problem_responses(
                "unauthenticated", "game-not-found", "game-quarantined", "validation", "forbidden"
            ),
        },
    )
    async def follow(
        self,
        game_id: FromPath[uuid.UUID],
        viewer: NamedDependency[Caller | None],
        games: NamedDependency[GameService],
        live: NamedDependency[Live],
        talk: NamedDependency[TableTalk],
        sse: NamedDependency[SseSettings],
        embargo: NamedDependency[Embargo],
        after: Annotated[int | None, QueryParameter(ge=0, le=10**12)] = None,
        last_event_id: Annotated[
            str | None,
            HeaderParameter(name="Last-Event-ID", required=False, pattern=r"^[0-9]{1,18}$"),
        ] = None,
    ) -> Stream:
        await games.state(game_id)  # a 404 now, not inside the stream
        await embargo.may_watch(game_id, viewer.id if viewer else None)
        start = resume_point(after, last_event_id)
        return Stream(
            _table_sse(live, talk, games, game_id, viewer.id if viewer else None, start, sse),
            media_type="text/event-stream",
            headers={**PRIVATE, "X-Accel-Buffering": "no"},
        )
