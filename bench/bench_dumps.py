"""The dump rate: every finished rated game written as a dump (`service.workers.dumps`), in
games per second, beside what reading the same events costs at the least.

    DATABASE_URL=postgresql://… python bench/bench_dumps.py [--games 2000] [--rounds 3] [--smoke]

(PREFERANS_TEST_DATABASE_URL works too.) It creates a scratch database on that server, migrates
it, imports ``--games`` finished games (copies of a few pulkas played with random legal moves,
each under its own id, its chain computed by the store), and drops the database at the end.
Then, in interleaved rounds so that a change in background load hits them all:

- baseline: ``COPY`` of the same games' events (every column the dump writes) out of
  PostgreSQL into nothing: one statement, the least that reading them can cost;
- baseline + gzip: the same, compressed as the dump compresses (level 6), to tell the
  compression's share from the rest;
- dump: `Dumper.dump`: the games' ids in keyset pages, each page's events in one statement,
  each game's NDJSON export written through gzip, its head, the checksum and the manifest.

It prints the median round's games per second of each, the dump's rate as a share of the
baseline's, and the dump's CPU (this process) per game.
"""

from __future__ import annotations

import argparse
import asyncio
import gzip
import os
import random
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path

import msgspec

sys.path.insert(0, os.path.dirname(__file__))
from _kit import add_smoke, database_server, scratch_database

from domain import game as g
from domain.rules import rules_for
from domain.simulation import play_random_pulka
from service.eventlog.codec import domain_codec
from service.eventlog.log import game_log
from service.games.export import (
    FORMAT,
    ExportHeader,
    ExportLine,
    ExportPlayer,
    encode_line,
    import_game,
)
from service.platform.database import create_pool
from service.workers.dumps import LEVEL, Dumper

_COPY = """
SELECT e.stream_id, e.version, e.event_id, e.event_type, e.schema_version, e.data::text,
       e.salt, e.prev_hash, e.hash
  FROM es.events e JOIN api.games g ON g.stream_id = e.stream_id
 WHERE g.status = 'finished' ORDER BY e.stream_id, e.version"""
"""Run as ``COPY (…) TO STDOUT`` (asyncpg's ``copy_from_query``)."""


def pulka_lines(seed: int) -> list[bytes]:
    """A finished pulka's export lines, without ids or chain: an import gives them theirs."""
    rules = rules_for("sochi", {"pool": {"target": 4}})
    state, appends = play_random_pulka(
        rules, random.Random(seed), [str(uuid.UUID(int=seed * 3 + k + 1)) for k in range(3)]
    )
    assert isinstance(state, g.PulkaClosed)
    codec = domain_codec()
    players = tuple(
        ExportPlayer(id=p, name=f"Player {k}") for k, p in enumerate(state.players) if p
    )
    lines = [
        msgspec.json.encode(ExportHeader(format=FORMAT, game_id=uuid.uuid4(), players=players))
    ]
    events = [e for batch in appends for e in batch]
    for version, event in enumerate(events, start=1):
        name, schema, data = codec.encode(event)
        line = ExportLine(version=version, type=name, schema_version=schema, data=msgspec.Raw(data))
        lines.append(encode_line(line).rstrip(b"\n"))
    return lines


def as_game(lines: list[bytes], game_id: uuid.UUID) -> list[bytes]:
    header = msgspec.json.decode(lines[0], type=ExportHeader)
    return [msgspec.json.encode(msgspec.structs.replace(header, game_id=game_id)), *lines[1:]]


class _Sink:
    def __init__(self, compress: bool) -> None:
        self.bytes = 0
        self.zip = gzip.GzipFile(fileobj=self, mode="wb", compresslevel=LEVEL) if compress else None

    def write(self, data: bytes) -> int:
        self.bytes += len(data)
        return len(data)

    def flush(self) -> None:
        pass

    async def take(self, chunk: bytes) -> None:
        if self.zip is not None:
            self.zip.write(chunk)
        else:
            self.bytes += len(chunk)


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--pulkas", type=int, default=20, help="distinct pulkas copied")
    add_smoke(parser)
    args = parser.parse_args()
    if args.smoke:
        args.games, args.rounds, args.pulkas = 24, 1, 3
    async with scratch_database(database_server(), "preferans_bench_dumps", migrated=True) as dsn:
        pool = await create_pool(dsn, min_size=2, max_size=8)
        try:
            log = game_log(pool, announce=False)
            sources = [pulka_lines(seed) for seed in range(args.pulkas)]
            gate = asyncio.Semaphore(6)

            async def load(k: int) -> None:
                async with gate:
                    await import_game(log, as_game(sources[k % len(sources)], uuid.uuid4()))

            started = time.perf_counter()
            await asyncio.gather(*(load(k) for k in range(args.games)))
            events = await pool.fetchval("SELECT count(*) FROM es.events")
            print(f"{args.games} games, {events} events imported in "
                  f"{time.perf_counter() - started:.1f} s")  # fmt: skip

            rates: dict[str, list[float]] = {
                "baseline: COPY of the events": [], "baseline: COPY + gzip": [], "dump": []
            }  # fmt: skip
            cpu: list[float] = []
            sizes: dict[str, int] = {}
            with tempfile.TemporaryDirectory() as where:
                for n in range(args.rounds):
                    for name in rates:
                        t0, c0 = time.perf_counter(), time.process_time()
                        if name == "dump":
                            dumper = Dumper(log, Path(where), interval=3600, keep=1)
                            info = await dumper.dump()
                            assert info.games == args.games, info
                            sizes[name] = info.bytes
                            cpu.append((time.process_time() - c0) / args.games)
                        else:
                            sink = _Sink(compress="gzip" in name)
                            async with pool.acquire() as conn:
                                await conn.copy_from_query(_COPY, output=sink.take)
                            if sink.zip is not None:
                                sink.zip.close()
                            sizes[name] = sink.bytes
                        rates[name].append(args.games / (time.perf_counter() - t0))
                    print(f"round {n + 1}: " + ", ".join(
                        f"{v[-1]:,.0f}" for v in rates.values()
                    ) + " games/s")  # fmt: skip
            print()
            for name, values in rates.items():
                size = sizes[name] / 1e6
                print(f"{name:<32} {statistics.median(values):>10,.0f} games/s   {size:8.1f} MB")
            ratio = statistics.median(rates["dump"]) / statistics.median(
                rates["baseline: COPY of the events"]
            )
            per_game = statistics.median(cpu) * 1000
            print(f"dump / COPY: {ratio:.2f} of the baseline's rate; "
                  f"dump CPU (this process) {per_game:.2f} ms per game")  # fmt: skip
        finally:
            await pool.close()


if __name__ == "__main__":
    asyncio.run(main())
