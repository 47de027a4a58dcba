"""All-pass play-outs: every trick is played to the rules and counted once."""

from __future__ import annotations

import random

from bots.rollout import play_out
from domain.cards import DECK
from domain.solver.bits import mask_of


def test_a_play_out_deals_out_all_ten_tricks() -> None:
    rng = random.Random(2)
    for _ in range(300):
        deck = list(DECK)
        rng.shuffle(deck)
        hands = [mask_of(deck[s * 10 : (s + 1) * 10]) for s in range(3)]
        talon = (rng.randrange(4), rng.randrange(4))
        taken = play_out(hands, 0, [], 0, talon, 3)
        assert sum(taken) == 10 and hands == [0, 0, 0]


def test_the_first_hand_with_every_heart_and_the_black_aces_takes_all_ten() -> None:
    hands = [
        mask_of("AH KH QH JH TH 9H 8H 7H AS AC".split()),
        mask_of("KS QS JS TS KC QC JC TC AD KD".split()),
        mask_of("9S 8S 9C 8C QD JD TD 9D 8D 7D".split()),
    ]
    assert play_out(hands, 0, [], 0, (0, 1), 3) == [10, 0, 0]
