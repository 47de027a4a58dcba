"""Server-Sent Events to many followers across two service processes: the delay from an
action's 2xx to its event at each follower, for followers on the process that took the action
and on the other one (which hears of it by NOTIFY), beside a round trip of ``GET /health``.

    PREFERANS_TEST_DATABASE_URL=postgresql://… python bench/bench_sse.py \
        [--followers 1000] [--games 50] [--actions 300] [--rate 20]

Two ``preferans serve`` processes on a scratch database (dropped at the end). ``--followers``
SSE connections (plain asyncio sockets, to keep the client light) follow ``--games`` games,
half on each process. One driver plays ``--actions`` moves through the first process at about
``--rate`` a second, round the games, and notes when each 2xx arrived; each follower notes when
each ``id:`` arrived. Printed: p50/p99/max of the delay per side, and the baseline.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import time
import uuid

import asyncpg
import httpx

sys.path.insert(0, os.path.dirname(__file__))
from bench_api import free_port, server

from service.platform.database import with_database


async def follow(port: int, game_id: str, arrivals: dict[tuple[str, int], list[float]],
                 ready: asyncio.Event, stop: asyncio.Event) -> None:  # fmt: skip
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(f"GET /v1/games/{game_id}/stream HTTP/1.1\r\nHost: b\r\n"
                 "Accept: text/event-stream\r\n\r\n".encode())  # fmt: skip
    await writer.drain()
    ready.set()
    try:
        while not stop.is_set():
            line = await reader.readline()
            if not line:
                return
            if line.startswith(b"id:"):
                arrivals.setdefault((game_id, int(line[3:])), []).append(time.perf_counter())
    finally:
        writer.close()


def quantiles(values: list[float]) -> str:
    values = sorted(values)
    p99 = values[min(len(values) - 1, int(len(values) * 0.99))]
    return (f"{statistics.median(values) * 1000:8.2f}{p99 * 1000:8.2f}{values[-1] * 1000:8.2f}"
            f"{len(values):11}")  # fmt: skip


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--followers", type=int, default=1000)
    parser.add_argument("--games", type=int, default=50)
    parser.add_argument("--actions", type=int, default=300)
    parser.add_argument("--rate", type=float, default=20)
    args = parser.parse_args()
    base = os.environ.get("DATABASE_URL") or os.environ.get("PREFERANS_TEST_DATABASE_URL")
    if not base:
        sys.exit("set DATABASE_URL (or PREFERANS_TEST_DATABASE_URL) to a PostgreSQL server")
    name = f"preferans_bench_{uuid.uuid4().hex[:8]}"
    admin = await asyncpg.connect(base)
    await admin.execute(f'CREATE DATABASE "{name}"')
    dsn = with_database(base, name)
    script = os.path.join(os.path.dirname(sys.executable), "preferans")
    env = {"DATABASE_URL": dsn, "PREFERANS_RATE_LIMITS": "false", "PREFERANS_BOT_WORKER": "off",
           "PREFERANS_PROJECTIONS": "false", "PREFERANS_MAX_CONNECTIONS": "4096"}  # fmt: skip
    ports = [free_port(), free_port()]
    try:
        async with server([script, "serve", "--port", str(ports[0])], env, ports[0], "/health"
                          ) as one, server([script, "serve", "--port", str(ports[1])], env,
                                           ports[1], "/health"):  # fmt: skip
            http = httpx.AsyncClient(base_url=one, timeout=30)
            auth = []
            for i in range(3):
                body = (await http.post("/v1/players", json={"name": f"b{i}"})).json()
                auth.append({"Authorization": f"Bearer {body['token']}"})
            games = []
            for _ in range(args.games):
                game_id = (await http.post("/v1/games", json={"seat": 0}, headers=auth[0])
                           ).json()["id"]  # fmt: skip
                for seat in (1, 2):
                    await http.post(f"/v1/games/{game_id}/seats", json={"seat": seat},
                                    headers=auth[seat])  # fmt: skip
                games.append(game_id)
            arrivals: dict[int, dict[tuple[str, int], list[float]]] = {p: {} for p in ports}
            stop = asyncio.Event()
            readies = []
            tasks = []
            for i in range(args.followers):
                port = ports[i % 2]
                ready = asyncio.Event()
                readies.append(ready)
                tasks.append(asyncio.create_task(
                    follow(port, games[i % len(games)], arrivals[port], ready, stop)))  # fmt: skip
            await asyncio.gather(*(r.wait() for r in readies))
            await asyncio.sleep(2)  # every follower subscribed and caught up
            acked: dict[tuple[str, int], float] = {}
            health = []
            for n in range(args.actions):
                game_id = games[n % len(games)]
                started = time.perf_counter()
                for a in auth:
                    view = (await http.get(f"/v1/games/{game_id}", headers=a)).json()
                    if view["legal_actions"]:
                        done = await http.post(f"/v1/games/{game_id}/actions", headers=a,
                                               json=view["legal_actions"][0])  # fmt: skip
                        acked[(game_id, done.json()["version"])] = time.perf_counter()
                        break
                t = time.perf_counter()
                await http.get("/health")
                health.append(time.perf_counter() - t)
                await asyncio.sleep(max(0.0, 1 / args.rate - (time.perf_counter() - started)))
            await asyncio.sleep(1)
            stop.set()
            for task in tasks:
                task.cancel()
            await http.aclose()
    finally:
        await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        await admin.close()
    print(f"{os.cpu_count()} CPUs (shared); {args.followers} followers of {args.games} games, "
          f"half on each of two processes; {args.actions} actions at ~{args.rate:g}/s")  # fmt: skip
    print(f"{'':38}{'p50 ms':>8}{'p99 ms':>8}{'max ms':>8}{'deliveries':>11}")
    for label, port in (("followers on the acting process", ports[0]),
                        ("followers on the other process", ports[1])):  # fmt: skip
        delays = [at - acked[key] for key, times in arrivals[port].items() if key in acked
                  for at in times]  # fmt: skip
        print(f"{label:38}{quantiles(delays)}")
    print(f"{'baseline: GET /health round trip':38}{quantiles(health)}")
    print(
        "(a delay is from the action's 2xx at the client to the event at a follower; an event "
        "may reach a follower before the 2xx, a negative delay counted as such)"
    )


if __name__ == "__main__":
    asyncio.run(main())
