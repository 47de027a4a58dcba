"""Fixed layouts checked when the game is created, against the seat each deal is dealt to: a
four-hand layout whose empty hand is not at its dealer's seat could never be dealt, and would
stick the game at the end of the deal before it (docs/rules.md §A, §N)."""

from __future__ import annotations

import pytest

from domain import game as g
from domain.cards import DECK
from domain.errors import InvalidLayout
from domain.rules import rules_for

FOUR = rules_for("sochi", {"players": 4})
SLIDING_FOUR = rules_for("sochi", {"players": 4, "pool": {"slide_after_raspasy": True}})
HANDS = (DECK[0:10], DECK[10:20], DECK[20:30])


def four_hands(empty_at: int) -> tuple[tuple[str, ...], ...]:
    """The three hands of ``HANDS`` with an empty hand inserted at seat ``empty_at``."""
    hands = list(HANDS)
    hands.insert(empty_at, ())
    return tuple(hands)


def test_deals_pass_clockwise_from_the_first_dealer() -> None:
    assert [g.dealer_of(FOUR, 2, n) for n in range(1, 7)] == [2, 3, 0, 1, 2, 3]
    assert [g.dealer_of(rules_for("sochi"), 1, n) for n in range(1, 5)] == [1, 2, 0, 1]


def test_when_the_deal_slides_after_an_all_pass_only_the_first_dealer_is_known() -> None:
    assert g.dealer_of(SLIDING_FOUR, 3, 1) == 3
    assert g.dealer_of(SLIDING_FOUR, 3, 2) is None


def test_four_hands_with_the_empty_one_at_each_deals_dealer_are_accepted() -> None:
    g.check_layouts(FOUR, 1, [four_hands(1), four_hands(2), four_hands(3), four_hands(0)])


def test_four_hands_with_the_empty_one_at_another_seat_are_refused_naming_deal_and_seat() -> None:
    with pytest.raises(InvalidLayout) as refusal:
        g.check_layouts(FOUR, 0, [four_hands(1)])
    assert refusal.value.code == "invalid_layout"
    assert "layout 1: seat 0 deals deal 1" in refusal.value.message
    assert "the empty hand is at seat 1" in refusal.value.message


def test_a_later_layout_is_checked_against_the_dealer_of_its_own_deal() -> None:
    # deal 1 is seat 0's, deal 2 seat 1's: the second layout has its empty hand at seat 0
    with pytest.raises(InvalidLayout) as refusal:
        g.check_layouts(FOUR, 0, [four_hands(0), four_hands(0)])
    assert "layout 2: seat 1 deals deal 2" in refusal.value.message


def test_three_hand_layouts_fit_every_deal_at_a_table_of_four() -> None:
    g.check_layouts(FOUR, 0, [HANDS] * 5)
    g.check_layouts(SLIDING_FOUR, 0, [HANDS] * 5)


def test_a_table_of_three_has_no_empty_hand_to_check() -> None:
    g.check_layouts(rules_for("sochi"), 2, [HANDS, HANDS])


def test_when_the_deal_slides_a_later_four_hand_layout_is_refused_asking_for_three_hands() -> None:
    g.check_layouts(SLIDING_FOUR, 2, [four_hands(2)])  # the first deal's dealer is known
    with pytest.raises(InvalidLayout) as refusal:
        g.check_layouts(SLIDING_FOUR, 2, [four_hands(2), four_hands(3)])
    assert refusal.value.code == "invalid_layout"
    assert "layout 2" in refusal.value.message and "give three hands" in refusal.value.message


def test_a_checked_four_hand_layout_is_dealt_at_its_turn() -> None:
    layouts = [four_hands(3), four_hands(0)]
    g.check_layouts(FOUR, 3, layouts)
    state = g.fold(
        [
            g.GameCreated(rules=FOUR, first_dealer=3),
            *(g.PlayerSeated(seat=s, player=f"p{s}") for s in range(4)),
        ]
    )
    for layout in layouts:
        state = g.fold(
            g.decide(g.DealCards(hands=layout, talon=(DECK[30], DECK[31])), state), state
        )
        assert isinstance(state, g.Pulka)
        assert state.deal.hands == tuple(tuple(sorted(h, key=DECK.index)) for h in layout)
        state = _finish_deal(state)


def _finish_deal(state: g.GameState) -> g.GameState:
    while isinstance(state, g.Pulka) and not g.needs_cards(state):
        (seat,) = g.to_act(state)
        state = g.fold(g.decide(g.legal_actions(state, seat)[0], state), state)
    return state
