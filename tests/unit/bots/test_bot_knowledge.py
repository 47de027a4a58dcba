"""What a seat knows, read from its view: unseen cards, where they may lie, voids; and the
layouts drawn from that knowledge respect it."""

from __future__ import annotations

import math
import random

from bot_helpers import Game

from bots.knowledge import REST, read
from bots.sampling import count_layouts, enumerate_worlds, sample_world, worlds
from bots.view import seat_input
from domain.cards import SUIT_OF
from domain.deal.messages import CallWhist, Declare, Discard, MakeBid, Pass, PlayCard, TakeTalon

STANDARD = (
    "AS KS QS JS TS 9S AC KC AD KD",  # seat 0, first hand
    "8S 7S QC JC TC 9C QD JD TD 9D",  # seat 1: void in hearts
    "8C 7C 8D 7D AH KH QH JH TH 9H",  # seat 2 (dealer): void in spades
)


def _six_spades_in_play() -> Game:
    game = Game()
    game.deal(*STANDARD, talon="8H 7H")
    game.do(
        MakeBid(seat=0, bid="6S"), Pass(seat=1), Pass(seat=2), TakeTalon(seat=0),
        Discard(seat=0, cards=("8H", "7H")), Declare(seat=0, contract="6S"),
        CallWhist(seat=1, choice="whist"), CallWhist(seat=2, choice="whist"),
    )  # fmt: skip
    return game


def test_the_hidden_cards_add_up_and_the_shown_talon_is_with_the_declarer_or_discarded() -> None:
    game = _six_spades_in_play()
    k = read(seat_input(game.events, 1))
    assert sum(k.hidden.values()) == len(k.unseen) == 22 - 10 + 10  # two hands, the discard
    assert k.hidden == {0: 10, 2: 10, REST: 2}
    for c in ("8H", "7H"):
        assert set(k.allowed[c]) == {0, REST}


def test_a_seat_that_shows_out_is_void_and_no_layout_gives_it_that_suit() -> None:
    game = _six_spades_in_play()
    game.do(PlayCard(seat=0, card="AS"), PlayCard(seat=1, card="7S"))
    game.do(PlayCard(seat=2, card="8C"))  # seat 2 has no spade (and no trumps: spades)
    k = read(seat_input(game.events, 1))
    assert k.voids[2] == frozenset({"S"})
    rng = random.Random(1)
    for _ in range(200):
        world = sample_world(k, rng)
        assert not any(SUIT_OF[c] == "S" for c in world[2])
        assert sorted(len(v) for v in world.values()) == sorted(k.hidden.values())


def test_a_misere_catcher_faces_the_sixty_six_discards_once_the_hands_are_open() -> None:
    game = Game()
    game.deal(
        "TS JS QS TC JC 9D TD JD 9H TH", "7S 8S 9S 7C 8C 9C 7D 8D 7H 8H",
        "KS AS QC KC QD KD AD JH QH KH", talon="AC AH",
    )  # fmt: skip
    game.do(Pass(seat=0), MakeBid(seat=1, bid="MISER"), Pass(seat=2), TakeTalon(seat=1))
    game.do(Discard(seat=1, cards=("AC", "AH")))  # a catcher leads: the catchers open at once
    k = read(seat_input(game.events, 0))
    assert set(k.hands) == {0, 2}
    assert k.hidden == {1: 10, REST: 2}
    assert count_layouts(k.hidden, len(k.unseen)) == math.comb(12, 2) == 66
    every = enumerate_worlds(k)
    assert len(every) == 66 and len({tuple(sorted(w[REST])) for w in every}) == 66
    exhaustive, _ = worlds(k, random.Random(0))
    assert exhaustive
