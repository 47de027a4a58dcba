"""The hash chain over a stream, as ``es.event_hash`` computes it (docs/fairness.md).

Each event's hash is SHA-256 over the UTF-8 lines::

    <previous hash, hex (64 zeros before version 1)>
    <stream id>            game-0190…
    <version>              1, 2, 3 …
    <event id>             0190…-…, lowercase with dashes
    <event type>           player_seated
    <schema version>       2
    <salt>                 16 random bytes, hex: never served while the game is played
    <data>                 the event's JSON as PostgreSQL's jsonb prints it (`jsonb_text`)

The salt keeps a hash from telling hidden cards: a seat that knows its own hand could otherwise
try each of the ~10^8 ways of dealing the others against the hash of the deal.

PostgreSQL computes it inside ``es.append``; this module recomputes it: to check a log
(`service.games.proof`) and to know a command's new head before it is written (the response is
rendered before the write, `service.eventlog.handler`).
"""

from __future__ import annotations

import hashlib
import json
import uuid
from collections.abc import Sequence
from typing import Any

GENESIS = bytes(32)
"""The previous hash of a stream's first event."""

_encode_string = json.JSONEncoder(ensure_ascii=False).encode


def jsonb_text(value: Any) -> str:
    """``value`` as jsonb's text output prints it: object keys shortest first, then bytewise
    (how jsonb stores them), ``", "`` and ``": "`` between items, strings with JSON's escapes
    only (no ``\\u`` for non-ASCII). Integers, strings, booleans and null only: events hold no
    floats."""
    if isinstance(value, dict):
        keys = sorted(value, key=lambda k: (len(k.encode()), k.encode()))
        return "{" + ", ".join(f"{_encode_string(k)}: {jsonb_text(value[k])}" for k in keys) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(jsonb_text(item) for item in value) + "]"
    if isinstance(value, str):
        return _encode_string(value)
    if value is True or value is False or value is None:
        return _SCALARS[value]
    if isinstance(value, int):
        return int.__repr__(value)
    if isinstance(value, float):
        raise TypeError("events hold no floats: jsonb would print them its own way")
    return json.dumps(value, ensure_ascii=False)


_SCALARS = {True: "true", False: "false", None: "null"}
"""json.dumps's spelling of each, without the encoder it makes per call (a command hashes
every scalar of its events)."""


def canonical_bytes(
    prev: bytes,
    stream_id: str,
    version: int,
    event_id: uuid.UUID | str,
    event_type: str,
    schema_version: int,
    salt: bytes,
    data: Any,
) -> bytes:
    """The bytes an event's hash is taken over; ``data`` is the decoded JSON object."""
    lines = (
        prev.hex(), stream_id, str(version), str(event_id), event_type, str(schema_version),
        salt.hex(),
    )  # fmt: skip
    return ("\n".join(lines) + "\n" + jsonb_text(data)).encode()


def event_hash(
    prev: bytes,
    stream_id: str,
    version: int,
    event_id: uuid.UUID | str,
    event_type: str,
    schema_version: int,
    salt: bytes,
    data: Any,
) -> bytes:
    """SHA-256 of `canonical_bytes`."""
    return hashlib.sha256(
        canonical_bytes(prev, stream_id, version, event_id, event_type, schema_version, salt, data)
    ).digest()


Link = tuple[uuid.UUID, str, int, bytes, Any]
"""An event as the chain sees it: id, type, schema version, salt, decoded data."""


def extend(head: bytes, stream_id: str, first_version: int, events: Sequence[Link]) -> bytes:
    """The head after appending ``events`` at ``first_version`` onto a stream whose head is
    ``head``."""
    for offset, (event_id, event_type, schema_version, salt, data) in enumerate(events):
        version = first_version + offset
        head = event_hash(
            head, stream_id, version, event_id, event_type, schema_version, salt, data
        )
    return head
