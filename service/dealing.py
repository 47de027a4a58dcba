"""Where a game's cards come from: fixed layouts for its first deals, then a shuffle.

The deal source (`DealSource`) is fixed when the game is created and never changes. Deal ``n``
is the ``n``-th fixed layout if the game was given that many; after them it is a shuffle,
reproducible from ``random.Random(f"{seed}:{n}")`` for a seeded game, or from the fresh entropy
each command brings with it (`os.urandom`, drawn by the service) for any other game. So dealing
is a pure function of the source, the game state and that entropy, and `decide_game` stays pure.

The source tells every hand to come, so it is kept apart from the log and never served.
"""

from __future__ import annotations

import random

import msgspec

from domain.cards import DECK, parse_card
from domain.errors import InvalidLayout
from domain.game import DealCards, Pulka
from domain.simulation import random_deal

ENTROPY_BYTES = 32
"""Fresh randomness per command, enough for a 32-card shuffle (log2 32! ≈ 118 bits)."""

_CANONICAL = frozenset(DECK)


class Layout(msgspec.Struct, frozen=True, kw_only=True):
    """One deal's cards: ``hands`` per seat (three, or four with the dealer's empty, at a table
    of four) and the ``talon`` in order."""

    hands: tuple[tuple[str, ...], ...]
    talon: tuple[str, ...]


def _card(text: str) -> str:
    return text if text in _CANONICAL else parse_card(text)


def check_layout(layout: Layout, seats: int) -> Layout:
    """The layout in canonical notation; `NotationError` or `InvalidLayout` if it is no deal."""
    hands = tuple(tuple(_card(c) for c in hand) for hand in layout.hands)
    talon = tuple(_card(c) for c in layout.talon)
    if len(talon) != 2:
        raise InvalidLayout(f"the talon holds 2 cards, not {len(talon)}")
    sizes = sorted(len(h) for h in hands)
    if sizes != [10, 10, 10] and not (seats == 4 and sizes == [0, 10, 10, 10]):
        raise InvalidLayout(
            f"a table of {seats} is dealt three hands of ten"
            + (" (or four, the dealer's empty)" if seats == 4 else "")
        )
    cards = [c for hand in hands for c in hand] + list(talon)
    if len(cards) != 32 or set(cards) != _CANONICAL:
        raise InvalidLayout("the hands and the talon must hold each of the 32 cards exactly once")
    return Layout(hands=hands, talon=talon)


class DealSource(msgspec.Struct, frozen=True, kw_only=True):
    """Where a game's deals come from: ``layouts`` first, then a seeded or a fresh shuffle."""

    seats: int
    layouts: tuple[Layout, ...] = ()
    seed: str | None = None

    def cards_for(self, state: Pulka, entropy: bytes) -> DealCards:
        """The `DealCards` of the deal after ``state`` (number ``state.deal_no + 1``)."""
        deal_no, dealer = state.deal_no + 1, state.next_dealer
        if deal_no <= len(self.layouts):
            layout = self.layouts[deal_no - 1]
            talon = (layout.talon[0], layout.talon[1])
            if len(layout.hands) == self.seats:
                return DealCards(hands=layout.hands, talon=talon)
            active = [s for s in range(self.seats) if not (self.seats == 4 and s == dealer)]
            hands: list[tuple[str, ...]] = [() for _ in range(self.seats)]
            for seat, hand in zip(active, layout.hands, strict=True):
                hands[seat] = hand
            return DealCards(hands=tuple(hands), talon=talon)
        if self.seed is not None:
            rng = random.Random(f"{self.seed}:{deal_no}")
        else:
            rng = random.Random(entropy + deal_no.to_bytes(4, "big"))
        return random_deal(rng, self.seats, dealer)
