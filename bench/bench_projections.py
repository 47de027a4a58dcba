"""Projection catch-up speed from position zero, beside reading the same feed and doing nothing.

    python bench/bench_projections.py [--dsn postgresql://…/postgres] [--events 200000]

1. Creates a scratch database on the server (``--dsn``, else PREFERANS_TEST_DATABASE_URL), and
   migrates it.
2. Plays random games with the domain (random legal actions, random presets, three or four
   players) until the log holds ``--events`` events, interleaving ``--concurrent`` games at a
   time as a live server would, and loads them with COPY, a few hundred events per transaction
   (so the feed spans many transaction ids, as the real one does).
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
import msgspec

from domain import game as g
from domain.rules import rules_for
from domain.simulation import play_random_pulka
from service.eventlog.codec import domain_codec
from service.eventlog.log import EventLog, game_log
from service.eventlog.store import FEED_START, uuid7
from service.platform.database import create_pool, upgrade_async, with_database
from service.read_models.runner import Projections
from service.read_models.storage import READ_MODELS

CODEC = domain_codec()


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


async def load(pool: asyncpg.Pool, target: int, concurrent: int, seed: int) -> tuple[int, int]:
    """Play and COPY games until ``target`` events; returns (events, games)."""
    rng = random.Random(seed)
    active: list[tuple[str, list[list[g.Event]], list[int]]] = []  # stream, appends, [next, ver]
    versions: dict[str, int] = {}
    rows: list[tuple[object, ...]] = []
    total = games = 0
    started = time.perf_counter()

    async def flush() -> None:
        async with pool.acquire() as conn, conn.transaction():
            new = [s for s in {r[0] for r in rows} if s not in flushed]
            if new:
                await conn.copy_records_to_table(
                    "streams", schema_name="es", columns=["stream_id", "stream_type", "version"],
                    records=[(s, "game", 0) for s in new],
                )  # fmt: skip
                flushed.update(new)
            await conn.copy_records_to_table(
                "events", schema_name="es",
                columns=["stream_id", "version", "event_id", "event_type", "schema_version",
                         "data"],
                records=rows,
            )  # fmt: skip
        rows.clear()

    flushed: set[str] = set()
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
        for event in appends[state[0]]:
            version = versions.get(stream, 0) + 1
            versions[stream] = version
            event_type, schema_version, data = CODEC.encode(event)
            rows.append((stream, version, uuid7(), event_type, schema_version, msgspec.Raw(data)))
        state[0] += 1
        if state[0] == len(appends):
            active.pop(i)
        if len(rows) >= 400:
            await flush()
    if rows:
        await flush()
    async with pool.acquire() as conn:
        await conn.executemany(
            "UPDATE es.streams SET version = $2 WHERE stream_id = $1", list(versions.items())
        )
        await conn.execute("ANALYZE es.events")
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
    await admin.execute(f'CREATE DATABASE "{name}"')
    dsn = with_database(server_dsn, name)
    try:
        await upgrade_async(dsn)
        pool = await create_pool(dsn, min_size=2, max_size=8)
        try:
            log = game_log(pool, announce=False)
            events, games = await load(pool, target, concurrent, seed=1)
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
    args = parser.parse_args()  # fmt: skip
    if not args.dsn:
        parser.error("give --dsn or set PREFERANS_TEST_DATABASE_URL")
    asyncio.run(bench(args.dsn, args.events, args.concurrent, args.batch, args.keep))


if __name__ == "__main__":
    main()
