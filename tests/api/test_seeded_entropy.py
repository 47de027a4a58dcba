"""The service's randomness is injected (`service.platform.entropy`): two services handed the
same seeded source draw the same client seeds for the same table, another seed draws others,
and the tokens stay random whatever the source. The cards differ all the same: a game's secret
is drawn by the database, never by the service (migration 0018), so no seeded source of the
service can predict a deal."""

from __future__ import annotations

import json

import asyncpg
from apitools import make_app, seated_game
from litestar.testing import AsyncTestClient

from service.games.streams import game_stream
from service.platform.entropy import SeededEntropy

QUICK = {"pool": {"target": 10, "max_deals": 2}}


async def a_table(dsn: str, seed: str) -> tuple[list[object], list[str], list[str]]:
    """A table of three seated on a service drawing from ``seed`` (nobody gives a client seed):
    its first deal's hands and talon, the client seeds drawn, and the players' tokens."""
    async with AsyncTestClient(make_app(dsn, entropy=SeededEntropy(seed))) as client:
        game_id, players = await seated_game(client, overrides=QUICK)
    conn = await asyncpg.connect(dsn)
    try:
        rows = await conn.fetch(
            "SELECT event_type, data::text FROM es.events WHERE stream_id = $1 ORDER BY version",
            game_stream(game_id),
        )
    finally:
        await conn.close()
    events = [(kind, json.loads(data)) for kind, data in rows]
    dealt = next(data for kind, data in events if kind == "deal_started")
    seeds = [data["client_seed"] for kind, data in events if kind == "player_seated"]
    return [dealt["hands"], dealt["talon"]], seeds, [p.token for p in players]


async def test_two_services_with_the_same_seeded_entropy_draw_the_same_seeds_not_the_cards(
    database_dsn: str, other_database_dsn: str
) -> None:
    deal, seeds, tokens = await a_table(database_dsn, "table 7")
    again, seeds_again, tokens_again = await a_table(other_database_dsn, "table 7")
    assert len(seeds) == 3 and all(len(s) == 32 for s in seeds)
    assert seeds_again == seeds and again != deal  # the database's secret: 2^-100 to collide
    assert not set(tokens) & set(tokens_again)  # bearer tokens are never drawn from the seed
    other, other_seeds, _ = await a_table(database_dsn, "table 8")
    assert other != deal and not set(other_seeds) & set(seeds)
