"""Random tables for tests, benchmarks and bots: a shuffled deal, a pulka of random legal play.

The domain itself never draws a random number: the caller hands in its own `random.Random`
(seeded for tests and replays, `secrets.SystemRandom` for real games), so everything here is
reproducible from the seed.
"""

from __future__ import annotations

import random

import msgspec

from domain import game as g
from domain.cards import DECK
from domain.deal.messages import Claim
from domain.rules import Rules


def random_deal(rng: random.Random, seats: int, dealer: int) -> g.DealCards:
    """A shuffled deal: ten cards to each active seat (none to a sitting-out dealer at four),
    the last two to the talon."""
    deck = list(DECK)
    rng.shuffle(deck)
    hands: list[tuple[str, ...]] = []
    dealt = 0
    for seat in range(seats):
        if seats == 4 and seat == dealer:
            hands.append(())
            continue
        hands.append(tuple(deck[dealt : dealt + 10]))
        dealt += 10
    return g.DealCards(hands=tuple(hands), talon=(deck[30], deck[31]))


def play_random_pulka(
    rules: Rules,
    rng: random.Random,
    players: list[str] | None = None,
    *,
    stop_after: int | None = None,
    ms_per_command: int | None = None,
    claims: float = 0.0,
) -> tuple[g.GameState, list[list[g.Event]]]:
    """A pulka played with random legal actions: the final state and the events, grouped as each
    command produced them. ``stop_after`` stops after that many commands (a game still running).
    ``ms_per_command`` stamps the n-th command with ``at = n × ms_per_command``, a clock made of
    data, so that a time limit runs out; without it commands carry no time. A claim the table
    offers is made with probability ``claims`` (else only the deal's moves are chosen), and
    answered at random.
    """
    players = players or [f"player-{seat}" for seat in range(rules.players)]
    state: g.GameState = g.INITIAL_STATE
    appends: list[list[g.Event]] = []

    def do(command: g.Command) -> None:
        nonlocal state
        if ms_per_command is not None:
            command = msgspec.structs.replace(command, at=len(appends) * ms_per_command)
        new = g.decide(command, state)
        state = g.fold(new, state)
        appends.append(new)

    do(g.CreateGame(rules=rules, first_dealer=rng.randrange(rules.players)))
    for seat, player in enumerate(players):
        do(g.TakeSeat(seat=seat, player=player))
    while not g.is_terminal(state) and (stop_after is None or len(appends) < stop_after):
        assert isinstance(state, g.Pulka)
        if g.needs_cards(state):
            do(random_deal(rng, rules.players, state.next_dealer))
            continue
        seat = g.to_act(state)[0]
        actions = g.legal_actions(state, seat)
        moves = [a for a in actions if not isinstance(a, Claim)]
        claiming = len(moves) < len(actions) and rng.random() < claims
        do(rng.choice(actions[len(moves) :] if claiming else moves))
    return state, appends
