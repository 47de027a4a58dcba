"""The talon (прикуп), the discard (снос) and the declaration (заказ) (docs/rules.md §C, I-4)."""

from __future__ import annotations

import pytest
from deal_helpers import (
    after,
    assert_refused,
    bid,
    cards,
    dealt,
    declare,
    discard,
    events_of,
    pass_,
    take_talon,
    with_rules,
    won_auction,
)

from domain.cards import LADDER, MISER
from domain.deal.decider import decide, legal_actions
from domain.deal.messages import (
    ContractDeclared,
    Declare,
    Discard,
    Discarded,
    HandsOpened,
    PlayStarted,
    TalonTaken,
)
from domain.deal.state import Declaring, Discarding, Whisting
from domain.errors import NotYourTurn, WrongPhase
from domain.outcome import DefenderRole

JUMPS = with_rules(bidding={"allow_jumps": True})


def contracts_of(state, seat):
    return [a.contract for a in legal_actions(state, seat) if isinstance(a, Declare)]


# ---- the talon ----------------------------------------------------------------------------------


def test_the_declarer_takes_the_talon_face_up_for_all_to_see():
    given = won_auction("6S")
    assert legal_actions(given, 0) == [take_talon(0)]
    assert events_of(given, take_talon(0)) == [TalonTaken(seat=0, cards=("8H", "7H"), shown=True)]
    state = after(given, take_talon(0))
    assert isinstance(state, Discarding)
    assert state.shown_talon == ("8H", "7H")
    assert len(state.hands[0]) == 12 and {"8H", "7H"} <= set(state.hands[0])


def test_only_the_declarer_takes_the_talon():
    given = won_auction("6S")
    assert_refused(take_talon(1), given, "illegal.not_your_turn", NotYourTurn)


# ---- the discard ----------------------------------------------------------------------------


def test_the_declarer_discards_any_two_cards_talon_cards_included():
    given = after(won_auction("6S"), take_talon(0))
    assert len(legal_actions(given, 0)) == 66  # any 2 of 12
    assert events_of(given, discard(0, "8H AD")) == [Discarded(seat=0, cards=("8H", "AD"))]
    state = after(given, discard(0, "8H AD"))
    assert isinstance(state, Declaring)
    assert state.discard == ("8H", "AD")
    assert set(state.hands[0]) == set(cards("AS KS QS JS TS 9S AC KC KD 7H"))


def test_discarding_cards_not_held_is_refused():
    given = after(won_auction("6S"), take_talon(0))
    assert_refused(discard(0, "8S 7H"), given, "illegal.discard_not_held")


def test_the_discard_is_two_different_cards():
    given = after(won_auction("6S"), take_talon(0))
    assert_refused(Discard(seat=0, cards=("AS", "AS")), given, "illegal.discard_twice")


def test_only_the_declarer_discards():
    given = after(won_auction("6S"), take_talon(0))
    assert_refused(discard(1, "8S 7S"), given, "illegal.not_your_turn", NotYourTurn)


def test_the_contract_is_named_after_the_discard_not_before():
    given = after(won_auction("6S"), take_talon(0))
    with pytest.raises(WrongPhase) as refusal:
        decide(declare(0, "6S"), given)
    assert refusal.value.code == "illegal.wrong_phase"
    assert_refused(declare(0, "6S"), won_auction("6S"), "illegal.declare_after_discard")


# ---- the declaration ---------------------------------------------------------------------------


def test_the_final_contract_is_the_winning_bid_or_higher():
    given = after(won_auction("6D", rules=JUMPS), take_talon(0), discard(0, "8H 7H"))
    assert contracts_of(given, 0) == [b for b in LADDER[2:] if b != MISER]
    assert events_of(given, declare(0, "7S"))[0] == ContractDeclared(seat=0, contract="7S")


def test_declaring_below_the_winning_bid_is_refused():
    given = after(won_auction("6D", rules=JUMPS), take_talon(0), discard(0, "8H 7H"))
    assert_refused(declare(0, "6C"), given, "illegal.declared_below_bid")


def test_declaring_the_winning_bid_hands_over_to_whisting():
    given = after(won_auction("6S"), take_talon(0), discard(0, "8H 7H"))
    state = after(given, declare(0, "6S"))
    assert isinstance(state, Whisting)
    assert (state.declarer, state.contract, state.discard) == (0, "6S", ("8H", "7H"))


def test_misere_cannot_be_declared_after_the_talon_was_taken_on_a_trick_bid():
    given = after(won_auction("6S"), take_talon(0), discard(0, "8H 7H"))
    assert MISER not in contracts_of(given, 0)
    assert_refused(declare(0, MISER), given, "illegal.miser_after_trick_bid")


def test_a_talon_taken_on_misere_is_played_as_misere():
    given = after(won_auction(MISER), take_talon(0))
    events = events_of(given, discard(0, "8H 7H"))
    assert events[:2] == [
        Discarded(seat=0, cards=("8H", "7H")),
        ContractDeclared(seat=0, contract=MISER),
    ]
    assert events[2] == PlayStarted(
        kind="miser",
        controllers=(0, 1, 2),
        trump=None,
        leader=0,
        declarer=0,
        contract=MISER,
        defenders=(DefenderRole(seat=1, choice="pass"), DefenderRole(seat=2, choice="pass")),
    )
    assert len(events) == 3  # the misère player leads: the catchers open after his lead


# ---- the silent take of the third hand --------------------------------------------------------


def silently_taken(**kwargs):
    return after(dealt(**kwargs), pass_(0), pass_(1), take_talon(2), discard(2, "7C 8C"))


def test_after_a_silent_take_the_third_hand_must_declare_at_least_six_spades():
    given = silently_taken()
    assert contracts_of(given, 2)[0] == "6S"
    assert events_of(given, declare(2, "6S"))[0] == ContractDeclared(seat=2, contract="6S")


def test_after_a_silent_take_the_minimum_contract_follows_the_exit_from_all_pass():
    given = silently_taken(min_level=7)
    assert contracts_of(given, 2)[0] == "7S"
    assert_refused(declare(2, "6NT"), given, "illegal.declared_below_bid")


def test_after_a_silent_take_misere_may_not_be_declared_by_default():
    given = silently_taken()
    assert MISER not in contracts_of(given, 2)
    assert_refused(declare(2, MISER), given, "illegal.miser_after_trick_bid")


def test_with_third_hand_may_miser_the_silent_taker_may_declare_misere():
    given = silently_taken(rules=with_rules(bidding={"third_hand_may_miser": True}))
    assert MISER in contracts_of(given, 2)
    events = events_of(given, declare(2, MISER))
    assert events[0] == ContractDeclared(seat=2, contract=MISER)
    assert isinstance(events[1], PlayStarted) and events[1].kind == "miser"
    # a catcher (the first hand) leads, so the catchers' cards open at once
    assert isinstance(events[2], HandsOpened) and set(events[2].seats) == {0, 1}


def test_a_player_who_bid_takes_the_talon_on_his_bid_not_silently():
    given = after(dealt(), pass_(0), pass_(1), bid(2, "6S"))
    assert legal_actions(given, 2) == [take_talon(2)]
