"""Opaque page cursors: the one codec every list of the API hands out and reads back.

A cursor is ``base64url("<kind>:<value>")``: the kind names the list it belongs to, so a cursor of
one list is refused by another, and the value is whatever that list resumes from (a game id, an
offset, a feed position). Clients must treat it as opaque; it is not a promise of its format.
"""

from __future__ import annotations

import base64
import binascii

from service.exceptions import InvalidCursor

MAX_CURSOR = 256
"""Characters; no cursor of ours is longer."""


def encode_cursor(kind: str, value: str) -> str:
    raw = f"{kind}:{value}".encode()
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def decode_cursor(kind: str, cursor: str) -> str:
    """The value of a ``kind`` cursor; `InvalidCursor` for anything else."""
    if not isinstance(cursor, str) or not 0 < len(cursor) <= MAX_CURSOR:
        raise InvalidCursor(f"not a cursor of this list: {cursor!r}")
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()
    except (ValueError, binascii.Error, UnicodeDecodeError):
        raise InvalidCursor(f"not a cursor of this list: {cursor!r}") from None
    found, sep, value = raw.partition(":")
    if found != kind or not sep or encode_cursor(kind, value) != cursor:  # only our own spelling
        raise InvalidCursor(f"not a cursor of this list: {cursor!r}")
    return value


def decode_int_cursor(kind: str, cursor: str, *, maximum: int = (1 << 63) - 1) -> int:
    """An integer cursor value in ``0 .. maximum``; `InvalidCursor` otherwise."""
    value = decode_cursor(kind, cursor)
    if not value.isdigit() or len(value) > 19 or int(value) > maximum:
        raise InvalidCursor(f"not a cursor of this list: {cursor!r}")
    return int(value)
