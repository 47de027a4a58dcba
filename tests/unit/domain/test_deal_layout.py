"""The deal, the seats, the dealer and the forehand (docs/rules.md §A)."""

from __future__ import annotations

import pytest
from deal_helpers import (
    ALL_TEN,
    STANDARD,
    after,
    assert_refused,
    bid,
    cards,
    closed_play,
    dealt,
    declare,
    discard,
    layout,
    pass_,
    play,
    play_cards,
    take_talon,
    whist,
    whist_pass,
    with_rules,
)

from domain.deal.decider import decide, initial_state, legal_actions, to_act
from domain.deal.messages import DealStarted, MakeBid, Pass, StartDeal
from domain.deal.state import AwaitingDeal, Bidding, Playing
from domain.errors import InvalidLayout, NotYourTurn, WrongPhase
from domain.rules import SOCHI

FOUR = with_rules(players=4)
FOUR_HANDS = ALL_TEN[0]


def four_player_start(dealer: int) -> StartDeal:
    hands = list(FOUR_HANDS)
    hands.insert(dealer, ())
    return StartDeal(dealer=dealer, hands=tuple(hands), talon=ALL_TEN[1])


def test_a_deal_starts_with_the_hands_sorted_and_the_talon_in_its_order():
    given = initial_state(SOCHI)
    hands, talon = layout(
        "KD AD KC AC 9S TS JS QS KS AS",
        "9D TD JD QD 9C TC JC QC 7S 8S",
        "9H TH JH QH KH AH 7D 8D 7C 8C",
        talon="7H 8H",
    )
    events = decide(StartDeal(dealer=2, hands=hands, talon=talon), given)
    sorted_hands = (
        cards("9S TS JS QS KS AS KC AC KD AD"),
        cards("7S 8S 9C TC JC QC 9D TD JD QD"),
        cards("7C 8C 7D 8D 9H TH JH QH KH AH"),
    )
    assert events == [DealStarted(dealer=2, hands=sorted_hands, talon=("7H", "8H"))]


def test_at_three_the_first_hand_sits_on_the_dealers_left_and_the_dealer_is_third_hand():
    state = dealt(dealer=1)
    assert isinstance(state, Bidding)
    assert state.order == (2, 0, 1)
    assert to_act(state) == (2,)


def test_the_first_hand_bids_first_and_the_others_follow_clockwise():
    state = dealt(dealer=0)
    assert to_act(state) == (1,)
    assert to_act(after(state, bid(1, "6S"))) == (2,)
    assert to_act(after(state, bid(1, "6S"), pass_(2))) == (0,)


@pytest.mark.parametrize("dealer", [0, 1, 2, 3])
def test_at_four_the_dealer_gets_no_cards_and_sits_the_deal_out(dealer):
    given = initial_state(FOUR)
    (started,) = decide(four_player_start(dealer), given)
    state = dealt((started.hands, started.talon), rules=FOUR, dealer=dealer)
    assert isinstance(state, Bidding)
    assert state.hands[dealer] == ()
    assert state.order == tuple((dealer + k) % 4 for k in (1, 2, 3))
    assert to_act(state) == ((dealer + 1) % 4,)
    assert legal_actions(state, dealer) == []


def test_at_four_the_sitting_out_dealer_may_not_bid():
    state = dealt((four_player_start(0).hands, ALL_TEN[1]), rules=FOUR, dealer=0)
    assert_refused(pass_(0), state, "illegal.not_your_turn", NotYourTurn)


def test_the_first_hand_leads_the_first_trick_whoever_declares():
    given = after(
        dealt(STANDARD), pass_(0), pass_(1), bid(2, "6S"), take_talon(2), discard(2, "7C 8C"),
        declare(2, "6H"), whist(0), whist_pass(1), closed_play(0),
    )  # fmt: skip
    assert isinstance(given, Playing)
    assert (given.declarer, given.turn) == (2, 0)
    assert play_cards(given, "AC").trick == ((0, "AC"),)


# ---- malformed layouts ----------------------------------------------------------------------


def _start(hands, talon=("8H", "7H"), dealer=2, min_level=6):
    return StartDeal(dealer=dealer, hands=hands, talon=talon, min_level=min_level)


@pytest.mark.parametrize(
    "start",
    [
        _start(STANDARD[0][:2]),  # two hands at a table of three
        _start(STANDARD[0], dealer=3),  # no such seat
        _start(((*STANDARD[0][0][:9], "8H"), *STANDARD[0][1:])),  # a card twice
        _start(STANDARD[0], talon=("8H", "8H")),  # the talon repeats a card
        _start((STANDARD[0][0][:9], *STANDARD[0][1:]), talon=("8H", "7H")),  # nine cards
        _start(STANDARD[0], min_level=5),  # below the ladder
        _start(STANDARD[0], min_level=11),
    ],
)
def test_a_layout_that_is_not_a_deal_of_the_32_cards_is_refused(start):
    with pytest.raises(InvalidLayout) as refusal:
        decide(start, initial_state(SOCHI))
    assert refusal.value.code == "invalid_layout"


def test_at_four_the_dealer_must_be_dealt_no_cards():
    hands = (*FOUR_HANDS, ())  # the empty hand is seat 3's, but seat 0 deals
    with pytest.raises(InvalidLayout) as refusal:
        decide(StartDeal(dealer=0, hands=hands, talon=ALL_TEN[1]), initial_state(FOUR))
    assert refusal.value.code == "invalid_layout"


def test_a_deal_is_dealt_once():
    with pytest.raises(WrongPhase) as refusal:
        decide(_start(STANDARD[0]), dealt())
    assert refusal.value.code == "illegal.already_dealt"


def test_nothing_may_be_done_before_the_cards_are_dealt():
    given = initial_state(SOCHI)
    assert isinstance(given, AwaitingDeal)
    for command in (MakeBid(seat=0, bid="6S"), Pass(seat=0), play(0, "AS")):
        with pytest.raises(WrongPhase) as refusal:
            decide(command, given)
        assert refusal.value.code == "illegal.not_dealt"
