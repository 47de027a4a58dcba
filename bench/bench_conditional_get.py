"""Conditional reads of a game (If-None-Match with the current ETag, answered 304): with the
process's knowledge of the heads (no read of the log) beside the same server told to read the
log every time (``PREFERANS_HEAD_TRUST=0``, the old path: a tail read per 304).

    PREFERANS_TEST_DATABASE_URL=postgresql://… python bench/bench_conditional_get.py \
        [--clients 16] [--seconds 10] [--games 50] [--smoke]

Each server is ``preferans serve`` in a subprocess on a scratch database (dropped at the end).
``--games`` games are created and seated; each client polls one of them as a mobile client
would, with its last ETag, as fast as it can. One move is made in each game every second
through the same server, so that the ETags change and the polls see it (those 200s are counted
apart). Printed: 304s per second and their p50/p99, for both.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import time

import httpx

sys.path.insert(0, os.path.dirname(__file__))
from _kit import (
    CPU_HEADER,
    CPU_NOTE,
    Cpu,
    CpuMeter,
    Tally,
    add_smoke,
    database_server,
    free_port,
    preferans,
    scratch_database,
    served,
)


async def setup(http: httpx.AsyncClient, games: int) -> tuple[list[dict[str, str]], list[str]]:
    auth = []
    for i in range(3):
        player = (await http.post("/v1/players", json={"name": f"bench {i}"})).json()
        auth.append({"Authorization": f"Bearer {player['token']}"})
    ids = []
    for _ in range(games):
        created = await http.post("/v1/games", json={"seat": 0}, headers=auth[0])
        game_id = created.json()["id"]
        for seat in (1, 2):
            await http.post(f"/v1/games/{game_id}/seats", json={"seat": seat}, headers=auth[seat])
        ids.append(game_id)
    return auth, ids


async def mover(http: httpx.AsyncClient, auth: list[dict[str, str]], ids: list[str],
                stop: asyncio.Event) -> None:  # fmt: skip
    """One move in each game every second: the ETags the pollers hold go stale."""
    while not stop.is_set():
        for game_id in ids:
            for headers in auth:
                view = (await http.get(f"/v1/games/{game_id}", headers=headers)).json()
                if view.get("legal_actions"):
                    await http.post(f"/v1/games/{game_id}/actions",
                                    json=view["legal_actions"][0], headers=headers)  # fmt: skip
                    break
        await asyncio.sleep(1)


async def poll(base: str, auth: dict[str, str], game_id: str, tally: Tally, changed: list[int],
               stop: asyncio.Event) -> None:  # fmt: skip
    limits = httpx.Limits(max_connections=1, max_keepalive_connections=1)
    async with httpx.AsyncClient(base_url=base, limits=limits, timeout=30) as http:
        tag = (await http.get(f"/v1/games/{game_id}", headers=auth)).headers["etag"]
        while not stop.is_set():
            start = time.perf_counter()
            response = await http.get(f"/v1/games/{game_id}",
                                      headers={**auth, "If-None-Match": tag})  # fmt: skip
            elapsed = time.perf_counter() - start
            if response.status_code == 304:
                tally.latencies.append(elapsed)
            elif response.status_code == 200:
                changed[0] += 1
                tag = response.headers["etag"]
            else:
                tally.errors += 1


async def run(dsn: str, trust: str, args: argparse.Namespace) -> tuple[Tally, int, Cpu]:
    port = free_port()
    env = {"DATABASE_URL": dsn, "PREFERANS_HEAD_TRUST": trust, "PREFERANS_RATE_LIMITS": "false",
           "PREFERANS_BOT_WORKER": "off"}  # fmt: skip
    serve = [*preferans(), "serve", "--port", str(port)]
    async with (
        served(serve, env, port) as service,
        httpx.AsyncClient(base_url=service.base, timeout=30) as http,
    ):
        base, meter = service.base, CpuMeter(service.process.pid, dsn)
        auth, ids = await setup(http, args.games)
        stop = asyncio.Event()
        tally, changed = Tally(), [0]
        tasks = [asyncio.create_task(mover(http, auth, ids, stop))]
        tasks += [asyncio.create_task(poll(base, auth[i % 3], ids[i % len(ids)], tally,
                                           changed, stop))
                  for i in range(args.clients)]  # fmt: skip
        await asyncio.sleep(1)
        tally.latencies.clear()
        await meter.start()
        await asyncio.sleep(args.seconds)
        cpu = await meter.stop()
        stop.set()
        await asyncio.gather(*tasks)
    return tally, changed[0], cpu


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--seconds", type=float, default=10)
    parser.add_argument("--games", type=int, default=50)
    add_smoke(parser)
    args = parser.parse_args()
    if args.smoke:
        args.clients, args.seconds, args.games = 2, 1, 2
    server = database_server()
    print(f"{os.cpu_count()} CPUs (shared); {args.clients} pollers over {args.games} games, "
          f"{args.seconds:g} s each")  # fmt: skip
    rows = []
    for label, trust in (("baseline: read the log every time", "0"), ("known heads", "1")):
        async with scratch_database(server, migrated=True) as dsn:
            tally, changed, cpu = await run(dsn, trust, args)
        rate, p50, p99 = tally.summary(args.seconds)
        rows.append((label, rate, p50, p99, changed, tally.errors, cpu, len(tally.latencies)))
    print(f"{'':36}{'304/s':>9}{'p50 ms':>9}{'p99 ms':>9}{'200s':>7}{'errors':>8}{CPU_HEADER}")
    for label, rate, p50, p99, changed, errors, cpu, count in rows:
        print(f"{label:36}{rate:9.0f}{p50:9.2f}{p99:9.2f}{changed:7}{errors:8}{cpu.per(count)}")
    print(CPU_NOTE + "; the mover's requests are in the service's and PostgreSQL's")
    print(f"known heads / before: {rows[1][1] / rows[0][1]:.0%} of the rate")


if __name__ == "__main__":
    asyncio.run(main())
