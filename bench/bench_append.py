"""Append throughput and latency of the event store, beside a bare-INSERT baseline.

    DATABASE_URL=postgresql://… python bench/bench_append.py [--seconds 5] [--streams 2000] \
        [--smoke]

(PREFERANS_TEST_DATABASE_URL works too.) It creates a scratch database on that server, migrates
it, and drops it at the end. For 1, 8 and 32 concurrent writers it runs, for a fixed time each:

- baseline:  one single-row INSERT into a plain table per transaction (autocommit), asyncpg;
- append:    ``EventStore.append`` of one player action (1–3 events) at the exact expected
             version, on streams picked Zipf-like from the writer's own tables;
- unchained: the same appends through a copy of ``es.append`` without the hash chain (no
             SHA-256: constant hashes), made in the scratch database only, so that
             the chain's cost per append is the difference of the two;
- +notify:   the same, with the post-commit NOTIFY hint the service sends by default;
- command:   ``CommandHandler.handle`` end to end (cached fold, tail read, decide, append, notify).

Variants run in interleaved rounds (3 by default) so that a change in background load hits them
all; it prints the median round's operations per second, p50/p99 latency over all rounds, and
each rate as a share of the baseline's, then the chain's cost: append against unchained.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import os
import platform
import random
import re
import statistics
import sys
import time
import uuid
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field

import asyncpg
import msgspec

sys.path.insert(0, os.path.dirname(__file__))
from _kit import add_smoke, scratch_database

from domain.deal.messages import CardPlayed
from domain.rules import rules_for
from service.eventlog.handler import CommandHandler, Decider
from service.eventlog.log import EventLog, game_log
from service.eventlog.store import Announcer, AppendResult, EventStore, NewEvent, uuid7
from service.platform.database import create_pool

WRITERS = (1, 8, 32)


class Play(msgspec.Struct, frozen=True):
    events: int


def payload(rng: random.Random) -> bytes:
    return msgspec.json.encode(
        CardPlayed(seat=rng.randrange(3), card=rng.choice("789TJQKA") + rng.choice("SCDH"))
    )


def zipf_index(rng: random.Random, n: int) -> int:
    """A few hot tables, many quiet ones (Zipf with s≈1 via the inverse of a log-uniform)."""
    return min(n - 1, int(n ** rng.random()) - 1)


@dataclass
class Result:
    """One variant at one writer count, over several interleaved rounds."""

    name: str
    writers: int
    rates: list[float] = field(default_factory=list)
    latencies: list[float] = field(default_factory=list)

    @property
    def rate(self) -> float:
        """The median round: background load on a shared machine moves single rounds."""
        return statistics.median(self.rates)

    def quantile(self, q: float) -> float:
        ordered = sorted(self.latencies)
        return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000


Op = Callable[[int, random.Random], Awaitable[None]]


async def measure(result: Result, seconds: float, op: Op) -> None:
    """Run ``op`` from ``result.writers`` concurrent writers for ``seconds``; add the round."""
    latencies: list[float] = []
    deadline = time.perf_counter() + seconds

    async def writer(n: int) -> None:
        rng = random.Random()
        while time.perf_counter() < deadline:
            started = time.perf_counter()
            await op(n, rng)
            latencies.append(time.perf_counter() - started)

    started = time.perf_counter()
    await asyncio.gather(*(writer(n) for n in range(result.writers)))
    result.rates.append(len(latencies) / (time.perf_counter() - started))
    result.latencies.extend(latencies)


def store_op(
    store: EventStore, streams: int, writers: int, announcer: Announcer | None = None
) -> Op:
    """Each writer appends to its own tables, so the expected version is always right."""
    versions: dict[str, int] = {}
    prefix = uuid.uuid4().hex[:8]

    async def op(n: int, rng: random.Random) -> None:
        stream = f"table-{prefix}-{n}-{zipf_index(rng, streams // writers)}"
        events = [
            NewEvent(
                event_id=uuid7(),
                event_type="card_played",
                schema_version=1,
                data=msgspec.Raw(payload(rng)),
            )
            for _ in range(rng.randint(1, 3))
        ]
        versions[stream] = (await store.append(stream, events, versions.get(stream, 0))).version
        if announcer is not None:
            announcer.announce(stream, versions[stream])

    return op


_CHAINED = importlib.import_module("migrations.versions.0007_fair_deals").APPEND
_ZERO = "head := '\\x" + "00" * 32 + "';"
UNCHAINED = re.sub(
    r"head := sha256\(.*?\);",
    lambda _: _ZERO,
    _CHAINED.replace("OR REPLACE FUNCTION es.append(", "FUNCTION es.append_unchained("),
    flags=re.S,
)
assert "sha256" not in UNCHAINED, "es.append's chain step moved: update the bench"


class UnchainedStore(EventStore):
    """`EventStore` appending through ``es.append_unchained`` (the bench database only)."""

    async def _append(
        self,
        conn: asyncpg.Connection,
        stream_id: str,
        stream_type: str,
        events: Sequence[NewEvent],
        expected: int | None,
    ) -> AppendResult:
        row = await conn.fetchrow(
            "SELECT new_version, positions, tx"
            " FROM es.append_unchained($1, $2, $3, $4, $5, $6, $7, $8)",
            stream_id, stream_type, expected, [e.event_id for e in events],
            [e.event_type for e in events], [e.schema_version for e in events],
            [e.data for e in events], [e.metadata for e in events],
        )  # fmt: skip
        assert row is not None
        return AppendResult(stream_id, row[0], tuple(row[1]), row[2])


def command_op(log: EventLog[CardPlayed], streams: int, writers: int) -> Op:
    decider: Decider[Play, int, CardPlayed] = Decider(
        initial_state=lambda: 0,
        decide=lambda cmd, n: [CardPlayed(seat=n % 3, card="7S")] * cmd.events,
        evolve=lambda n, _: n + 1,
    )
    handler = CommandHandler(log, decider)
    prefix = uuid.uuid4().hex[:8]

    async def op(n: int, rng: random.Random) -> None:
        stream = f"table-{prefix}-{n}-{zipf_index(rng, streams // writers)}"
        await handler.handle(stream, Play(rng.randint(1, 3)))

    return op


def baseline_op(pool: asyncpg.Pool) -> Op:
    async def op(n: int, rng: random.Random) -> None:
        await pool.execute(
            "INSERT INTO bench_baseline (stream_id, data) VALUES ($1, $2)",
            f"table-{n}",
            msgspec.Raw(payload(rng)),
        )

    return op


async def server_facts(dsn: str) -> str:
    conn = await asyncpg.connect(dsn)
    try:
        version = await conn.fetchval("SHOW server_version")
        sync = await conn.fetchval("SHOW synchronous_commit")
        fsync = await conn.fetchval("SHOW fsync")
    finally:
        await conn.close()
    cpu = platform.processor() or platform.machine()
    return (
        f"PostgreSQL {version}, synchronous_commit={sync}, fsync={fsync}; "
        f"client {platform.python_implementation()} {platform.python_version()}, "
        f"{os.cpu_count()} CPUs ({cpu})"
    )


async def bench(
    server_dsn: str, seconds: float, streams: int, writers: Sequence[int], rounds: int
) -> None:
    async with scratch_database(server_dsn, migrated=True) as dsn:
        print(await server_facts(dsn))
        pool = await create_pool(dsn, min_size=max(writers), max_size=max(writers))
        await pool.execute(
            "CREATE TABLE bench_baseline (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,"
            " stream_id text NOT NULL, data jsonb NOT NULL)"
        )
        await pool.execute(UNCHAINED)
        results: list[Result] = []
        for n in writers:
            log = game_log(pool)  # the service's: domain codec, and the NOTIFY announcer
            assert log.announcer is not None
            variants: list[tuple[Result, Op]] = [
                (Result("baseline", n), baseline_op(pool)),
                (Result("append", n), store_op(log.store, streams, n)),
                (Result("unchained", n), store_op(UnchainedStore(pool), streams, n)),
                (Result("+notify", n), store_op(log.store, streams, n, log.announcer)),
                (Result("command", n), command_op(log, streams, n)),
            ]
            for _ in range(rounds):  # interleaved, so that load changes hit every variant
                for result, op in variants:
                    await measure(result, seconds / rounds, op)
            await log.close()
            results.extend(result for result, _ in variants)
        per_hash = await hash_cost(pool)
        await pool.close()
        report(results)
        print(
            "in the server alone, one statement (no round trips): es.event_hash per event, and"
            " a whole append with and without the chain: "
            + ", ".join(f"{name} {us:.1f} µs" for name, us in per_hash)
        )


async def hash_cost(pool: asyncpg.Pool, n: int = 20_000) -> list[tuple[str, float]]:
    """Server time per `es.event_hash` call: a card played, and a game's first event (its
    rules, the largest event there is), each the median of three runs of ``n`` calls; then
    per append of two events to a new stream, through es.append and es.append_unchained."""
    created = msgspec.json.encode(
        {"type": "game_created", "rules": msgspec.to_builtins(rules_for("sochi"))}
    )
    out = []
    for name, data in (("card_played", payload(random.Random(1))), ("game_created", created)):
        runs = []
        for _ in range(3):
            started = time.perf_counter()
            await pool.fetchval(
                "SELECT count(es.event_hash('\\x00'::bytea, 'table-x', i, gen_random_uuid(),"
                " 'e', 1::smallint, '\\x00'::bytea, $1::jsonb)) FROM generate_series(1, $2) i",
                msgspec.Raw(data),
                n,
            )
            runs.append(time.perf_counter() - started)
        empty = time.perf_counter()
        await pool.fetchval("SELECT count(gen_random_uuid()) FROM generate_series(1, $1)", n)
        floor = time.perf_counter() - empty
        out.append((name, (statistics.median(runs) - floor) / n * 1e6))
    for function in ("append_unchained", "append"):  # first, so the warm-up favours the chain
        runs = []
        for run in range(3):
            prefix = f"bench-{function}-{run}-{uuid.uuid4().hex[:6]}-"
            started = time.perf_counter()
            await pool.fetchval(
                f"SELECT count(*) FROM generate_series(1, $1) i, LATERAL es.{function}("
                " $2 || i, 'table', -1, ARRAY[gen_random_uuid(), gen_random_uuid()],"
                " ARRAY['card_played', 'trick_won'], ARRAY[1, 1]::smallint[],"
                " ARRAY[$3::jsonb, $3::jsonb], ARRAY['{}'::jsonb, '{}'::jsonb])",
                n // 10,
                prefix,
                msgspec.Raw(payload(random.Random(run))),
            )
            runs.append(time.perf_counter() - started)
        out.append((f"es.{function} of 2 events", statistics.median(runs) / (n // 10) * 1e6))
    return out


def report(results: Sequence[Result]) -> None:
    print(f"{'writers':>7} {'variant':<9} {'ops/s':>8} {'p50 ms':>7} {'p99 ms':>7} {'vs base':>8}")
    base: dict[int, float] = {}
    for result in results:
        if result.name == "baseline":
            base[result.writers] = result.rate
        share = result.rate / base[result.writers]
        print(
            f"{result.writers:>7} {result.name:<9} {result.rate:>8.0f}"
            f" {result.quantile(0.5):>7.2f} {result.quantile(0.99):>7.2f} {share:>7.0%}"
        )
    by = {(r.name, r.writers): r for r in results}
    print("the hash chain's cost per append (append against unchained, same run):")
    for (name, n), chained in by.items():
        plain = by.get(("unchained", n))
        if name != "append" or plain is None:
            continue
        p50 = (chained.quantile(0.5) - plain.quantile(0.5)) * 1000
        print(
            f"{n:>7} writers: {chained.rate:.0f} vs {plain.rate:.0f} ops/s"
            f" ({chained.rate / plain.rate - 1:+.1%}), p50 {p50:+.0f} µs"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=6.0, help="per variant and writer count")
    parser.add_argument("--rounds", type=int, default=3, help="interleaved rounds per variant")
    parser.add_argument("--streams", type=int, default=2000, help="tables in play")
    parser.add_argument("--writers", type=int, nargs="+", default=WRITERS, help="(1 8 32)")
    add_smoke(parser)
    args = parser.parse_args()
    if args.smoke:
        args.seconds, args.rounds, args.streams, args.writers = 0.5, 1, 40, [1, 4]
    dsn = os.environ.get("DATABASE_URL") or os.environ.get("PREFERANS_TEST_DATABASE_URL")
    if not dsn:
        raise SystemExit("set DATABASE_URL (or PREFERANS_TEST_DATABASE_URL) to a PostgreSQL server")
    asyncio.run(bench(dsn, args.seconds, args.streams, args.writers, args.rounds))


if __name__ == "__main__":
    main()
