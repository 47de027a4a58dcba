"""Provably fair deals: the commitment to a game's secret, and each deal's deck derived from it.

When a game is created a secret is drawn and its `commitment` (SHA-256) published in
`GameCreated`; each player contributes a client seed as he sits down (`PlayerSeated`). Deal
``n``'s deck is then `deck_for(secret, seeds, n, scheme)`: a hash of the secret, the seeds and
the deal number, read as a byte stream by an unbiased Fisher–Yates shuffle (rejection
sampling). Scheme 1 (``preferans-deal-v1``) reads SHAKE-256; scheme 2 (``preferans-deal-v2``,
every game created since migration 0018) reads SHA-256 in counter mode, which PostgreSQL can
compute, so that the database deals and the secret never leaves it. The secret is revealed
when the game ends (`SecretRevealed`), and anyone can recompute every deck (docs/fairness.md).
Neither the server (committed before the seeds exist) nor a player (who does not know the
secret) can choose the cards alone.

Pure: the secret comes in as data; drawing it is the service's (or the database's) business.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Sequence
from typing import Literal

from domain.cards import DECK, SORT_KEY

Dealing = Literal["random", "seeded", "fixed"]
"""How a game is dealt: ``random`` (a secret drawn by the service, committed, mixed with the
players' seeds), ``seeded`` (a seed the creator chose: whoever knows it knows every hand;
the players' seeds are not mixed in, so that the same seed deals the same cards anywhere) or
``fixed`` (the first deals laid out by the creator). Only ``random`` games are rated."""

Scheme = Literal[1, 2]
"""A derivation: 1 reads SHAKE-256 (games created before migration 0018), 2 SHA-256 in counter
mode (every game since: the database derives it, docs/fairness.md)."""

DERIVATIONS: dict[int, str] = {1: "preferans-deal-v1", 2: "preferans-deal-v2"}
"""Each scheme's name, the first line of its input (a new one gets a new name)."""

DERIVATION: str = DERIVATIONS[1]
"""The first scheme's name."""

CURRENT: Scheme = 2
"""The scheme a new game is dealt with."""


def commitment(secret: bytes) -> str:
    """The published commitment to ``secret``: its SHA-256, in hex."""
    return hashlib.sha256(secret).hexdigest()


def seed_secret(seed: str) -> bytes:
    """A seeded game's secret: the seed's UTF-8 bytes (so the seed alone reproduces it)."""
    return seed.encode()


def derivation_input(
    secret: bytes, seeds: Sequence[str], deal_no: int, scheme: Scheme = 1
) -> bytes:
    """The bytes the hash reads for deal ``deal_no``: lines of the scheme's name, the secret in
    hex, the deal number and the SHA-256 (hex) of each client seed in order."""
    lines = [DERIVATIONS[scheme], secret.hex(), str(deal_no)]
    lines += [hashlib.sha256(seed.encode()).hexdigest() for seed in seeds]
    return "\n".join(lines).encode()


def _stream(data: bytes) -> Iterator[int]:
    """SHAKE-256's output bytes, as many as are read (a longer output extends a shorter one)."""
    xof, length, start = hashlib.shake_256(data), 64, 0
    while True:
        chunk = xof.digest(length)
        yield from chunk[start:]
        start, length = length, length * 2


def _counter_stream(data: bytes) -> Iterator[int]:
    """SHA-256 in counter mode: block k is sha256(data || k as 4 bytes big-endian), k = 0, 1, …
    (PostgreSQL has ``sha256(bytea)``, not SHAKE-256)."""
    for k in range(2**32):
        yield from hashlib.sha256(data + k.to_bytes(4, "big")).digest()
    raise AssertionError("a shuffle reads a few dozen bytes, never 2^37")  # pragma: no cover


def shuffled(data: bytes, scheme: Scheme = 1) -> tuple[str, ...]:
    """The 32 cards of `DECK` shuffled by Fisher–Yates over the scheme's byte stream of
    ``data``: for i from 31 down to 1, read bytes until one is below the largest multiple of
    i + 1 that fits in 256 (so every j is equally likely), and swap card i with card
    j = byte mod (i + 1)."""
    deck, stream = list(DECK), (_stream(data) if scheme == 1 else _counter_stream(data))
    for i in range(len(deck) - 1, 0, -1):
        n = i + 1
        limit = 256 - 256 % n
        byte = next(stream)
        while byte >= limit:
            byte = next(stream)
        j = byte % n
        deck[i], deck[j] = deck[j], deck[i]
    return tuple(deck)


def deck_for(
    secret: bytes, seeds: Sequence[str], deal_no: int, scheme: Scheme = 1
) -> tuple[str, ...]:
    """Deal ``deal_no``'s deck by ``scheme``: ten cards to each active seat in seat order (the
    dealer at four sits out), then the two of the talon."""
    return shuffled(derivation_input(secret, seeds, deal_no, scheme), scheme)


def deal_hands(
    deck: Sequence[str], seats: int, dealer: int
) -> tuple[tuple[tuple[str, ...], ...], tuple[str, str]]:
    """The hands (one per seat, in deck order as `DealStarted` lists them; empty for the dealer
    at four) and the talon, in the deck's order, of a deck."""
    hands: list[tuple[str, ...]] = []
    dealt = 0
    for seat in range(seats):
        if seats == 4 and seat == dealer:
            hands.append(())
            continue
        hands.append(tuple(sorted(deck[dealt : dealt + 10], key=SORT_KEY.__getitem__)))
        dealt += 10
    return tuple(hands), (deck[30], deck[31])


def reveals(secret_hex: str, committed: str) -> bool:
    """Whether ``secret_hex`` opens the commitment ``committed``."""
    try:
        return commitment(bytes.fromhex(secret_hex)) == committed
    except ValueError:
        return False
