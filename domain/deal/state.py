"""The state of one deal: a union of phase structs, each frozen.

Every phase after the deal carries the table (`DealTable`): the rules, the seats and where every
card is. The 32 cards are always in exactly one place: a hand, the talon, the discard, the trick
on the table, the turned talon cards of an all-pass, or the pile of played tricks.
"""

from __future__ import annotations

from typing import TypedDict

import msgspec

from domain.cards import Seat
from domain.outcome import DealKind, DealOutcome, DefenderRole
from domain.rules import Rules

Hands = tuple[tuple[str, ...], ...]


class AwaitingDeal(msgspec.Struct, frozen=True, kw_only=True):
    """Nothing dealt yet."""

    rules: Rules


class DealTable(msgspec.Struct, frozen=True, kw_only=True):
    """What every phase of a dealt deal shares."""

    rules: Rules
    dealer: Seat
    order: tuple[Seat, Seat, Seat]
    """The active seats: first hand (forehand, left of the dealer), second, third."""
    hands: Hands
    """``hands[seat]``: the cards in that seat's hand (empty for a sitting-out dealer)."""
    talon: tuple[str, ...]
    """Talon cards (прикуп) still face down."""
    min_level: int = 6
    looked: tuple[Seat, ...] = ()
    """Seats that have looked at their cards (all of them unless dark games are on)."""
    dark_passers: tuple[Seat, ...] = ()
    auction: tuple[tuple[Seat, str, str], ...] = ()
    """The public auction: (seat, call, note) with call a bid or "PASS" and note "", "hold" or
    "dark"."""
    shown_talon: tuple[str, ...] = ()
    """Talon cards that everyone has seen (taken face up, or turned on an all-pass)."""
    open_hands: tuple[Seat, ...] = ()
    """Seats whose hands lie face up for everyone (open whist, misère catchers, totus, a 10
    checked)."""
    peeks: tuple[tuple[Seat, Seat], ...] = ()
    """(viewer, hand): a hand shown to one seat alone (the dealer at four, asked whether he
    whists, looks at the cards of one of the declarer's opponents)."""

    @property
    def seats(self) -> int:
        return len(self.hands)

    def next_seat(self, seat: Seat) -> Seat:
        """The next active seat clockwise."""
        order = self.order
        return order[(order.index(seat) + 1) % 3]


class Bidding(DealTable, frozen=True, kw_only=True):
    """The auction (торговля)."""

    turn: Seat
    passed: tuple[Seat, ...] = ()
    highest: str | None = None
    highest_by: Seat | None = None
    highest_dark: bool = False
    bidders: tuple[Seat, ...] = ()
    """Seats that have made a trick bid (they may no longer bid misère)."""
    miser_by: Seat | None = None
    opened_by: Seat | None = None
    """The first seat to make a bid (the "starter" hold rule)."""
    hold_lost: tuple[Seat, ...] = ()
    """Seniors who let their first chance to hold pass (``bidding.hold_lapses``)."""


class Contracted(DealTable, frozen=True, kw_only=True):
    """Phases with a declarer."""

    declarer: Seat
    bid: str | None
    """The winning bid; None after a silent take of the talon."""
    dark: bool = False
    discard: tuple[str, ...] = ()


class AwaitingTalon(Contracted, frozen=True, kw_only=True):
    """The auction is won; the declarer is to take the talon."""


class Discarding(Contracted, frozen=True, kw_only=True):
    """The declarer holds twelve cards and puts two away (снос)."""


class TotusDiscarding(Contracted, frozen=True, kw_only=True):
    """Classic totus: the first opponent chooses the declarer's discard."""

    strain: str


class Declaring(Contracted, frozen=True, kw_only=True):
    """The discard is made; the declarer names the contract (заказ)."""


class Whisting(Contracted, frozen=True, kw_only=True):
    """The opponents say whist (вист), pass or half-whist, in turn; once the calls are complete
    with a single whister, he chooses open or closed play."""

    contract: str
    totus: bool = False
    calls: tuple[tuple[Seat, str], ...] = ()


class PendingClaim(msgspec.Struct, frozen=True, kw_only=True):
    """A claim waiting for its answers (`domain.deal.claims`)."""

    seat: Seat
    tricks: int
    """The tricks the claimer takes of the ``remaining`` ones."""
    remaining: int
    asked: tuple[Seat, ...]
    accepted: tuple[Seat, ...] = ()


class Playing(DealTable, frozen=True, kw_only=True):
    """Cards are played trick by trick (розыгрыш), in a contract, misère or all-pass."""

    kind: DealKind
    declarer: Seat | None = None
    contract: str | None = None
    bid: str | None = None
    dark: bool = False
    totus: bool = False
    discard: tuple[str, ...] = ()
    defenders: tuple[DefenderRole, ...] = ()
    open_play: bool = False
    checked: bool = False
    trump: str | None = None
    controllers: tuple[Seat, ...] = ()
    """``controllers[hand]``: the seat that plays that hand's cards (-1: nobody)."""
    turn: Seat
    trick: tuple[tuple[Seat, str], ...] = ()
    talon_card: str | None = None
    """All-pass: the turned talon card setting the suit of the current trick."""
    turned: tuple[str, ...] = ()
    """All-pass: talon cards already turned up."""
    tricks: tuple[int, ...]
    """Tricks won per seat."""
    tricks_played: int = 0
    played: tuple[str, ...] = ()
    """Cards of finished tricks."""
    last_trick: tuple[tuple[Seat, str], ...] = ()
    claim: PendingClaim | None = None
    """A claim waiting for answers; play waits with it."""
    claimed: tuple[tuple[Seat, int], ...] = ()
    """``(seat, trick)`` of every claim made this deal, the trick counted from 0: a seat makes
    at most one claim per trick (`domain.deal.claims`)."""


class DealFinished(DealTable, frozen=True, kw_only=True):
    """The deal is over."""

    outcome: DealOutcome
    discard: tuple[str, ...] = ()
    played: tuple[str, ...] = ()
    turned: tuple[str, ...] = ()
    last_trick: tuple[tuple[Seat, str], ...] = ()


DealState = (
    AwaitingDeal
    | Bidding
    | AwaitingTalon
    | Discarding
    | TotusDiscarding
    | Declaring
    | Whisting
    | Playing
    | DealFinished
)


def active_order(dealer: Seat, seats: int) -> tuple[Seat, Seat, Seat]:
    """First, second and third hand: clockwise from the dealer's left. At three the dealer is the
    third hand; at four he sits out (docs/rules.md §A)."""
    return ((dealer + 1) % seats, (dealer + 2) % seats, (dealer + 3) % seats)


def own_controllers(state: DealTable) -> tuple[Seat, ...]:
    """Every active seat plays its own hand; -1 for a sitting-out dealer."""
    return tuple(s if s in state.order else -1 for s in range(state.seats))


class TableFields(TypedDict):
    """The fields of `DealTable`, carried from one phase struct into the next."""

    rules: Rules
    dealer: Seat
    order: tuple[Seat, Seat, Seat]
    hands: Hands
    talon: tuple[str, ...]
    min_level: int
    looked: tuple[Seat, ...]
    dark_passers: tuple[Seat, ...]
    auction: tuple[tuple[Seat, str, str], ...]
    shown_talon: tuple[str, ...]
    open_hands: tuple[Seat, ...]
    peeks: tuple[tuple[Seat, Seat], ...]


class ContractFields(TableFields):
    """The fields of `Contracted`."""

    declarer: Seat
    bid: str | None
    dark: bool
    discard: tuple[str, ...]


def table_fields(state: DealTable) -> TableFields:
    """The shared table fields of ``state``, to carry into the next phase.

    Spelt out rather than read from ``__struct_fields__``: the fold builds a new phase struct
    from these, and the literal is 2.5× faster than a comprehension over ``getattr`` (0.25 µs
    against 0.62 µs); a unit test keeps the keys equal to the struct's fields.
    """
    return {
        "rules": state.rules,
        "dealer": state.dealer,
        "order": state.order,
        "hands": state.hands,
        "talon": state.talon,
        "min_level": state.min_level,
        "looked": state.looked,
        "dark_passers": state.dark_passers,
        "auction": state.auction,
        "shown_talon": state.shown_talon,
        "open_hands": state.open_hands,
        "peeks": state.peeks,
    }


def contract_fields(state: Contracted) -> ContractFields:
    """The fields of `Contracted` (the table and the contract so far) of ``state``."""
    return {
        "rules": state.rules,
        "dealer": state.dealer,
        "order": state.order,
        "hands": state.hands,
        "talon": state.talon,
        "min_level": state.min_level,
        "looked": state.looked,
        "dark_passers": state.dark_passers,
        "auction": state.auction,
        "shown_talon": state.shown_talon,
        "open_hands": state.open_hands,
        "peeks": state.peeks,
        "declarer": state.declarer,
        "bid": state.bid,
        "dark": state.dark,
        "discard": state.discard,
    }
