"""Many games in play at once on one process: the command path with 100 and with 10,000 active
games, the state cache and snapshots as configured now beside the old configuration (a cache of
1,024 states, no snapshots), and a cold load of a 2,000-event game with and without a snapshot.

    PREFERANS_TEST_DATABASE_URL=postgresql://… python bench/bench_active_games.py \
        [--games 10000] [--seconds 15] [--workers 16] [--long 2000] [--smoke]

It makes a scratch database on that server (dropped at the end) and drives `GameService`
in-process, as the API's handlers do (load, decide, one ``es.command`` with the lobby's row,
the response rendered), without HTTP: what changes with the number of games is the command
path, not the HTTP stack (`bench/bench_api.py` measures that). Each game is created and its
seats taken through the service; then ``--workers`` tasks play the games' next moves, each
worker on its own games in random order, for ``--seconds``. The moves are decided in advance
by the service's own pure decider (`service.games.commands.decide_game`) from the same seeded
spec, so the script deals exactly what the service deals. Between configurations the service
is built anew (cold caches), and one move per game warms it up before the measurement.

Printed: moves per second, p50/p99, the process's memory per active game (RSS growth over the
warm-up, all games in play, divided by their number), and the cold load's median and p99.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
import platform
import random
import statistics
import sys
import time
import uuid
from dataclasses import dataclass, field

import asyncpg
import msgspec

sys.path.insert(0, os.path.dirname(__file__))
from _kit import add_smoke, database_server, scratch_database
from bench_api import choose

from domain import fairness, game
from domain.deal.messages import SeatCommand
from migrations import APP_ROLE, PROJECTIONS_ROLE
from service.eventlog.log import game_log
from service.eventlog.snapshots import game_snapshots
from service.games.commands import Act, Create, Deal, GameRequest, Join, decide_game
from service.games.dealing import DueDeal
from service.games.lobby import Lobby
from service.games.service import GameService, GameSpec, Outcome, game_spec
from service.games.streams import game_stream
from service.platform.database import create_pool, with_user
from service.players.accounts import Player, Players

_json = msgspec.json.Encoder()


def render(outcome: Outcome | None) -> bytes:
    """A command's answer: the caller's view, encoded as the API renders it."""
    assert outcome is not None and isinstance(outcome.state, game.Pulka)
    view = game.game_view(outcome.state, outcome.seat)
    return _json.encode({"id": str(outcome.game_id), "version": outcome.version, "view": view})


def backend_cpu(pids: list[int]) -> float:
    """CPU seconds the PostgreSQL backends ``pids`` have used (utime + stime, from /proc)."""
    total = 0
    for pid in pids:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rpartition(")")[2].split()
        total += int(fields[11]) + int(fields[12])
    return total / os.sysconf("SC_CLK_TCK")


def own_cpu() -> float:
    return time.process_time()


def rss() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


@dataclass
class Script:
    target: int
    seed: str
    """The seed of the game's shuffles (a real game's deal source: nothing to keep per deal)."""
    moves: list[tuple[int, SeatCommand]]


def write_script(seed: int, moves: int | None, target: int = 40) -> Script:
    """A game decided in advance by the service's own pure decider (`decide_game`), from the
    very spec `new_table` creates it with: so its deals are the ones the service deals."""
    rng = random.Random(seed)
    spec = table_spec(f"bench-{seed}", target)
    state: game.GameState = game.INITIAL_STATE

    secret = fairness.seed_secret(spec.source.seed or "")
    world = {"source": spec.source, "entropy": b""}

    def apply(request: GameRequest) -> None:
        nonlocal state
        state = game.fold(decide_game(request, state), state)
        # The database deals each due deal (the service's own Deal command): its deck, here.
        while isinstance(state, game.Pulka) and game.needs_cards(state):
            n = state.deal_no + 1
            deck = fairness.deck_for(secret, game.deal_seeds(state), n, state.fairness)
            due = DueDeal(deal_no=n, deck=deck)
            state = game.fold(decide_game(Deal(player="service", due=due, **world), state), state)

    apply(Create(player="player-0", rules=spec.rules, first_dealer=spec.first_dealer,
                 take_seat=0, client_seed="", **world))  # fmt: skip
    for seat in (1, 2):
        apply(Join(player=f"player-{seat}", wanted=seat, client_seed="", **world))
    out = []
    while not game.is_terminal(state) and (moves is None or len(out) < moves):
        seat = game.to_act(state)[0]
        command = choose(rng, game.legal_actions(state, seat))
        apply(Act(player=f"player-{seat}", command=command, **world))
        out.append((seat, command))
    return Script(target, f"bench-{seed}", out)


def table_spec(seed: str, target: int) -> GameSpec:
    """A seeded Sochi game of three: its decks come from the seed alone (no client seeds)."""
    return game_spec(preset="sochi", overrides={"pool": {"target": target}}, seats=3,
                     first_dealer=0, layouts=(), seed=seed, seat=0)  # fmt: skip


@dataclass
class Table:
    game_id: uuid.UUID
    script: Script
    step: int = 0


@dataclass
class Tally:
    latencies: list[float] = field(default_factory=list)


WRITER: asyncpg.Pool | None = None
"""The snapshots' writer: a pool of the projections' role, the only one that may save them."""


def build(pool: asyncpg.Pool, *, cache: int, snapshots: bool) -> GameService:
    return GameService(
        game_log(pool, announce=False), Lobby(pool), players=Players(pool), cache_size=cache,
        snapshots=game_snapshots(pool, writer=WRITER) if snapshots else None,
    )  # fmt: skip


async def new_table(games: GameService, players: list[Player], script: Script) -> Table:
    """A game created and seated through the service, ready for its script's moves."""
    spec = table_spec(script.seed, script.target)
    done = await games.create(players[0], spec, key=None, fingerprint=b"")
    game_id = uuid.UUID(msgspec.json.decode(render(done.outcome))["id"])
    for seat in (1, 2):
        joined = await games.join(game_id, players[seat], seat, key=None, fingerprint=b"",
                                  expected=None)  # fmt: skip
        render(joined.outcome)
    return Table(game_id, script)


async def move(games: GameService, players: list[Player], table: Table) -> None:
    seat, command = table.script.moves[table.step % len(table.script.moves)]
    if table.step >= len(table.script.moves):
        raise RuntimeError("a game ran out of moves")
    done = await games.act(
        table.game_id, players[seat], command, key=None, fingerprint=b"", expected=None
    )  # a refusal raises
    render(done.outcome)
    table.step += 1


async def play(games: GameService, players: list[Player], tables: list[Table], workers: int,
               seconds: float | None) -> Tally:  # fmt: skip
    """Each worker plays its share of the tables in random order: for ``seconds``, or one move
    per table when None."""
    tally = Tally()
    deadline = None if seconds is None else time.perf_counter() + seconds

    async def worker(mine: list[Table]) -> None:
        rng = random.Random(len(mine))
        order = list(mine)
        while True:
            rng.shuffle(order)
            for table in order:
                if deadline is not None and time.perf_counter() >= deadline:
                    return
                start = time.perf_counter()
                await move(games, players, table)
                tally.latencies.append(time.perf_counter() - start)
            if deadline is None:
                return

    await asyncio.gather(*(worker(tables[i::workers]) for i in range(workers)))
    return tally


def summary(tally: Tally, seconds: float) -> tuple[float, float, float]:
    ordered = sorted(tally.latencies)
    p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]
    return len(ordered) / seconds, statistics.median(ordered) * 1000, p99 * 1000


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=10_000)
    parser.add_argument("--few", type=int, default=100)
    parser.add_argument("--seconds", type=float, default=15)
    parser.add_argument("--workers", type=int, default=16)
    parser.add_argument("--long", type=int, default=2000, help="events of the cold-loaded game")
    add_smoke(parser)
    args = parser.parse_args()
    if args.smoke:
        args.games, args.few, args.seconds, args.workers, args.long = 24, 8, 1, 4, 150
    async with scratch_database(database_server(), migrated=True) as dsn:
        await bench(dsn, args)


async def bench(dsn: str, args: argparse.Namespace) -> None:
    global WRITER
    pool = await create_pool(with_user(dsn, APP_ROLE), min_size=args.workers,
                             max_size=args.workers + 4)  # fmt: skip
    WRITER = await create_pool(with_user(dsn, PROJECTIONS_ROLE), min_size=1, max_size=2)
    print(f"PostgreSQL {await pool.fetchval('SHOW server_version')}; Python "
          f"{platform.python_version()}; {os.cpu_count()} CPUs (shared); {args.workers} "
          f"workers, {args.seconds:g} s per run")  # fmt: skip
    scripts = [write_script(seed, moves=400) for seed in range(16)]
    registry = Players(pool)
    players = [(await registry.register(f"bench {i}"))[0] for i in range(3)]

    # --- the games: created and seated through the service ---------------------------
    setup = build(pool, cache=1024, snapshots=False)
    started = time.perf_counter()
    tables: list[Table] = []

    async def lane(lane_no: int) -> None:
        for i in range(lane_no, args.games, args.workers):
            tables.append(await new_table(setup, players, scripts[i % len(scripts)]))

    await asyncio.gather(*(lane(n) for n in range(args.workers)))
    print(f"{args.games} games created and seated in {time.perf_counter() - started:.0f} s")

    rows: list[tuple[str, float, float, float, float]] = []
    cpu_rows: list[tuple[int, float, float]] = []
    # Every connection of the pool, opened now, so that their backends' CPU can be read.
    held = [await pool.acquire() for _ in range(pool.get_max_size())]
    backends = [await conn.fetchval("SELECT pg_backend_pid()") for conn in held]
    for conn in held:
        await pool.release(conn)
    configs = [
        (f"{args.few} games, cache 20000 + snapshots", tables[: args.few], 20_000, True),
        (f"{args.games} games, cache 1024, no snapshots (before)", tables, 1024, False),
        (f"{args.games} games, cache 20000 + snapshots", tables, 20_000, True),
    ]
    for label, active, cache, snaps in configs:
        gc.collect()
        games = build(pool, cache=cache, snapshots=snaps)
        before = rss()
        await play(games, players, active, args.workers, None)  # warm-up: one move each
        gc.collect()
        per_game = (rss() - before) / len(active)
        cpu, db_cpu = own_cpu(), backend_cpu(backends)
        tally = await play(games, players, active, args.workers, args.seconds)
        cpu, db_cpu = own_cpu() - cpu, backend_cpu(backends) - db_cpu
        cpu_rows.append((len(tally.latencies), cpu, db_cpu))
        rate, p50, p99 = summary(tally, args.seconds)
        rows.append((label, rate, p50, p99, per_game))
        if games.handler.snapshots is not None:
            await games.handler.snapshots.flush()
        del games
    print(f"{'':52}{'moves/s':>9}{'p50 ms':>9}{'p99 ms':>9}{'KB/game':>9}"
          f"{'app ms':>8}{'pg ms':>7}")  # fmt: skip
    for (label, rate, p50, p99, per_game), (moves, cpu, db) in zip(rows, cpu_rows, strict=True):
        print(f"{label:52}{rate:9.0f}{p50:9.2f}{p99:9.2f}{per_game / 1024:9.1f}"
              f"{cpu / moves * 1000:8.2f}{db / moves * 1000:7.2f}")  # fmt: skip
    print("  (app ms, pg ms: CPU per move of this process and of its PostgreSQL backends)")
    print(f"{args.games} games with snapshots / {args.few} games: {rows[2][1] / rows[0][1]:.0%} of "
          f"the rate (target >= 85%); before: {rows[1][1] / rows[0][1]:.0%}")  # fmt: skip

    # --- a cold load of a long game ------------------------------------------------------
    long_script = write_script(99, moves=args.long, target=100)
    games = build(pool, cache=1024, snapshots=True)
    table = await new_table(games, players, long_script)
    game_id = table.game_id
    version = 0
    while version < args.long and table.step < len(long_script.moves):
        await move(games, players, table)
        version, _ = await games.state(game_id)
    await games.handler.snapshots.flush()  # type: ignore[union-attr]
    stream = game_stream(game_id)
    print(f"cold load of a {version}-event game (median, p99 of 50):")
    for label, snaps in (("whole fold (before)", False), ("snapshot + tail", True)):
        service = build(pool, cache=1024, snapshots=snaps)
        times = []
        for _ in range(50):
            service.handler._cache.clear()
            start = time.perf_counter()
            await service.handler.load(stream)
            times.append(time.perf_counter() - start)
        times.sort()
        print(f"  {label:24}{statistics.median(times) * 1000:7.2f} ms"
              f"{times[48] * 1000:7.2f} ms (target <= 3 ms)")  # fmt: skip
    facts = await pool.fetchrow(
        "SELECT count(*) AS events, count(DISTINCT stream_id) AS games,"
        " avg(pg_column_size(e.*))::int AS row_bytes FROM es.events e"
    )
    print(f"log: {facts['events']} events in {facts['games']} games; a stored event "
          f"{facts['row_bytes']} bytes on average (its row, before indexes)")  # fmt: skip
    await pool.close()
    await WRITER.close()


if __name__ == "__main__":
    asyncio.run(main())
