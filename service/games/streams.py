"""Stream ids: a game is the event stream ``game-<game id>``, and nothing else knows the prefix."""

from __future__ import annotations

import uuid

GAME_STREAM_PREFIX = "game-"


def game_stream(game_id: uuid.UUID | str) -> str:
    """The stream of a game."""
    return f"{GAME_STREAM_PREFIX}{game_id}"


def game_id_of(stream_id: str) -> str | None:
    """The game id of a game stream; None for any other stream."""
    if stream_id.startswith(GAME_STREAM_PREFIX):
        return stream_id[len(GAME_STREAM_PREFIX) :]
    return None
