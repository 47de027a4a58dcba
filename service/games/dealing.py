"""Where a game's cards come from: fixed layouts for its first deals, then a derived deck.

The deal source (`DealSource`) is fixed when the game is created and never changes. Deal ``n``
is the ``n``-th fixed layout if the game was given that many; after them its deck is
`domain.fairness.deck_for` of the game's ``secret``, the players' client seeds and ``n``
(docs/fairness.md). The secret is drawn here (`new_source`: 32 bytes from the service's
entropy, `secrets` in a running service, committed to in `GameCreated`) or, for a seeded game,
is the seed itself. So dealing is a pure function of
the source and the game state, and `decide_game` stays pure.

Games created before commitments have no secret: theirs shuffle as they always did, from
``random.Random(f"{seed}:{n}")`` or from the fresh entropy each command brings.

The source tells every hand to come, so it is kept apart from the log and never served; the
secret is revealed in the log once the game is over.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

import msgspec

from domain import fairness
from domain.cards import DECK, parse_card
from domain.errors import InvalidLayout
from domain.game import DealCards, Pulka, deal_seeds
from domain.simulation import random_deal
from service.platform.entropy import SYSTEM_ENTROPY, Entropy

ENTROPY_BYTES = 32
"""Fresh randomness per command, enough for a 32-card shuffle (log2 32! ≈ 118 bits)."""
SECRET_BYTES = 32
"""A game's secret: 256 bits, so that its commitment cannot be inverted."""

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
    secret: bytes | None = None
    """What the decks are derived from; None for a game created before commitments."""

    @property
    def dealing(self) -> fairness.Dealing:
        """How the game is dealt, as every view discloses it."""
        return "fixed" if self.layouts else "seeded" if self.seed is not None else "random"

    @property
    def commitment(self) -> str | None:
        """The published commitment: only to a drawn secret. A seed may be guessable, and its
        hash would give it away, so a seeded game commits to nothing (its seed is revealed at
        the end and reproduces every deck)."""
        if self.secret is None or self.seed is not None:
            return None
        return fairness.commitment(self.secret)

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
        if self.secret is not None:
            deck = fairness.deck_for(self.secret, deal_seeds(state), deal_no)
            dealt, cut = fairness.deal_hands(deck, self.seats, dealer)
            return DealCards(hands=dealt, talon=cut)
        if self.seed is not None:
            rng = random.Random(f"{self.seed}:{deal_no}")
        else:
            rng = random.Random(entropy + deal_no.to_bytes(4, "big"))
        return random_deal(rng, self.seats, dealer)


def new_source(
    seats: int,
    layouts: Sequence[Layout] = (),
    seed: str | None = None,
    entropy: Entropy = SYSTEM_ENTROPY,
) -> DealSource:
    """A new game's source, with its secret: the seed's bytes, else drawn from ``entropy``."""
    secret = fairness.seed_secret(seed) if seed is not None else entropy.secret(SECRET_BYTES)
    return DealSource(seats=seats, layouts=tuple(layouts), seed=seed, secret=secret)
