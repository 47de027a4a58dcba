"""``evolve(state, event) -> state`` and `fold`: a deal's state from its events, without rules.

Every rule was applied when `decide` chose the events (the auction's winner, a trick's winner,
the outcome are events of their own), so evolving only records facts: each event type has one
small function that builds the next phase struct or replaces a few fields. Replays fold a whole
log through here, so it is kept lean: one dict lookup per event, no `isinstance` ladder, and phase
changes that copy the table as a literal dict (`table_fields`). ``bench/bench_domain.py`` measures
it (the aim is ≥ 500,000 events/s on one core).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import msgspec

from domain.cards import SORT_KEY, Seat, is_miser
from domain.deal.messages import (
    AllPassed,
    AuctionWon,
    BidMade,
    CardPlayed,
    CardsLooked,
    ClaimAnswered,
    ClaimMade,
    Conceded,
    ContractDeclared,
    DealEnded,
    DealEvent,
    DealStarted,
    Discarded,
    HandLookedAt,
    HandsOpened,
    Passed,
    PlayChosen,
    PlayStarted,
    TalonCardTurned,
    TalonSetAside,
    TalonTaken,
    TotusShown,
    TrickWon,
    WhistCalled,
)
from domain.deal.state import (
    AwaitingDeal,
    AwaitingTalon,
    Bidding,
    Contracted,
    DealFinished,
    DealState,
    DealTable,
    Declaring,
    Discarding,
    Hands,
    PendingClaim,
    Playing,
    TotusDiscarding,
    Whisting,
    active_order,
    contract_fields,
    own_controllers,
    table_fields,
)

_Table = TypeVar("_Table", bound=DealTable)
_State = TypeVar("_State", bound=AwaitingDeal | DealTable)

_replace = msgspec.structs.replace


def evolve(state: DealState, event: DealEvent) -> DealState:
    """The state after ``event``. Records facts only; no rule is checked here."""
    return _EVOLVERS[type(event)](state, event)


def fold(state: DealState, events: list[DealEvent] | tuple[DealEvent, ...]) -> DealState:
    """The state after each of ``events`` in turn, from ``state``."""
    evolvers = _EVOLVERS
    for event in events:
        state = evolvers[type(event)](state, event)
    return state


def _replace_hand(hands: Hands, seat: Seat, hand: tuple[str, ...]) -> Hands:
    return (*hands[:seat], hand, *hands[seat + 1 :])


def _next_bidder(state: Bidding, seat: Seat, passed: tuple[Seat, ...]) -> Seat:
    nxt = state.next_seat(seat)
    while nxt in passed and nxt != seat:
        nxt = state.next_seat(nxt)
    return nxt


# ---- the auction ----------------------------------------------------------------------------


def _evolve_started(state: AwaitingDeal, e: DealStarted) -> Bidding:
    seats = len(e.hands)
    order = active_order(e.dealer, seats)
    return Bidding(
        rules=state.rules, dealer=e.dealer, order=order, hands=e.hands, talon=e.talon,
        min_level=e.min_level, looked=() if state.rules.classic.dark_games else order,
        turn=order[0],
    )  # fmt: skip


def _evolve_looked(state: Bidding, e: CardsLooked) -> Bidding:
    return _replace(state, looked=(*state.looked, e.seat))


def _evolve_bid(state: Bidding, e: BidMade) -> Bidding:
    miser = is_miser(e.bid)
    return _replace(
        state,
        highest=e.bid,
        highest_by=e.seat,
        highest_dark=e.dark,
        bidders=state.bidders if miser or e.seat in state.bidders else (*state.bidders, e.seat),
        miser_by=e.seat if miser else state.miser_by,
        opened_by=e.seat if state.opened_by is None else state.opened_by,
        hold_lost=(*state.hold_lost, e.seat) if e.hold_waived else state.hold_lost,
        turn=_next_bidder(state, e.seat, state.passed),
        auction=(*state.auction, (e.seat, e.bid, "hold" if e.hold else "dark" if e.dark else "")),
    )


def _evolve_passed(state: Bidding, e: Passed) -> Bidding:
    passed = (*state.passed, e.seat)
    return _replace(
        state,
        passed=passed,
        dark_passers=(*state.dark_passers, e.seat) if e.dark else state.dark_passers,
        turn=_next_bidder(state, e.seat, passed),
        auction=(*state.auction, (e.seat, "PASS", "dark" if e.dark else "")),
    )


def _evolve_won(state: Bidding | AwaitingTalon, e: AuctionWon) -> AwaitingTalon:
    fields = table_fields(state)
    fields["looked"] = state.order
    return AwaitingTalon(**fields, declarer=e.seat, bid=e.bid, dark=e.dark)


def _evolve_all_passed(state: Bidding, e: AllPassed) -> Playing:
    fields = table_fields(state)
    fields["looked"] = state.order
    # every hand plays itself; PlayStarted confirms it, but the state between is complete too
    return Playing(
        **fields,
        kind="raspasy",
        turn=state.order[0],
        tricks=(0,) * state.seats,
        controllers=own_controllers(state),
    )


# ---- talon, discard, contract ---------------------------------------------------------------


def _evolve_talon(state: AwaitingTalon, e: TalonTaken) -> Discarding:
    hand = tuple(sorted((*state.hands[e.seat], *e.cards), key=SORT_KEY.__getitem__))
    fields = contract_fields(state)
    fields["hands"] = _replace_hand(state.hands, e.seat, hand)
    fields["talon"] = ()
    fields["shown_talon"] = e.cards if e.shown else ()
    return Discarding(**fields)


def _evolve_set_aside(state: AwaitingTalon, e: TalonSetAside) -> Declaring:
    return Declaring(**contract_fields(state))


def _evolve_discarded(state: Discarding | TotusDiscarding, e: Discarded) -> Declaring:
    hand = tuple(c for c in state.hands[e.seat] if c not in e.cards)
    fields = contract_fields(state)
    fields["hands"] = _replace_hand(state.hands, e.seat, hand)
    fields["discard"] = e.cards
    return Declaring(**fields)


def _evolve_totus(state: Discarding, e: TotusShown) -> TotusDiscarding:
    return TotusDiscarding(**contract_fields(state), strain=e.strain)


def _evolve_declared(state: Declaring, e: ContractDeclared) -> Whisting:
    return Whisting(**contract_fields(state), contract=e.contract, totus=e.totus)


def _evolve_whist(state: Whisting, e: WhistCalled) -> Whisting:
    return _replace(state, calls=(*state.calls, (e.seat, e.choice)))


def _evolve_hand_looked_at(state: Whisting, e: HandLookedAt) -> Whisting:
    return _replace(state, peeks=(*state.peeks, (e.seat, e.hand)))


# ---- play -----------------------------------------------------------------------------------


def _evolve_play_started(state: Whisting | Playing, e: PlayStarted) -> Playing:
    if isinstance(state, Playing):  # all-pass: the table was laid out by AllPassed
        return _replace(state, controllers=e.controllers, trump=e.trump, turn=e.leader)
    assert isinstance(state, Whisting)
    return Playing(
        **table_fields(state),
        kind=e.kind, declarer=e.declarer, contract=e.contract, bid=state.bid, dark=state.dark,
        totus=state.totus, discard=state.discard, defenders=e.defenders, open_play=e.open_play,
        checked=e.checked, trump=e.trump, controllers=e.controllers, turn=e.leader,
        tricks=(0,) * state.seats,
    )  # fmt: skip


def _evolve_opened(state: _Table, e: HandsOpened) -> _Table:
    seats = tuple(s for s in e.seats if s not in state.open_hands)
    return _replace(state, open_hands=(*state.open_hands, *seats))


def _evolve_turned(state: Playing, e: TalonCardTurned) -> Playing:
    return _replace(
        state,
        talon=tuple(c for c in state.talon if c != e.card),
        talon_card=e.card,
        turned=(*state.turned, e.card),
        shown_talon=(*state.shown_talon, e.card),
    )


def _evolve_card(state: Playing, e: CardPlayed) -> Playing:
    hand = tuple(c for c in state.hands[e.seat] if c != e.card)
    return _replace(
        state,
        hands=_replace_hand(state.hands, e.seat, hand),
        trick=(*state.trick, (e.seat, e.card)),
        turn=state.next_seat(e.seat),
    )


def _evolve_trick(state: Playing, e: TrickWon) -> Playing:
    tricks = list(state.tricks)
    tricks[e.seat] += 1
    return _replace(
        state,
        tricks=tuple(tricks),
        tricks_played=state.tricks_played + 1,
        played=state.played + e.cards,
        last_trick=state.trick,
        trick=(),
        talon_card=None,
        turn=e.leader if e.leader is not None else state.turn,
    )


def _evolve_claim(state: Playing, e: ClaimMade) -> Playing:
    claim = PendingClaim(seat=e.seat, tricks=e.tricks, remaining=e.remaining, asked=e.asked)
    return _replace(state, claim=claim, claimed=(*state.claimed, (e.seat, state.tricks_played)))


def _evolve_claim_answer(state: Playing, e: ClaimAnswered) -> Playing:
    pending = state.claim
    if not e.accept or pending is None:
        return _replace(state, claim=None)
    return _replace(state, claim=_replace(pending, accepted=(*pending.accepted, e.seat)))


def _evolve_ended(state: Contracted | Playing, e: DealEnded) -> DealFinished:
    """A deal ends in play, or before it (a concession, or both defenders passing)."""
    fields = table_fields(state)
    fields["looked"] = state.order
    if isinstance(state, Playing):
        return DealFinished(
            **fields, outcome=e.outcome, discard=state.discard, played=state.played,
            turned=state.turned, last_trick=state.last_trick,
        )  # fmt: skip
    return DealFinished(**fields, outcome=e.outcome, discard=state.discard)


def _unchanged(state: _State, e: DealEvent) -> _State:
    return state


_EVOLVERS: dict[type[DealEvent], Callable[[Any, Any], DealState]] = {
    DealStarted: _evolve_started,
    CardsLooked: _evolve_looked,
    BidMade: _evolve_bid,
    Passed: _evolve_passed,
    AuctionWon: _evolve_won,
    AllPassed: _evolve_all_passed,
    TalonTaken: _evolve_talon,
    TalonSetAside: _evolve_set_aside,
    Discarded: _evolve_discarded,
    TotusShown: _evolve_totus,
    ContractDeclared: _evolve_declared,
    Conceded: _unchanged,
    WhistCalled: _evolve_whist,
    HandLookedAt: _evolve_hand_looked_at,
    PlayChosen: _unchanged,
    PlayStarted: _evolve_play_started,
    HandsOpened: _evolve_opened,
    TalonCardTurned: _evolve_turned,
    CardPlayed: _evolve_card,
    TrickWon: _evolve_trick,
    ClaimMade: _evolve_claim,
    ClaimAnswered: _evolve_claim_answer,
    DealEnded: _evolve_ended,
}
"""One function per event type. Their arguments are typed ``Any`` here because a dict cannot
tie each key to its value's parameter types; each function is typed on its own."""
