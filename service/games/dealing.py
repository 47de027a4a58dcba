"""Where a game's cards come from: fixed layouts for its first deals, then a derived deck.

The deal source (`DealSource`) is fixed when the game is created and never changes. Deal ``n``
is the ``n``-th fixed layout if the game was given that many; after them its deck is
`domain.fairness.deck_for` of the game's secret, the players' client seeds and ``n``
(docs/fairness.md).

A game created since migration 0018 (``fairness`` 2) is dealt by the database: its secret is
drawn there (``api.draw_secret``; the service gets only the commitment) and each due deal's
cards come from ``api.due_deal``, fetched before the service's `Deal` command is decided and
handed to it (`DueDeal`). Its source holds no secret, seed or layouts once
created. A game created before (``fairness`` 1) keeps its source, secret included, until it
is over: its secret was drawn in the service (`new_source`: 32 bytes from the service's entropy) or,
for a seeded game, is the seed itself. Either way dealing is a pure function of what the
command brings and the game state, and `decide_game` stays pure.

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


class DueDeal(msgspec.Struct, frozen=True, kw_only=True):
    """The due deal of a game dealt by the database (``api.due_deal``): its number, and its
    deck or the creator's layout."""

    deal_no: int
    deck: tuple[str, ...] | None = None
    layout: Layout | None = None


class DealNotDue(Exception):
    """The database refused the deal asked for (``api.due_deal``): not the due one (another
    process dealt it first), a deal still played, or the game is over."""


class DealSource(msgspec.Struct, frozen=True, kw_only=True):
    """Where a game's deals come from: ``layouts`` first, then a seeded or a fresh shuffle."""

    seats: int
    layouts: tuple[Layout, ...] = ()
    seed: str | None = None
    secret: bytes | None = None
    """What the decks are derived from; None for a game created before commitments, and for
    every game the database deals (``fairness`` 2: it never leaves the database)."""
    scheme: fairness.Scheme = 1
    """The derivation (``fairness`` in `GameCreated`): 2 for a game the database deals."""
    committed: str | None = None
    """A database-drawn secret's commitment (``api.draw_secret``), for a new random game."""

    @property
    def dealing(self) -> fairness.Dealing:
        """How the game is dealt, as every view discloses it."""
        return "fixed" if self.layouts else "seeded" if self.seed is not None else "random"

    @property
    def commitment(self) -> str | None:
        """The published commitment: only to a drawn secret. A seed may be guessable, and its
        hash would give it away, so a seeded game commits to nothing (its seed is revealed at
        the end and reproduces every deck)."""
        if self.seed is not None:
            return None
        if self.committed is not None:
            return self.committed
        if self.secret is None:
            return None
        return fairness.commitment(self.secret)

    def cards_for(self, state: Pulka, entropy: bytes) -> DealCards:
        """The `DealCards` of the deal after ``state`` (number ``state.deal_no + 1``) of a game
        dealt here (``fairness`` 1, or created before commitments)."""
        deal_no, dealer = state.deal_no + 1, state.next_dealer
        if deal_no <= len(self.layouts):
            return laid_out(self.layouts[deal_no - 1], self.seats, dealer)
        if self.secret is not None:
            deck = fairness.deck_for(self.secret, deal_seeds(state), deal_no)
            dealt, cut = fairness.deal_hands(deck, self.seats, dealer)
            return DealCards(hands=dealt, talon=cut)
        if self.seed is not None:
            rng = random.Random(f"{self.seed}:{deal_no}")
        else:
            rng = random.Random(entropy + deal_no.to_bytes(4, "big"))
        return random_deal(rng, self.seats, dealer)


def laid_out(layout: Layout, seats: int, dealer: int) -> DealCards:
    """A creator's layout as `DealCards` (at four, the dealer's empty hand put in)."""
    talon = (layout.talon[0], layout.talon[1])
    if len(layout.hands) == seats:
        return DealCards(hands=layout.hands, talon=talon)
    active = [s for s in range(seats) if not (seats == 4 and s == dealer)]
    hands: list[tuple[str, ...]] = [() for _ in range(seats)]
    for seat, hand in zip(active, layout.hands, strict=True):
        hands[seat] = hand
    return DealCards(hands=tuple(hands), talon=talon)


def due_cards(due: DueDeal, state: Pulka) -> DealCards:
    """The `DealCards` of the database's due deal after ``state`` (a ``fairness`` 2 game)."""
    seats, dealer = state.rules.players, state.next_dealer
    if due.layout is not None:
        return laid_out(due.layout, seats, dealer)
    assert due.deck is not None, "the database gives a deck or a layout"
    dealt, cut = fairness.deal_hands(due.deck, seats, dealer)
    return DealCards(hands=dealt, talon=cut)


def new_source(
    seats: int,
    layouts: Sequence[Layout] = (),
    seed: str | None = None,
    entropy: Entropy = SYSTEM_ENTROPY,
) -> DealSource:
    """A source as every game had before migration 0018 (``fairness`` 1), with its secret: the
    seed's bytes, else drawn from ``entropy``. The service makes `database_source`s now; this
    stays for the pure tests of the first scheme and for the games still dealt with it."""
    secret = fairness.seed_secret(seed) if seed is not None else entropy.secret(SECRET_BYTES)
    return DealSource(seats=seats, layouts=tuple(layouts), seed=seed, secret=secret)


def database_source(
    seats: int, layouts: Sequence[Layout] = (), seed: str | None = None
) -> DealSource:
    """A new game's source, dealt by the database (``fairness`` 2): no secret here. A random
    game's is drawn there when it is created (`service.games.lobby.Lobby.draw_secret`, which
    gives the commitment), a seeded game's is its seed."""
    return DealSource(seats=seats, layouts=tuple(layouts), seed=seed, scheme=2)
