"""The HTTP API under load: game actions per second and their latency, beside a baseline.

    DATABASE_URL=postgresql://… python bench/bench_api.py [--clients 32] [--seconds 20]

(PREFERANS_TEST_DATABASE_URL works too.) It creates a scratch database on that server and drops
it at the end, and starts two servers in subprocesses, each a single uvicorn process the way the
README serves the API:

- ``preferans serve``, the service itself (it migrates the scratch database on start);
- a baseline: a minimal Litestar app whose one endpoint does one INSERT over asyncpg into the
  same server (JSON body in, JSON out, a pool of the same size).

Then ``--clients`` concurrent clients (httpx, one connection each) hammer each server for
``--seconds``. Against the service every request is a real game command with its own
Idempotency-Key. The games are decided in advance with the pure domain (`domain.game`): a few
whole pulkas with fixed layouts, bidding, discarding, whisting and playing cards from the legal
actions until the pool closes. Each client replays one of them in new games on the server,
request after request (the creation, the three seats, then every action), and checks each
response's ETag against the version the domain reached. So the clients spend no time deciding.

It prints requests per second and p50/p99 latency of both, and the service's rate as a share of
the baseline's.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import platform
import random
import socket
import statistics
import subprocess
import sys
import time
import uuid
from collections.abc import AsyncIterator, Awaitable
from dataclasses import dataclass, field
from typing import Any

import asyncpg
import httpx
import msgspec

from domain import game
from domain.cards import DECK
from domain.deal.messages import SeatCommand
from domain.rules import rules_for
from service.api.schemas import from_command
from service.platform.database import with_database

LAYOUTS_PER_GAME = 100
JSON = {"Content-Type": "application/json"}
_command = msgspec.json.Encoder()


# --- the baseline server ------------------------------------------------------------------------


def baseline_app(dsn: str, pool_size: int) -> Any:
    """One endpoint, one INSERT: the floor any JSON-over-HTTP write to this server costs."""
    from litestar import Litestar, post

    pools: list[asyncpg.Pool] = []

    async def start() -> None:
        pool = await asyncpg.create_pool(dsn, min_size=pool_size, max_size=pool_size)
        await pool.execute(
            "CREATE TABLE IF NOT EXISTS bench_baseline (id bigserial PRIMARY KEY, body jsonb)"
        )
        pools.append(pool)

    async def stop() -> None:
        await pools[0].close()

    @post("/insert", status_code=200)
    async def insert(data: dict[str, Any]) -> dict[str, int]:
        row = await pools[0].fetchval(
            "INSERT INTO bench_baseline (body) VALUES ($1::jsonb) RETURNING id",
            msgspec.json.encode(data).decode(),
        )
        return {"id": row}

    return Litestar([insert], on_startup=[start], on_shutdown=[stop], logging_config=None)


def serve_baseline(dsn: str, port: int, pool_size: int) -> None:
    import uvicorn

    uvicorn.run(
        baseline_app(dsn, pool_size),
        host="127.0.0.1",
        port=port,
        log_level="warning",
        access_log=False,
    )


# --- measuring ------------------------------------------------------------------------------------


@dataclass
class Tally:
    latencies: list[float] = field(default_factory=list)
    errors: int = 0

    def summary(self, seconds: float) -> tuple[float, float, float]:
        ordered = sorted(self.latencies)
        p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))] if ordered else 0.0
        p50 = statistics.median(ordered) if ordered else 0.0
        return len(ordered) / seconds, p50 * 1000, p99 * 1000


async def timed(tally: Tally, request: Awaitable[httpx.Response], ok: int) -> httpx.Response:
    """Await ``request`` (a coroutine: nothing is sent before this) and record its latency."""
    start = time.perf_counter()
    response = await request
    elapsed = time.perf_counter() - start
    if response.status_code != ok:
        tally.errors += 1
        raise RuntimeError(f"{response.status_code}: {response.text[:300]}")
    tally.latencies.append(elapsed)
    return response


# --- a client that plays games ------------------------------------------------------------------


class Mirror:
    """The game as the pure domain plays it, beside the server: what each seat may do."""

    def __init__(self, rules: Any, layouts: list[dict[str, Any]]) -> None:
        self.layouts = layouts
        self.state: game.GameState = game.INITIAL_STATE
        self.version = 0
        self.apply(game.CreateGame(rules=rules, first_dealer=0))

    def apply(self, command: Any) -> None:
        events = game.decide(command, self.state)
        self.state = game.fold(events, self.state)
        self.version += len(events)
        while game.needs_cards(self.state):
            assert isinstance(self.state, game.Pulka)
            layout = self.layouts[self.state.deal_no]
            cards = game.DealCards(
                hands=tuple(map(tuple, layout["hands"])), talon=tuple(layout["talon"])
            )
            dealt = game.decide(cards, self.state)
            self.state = game.fold(dealt, self.state)
            self.version += len(dealt)


def choose(rng: random.Random, legal: list[SeatCommand]) -> SeatCommand:
    """Mostly short deals: pass or the lowest bid, the lowest contract, few whists."""
    by_type: dict[str, list[SeatCommand]] = {}
    for command in legal:
        by_type.setdefault(type(command).__struct_config__.tag, []).append(command)  # type: ignore[arg-type]
    if "bid" in by_type and "pass" in by_type:
        return by_type["pass"][0] if rng.random() < 0.5 else by_type["bid"][0]
    if "whist" in by_type and rng.random() < 0.6:
        passing = [c for c in by_type["whist"] if getattr(c, "choice", None) == "pass"]
        if passing:
            return passing[0]
    if "declare" in by_type:
        return by_type["declare"][0]
    return rng.choice(legal)


def body_of(command: SeatCommand) -> bytes:
    return _command.encode(from_command(command))  # the body the API's legal_actions list


def new_layouts(rng: random.Random) -> list[dict[str, Any]]:
    out = []
    for _ in range(LAYOUTS_PER_GAME):
        deck = list(DECK)
        rng.shuffle(deck)
        out.append({"hands": [deck[0:10], deck[10:20], deck[20:30]], "talon": deck[30:32]})
    return out


@dataclass(frozen=True)
class Script:
    """A whole game decided in advance with the pure domain: each request body in order."""

    layouts: list[dict[str, Any]]
    steps: list[tuple[int, bytes, str]]
    """(seat, body, the ETag the server must answer with)."""


def write_script(seed: int) -> Script:
    rng = random.Random(seed)
    layouts = new_layouts(rng)
    mirror = Mirror(rules_for("sochi", {"players": 3}), layouts)
    for seat in range(3):
        mirror.apply(game.TakeSeat(seat=seat, player=f"player-{seat}"))
    steps = []
    while not game.is_terminal(mirror.state):
        seat = game.to_act(mirror.state)[0]
        command = choose(rng, game.legal_actions(mirror.state, seat))
        mirror.apply(command)
        # The command that ends the game also reveals the service's secret (one event more
        # than the domain's; docs/fairness.md).
        version = mirror.version + int(game.is_terminal(mirror.state))
        steps.append((seat, body_of(command), f'"{version}"'))
    return Script(layouts, steps)


async def play_games(
    http: httpx.AsyncClient, tally: Tally, stop: asyncio.Event, script: Script
) -> int:
    """Play ``script`` in new games until ``stop``; returns the number of games finished.

    Every request is timed: the game's creation, the two joins and each action.
    """
    auth = []
    for i in range(3):
        player = (await http.post("/v1/players", json={"name": f"bench {i}"})).json()
        auth.append({"Authorization": f"Bearer {player['token']}", **JSON})
    create = msgspec.json.encode({"seat": 0, "layouts": script.layouts})
    finished = 0
    while not stop.is_set():
        key = {"Idempotency-Key": uuid.uuid4().hex}
        created = await timed(
            tally, http.post("/v1/games", content=create, headers={**auth[0], **key}), 201
        )
        game_id = created.json()["id"]
        for seat in (1, 2):
            key = {"Idempotency-Key": uuid.uuid4().hex}
            join = http.post(
                f"/v1/games/{game_id}/seats",
                content=b'{"seat": %d}' % seat,
                headers={**auth[seat], **key},
            )
            await timed(tally, join, 200)
        url = f"/v1/games/{game_id}/actions"
        for seat, body, etag in script.steps:
            if stop.is_set():
                return finished
            headers = {**auth[seat], "Idempotency-Key": uuid.uuid4().hex}
            response = await timed(tally, http.post(url, content=body, headers=headers), 200)
            if response.headers["etag"] != etag:
                raise RuntimeError(f"the server is at {response.headers['etag']}, not {etag}")
        finished += 1
    return finished


async def insert_rows(
    http: httpx.AsyncClient, tally: Tally, stop: asyncio.Event, script: Script | None
) -> int:
    body = {"type": "play", "card": "AH", "padding": "x" * 40}
    while not stop.is_set():
        await timed(tally, http.post("/insert", json=body), 200)
    return 0


async def drive(
    base: str, clients: int, seconds: float, warmup: float, work: Any, scripts: list[Script]
) -> Tally:
    tally = Tally()
    stop = asyncio.Event()

    async def client(i: int) -> int:
        limits = httpx.Limits(max_connections=1, max_keepalive_connections=1)
        async with httpx.AsyncClient(base_url=base, limits=limits, timeout=30) as http:
            script = scripts[i % len(scripts)] if scripts else None
            return int(await work(http, tally, stop, script))

    tasks = [asyncio.create_task(client(i)) for i in range(clients)]
    await asyncio.sleep(warmup)
    tally.latencies.clear()
    await asyncio.sleep(seconds)
    stop.set()
    done = await asyncio.gather(*tasks)
    if work is play_games:
        print(f"  games finished: {sum(done)}")
    return tally


# --- servers --------------------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.asynccontextmanager
async def server(
    command: list[str], env: dict[str, str], port: int, ready: str
) -> AsyncIterator[str]:
    process = subprocess.Popen(command, env={**os.environ, **env})
    base = f"http://127.0.0.1:{port}"
    try:
        async with httpx.AsyncClient(base_url=base) as http:
            for _ in range(300):
                if process.poll() is not None:
                    raise RuntimeError(f"{command[0]} exited with {process.returncode}")
                with contextlib.suppress(httpx.HTTPError):
                    if (
                        await http.request("GET" if ready == "/health" else "POST", ready, json={})
                    ).status_code < 500:
                        break
                await asyncio.sleep(0.1)
        yield base
    finally:
        process.terminate()
        process.wait(15)


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=32)
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--warmup", type=float, default=3)
    parser.add_argument("--pool-size", type=int, default=20)
    parser.add_argument(
        "--workers", default="1", help="server processes of the service, e.g. 1,2: one run each"
    )
    args = parser.parse_args()
    server_dsn = os.environ.get("DATABASE_URL") or os.environ.get("PREFERANS_TEST_DATABASE_URL")
    if not server_dsn:
        sys.exit("set DATABASE_URL (or PREFERANS_TEST_DATABASE_URL) to a PostgreSQL server")

    name = f"preferans_bench_{uuid.uuid4().hex[:8]}"
    admin = await asyncpg.connect(server_dsn)
    await admin.execute(f'CREATE DATABASE "{name}"')
    dsn = with_database(server_dsn, name)
    try:
        version = await admin.fetchval("SHOW server_version")
        sync = await admin.fetchval("SHOW synchronous_commit")
        print(
            f"PostgreSQL {version} (synchronous_commit={sync}); Python "
            f"{platform.python_version()}; {os.cpu_count()} CPUs; {args.clients} clients, "
            f"{args.seconds:g} s each after {args.warmup:g} s warm-up"
        )

        scripts = [write_script(seed) for seed in range(8)]
        actions = [len(script.steps) for script in scripts]
        print(f"game scripts: {len(scripts)}, {min(actions)}-{max(actions)} actions each")

        port = free_port()
        baseline_cmd = [
            sys.executable,
            __file__,
            "--serve-baseline",
            dsn,
            str(port),
            str(args.pool_size),
        ]
        async with server(baseline_cmd, {}, port, "/insert") as base:
            baseline = await drive(base, args.clients, args.seconds, args.warmup, insert_rows, [])

        script = os.path.join(os.path.dirname(sys.executable), "preferans")
        preferans = [script] if os.path.exists(script) else [sys.executable, "-m", "service.cli"]
        env = {"DATABASE_URL": dsn, "PREFERANS_POOL_MAX_SIZE": str(args.pool_size),
               "PREFERANS_RATE_LIMITS": "false"}  # fmt: skip
        runs = []
        for workers in (int(w) for w in args.workers.split(",")):
            port = free_port()
            serve_cmd = [*preferans, "serve", "--port", str(port), "--workers", str(workers)]
            async with server(serve_cmd, env, port, "/health") as base:
                tally = await drive(
                    base, args.clients, args.seconds, args.warmup, play_games, scripts
                )
                runs.append((workers, tally))

        b_rate, b50, b99 = baseline.summary(args.seconds)
        print(f"{'':24}{'req/s':>9}{'p50 ms':>9}{'p99 ms':>9}{'errors':>8}")
        print(f"{'baseline (1 INSERT)':24}{b_rate:9.0f}{b50:9.2f}{b99:9.2f}{baseline.errors:8}")
        for workers, service in runs:
            s_rate, s50, s99 = service.summary(args.seconds)
            label = f"game commands, {workers} w"
            print(f"{label:24}{s_rate:9.0f}{s50:9.2f}{s99:9.2f}{service.errors:8}")
            print(
                f"  service / baseline: {s_rate / b_rate:.0%} of the rate; "
                f"p99 {s99:.1f} ms (target < 25 ms)"
            )
    finally:
        await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        await admin.close()


if __name__ == "__main__":
    if len(sys.argv) == 5 and sys.argv[1] == "--serve-baseline":
        serve_baseline(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
    else:
        asyncio.run(main())
