"""Whole games (pulkas) played with random legal actions, for the projection tests."""

from __future__ import annotations

import random
import uuid

from domain import game as g
from domain.rules import Rules, rules_for
from domain.simulation import play_random_pulka


def small_rules(preset: str = "sochi", players: int = 3, target: int = 4) -> Rules:
    return rules_for(preset, {"players": players, "pool": {"target": target}})


def player_ids(n: int, seed: int) -> list[str]:
    """Opaque player ids, as the service seats them."""
    rng = random.Random(seed)
    return [str(uuid.UUID(int=rng.getrandbits(128), version=4)) for _ in range(n)]


def play_pulka(
    rules: Rules, seed: int, players: list[str] | None = None, *, stop_after: int | None = None
) -> tuple[g.GameState, list[list[g.Event]]]:
    """The final state and the events, grouped as each command appended them.

    ``stop_after`` stops after that many commands (a game still running).
    """
    players = players or player_ids(rules.players, seed)
    return play_random_pulka(rules, random.Random(seed), players, stop_after=stop_after)


def flat(appends: list[list[g.Event]]) -> list[g.Event]:
    return [e for batch in appends for e in batch]


def bot_pulka(
    seed: int, players: list[str] | None = None, *, target: int = 4, level: str = "basic"
) -> list[g.Event]:
    """The events of a whole pulka played by the ``level`` bots (each seeing only its seat),
    dealt from ``seed``: play more like a table's than random play, so its deals hold puzzles."""
    from bots import LEVELS
    from bots.view import SeatFeed
    from domain.simulation import random_deal

    rules = rules_for("sochi", {"pool": {"target": target}})
    players = players or player_ids(3, seed)
    rng = random.Random(seed)
    state: g.GameState = g.INITIAL_STATE
    events: list[g.Event] = []
    feeds = [SeatFeed(s) for s in range(3)]

    def do(command: g.Command) -> None:
        nonlocal state
        for e in g.decide(command, state):
            state = g.evolve(state, e)
            events.append(e)
            for feed in feeds:
                feed.add(e)

    do(g.CreateGame(rules=rules, first_dealer=0))
    for seat, player in enumerate(players):
        do(g.TakeSeat(seat=seat, player=player))
    strategy = LEVELS[level]
    while not g.is_terminal(state):
        assert isinstance(state, g.Pulka)
        if g.needs_cards(state):
            do(random_deal(rng, 3, state.next_dealer))
            continue
        seat = g.to_act(state)[0]
        do(strategy(feeds[seat].view(), rng, 0.2))
    return events
