"""Fair deals under random play, through the service's own pure decider (`GAME_DECIDER`):

- every deck is a permutation of the 32 cards, and recomputes from the secret and the seeds;
- the commitment is in the first event, before any seat acts;
- the secret is in no event a seat is given and in no view until `SecretRevealed`;
- a seat that follows its feed knows its own hand whenever its view shows it, dark games too
  (a dark caller's hand arrives in a `CardsLooked` meant for him alone).
"""

from __future__ import annotations

import random

import msgspec
from _hypothesis import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from domain import fairness
from domain import game as g
from domain.cards import DECK
from domain.deal.messages import CardsLooked, DealStarted
from domain.rules import rules_for
from service.games.commands import GAME_DECIDER, Act, Create, GameRequest, Join
from service.games.dealing import new_source

CLASSIC = {"classic": {"dark_games": True}}


def play(seed: int, players: int, dark: bool, deals: int) -> list[g.Event]:
    rng = random.Random(seed)
    options = {"players": players, "pool": {"target": 10, "max_deals": deals}}
    rules = rules_for("sochi", {**options, **(CLASSIC if dark else {})})
    source = new_source(players)
    world = {"source": source, "entropy": b"", "at": None}
    seats = [f"p{s}" for s in range(players)]
    state: g.GameState = g.INITIAL_STATE
    events: list[g.Event] = []

    def run(command: GameRequest) -> None:
        nonlocal state
        new = GAME_DECIDER.decide(command, state)
        state = GAME_DECIDER.fold(new, state)
        events.extend(new)

    run(Create(player=seats[0], rules=rules, take_seat=0, client_seed=f"s{seed}", **world))
    for seat in range(1, players):
        run(Join(player=seats[seat], wanted=seat, client_seed=str(rng.random()), **world))
    while not g.is_terminal(state):
        seat = g.to_act(state)[0]
        move = rng.choice(g.legal_actions(state, seat))
        run(Act(player=seats[seat], command=move, **world))
    return events


@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), players=st.sampled_from([3, 4]), dark=st.booleans())
def test_decks_recompute_and_the_secret_stays_hidden_until_revealed(seed, players, dark):
    events = play(seed, players, dark, deals=3)
    created, revealed = events[0], events[-1]
    assert isinstance(created, g.GameCreated) and created.commitment is not None
    assert isinstance(revealed, g.SecretRevealed)
    assert fairness.reveals(revealed.secret, created.commitment)
    secret = bytes.fromhex(revealed.secret)

    seeds: list[str] = []
    deal_no = 0
    state: g.GameState = g.INITIAL_STATE
    for event in events[:-1]:
        if isinstance(event, g.PlayerSeated) and event.client_seed is not None:
            seeds.append(event.client_seed)
        if isinstance(event, DealStarted):
            deal_no += 1
            deck = fairness.deck_for(secret, seeds, deal_no)
            assert sorted(deck) == sorted(DECK)
            assert fairness.deal_hands(deck, players, event.dealer) == (event.hands, event.talon)
        for viewer in (*range(players), None):
            seen = msgspec.json.encode(g.redact(event, viewer, state))
            assert revealed.secret.encode() not in seen
        state = g.evolve(state, event)
        assert isinstance(state, g.Pulka)
        for viewer in (*range(players), None):
            assert revealed.secret.encode() not in msgspec.json.encode(g.game_view(state, viewer))
    assert deal_no == 3


@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), players=st.sampled_from([3, 4]))
def test_a_seat_following_its_feed_knows_its_hand_whenever_its_view_shows_it(seed, players):
    events = play(seed, players, dark=True, deals=2)
    state: g.GameState = g.INITIAL_STATE
    known: dict[int, set[str]] = {}
    dealt: tuple[tuple[str, ...], ...] = ()
    shown = 0
    for event in events:
        for seat in range(players):
            seen = g.redact(event, seat, state)
            if isinstance(seen, DealStarted):
                dealt, known[seat] = event.hands, set(seen.hands[seat])  # empty in a dark game
            elif isinstance(seen, CardsLooked) and seen.seat == seat:
                known[seat] = set(seen.hand)
            elif isinstance(seen, CardsLooked):
                assert seen.hand == ()  # another seat's hand never rides along
        state = g.evolve(state, event)
        if not isinstance(state, g.Pulka):
            continue
        for seat in range(players):
            if g.game_view(state, seat).deal.hand:  # the view shows his cards: so did his feed
                assert known[seat] == set(dealt[seat]), (seat, type(event).__name__)
                shown += 1
    assert shown
