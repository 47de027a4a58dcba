"""Server-Sent Events to many followers across two service processes: the delay from an
action's 2xx to its event at each follower, for followers on the process that took the action
and on the other one (which hears of it by NOTIFY), beside a round trip of ``GET /health``.

    PREFERANS_TEST_DATABASE_URL=postgresql://… python bench/bench_sse.py \
        [--followers 1000] [--games 50] [--actions 300] [--rate 20] [--wave 50] [--smoke]

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
from typing import Any

import httpx

sys.path.insert(0, os.path.dirname(__file__))
from _kit import (
    CpuMeter,
    add_smoke,
    database_server,
    free_port,
    preferans,
    scratch_database,
    served,
)


async def follow(port: int, game_id: str, arrivals: dict[tuple[str, int], list[float]],
                 ready: asyncio.Event, stop: asyncio.Event) -> None:  # fmt: skip
    """Follow ``game_id`` on ``port``, noting when each ``id:`` arrives; ``ready`` once the
    server answered 200 (a refusal, e.g. a 503 while its pool is busy, is retried)."""
    while not stop.is_set():
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        try:
            writer.write(f"GET /v1/games/{game_id}/stream HTTP/1.1\r\nHost: b\r\n"
                         "Accept: text/event-stream\r\n\r\n".encode())  # fmt: skip
            await writer.drain()
            status = await reader.readline()
            if b" 200 " not in status:
                REFUSED[0] += 1
                await asyncio.sleep(0.5)
                continue
            ready.set()
            while not stop.is_set():
                line = await reader.readline()
                if not line:
                    return
                if line.startswith(b"id:"):
                    arrivals.setdefault((game_id, int(line[3:])), []).append(time.perf_counter())
        finally:
            writer.close()


REFUSED = [0]
"""Follow requests the servers refused (retried), for the report."""


async def view_of(http: httpx.AsyncClient, game_id: str, auth: dict[str, str]) -> dict[str, Any]:
    """The seat's view of the game; a 5xx (the pool busy while followers subscribe) is retried,
    and counted."""
    while True:
        response = await http.get(f"/v1/games/{game_id}", headers=auth)
        if response.status_code == 200:
            return response.json()  # type: ignore[no-any-return]
        if response.status_code < 500:
            raise RuntimeError(f"GET the view: {response.status_code} {response.text[:300]}")
        REFUSED[0] += 1
        await asyncio.sleep(0.2)


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
    parser.add_argument("--wave", type=int, default=50, help="followers connecting at once")
    add_smoke(parser)
    args = parser.parse_args()
    if args.smoke:
        args.followers, args.games, args.actions, args.rate = 20, 4, 12, 40
    async with scratch_database(database_server(), migrated=True) as dsn:
        await bench(dsn, args)


async def bench(dsn: str, args: argparse.Namespace) -> None:
    env = {"DATABASE_URL": dsn, "PREFERANS_RATE_LIMITS": "false", "PREFERANS_BOT_WORKER": "off",
           "PREFERANS_PROJECTIONS": "false", "PREFERANS_MAX_CONNECTIONS": "4096"}  # fmt: skip
    ports = [free_port(), free_port()]
    async with (
        served([*preferans(), "serve", "--port", str(ports[0])], env, ports[0]) as one,
        served([*preferans(), "serve", "--port", str(ports[1])], env, ports[1]) as other,
        httpx.AsyncClient(base_url=one.base, timeout=30) as http,
    ):
        auth = []
        for i in range(3):
            body = (await http.post("/v1/players", json={"name": f"b{i}"})).json()
            auth.append({"Authorization": f"Bearer {body['token']}"})
        games = []
        for _ in range(args.games):
            created = await http.post("/v1/games", json={"seat": 0}, headers=auth[0])
            game_id = created.json()["id"]
            for seat in (1, 2):
                await http.post(f"/v1/games/{game_id}/seats", json={"seat": seat},
                                headers=auth[seat])  # fmt: skip
            games.append(game_id)
        arrivals: dict[int, dict[tuple[str, int], list[float]]] = {p: {} for p in ports}
        stop = asyncio.Event()
        tasks = []
        # In waves, each answered before the next: a thousand subscriptions at once would queue
        # for the servers' pools, which is not what a follower's delay measures.
        for start in range(0, args.followers, args.wave):
            readies = []
            for i in range(start, min(start + args.wave, args.followers)):
                port = ports[i % 2]
                ready = asyncio.Event()
                readies.append(ready)
                tasks.append(asyncio.create_task(
                    follow(port, games[i % len(games)], arrivals[port], ready, stop)))  # fmt: skip
            await asyncio.gather(*(r.wait() for r in readies))
        await asyncio.sleep(2)  # every follower subscribed and caught up
        acked: dict[tuple[str, int], float] = {}
        health = []
        meters = [CpuMeter(one.process.pid, dsn), CpuMeter(other.process.pid, dsn)]
        for meter in meters:
            await meter.start()
        for n in range(args.actions):
            game_id = games[n % len(games)]
            started = time.perf_counter()
            for a in auth:
                view = await view_of(http, game_id, a)
                if view["legal_actions"]:
                    done = await http.post(f"/v1/games/{game_id}/actions", headers=a,
                                           json=view["legal_actions"][0])  # fmt: skip
                    if done.status_code != 200:
                        raise RuntimeError(f"an action: {done.status_code} {done.text[:300]}")
                    acked[(game_id, done.json()["version"])] = time.perf_counter()
                    break
            t = time.perf_counter()
            await http.get("/health")
            health.append(time.perf_counter() - t)
            await asyncio.sleep(max(0.0, 1 / args.rate - (time.perf_counter() - started)))
        await asyncio.sleep(1)
        cpus = [await meter.stop() for meter in meters]
        stop.set()
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    print(f"{os.cpu_count()} CPUs (shared); {args.followers} followers of {args.games} games, "
          f"half on each of two processes; {len(acked)} actions at ~{args.rate:g}/s")  # fmt: skip
    print(f"{'':38}{'p50 ms':>8}{'p99 ms':>8}{'max ms':>8}{'deliveries':>11}{'svc ms':>8}")
    for label, port, cpu in (("followers on the acting process", ports[0], cpus[0]),
                             ("followers on the other process", ports[1], cpus[1])):  # fmt: skip
        delays = [at - acked[key] for key, times in arrivals[port].items() if key in acked
                  for at in times]  # fmt: skip
        print(f"{label:38}{quantiles(delays)}{cpu.service / max(len(delays), 1) * 1000:8.3f}")
    print(f"{'baseline: GET /health round trip':38}{quantiles(health)}")
    print(
        "(a delay is from the action's 2xx at the client to the event at a follower; an event "
        "may reach a follower before the 2xx, a negative delay counted as such; svc ms: the "
        "process's CPU per delivery, the acting one's actions and views included)"
    )
    print(
        f"PostgreSQL CPU per action: {cpus[0].database / max(len(acked), 1) * 1000:.3f} ms; "
        f"requests refused and retried (5xx while subscribing): {REFUSED[0]}"
    )


if __name__ == "__main__":
    asyncio.run(main())
