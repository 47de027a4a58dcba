"""The auction (торговля): the ladder, no jumps, pass is final, the hold, kabal misère, the end
of bidding, all-pass, the silent take of the third hand and the exit from all-pass
(docs/rules.md §B, I-1…I-4, I-12).

The standard table: seat 2 deals, so seat 0 is the first hand, seat 1 the second, seat 2 the
third.
"""

from __future__ import annotations

from deal_helpers import (
    after,
    assert_refused,
    bid,
    dealt,
    events_of,
    pass_,
    take_talon,
    with_rules,
)

from domain.cards import MISER
from domain.deal.decider import legal_actions, to_act
from domain.deal.messages import (
    AllPassed,
    AuctionWon,
    BidMade,
    MakeBid,
    Pass,
    Passed,
    PlayStarted,
    TakeTalon,
    TalonCardTurned,
    TalonTaken,
)
from domain.deal.state import AwaitingTalon, Playing
from domain.errors import NotYourTurn


def bids_of(state, seat):
    return [a.bid for a in legal_actions(state, seat) if isinstance(a, MakeBid)]


# ---- the ladder and the steps -------------------------------------------------------------


def test_bidding_opens_at_six_spades_and_misere_may_be_the_first_bid():
    given = dealt()
    assert legal_actions(given, 0) == [Pass(seat=0), bid(0, "6S"), bid(0, MISER)]


def test_each_bid_is_the_next_step_up_the_ladder():
    given = after(dealt(), bid(0, "6S"), bid(1, "6C"))
    assert bids_of(given, 2) == ["6D", MISER]


def test_a_jump_bid_is_refused_without_allow_jumps():
    given = after(dealt(), bid(0, "6S"))
    assert_refused(bid(1, "7S"), given, "illegal.jump_bid")


def test_jump_bids_are_allowed_with_allow_jumps():
    rules = with_rules(bidding={"allow_jumps": True})
    given = after(dealt(rules=rules), bid(0, "6S"))
    assert bids_of(given, 1)[:3] == ["6C", "6D", "6H"]
    assert bids_of(given, 1)[-1] == "10NT"
    assert events_of(given, bid(1, "8NT")) == [BidMade(seat=1, bid="8NT")]


def test_a_bid_not_above_the_last_is_refused():
    given = after(dealt(), bid(0, "6S"), bid(1, "6C"), bid(2, "6D"))
    assert_refused(bid(0, "6C"), given, "illegal.bid_not_higher")


def test_misere_ranks_between_8nt_and_9s():
    given = after(dealt(rules=with_rules(bidding={"allow_jumps": True})), bid(0, "8NT"))
    assert bids_of(given, 1)[:2] == [MISER, "9S"]
    given = after(dealt(), bid(0, MISER))
    assert bids_of(given, 1) == ["9S"]


def test_a_bid_out_of_turn_is_refused():
    given = dealt()
    assert_refused(bid(1, "6S"), given, "illegal.not_your_turn", NotYourTurn)


# ---- pass is final -----------------------------------------------------------------------------


def test_a_player_who_passed_takes_no_further_part_in_the_bidding():
    given = after(dealt(), pass_(0), bid(1, "6S"), bid(2, "6C"))
    assert to_act(given) == (1,)  # seat 0 is skipped
    assert legal_actions(given, 0) == []
    assert_refused(bid(0, "6D"), given, "illegal.not_your_turn", NotYourTurn)


# ---- the hold («здесь») ----------------------------------------------------------------------


def test_the_senior_of_two_remaining_bidders_may_hold_the_juniors_bid():
    # Lesnoy's example: first hand 6♠, second hand pass, third hand 6♣: «трефа здесь»
    given = after(dealt(), bid(0, "6S"), pass_(1), bid(2, "6C"))
    assert bids_of(given, 0) == ["6C", "6D"]
    assert events_of(given, bid(0, "6C")) == [BidMade(seat=0, bid="6C", hold=True)]


def test_after_a_hold_the_junior_must_raise_or_pass():
    given = after(dealt(), bid(0, "6S"), pass_(1), bid(2, "6C"), bid(0, "6C"))
    assert bids_of(given, 2) == ["6D"]
    assert_refused(bid(2, "6C"), given, "illegal.hold_not_allowed")


def test_the_senior_may_hold_again_at_each_turn():
    given = after(dealt(), bid(0, "6S"), pass_(1), bid(2, "6C"), bid(0, "6C"), bid(2, "6D"))
    assert events_of(given, bid(0, "6D")) == [BidMade(seat=0, bid="6D", hold=True)]


def test_there_is_no_hold_while_three_bidders_remain():
    given = after(dealt(), bid(0, "6S"), bid(1, "6C"), bid(2, "6D"))
    assert bids_of(given, 0) == ["6H"]
    assert_refused(bid(0, "6D"), given, "illegal.hold_not_allowed")


def test_the_junior_may_not_hold_the_seniors_bid():
    given = after(dealt(), bid(0, "6S"), bid(1, "6C"), pass_(2), bid(0, "6C"))
    assert bids_of(given, 1) == ["6D"]
    assert_refused(bid(1, "6C"), given, "illegal.hold_not_allowed")


def test_the_senior_who_raises_instead_of_holding_keeps_the_hold_by_default():
    given = after(dealt(), bid(0, "6S"), pass_(1), bid(2, "6C"), bid(0, "6D"), bid(2, "6H"))
    assert bids_of(given, 0) == ["6H", "6NT"]


def test_with_hold_lapses_a_senior_who_raises_instead_of_holding_passes_the_hold_to_the_junior():
    rules = with_rules(bidding={"hold_lapses": True})
    given = after(dealt(rules=rules), bid(0, "6S"), pass_(1), bid(2, "6C"))
    assert events_of(given, bid(0, "6D")) == [BidMade(seat=0, bid="6D", hold_waived=True)]
    lapsed = after(given, bid(0, "6D"))
    assert bids_of(lapsed, 2) == ["6D", "6H"]
    assert bids_of(after(lapsed, bid(2, "6D")), 0) == ["6H"]


def test_with_the_starter_hold_rule_the_opener_may_hold_while_three_remain():
    rules = with_rules(bidding={"hold_rule": "starter"})
    given = after(dealt(rules=rules), bid(0, "6S"), bid(1, "6C"), bid(2, "6D"))
    assert bids_of(given, 0) == ["6D", "6H"]
    assert bids_of(after(given, bid(0, "6D")), 1) == ["6H"]


def test_with_the_through_passer_rule_the_hold_needs_the_passer_between_the_two():
    rules = with_rules(bidding={"hold_rule": "through_passer"})
    through = after(dealt(rules=rules), bid(0, "6S"), pass_(1), bid(2, "6C"))
    assert bids_of(through, 0) == ["6C", "6D"]
    not_between = after(dealt(rules=rules), bid(0, "6S"), bid(1, "6C"), pass_(2))
    assert bids_of(not_between, 0) == ["6D"]


def test_misere_is_never_held():
    given = after(dealt(), bid(0, "6S"), pass_(1), bid(2, MISER))
    assert bids_of(given, 0) == ["9S"]
    assert_refused(bid(0, MISER), given, "illegal.miser_after_trick_bid")


# ---- kabal misère -----------------------------------------------------------------------------


def test_misere_may_only_be_a_players_first_bid():
    given = after(dealt(), bid(0, "6S"), bid(1, "6C"), bid(2, "6D"))
    assert MISER not in bids_of(given, 0)
    refusal = assert_refused(bid(0, MISER), given, "illegal.miser_after_trick_bid")
    assert "кабальный" in refusal.message


def test_a_first_bid_of_misere_may_come_after_others_bid():
    given = after(dealt(), bid(0, "6S"), bid(1, "6C"))
    assert events_of(given, bid(2, MISER)) == [BidMade(seat=2, bid=MISER)]


def test_the_misere_bidder_may_not_bid_a_trick_game_afterwards():
    given = after(dealt(), bid(0, MISER), bid(1, "9S"), pass_(2))
    assert legal_actions(given, 0) == [Pass(seat=0)]
    assert_refused(bid(0, "9C"), given, "illegal.trick_bid_after_miser")


def test_misere_is_overcalled_by_nine_spades():
    given = after(dealt(), bid(0, MISER))
    assert events_of(given, bid(1, "9S")) == [BidMade(seat=1, bid="9S")]
    assert_refused(bid(1, "8NT"), given, "illegal.bid_not_higher")


def test_misere_is_not_bid_over_misere():
    given = after(dealt(), bid(0, MISER))
    assert_refused(bid(1, MISER), given, "illegal.bid_not_higher")


# ---- the end of the bidding ------------------------------------------------------------------


def test_the_bidding_ends_when_two_have_passed_and_the_last_bidder_wins():
    given = after(dealt(), bid(0, "6S"), pass_(1))
    assert events_of(given, pass_(2)) == [Passed(seat=2), AuctionWon(seat=0, bid="6S")]
    assert isinstance(after(given, pass_(2)), AwaitingTalon)


def test_a_bid_after_two_passes_wins_at_once():
    given = after(dealt(), pass_(0), pass_(1))
    assert events_of(given, bid(2, "6S")) == [
        BidMade(seat=2, bid="6S"),
        AuctionWon(seat=2, bid="6S"),
    ]


def test_the_winner_of_a_misere_auction_plays_misere():
    given = after(dealt(), bid(0, MISER), pass_(1))
    assert events_of(given, pass_(2)) == [Passed(seat=2), AuctionWon(seat=0, bid=MISER)]


def test_when_all_three_pass_the_deal_is_played_as_all_pass():
    given = after(dealt(), pass_(0), pass_(1))
    assert events_of(given, pass_(2)) == [
        Passed(seat=2),
        AllPassed(),
        PlayStarted(kind="raspasy", controllers=(0, 1, 2), trump=None, leader=0),
        TalonCardTurned(card="8H"),
    ]
    assert isinstance(after(given, pass_(2)), Playing)


# ---- the third hand after two passes --------------------------------------------------------


def test_after_two_passes_the_third_hand_may_take_the_talon_without_a_bid():
    given = after(dealt(), pass_(0), pass_(1))
    assert TakeTalon(seat=2) in legal_actions(given, 2)
    assert events_of(given, take_talon(2)) == [
        AuctionWon(seat=2, bid=None),
        TalonTaken(seat=2, cards=("8H", "7H")),
    ]


def test_the_talon_is_not_taken_silently_once_someone_has_bid():
    given = after(dealt(), bid(0, "6S"), pass_(1))
    assert TakeTalon(seat=2) not in legal_actions(given, 2)
    assert_refused(take_talon(2), given, "illegal.talon_not_yours")


def test_the_talon_is_not_taken_silently_before_two_passes():
    given = after(dealt(), pass_(0))
    assert_refused(take_talon(1), given, "illegal.talon_not_yours")


def test_without_third_hand_silent_talon_the_third_hand_must_bid_or_pass():
    rules = with_rules(bidding={"third_hand_silent_talon": False})
    given = after(dealt(rules=rules), pass_(0), pass_(1))
    assert legal_actions(given, 2) == [Pass(seat=2), bid(2, "6S"), bid(2, MISER)]
    assert_refused(take_talon(2), given, "illegal.talon_not_yours")


# ---- the exit from all-pass (выход из распасов) ---------------------------------------------


def test_a_raised_minimum_level_raises_the_opening_bid():
    given = dealt(min_level=7)
    assert bids_of(given, 0) == ["7S", MISER]
    assert_refused(bid(0, "6S"), given, "illegal.below_minimum")


def test_the_minimum_level_does_not_hold_back_a_later_bid():
    given = after(dealt(min_level=7), bid(0, "7S"))
    assert bids_of(given, 1) == ["7C", MISER]
