"""Play (розыгрыш): leads, following suit, trumping, no-trump, the trick's winner, misère with
the catchers' cards opened, and the outcome of a played deal (docs/rules.md §E.1–E.3, I-15).

In the standard table the forehand (seat 0) declares; seat 1 is void in hearts and seat 2 in
spades.
"""

from __future__ import annotations

from deal_helpers import (
    ALL_TEN,
    MISER_HAND,
    after,
    assert_refused,
    bid,
    closed_play,
    dealt,
    declare,
    declared,
    discard,
    events_of,
    first_legal,
    pass_,
    play,
    play_cards,
    play_out,
    take_talon,
    whist,
    whist_pass,
    with_rules,
)

from domain.deal.decider import legal_actions, to_act
from domain.deal.messages import CardPlayed, DealEnded, HandsOpened, TrickWon
from domain.deal.state import DealFinished, Playing
from domain.errors import NotYourTurn
from domain.outcome import DealOutcome, DefenderRole

JUMPS = with_rules(bidding={"allow_jumps": True})


def playing(contract="6S", *, put_away="8H 7H", rules=JUMPS, deal=None):
    """Forehand plays ``contract`` against two whisters (closed play)."""
    kwargs = {"deal": deal} if deal else {}
    state = declared(contract, rules=rules, put_away=put_away, **kwargs)
    return after(state, whist(1), whist(2))


def cards_of(state, seat):
    return [a.card for a in legal_actions(state, seat)]


# ---- leads and turns ---------------------------------------------------------------------------


def test_the_first_hand_leads_the_first_trick_and_may_lead_any_card():
    given = playing()
    assert isinstance(given, Playing)
    assert to_act(given) == (0,)
    assert cards_of(given, 0) == list(given.hands[0])


def test_a_card_out_of_turn_is_refused():
    assert_refused(play(1, "QC"), playing(), "illegal.not_your_turn", NotYourTurn)


def test_a_card_not_in_hand_is_refused():
    assert_refused(play(0, "AH"), playing(), "illegal.card_not_in_hand")


def test_the_winner_of_a_trick_leads_the_next():
    given = play_cards(playing(put_away="7H KD"), "8H 7S")
    events = events_of(given, play(2, "AH"))
    assert events == [
        CardPlayed(seat=2, card="AH"),
        TrickWon(seat=1, cards=("8H", "7S", "AH"), leader=1),
    ]
    assert to_act(after(given, play(2, "AH"))) == (1,)


# ---- following suit and trumping --------------------------------------------------------------


def test_a_player_must_follow_the_led_suit():
    given = play_cards(playing(), "AC")
    assert cards_of(given, 1) == ["9C", "TC", "JC", "QC"]


def test_not_following_suit_is_refused_as_a_revoke():
    given = play_cards(playing(), "AC")
    assert_refused(play(1, "QD"), given, "illegal.must_follow_suit")


def test_a_player_void_in_the_led_suit_must_trump():
    given = play_cards(playing(put_away="7H KD"), "8H")
    assert cards_of(given, 1) == ["7S", "8S"]
    assert_refused(play(1, "QC"), given, "illegal.must_trump")


def test_a_player_with_neither_the_led_suit_nor_a_trump_may_play_any_card():
    # seat 2 is void in spades; the declarer leads a trump
    given = play_cards(playing(), "AS 7S")
    assert cards_of(given, 2) == list(given.hands[2])


def test_in_no_trump_a_void_player_may_discard_any_card():
    given = play_cards(playing("6NT", put_away="7H KD"), "8H")
    assert cards_of(given, 1) == list(given.hands[1])


# ---- who wins the trick --------------------------------------------------------------------------


def test_the_highest_card_of_the_led_suit_wins_without_trumps():
    given = play_cards(playing(), "AC 9C")
    assert events_of(given, play(2, "7C"))[-1] == TrickWon(
        seat=0, cards=("AC", "9C", "7C"), leader=0
    )


def test_a_trump_beats_any_card_of_the_led_suit():
    given = play_cards(playing(put_away="7H KD"), "8H 7S")
    assert events_of(given, play(2, "AH"))[-1].seat == 1


def test_a_higher_card_of_another_suit_does_not_win_in_no_trump():
    given = play_cards(playing("6NT", put_away="7H KD"), "8H QC")
    assert events_of(given, play(2, "9H"))[-1].seat == 2


def test_the_last_trick_stays_in_view_until_the_next_one_is_closed():
    given = play_cards(playing(), "AC 9C 7C")
    assert isinstance(given, Playing)
    assert given.last_trick == ((0, "AC"), (1, "9C"), (2, "7C"))
    assert given.trick == ()
    state = play_cards(given, "KC TC")
    assert state.last_trick == ((0, "AC"), (1, "9C"), (2, "7C"))
    assert state.trick == ((0, "KC"), (1, "TC"))


# ---- the outcome of a played game ---------------------------------------------------------------


def test_a_game_played_to_ten_tricks_ends_with_its_outcome():
    given = after(declared("6S", deal=ALL_TEN), whist(1), whist_pass(2), closed_play(1))
    state = play_out(given)
    assert isinstance(state, DealFinished)
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
            DefenderRole(seat=2, choice="pass"),
        ),
    )
    assert len(state.played) == 30


def test_the_deal_ends_on_the_tenth_trick():
    given = playing("8S", deal=ALL_TEN)
    for _ in range(27):
        given = after(given, first_legal(given))
    events = []
    for _ in range(3):
        events += events_of(given, first_legal(given))
        given = after(given, first_legal(given))
    assert isinstance(events[-2], TrickWon) and events[-2].leader is None
    assert events[-1] == DealEnded(
        outcome=DealOutcome(
            kind="game",
            dealer=2,
            seats=3,
            hands=(0, 1, 2),
            tricks=(10, 0, 0),
            declarer=0,
            contract="8S",
            defenders=(
                DefenderRole(seat=1, choice="whist", whist_rank=1),
                DefenderRole(seat=2, choice="whist", whist_rank=2),
            ),
        )
    )


def test_a_checked_ten_is_played_out_and_its_outcome_says_so():
    given = after(dealt(ALL_TEN, rules=JUMPS), bid(0, "10NT"), pass_(1), pass_(2))
    given = after(given, take_talon(0), discard(0, "8H 7H"), declare(0, "10NT"))
    state = play_out(given)
    assert state.outcome == DealOutcome(
        kind="game",
        dealer=2,
        seats=3,
        hands=(0, 1, 2),
        tricks=(10, 0, 0),
        declarer=0,
        contract="10NT",
        defenders=(DefenderRole(seat=1, choice="pass"), DefenderRole(seat=2, choice="pass")),
        checked=True,
    )


# ---- misère ----------------------------------------------------------------------------------


def test_misere_is_played_without_trumps_and_the_misere_player_leads_from_first_hand():
    given = declared("MISER", deal=MISER_HAND)
    assert isinstance(given, Playing)
    assert (given.kind, given.trump, given.turn) == ("miser", None, 0)
    assert given.open_hands == ()


def test_the_catchers_cards_open_after_the_misere_players_first_lead():
    given = declared("MISER", deal=MISER_HAND)
    assert events_of(given, play(0, "7S")) == [
        CardPlayed(seat=0, card="7S"),
        HandsOpened.of({1: given.hands[1], 2: given.hands[2]}),
    ]
    state = after(given, play(0, "7S"), play(1, "TS"))
    assert events_of(state, play(2, "KS"))[-1] == TrickWon(
        seat=2, cards=("7S", "TS", "KS"), leader=2
    )


def test_the_catchers_cards_open_at_once_when_a_catcher_leads():
    # seat 0 holds the misère hand as second hand: the dealer is seat 1, the forehand seat 2
    given = after(dealt(MISER_HAND, dealer=1), pass_(2), bid(0, "MISER"), pass_(1))
    events = events_of(given, take_talon(0), discard(0, "AC AH"))
    assert events[-1] == HandsOpened.of({1: given.hands[1], 2: given.hands[2]})
    assert events[-2].leader == 2


def test_with_after_first_trick_the_catchers_cards_open_when_the_first_trick_is_closed():
    rules = with_rules(play={"miser_open_timing": "after_first_trick"})
    given = declared("MISER", deal=MISER_HAND, rules=rules)
    assert events_of(given, play(0, "7S")) == [CardPlayed(seat=0, card="7S")]
    state = after(given, play(0, "7S"), play(1, "TS"))
    events = events_of(state, play(2, "KS"))
    assert events[-1] == HandsOpened.of(
        {1: state.hands[1], 2: tuple(c for c in state.hands[2] if c != "KS")}
    )


def test_a_misere_deal_ends_with_its_outcome():
    state = play_out(declared("MISER", deal=MISER_HAND))
    assert state.outcome == DealOutcome(
        kind="miser",
        dealer=2,
        seats=3,
        hands=(0, 1, 2),
        tricks=(0, 0, 10),
        declarer=0,
        contract="MISER",
        defenders=(DefenderRole(seat=1, choice="pass"), DefenderRole(seat=2, choice="pass")),
    )
