"""Classic options, all off by default: calls in the dark (пас втёмную, «раз втёмную», dark
misère), totus (тотус) and the concession without play («без трёх») (docs/rules.md §B.3, §C, I-17,
I-26).

The standard table: seat 2 deals, seat 0 is the first hand.
"""

from __future__ import annotations

import pytest
from deal_helpers import (
    ALL_PASS_SWEEP,
    ALL_TEN,
    after,
    assert_refused,
    bid,
    dealt,
    declare,
    discard,
    events_of,
    look,
    pass_,
    play_out,
    take_talon,
    whist_pass,
    with_rules,
)

from domain.cards import MISER
from domain.deal.decider import legal_actions, to_act
from domain.deal.messages import (
    AuctionWon,
    CardsLooked,
    Concede,
    Conceded,
    ContractDeclared,
    DealEnded,
    Declare,
    DeclareTotus,
    Discarded,
    HandsOpened,
    LookAtCards,
    MakeBid,
    Pass,
    PlayStarted,
    TalonTaken,
    TotusShown,
    WhistCalled,
)
from domain.deal.state import AwaitingTalon, DealFinished, TotusDiscarding, Whisting
from domain.errors import NotYourTurn
from domain.outcome import DealOutcome, DefenderRole

DARK = with_rules(classic={"dark_games": True})
TOTUS = with_rules(classic={"totus": True}, bidding={"allow_jumps": True})


def bids_of(state, seat):
    return [a.bid for a in legal_actions(state, seat) if isinstance(a, MakeBid)]


# ---- looking at the cards ---------------------------------------------------------------------


def test_with_dark_games_a_player_calls_in_the_dark_or_looks_at_his_cards_first():
    given = dealt(rules=DARK)
    assert legal_actions(given, 0) == [
        LookAtCards(seat=0),
        Pass(seat=0, dark=True),
        MakeBid(seat=0, bid="6S", dark=True),
        MakeBid(seat=0, bid=MISER, dark=True),
    ]
    assert_refused(pass_(0), given, "illegal.look_first")


def test_after_looking_a_player_calls_in_the_light():
    given = after(dealt(rules=DARK), look(0))
    assert legal_actions(given, 0) == [Pass(seat=0), bid(0, "6S"), bid(0, MISER)]
    assert_refused(pass_(0, dark=True), given, "illegal.dark_pass_not_allowed")
    assert_refused(bid(0, "6S", dark=True), given, "illegal.dark_after_looking")


def test_a_player_may_pick_up_his_cards_while_another_is_to_call():
    given = dealt(rules=DARK)
    assert events_of(given, look(2)) == [CardsLooked(seat=2)]
    assert_refused(look(2), after(given, look(2)), "illegal.already_looked")


def test_without_dark_games_there_are_no_dark_calls():
    given = dealt()
    assert_refused(bid(0, "6S", dark=True), given, "illegal.dark_games_off")
    assert_refused(pass_(0, dark=True), given, "illegal.dark_pass_not_allowed")
    assert_refused(look(0), given, "illegal.dark_games_off")


# ---- the dark pass ----------------------------------------------------------------------------


def test_a_dark_pass_is_overcalled_only_by_a_seven():
    given = after(dealt(rules=DARK), pass_(0, dark=True), look(1))
    assert bids_of(given, 1) == ["7S", MISER]
    assert_refused(bid(1, "6S"), given, "illegal.below_minimum")


def test_a_second_dark_pass_is_overcalled_only_by_an_eight():
    given = after(dealt(rules=DARK), pass_(0, dark=True), pass_(1, dark=True), look(2))
    assert bids_of(given, 2) == ["8S", MISER]


def test_after_two_dark_passes_a_silent_take_must_declare_at_least_an_eight():
    given = after(dealt(rules=DARK), pass_(0, dark=True), pass_(1, dark=True), look(2))
    given = after(given, take_talon(2), discard(2, "7C 8C"))
    contracts = [a.contract for a in legal_actions(given, 2) if isinstance(a, Declare)]
    assert contracts[:2] == ["8S", "8C"]
    assert_refused(declare(2, "7NT"), given, "illegal.declared_below_bid")


def test_a_dark_pass_is_made_before_anyone_has_bid():
    given = after(dealt(rules=DARK), bid(0, "6S", dark=True))
    assert_refused(pass_(1, dark=True), given, "illegal.dark_pass_not_allowed")


def test_an_all_pass_after_two_dark_passes_is_priced_four_times_with_their_bombs():
    given = after(dealt(ALL_PASS_SWEEP, rules=DARK), pass_(0, dark=True), pass_(1, dark=True))
    state = play_out(after(given, look(2), pass_(2)))
    assert state.outcome == DealOutcome(
        kind="raspasy",
        dealer=2,
        seats=3,
        hands=(0, 1, 2),
        tricks=(10, 0, 0),
        raspasy_factor=4,
        dark_passers=(0, 1),
    )


# ---- the dark game («раз втёмную») ------------------------------------------------------------


def dark_six_won(deal=ALL_TEN):
    return after(dealt(deal, rules=DARK), bid(0, "6S", dark=True), look(1), pass_(1), look(2),
                 pass_(2))  # fmt: skip


def test_a_game_bid_in_the_dark_is_won_in_the_dark():
    given = after(dealt(rules=DARK), bid(0, "6S", dark=True), look(1), pass_(1), look(2))
    assert events_of(given, pass_(2))[-1] == AuctionWon(seat=0, bid="6S", dark=True)


def test_the_talon_of_a_dark_game_is_not_shown():
    given = dark_six_won()
    assert events_of(given, take_talon(0)) == [TalonTaken(seat=0, cards=("8H", "7H"), shown=False)]
    assert after(given, take_talon(0)).shown_talon == ()


def test_a_dark_six_must_be_whisted_by_both_opponents():
    given = after(dark_six_won(), take_talon(0), discard(0, "8H 7H"))
    events = events_of(given, declare(0, "6S"))
    assert events[0] == ContractDeclared(seat=0, contract="6S", dark=True)
    assert events[1:3] == [
        WhistCalled(seat=1, choice="whist", forced=True),
        WhistCalled(seat=2, choice="whist", forced=True),
    ]
    assert isinstance(events[3], PlayStarted) and not events[3].open_play


def test_a_dark_game_above_six_is_whisted_freely_and_its_outcome_is_dark():
    given = after(dark_six_won(), take_talon(0), discard(0, "8H 7H"), declare(0, "7S"))
    assert isinstance(given, Whisting) and given.calls == ()
    state = after(given, whist_pass(1), whist_pass(2))
    assert isinstance(state, DealFinished)
    assert state.outcome.dark and not state.outcome.played


def test_switching_a_dark_game_to_misere_before_taking_the_talon_cancels_the_darkness():
    given = dark_six_won()
    assert legal_actions(given, 0) == [take_talon(0), Declare(seat=0, contract=MISER)]
    assert events_of(given, declare(0, MISER)) == [
        AuctionWon(seat=0, bid=MISER, dark=False),
        TalonTaken(seat=0, cards=("8H", "7H"), shown=True),
    ]
    state = play_out(after(given, declare(0, MISER), discard(0, "8H 7H")))
    assert state.outcome.kind == "miser" and not state.outcome.dark


def test_a_game_won_in_the_light_is_not_switched_to_misere():
    given = after(dealt(), bid(0, "6S"), pass_(1), pass_(2))
    assert isinstance(given, AwaitingTalon)
    assert_refused(declare(0, MISER), given, "illegal.declare_after_discard")


# ---- the dark misère ------------------------------------------------------------------------


def test_a_dark_misere_is_overcalled_only_by_a_dark_ten():
    given = after(dealt(rules=DARK), bid(0, MISER, dark=True))
    assert legal_actions(given, 1) == [LookAtCards(seat=1), bid(1, "10S", dark=True)]
    assert_refused(bid(1, "9S", dark=True), given, "illegal.dark_miser")
    assert after(given, bid(1, "10S", dark=True)).highest == "10S"


def test_a_dark_misere_is_not_overcalled_in_the_light():
    given = after(dealt(rules=DARK), bid(0, MISER, dark=True), look(1))
    assert legal_actions(given, 1) == [Pass(seat=1)]
    assert_refused(bid(1, "9S"), given, "illegal.dark_miser")


# ---- totus (тотус) ------------------------------------------------------------------------------


def totus_shown():
    given = after(dealt(ALL_TEN, rules=TOTUS), bid(0, "6S"), pass_(1), pass_(2), take_talon(0))
    return after(given, DeclareTotus(seat=0, strain="S"))


def test_a_totus_shows_the_declarers_twelve_cards():
    given = after(dealt(ALL_TEN, rules=TOTUS), bid(0, "6S"), pass_(1), pass_(2), take_talon(0))
    assert DeclareTotus(seat=0, strain="NT") in legal_actions(given, 0)
    assert events_of(given, DeclareTotus(seat=0, strain="S")) == [
        TotusShown(seat=0, strain="S"),
        HandsOpened.of({0: given.hands[0]}),
    ]


def test_the_opponent_chooses_the_totus_discard():
    given = totus_shown()
    assert isinstance(given, TotusDiscarding)
    assert to_act(given) == (1,)
    assert_refused(discard(0, "8H 7H"), given, "illegal.not_your_turn", NotYourTurn)
    events = events_of(given, discard(1, "8H 7H"))
    assert events[:2] == [
        Discarded(seat=0, cards=("8H", "7H"), by=1),
        ContractDeclared(seat=0, contract="10S", totus=True),
    ]


def test_the_totus_discard_is_two_cards_of_the_declarers_hand():
    assert_refused(discard(1, "KC QC"), totus_shown(), "illegal.discard_not_held")


def test_a_totus_is_played_as_a_ten():
    state = play_out(after(totus_shown(), discard(1, "8H 7H")))
    assert state.outcome == DealOutcome(
        kind="game",
        dealer=2,
        seats=3,
        hands=(0, 1, 2),
        tricks=(10, 0, 0),
        declarer=0,
        contract="10S",
        defenders=(DefenderRole(seat=1, choice="pass"), DefenderRole(seat=2, choice="pass")),
        checked=True,
        totus=True,
    )


def test_without_totus_in_the_rules_it_is_refused():
    given = after(dealt(ALL_TEN), bid(0, "6S"), pass_(1), pass_(2), take_talon(0))
    assert not any(isinstance(a, DeclareTotus) for a in legal_actions(given, 0))
    assert_refused(DeclareTotus(seat=0, strain="S"), given, "illegal.totus_off")


def test_a_totus_is_not_below_the_winning_bid():
    given = after(dealt(ALL_TEN, rules=TOTUS), bid(0, "10H"), pass_(1), pass_(2), take_talon(0))
    strains = [a.strain for a in legal_actions(given, 0) if isinstance(a, DeclareTotus)]
    assert strains == ["H", "NT"]
    assert_refused(DeclareTotus(seat=0, strain="S"), given, "illegal.declared_below_bid")


# ---- the concession («без трёх») ----------------------------------------------------------


@pytest.mark.parametrize(("mode", "down"), [("down3", 3), ("down2", 2)])
def test_the_declarer_may_concede_without_play_where_the_rules_allow(mode, down):
    rules = with_rules(play={"concede": mode})
    given = after(dealt(rules=rules), bid(0, "6S"), pass_(1), pass_(2), take_talon(0),
                  discard(0, "8H 7H"))  # fmt: skip
    assert Concede(seat=0) in legal_actions(given, 0)
    assert events_of(given, Concede(seat=0)) == [
        Conceded(seat=0, undertricks=down),
        DealEnded(
            outcome=DealOutcome(
                kind="game",
                dealer=2,
                seats=3,
                hands=(0, 1, 2),
                tricks=(6 - down, 0, 0),
                declarer=0,
                contract="6S",
                defenders=(
                    DefenderRole(seat=1, choice="pass"),
                    DefenderRole(seat=2, choice="pass"),
                ),
                played=False,
                conceded=down,
            )
        ),
    ]


def test_without_concession_in_the_rules_the_declarer_must_play():
    given = after(dealt(), bid(0, "6S"), pass_(1), pass_(2), take_talon(0), discard(0, "8H 7H"))
    assert Concede(seat=0) not in legal_actions(given, 0)
    assert_refused(Concede(seat=0), given, "illegal.concede_off")
