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
