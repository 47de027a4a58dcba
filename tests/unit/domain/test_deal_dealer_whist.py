"""The dealer's whist at a table of four (docs/rules.md §A(b), §D.1; Lesnoy 3.8.8–3.8.8.2).

The dealer holds no cards. When the opponents leave a contract unwhisted he is asked last whether
he whists, after looking at one opponent's cards if he likes; whisting, he is the single whister
with that hand (``players4.dealer_whist_hand = "looked"``) or with both hands laid open
(``"open"``), and a half-whister becomes a passer.

The table: seat 3 deals and sits out, so the forehand is seat 0, who declares; seat 1 is the
first opponent, seat 2 the second.
"""

from __future__ import annotations

import pytest
from deal_helpers import (
    STANDARD,
    after,
    assert_refused,
    bid,
    closed_play,
    dealt,
    declare,
    discard,
    events_of,
    half_whist,
    open_play,
    pass_,
    take_talon,
    whist,
    whist_pass,
    with_rules,
)

from domain.deal.decider import decide, legal_actions, to_act
from domain.deal.messages import (
    CallWhist,
    DealEnded,
    HandLookedAt,
    HandsOpened,
    LookAtHand,
    PlayCard,
    PlayStarted,
)
from domain.deal.state import DealFinished, DealState, Playing, Whisting
from domain.deal.view import redact_event, seat_view
from domain.errors import NotYourTurn
from domain.outcome import DefenderRole

DEALER = 3
FOUR = with_rules(players=4)
OPEN = with_rules(players=4, players4={"dealer_whist_hand": "open"})
NOT_ASKED = with_rules(players=4, players4={"dealer_whist": False})
GENTLEMAN = with_rules("leningrad", players=4)
TABLE = ((*STANDARD[0], ()), STANDARD[1])


def declared(contract: str = "6S", rules=FOUR) -> DealState:
    """Seat 0 bids 6♠, takes the talon, puts it back and declares ``contract``."""
    return after(
        dealt(TABLE, rules=rules, dealer=DEALER),
        bid(0, "6S"),
        pass_(1),
        pass_(2),
        take_talon(0),
        discard(0, "8H 7H"),
        declare(0, contract),
    )


def half_whist_let_stand(rules=FOUR) -> DealState:
    """On 6♠: pass, half-whist, and the first opponent passes again."""
    return after(declared("6S", rules), whist_pass(1), half_whist(2), whist_pass(1))


def look(hand: int) -> LookAtHand:
    return LookAtHand(seat=DEALER, hand=hand)


# --- when the dealer is asked ---------------------------------------------------------------------


def test_after_pass_half_whist_pass_on_a_six_the_dealer_is_asked_before_the_deal_is_scored():
    given = after(declared("6S"), whist_pass(1), half_whist(2))
    events = events_of(given, whist_pass(1))
    assert not any(isinstance(e, DealEnded) for e in events)
    state = after(given, whist_pass(1))
    assert isinstance(state, Whisting)
    assert to_act(state) == (DEALER,)
    assert legal_actions(state, DEALER) == [
        CallWhist(seat=DEALER, choice="pass"),
        look(1),
        look(2),
    ]


def test_after_two_passes_on_an_eight_only_the_dealer_may_still_whist():
    state = after(declared("8S"), whist_pass(1), whist_pass(2))
    assert to_act(state) == (DEALER,)
    assert all(legal_actions(state, s) == [] for s in (0, 1, 2))
    state = after(state, look(1))
    assert [a.choice for a in legal_actions(state, DEALER)] == ["whist", "pass"]


def test_after_two_passes_on_a_six_the_dealer_is_asked_too():
    assert to_act(after(declared("6S"), whist_pass(1), whist_pass(2))) == (DEALER,)


def test_in_gentleman_whist_an_unreturned_half_whist_of_the_first_opponent_goes_to_the_dealer():
    state = after(declared("6S", GENTLEMAN), whist(1), whist_pass(2), half_whist(1), whist_pass(2))
    assert to_act(state) == (DEALER,)


def test_the_dealer_is_not_asked_when_an_opponent_whists():
    state = after(declared("6S"), whist_pass(1), whist(2))
    assert to_act(state) == (2,)
    assert legal_actions(state, DEALER) == []
    assert_refused(whist(DEALER), state, "illegal.whisting_over")


def test_the_dealer_is_not_asked_after_a_returned_half_whist():
    state = after(declared("6S"), whist_pass(1), half_whist(2), whist(1))
    assert to_act(state) == (1,)
    assert legal_actions(state, DEALER) == []


def test_before_the_opponents_have_spoken_the_dealer_may_not_act():
    state = declared("6S")
    assert_refused(whist(DEALER), state, "illegal.not_your_turn", NotYourTurn)
    assert_refused(look(1), state, "illegal.not_your_turn", NotYourTurn)


def test_without_the_dealers_whist_the_deal_ends_after_the_opponents_calls():
    state = half_whist_let_stand(NOT_ASKED)
    assert isinstance(state, DealFinished)
    assert not state.outcome.played


def test_at_a_table_of_three_nobody_is_asked_after_two_passes():
    state = after(
        dealt(STANDARD, dealer=2), bid(0, "6S"), pass_(1), pass_(2), take_talon(0),
        discard(0, "8H 7H"), declare(0, "8S"), whist_pass(1), whist_pass(2),
    )  # fmt: skip
    assert isinstance(state, DealFinished)


# --- looking at one hand ------------------------------------------------------------------------


def test_the_dealer_sees_the_hand_he_looked_at_and_nobody_else_does():
    given = half_whist_let_stand()
    (event,) = decide(look(2), given)
    assert event == HandLookedAt(seat=DEALER, hand=2)
    assert redact_event(event, DEALER, given).cards == given.hands[2]  # type: ignore[union-attr]
    for viewer in (0, 1, 2, None):
        assert redact_event(event, viewer, given).cards == ()  # type: ignore[union-attr]
    state = after(given, look(2))
    assert seat_view(state, DEALER).shown_hands == (None, None, given.hands[2], None)
    assert all(not any(seat_view(state, v).shown_hands) for v in (0, 1, 2, None))


def test_the_dealer_looks_at_one_opponents_cards_only():
    state = after(half_whist_let_stand(), look(1))
    assert_refused(look(2), state, "illegal.hand_already_looked_at")


def test_the_dealer_looks_only_at_an_opponent_of_the_declarer():
    assert_refused(look(0), half_whist_let_stand(), "illegal.not_an_opponent")


def test_the_dealer_must_look_at_a_hand_before_he_whists_with_it():
    assert_refused(whist(DEALER), half_whist_let_stand(), "illegal.dealer_look_first")


def test_the_dealer_may_whist_or_pass_but_not_half_whist():
    state = after(half_whist_let_stand(), look(1))
    assert_refused(half_whist(DEALER), state, "illegal.whist_choice")


def test_an_opponent_may_not_look_at_the_other_ones_cards():
    assert_refused(
        LookAtHand(seat=1, hand=2), half_whist_let_stand(), "illegal.not_your_turn", NotYourTurn
    )


# --- the dealer passes or whists ---------------------------------------------------------------


def test_when_the_dealer_passes_the_half_whist_stands_and_the_six_counts_as_made():
    state = after(half_whist_let_stand(), look(1), whist_pass(DEALER))
    assert isinstance(state, DealFinished)
    assert not state.outcome.played
    assert state.outcome.defenders == (
        DefenderRole(seat=1, choice="pass"),
        DefenderRole(seat=2, choice="half_whist"),
    )


def test_the_dealers_whist_makes_the_half_whister_a_passer_and_him_the_single_whister():
    state = after(half_whist_let_stand(), look(1), whist(DEALER))
    assert to_act(state) == (DEALER,)
    assert legal_actions(state, DEALER) == [open_play(DEALER), closed_play(DEALER)]


def test_in_closed_play_the_whisting_dealer_plays_the_hand_he_looked_at():
    given = after(half_whist_let_stand(), look(1), whist(DEALER))
    events = events_of(given, closed_play(DEALER))
    started = next(e for e in events if isinstance(e, PlayStarted))
    assert started.controllers == (0, DEALER, 2, -1)
    assert started.defenders == (
        DefenderRole(seat=1, choice="pass"),
        DefenderRole(seat=2, choice="pass", was_half_whist=True),
        DefenderRole(seat=DEALER, choice="whist", whist_rank=1),
    )
    assert not any(isinstance(e, HandsOpened) for e in events)
    state = after(given, closed_play(DEALER))
    assert isinstance(state, Playing)
    assert seat_view(state, DEALER).shown_hands == (None, state.hands[1], None, None)
    assert not any(seat_view(state, 2).shown_hands) and not any(seat_view(state, 2).open_hands)


def test_in_open_play_the_whisting_dealer_plays_both_opponents_hands_laid_open():
    given = after(half_whist_let_stand(), look(2), whist(DEALER))
    events = events_of(given, open_play(DEALER))
    started = next(e for e in events if isinstance(e, PlayStarted))
    assert started.controllers == (0, DEALER, DEALER, -1)
    opened = next(e for e in events if isinstance(e, HandsOpened))
    assert opened.seats == (1, 2)


def test_the_whisting_dealer_plays_a_card_of_his_hand_and_the_owner_may_not():
    state = after(half_whist_let_stand(), look(1), whist(DEALER), closed_play(DEALER))
    state = after(state, PlayCard(seat=0, card="AS"))
    assert to_act(state) == (DEALER,)
    card = legal_actions(state, DEALER)[0].card  # type: ignore[union-attr]
    assert_refused(PlayCard(seat=1, card=card), state, "illegal.not_your_turn", NotYourTurn)
    assert isinstance(after(state, PlayCard(seat=DEALER, card=card)), Playing)


def test_with_both_hands_open_the_dealer_whists_without_looking_and_play_starts_at_once():
    given = half_whist_let_stand(OPEN)
    assert legal_actions(given, DEALER) == [
        CallWhist(seat=DEALER, choice="whist"),
        CallWhist(seat=DEALER, choice="pass"),
    ]
    assert_refused(look(1), given, "illegal.dealer_look_off")
    events = events_of(given, whist(DEALER))
    started = next(e for e in events if isinstance(e, PlayStarted))
    assert started.open_play and started.controllers == (0, DEALER, DEALER, -1)
    assert next(e for e in events if isinstance(e, HandsOpened)).seats == (1, 2)


@pytest.mark.parametrize("rules", [FOUR, OPEN], ids=["looked", "open"])
def test_a_deal_whisted_by_the_dealer_is_played_out_to_ten_tricks(rules):
    state = after(declared("8S", rules), whist_pass(1), whist_pass(2))
    if rules is FOUR:
        state = after(state, look(2), whist(DEALER), closed_play(DEALER))
    else:
        state = after(state, whist(DEALER))
    while to_act(state):
        (seat,) = to_act(state)
        state = after(state, legal_actions(state, seat)[0])
    assert isinstance(state, DealFinished)
    assert sum(state.outcome.tricks) == 10 and state.outcome.tricks[DEALER] == 0
    assert state.outcome.defenders[-1] == DefenderRole(seat=DEALER, choice="whist", whist_rank=1)


# --- may_look: S4 3.8.8 as written, the dealer *may* look --------------------------------------

MAY_LOOK = with_rules(players=4, players4={"dealer_whist_hand": "may_look"})


def test_the_dealer_may_whist_without_looking_where_the_source_says_he_may_look():
    # S4 3.8.8: «сдатчику, который может посмотреть в карты одного из противников» — he may.
    given = half_whist_let_stand(MAY_LOOK)
    assert legal_actions(given, DEALER) == [
        CallWhist(seat=DEALER, choice="whist"),
        CallWhist(seat=DEALER, choice="pass"),
        look(1),
        look(2),
    ]
    # not having looked, he has no hand to play closed: both lie open, he plays both
    events = events_of(given, whist(DEALER))
    started = next(e for e in events if isinstance(e, PlayStarted))
    assert started.open_play and started.controllers == (0, DEALER, DEALER, -1)
    assert next(e for e in events if isinstance(e, HandsOpened)).seats == (1, 2)


def test_a_dealer_who_looked_first_plays_as_under_looked():
    state = after(half_whist_let_stand(MAY_LOOK), look(1))
    assert [a.choice for a in legal_actions(state, DEALER)] == ["whist", "pass"]
    state = after(state, whist(DEALER))
    assert legal_actions(state, DEALER) == [open_play(DEALER), closed_play(DEALER)]
    events = events_of(state, closed_play(DEALER))
    started = next(e for e in events if isinstance(e, PlayStarted))
    assert started.controllers == (0, DEALER, 2, -1)


def test_under_may_look_the_dealer_may_pass_without_looking_too():
    state = after(half_whist_let_stand(MAY_LOOK), whist_pass(DEALER))
    assert isinstance(state, DealFinished) and not state.outcome.played
