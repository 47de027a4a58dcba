"""Whisting (вистование): the order, half-whist, return whist, gentleman half-whist, both
passing, the checked 10, Stalingrad, and the single whister's open or closed play (docs/rules.md
§D.1, §D.3, §E.2, I-7, I-10, I-24).

In the standard table the forehand (seat 0) declares, so seat 1 is the first opponent (the
declarer's left) and seat 2 the second.
"""

from __future__ import annotations

import pytest
from deal_helpers import (
    ALL_TEN,
    after,
    assert_refused,
    bid,
    closed_play,
    dealt,
    declare,
    declared,
    discard,
    events_of,
    half_whist,
    open_play,
    pass_,
    play,
    play_out,
    take_talon,
    whist,
    whist_pass,
    with_rules,
)

from domain.deal.decider import decide, is_terminal, legal_actions, to_act
from domain.deal.messages import (
    CallWhist,
    DealEnded,
    HandsOpened,
    PlayChosen,
    PlayStarted,
    WhistCalled,
)
from domain.deal.state import DealFinished, Playing, Whisting
from domain.errors import DealOver, NotYourTurn
from domain.outcome import DealOutcome, DefenderRole

JUMPS = with_rules(bidding={"allow_jumps": True})
GENTLEMAN = with_rules("leningrad", bidding={"allow_jumps": True})


def choices_of(state, seat):
    return [a.choice for a in legal_actions(state, seat) if isinstance(a, CallWhist)]


def not_played(contract, first, second, *, declarer=0):
    return DealOutcome(
        kind="game",
        dealer=2,
        seats=3,
        hands=(0, 1, 2),
        tricks=(0, 0, 0),
        declarer=declarer,
        contract=contract,
        defenders=(first, second),
        played=False,
    )


def pass_role(seat, **kw):
    return DefenderRole(seat=seat, choice="pass", **kw)


# ---- the order ---------------------------------------------------------------------------------


def test_the_player_on_the_declarers_left_speaks_first():
    given = declared("6S")
    assert isinstance(given, Whisting)
    assert to_act(given) == (1,)
    assert choices_of(given, 1) == ["whist", "pass"]
    assert_refused(whist(2), given, "illegal.not_your_turn", NotYourTurn)


def test_when_the_third_hand_declares_the_first_hand_speaks_first():
    given = after(
        dealt(), pass_(0), pass_(1), bid(2, "6S"), take_talon(2), discard(2, "7C 8C"),
        declare(2, "6H"),
    )  # fmt: skip
    assert to_act(given) == (0,)


def test_at_four_the_first_opponent_is_the_next_active_seat_past_the_sitting_out_dealer():
    rules = with_rules(players=4)
    hands = (*ALL_TEN[0], ())
    given = after(dealt((hands, ALL_TEN[1]), rules=rules, dealer=3), pass_(0), pass_(1),
                  bid(2, "6S"), take_talon(2), discard(2, "8H 7H"), declare(2, "6S"))  # fmt: skip
    assert to_act(given) == (0,)
    assert to_act(after(given, whist_pass(0))) == (1,)


def test_the_second_opponent_may_whist_or_pass_whatever_the_first_did():
    after_whist = after(declared("8S", rules=JUMPS), whist(1))
    after_pass = after(declared("8S", rules=JUMPS), whist_pass(1))
    assert choices_of(after_whist, 2) == ["whist", "pass"]
    assert choices_of(after_pass, 2) == ["whist", "pass"]


def test_misere_is_not_whisted():
    given = declared("MISER")
    assert isinstance(given, Playing) and given.kind == "miser"


# ---- both pass -----------------------------------------------------------------------------------


def test_when_both_opponents_pass_the_deal_ends_without_play():
    given = after(declared("7S", rules=JUMPS), whist_pass(1))
    assert events_of(given, whist_pass(2)) == [
        WhistCalled(seat=2, choice="pass"),
        DealEnded(outcome=not_played("7S", pass_role(1), pass_role(2))),
    ]
    assert is_terminal(after(given, whist_pass(2)))


def test_acting_after_the_deal_is_over_is_refused():
    given = after(declared("6S"), whist_pass(1), whist_pass(2))
    assert isinstance(given, DealFinished)
    with pytest.raises(DealOver) as refusal:
        decide(play(0, "AS"), given)
    assert refusal.value.code == "illegal.deal_over"
    assert legal_actions(given, 0) == [] and to_act(given) == ()


# ---- half-whist and return whist -------------------------------------------------------------


@pytest.mark.parametrize("contract", ["6S", "7S"])
def test_half_whist_is_offered_on_six_and_seven_after_the_first_opponent_passed(contract):
    given = after(declared(contract, rules=JUMPS), whist_pass(1))
    assert choices_of(given, 2) == ["whist", "pass", "half_whist"]


@pytest.mark.parametrize("contract", ["8S", "9S"])
def test_half_whist_on_eight_or_more_is_refused(contract):
    given = after(declared(contract, rules=JUMPS), whist_pass(1))
    assert choices_of(given, 2) == ["whist", "pass"]
    assert_refused(half_whist(2), given, "illegal.half_whist_not_allowed")


def test_the_first_opponent_may_not_half_whist():
    assert_refused(half_whist(1), declared("6S"), "illegal.half_whist_not_allowed")


def test_half_whist_is_not_offered_after_the_first_opponent_whisted():
    given = after(declared("6S"), whist(1))
    assert "half_whist" not in choices_of(given, 2)


def test_without_half_whist_in_the_rules_it_is_not_offered():
    given = after(declared("6S", rules=with_rules(whist={"half_whist": False})), whist_pass(1))
    assert choices_of(given, 2) == ["whist", "pass"]


def test_after_a_half_whist_the_first_opponent_may_return_the_whist():
    given = after(declared("6S"), whist_pass(1), half_whist(2))
    assert to_act(given) == (1,)
    assert choices_of(given, 1) == ["whist", "pass"]


def test_a_half_whist_that_stands_ends_the_deal_without_play():
    given = after(declared("6S"), whist_pass(1), half_whist(2))
    outcome = not_played("6S", pass_role(1), DefenderRole(seat=2, choice="half_whist"))
    assert events_of(given, whist_pass(1)) == [
        WhistCalled(seat=1, choice="pass"),
        DealEnded(outcome=outcome),
    ]


def test_a_returned_whist_makes_the_first_opponent_the_whister_and_the_half_whister_a_passer():
    given = after(declared("6S"), whist_pass(1), half_whist(2), whist(1))
    assert to_act(given) == (1,)
    assert legal_actions(given, 1) == [open_play(1), closed_play(1)]
    events = events_of(given, closed_play(1))
    assert events[1].defenders == (
        DefenderRole(seat=1, choice="whist", whist_rank=1),
        pass_role(2, was_half_whist=True),
    )


def test_a_returned_whist_is_recorded_in_the_outcome_of_the_played_deal():
    given = after(declared("6S", deal=ALL_TEN), whist_pass(1), half_whist(2), whist(1))
    state = play_out(after(given, closed_play(1)))
    assert state.outcome == DealOutcome(
        kind="game",
        dealer=2,
        seats=3,
        hands=(0, 1, 2),
        tricks=(10, 0, 0),
        declarer=0,
        contract="6S",
        defenders=(
            DefenderRole(seat=1, choice="whist", whist_rank=1),
            DefenderRole(seat=2, choice="pass", was_half_whist=True),
        ),
    )


# ---- gentleman whist --------------------------------------------------------------------------


def test_in_gentleman_whist_the_first_opponent_may_go_to_half_whist_after_whist_and_pass():
    given = after(declared("6S", rules=GENTLEMAN), whist(1), whist_pass(2))
    assert legal_actions(given, 1) == [open_play(1), closed_play(1), half_whist(1)]
    assert events_of(given, half_whist(1)) == [WhistCalled(seat=1, choice="half_whist")]


def test_in_gentleman_whist_the_passer_may_then_return_the_whist():
    given = after(declared("6S", rules=GENTLEMAN), whist(1), whist_pass(2), half_whist(1))
    assert to_act(given) == (2,)
    assert choices_of(given, 2) == ["whist", "pass"]
    events = events_of(given, whist(2), closed_play(2))
    assert events[-1].defenders == (
        pass_role(1, was_half_whist=True),
        DefenderRole(seat=2, choice="whist", whist_rank=1),
    )


def test_in_gentleman_whist_an_unreturned_half_whist_ends_the_deal_without_play():
    given = after(declared("7S", rules=GENTLEMAN), whist(1), whist_pass(2), half_whist(1))
    outcome = not_played("7S", DefenderRole(seat=1, choice="half_whist"), pass_role(2))
    assert events_of(given, whist_pass(2))[-1] == DealEnded(outcome=outcome)


def test_in_greedy_whist_there_is_no_half_whist_after_whist_and_pass():
    given = after(declared("6S"), whist(1), whist_pass(2))
    assert legal_actions(given, 1) == [open_play(1), closed_play(1)]
    assert_refused(half_whist(1), given, "illegal.whisting_over")


def test_in_gentleman_whist_there_is_no_half_whist_on_eight():
    given = after(declared("8S", rules=GENTLEMAN), whist(1), whist_pass(2))
    assert legal_actions(given, 1) == [open_play(1), closed_play(1)]


# ---- two whisters ---------------------------------------------------------------------------


def test_two_whisters_play_closed_and_are_ranked_in_the_order_they_said_whist():
    given = after(declared("6S"), whist(1))
    events = events_of(given, whist(2))
    assert events == [
        WhistCalled(seat=2, choice="whist"),
        PlayStarted(
            kind="game",
            controllers=(0, 1, 2),
            trump="S",
            leader=0,
            declarer=0,
            contract="6S",
            defenders=(
                DefenderRole(seat=1, choice="whist", whist_rank=1),
                DefenderRole(seat=2, choice="whist", whist_rank=2),
            ),
        ),
    ]


def test_a_single_second_opponent_whister_is_ranked_first():
    given = after(declared("6S"), whist_pass(1), whist(2))
    events = events_of(given, closed_play(2))
    assert events[1].defenders == (pass_role(1), DefenderRole(seat=2, choice="whist", whist_rank=1))


# ---- the single whister: open or closed play -------------------------------------------------


def test_the_single_whister_chooses_open_or_closed_play():
    given = after(declared("6S"), whist(1), whist_pass(2))
    assert to_act(given) == (1,)
    assert_refused(open_play(2), given, "illegal.not_your_turn", NotYourTurn)


def test_the_open_or_closed_choice_waits_for_the_whisting_to_end():
    assert_refused(open_play(1), after(declared("6S"), whist(1)), "illegal.whisting_not_over")


def test_in_open_play_both_defending_hands_are_laid_face_up_and_the_whister_plays_both():
    given = after(declared("6S"), whist(1), whist_pass(2))
    events = events_of(given, open_play(1))
    assert events[0] == PlayChosen(seat=1, open=True)
    assert events[1].controllers == (0, 1, 1) and events[1].open_play
    assert events[2] == HandsOpened.of({1: given.hands[1], 2: given.hands[2]})
    state = after(given, open_play(1), play(0, "AC"), play(1, "9C"))
    assert to_act(state) == (1,)  # the whister plays the passer's hand
    assert [a.card for a in legal_actions(state, 1)] == ["7C", "8C"]
    assert_refused(play(2, "7C"), state, "illegal.not_your_turn", NotYourTurn)
    assert after(state, play(1, "7C")).last_trick == ((0, "AC"), (1, "9C"), (2, "7C"))


def test_in_closed_play_the_passer_plays_his_own_hand():
    given = after(declared("6S"), whist(1), whist_pass(2))
    events = events_of(given, closed_play(1))
    assert events[0] == PlayChosen(seat=1, open=False)
    assert events[1].controllers == (0, 1, 2) and not events[1].open_play
    assert len(events) == 2  # nothing is laid open
    state = after(given, closed_play(1), play(0, "AC"), play(1, "9C"))
    assert to_act(state) == (2,)
    assert_refused(play(1, "7C"), state, "illegal.not_your_turn", NotYourTurn)


# ---- the 10 ------------------------------------------------------------------------------------


def test_a_ten_is_checked_with_every_hand_open_and_no_whisting():
    given = after(dealt(ALL_TEN, rules=JUMPS), bid(0, "10S"), pass_(1), pass_(2))
    given = after(given, take_talon(0), discard(0, "8H 7H"))
    events = events_of(given, declare(0, "10S"))
    assert isinstance(events[1], PlayStarted) and events[1].checked
    assert events[1].defenders == (pass_role(1), pass_role(2))
    assert events[2] == HandsOpened.of({s: given.hands[s] for s in (0, 1, 2)})


def test_with_ten_is_checked_off_a_ten_is_whisted_without_half_whist():
    rules = with_rules(bidding={"allow_jumps": True}, whist={"ten_is_checked": False})
    given = after(declared("10S", deal=ALL_TEN, rules=rules), whist_pass(1))
    assert choices_of(given, 2) == ["whist", "pass"]


# ---- compulsory whist («Сталинград») -------------------------------------------------------


def test_without_stalingrad_no_game_is_compulsory_to_whist():
    given = declared("6S")
    assert isinstance(given, Whisting) and given.calls == ()


def test_with_stalingrad_both_opponents_must_whist_six_spades():
    rules = with_rules(whist={"stalingrad": True})
    given = won_auction_and_discard(rules)
    events = events_of(given, declare(0, "6S"))
    assert events[1:3] == [
        WhistCalled(seat=1, choice="whist", forced=True),
        WhistCalled(seat=2, choice="whist", forced=True),
    ]
    assert events[3].defenders == (
        DefenderRole(seat=1, choice="whist", whist_rank=1, forced=True),
        DefenderRole(seat=2, choice="whist", whist_rank=2, forced=True),
    )
    assert not events[3].open_play


def test_with_stalingrad_other_sixes_are_whisted_freely():
    given = won_auction_and_discard(with_rules(whist={"stalingrad": True}))
    assert isinstance(after(given, declare(0, "6C")), Whisting)


def won_auction_and_discard(rules):
    return after(dealt(rules=rules), bid(0, "6S"), pass_(1), pass_(2), take_talon(0),
                 discard(0, "8H 7H"))  # fmt: skip


def test_a_whisting_choice_outside_the_offered_ones_is_refused():
    given = after(declared("6S"), whist(1))
    assert_refused(half_whist(2), given, "illegal.half_whist_not_allowed")
