"""Verifiable draws: seats, first dealers, schedules and duplicate decks from a committed secret.

As with deals (domain/fairness.py, docs/fairness.md): the service draws a round's secret and
publishes its SHA-256 commitment one round ahead (round 1's in `TournamentCreated`, round r+1's
in round r's `RoundStarted`), before the field of the round is known. The round's seats and first
dealers are read from SHAKE-256 over the secret, the round, the table and its players' check-in
seeds; the secret is revealed in `RoundEnded`, and anyone can recompute every draw. A duplicate
event's decks come from one more secret, committed at creation and revealed at the end.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Sequence
from typing import TypeVar

from domain.fairness import shuffled

T = TypeVar("T")

SEATING: str = "preferans-tournament-seating-v1"
SCHEDULE: str = "preferans-tournament-schedule-v1"
DUPLICATE: str = "preferans-duplicate-deal-v1"


class Draw:
    """An unbiased stream of choices read from SHAKE-256(``data``)."""

    def __init__(self, data: bytes) -> None:
        self._bytes = _stream(data)

    def below(self, n: int) -> int:
        """A number in ``range(n)``, every one equally likely (rejection sampling)."""
        if n <= 1:
            return 0
        width = (n - 1).bit_length() + 7 >> 3
        span = 256**width
        limit = span - span % n
        while True:
            value = int.from_bytes(bytes(next(self._bytes) for _ in range(width)), "big")
            if value < limit:
                return value % n

    def shuffle(self, items: Sequence[T]) -> list[T]:
        """``items`` in a Fisher–Yates order."""
        out = list(items)
        for i in range(len(out) - 1, 0, -1):
            j = self.below(i + 1)
            out[i], out[j] = out[j], out[i]
        return out


def _stream(data: bytes) -> Iterator[int]:
    xof, length, start = hashlib.shake_256(data), 64, 0
    while True:
        chunk = xof.digest(length)
        yield from chunk[start:]
        start, length = length, length * 2


def _lines(*parts: str) -> bytes:
    return "\n".join(parts).encode()


def seating_draw(
    secret: bytes, round_no: int, table_no: int, players: Sequence[str], seeds: Sequence[str]
) -> Draw:
    """The draw of one table: over the secret, round, table, the players (sorted) and the
    SHA-256 of each player's check-in seed in the same order."""
    names = sorted(players)
    hashed = [hashlib.sha256(seed.encode()).hexdigest() for seed in seeds]
    return Draw(_lines(SEATING, secret.hex(), str(round_no), str(table_no), *names, *hashed))


def seat_table(
    secret: bytes, round_no: int, table_no: int, players: Sequence[str], seeds: Sequence[str]
) -> tuple[tuple[str, ...], int]:
    """The seating (players in seat order) and the first dealer's seat of a table."""
    draw = seating_draw(secret, round_no, table_no, players, seeds)
    seating = tuple(draw.shuffle(sorted(players)))
    return seating, draw.below(len(seating))


def schedule_draw(secret: bytes, stage: int, players: Sequence[str]) -> Draw:
    """The randomness a schedule made in advance is searched with."""
    return Draw(_lines(SCHEDULE, secret.hex(), str(stage), *sorted(players)))


def duplicate_deck(secret: bytes, round_no: int, deal_no: int) -> tuple[str, ...]:
    """The deck of deal ``deal_no`` of round ``round_no``, the same at every table."""
    return shuffled(_lines(DUPLICATE, secret.hex(), str(round_no), str(deal_no)))
