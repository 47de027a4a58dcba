"""The HTTP API under load, each request kind beside a baseline on the same server stack.

    DATABASE_URL=postgresql://… python bench/bench_api.py [--clients 16] [--seconds 5] \
        [--repeats 3] [--workers 1,2] [--smoke]

(PREFERANS_TEST_DATABASE_URL works too.) It creates two scratch databases on that server (one
for each server, so that each one's PostgreSQL backends are told apart) and drops them at the
end, and starts two servers in subprocesses, both the way ``preferans serve`` serves: granian,
HTTP/1.1, uvloop, ``--workers`` processes, an asyncpg pool from `create_pool` (no reset query on
release):

- the service itself, ``preferans serve`` (it migrates its database on start);
- a baseline: a minimal Litestar app of three endpoints, each the floor of one kind of the
  service's requests: ``POST /insert`` one INSERT (JSON body in, JSON out), ``GET /rows/{id}``
  one SELECT by key with an ETag, and the same GET with that ETag answered 304 from memory.

The client is light on purpose (raw HTTP/1.1 over asyncio streams, one keep-alive connection
per client, no parsing beyond the status line and the headers it needs), and its own CPU is
measured and printed beside the servers'. ``--clients`` clients drive one server for
``--seconds`` per run, in interleaved repetitions (baseline, service, baseline, service ...,
``--repeats`` of each kind), so that a change in the machine's load hits both. The kinds:

- keyed command:   a game action with its own Idempotency-Key (against ``POST /insert``);
- unkeyed command: the same without a key (against ``POST /insert``);
- GET seat view:   a seat's view of a game in play (against ``GET /rows/{id}``);
- 304:             the same with its current ETag (against the baseline's 304).

The games are decided in advance with the pure domain (`domain.game`): a few whole pulkas with
fixed layouts, bidding, discarding, whisting and playing cards from the legal actions until the
pool closes. Each client replays one of them in new games on the server, action after action
(creating a game and taking its seats are not counted), and checks each response's ETag
against the version the domain reached. So the clients spend no time deciding.

Printed per kind and server: requests per second (the median repetition), p50/p99 latency
(all repetitions), and CPU per request from /proc: the server's processes, its PostgreSQL
backends and the client; then the service's rate and CPU as multiples of the baseline's.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import random
import statistics
import sys
import time
import uuid
from dataclasses import dataclass, field
from typing import Any

import asyncpg
import msgspec

sys.path.insert(0, os.path.dirname(__file__))
from _kit import (
    CPU_HEADER,
    CPU_NOTE,
    Cpu,
    CpuMeter,
    Served,
    Tally,
    add_smoke,
    database_server,
    free_port,
    preferans,
    scratch_database,
    served,
)

from domain import game
from domain.cards import DECK
from domain.deal.messages import SeatCommand
from domain.rules import rules_for
from service.api.actions.schemas import from_command

LAYOUTS_PER_GAME = 100
KINDS = ("keyed command", "unkeyed command", "GET seat view", "304")
_command = msgspec.json.Encoder()


# --- the baseline server ------------------------------------------------------------------------


def baseline_app() -> Any:
    """Three endpoints, each one the floor of a kind of request (granian's factory target; the
    database and the pool size come in the environment)."""
    from litestar import Litestar, Request, Response, get, post

    from service.platform.database import create_pool

    dsn, size = os.environ["BENCH_BASELINE_DSN"], int(os.environ["BENCH_POOL_SIZE"])
    pools: list[asyncpg.Pool] = []

    async def start() -> None:
        pools.append(await create_pool(dsn, min_size=size, max_size=size))

    async def stop() -> None:
        await pools[0].close()

    @post("/insert", status_code=200)
    async def insert(data: dict[str, Any]) -> dict[str, int]:
        row = await pools[0].fetchval(
            "INSERT INTO bench_baseline (body) VALUES ($1) RETURNING id", data
        )
        return {"id": row}

    @get("/rows/{row_id:int}")
    async def read(row_id: int, request: Request[Any, Any, Any]) -> Response[Any]:
        tag = f'"{row_id}"'  # a row never changes: its id is its version
        if request.headers.get("if-none-match") == tag:
            return Response(None, status_code=304, headers={"ETag": tag})
        row = await pools[0].fetchrow("SELECT id, body FROM bench_baseline WHERE id = $1", row_id)
        return Response({"id": row[0], "body": row[1]}, headers={"ETag": tag})

    return Litestar(
        [insert, read], on_startup=[start], on_shutdown=[stop], logging_config=None,
        signature_namespace={"Request": Request, "Response": Response},  # imported in here
    )  # fmt: skip


def serve_baseline(port: int, workers: int) -> None:
    """granian as `service.server.run` starts it: ASGI, HTTP/1.1, uvloop, keep-alive."""
    from granian import Granian
    from granian.constants import HTTPModes, Interfaces, Loops
    from granian.http import HTTP1Settings

    Granian(
        "bench_api:baseline_app", factory=True, address="127.0.0.1", port=port,
        interface=Interfaces.ASGI, http=HTTPModes.http1, loop=Loops.uvloop, workers=workers,
        http1_settings=HTTP1Settings(keep_alive=True), log_access=False, log_enabled=False,
    ).serve()  # fmt: skip


# --- a light client -------------------------------------------------------------------------------


class Connection:
    """One keep-alive HTTP/1.1 connection: a request written in one piece, the response read by
    its Content-Length (or its chunks). As little client CPU as a request can cost."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def __aenter__(self) -> Connection:
        self.reader, self.writer = await asyncio.open_connection("127.0.0.1", self.port)
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self.writer is not None
        self.writer.close()

    async def request(
        self, method: bytes, path: bytes, headers: bytes = b"", body: bytes = b""
    ) -> tuple[int, dict[bytes, bytes], bytes]:
        """(status, headers with lowercase names, body); ``headers`` are whole lines."""
        assert self.reader is not None and self.writer is not None
        self.writer.write(
            b"%s %s HTTP/1.1\r\nHost: bench\r\nContent-Length: %d\r\n%s\r\n%s"
            % (method, path, len(body), headers, body)
        )
        head = await self.reader.readuntil(b"\r\n\r\n")
        lines = head.split(b"\r\n")
        status = int(lines[0].split(b" ", 2)[1])
        fields = {}
        for line in lines[1:]:
            if line:
                name, _, value = line.partition(b":")
                fields[name.strip().lower()] = value.strip()
        if b"content-length" in fields:
            content = await self.reader.readexactly(int(fields[b"content-length"]))
        elif fields.get(b"transfer-encoding") == b"chunked":
            content = b""
            while size := int((await self.reader.readuntil(b"\r\n"))[:-2], 16):
                content += (await self.reader.readexactly(size + 2))[:-2]
            await self.reader.readuntil(b"\r\n")
        else:
            content = b""
        return status, fields, content


def expect(response: tuple[int, dict[bytes, bytes], bytes], status: int) -> dict[str, Any]:
    if response[0] != status:
        raise RuntimeError(f"{response[0]} (not {status}): {response[2][:300]!r}")
    return msgspec.json.decode(response[2]) if response[2] else {}


# --- the games, decided in advance ----------------------------------------------------------------


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
    steps: list[tuple[int, bytes, bytes]]
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
        steps.append((seat, body_of(command), b'"%d"' % version))
    return Script(layouts, steps)


# --- the clients ----------------------------------------------------------------------------------


JSON = b"Content-Type: application/json\r\n"


@dataclass
class Player:
    script: Script
    auth: list[bytes] = field(default_factory=list)
    """Each seat's Authorization line."""
    game: bytes = b""
    """The path of the game in play, and its next step."""
    step: int = 0
    tag: bytes = b""
    """The ETag of seat 0's last view (for the 304s)."""

    async def register(self, http: Connection) -> None:
        for i in range(3):  # names are unique: a run's players have a tag of their own
            name = b'{"name": "bench %d %s"}' % (i, os.urandom(4).hex().encode())
            body = expect(await http.request(b"POST", b"/v1/players", JSON, name), 201)
            self.auth.append(b"Authorization: Bearer %s\r\n" % body["token"].encode())

    async def new_game(self, http: Connection) -> None:
        """A new game of the script, its seats taken (not counted)."""
        create = msgspec.json.encode({"seat": 0, "layouts": self.script.layouts})
        created = expect(await http.request(b"POST", b"/v1/games", self.auth[0] + JSON, create),
                         201)  # fmt: skip
        self.game, self.step = b"/v1/games/" + created["id"].encode(), 0
        for seat in (1, 2):
            expect(await http.request(b"POST", self.game + b"/seats", self.auth[seat] + JSON,
                                      b'{"seat": %d}' % seat), 200)  # fmt: skip

    async def act(self, http: Connection, tally: Tally, keyed: bool) -> None:
        """The script's next action (a new game first when this one is over)."""
        if self.step == len(self.script.steps):
            await self.new_game(http)
        seat, body, tag = self.script.steps[self.step]
        headers = self.auth[seat] + JSON
        if keyed:
            headers += b"Idempotency-Key: %s\r\n" % uuid.uuid4().hex.encode()
        start = time.perf_counter()
        response = await http.request(b"POST", self.game + b"/actions", headers, body)
        tally.latencies.append(time.perf_counter() - start)
        if response[0] != 200 or response[1].get(b"etag") != tag:
            tally.errors += 1
            raise RuntimeError(f"{response[0]} {response[1].get(b'etag')!r}, not {tag!r}: "
                               f"{response[2][:300]!r}")  # fmt: skip
        self.step += 1

    async def view(self, http: Connection, tally: Tally, conditional: bool) -> None:
        headers = self.auth[0] + (b"If-None-Match: %s\r\n" % self.tag if conditional else b"")
        start = time.perf_counter()
        response = await http.request(b"GET", self.game, headers)
        tally.latencies.append(time.perf_counter() - start)
        if response[0] != (304 if conditional else 200):
            tally.errors += 1
            raise RuntimeError(f"{response[0]}: {response[2][:300]!r}")
        self.tag = response[1][b"etag"]


@dataclass
class Baseline:
    """A baseline client: its own row to read."""

    row: int

    async def act(self, http: Connection, tally: Tally, keyed: bool) -> None:
        body = b'{"type": "play", "card": "AH", "seat": 1, "padding": "%s"}' % (b"x" * 40)
        start = time.perf_counter()
        response = await http.request(b"POST", b"/insert", JSON, body)
        tally.latencies.append(time.perf_counter() - start)
        expect(response, 200)

    async def view(self, http: Connection, tally: Tally, conditional: bool) -> None:
        headers = b'If-None-Match: "%d"\r\n' % self.row if conditional else b""
        start = time.perf_counter()
        response = await http.request(b"GET", b"/rows/%d" % self.row, headers)
        tally.latencies.append(time.perf_counter() - start)
        expect(response, 304 if conditional else 200)


@dataclass
class Run:
    """One kind on one server over its repetitions."""

    rates: list[float] = field(default_factory=list)
    tally: Tally = field(default_factory=Tally)
    cpu: Cpu = field(default_factory=Cpu)

    def add(self, tally: Tally, seconds: float, cpu: Cpu) -> None:
        self.rates.append(len(tally.latencies) / seconds)
        self.tally.latencies += tally.latencies
        self.tally.errors += tally.errors
        self.cpu = Cpu(self.cpu.service + cpu.service, self.cpu.database + cpu.database,
                       self.cpu.client + cpu.client)  # fmt: skip

    def row(self, label: str) -> str:
        _, p50, p99 = self.tally.summary(1)
        return (f"  {label:28}{statistics.median(self.rates):9.0f}{p50:9.2f}{p99:9.2f}"
                f"{self.tally.errors:7}{self.cpu.per(len(self.tally.latencies))}")  # fmt: skip


async def drive(server: Served, meter: CpuMeter, clients: list[Any], kind: str,
                seconds: float) -> tuple[Tally, Cpu]:  # fmt: skip
    """Every client on its own connection, requests of ``kind`` for ``seconds``."""
    tally = Tally()
    deadline = time.perf_counter() + seconds

    async def client(who: Any) -> None:
        async with Connection(server.port) as http:
            if kind == "304" and isinstance(who, Player):
                await who.view(http, Tally(), conditional=False)  # its current ETag
            while time.perf_counter() < deadline:
                if kind.endswith("command"):
                    await who.act(http, tally, keyed=kind == "keyed command")
                else:
                    await who.view(http, tally, conditional=kind == "304")

    await meter.start()
    await asyncio.gather(*(client(who) for who in clients))
    return tally, await meter.stop()


# --- the run --------------------------------------------------------------------------------------


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--seconds", type=float, default=5, help="per kind, server and repeat")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--pool-size", type=int, default=20)
    parser.add_argument(
        "--workers", default="1", help="server processes of each server, e.g. 1,2: one run each"
    )
    parser.add_argument(
        "--kinds", default=",".join(KINDS), help=f"which request kinds, of: {', '.join(KINDS)}"
    )
    parser.add_argument(
        "--service-from", metavar="DIR",
        help="serve the service of another checkout (put first on its PYTHONPATH), to compare "
        "two commits, each beside the same baseline",
    )  # fmt: skip
    parser.add_argument(
        "--rate-limits", action="store_true",
        help="the service with its rate limits on (limits too high to refuse anything): their "
        "cost beside a run without",
    )  # fmt: skip
    add_smoke(parser)
    args = parser.parse_args()
    args.kinds = [k.strip() for k in args.kinds.split(",")]
    if unknown := set(args.kinds) - set(KINDS):
        parser.error(f"unknown kinds: {', '.join(sorted(unknown))}")
    if args.smoke:
        args.clients, args.seconds, args.repeats = 2, 0.5, 1
    server = database_server()
    async with (
        scratch_database(server, migrated=True) as service_dsn,
        scratch_database(server, "preferans_bench_baseline") as baseline_dsn,
    ):
        await bench(service_dsn, baseline_dsn, args)


async def bench(service_dsn: str, baseline_dsn: str, args: argparse.Namespace) -> None:
    conn = await asyncpg.connect(baseline_dsn)
    try:
        version = await conn.fetchval("SHOW server_version")
        sync = await conn.fetchval("SHOW synchronous_commit")
        await conn.execute(
            "CREATE TABLE bench_baseline (id bigserial PRIMARY KEY, body jsonb NOT NULL)"
        )
        await conn.execute(
            "INSERT INTO bench_baseline (body) SELECT jsonb_build_object('row', i, 'padding',"
            " repeat('x', 400)) FROM generate_series(1, $1) i", args.clients
        )  # fmt: skip
    finally:
        await conn.close()
    print(f"PostgreSQL {version} (synchronous_commit={sync}); Python "
          f"{platform.python_version()}; {os.cpu_count()} CPUs (shared); {args.clients} clients, "
          f"{args.seconds:g} s a run, {args.repeats} interleaved repeats; rate limits "
          f"{'on' if args.rate_limits else 'off'}")  # fmt: skip
    scripts = [write_script(seed) for seed in range(8)]
    actions = [len(script.steps) for script in scripts]
    print(f"game scripts: {len(scripts)}, {min(actions)}-{max(actions)} actions each")
    here = os.path.dirname(os.path.abspath(__file__))
    path = os.pathsep.join(filter(None, [here, os.environ.get("PYTHONPATH")]))
    for workers in (int(w) for w in args.workers.split(",")):
        ports = free_port(), free_port()
        baseline_env = {"BENCH_BASELINE_DSN": baseline_dsn, "BENCH_POOL_SIZE": str(args.pool_size),
                        "PYTHONPATH": path}  # fmt: skip
        service_env = {"DATABASE_URL": service_dsn, "PREFERANS_RATE_LIMITS": "false",
                       "PREFERANS_POOL_MAX_SIZE": str(args.pool_size)}  # fmt: skip
        if args.rate_limits:
            service_env |= {"PREFERANS_RATE_LIMITS": "true",
                            "PREFERANS_READS_PER_MINUTE": "100000000",
                            "PREFERANS_WRITES_PER_MINUTE": "100000000"}  # fmt: skip
        if args.service_from:
            service_env["PYTHONPATH"] = os.path.abspath(args.service_from)
        baseline_cmd = [sys.executable, __file__, "--serve-baseline", str(ports[0]), str(workers)]
        service_cmd = [*preferans(), "serve", "--port", str(ports[1]), "--workers", str(workers)]
        async with (
            served(baseline_cmd, baseline_env, ports[0], "/insert") as baseline,
            served(service_cmd, service_env, ports[1]) as service,
        ):
            meters = (
                CpuMeter(baseline.process.pid, baseline_dsn),
                CpuMeter(service.process.pid, service_dsn),
            )
            players = [Player(scripts[i % len(scripts)]) for i in range(args.clients)]
            async with Connection(service.port) as http:
                for player in players:
                    await player.register(http)
                    await player.new_game(http)
            floors = [Baseline(row=i + 1) for i in range(args.clients)]
            runs = {(kind, who): Run() for kind in args.kinds for who in ("baseline", "service")}
            for _ in range(args.repeats):
                for kind in args.kinds:
                    for who, target, meter, clients in (
                        ("baseline", baseline, meters[0], floors),
                        ("service", service, meters[1], players),
                    ):
                        tally, cpu = await drive(target, meter, clients, kind, args.seconds)
                        runs[(kind, who)].add(tally, args.seconds, cpu)
        report(workers, args.kinds, runs)


FLOOR = {"keyed command": "1 INSERT", "unkeyed command": "1 INSERT",
         "GET seat view": "1 SELECT", "304": "304 from memory"}  # fmt: skip


def report(workers: int, kinds: list[str], runs: dict[tuple[str, str], Run]) -> None:
    print(f"{workers} worker process(es) each:")
    print(f"  {'':28}{'req/s':>9}{'p50 ms':>9}{'p99 ms':>9}{'errors':>7}{CPU_HEADER}")
    for kind in kinds:
        base, service = runs[(kind, "baseline")], runs[(kind, "service")]
        print(base.row(f"baseline: {FLOOR[kind]}"))
        print(service.row(f"service: {kind}"))
        b_n, s_n = max(len(base.tally.latencies), 1), max(len(service.tally.latencies), 1)
        b_cpu = (base.cpu.service + base.cpu.database) / b_n
        s_cpu = (service.cpu.service + service.cpu.database) / s_n
        share = statistics.median(service.rates) / statistics.median(base.rates)
        print(f"    service / baseline: {share:.0%} of the rate, "
              f"{s_cpu / b_cpu if b_cpu else float('inf'):.1f}x the server CPU per request "
              f"(its processes and PostgreSQL)")  # fmt: skip
    print(CPU_NOTE)


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--serve-baseline":
        serve_baseline(int(sys.argv[2]), int(sys.argv[3]))
    else:
        asyncio.run(main())
