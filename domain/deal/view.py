"""What a seat may see (docs/rules.md §C, §E.2): the only door through which cards leave the domain.

A seat sees its own hand (once it has looked, in dark games), the talon only once it is shown,
the discard only if it is the declarer's, other hands only when open play, a misère, a totus or a
checked 10 lays them face up (or, to the dealer at four alone, the opponent's hand he looked at
before whisting), and the cards of the current and the last trick. A spectator
(``viewer=None``) sees only what lies face up.
"""

from __future__ import annotations

from typing import Literal, TypedDict, get_args

import msgspec

from domain.cards import Seat
from domain.deal.messages import (
    CardsLooked,
    DealEvent,
    DealStarted,
    Discarded,
    HandLookedAt,
    TalonTaken,
)
from domain.deal.state import (
    AwaitingDeal,
    Bidding,
    Contracted,
    DealFinished,
    DealState,
    Playing,
    Whisting,
)
from domain.outcome import DealOutcome, DefenderRole


class AuctionCall(msgspec.Struct, frozen=True, kw_only=True):
    seat: Seat
    call: str
    """A bid (``"6S"``, ``"MISER"``) or ``"PASS"``."""
    hold: bool = False
    dark: bool = False


class PlayedCard(msgspec.Struct, frozen=True, kw_only=True):
    seat: Seat
    card: str


class ClaimView(msgspec.Struct, frozen=True, kw_only=True):
    """A claim waiting for answers: ``seat`` takes ``tricks`` of the ``remaining`` ones if every
    seat of ``asked`` accepts; ``accepted`` have."""

    seat: Seat
    tricks: int
    remaining: int
    asked: tuple[Seat, ...]
    accepted: tuple[Seat, ...] = ()


Phase = Literal[
    "awaiting_deal", "bidding", "awaiting_talon", "discarding", "totus_discarding", "declaring",
    "whisting", "playing", "deal_finished",
]  # fmt: skip
"""A deal's phase, as `phase_name` spells the state's type."""


class SeatView(msgspec.Struct, frozen=True, kw_only=True):
    """One viewer's picture of a deal."""

    viewer: Seat | None
    phase: Phase
    dealer: Seat | None = None
    hands_order: tuple[Seat, ...] = ()
    """First, second and third hand."""
    to_act: tuple[Seat, ...] = ()
    hand: tuple[str, ...] = ()
    """The viewer's own cards."""
    hand_sizes: tuple[int, ...] = ()
    """Cards in each seat's hand, by seat (0 for a sitting-out dealer)."""
    open_hands: tuple[tuple[str, ...] | None, ...] = ()
    """By seat: the other hands lying face up, null for the viewer's own and the closed ones."""
    shown_hands: tuple[tuple[str, ...] | None, ...] = ()
    """By seat: other hands shown to the viewer alone (the dealer at four looked at an
    opponent's cards), null for the rest."""
    talon: tuple[str, ...] = ()
    """Talon cards that have been shown."""
    talon_size: int = 0
    """Talon cards still face down."""
    discard: tuple[str, ...] | None = None
    """The discard (снос): only the declarer's own."""
    min_level: int = 6
    auction: tuple[AuctionCall, ...] = ()
    declarer: Seat | None = None
    bid: str | None = None
    contract: str | None = None
    dark: bool = False
    whist_calls: tuple[AuctionCall, ...] = ()
    defenders: tuple[DefenderRole, ...] = ()
    open_play: bool = False
    trump: str | None = None
    trick: tuple[PlayedCard, ...] = ()
    talon_card: str | None = None
    last_trick: tuple[PlayedCard, ...] = ()
    tricks: tuple[int | None, ...] = ()
    """Tricks taken, by seat: the active hands', and a dealer's at four who took some with the
    talon; null for a seat that takes no part."""
    claim: ClaimView | None = None
    outcome: DealOutcome | None = None


class _PhaseFields(TypedDict, total=False):
    """The fields of `SeatView` that only some phases fill in."""

    declarer: Seat | None
    discard: tuple[str, ...] | None
    bid: str | None
    contract: str | None
    dark: bool
    whist_calls: tuple[AuctionCall, ...]
    defenders: tuple[DefenderRole, ...]
    open_play: bool
    trump: str | None
    trick: tuple[PlayedCard, ...]
    talon_card: str | None
    last_trick: tuple[PlayedCard, ...]
    tricks: tuple[int | None, ...]
    claim: ClaimView | None
    outcome: DealOutcome | None


def phase_name(state: DealState) -> Phase:
    """A stable snake_case name of the phase (``bidding``, ``whisting``, ``playing`` …)."""
    name = type(state).__name__
    phase = "".join("_" + c.lower() if c.isupper() else c for c in name).lstrip("_")
    assert phase in get_args(Phase), phase
    return phase  # type: ignore[return-value]


def seat_view(state: DealState, viewer: Seat | None, to_act: tuple[Seat, ...] = ()) -> SeatView:
    """Everything ``viewer`` may see of ``state``, and nothing more."""
    if isinstance(state, AwaitingDeal):
        return SeatView(viewer=viewer, phase=phase_name(state))
    own = (
        state.hands[viewer]
        if viewer is not None and 0 <= viewer < state.seats and viewer in state.looked
        else ()
    )
    seats = range(state.seats)
    shown = {h for v, h in state.peeks if v == viewer and h != viewer and h not in state.open_hands}
    phase: _PhaseFields = {}
    if isinstance(state, Contracted | Playing | DealFinished):
        declarer = getattr(state, "declarer", None)
        if isinstance(state, DealFinished):
            declarer = state.outcome.declarer
        phase["declarer"] = declarer
        discard = getattr(state, "discard", ())
        if declarer is not None and viewer == declarer and discard:
            phase["discard"] = discard
    if isinstance(state, Contracted):
        phase["bid"] = state.bid
        phase["dark"] = state.dark
    if isinstance(state, Whisting):
        phase["contract"] = state.contract
        phase["whist_calls"] = tuple(AuctionCall(seat=s, call=c) for s, c in state.calls)
    if isinstance(state, Playing):
        phase |= {
            "bid": state.bid,
            "contract": state.contract,
            "dark": state.dark,
            "defenders": state.defenders,
            "open_play": state.open_play,
            "trump": state.trump,
            "trick": tuple(PlayedCard(seat=s, card=c) for s, c in state.trick),
            "talon_card": state.talon_card,
            "last_trick": tuple(PlayedCard(seat=s, card=c) for s, c in state.last_trick),
            "tricks": _trick_counts(state.tricks, state.order),
        }
        if state.claim is not None:
            c = state.claim
            phase["claim"] = ClaimView(
                seat=c.seat, tricks=c.tricks, remaining=c.remaining, asked=c.asked,
                accepted=c.accepted,
            )  # fmt: skip
    if isinstance(state, DealFinished):
        phase |= {
            "contract": state.outcome.contract,
            "defenders": state.outcome.defenders,
            "last_trick": tuple(PlayedCard(seat=s, card=c) for s, c in state.last_trick),
            "tricks": _trick_counts(state.outcome.tricks, state.outcome.hands),
            "outcome": state.outcome,
        }
    return SeatView(
        viewer=viewer,
        phase=phase_name(state),
        dealer=state.dealer,
        hands_order=state.order,
        to_act=to_act,
        hand=own,
        hand_sizes=tuple(len(state.hands[s]) if s in state.order else 0 for s in seats),
        open_hands=tuple(
            state.hands[s] if s in state.open_hands and s != viewer else None for s in seats
        ),
        shown_hands=tuple(state.hands[s] if s in shown else None for s in seats),
        talon=state.shown_talon,
        talon_size=len(state.talon),
        min_level=state.min_level,
        auction=tuple(
            AuctionCall(seat=s, call=c, hold=n == "hold", dark=n == "dark")
            for s, c, n in state.auction
        ),
        **phase,
    )


def _trick_counts(tricks: tuple[int, ...], hands: tuple[Seat, ...]) -> tuple[int | None, ...]:
    """Tricks of the active hands, and of a dealer at four who took some with the talon."""
    return tuple(t if s in hands or t else None for s, t in enumerate(tricks))


def visible_cards(view: SeatView) -> set[str]:
    """Every card named anywhere in ``view`` (for tests of what leaks)."""
    cards = set(view.hand) | set(view.talon) | set(view.discard or ())
    for hand in (*view.open_hands, *view.shown_hands):
        cards |= set(hand or ())
    cards |= {p.card for p in view.trick} | {p.card for p in view.last_trick}
    if view.talon_card:
        cards.add(view.talon_card)
    return cards


def redact_event(event: DealEvent, viewer: Seat | None, before: DealState) -> DealEvent:
    """``event`` as ``viewer`` may see it, given the state ``before`` it.

    Hidden cards are removed, never replaced by guesses: the dealt hands keep only the viewer's
    own (in dark games it arrives when he looks), a talon taken face down and the discard reach
    only the declarer.
    """
    match event:
        case DealStarted():
            dark = before.rules.classic.dark_games
            hands = tuple(
                h if (s == viewer and not dark) else () for s, h in enumerate(event.hands)
            )
            return msgspec.structs.replace(event, hands=hands, talon=())
        case CardsLooked() if viewer == event.seat and isinstance(before, Bidding):
            return msgspec.structs.replace(event, hand=before.hands[event.seat])
        case HandLookedAt() if viewer == event.seat and isinstance(before, Whisting):
            return msgspec.structs.replace(event, cards=before.hands[event.hand])
        case TalonTaken() if not event.shown and viewer != event.seat:
            return msgspec.structs.replace(event, cards=())
        case Discarded() if viewer is None or viewer not in (event.seat, event.by):
            return msgspec.structs.replace(event, cards=())
    return event
