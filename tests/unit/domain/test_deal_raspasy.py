"""All-pass play (распасы): no trumps, the talon cards set the suit of the first two tricks, the
first hand leads the first three tricks, and Rostov never opens the talon (docs/rules.md §E.4, I-14,
I-16).

With seat 0 dealing, seat 1 is the first hand (void in hearts), seat 2 the second (all the high
hearts) and seat 0 the third; the talon is 8♥ then 7♥.
"""

from __future__ import annotations

import pytest
from deal_helpers import (
    ALL_PASS_SWEEP,
    ALL_TEN,
    after,
    dealt,
    events_of,
    layout,
    pass_,
    play,
    play_cards,
    play_out,
    with_rules,
)

from domain.deal import claims
from domain.deal.decider import decide, evolve, legal_actions, to_act
from domain.deal.messages import (
    AllPassed,
    CardPlayed,
    Claim,
    ClaimMade,
    Passed,
    PlayStarted,
    TalonCardTurned,
    TrickWon,
)
from domain.deal.play_rules import trick_winner
from domain.deal.state import DealFinished, Playing
from domain.errors import ClaimLimited, IllegalAction, InvalidRules
from domain.outcome import DealOutcome
from domain.rules import ROSTOV, rules_for


def all_pass(dealer=0, deal=None, rules=None):
    kwargs = {k: v for k, v in (("deal", deal), ("rules", rules)) if v is not None}
    first, second, third = ((dealer + k) % 3 for k in (1, 2, 3))
    return after(dealt(dealer=dealer, **kwargs), pass_(first), pass_(second), pass_(third))


def cards_of(state, seat):
    return [a.card for a in legal_actions(state, seat)]


def test_all_pass_is_played_without_trumps_and_the_first_hand_leads():
    given = all_pass()
    assert isinstance(given, Playing)
    assert (given.kind, given.trump, given.declarer, given.turn) == ("raspasy", None, None, 1)


def test_the_first_talon_card_is_turned_and_sets_the_suit_of_the_first_trick():
    given = all_pass()
    assert (given.talon_card, given.turned, given.talon) == ("8H", ("8H",), ("7H",))
    assert given.shown_talon == ("8H",)


def test_the_first_hand_plays_the_talon_suit_if_he_can():
    given = all_pass(dealer=1)  # forehand seat 2 holds hearts
    assert cards_of(given, 2) == ["9H", "TH", "JH", "QH", "KH", "AH"]


def test_a_first_hand_void_in_the_talon_suit_may_play_any_card():
    given = all_pass()
    assert cards_of(given, 1) == list(given.hands[1])


def test_the_others_must_follow_the_talon_suit_too():
    given = play_cards(all_pass(), "9D")
    assert cards_of(given, 2) == ["9H", "TH", "JH", "QH", "KH", "AH"]
    with pytest.raises(IllegalAction) as refusal:
        decide(play(2, "8D"), given)
    assert refusal.value.code == "illegal.must_follow_suit"


def test_the_highest_card_of_the_talon_suit_wins_and_the_second_talon_card_is_turned():
    given = play_cards(all_pass(), "9D 9H")
    assert events_of(given, play(0, "KD")) == [
        CardPlayed(seat=0, card="KD"),
        TrickWon(seat=2, cards=("9D", "9H", "KD"), leader=1),
        TalonCardTurned(card="7H"),
    ]


def test_the_first_hand_leads_the_second_and_third_tricks_whoever_won():
    given = play_cards(all_pass(), "9D 9H KD")
    assert to_act(given) == (1,)
    given = play_cards(given, "9C TH")
    assert events_of(given, play(0, "KC"))[-1] == TrickWon(
        seat=2, cards=("9C", "TH", "KC"), leader=1
    )


def test_from_the_fourth_trick_the_winner_of_the_trick_leads():
    given = play_cards(all_pass(), "9D 9H KD 9C TH KC 7S 7C")
    assert given.talon_card is None
    assert events_of(given, play(0, "9S"))[-1] == TrickWon(
        seat=0, cards=("7S", "7C", "9S"), leader=0
    )


def test_when_nobody_follows_the_talon_suit_the_first_player_takes_the_trick():
    # unreachable in a real deal (someone always holds the suit); the rule is I-14
    assert trick_winner(((1, "7S"), (2, "AS"), (0, "AC")), None, "8H") == 1
    assert trick_winner(((0, "KD"), (1, "AD"), (2, "9C")), None, "7H") == 0


def test_an_all_pass_deal_ends_with_each_players_tricks():
    state = play_out(all_pass(dealer=2, deal=ALL_PASS_SWEEP))
    assert isinstance(state, DealFinished)
    assert state.outcome == DealOutcome(
        kind="raspasy", dealer=2, seats=3, hands=(0, 1, 2), tricks=(10, 0, 0)
    )
    assert state.turned == ("7S", "7C") and state.talon == ()


def test_the_tricks_of_an_all_pass_are_counted_per_player():
    # each plays his lowest legal card: seat 2 takes the two heart tricks, then seat 0 wins the
    # club trick led by the first hand and every trick he leads after it
    state = play_out(all_pass())
    assert state.outcome == DealOutcome(
        kind="raspasy", dealer=0, seats=3, hands=(1, 2, 0), tricks=(8, 0, 2)
    )


# ---- Rostov: the talon is never opened -----------------------------------------------------


def test_in_rostov_the_talon_is_not_turned_on_an_all_pass():
    given = after(dealt(dealer=0, rules=ROSTOV), pass_(1), pass_(2))
    assert events_of(given, pass_(0)) == [
        Passed(seat=0),
        AllPassed(),
        PlayStarted(kind="raspasy", controllers=(0, 1, 2), trump=None, leader=1),
    ]


def test_in_rostov_the_winner_of_the_first_trick_leads_the_second():
    given = play_cards(all_pass(rules=ROSTOV), "7S 7C")
    assert events_of(given, play(0, "9S"))[-1] == TrickWon(
        seat=0, cards=("7S", "7C", "9S"), leader=0
    )


def test_in_rostov_the_talon_stays_face_down_to_the_end():
    state = play_out(all_pass(rules=ROSTOV))
    assert isinstance(state, DealFinished)
    assert (state.talon, state.turned, state.shown_talon) == (("8H", "7H"), (), ())
    assert sum(state.outcome.tricks) == 10


# ---- four players ----------------------------------------------------------------------------


def test_at_four_the_sitting_out_dealer_takes_no_part_in_an_all_pass():
    rules = with_rules(players=4)
    hands = (*ALL_TEN[0], ())
    given = after(dealt((hands, ALL_TEN[1]), rules=rules, dealer=3), pass_(0), pass_(1), pass_(2))
    assert isinstance(given, Playing)
    assert given.controllers == (0, 1, 2, -1)
    state = play_out(given)
    assert {s for s, _ in state.outcome.taken()} == {0, 1, 2}
    assert sum(state.outcome.tricks) == 10
    assert (state.outcome.seats, state.outcome.dealer) == (4, 3)


def test_every_step_of_an_all_pass_has_a_seat_to_act_even_between_its_events():
    given = after(dealt(), pass_(0), pass_(1))
    events = decide(pass_(2), given)  # Passed, AllPassed, PlayStarted, TalonCardTurned
    between = evolve(evolve(given, events[0]), events[1])
    assert isinstance(between, Playing)
    assert to_act(between) == (0,)


# ---- four players: the dealer plays the talon (I-16) -------------------------------------------

DEALER_TALON = with_rules(players=4, players4={"dealer_raspasy": "plays_talon"})
TALON_ACE = layout(
    "7S 8S 9S TS JS QS KS AS 7C 8C",  # seat 0, the first hand: no hearts, no diamonds
    "9C TC JC QC KC AC 8D 9D TD JD",  # seat 1: no hearts, diamonds above the 7
    "QD KD AD 7H 8H 9H TH JH QH KH",  # seat 2: every heart but the ace
    "",  # seat 3 deals
    talon="AH 7D",
)
"""The talon turns the ace of hearts, which only seat 2 can follow, then the seven of diamonds,
which seats 1 and 2 must beat."""


def four_all_pass(rules):
    return after(dealt(TALON_ACE, rules=rules, dealer=3), pass_(0), pass_(1), pass_(2))


def test_at_four_the_dealer_playing_the_talon_takes_a_trick_his_talon_card_wins():
    state = play_cards(four_all_pass(DEALER_TALON), "7S 9C 7H")
    assert isinstance(state, Playing)
    assert state.tricks == (0, 0, 0, 1)
    assert state.talon_card == "7D" and state.turn == 0  # the first hand leads again


def test_the_dealers_talon_card_loses_to_a_higher_card_of_its_suit():
    state = play_cards(four_all_pass(DEALER_TALON), "7S 9C 7H  8S 8D QD")
    assert isinstance(state, Playing)
    assert state.tricks == (0, 0, 1, 1)


def test_the_dealer_takes_both_talon_tricks_when_both_talon_cards_win_and_no_other():
    deal = layout(
        "7S 8S 9S TS JS QS KS 7C 8C 9C",
        "TC JC QC KC AC 7D 8D 9D TD JD",
        "QD KD AD 7H 8H 9H TH JH QH KH",
        "",
        talon="AS AH",
    )
    given = after(dealt(deal, rules=DEALER_TALON, dealer=3), pass_(0), pass_(1), pass_(2))
    state = play_cards(given, "7S TC QD  8S JC 7H")
    assert isinstance(state, Playing)
    assert state.tricks == (0, 0, 0, 2)
    finished = play_out(state)
    assert isinstance(finished, DealFinished)
    assert finished.outcome.tricks[3] == 2


def test_nobody_claims_while_the_dealer_still_plays_a_talon_card():
    # A claim in trick 1 or 2 would give every trick left to the other two players, the
    # dealer's talon ace included, and he is not asked: no claim until the talon is played.
    state = four_all_pass(DEALER_TALON)
    for cards in ("", "7S 9C 7H"):
        state = play_cards(state, cards) if cards else state
        (seat,) = to_act(state)
        assert claims.claim_offers(state, seat) == []
        with pytest.raises(ClaimLimited):
            decide(Claim(seat=seat, tricks=0), state)
    state = play_cards(state, "8S 8D QD")
    (seat,) = to_act(state)
    assert state.tricks == (0, 0, 1, 1) and state.tricks_played == 2
    assert claims.claim_offers(state, seat)[-1] == Claim(seat=seat, tricks=0)
    (made,) = decide(Claim(seat=seat, tricks=8), state)
    assert isinstance(made, ClaimMade) and made.remaining == 8 and 3 not in made.asked


def test_when_the_dealer_sits_out_claims_are_open_from_the_first_all_pass_trick():
    state = four_all_pass(with_rules(players=4))
    (seat,) = to_act(state)
    assert claims.claim_offers(state, seat)


def test_when_the_dealer_sits_out_the_same_talon_trick_goes_to_the_highest_follower():
    state = play_cards(four_all_pass(with_rules(players=4)), "7S 9C 7H")
    assert state.tricks == (0, 0, 1, 0)


def test_a_deal_with_the_dealer_playing_the_talon_ends_with_his_tricks_in_the_outcome():
    state = play_out(four_all_pass(DEALER_TALON))
    assert isinstance(state, DealFinished)
    assert sum(state.outcome.tricks) == 10
    assert state.outcome.tricks[3] >= 1  # the ace of hearts is never beaten
    assert {s for s, _ in state.outcome.taken()} == {0, 1, 2}


def test_the_dealer_playing_the_talon_needs_the_talon_on_the_all_pass():
    with pytest.raises(InvalidRules):
        rules_for("rostov", {"players": 4, "players4": {"dealer_raspasy": "plays_talon"}})
