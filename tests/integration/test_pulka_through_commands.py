"""A whole pulka played through command handling against PostgreSQL, then read back and folded,
gives the same state and sheet as the pure domain playing the same commands."""

from __future__ import annotations

import random

import asyncpg
import pytest

from domain import game
from domain.rules import rules_for
from domain.simulation import random_deal
from service.eventlog.handler import CommandContext, CommandHandler, Decider
from service.eventlog.log import game_log

pytestmark = pytest.mark.integration

GAME = Decider(lambda: game.INITIAL_STATE, game.decide, game.evolve)


def next_command(state: game.GameState, rules, rng: random.Random) -> game.Command:
    """What the table does next: create, sit, deal (a seeded shuffle) or a random legal action."""
    if isinstance(state, game.NoGame):
        return game.CreateGame(rules=rules)
    free = [s for s, p in enumerate(state.players) if p is None]
    if free:
        return game.TakeSeat(seat=free[0], player=f"player-{free[0]}")
    if game.needs_cards(state):
        return random_deal(rng, rules.players, state.next_dealer)
    seat = game.to_act(state)[0]  # two while a claim waits for its answers
    return rng.choice(game.legal_actions(state, seat))


@pytest.mark.parametrize("preset", ["sochi", "leningrad", "rostov"])
async def test_a_pulka_played_through_command_handling_folds_back_to_the_pure_domain(
    app_pool: asyncpg.Pool, preset: str
) -> None:
    rules = rules_for(preset, {"pool": {"target": 4}})
    rng = random.Random(f"pulka-{preset}")
    handler = CommandHandler(game_log(app_pool, announce=False), GAME)
    stream = f"game-{preset}"

    pure: game.GameState = game.INITIAL_STATE
    commands = 0
    while not game.is_terminal(pure):
        command = next_command(pure, rules, rng)
        pure = game.fold(game.decide(command, pure), pure)
        result = await handler.handle(stream, command, context=CommandContext(actor="test"))
        assert result.state == pure
        commands += 1
    assert commands > 10

    # a handler with a cold cache reads the whole stream from the database and folds it
    version, loaded = await CommandHandler(game_log(app_pool, announce=False), GAME).load(stream)
    assert loaded == pure
    assert isinstance(loaded, game.PulkaClosed)
    assert loaded.sheet == pure.sheet and loaded.settlement == pure.settlement
    assert sum(loaded.settlement.result) == 0

    recorded = await game_log(app_pool, announce=False).read(stream)
    assert [r.version for r in recorded] == list(range(1, version + 1))
    assert game.fold([r.event for r in recorded]) == pure
