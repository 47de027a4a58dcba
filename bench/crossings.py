"""The layer crossings of a card played: every call from one room of the service into another.

    PREFERANS_TEST_DATABASE_URL=postgresql://… python bench/crossings.py [--smoke]

It makes a scratch database on that server (dropped at the end), plays a game through the HTTP
app in process to its first card (every seat passes: the all-pass is played), plays two cards
to warm the caches, and then records one more card played, keyed (``POST …/actions`` with an
Idempotency-Key), and its replay, under `sys.setprofile`. A call is a crossing when the caller's
room (``api``, ``games``, ``eventlog``, ``players``, ``platform``, ``exceptions``, ``domain``;
``sql`` for asyncpg) is not the callee's, in the request's own task (the workers, the
projections and the post-commit hints run in tasks of their own). Printed: each distinct
crossing (caller → callee, by function), numbered, and the count per pair of rooms; then the
size of the card's key row. Distinct edges, not calls: a coroutine resumed after an await
reports its caller again, and a fold calls ``evolve`` once per event. It takes a few seconds
whatever the flags (``--smoke`` is accepted, for tests/bench).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from collections import Counter
from types import FrameType
from typing import Any

import asyncpg
from litestar.testing import AsyncTestClient

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _kit import add_smoke, database_server, scratch_database

from service.app import create_app
from service.platform.settings import Settings

ROOMS = ("api", "games", "eventlog", "players", "platform", "read_models", "workers")


def room(module: str) -> str | None:
    """The room a module lives in, or None outside the service, the domain and asyncpg."""
    parts = module.split(".")
    if parts[0] == "service":
        if len(parts) > 1 and parts[1] in ROOMS:
            return parts[1]
        return "exceptions" if parts[1:2] == ["exceptions"] else None
    if parts[0] == "domain":
        return "domain"
    if parts[0] == "asyncpg":
        return "sql"
    return None


class Crossings:
    """The crossings of each asyncio task, by task (the request's is the one that acts)."""

    def __init__(self) -> None:
        self.by_task: dict[int, dict[tuple[str, str], tuple[str, str]]] = {}

    @property
    def edges(self) -> dict[tuple[str, str], tuple[str, str]]:
        """The request's crossings: its task is the one that ran the actions controller."""
        for edges in self.by_task.values():
            if any(caller.endswith("ActionsController.act") for caller, _ in edges):
                return edges
        return {}

    def __call__(self, frame: FrameType, event: str, arg: Any) -> None:
        if event != "call" or frame.f_back is None:
            return
        try:
            task = asyncio.current_task()
        except RuntimeError:
            return
        if task is None:
            return
        caller = frame.f_back
        here = room(frame.f_globals.get("__name__", ""))
        there = room(caller.f_globals.get("__name__", ""))
        if here is None or there is None or here == there:
            return
        edge = (_name(caller), _name(frame))
        self.by_task.setdefault(id(task), {}).setdefault(edge, (there, here))


def _name(frame: FrameType) -> str:
    return f"{frame.f_globals.get('__name__')}.{frame.f_code.co_qualname}"


async def play(client: AsyncTestClient[Any], dsn: str) -> None:
    players = []
    for name in ("Анна", "Борис", "Вера"):
        made = await client.post("/v1/players", json={"name": name})
        players.append({"Authorization": f"Bearer {made.json()['token']}"})
    created = await client.post("/v1/games", json={"seat": 0, "seed": "x"}, headers=players[0])
    game_id = created.json()["id"]
    for seat in (1, 2):
        await client.post(f"/v1/games/{game_id}/seats", json={"seat": seat}, headers=players[seat])
    url = f"/v1/games/{game_id}/actions"
    plays = 0
    while True:
        view = (await client.get(f"/v1/games/{game_id}", headers=players[0])).json()
        seat = view["view"]["deal"]["to_act"][0]
        legal = (await client.get(f"/v1/games/{game_id}", headers=players[seat])).json()
        moves = legal["legal_actions"]
        move = next((m for m in moves if m["type"] in ("pass", "play")), moves[0])
        if move["type"] == "play" and plays == 2:
            break
        plays += move["type"] == "play"
        answer = await client.post(url, json=move, headers=players[seat])
        assert answer.status_code == 200, answer.text
    keyed = {**players[seat], "Idempotency-Key": "the-card"}
    for label in ("a card played", "its replay"):
        crossings = Crossings()
        # The test client serves the app on its portal's thread: the profile is set there.
        client.blocking_portal.call(sys.setprofile, crossings)
        try:
            answer = await client.post(url, json=move, headers=keyed)
        finally:
            client.blocking_portal.call(sys.setprofile, None)
        assert answer.status_code == 200, answer.text
        report(label, crossings)
    conn = await asyncpg.connect(dsn)
    try:
        row, toast = await conn.fetchrow(_KEY_ROW)
    finally:
        await conn.close()
    print(f"\nthe card's key row: {row} bytes; the keys' TOAST table: {toast} bytes")


# The whole row as stored (its values detoasted), and what the keys' TOAST table holds.
_KEY_ROW = """
SELECT pg_column_size(k.*),
       (SELECT pg_relation_size(reltoastrelid) FROM pg_class
         WHERE oid = 'es.idempotency_keys'::regclass)
  FROM es.idempotency_keys k WHERE idem_key = 'the-card'"""


def report(label: str, crossings: Crossings) -> None:
    print(f"\n{label}: {len(crossings.edges)} distinct crossings")
    for number, ((caller, callee), (there, here)) in enumerate(crossings.edges.items(), 1):
        print(f"{number:3} {there:>10} → {here:<10} {caller} → {callee}")
    pairs = Counter(crossings.edges.values())
    for (there, here), count in sorted(pairs.items()):
        print(f"    {there} → {here}: {count}")


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_smoke(parser)
    parser.parse_args()
    async with scratch_database(database_server(), "preferans_crossings", migrated=True) as dsn:
        settings = Settings(database_url=dsn, rate_limits=False, bot_worker="inline")
        async with AsyncTestClient(create_app(settings, migrate=False)) as client:
            await play(client, dsn)


if __name__ == "__main__":
    asyncio.run(main())
