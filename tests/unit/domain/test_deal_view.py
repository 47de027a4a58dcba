"""What each seat may see (docs/rules.md §C, §E.1, §E.2): its own hand, the talon once shown, the
discard if it is the declarer's, other hands only when laid face up, the current and the last
trick; a spectator only what lies face up. Redacted events never say more than the view.
"""

from __future__ import annotations

from deal_helpers import (
    MISER_HAND,
    after,
    bid,
    cards,
    closed_play,
    dealt,
    declare,
    declared,
    discard,
    look,
    open_play,
    pass_,
    play,
    play_cards,
    take_talon,
    whist,
    whist_pass,
    with_rules,
)

from domain.deal.decider import decide, fold, initial_state, to_act
from domain.deal.messages import (
    CardsLooked,
    DealStarted,
    Discarded,
    StartDeal,
    TalonTaken,
)
from domain.deal.view import PlayedCard, redact_event, seat_view, visible_cards
from domain.rules import SOCHI

DARK = with_rules(classic={"dark_games": True})
EVERYONE = (0, 1, 2, None)


def view(state, viewer):
    return seat_view(state, viewer, to_act(state))


def test_a_seat_sees_its_own_hand_and_only_the_sizes_of_the_others():
    given = dealt()
    mine = view(given, 0)
    assert mine.hand == given.hands[0]
    assert mine.hand_sizes == (10, 10, 10)
    assert not any(mine.open_hands) and mine.talon == () and mine.talon_size == 2
    assert visible_cards(mine) == set(given.hands[0])


def test_a_spectator_sees_no_card_of_a_fresh_deal():
    spectator = view(dealt(), None)
    assert spectator.hand == ()
    assert visible_cards(spectator) == set()
    assert spectator.hands_order == (0, 1, 2) and spectator.to_act == (0,)


def test_the_talon_is_seen_by_nobody_before_it_is_shown():
    given = after(dealt(), bid(0, "6S"), pass_(1), pass_(2))
    for viewer in EVERYONE:
        assert not visible_cards(view(given, viewer)) & {"8H", "7H"}


def test_the_talon_taken_face_up_is_seen_by_everyone():
    given = after(dealt(), bid(0, "6S"), pass_(1), pass_(2), take_talon(0))
    for viewer in EVERYONE:
        assert view(given, viewer).talon == ("8H", "7H")


def test_the_talon_of_a_dark_game_is_seen_only_by_the_declarer():
    given = after(dealt(rules=DARK), bid(0, "6S", dark=True), look(1), pass_(1), look(2))
    given = after(given, pass_(2), take_talon(0))
    assert {"8H", "7H"} <= set(view(given, 0).hand)
    for viewer in (1, 2, None):
        assert view(given, viewer).talon == ()
        assert not visible_cards(view(given, viewer)) & {"8H", "7H"}


def test_in_dark_games_a_seat_sees_its_hand_only_once_it_has_looked():
    given = dealt(rules=DARK)
    assert view(given, 0).hand == ()
    assert view(after(given, look(0)), 0).hand == given.hands[0]


def test_the_discard_is_seen_only_by_the_declarer():
    given = after(dealt(), bid(0, "6S"), pass_(1), pass_(2), take_talon(0), discard(0, "AD KD"))
    assert view(given, 0).discard == ("AD", "KD")
    for viewer in (1, 2, None):
        assert view(given, viewer).discard is None
        assert not visible_cards(view(given, viewer)) & {"AD", "KD"}


def test_in_closed_play_no_hand_is_seen_but_ones_own():
    given = after(declared("6S"), whist(1), whist_pass(2), closed_play(1))
    for viewer in (0, 1, 2):
        assert not any(view(given, viewer).open_hands)
    assert not any(view(given, None).open_hands)


def test_in_open_play_the_defenders_hands_lie_face_up_and_the_declarers_stays_hidden():
    given = after(declared("6S"), whist(1), whist_pass(2), open_play(1))
    defenders = (None, given.hands[1], given.hands[2])
    assert view(given, 0).open_hands == defenders
    assert view(given, None).open_hands == defenders
    assert view(given, 1).open_hands == (None, None, given.hands[2])
    assert view(given, 2).open_hands == (None, given.hands[1], None)
    for viewer in (1, 2, None):
        assert not visible_cards(view(given, viewer)) & set(given.hands[0])


def test_the_misere_catchers_hands_are_seen_once_opened_and_the_misere_hand_never():
    given = declared("MISER", deal=MISER_HAND)
    assert not any(view(given, 1).open_hands)
    state = after(given, play(0, "7S"))
    assert view(state, None).open_hands == (None, state.hands[1], state.hands[2])
    for viewer in (1, 2, None):
        assert not visible_cards(view(state, viewer)) & set(state.hands[0])


def test_everyone_sees_the_current_trick_and_the_last_one():
    given = play_cards(after(declared("6S"), whist(1), whist(2)), "AC 9C 7C KC")
    for viewer in EVERYONE:
        seen = view(given, viewer)
        assert seen.trick == (PlayedCard(seat=0, card="KC"),)
        assert seen.last_trick == (
            PlayedCard(seat=0, card="AC"),
            PlayedCard(seat=1, card="9C"),
            PlayedCard(seat=2, card="7C"),
        )
        assert seen.tricks == (1, 0, 0)


def test_a_spectator_of_a_played_trick_sees_only_the_cards_on_the_table():
    given = play_cards(after(declared("6S"), whist(1), whist(2)), "AC 9C 7C KC")
    assert visible_cards(view(given, None)) == {"8H", "7H", "AC", "9C", "7C", "KC"}


def test_the_sitting_out_dealer_sees_only_what_lies_face_up():
    rules = with_rules(players=4)
    hands = (*dealt().hands, ())
    given = after(dealt((hands, ("8H", "7H")), rules=rules, dealer=3), bid(0, "6S"), pass_(1))
    assert visible_cards(view(given, 3)) == set()


# ---- redacted events ----------------------------------------------------------------------------


def started():
    given = initial_state(SOCHI)
    layout = dealt()
    (event,) = decide(StartDeal(dealer=2, hands=layout.hands, talon=("8H", "7H")), given)
    return given, event


def test_the_deal_event_keeps_only_the_viewers_own_hand_and_hides_the_talon():
    before, event = started()
    mine = redact_event(event, 1, before)
    assert mine.hands == ((), event.hands[1], ())
    assert mine.talon == ()
    assert redact_event(event, None, before) == DealStarted(dealer=2, hands=((), (), ()), talon=())


def test_in_dark_games_the_deal_event_hides_even_the_own_hand_until_the_look():
    before = initial_state(DARK)
    layout = dealt()
    (event,) = decide(StartDeal(dealer=2, hands=layout.hands, talon=("8H", "7H")), before)
    assert redact_event(event, 0, before).hands == ((), (), ())
    state = fold(before, [event])
    looked = CardsLooked(seat=0)
    assert redact_event(looked, 0, state) == CardsLooked(seat=0, hand=state.hands[0])
    assert redact_event(looked, 1, state) == looked


def test_a_talon_taken_face_down_reaches_only_the_declarer():
    event = TalonTaken(seat=0, cards=("8H", "7H"), shown=False)
    before = dealt()
    assert redact_event(event, 0, before) == event
    for viewer in (1, 2, None):
        assert redact_event(event, viewer, before).cards == ()


def test_a_talon_taken_face_up_reaches_everyone():
    event = TalonTaken(seat=0, cards=("8H", "7H"))
    for viewer in EVERYONE:
        assert redact_event(event, viewer, dealt()) == event


def test_the_discard_event_reaches_only_the_declarer_and_the_totus_chooser():
    before = dealt()
    event = Discarded(seat=0, cards=cards("AD KD"))
    assert redact_event(event, 0, before) == event
    for viewer in (1, 2, None):
        assert redact_event(event, viewer, before).cards == ()
    chosen = Discarded(seat=0, cards=cards("AD KD"), by=1)
    assert redact_event(chosen, 1, before) == chosen
    assert redact_event(chosen, None, before).cards == ()


def test_the_view_names_the_contract_and_the_declarer_during_play():
    given = after(dealt(), bid(0, "6S"), pass_(1), pass_(2), take_talon(0), discard(0, "8H 7H"))
    given = after(given, declare(0, "6S"), whist(1), whist(2))
    seen = view(given, 2)
    assert (seen.declarer, seen.contract, seen.trump, seen.phase) == (0, "6S", "S", "playing")
    assert seen.discard is None
