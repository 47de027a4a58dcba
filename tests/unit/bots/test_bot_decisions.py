"""Clear-cut decisions, made alike by the basic, the strong and the expert level: bid a big
hand, bid misère with a perfect misère hand, pass a poor one, pass a whist against ten sure
tricks, and, with every card in view, never lead the card that sinks the contract."""

from __future__ import annotations

import random

import pytest
from bot_helpers import Game

from bots import basic, expert, strong
from bots.budget import Budget
from bots.view import seat_input
from domain.deal.messages import (
    CallWhist,
    ChoosePlay,
    Declare,
    Discard,
    MakeBid,
    Pass,
    PlayCard,
    TakeTalon,
)

LEVELS = {"basic": basic.decide, "strong": strong.decide, "expert": expert.decide}
BUDGET = Budget.of_nodes(15_000)
"""Solver work, not seconds: the same decision on any machine (docs/bots.md §6)."""
STANDARD = (
    "AS KS QS JS TS 9S AC KC AD KD",
    "8S 7S QC JC TC 9C QD JD TD 9D",
    "8C 7C 8D 7D AH KH QH JH TH 9H",
)
MISER = (
    "7S 8S 9S 7C 8C 9C 7D 8D 7H 8H",
    "TS JS QS TC JC 9D TD JD 9H TH",
    "KS AS QC KC QD KD AD JH QH KH",
)


@pytest.mark.parametrize("level", sorted(LEVELS))
def test_a_big_hand_bids_and_a_perfect_misere_hand_bids_misere(level: str) -> None:
    game = Game()
    game.deal(*STANDARD, talon="8H 7H")
    assert LEVELS[level](seat_input(game.events, 0), random.Random(1), BUDGET) == MakeBid(
        seat=0, bid="6S"
    )
    game = Game()
    game.deal(*MISER, talon="AC AH")
    assert LEVELS[level](seat_input(game.events, 0), random.Random(1), BUDGET) == MakeBid(
        seat=0, bid="MISER"
    )


@pytest.mark.parametrize("level", sorted(LEVELS))
def test_a_poor_hand_passes_and_so_does_a_whist_against_ten_sure_tricks(level: str) -> None:
    game = Game()
    game.deal(*STANDARD, talon="8H 7H")
    game.do(MakeBid(seat=0, bid="6S"))
    assert LEVELS[level](seat_input(game.events, 1), random.Random(1), BUDGET) == Pass(seat=1)
    game.do(Pass(seat=1), Pass(seat=2), TakeTalon(seat=0), Discard(seat=0, cards=("8H", "7H")))
    game.do(Declare(seat=0, contract="6S"))
    choice = LEVELS[level](seat_input(game.events, 1), random.Random(1), BUDGET)
    assert choice == CallWhist(seat=1, choice="pass")


def test_with_every_card_in_view_the_strong_declarer_never_leads_the_losing_card() -> None:
    game = Game()
    game.deal(
        "AS KS QS JS TS 9S 8S 7S AC 7D", "KC QC JC TC 9C 8C AD KD QD JD",
        "AH KH QH JH TH 9H 8H 7H 8D 9D", talon="TD 7C",
    )  # fmt: skip
    game.do(
        MakeBid(seat=0, bid="6S"), Pass(seat=1), Pass(seat=2), TakeTalon(seat=0),
        Discard(seat=0, cards=("TD", "7C")), Declare(seat=0, contract="8NT"),
        CallWhist(seat=1, choice="whist"), CallWhist(seat=2, choice="pass"),
        ChoosePlay(seat=1, open=True),
    )  # fmt: skip
    view = seat_input(game.events, 0)
    open_hands = [h for h in view.game.deal.open_hands if h is not None]
    assert len(open_hands) == 2  # the defenders' cards lie open
    card = strong.decide(view, random.Random(1), BUDGET)
    assert isinstance(card, PlayCard) and card.card != "7D"
