"""Projection catch-up speed from position zero, beside reading the same feed and doing nothing.

    python bench/bench_projections.py [--dsn postgresql://…/postgres] [--events 200000] [--smoke]

1. Creates a scratch database on the server (``--dsn``, else PREFERANS_TEST_DATABASE_URL), and
   migrates it.
2. Plays random games with the domain (random legal actions, random presets, three or four
   players) until the log holds ``--events`` events, interleaving ``--concurrent`` games at a
   time as a live server would, and appends them through `EventLog.append` (es.append, hash
   chain included), one command's events an append, a few hundred events per transaction (so
   the feed spans many transaction ids, as the real one does).
3. Measures, each from position zero:
   - ``feed only``: `EventStore.read_feed` in batches, nothing decoded or applied (the floor);
   - ``feed + decode``: the same, decoding the events the projections read;
   - each projection alone, and all of them together, with `Projections.catch_up` (read,
     decode, pure apply, read-model writes and the checkpoint, one transaction per batch);
   - a blue/green ``rebuild`` of all projections.
4. Prints events/s with the server's facts, and drops the scratch database (``--keep`` keeps it).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import random
import sys
import time
import uuid
from collections.abc import Awaitable, Callable

import asyncpg

sys.path.insert(0, os.path.dirname(__file__))
from _kit import add_smoke, new_database

from domain import game as g
from domain.rules import rules_for
from domain.simulation import play_random_pulka
from service.eventlog.log import EventLog, game_log
from service.eventlog.store import FEED_START, Metadata, uuid7
from service.platform.database import create_pool, with_database
from service.read_models.runner import Projections
from service.read_models.storage import READ_MODELS


def play(rng: random.Random) -> list[list[g.Event]]:
    """One game with random legal actions: its events, grouped per command."""
    seats = rng.choice([3, 3, 4])
    rules = rules_for(
        rng.choice(["sochi", "leningrad", "rostov"]),
        {"players": seats, "pool": {"target": rng.choice([6, 10])}},
    )
    players = [str(uuid.UUID(int=rng.getrandbits(128), version=4)) for _ in range(seats)]
    _, appends = play_random_pulka(rules, rng, players)
    return appends


async def load(log: EventLog[g.Event], target: int, concurrent: int, seed: int) -> tuple[int, int]:
    """Play and append games until ``target`` events; returns (events, games).

    Each command's events are one `EventLog.append` (es.append: the hash chain, salts and all,
    as the service writes them), a few hundred events per transaction."""
    rng = random.Random(seed)
    active: list[tuple[str, list[list[g.Event]], list[int]]] = []  # stream, appends, [next]
    total = games = 0
    started = time.perf_counter()
    pending: list[tuple[str, list[g.Event]]] = []
    batched = 0

    async def flush() -> None:
        nonlocal batched
        async with log.pool.acquire() as conn, conn.transaction():
            for stream, events in pending:
                new = log.new_events(events, [uuid7() for _ in events], Metadata())
                await log.append(stream, new, conn=conn)
        pending.clear()
        batched = 0

    while total < target or active:
        while total < target and len(active) < concurrent:
            appends = play(rng)
            games += 1
            active.append((f"game-{uuid7()}", appends, [0]))
            total += sum(len(a) for a in appends)
        if not active:
            break
        i = rng.randrange(len(active))
        stream, appends, state = active[i]
        pending.append((stream, appends[state[0]]))
        batched += len(appends[state[0]])
        state[0] += 1
        if state[0] == len(appends):
            active.pop(i)
        if batched >= 400:
            await flush()
    if pending:
        await flush()
    await log.pool.execute("ANALYZE es.events")
    elapsed = time.perf_counter() - started
    print(f"loaded {total:,} events of {games} games in {elapsed:.1f} s", file=sys.stderr)
    return total, games


async def timed(label: str, events: int, action: Callable[[], Awaitable[object]]) -> float:
    started = time.perf_counter()
    await action()
    seconds = time.perf_counter() - started
    rate = events / seconds
    print(f"  {label:<34} {seconds:7.2f} s  {rate:>10,.0f} events/s")
    return rate


async def reset(pool: asyncpg.Pool) -> None:
    """Forget every projection: the next catch-up starts at position zero."""
    names = ", ".join(f"rm.{t}_{s}" for cls in READ_MODELS for t in cls.tables for s in "ab")
    async with pool.acquire() as conn, conn.transaction():
        await conn.execute(f"TRUNCATE {names}")
        await conn.execute("DELETE FROM rm.projections")
        await conn.execute("DELETE FROM es.projection_checkpoints")


async def read_everything(log: EventLog[g.Event], batch: int, decode: bool) -> int:
    needed = frozenset().union(*(cls.handled for cls in READ_MODELS))
    cursor, count = FEED_START, 0
    while records := await log.store.read_feed(cursor, batch):
        if decode:
            for r in records:
                if r.event_type in needed:
                    log.decode(r)
        count += len(records)
        cursor = records[-1].cursor
    return count


async def server_facts(pool: asyncpg.Pool) -> str:
    version = await pool.fetchval("SHOW server_version")
    sync = await pool.fetchval("SHOW synchronous_commit")
    cpus = os.cpu_count()
    return (
        f"PostgreSQL {version}, synchronous_commit={sync}; Python {platform.python_version()}, "
        f"{platform.machine()}, {cpus} CPUs ({platform.processor() or platform.platform()})"
    )


async def bench(server_dsn: str, target: int, concurrent: int, batch: int, keep: bool) -> None:
    name = f"bench_projections_{uuid.uuid4().hex[:8]}"
    admin = await asyncpg.connect(server_dsn)
    await new_database(admin, server_dsn, name, migrated=True)
    dsn = with_database(server_dsn, name)
    try:
        pool = await create_pool(dsn, min_size=2, max_size=8)
        try:
            log = game_log(pool, announce=False)
            events, games = await load(log, target, concurrent, seed=1)
            print(await server_facts(pool))
            print(f"{events:,} events, {games} games, batches of {batch}")
            await timed("feed only", events, lambda: read_everything(log, batch, decode=False))
            await timed("feed + decode", events, lambda: read_everything(log, batch, True))
            for cls in READ_MODELS:
                await reset(pool)
                runner = Projections(log, models=[cls()], batch_size=batch)
                await timed(f"catch-up: {cls.name} alone", events, runner.catch_up)
            await reset(pool)
            runner = Projections(log, batch_size=batch)
            await timed("catch-up: all projections together", events, runner.catch_up)
            await timed(
                "rebuild (blue/green): all", events, lambda: runner.rebuild(batch_size=batch)
            )
            sizes = await pool.fetch(
                "SELECT name, active FROM rm.projections ORDER BY name"
            )  # the rebuilt generation serves
            print("  generations now serving:", ", ".join(f"{r[0]}@{r[1]}" for r in sizes))
        finally:
            await pool.close()
    finally:
        if not keep:
            await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        await admin.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--dsn",
        default=os.environ.get("PREFERANS_TEST_DATABASE_URL"),
        help="a server's maintenance database (a scratch one is created)",
    )
    parser.add_argument("--events", type=int, default=200_000)
    parser.add_argument("--concurrent", type=int, default=64, help="games interleaved")
    parser.add_argument("--batch", type=int, default=5000, help="feed batch size")
    parser.add_argument("--keep", action="store_true", help="keep the scratch database")
    add_smoke(parser)
    args = parser.parse_args()  # fmt: skip
    if args.smoke:
        args.events, args.batch = 3000, 500
    if not args.dsn:
        parser.error("give --dsn or set PREFERANS_TEST_DATABASE_URL")
    asyncio.run(bench(args.dsn, args.events, args.concurrent, args.batch, args.keep))


if __name__ == "__main__":
    main()
