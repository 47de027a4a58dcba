"""Given-helpers for the deal tests: layouts written in card notation, short commands, and a
way to reach a phase of a deal by deciding commands and folding their events.

The standard table has three players with seat 2 dealing, so the first hand (forehand) is seat
0, the second hand seat 1 and the third hand (the dealer) seat 2.
"""

from __future__ import annotations

from collections.abc import Iterable

import pytest

from domain.cards import parse_cards
from domain.deal.decider import decide, fold, initial_state, legal_actions, to_act
from domain.deal.messages import (
    CallWhist,
    ChoosePlay,
    DealEvent,
    Declare,
    Discard,
    LookAtCards,
    MakeBid,
    Pass,
    PlayCard,
    SeatCommand,
    StartDeal,
    TakeTalon,
)
from domain.deal.state import DealState
from domain.errors import IllegalAction
from domain.rules import SOCHI, Rules, rules_for

DEALER = 2
FOREHAND, SECOND_HAND, THIRD_HAND = 0, 1, 2


def cards(text: str) -> tuple[str, ...]:
    """``"AS KS 7H"`` → ``("AS", "KS", "7H")``."""
    return parse_cards(text.split())


def layout(*hands: str, talon: str) -> tuple[tuple[tuple[str, ...], ...], tuple[str, str]]:
    pair = cards(talon)
    assert len(pair) == 2
    return tuple(cards(h) for h in hands), (pair[0], pair[1])


STANDARD = layout(
    "AS KS QS JS TS 9S AC KC AD KD",  # forehand: strong spades
    "8S 7S QC JC TC 9C QD JD TD 9D",  # second hand: void in hearts
    "8C 7C 8D 7D AH KH QH JH TH 9H",  # third hand (dealer): void in spades
    talon="8H 7H",
)
"""Forehand (seat 0) holds six top spades and the black and red ace-kings; seat 1 is void in
hearts, seat 2 in spades."""

ALL_TEN = layout(
    "AS KS QS JS TS 9S 8S 7S AC AD",  # every trump and two aces: every lead wins
    "KC QC JC TC KD QD JD TD AH KH",
    "9C 8C 7C 9D 8D 7D QH JH TH 9H",
    talon="8H 7H",
)
"""Forehand holds all eight spades and two aces: in spades he takes all ten tricks whatever
anyone plays, because he wins every trick and so leads every trick."""

MISER_HAND = layout(
    "7S 8S 9S 7C 8C 9C 7D 8D 7H 8H",  # the lowest cards of every suit
    "TS JS QS TC JC 9D TD JD 9H TH",
    "KS AS QC KC QD KD AD JH QH KH",
    talon="AC AH",
)
"""Forehand holds the lowest cards of each suit and both catchers hold every suit: after
discarding the talon he cannot take a trick."""

ALL_PASS_SWEEP = layout(
    "AH KH QH JH TH 9H 8H 7H AS AC",  # all the hearts and the black aces
    "KS QS JS TS KC QC JC TC AD KD",
    "9S 8S 9C 8C QD JD TD 9D 8D 7D",
    talon="7S 7C",
)
"""All-pass: the talon turns spades, then clubs; forehand holds the only aces of those suits
and every heart, so he takes all ten tricks."""


def dealt(
    deal: tuple[tuple[tuple[str, ...], ...], tuple[str, str]] = STANDARD,
    *,
    rules: Rules = SOCHI,
    dealer: int = DEALER,
    min_level: int = 6,
) -> DealState:
    """The state right after ``deal`` is dealt."""
    hands, talon = deal
    state = initial_state(rules)
    start = StartDeal(dealer=dealer, hands=hands, talon=talon, min_level=min_level)
    return fold(state, decide(start, state))


def after(state: DealState, *commands: SeatCommand) -> DealState:
    """``state`` once each command is decided and its events are folded in."""
    for command in commands:
        state = fold(state, decide(command, state))
    return state


def events_of(state: DealState, *commands: SeatCommand) -> list[DealEvent]:
    """Every event the commands cause, one after the other, from ``state``."""
    events: list[DealEvent] = []
    for command in commands:
        new = decide(command, state)
        events += new
        state = fold(state, new)
    return events


def play_cards(state: DealState, text: str) -> DealState:
    """Play the cards of ``text`` in order, each by whoever controls the hand on turn."""
    for card in cards(text):
        (seat,) = to_act(state)
        state = after(state, PlayCard(seat=seat, card=card))
    return state


def first_legal(state: DealState) -> SeatCommand:
    """The first legal action of the seat to act."""
    (seat,) = to_act(state)
    return legal_actions(state, seat)[0]


def play_out(state: DealState) -> DealState:
    """Play every remaining card, each seat playing its first legal card."""
    while to_act(state):
        state = after(state, first_legal(state))
    return state


def assert_refused(
    command: SeatCommand, state: DealState, code: str, error: type[IllegalAction] = IllegalAction
) -> IllegalAction:
    """``decide`` refuses ``command`` with an ``error`` carrying the stable ``code``."""
    with pytest.raises(error) as refusal:
        decide(command, state)
    assert refusal.value.code == code
    return refusal.value


def with_rules(preset: str = "sochi", **sections: dict[str, object]) -> Rules:
    """``with_rules(bidding={"allow_jumps": True})``: a preset with some options changed."""
    return rules_for(preset, dict(sections))


# ---- commands ---------------------------------------------------------------------------


def bid(seat: int, call: str, *, dark: bool = False) -> MakeBid:
    return MakeBid(seat=seat, bid=call, dark=dark)


def pass_(seat: int, *, dark: bool = False) -> Pass:
    return Pass(seat=seat, dark=dark)


def look(seat: int) -> LookAtCards:
    return LookAtCards(seat=seat)


def take_talon(seat: int) -> TakeTalon:
    return TakeTalon(seat=seat)


def discard(seat: int, text: str) -> Discard:
    first, second = cards(text)
    return Discard(seat=seat, cards=(first, second))


def declare(seat: int, contract: str) -> Declare:
    return Declare(seat=seat, contract=contract)


def whist(seat: int) -> CallWhist:
    return CallWhist(seat=seat, choice="whist")


def whist_pass(seat: int) -> CallWhist:
    return CallWhist(seat=seat, choice="pass")


def half_whist(seat: int) -> CallWhist:
    return CallWhist(seat=seat, choice="half_whist")


def open_play(seat: int) -> ChoosePlay:
    return ChoosePlay(seat=seat, open=True)


def closed_play(seat: int) -> ChoosePlay:
    return ChoosePlay(seat=seat, open=False)


def play(seat: int, card: str) -> PlayCard:
    return PlayCard(seat=seat, card=card)


# ---- phases of the standard table ---------------------------------------------------------


def won_auction(
    call: str = "6S",
    *,
    deal: tuple[tuple[tuple[str, ...], ...], tuple[str, str]] = STANDARD,
    rules: Rules = SOCHI,
) -> DealState:
    """Forehand bids ``call`` and both others pass: he is to take the talon."""
    return after(
        dealt(deal, rules=rules), bid(FOREHAND, call), pass_(SECOND_HAND), pass_(THIRD_HAND)
    )


def declared(
    contract: str = "6S",
    *,
    deal: tuple[tuple[tuple[str, ...], ...], tuple[str, str]] = STANDARD,
    rules: Rules = SOCHI,
    put_away: str | None = None,
) -> DealState:
    """Forehand won the auction at ``contract``, took the talon, put the talon cards (or
    ``put_away``) back and declared ``contract``: the opponents are to whist."""
    state = won_auction(contract, deal=deal, rules=rules)
    state = after(state, take_talon(FOREHAND), discard(FOREHAND, put_away or " ".join(deal[1])))
    if contract == "MISER":
        return state
    return after(state, declare(FOREHAND, contract))


def seats_of(commands: Iterable[SeatCommand]) -> set[int]:
    return {c.seat for c in commands}
