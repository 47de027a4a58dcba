"""Given-helpers for the solver tests: deals reached through the deal decider itself."""

from __future__ import annotations

from domain.cards import parse_cards
from domain.deal.decider import decide, fold, initial_state, to_act
from domain.deal.messages import (
    CallWhist,
    ChoosePlay,
    Declare,
    Discard,
    MakeBid,
    Pass,
    PlayCard,
    SeatCommand,
    StartDeal,
    TakeTalon,
)
from domain.deal.state import DealState, Playing
from domain.rules import SOCHI, Rules

Layout = tuple[tuple[tuple[str, ...], ...], tuple[str, str]]


def cards(text: str) -> tuple[str, ...]:
    return parse_cards(text.split())


def layout(*hands: str, talon: str) -> Layout:
    a, b = cards(talon)
    return tuple(cards(h) for h in hands), (a, b)


# The worked layouts of the deal tests (tests/unit/domain/deal_helpers.py); seat 2 deals, so
# seat 0 is the first hand.
STANDARD = layout(
    "AS KS QS JS TS 9S AC KC AD KD",
    "8S 7S QC JC TC 9C QD JD TD 9D",
    "8C 7C 8D 7D AH KH QH JH TH 9H",
    talon="8H 7H",
)
ALL_TEN = layout(
    "AS KS QS JS TS 9S 8S 7S AC AD",
    "KC QC JC TC KD QD JD TD AH KH",
    "9C 8C 7C 9D 8D 7D QH JH TH 9H",
    talon="8H 7H",
)
MISER_HAND = layout(
    "7S 8S 9S 7C 8C 9C 7D 8D 7H 8H",
    "TS JS QS TC JC 9D TD JD 9H TH",
    "KS AS QC KC QD KD AD JH QH KH",
    talon="AC AH",
)
ALL_PASS_SWEEP = layout(
    "AH KH QH JH TH 9H 8H 7H AS AC",
    "KS QS JS TS KC QC JC TC AD KD",
    "9S 8S 9C 8C QD JD TD 9D 8D 7D",
    talon="7S 7C",
)


def run(state: DealState, *commands: SeatCommand) -> DealState:
    for command in commands:
        state = fold(state, decide(command, state))
    return state


def dealt(deal: Layout, rules: Rules = SOCHI, dealer: int = 2) -> DealState:
    hands, talon = deal
    state = initial_state(rules)
    return fold(state, decide(StartDeal(dealer=dealer, hands=hands, talon=talon), state))


def contract_play(
    deal: Layout,
    contract: str,
    *,
    whists: tuple[str, str] = ("whist", "whist"),
    discard: tuple[str, str] | None = None,
) -> Playing:
    """The first hand (seat 0) wins the auction (6♠, or misère), discards the talon (or
    ``discard``) and declares it; the defenders call ``whists`` (a single whister plays
    closed)."""
    opening = MakeBid(seat=0, bid="MISER" if contract == "MISER" else "6S")
    state = run(dealt(deal), opening, Pass(seat=1), Pass(seat=2), TakeTalon(seat=0))
    state = run(state, Discard(seat=0, cards=discard or deal[1]))
    if contract != "MISER":
        state = run(state, Declare(seat=0, contract=contract))
        if not isinstance(state, Playing):
            state = run(state, CallWhist(seat=1, choice=whists[0]))
            state = run(state, CallWhist(seat=2, choice=whists[1]))
        if not isinstance(state, Playing):
            state = run(state, ChoosePlay(seat=to_act(state)[0], open=False))
    assert isinstance(state, Playing)
    return state


def all_pass(deal: Layout, rules: Rules = SOCHI) -> Playing:
    state = run(dealt(deal, rules), Pass(seat=0), Pass(seat=1), Pass(seat=2))
    assert isinstance(state, Playing)
    return state


def play(state: Playing, *cards_: str) -> Playing:
    for card in cards_:
        (seat,) = to_act(state)
        after = run(state, PlayCard(seat=seat, card=card))
        assert isinstance(after, Playing)
        state = after
    return state
