"""Games without the talon (игры без прикупа, docs/rules.md §B.1, I-5, I-6): misère without the
talon and the nines without the talon, their place on the ladder, the talon set aside unseen,
the declaration and the prices.

The standard table: seat 2 deals, so seat 0 is the first hand, seat 1 the second, seat 2 the
third.
"""

from __future__ import annotations

import pytest
from deal_helpers import (
    MISER_HAND,
    STANDARD,
    after,
    assert_refused,
    bid,
    closed_play,
    dealt,
    declare,
    declared,
    discard,
    events_of,
    look,
    pass_,
    play_out,
    take_talon,
    whist_pass,
    with_rules,
)

from domain.cards import MISER, MISER_WT, TALONLESS_NINES, sort_hand
from domain.deal.decider import legal_actions, to_act
from domain.deal.messages import (
    AuctionWon,
    CallWhist,
    ContractDeclared,
    Declare,
    MakeBid,
    Pass,
    PlayStarted,
    TalonSetAside,
)
from domain.deal.state import Bidding, DealFinished, Declaring, Playing, Whisting
from domain.deal.view import seat_view, visible_cards
from domain.errors import InvalidRules
from domain.outcome import DealOutcome, DefenderRole
from domain.rules import rules_for
from domain.scoring import score_deal
from domain.sheet import empty_sheet

TALONLESS = with_rules(bidding={"talonless_games": True})
RAISE = with_rules(bidding={"miser_without_talon": True})
BOTH = with_rules(bidding={"talonless_games": True, "miser_without_talon": True})
JUMPING = with_rules(bidding={"talonless_games": True, "allow_jumps": True})


def bids_of(state, seat):
    return [a.bid for a in legal_actions(state, seat) if isinstance(a, MakeBid)]


def calls_of(state, seat):
    return [type(a).__name__ if not isinstance(a, MakeBid) else a.bid
            for a in legal_actions(state, seat)]  # fmt: skip


def bid_up_to(rules, *calls):
    """Seats 0, 1, 2 in turn make ``calls`` (a bid, or "PASS")."""
    state = dealt(rules=rules)
    for call in calls:
        (seat,) = to_act(state)
        state = after(state, pass_(seat) if call == "PASS" else bid(seat, call))
    return state


# --- the ladder -----------------------------------------------------------------------------------


def test_without_the_option_no_game_without_the_talon_may_be_bid():
    state = dealt()
    assert not any(b.endswith("WT") for b in bids_of(state, 0))
    assert_refused(bid(0, MISER_WT), state, "illegal.talonless_off")
    assert_refused(bid(0, "9SWT"), bid_up_to(with_rules(bidding={"allow_jumps": True})),
                   "illegal.talonless_off")  # fmt: skip


def test_misere_without_the_talon_may_be_a_first_bid_over_any_lower_bid():
    state = bid_up_to(TALONLESS, "6S")
    assert bids_of(state, 1) == ["6C", MISER, MISER_WT]
    assert isinstance(after(state, bid(1, MISER_WT)), Bidding)


def test_a_player_who_made_a_trick_bid_may_not_bid_misere_without_the_talon():
    state = bid_up_to(TALONLESS, "6S", "6C", "PASS")
    assert MISER_WT not in bids_of(state, 0)
    assert_refused(bid(0, MISER_WT), state, "illegal.miser_after_trick_bid")


def test_a_nine_without_the_talon_is_the_step_after_9nt():
    state = after(dealt(rules=TALONLESS, min_level=9), bid(0, "9S"), bid(1, "9C"),
                  bid(2, "9D"), bid(0, "9H"), bid(1, "9NT"))  # fmt: skip
    assert bids_of(state, 2) == ["9SWT"]  # seat 2 bid 9♦: no misère of any kind for him
    jumping = bid_up_to(JUMPING, "9NT")
    assert bids_of(jumping, 1)[:6] == [MISER_WT, *TALONLESS_NINES]
    assert bids_of(jumping, 1)[6] == "10S"


def test_after_misere_without_the_talon_the_nines_without_the_talon_overcall_it():
    state = bid_up_to(TALONLESS, MISER_WT)
    assert bids_of(state, 1) == ["9SWT"]


def test_misere_without_the_talon_is_overcalled_by_a_ten_where_no_nine_is_played_without_it():
    state = bid_up_to(RAISE, MISER, "9S", "PASS", MISER_WT)
    assert bids_of(state, 1) == ["10S"]


def test_a_dark_misere_is_not_overcalled_by_misere_without_the_talon():
    rules = with_rules(bidding={"talonless_games": True}, classic={"dark_games": True})
    state = after(dealt(rules=rules), MakeBid(seat=0, bid=MISER, dark=True), look(1))
    assert MISER_WT not in bids_of(state, 1)
    assert_refused(bid(1, MISER_WT), state, "illegal.dark_miser")


# --- misère without the talon after being outbid (I-5) -------------------------------------------


def test_by_default_an_outbid_misere_bidder_may_only_pass():
    state = bid_up_to(with_rules(), MISER, "9S", "PASS")
    assert calls_of(state, 0) == ["Pass"]
    assert_refused(bid(0, MISER_WT), state, "illegal.miser_without_talon_off")


def test_an_outbid_misere_bidder_may_raise_to_misere_without_the_talon():
    state = bid_up_to(RAISE, MISER, "9S", "PASS")
    assert calls_of(state, 0) == ["Pass", MISER_WT]
    assert_refused(bid(0, "9C"), state, "illegal.trick_bid_after_miser")


def test_games_without_the_talon_alone_do_not_let_the_misere_bidder_raise():
    state = bid_up_to(TALONLESS, MISER, "9S", "PASS")
    assert calls_of(state, 0) == ["Pass"]
    assert_refused(bid(0, MISER_WT), state, "illegal.miser_without_talon_off")


def test_once_misere_without_the_talon_is_outbid_its_bidder_may_only_pass():
    state = bid_up_to(BOTH, MISER, "9S", "PASS", MISER_WT, "9SWT")
    assert calls_of(state, 0) == ["Pass"]
    assert_refused(bid(0, MISER_WT), state, "illegal.bid_not_higher")


# --- the talon set aside ------------------------------------------------------------------------


def test_winning_with_misere_without_the_talon_sets_the_talon_aside_and_plays_misere():
    given = after(dealt(MISER_HAND, rules=TALONLESS), bid(0, MISER_WT), pass_(1))
    events = events_of(given, pass_(2))
    kinds = [type(e) for e in events]
    assert kinds[1:4] == [AuctionWon, TalonSetAside, ContractDeclared]
    assert events[3] == ContractDeclared(seat=0, contract=MISER_WT)
    assert next(e for e in events if isinstance(e, PlayStarted)).kind == "miser"
    state = after(given, pass_(2))
    assert isinstance(state, Playing)
    assert state.talon == MISER_HAND[1] and len(state.hands[0]) == 10
    assert state.discard == ()


def test_winning_with_a_nine_without_the_talon_goes_straight_to_the_declaration():
    state = after(dealt(rules=JUMPING, min_level=9), bid(0, "9DWT"), pass_(1), pass_(2))
    assert isinstance(state, Declaring)
    assert (state.bid, state.talon) == ("9DWT", STANDARD[1])
    assert state.hands[0] == sort_hand(STANDARD[0][0])
    assert legal_actions(state, 0) == [
        Declare(seat=0, contract=c) for c in ("9DWT", "9HWT", "9NTWT")
    ]


def test_after_a_nine_without_the_talon_the_contract_is_such_a_nine_not_below_the_bid():
    state = after(dealt(rules=JUMPING, min_level=9), bid(0, "9DWT"), pass_(1), pass_(2))
    assert_refused(declare(0, "9D"), state, "illegal.talonless_contract")
    assert_refused(declare(0, "10S"), state, "illegal.talonless_contract")
    assert_refused(declare(0, "9SWT"), state, "illegal.declared_below_bid")
    assert_refused(declare(0, MISER_WT), state, "illegal.talonless_contract")
    assert isinstance(after(state, declare(0, "9NTWT")), Whisting)


def test_a_game_without_the_talon_is_not_named_after_taking_the_talon():
    state = after(
        dealt(rules=TALONLESS), bid(0, "6S"), pass_(1), pass_(2), take_talon(0),
        discard(0, "8H 7H"),
    )  # fmt: skip
    contracts = [a.contract for a in legal_actions(state, 0) if isinstance(a, Declare)]
    assert contracts and not any(c.endswith("WT") for c in contracts)
    assert_refused(declare(0, "9SWT"), state, "illegal.talonless_contract")
    assert isinstance(declared("6S", rules=TALONLESS), Whisting)


def test_a_nine_without_the_talon_is_whisted_as_a_nine_without_half_whist():
    state = after(dealt(rules=JUMPING, min_level=9), bid(0, "9SWT"), pass_(1), pass_(2),
                  declare(0, "9SWT"), whist_pass(1))  # fmt: skip
    assert legal_actions(state, 2) == [CallWhist(seat=2, choice=c) for c in ("whist", "pass")]


def test_nobody_ever_sees_the_talon_of_a_game_without_the_talon():
    state = after(dealt(rules=JUMPING, min_level=9), bid(0, "9SWT"), pass_(1), pass_(2),
                  declare(0, "9SWT"), whist_pass(1), CallWhist(seat=2, choice="whist"))  # fmt: skip
    state = play_out(after(state, closed_play(2)))
    assert isinstance(state, DealFinished)
    assert state.talon == STANDARD[1]
    assert state.outcome.contract == "9SWT"
    for viewer in (0, 1, 2, None):
        view = seat_view(state, viewer)
        assert view.talon == () and view.talon_size == 2
        assert not visible_cards(view) & set(STANDARD[1])


# --- prices -----------------------------------------------------------------------------------


def outcome(contract: str, tricks: tuple[int, int, int], *, kind: str = "game") -> DealOutcome:
    defenders = (
        (DefenderRole(seat=1, choice="whist", whist_rank=1), DefenderRole(seat=2, choice="pass"))
        if kind == "game"
        else (DefenderRole(seat=1, choice="pass"), DefenderRole(seat=2, choice="pass"))
    )
    return DealOutcome(
        kind=kind, dealer=2, seats=3, hands=(0, 1, 2), tricks=tricks, declarer=0,  # type: ignore[arg-type]
        contract=contract, defenders=defenders,
    )  # fmt: skip


def entries(o: DealOutcome, rules) -> list[tuple[str, int, int, int | None]]:
    score = score_deal(o, empty_sheet(3), rules)
    return [(e.kind, e.seat, e.amount, e.on) for e in score.entries]


def test_a_made_misere_without_the_talon_is_priced_as_a_misere():
    # misère without the talon made: price 10 to the pool (preferans.pro; the old "big misère")
    assert entries(outcome(MISER_WT, (0, 6, 4), kind="miser"), TALONLESS) == [("pool", 0, 10, None)]


def test_a_failed_misere_without_the_talon_costs_10_a_trick():
    # two tricks taken: 2 × 10 = 20 to the mountain
    got = entries(outcome(MISER_WT, (2, 4, 4), kind="miser"), TALONLESS)
    assert got == [("mountain", 0, 20, None)]


def test_a_nine_without_the_talon_is_priced_as_a_nine_by_default():
    # 9♠ without the talon made with 9, whisted by seat 1 alone, the defence took 1:
    # pool 8; whists 1 × 8 = 8
    got = entries(outcome("9SWT", (9, 1, 0)), TALONLESS)
    assert got == [("pool", 0, 8, None), ("whists", 1, 8, 0)]


def test_talonless_extra_raises_the_price_of_every_game_without_the_talon():
    rules = with_rules(
        bidding={"talonless_games": True}, scoring={"talonless_extra": 2}, pool={"target": 20}
    )
    # 9♠ without the talon down one (8 tricks), P = 8 + 2 = 10: remiz 1 × 10 = 10; seat 1
    # whists for the defence's 2 tricks 2 × 10 = 20 + consolation 10 = 30; seat 2 (passer,
    # greedy) consolation 10.
    got = entries(outcome("9SWT", (8, 1, 1)), rules)
    assert ("mountain", 0, 10, None) in got
    assert sum(a for k, s, a, on in got if k == "whists" and s == 1) == 30
    assert sum(a for k, s, a, on in got if k == "whists" and s == 2) == 10
    # misère without the talon made: 10 + 2 = 12; a misère with the talon keeps 10
    assert entries(outcome(MISER_WT, (0, 5, 5), kind="miser"), rules) == [("pool", 0, 12, None)]
    assert entries(outcome(MISER, (0, 5, 5), kind="miser"), rules) == [("pool", 0, 10, None)]
    # a nine with the talon keeps its price 8
    assert entries(outcome("9S", (9, 1, 0)), rules)[0] == ("pool", 0, 8, None)


def test_talonless_extra_is_an_even_number():
    with pytest.raises(InvalidRules):
        rules_for("sochi", {"scoring": {"talonless_extra": 3}})


def test_the_contracts_without_the_talon_are_the_five_nines():
    assert TALONLESS_NINES == ("9SWT", "9CWT", "9DWT", "9HWT", "9NTWT")
    assert Pass(seat=0) in legal_actions(dealt(rules=TALONLESS), 0)
