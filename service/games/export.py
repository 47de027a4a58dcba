"""A finished game as newline-delimited JSON, and back into the event log.

Export (``GET /v1/games/{id}/export``): a header line naming the game and its players, then one
line per event in stream order::

    {"format": "preferans-game/1", "game_id": "0190…", "players": [{"id": "0190…", "name": "Anna"}],
     "stream_id": "game-0190…", "head": "9f2c…"}
    {"version": 1, "type": "game_created", "schema_version": 3, "data": {...},
     "event_id": "0190…", "salt": "5e0d…", "prev_hash": "0000…", "hash": "41aa…"}

``data`` is the event exactly as stored; ``salt``, ``prev_hash`` and ``hash`` are its link in
the stream's hash chain (`service.eventlog.chain`), and ``head`` the last hash, so that the file can
be checked against a head pinned during play (`preferans games verify`, docs/fairness.md). Every
byte of an event's line is covered by the chain: the time an event was stored, which is not,
is left out (older exports carried it as ``recorded_at``; the events' own ``at`` say when). Only a
finished game is exported: its deals are all over and its secret revealed, so nothing in the
file is still secret.

Import (`import_game`) replays the export into this server as the same game: the same game id
and event ids, so a game exists here at most once, and its statistics and ratings count once.
The lines are checked (versions 1, 2, … without a gap, every event decodable through the
upcasters, starting with ``game_created``, folding into a finished game); then, in one
transaction, players unknown here become named guests, the events are appended, and the game is
listed in the lobby. A game (or an event) already here refuses the import with
`AlreadyImported`. An export without a header (an older one) gets a new game id.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Iterator, Mapping, Sequence
from datetime import datetime
from typing import Any, Final, Literal

import msgspec

from domain import game
from projections import ppn
from service.eventlog.codec import EventCodec
from service.eventlog.log import EventLog
from service.eventlog.store import (
    DuplicateEventId,
    Metadata,
    NewEvent,
    RecordedEvent,
    StreamConflict,
    uuid7,
)
from service.exceptions import (
    AlreadyImported,
    BadRequest,
    GameNotFound,
    GameNotOver,
    ImportRefused,
)
from service.games.dealing import DealSource
from service.games.lobby import new_game_summary
from service.games.streams import game_stream
from service.players.accounts import Players, add_guests, clean_name

MEDIA_TYPE = "application/x-ndjson"
FORMAT: Final = "preferans-game/1"

ANALYSIS: Final = b'{"analysis"'
"""How a line of a deal's analysis begins, attached after the events (``preferans games export
--analysis``): ``{"analysis": {...}, "deal_no": 1}``; an import passes over it."""

_EVENT_IDS = uuid.UUID("8f8e5c4a-3b0d-4e7f-9a61-2c5d7b1e4f90")


class ExportPlayer(msgspec.Struct, frozen=True, kw_only=True):
    id: str
    name: str | None = None


class ExportHeader(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """The first line of an export: which game, and its players' names (not in the log)."""

    format: Literal["preferans-game/1"]
    game_id: uuid.UUID
    players: tuple[ExportPlayer, ...] = ()
    stream_id: str | None = None
    """The game's stream, the second line of each event's canonical bytes."""
    head: str | None = None
    """The hash of the last event (hex)."""


class ExportLine(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """One event of an export file (`encode_line` writes it in its one canonical form)."""

    version: int
    type: str
    schema_version: int
    data: msgspec.Raw
    event_id: uuid.UUID | None = None
    recorded_at: datetime | None = None
    salt: str | None = None
    prev_hash: str | None = None
    hash: str | None = None


class Imported(msgspec.Struct, frozen=True, kw_only=True):
    game_id: uuid.UUID
    stream_id: str
    version: int
    state: Any
    """The folded game state."""
    guests: tuple[str, ...] = ()
    """Players added as guests (unknown here)."""


_encoder = msgspec.json.Encoder()
_header_decoder = msgspec.json.Decoder(ExportHeader)
_line_decoder = msgspec.json.Decoder(ExportLine)


def export_lines(
    game_id: uuid.UUID, records: Sequence[RecordedEvent], players: Sequence[ExportPlayer]
) -> Iterator[bytes]:
    """The NDJSON lines of a game's export (each ends with a newline)."""
    header = ExportHeader(
        format=FORMAT,
        game_id=game_id,
        players=tuple(players),
        stream_id=game_stream(game_id),
        head=records[-1].hash.hex() if records else None,
    )
    yield _encoder.encode(header) + b"\n"
    for r in records:
        line = ExportLine(
            version=r.version,
            type=r.event_type,
            schema_version=r.schema_version,
            data=msgspec.Raw(r.data.encode()),
            event_id=r.event_id,
            salt=r.salt.hex(),
            prev_hash=r.prev_hash.hex(),
            hash=r.hash.hex(),
        )
        yield encode_line(line)


class Export(msgspec.Struct, frozen=True, kw_only=True):
    """A finished game as it is exported: its stored events, decoded, and its players."""

    game_id: uuid.UUID
    records: list[RecordedEvent]
    events: list[game.Event]
    players: list[ExportPlayer]

    def ndjson(self) -> Iterator[bytes]:
        """The NDJSON lines."""
        return export_lines(self.game_id, self.records, self.players)

    def ppn(self, analyses: Mapping[int, str] | None = None) -> str:
        """The PPN text, with each deal's analysis (JSON, by deal number) if given."""
        found = ppn_game(self.game_id, self.records, self.players)
        tags, deals = ppn.record(self.events)
        found = msgspec.structs.replace(found, tags=tags, deals=deals)
        if analyses:
            found = ppn.with_analysis(found, analyses)
        return ppn.write(found)


async def load_export(log: EventLog[game.Event], names: Players, game_id: uuid.UUID) -> Export:
    """A finished game's export: `GameNotFound`, `GameNotOver` (the embargo of a duplicate
    table is the caller's to check first). A log that cannot be folded is quarantined."""
    logged = await log.read(game_stream(game_id))
    if not logged:
        raise GameNotFound("no game has this id")
    state: game.GameState = game.INITIAL_STATE
    for item in logged:
        _, state = log.step(game.evolve, state, item.record, item.event)
    if not game.is_terminal(state):
        raise GameNotOver("a game is exported once it is over")
    assert isinstance(state, game.PulkaClosed)
    seated = [p for p in state.players if p is not None]
    return Export(
        game_id=game_id,
        records=[item.record for item in logged],
        events=[item.event for item in logged],
        players=[ExportPlayer(id=p, name=await names.name_of(p)) for p in seated],
    )


def ppn_game(
    game_id: uuid.UUID, records: Sequence[RecordedEvent], players: Sequence[ExportPlayer]
) -> ppn.PpnGame:
    """The export of a game as a `projections.ppn.PpnGame` (its record still to be made)."""
    return _ppn_of(export_lines(game_id, records, players))


def _ppn_of(lines: Iterable[bytes]) -> ppn.PpnGame:
    header: ExportHeader | None = None
    events: list[ppn.PpnEvent] = []
    for raw in lines:
        text = raw.strip()
        if not text or text.startswith(ANALYSIS):
            continue
        if header is None and not events and b'"format"' in text:
            header = _header_decoder.decode(text)
            continue
        line = _line_decoder.decode(text)
        events.append(
            ppn.PpnEvent(
                version=line.version,
                type=line.type,
                schema_version=line.schema_version,
                data=bytes(line.data).decode(),
                event_id=None if line.event_id is None else str(line.event_id),
                salt=line.salt,
                prev_hash=line.prev_hash,
                hash=line.hash,
            )
        )
    if header is None:
        raise ImportRefused("a PPN game is written from an export with its header line")
    return ppn.PpnGame(
        game_id=str(header.game_id),
        stream_id=header.stream_id,
        head=header.head,
        players=tuple(ppn.PpnPlayer(p.id, p.name) for p in header.players),
        events=tuple(events),
    )


def to_ppn(lines: Iterable[bytes | str], codec: EventCodec) -> str:
    """An NDJSON export as PPN text (the record made from its events, decoded by ``codec``);
    `ImportRefused` if the export cannot be read."""
    listed = [_bytes(line) for line in lines]
    parsed = read_lines(listed, codec)
    try:
        found = _ppn_of(listed)
    except msgspec.DecodeError as exc:
        raise ImportRefused(f"not an export: {exc}") from None
    return ppn.write(found, parsed.events)


def from_ppn(text: str) -> list[bytes]:
    """The NDJSON export lines of a PPN game's log, byte for byte those it was written from;
    `ImportRefused` if the text is not PPN."""
    try:
        found = ppn.read(text)
    except ppn.PpnError as exc:
        raise ImportRefused(f"not a PPN game: {exc}") from None
    return ndjson_of(found)


def ndjson_of(found: ppn.PpnGame) -> list[bytes]:
    """The NDJSON export lines of a parsed PPN game."""
    try:
        header = ExportHeader(
            format=FORMAT,
            game_id=uuid.UUID(found.game_id),
            players=tuple(ExportPlayer(id=p.id, name=p.name) for p in found.players),
            stream_id=found.stream_id,
            head=found.head,
        )
        lines = [_encoder.encode(header) + b"\n"]
        for e in found.events:
            line = ExportLine(
                version=e.version,
                type=e.type,
                schema_version=e.schema_version,
                data=msgspec.Raw(e.data.encode()),
                event_id=None if e.event_id is None else uuid.UUID(e.event_id),
                salt=e.salt,
                prev_hash=e.prev_hash,
                hash=e.hash,
            )
            lines.append(encode_line(line))
    except ValueError as exc:
        raise ImportRefused(f"a PPN game's id or an event id is not a UUID: {exc}") from None
    return lines


def is_ppn(data: bytes) -> bool:
    """Whether an import file is PPN (its first line that is not blank is a comment or a tag)."""
    first = next((line.strip() for line in data.splitlines() if line.strip()), b"")
    return first.startswith((b"%", b"["))


def encode_line(line: ExportLine) -> bytes:
    """An event's line, newline included: compact JSON in field order, ``data`` as jsonb
    prints it (what the stored text is, and `service.eventlog.chain.jsonb_text` recomputes)."""
    return _encoder.encode(line) + b"\n"


class _Parsed(msgspec.Struct, frozen=True):
    header: ExportHeader | None
    events: list[game.Event]
    ids: list[uuid.UUID | None]
    salts: list[bytes | None]


def read_lines(lines: Iterable[bytes | str], codec: EventCodec) -> _Parsed:
    """The header and events of an export file; `ImportRefused` naming the first bad line."""
    header: ExportHeader | None = None
    events: list[game.Event] = []
    ids: list[uuid.UUID | None] = []
    salts: list[bytes | None] = []
    for number, raw in enumerate(lines, start=1):
        text = raw.strip()
        if not text or _bytes(text).startswith(ANALYSIS):
            continue
        if not events and header is None and b'"format"' in _bytes(text):
            try:
                header = _header_decoder.decode(text)
            except msgspec.DecodeError as exc:
                raise ImportRefused(f"line {number}: not an export header ({exc})") from None
            continue
        try:
            line = _line_decoder.decode(text)
        except msgspec.DecodeError as exc:
            raise ImportRefused(f"line {number}: not an exported event ({exc})") from None
        if line.version != len(events) + 1:
            expected = len(events) + 1
            raise ImportRefused(f"line {number}: version {line.version}, expected {expected}")
        try:
            event = codec.decode(line.type, line.schema_version, bytes(line.data))
        except Exception as exc:
            raise ImportRefused(f"line {number}: {exc}") from None
        events.append(event)  # type: ignore[arg-type]
        ids.append(line.event_id)
        salts.append(_salt(line.salt, number))
    if not events or not isinstance(events[0], game.GameCreated):
        raise ImportRefused("a game's events start with game_created")
    return _Parsed(header, events, ids, salts)


def _salt(text: str | None, number: int) -> bytes | None:
    """An exported event's salt, kept on import (so that an unchanged event hashes the same)."""
    if text is None:
        return None
    try:
        salt = bytes.fromhex(text)
    except ValueError:
        salt = b""
    if len(salt) != 16:
        raise ImportRefused(f"line {number}: a salt is 16 bytes in hex")
    return salt


def _guest_name(name: str | None, seat: int) -> str:
    """The name an export gives a player, if it is one we would accept, else ``Guest <n>``."""
    try:
        return clean_name(name) if name else f"Guest {seat + 1}"
    except BadRequest:
        return f"Guest {seat + 1}"


def _bytes(text: bytes | str) -> bytes:
    return text.encode() if isinstance(text, str) else text


async def import_file(log: EventLog[game.Event], data: bytes) -> Imported:
    """Import a file: PPN (its record checked against its log) or an NDJSON export."""
    if not is_ppn(data):
        return await import_game(log, data.splitlines())
    try:
        found = ppn.read(data.decode())
    except (ppn.PpnError, UnicodeDecodeError) as exc:
        raise ImportRefused(f"not a PPN game: {exc}") from None
    lines = ndjson_of(found)
    parsed = read_lines(lines, log.codec)
    if (differs := ppn.same_record(found, parsed.events)) is not None:
        raise ImportRefused(f"the PPN record was changed: {differs}")
    return await import_game(log, lines)


async def import_game(log: EventLog[game.Event], lines: Iterable[bytes | str]) -> Imported:
    """Import an exported game (see the module docstring); `ImportRefused` or
    `AlreadyImported` if it cannot be."""
    parsed = read_lines(lines, log.codec)
    try:
        state = game.fold(parsed.events)
    except Exception as exc:
        raise ImportRefused(f"the events do not fold into a game: {exc}") from None
    if not isinstance(state, game.PulkaClosed):
        raise ImportRefused("only a finished game is imported (this one is still being played)")
    players = [p for p in state.players if p is not None]
    try:
        player_ids = [uuid.UUID(p) for p in players]
    except ValueError:
        raise ImportRefused("the game's player ids are not ids this service issues") from None
    names = {p.id: p.name for p in parsed.header.players} if parsed.header else {}
    game_id = parsed.header.game_id if parsed.header else uuid7()
    stream_id = game_stream(game_id)
    ids = [
        event_id or uuid.uuid5(_EVENT_IDS, f"{game_id}:{version}")
        for version, event_id in enumerate(parsed.ids, start=1)
    ]
    new: list[NewEvent] = log.new_events(parsed.events, ids, Metadata(actor="import"), parsed.salts)
    guests = [
        (pid, names.get(str(pid)) or f"Guest {seat + 1}") for seat, pid in enumerate(player_ids)
    ]
    source = DealSource(seats=state.rules.players)
    summary = new_game_summary(game_id, state, source, created_by=None, imported=True)
    try:
        async with log.pool.acquire() as conn, conn.transaction():
            added = await add_guests(conn, guests)
            version = await log.write_new_stream(stream_id, new, summary=summary, conn=conn)
    except StreamConflict:
        raise AlreadyImported(f"game {game_id} is already here", game_id=str(game_id)) from None
    except DuplicateEventId:
        raise AlreadyImported("the events of this export are already stored here") from None
    log.committed(stream_id, version)
    return Imported(
        game_id=game_id,
        stream_id=stream_id,
        version=version,
        state=state,
        guests=tuple(added),
    )
