"""Reads from a streaming standby: its replay lag behind the primary, and the share of the
primary's work the standby takes, on a throwaway primary and standby (Debian's PostgreSQL 15
binaries, pg_basebackup -R, in temporary folders on free ports; never the shared server).

    python bench/bench_replica.py [--rounds 100] [--smoke]

A workload of rounds, each one action and then, as the table's other seats and a spectator
would, four views and two event pages. Run twice through the app (in-process): reading from the
primary alone, then with PREFERANS_REPLICA_DATABASE_URL. Printed: the transactions each cluster
ran per round (pg_stat_database, counted after each run's connections closed), the share moved
off the primary, and the lag: from an action's commit to its event visible on the standby (the
standby's count includes the polls that measure it).
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

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests"))
from clusters import Cluster, have_server_binaries

sys.path.insert(0, os.path.dirname(__file__))
from _kit import add_smoke
from litestar.testing import AsyncTestClient

from migrations import APP_ROLE
from service.app import create_app
from service.platform.database import upgrade, with_user
from service.platform.settings import Settings


async def commits(cluster: Cluster) -> int:
    await asyncio.sleep(0.5)
    conn = await asyncpg.connect(cluster.dsn_for("preferans"))
    try:
        return int(await conn.fetchval(
            "SELECT xact_commit FROM pg_stat_database WHERE datname = 'preferans'"))  # fmt: skip
    finally:
        await conn.close()


async def workload(client: AsyncTestClient, rounds: int, standby: asyncpg.Connection | None
                   ) -> list[float]:  # type: ignore[type-arg]  # fmt: skip
    """The rounds; with ``standby``, each action's lag until its event is there."""
    auth = []
    for name in ("Anna", "Vera", "Kolya"):  # names are unique: each round's its own
        body = (
            await client.post("/v1/players", json={"name": f"{name} {uuid.uuid4().hex[:8]}"})
        ).json()
        auth.append({"Authorization": f"Bearer {body['token']}"})
    game_id = (await client.post("/v1/games", json={"seat": 0}, headers=auth[0])).json()["id"]
    for seat in (1, 2):
        await client.post(f"/v1/games/{game_id}/seats", json={"seat": seat}, headers=auth[seat])
    lags = []
    stream = f"game-{game_id}"
    for _ in range(rounds):
        views = [(await client.get(f"/v1/games/{game_id}", headers=a)).json() for a in auth]
        actor = next(i for i, v in enumerate(views) if v["legal_actions"])
        done = await client.post(f"/v1/games/{game_id}/actions", headers=auth[actor],
                                 json=views[actor]["legal_actions"][0])  # fmt: skip
        committed = time.perf_counter()
        version = done.json()["version"]
        if standby is not None:
            while not await standby.fetchval(
                "SELECT 1 FROM es.events WHERE stream_id = $1 AND version = $2", stream, version
            ):
                await asyncio.sleep(0.0005)
            lags.append(time.perf_counter() - committed)
        await client.get(f"/v1/games/{game_id}", headers=auth[(actor + 1) % 3])
        for _ in range(2):
            await client.get(f"/v1/games/{game_id}/events", headers=auth[actor],
                             params={"cursor": str(max(0, version - 5))})  # fmt: skip
    return lags


async def run(primary: Cluster, standby: Cluster, rounds: int) -> None:
    rows = []
    lags: list[float] = []
    reader = with_user(standby.dsn_for("preferans"), APP_ROLE)
    for label, replica in (("primary alone", None), ("with the standby", reader)):
        settings = Settings(database_url=primary.dsn_for("preferans"),
                            replica_database_url=replica, rate_limits=False, bot_worker="off",
                            projections=False, steward=False, pool_min_size=1)  # fmt: skip
        before = await commits(primary), await commits(standby)
        watch = await asyncpg.connect(standby.dsn_for("preferans")) if replica else None
        async with AsyncTestClient(app=create_app(settings, migrate=False)) as client:
            lags = await workload(client, rounds, watch) or lags
        if watch is not None:
            await watch.close()
        after = await commits(primary), await commits(standby)
        rows.append((label, (after[0] - before[0]) / rounds, (after[1] - before[1]) / rounds))
    print(f"{'':20}{'primary tx/round':>18}{'standby tx/round':>18}")
    for label, on_primary, on_standby in rows:
        print(f"{label:20}{on_primary:18.1f}{on_standby:18.1f}")
    print(f"moved off the primary: {1 - rows[1][1] / rows[0][1]:.0%} of its transactions "
          "(one action, four views and two event pages a round)")  # fmt: skip
    lags.sort()
    print(
        f"standby lag, commit to visible: p50 {statistics.median(lags) * 1000:.2f} ms, "
        f"p99 {lags[int(len(lags) * 0.99)] * 1000:.2f} ms, max {lags[-1] * 1000:.2f} ms"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=100)
    add_smoke(parser)
    args = parser.parse_args()
    if args.smoke:
        args.rounds = 5
    if not have_server_binaries():
        sys.exit("PostgreSQL 15 server binaries needed (/usr/lib/postgresql/15/bin)")
    primary = Cluster().init("wal_level = replica", "max_wal_senders = 4").start()
    standby = None
    try:
        primary.psql("CREATE DATABASE preferans")
        upgrade(primary.dsn_for("preferans"))
        standby = primary.replica()
        print(f"{os.cpu_count()} CPUs (shared); primary and standby on this machine, "
              f"synchronous_commit = on, asynchronous streaming; {args.rounds} rounds")  # fmt: skip
        asyncio.run(run(primary, standby, args.rounds))
    finally:
        if standby is not None:
            standby.remove()
        primary.remove()


if __name__ == "__main__":
    main()
