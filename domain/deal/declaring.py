"""The declarer's commands between the auction and whisting: take the talon (прикуп), discard
(снос), name the contract (заказ), show a totus, or concede without play; and a game bid without
the talon, which skips the talon and the discard.

Once a contract is named, `domain.deal.whisting.after_contract` says what follows it.
"""

from __future__ import annotations

from domain.cards import (
    BID_RANK,
    MISER,
    MISER_WT,
    Seat,
    check_bid,
    is_miser,
    is_talonless,
    level_of,
)
from domain.deal.auction_rules import below_miser, minimum_contract
from domain.deal.ending import outcome_of
from domain.deal.evolve import fold
from domain.deal.messages import (
    AuctionWon,
    Concede,
    Conceded,
    ContractDeclared,
    DealEnded,
    DealEvent,
    Declare,
    DeclareTotus,
    Discard,
    Discarded,
    HandsOpened,
    TakeTalon,
    TalonSetAside,
    TalonTaken,
    TotusShown,
)
from domain.deal.state import (
    AwaitingTalon,
    Contracted,
    DealState,
    Declaring,
    Discarding,
    TotusDiscarding,
    Whisting,
)
from domain.deal.whisting import after_contract
from domain.errors import NotYourTurn, refuse
from domain.outcome import DefenderRole


def without_talon(state: AwaitingTalon) -> list[DealEvent]:
    """A game bid without the talon (I-5, I-6): the talon is set aside face down, unseen. A
    misère without the talon is played at once; after a nine without it the declarer names his
    contract."""
    aside = TalonSetAside(seat=state.declarer)
    if state.bid != MISER_WT:
        return [aside]
    declared = ContractDeclared(seat=state.declarer, contract=MISER_WT, dark=state.dark)
    return [aside, declared, *after_contract(_whisting(state, aside, declared))]


def take_talon(command: TakeTalon, state: AwaitingTalon) -> list[DealEvent]:
    _declarer_only(state, command.seat, "take the talon")
    return [TalonTaken(seat=command.seat, cards=state.talon, shown=not state.dark)]


def switch_to_miser(command: Declare, state: AwaitingTalon) -> list[DealEvent]:
    """Before taking a dark game's talon the winner may switch to misère: the talon is then
    shown and the doubling is gone (Lesnoy 3.3.19b)."""
    _declarer_only(state, command.seat, "declare")
    check_bid(command.contract)
    if not (state.dark and command.contract == MISER and below_miser(state.bid)):
        raise refuse(
            "declare_after_discard", "take the talon and discard before naming the contract"
        )
    return [
        AuctionWon(seat=command.seat, bid=MISER, dark=False),
        TalonTaken(seat=command.seat, cards=state.talon, shown=True),
    ]


def discard(command: Discard, state: Discarding) -> list[DealEvent]:
    _declarer_only(state, command.seat, "discard")
    cards = command.cards
    hand = state.hands[state.declarer]
    if cards[0] == cards[1]:
        raise refuse("discard_twice", "the discard (снос) is two different cards")
    missing = [c for c in cards if c not in hand]
    if missing:
        raise refuse("discard_not_held", f"you cannot discard {', '.join(missing)}: not in hand")
    discarded = Discarded(seat=state.declarer, cards=cards)
    if state.bid != MISER:
        return [discarded]
    # the talon was taken on a misère bid: misère it stays (Lesnoy 3.3.7)
    declared = ContractDeclared(seat=state.declarer, contract=MISER)
    return [discarded, declared, *after_contract(_whisting(state, discarded, declared))]


def declare(command: Declare, state: Declaring) -> list[DealEvent]:
    _declarer_only(state, command.seat, "declare")
    contract = check_bid(command.contract)
    silent = state.bid is None
    if contract == MISER_WT:
        raise refuse(
            "talonless_contract", "misère without the talon is bid in the auction, then played"
        )
    if contract == MISER:
        if not (silent and state.rules.bidding.third_hand_may_miser):
            raise refuse(
                "miser_after_trick_bid",
                "misère cannot be declared after the talon was taken on a trick bid",
            )
    elif is_talonless(contract) != is_talonless(state.bid):
        raise refuse(
            "talonless_contract",
            "after a bid without the talon the contract is a nine without the talon (9SWT … 9NTWT)"
            if is_talonless(state.bid)
            else "a game without the talon is bid in the auction, not named after the talon",
        )
    elif BID_RANK[contract] < BID_RANK[minimum_contract(state)]:
        raise refuse(
            "declared_below_bid",
            f"the contract must be at least the winning bid {minimum_contract(state)}",
        )
    declared = ContractDeclared(seat=state.declarer, contract=contract, dark=state.dark)
    return [declared, *after_contract(_whisting(state, declared))]


def declare_totus(command: DeclareTotus, state: Discarding) -> list[DealEvent]:
    _declarer_only(state, command.seat, "declare a totus")
    contract = check_bid(f"10{command.strain}")
    if not state.rules.classic.totus:
        raise refuse("totus_off", "totus (тотус) is not played in this game")
    if state.bid == MISER or BID_RANK[contract] < BID_RANK[minimum_contract(state)]:
        raise refuse("declared_below_bid", f"a totus in {command.strain} is below the winning bid")
    return [
        TotusShown(seat=state.declarer, strain=command.strain),
        HandsOpened.of({state.declarer: state.hands[state.declarer]}),
    ]


def totus_discard(command: Discard, state: TotusDiscarding) -> list[DealEvent]:
    chooser = state.next_seat(state.declarer)
    if command.seat != chooser:
        raise NotYourTurn(f"the first opponent (seat {chooser}) chooses the totus discard")
    cards = command.cards
    hand = state.hands[state.declarer]
    if cards[0] == cards[1] or any(c not in hand for c in cards):
        raise refuse("discard_not_held", "choose two different cards of the declarer's hand")
    discarded = Discarded(seat=state.declarer, cards=cards, by=chooser)
    declared = ContractDeclared(
        seat=state.declarer, contract=f"10{state.strain}", dark=state.dark, totus=True
    )
    return [discarded, declared, *after_contract(_whisting(state, discarded, declared))]


def concede(command: Concede, state: Declaring) -> list[DealEvent]:
    _declarer_only(state, command.seat, "concede")
    mode = state.rules.play.concede
    if mode == "none" or is_miser(state.bid):
        raise refuse("concede_off", "conceding without play is not allowed in this game")
    down = 2 if mode == "down2" else 3
    contract = minimum_contract(state)
    first, second = (
        state.next_seat(state.declarer),
        state.next_seat(state.next_seat(state.declarer)),
    )
    tricks = {s: 0 for s in state.order} | {state.declarer: level_of(contract) - down}
    outcome = outcome_of(
        state, kind="game", tricks=tricks, contract=contract, played=False, conceded=down,
        defenders=(DefenderRole(seat=first, choice="pass"),
                   DefenderRole(seat=second, choice="pass")),
    )  # fmt: skip
    return [Conceded(seat=state.declarer, undertricks=down), DealEnded(outcome=outcome)]


def _declarer_only(state: Contracted, seat: Seat, what: str) -> None:
    if seat != state.declarer:
        raise NotYourTurn(f"only the declarer (seat {state.declarer}) may {what}")


def _whisting(state: DealState, *events: TalonSetAside | Discarded | ContractDeclared) -> Whisting:
    """The state once ``events`` (the discard, if not made yet, and the contract) are in."""
    after = fold(state, events)
    assert isinstance(after, Whisting)
    return after
