"""The API's latency for everyone else while tables of bots play, beside the same without them.

    DATABASE_URL=postgresql://… python bench/bench_bot_tables.py [--tables 10] [--seconds 20] \
        [--smoke]

(PREFERANS_TEST_DATABASE_URL works too.) It makes a scratch database on that server and starts
``preferans serve`` on it the way a deployment runs it: one API process, and the bot worker
process it starts beside it. Then, twice for ``--seconds`` each, ``--clients`` clients read
(a game's view, the lobby, a player's games) as fast as they can:

- the baseline: nobody else plays;
- the load: ``--tables`` tables of three bots (``--level``) play pulka after pulka meanwhile.

It prints each phase's requests per second and p50/p99 latency, the p99 under load as a share
of the baseline's, and how many bot moves were made during the load.
"""

from __future__ import annotations

import argparse
import asyncio
import os
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


async def readers(url: str, auth: dict[str, str], game_id: str, clients: int, seconds: float):
    """``clients`` closed-loop readers for ``seconds``: their latencies (ms)."""
    latencies: list[float] = []
    paths = [f"/v1/games/{game_id}", "/v1/games?limit=20", "/v1/players/me/games"]
    stop = time.monotonic() + seconds

    async def reader(n: int) -> None:
        async with httpx.AsyncClient(base_url=url, timeout=10) as client:
            i = n
            while time.monotonic() < stop:
                start = time.perf_counter()
                response = await client.get(paths[i % len(paths)], headers=auth)
                latencies.append((time.perf_counter() - start) * 1000)
                assert response.status_code == 200, response.text
                i += 1

    await asyncio.gather(*(reader(n) for n in range(clients)))
    return latencies


def summary(name: str, latencies: list[float], seconds: float) -> float:
    ordered = sorted(latencies)
    p99 = ordered[int(len(ordered) * 0.99)]
    print(f"{name:<22} {len(ordered) / seconds:7.0f} req/s   p50 "
          f"{statistics.median(ordered):6.2f} ms   p99 {p99:6.2f} ms")  # fmt: skip
    return p99


async def bot_tables(url: str, host: dict[str, str], tables: int, level: str) -> list[str]:
    async with httpx.AsyncClient(base_url=url, timeout=10) as client:
        ids = []
        for _ in range(tables):
            game = await client.post(
                "/v1/games", json={"overrides": {"pool": {"target": 30}}}, headers=host
            )
            game_id = game.json()["id"]
            for _ in range(3):
                seated = await client.post(
                    f"/v1/games/{game_id}/bots", json={"level": level}, headers=host
                )
                assert seated.status_code == 200, seated.text
            ids.append(game_id)
        return ids


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=10)
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--level", default="basic", choices=["random", "basic", "strong"])
    add_smoke(parser)
    args = parser.parse_args()
    if args.smoke:
        args.tables, args.seconds, args.clients, args.level = 1, 1, 2, "random"
    server = os.environ.get("DATABASE_URL") or os.environ.get("PREFERANS_TEST_DATABASE_URL")
    if not server:
        raise SystemExit("set DATABASE_URL (or PREFERANS_TEST_DATABASE_URL)")
    name = f"bench_bots_{uuid.uuid4().hex[:8]}"
    admin = await asyncpg.connect(server)
    await new_database(admin, server, name, migrated=True)
    await admin.close()
    dsn = with_database(server, name)
    port = free_port()
    env = {**os.environ, "DATABASE_URL": dsn, "PREFERANS_PORT": str(port),
           "PREFERANS_RATE_LIMITS": "false", "PREFERANS_PROJECTIONS": "false"}  # fmt: skip
    process = subprocess.Popen(
        [sys.executable, "-m", "service.cli", "serve"], env=env, stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(600):
            try:
                if httpx.get(f"{url}/health", timeout=1).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            await asyncio.sleep(0.1)
        body = httpx.post(f"{url}/v1/players", json={"name": "reader"}).json()
        auth = {"Authorization": f"Bearer {body['token']}"}
        game = httpx.post(f"{url}/v1/games", json={"seat": 0}, headers=auth).json()
        print(f"{args.clients} readers; {args.tables} tables of {args.level} bots under load")
        base = summary("baseline (no bots)", await readers(url, auth, game["id"], args.clients,
                                                           args.seconds), args.seconds)  # fmt: skip
        conn = await asyncpg.connect(dsn)
        before = await conn.fetchval("SELECT count(*) FROM es.events")
        await bot_tables(url, auth, args.tables, args.level)
        await asyncio.sleep(1)
        loaded = summary("with bot tables", await readers(url, auth, game["id"], args.clients,
                                                          args.seconds), args.seconds)  # fmt: skip
        after = await conn.fetchval("SELECT count(*) FROM es.events")
        moves = await conn.fetchval(
            "SELECT count(*) FROM es.events WHERE metadata->>'actor' LIKE '%' AND"
            " event_type IN ('card_played', 'bid_made', 'passed', 'whist_called', 'discarded')"
        )
        await conn.close()
        print(f"p99 with the bots: {loaded / base * 100:.0f}% of the baseline's")
        print(f"events appended under load: {after - before} (moves in all: {moves})")
    finally:
        process.terminate()
        process.wait(timeout=20)
        admin = await asyncpg.connect(server)
        await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        await admin.close()


if __name__ == "__main__":
    asyncio.run(main())
