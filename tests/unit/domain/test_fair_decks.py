"""The pure derivation of fair decks (domain.fairness), and the secret's reveal in the pulka."""

from __future__ import annotations

import hashlib
import random
from collections import Counter

import pytest

from domain import fairness
from domain import game as g
from domain.cards import DECK
from domain.errors import IllegalAction
from domain.rules import rules_for
from domain.simulation import random_deal

SECRET = bytes(range(32))


def test_a_deck_is_a_permutation_fixed_by_the_secret_the_seeds_and_the_deal_number():
    deck = fairness.deck_for(SECRET, ["a", "b", "c"], 1)
    assert sorted(deck) == sorted(DECK) and deck == fairness.deck_for(SECRET, ["a", "b", "c"], 1)
    others = [
        fairness.deck_for(SECRET, ["a", "b", "c"], 2),
        fairness.deck_for(SECRET, ["a", "b", "d"], 1),
        fairness.deck_for(SECRET, ["ab", "c"], 1),  # seeds are hashed one by one: no joins
        fairness.deck_for(bytes(32), ["a", "b", "c"], 1),
    ]
    assert all(other != deck for other in others)


def test_the_derivation_reads_shake_256_as_documented():
    text = "preferans-deal-v1\n" + SECRET.hex() + "\n7\n" + hashlib.sha256(b"x").hexdigest()
    assert fairness.derivation_input(SECRET, ["x"], 7) == text.encode()
    stream, cards = iter(hashlib.shake_256(text.encode()).digest(1024)), list(DECK)
    for i in range(31, 0, -1):
        j = next(b for b in stream if b < 256 - 256 % (i + 1)) % (i + 1)
        cards[i], cards[j] = cards[j], cards[i]
    assert fairness.deck_for(SECRET, ["x"], 7) == tuple(cards)


def test_every_card_lands_anywhere_about_equally_often():
    counts = Counter(
        (card, place)
        for n in range(1, 2001)
        for place, card in enumerate(fairness.deck_for(SECRET, [], n))
    )
    expected = 2000 / 32
    assert len(counts) == 32 * 32
    assert all(abs(c - expected) < 5 * expected**0.5 for c in counts.values())


def test_the_dealer_at_four_gets_nothing_and_hands_are_in_deck_order():
    hands, talon = fairness.deal_hands(fairness.deck_for(SECRET, [], 1), 4, 2)
    assert hands[2] == () and all(len(h) == 10 for s, h in enumerate(hands) if s != 2)
    assert all(list(h) == sorted(h, key=DECK.index) for h in hands) and len(talon) == 2


def _closed(commitment: str | None, dealing: str | None = "random") -> g.GameState:
    rules = rules_for("sochi", {"pool": {"target": 1, "max_deals": 1}})
    create = g.CreateGame(rules=rules, dealing=dealing, commitment=commitment)  # type: ignore[arg-type]
    state = g.fold(g.decide(create, g.INITIAL_STATE))
    for seat in range(3):
        state = g.fold(g.decide(g.TakeSeat(seat=seat, player=f"p{seat}"), state), state)
    rng = random.Random(1)
    state = g.fold(g.decide(random_deal(rng, 3, 0), state), state)
    while not g.is_terminal(state):
        move = rng.choice(g.legal_actions(state, g.to_act(state)[0]))
        state = g.fold(g.decide(move, state), state)
    return state


def test_only_the_committed_secret_is_revealed_once_the_game_is_over():
    state = _closed(fairness.commitment(SECRET))
    with pytest.raises(IllegalAction, match="does not open"):
        g.decide(g.RevealSecret(secret=bytes(32).hex()), state)
    (revealed,) = g.decide(g.RevealSecret(secret=SECRET.hex()), state)
    after = g.evolve(state, revealed)
    assert isinstance(after, g.PulkaClosed) and after.secret == SECRET.hex()
    assert g.game_view(after, 0).secret == SECRET.hex()
    with pytest.raises(IllegalAction, match="already"):
        g.decide(g.RevealSecret(secret=SECRET.hex()), after)


def test_no_secret_is_revealed_before_the_end_or_for_a_game_without_commitments():
    rules = rules_for("sochi")
    create = g.CreateGame(rules=rules, dealing="random", commitment="ab")
    created = g.fold(g.decide(create, g.INITIAL_STATE))
    with pytest.raises(IllegalAction):
        g.decide(g.RevealSecret(secret=SECRET.hex()), created)
    with pytest.raises(IllegalAction, match="before deals were committed"):
        g.decide(g.RevealSecret(secret=SECRET.hex()), _closed(None, dealing=None))
