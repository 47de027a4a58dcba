"""Ratings and the leaderboard on the wire."""

from __future__ import annotations

import msgspec

from service.players.accounts import PlayerKind


class RatingHistoryLine(msgspec.Struct, frozen=True, kw_only=True):
    game_id: str
    game_no: int
    at: str
    """When the game ended (ISO 8601)."""
    result: int
    place: int
    players: int
    weight: int
    """How much the game counted, in percent of an ordinary game (``table.rating_weight``: a
    tournament's tables take the event's weight)."""
    rating_before: float
    rating: float
    mu: float
    sigma: float


class RatingView(msgspec.Struct, frozen=True, kw_only=True):
    """A player's rating (openskill Plackett–Luce, ranked by settlement result)."""

    player_id: str
    kind: PlayerKind
    """``bot``: one of the service's computer players; ``program``: a client's own bot."""
    rating: float
    """The conservative rating shown and ranked: ``mu − 3·sigma``."""
    mu: float
    sigma: float
    games: int
    provisional: bool
    """Fewer than 5 finished games."""
    history: tuple[RatingHistoryLine, ...]


class LeaderboardEntryView(msgspec.Struct, frozen=True, kw_only=True):
    rank: int
    player_id: str
    name: str
    kind: PlayerKind
    """Computer players (``bot``, ``program``) are ranked with everyone, and flagged."""
    rating: float
    mu: float
    sigma: float
    games: int
    provisional: bool


class LeaderboardPage(msgspec.Struct, frozen=True, kw_only=True):
    items: tuple[LeaderboardEntryView, ...]
    total: int
    """Rated players."""
    next_cursor: str | None
