"""A finished game's events as newline-delimited JSON, and back into the event store.

Export (``GET /v1/games/{id}/export``): one JSON object per line, in stream order::

    {"version": 1, "type": "game_created", "schema_version": 1, "data": {...},
     "event_id": "0190…", "recorded_at": "2025-01-03T10:00:00.123456+00:00"}

``data`` is the event exactly as stored. Only a finished game is exported: its deals are all
over, so nothing in the file is still secret.

Import (`import_game`): the lines are checked (versions 1, 2, … without a gap, every event
decodable, through the upcasters if old, starting with ``game_created``, folding into a valid
game), then appended as one new stream ``game-<new id>`` with fresh event ids. Folding the new
stream gives the same state as the old one.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Iterator, Sequence
from datetime import datetime
from typing import Any

import msgspec

from domain import game
from service.codec import EventCodec, domain_codec
from service.event_store import (
    NO_STREAM,
    AppendResult,
    EventStore,
    Metadata,
    NewEvent,
    RecordedEvent,
    uuid7,
)
from service.read_models import GAME_STREAM_PREFIX

MEDIA_TYPE = "application/x-ndjson"


class ExportLine(msgspec.Struct, frozen=True, kw_only=True):
    """One event of an export file."""

    version: int
    type: str
    schema_version: int
    data: msgspec.Raw
    event_id: uuid.UUID | None = None
    recorded_at: datetime | None = None


class InvalidExport(ValueError):
    """The file is not a game's events (names the line)."""


class Imported(msgspec.Struct, frozen=True, kw_only=True):
    game_id: uuid.UUID
    stream_id: str
    version: int
    state: Any
    """The folded game state."""


_encoder = msgspec.json.Encoder()
_line_decoder = msgspec.json.Decoder(ExportLine)


def export_lines(records: Sequence[RecordedEvent]) -> Iterator[bytes]:
    """The NDJSON lines of a stream's events (each ends with a newline)."""
    for r in records:
        line = ExportLine(
            version=r.version,
            type=r.event_type,
            schema_version=r.schema_version,
            data=msgspec.Raw(r.data.encode()),
            event_id=r.event_id,
            recorded_at=r.recorded_at,
        )
        yield _encoder.encode(line) + b"\n"


def read_lines(lines: Iterable[bytes | str], codec: EventCodec) -> list[game.Event]:
    """The events of an export file; `InvalidExport` naming the first bad line."""
    events: list[game.Event] = []
    for number, raw in enumerate(lines, start=1):
        text = raw.strip()
        if not text:
            continue
        try:
            line = _line_decoder.decode(text)
        except msgspec.DecodeError as exc:
            raise InvalidExport(f"line {number}: not an exported event ({exc})") from None
        if line.version != len(events) + 1:
            expected = len(events) + 1
            raise InvalidExport(f"line {number}: version {line.version}, expected {expected}")
        try:
            event = codec.decode(line.type, line.schema_version, bytes(line.data))
        except Exception as exc:
            raise InvalidExport(f"line {number}: {exc}") from None
        events.append(event)  # type: ignore[arg-type]
    if not events or not isinstance(events[0], game.GameCreated):
        raise InvalidExport("a game's events start with game_created")
    return events


async def import_game(
    store: EventStore,
    lines: Iterable[bytes | str],
    *,
    codec: EventCodec | None = None,
    game_id: uuid.UUID | None = None,
) -> Imported:
    """Append an exported game as a new stream; returns its id and folded state."""
    codec = codec or domain_codec()
    events = read_lines(lines, codec)
    try:
        state = game.fold(events)
    except Exception as exc:
        raise InvalidExport(f"the events do not fold into a game: {exc}") from None
    game_id = game_id or uuid7()
    stream_id = f"{GAME_STREAM_PREFIX}{game_id}"
    new = []
    for event in events:
        event_type, schema_version, data = codec.encode(event)
        new.append(
            NewEvent(
                event_id=uuid7(),
                event_type=event_type,
                schema_version=schema_version,
                data=msgspec.Raw(data),
                metadata=Metadata(actor="import"),
            )
        )
    appended: AppendResult = await store.append(stream_id, new, NO_STREAM)
    return Imported(game_id=game_id, stream_id=stream_id, version=appended.version, state=state)
