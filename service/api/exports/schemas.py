"""The bodies of the open data's routes: the dumps' list."""

from __future__ import annotations

import uuid
from datetime import datetime

import msgspec


class DumpView(msgspec.Struct, frozen=True, kw_only=True):
    """A dump of every finished rated game (docs/ppn.md, Dumps)."""

    name: str
    """The compressed file (``GET /v1/dumps/{name}``)."""
    url: str
    created_at: datetime
    games: int
    events: int
    bytes: int
    sha256: str
    """SHA-256 (hex) of the compressed file."""
    checksum_url: str
    """The checksum as ``sha256sum -c`` reads it."""
    heads_url: str
    """A line per game: its id and its hash chain's head."""
    pseudonymised: bool
    """Players named by pseudonyms of this dump only, never by id or name."""
    format: str
    through: uuid.UUID | None = None


class DumpList(msgspec.Struct, frozen=True, kw_only=True):
    items: list[DumpView]
