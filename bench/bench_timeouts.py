"""From a seat's deadline to its timeout event: how late the steward fires, beside a baseline.

    DATABASE_URL=postgresql://… python bench/bench_timeouts.py [--tables 20] [--seconds 30] \
        [--smoke]

(PREFERANS_TEST_DATABASE_URL works too.) It makes a scratch database on that server, starts
``preferans serve`` on it (bots and projections off), and opens ``--tables`` tables with a clock
of one second a move where nobody ever acts and nobody is ever marked absent: every move of
every seat is a timeout the steward makes. After ``--seconds`` it reads the log back and, for
each ``timed_out`` event, takes the deadline from the clock event before it (the turn's start,
the second a move, the bank) and measures

- *decided*: the ``at`` the steward stamped on the timeout (its clock when it acted), and
- *committed*: the event's ``recorded_at`` (the database's clock when it was written),

each minus the deadline. Both are printed with p50, p99 and max beside two baselines measured
in the same run on this machine: an asyncio timer's lateness for sleeps to the same kind of
deadlines (the event loop's own jitter, the floor of any timer), and one ``SELECT 1`` round
trip to the same server.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import statistics
import subprocess
import sys
import time
import uuid

import asyncpg
import httpx

sys.path.insert(0, os.path.dirname(__file__))
from _kit import add_smoke, free_port, new_database

from service.platform.database import with_database

RULES = {"table": {"move_seconds": 1, "timeouts_to_absent": 0, "stand_in": "basic"}}


def percentiles(values: list[float]) -> str:
    if not values:
        return "no samples"
    ordered = sorted(values)
    p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]
    return (
        f"p50 {statistics.median(ordered):7.1f} ms   p99 {p99:7.1f} ms   "
        f"max {ordered[-1]:7.1f} ms   n={len(ordered)}"
    )


async def timer_baseline(samples: int = 300) -> list[float]:
    """How late an asyncio sleep to a deadline wakes, on this machine now."""
    late = []
    for _ in range(samples):
        delay = random.uniform(0.001, 0.02)
        deadline = time.monotonic() + delay
        await asyncio.sleep(delay)
        late.append((time.monotonic() - deadline) * 1000)
    return late


async def round_trip_baseline(dsn: str, samples: int = 300) -> list[float]:
    conn = await asyncpg.connect(dsn)
    try:
        times = []
        for _ in range(samples):
            start = time.perf_counter()
            await conn.fetchval("SELECT 1")
            times.append((time.perf_counter() - start) * 1000)
        return times
    finally:
        await conn.close()


async def lateness(dsn: str) -> tuple[list[float], list[float]]:
    """Each timeout's (decided, committed) lateness in ms, read back from the log."""
    conn = await asyncpg.connect(dsn)
    try:
        rows = await conn.fetch(
            "SELECT stream_id, event_type, data::text, recorded_at FROM es.events"
            " WHERE event_type IN ('turn_clock', 'timed_out') ORDER BY stream_id, version"
        )
    finally:
        await conn.close()
    import json

    decided, committed = [], []
    clock: dict[str, dict] = {}
    for stream, kind, data, recorded in rows:
        event = json.loads(data)
        if kind == "turn_clock":
            clock[stream] = event
            continue
        last = clock.get(stream)
        if last is None or last["turns"][event["seat"]] is None:
            continue
        seat = event["seat"]
        deadline = last["turns"][seat] + RULES["table"]["move_seconds"] * 1000 + last["banks"][seat]
        decided.append(event["at"] - deadline)
        committed.append(recorded.timestamp() * 1000 - deadline)
    return decided, committed


def wait_healthy(url: str, process: subprocess.Popen[bytes], timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit("the service exited at start")
        try:
            if httpx.get(f"{url}/health", timeout=1).status_code == 200:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.1)
    raise SystemExit("the service did not start")


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=20)
    parser.add_argument("--seconds", type=float, default=30)
    add_smoke(parser)
    args = parser.parse_args()
    if args.smoke:
        args.tables, args.seconds = 2, 3
    server = os.environ.get("DATABASE_URL") or os.environ.get("PREFERANS_TEST_DATABASE_URL")
    if not server:
        raise SystemExit("set DATABASE_URL (or PREFERANS_TEST_DATABASE_URL)")
    name = f"bench_timeouts_{uuid.uuid4().hex[:8]}"
    admin = await asyncpg.connect(server)
    await new_database(admin, server, name, migrated=True)
    await admin.close()
    dsn = with_database(server, name)
    port = free_port()
    env = {**os.environ, "DATABASE_URL": dsn, "PREFERANS_PORT": str(port),
           "PREFERANS_RATE_LIMITS": "false", "PREFERANS_PROJECTIONS": "false",
           "PREFERANS_BOT_WORKER": "off"}  # fmt: skip
    process = subprocess.Popen(
        [sys.executable, "-m", "service.cli", "serve"], env=env, stdin=subprocess.DEVNULL
    )
    url = f"http://127.0.0.1:{port}"
    try:
        wait_healthy(url, process)
        async with httpx.AsyncClient(base_url=url, timeout=10) as client:
            players = []
            for n in range(3):
                body = (await client.post("/v1/players", json={"name": f"silent {n}"})).json()
                players.append({"Authorization": f"Bearer {body['token']}"})
            for _ in range(args.tables):
                game = await client.post(
                    "/v1/games", json={"seat": 0, "overrides": RULES}, headers=players[0]
                )
                game_id = game.json()["id"]
                for seat in (1, 2):
                    await client.post(f"/v1/games/{game_id}/seats", json={"seat": seat},
                                      headers=players[seat])  # fmt: skip
        print(f"{args.tables} tables, a second a move, nobody acting, for {args.seconds:.0f} s")
        await asyncio.sleep(args.seconds)
    finally:
        process.terminate()
        process.wait(timeout=15)
    decided, committed = await lateness(dsn)
    timer = await timer_baseline()
    trip = await round_trip_baseline(dsn)
    print(f"deadline → timeout decided   {percentiles(decided)}")
    print(f"deadline → timeout committed {percentiles(committed)}")
    print(f"baseline: asyncio timer lateness {percentiles(timer)}")
    print(f"baseline: one SELECT 1 round trip {percentiles(trip)}")
    admin = await asyncpg.connect(server)
    await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    await admin.close()


if __name__ == "__main__":
    asyncio.run(main())
