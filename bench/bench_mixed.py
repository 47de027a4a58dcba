"""A mixed load on one service process: human tables acting, conditional GETs polling, SSE
followers, a table of bots and a clocked table whose silent seats time out, all at once.

    PREFERANS_TEST_DATABASE_URL=postgresql://… python bench/bench_mixed.py [--seconds 20] \
        [--tables 20] [--pollers 20] [--followers 200] [--smoke]

``preferans serve`` (its bot worker included) on a scratch database, dropped at the end.
``--tables`` games are played by one driver per table (view, then the first legal action, with
an Idempotency-Key and If-Match); ``--pollers`` clients poll views with their last ETag;
``--followers`` SSE connections follow the tables; one table has three bots at the default
pace; one clocked table (one-second moves) is left to time out; and, the baseline, one client
asks for ``GET /health`` every 50 ms through the same server. Printed: requests per second
and p50/p99 per kind, the commands the log took (actions, bot moves, timeouts: its versions),
and the CPU per command of the service's processes and of its PostgreSQL backends.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import time

import asyncpg
import httpx

sys.path.insert(0, os.path.dirname(__file__))
from _kit import (
    Tally,
    add_smoke,
    backends_of,
    cpu_of,
    database_server,
    free_port,
    preferans,
    scratch_database,
    served,
    tree_of,
)
from bench_sse import follow


async def register(http: httpx.AsyncClient, name: str) -> dict[str, str]:
    body = (await http.post("/v1/players", json={"name": name})).json()
    return {"Authorization": f"Bearer {body['token']}"}


async def table(http: httpx.AsyncClient, auth: list[dict[str, str]], overrides: dict) -> str:  # type: ignore[type-arg]
    created = await http.post("/v1/games", json={"seat": 0, "overrides": overrides},
                              headers=auth[0])  # fmt: skip
    game_id = created.json()["id"]
    for seat in (1, 2):
        await http.post(f"/v1/games/{game_id}/seats", json={"seat": seat}, headers=auth[seat])
    return str(game_id)


async def timed(tally: Tally, request):  # type: ignore[no-untyped-def]
    start = time.perf_counter()
    response = await request
    if response.status_code >= 500:
        tally.errors += 1
    tally.latencies.append(time.perf_counter() - start)
    return response


async def driver(base: str, game_id: str, auth: list[dict[str, str]], tallies: dict[str, Tally],
                 stop: asyncio.Event) -> None:  # fmt: skip
    async with httpx.AsyncClient(base_url=base, timeout=30) as http:
        while not stop.is_set():
            moved = False
            for n, a in enumerate(auth):
                view = (await timed(tallies["view"], http.get(f"/v1/games/{game_id}",
                                                             headers=a))).json()  # fmt: skip
                if view.get("legal_actions"):
                    version = view["version"]
                    headers = {**a, "Idempotency-Key": f"{game_id}:{version}:{n}",
                               "If-Match": f'"{version}"'}  # fmt: skip
                    await timed(tallies["action"], http.post(
                        f"/v1/games/{game_id}/actions", json=view["legal_actions"][0],
                        headers=headers))  # fmt: skip
                    moved = True
                    break
            if not moved:
                await asyncio.sleep(0.2)  # the game is over


async def poller(base: str, game_id: str, auth: dict[str, str], tally: Tally,
                 stop: asyncio.Event) -> None:  # fmt: skip
    async with httpx.AsyncClient(base_url=base, timeout=30) as http:
        tag = ""
        while not stop.is_set():
            headers = {**auth, "If-None-Match": tag}
            response = await timed(tally, http.get(f"/v1/games/{game_id}", headers=headers))
            tag = response.headers.get("etag", tag)
            await asyncio.sleep(0.05)


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--tables", type=int, default=20)
    parser.add_argument("--pollers", type=int, default=20)
    parser.add_argument("--followers", type=int, default=200)
    add_smoke(parser)
    args = parser.parse_args()
    if args.smoke:
        args.seconds, args.tables, args.pollers, args.followers = 2, 2, 2, 6
    async with scratch_database(database_server(), migrated=True) as dsn:
        await bench(dsn, args)


async def health(base: str, tally: Tally, stop: asyncio.Event) -> None:
    """The baseline: a round trip through the same server that touches no game."""
    async with httpx.AsyncClient(base_url=base, timeout=30) as http:
        while not stop.is_set():
            await timed(tally, http.get("/health"))
            await asyncio.sleep(0.05)


async def bench(dsn: str, args: argparse.Namespace) -> None:
    port = free_port()
    env = {"DATABASE_URL": dsn, "PREFERANS_RATE_LIMITS": "false"}
    tallies = {kind: Tally() for kind in ("action", "view", "304 poll", "baseline: /health")}
    async with served([*preferans(), "serve", "--port", str(port)], env, port) as service, \
            httpx.AsyncClient(base_url=service.base, timeout=30) as http:  # fmt: skip
        url = service.base
        auth = [await register(http, f"b{i}") for i in range(3)]
        games = [await table(http, auth, {"pool": {"target": 20}}) for _ in range(args.tables)]
        clocked = await table(http, auth, {"table": {"move_seconds": 1,
                                                     "timeouts_to_absent": 0}})  # fmt: skip
        bots = (await http.post("/v1/games", json={}, headers=auth[0])).json()["id"]
        for _ in range(3):
            await http.post(f"/v1/games/{bots}/bots", json={"level": "basic"},
                            headers=auth[0])  # fmt: skip
        stop = asyncio.Event()
        arrivals: dict[tuple[str, int], list[float]] = {}
        readies = [asyncio.Event() for _ in range(args.followers)]
        followed = [*games, clocked, bots]
        tasks = [asyncio.create_task(follow(port, followed[i % len(followed)], arrivals,
                                            readies[i], stop))
                 for i in range(args.followers)]  # fmt: skip
        await asyncio.gather(*(r.wait() for r in readies))
        server = tree_of(service.process.pid)
        backends = await backends_of(dsn)
        versions = "SELECT coalesce(sum(version), 0)::bigint FROM es.streams"
        conn = await asyncpg.connect(dsn)
        before = (await conn.fetchval(versions), cpu_of(server), cpu_of(backends))
        tasks += [asyncio.create_task(driver(url, g, auth, tallies, stop)) for g in games]
        tasks += [asyncio.create_task(poller(url, followed[i % len(followed)], auth[i % 3],
                                             tallies["304 poll"], stop))
                  for i in range(args.pollers)]  # fmt: skip
        tasks.append(asyncio.create_task(health(url, tallies["baseline: /health"], stop)))
        await asyncio.sleep(args.seconds)
        stop.set()
        backends = list({*backends, *await backends_of(dsn)})
        after = (await conn.fetchval(versions), cpu_of(server), cpu_of(backends))
        await conn.close()
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    events = after[0] - before[0]
    commands = events / 1.4  # about 1.4 events a command (docs/scaling.md)
    print(f"{os.cpu_count()} CPUs (shared); {args.tables} human tables, a bot table, a clocked "
          f"table; {args.pollers} pollers, {args.followers} SSE followers; "
          f"{args.seconds:g} s")  # fmt: skip
    print(f"{'':20}{'req/s':>9}{'p50 ms':>9}{'p99 ms':>9}{'errors':>8}")
    for kind, tally in tallies.items():
        rate, p50, p99 = tally.summary(args.seconds)
        print(f"{kind:20}{rate:9.0f}{p50:9.2f}{p99:9.2f}{tally.errors:8}")
    print(f"the log took {events} events (~{commands:.0f} commands: actions, bot moves, timeouts)")
    print(f"CPU per command: service {(after[1] - before[1]) / commands * 1000:.2f} ms "
          f"(its processes, bots' thinking included), PostgreSQL "
          f"{(after[2] - before[2]) / commands * 1000:.2f} ms")  # fmt: skip


if __name__ == "__main__":
    asyncio.run(main())
