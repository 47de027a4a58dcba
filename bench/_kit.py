"""What the benches share: the server to bench on, scratch databases, served processes, CPU
read from /proc, and the ``--smoke`` switch.

Not a bench itself (its name starts with ``_``, so tests/bench/test_benches_smoke.py, which
runs every ``bench/*.py`` in its smoke mode, leaves it out).

Smoke mode: every bench takes ``--smoke``, which shrinks it to a few seconds (few games, short
runs) so that the suite can prove it still runs at HEAD and prints its figures. Smoke figures
mean nothing; only the bench's defaults (or a short run of them) give figures to quote.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import socket
import statistics
import subprocess
import sys
import time
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path

import asyncpg
import httpx

from service.platform.database import upgrade_async, with_database

TICK = os.sysconf("SC_CLK_TCK")


def add_smoke(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--smoke",
        action="store_true",
        help="a few seconds, to prove it runs (figures mean nothing)",
    )


def database_server() -> str:
    """The PostgreSQL server to bench on: DATABASE_URL, else PREFERANS_TEST_DATABASE_URL."""
    server = os.environ.get("DATABASE_URL") or os.environ.get("PREFERANS_TEST_DATABASE_URL")
    if not server:
        sys.exit("set DATABASE_URL (or PREFERANS_TEST_DATABASE_URL) to a PostgreSQL server")
    return server


TEMPLATE_ENV = "PREFERANS_BENCH_TEMPLATE"
"""A database on the bench's server migrated to head, which a migrated scratch database is
copied from instead of being migrated anew (1.6 CPU-s each here, against 0.1 for the copy).
The suite's smoke runs name its own template (tests/bench/test_benches_smoke.py); unset, each
bench migrates its scratch databases itself."""


async def new_database(
    admin: asyncpg.Connection, server: str, name: str, *, migrated: bool = False
) -> None:
    """Database ``name`` made on ``server`` through ``admin``: empty, or ``migrated``."""
    template = os.environ.get(TEMPLATE_ENV) if migrated else None
    clause = f' TEMPLATE "{template}"' if template else ""
    for attempt in range(40):
        try:
            await admin.execute(f'CREATE DATABASE "{name}"{clause}')
            break
        except asyncpg.ObjectInUseError:  # someone reads the template for a moment
            if attempt == 39:
                raise
            await asyncio.sleep(0.25)
    if migrated and not template:
        await upgrade_async(with_database(server, name))


@contextlib.asynccontextmanager
async def scratch_database(
    server: str, prefix: str = "preferans_bench", *, migrated: bool = False
) -> AsyncIterator[str]:
    """A new database on ``server`` (its DSN), dropped on the way out: empty, or ``migrated``
    to head (a copy of `TEMPLATE_ENV`'s database when it names one)."""
    name = f"{prefix}_{uuid.uuid4().hex[:8]}"  # unique: others share the server
    admin = await asyncpg.connect(server)
    try:
        await new_database(admin, server, name, migrated=migrated)
        try:
            yield with_database(server, name)
        finally:
            await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    finally:
        await admin.close()


# --- CPU, from /proc -------------------------------------------------------------------------


def cpu_of(pids: list[int]) -> float:
    """CPU seconds (user + system) the processes ``pids`` have used; gone ones count 0."""
    total = 0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])
    return total / TICK


def tree_of(root: int) -> list[int]:
    """``root`` and every process below it."""
    parents: dict[int, int] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            parents[int(stat.parent.name)] = int(stat.read_text().rpartition(")")[2].split()[1])
        except (OSError, IndexError, ValueError):
            continue
    tree, todo = [], [root]
    while todo:
        pid = todo.pop()
        tree.append(pid)
        todo += [child for child, parent in parents.items() if parent == pid]
    return tree


async def backends_of(dsn: str) -> list[int]:
    """The PostgreSQL backends connected to ``dsn``'s database now (but the asking one)."""
    conn = await asyncpg.connect(dsn)
    try:
        rows = await conn.fetch(
            "SELECT pid FROM pg_stat_activity"
            " WHERE datname = current_database() AND pid <> pg_backend_pid()"
        )
    finally:
        await conn.close()
    return [row[0] for row in rows]


@dataclass
class Cpu:
    """CPU seconds spent over a measurement: a served process tree, its PostgreSQL backends,
    and this process (the client)."""

    service: float = 0.0
    database: float = 0.0
    client: float = 0.0

    def per(self, count: int) -> str:
        """ms of CPU per one of ``count`` requests, in three columns."""
        n = max(count, 1)
        return (
            f"{self.service / n * 1000:8.3f}{self.database / n * 1000:8.3f}"
            f"{self.client / n * 1000:8.3f}"
        )


CPU_HEADER = f"{'svc ms':>8}{'pg ms':>8}{'cli ms':>8}"
CPU_NOTE = (
    "  (svc, pg, cli ms: CPU per request of the served process tree, of its PostgreSQL backends "
    "and of this client, from /proc)"
)


class CpuMeter:
    """Reads the CPU of a process tree (``root``), of the backends of ``dsn``'s database and of
    this process, before and after a measurement. The backends are listed again at the end, so
    that connections opened meanwhile count (from their start: the pools open them early)."""

    def __init__(self, root: int | None, dsn: str) -> None:
        self.root, self.dsn = root, dsn
        self._backends: list[int] = []
        self._start: tuple[float, float, float] = (0.0, 0.0, 0.0)
        self._tree: list[int] = []

    def _read(self) -> tuple[float, float, float]:
        return cpu_of(self._tree), cpu_of(self._backends), time.process_time()

    async def start(self) -> None:
        self._tree = tree_of(self.root) if self.root is not None else []
        self._backends = await backends_of(self.dsn)
        self._start = self._read()

    async def stop(self) -> Cpu:
        end = self._read()
        late = [pid for pid in await backends_of(self.dsn) if pid not in self._backends]
        late_cpu = cpu_of(late)
        return Cpu(end[0] - self._start[0], end[1] - self._start[1] + late_cpu,
                   end[2] - self._start[2])  # fmt: skip


# --- served processes ------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def preferans() -> list[str]:
    """The ``preferans`` command of this interpreter (its console script, else the module)."""
    script = os.path.join(os.path.dirname(sys.executable), "preferans")
    return [script] if os.path.exists(script) else [sys.executable, "-m", "service.cli"]


@dataclass
class Served:
    base: str
    port: int
    process: subprocess.Popen[bytes]


@contextlib.asynccontextmanager
async def served(
    command: list[str], env: dict[str, str], port: int, ready: str = "/health",
    quiet: bool = True,
) -> AsyncIterator[Served]:  # fmt: skip
    """``command`` started with ``env`` on top of ours, once ``ready`` answers below 500
    (GET ``/health``, else a POST of ``{}``); terminated on the way out. ``quiet`` sends its
    output to /dev/null (its logs would bury the figures)."""
    out = subprocess.DEVNULL if quiet else None
    process = subprocess.Popen(
        command, env={**os.environ, **env}, stdin=subprocess.DEVNULL, stdout=out, stderr=out
    )
    base = f"http://127.0.0.1:{port}"
    try:
        async with httpx.AsyncClient(base_url=base) as http:
            # A few seconds alone; a smoke run beside the whole test suite may take minutes.
            deadline = time.monotonic() + 180
            while time.monotonic() < deadline:
                if process.poll() is not None:
                    raise RuntimeError(f"{command} exited with {process.returncode}")
                with contextlib.suppress(httpx.HTTPError):
                    method = "GET" if ready == "/health" else "POST"
                    if (await http.request(method, ready, json={})).status_code < 500:
                        break
                await asyncio.sleep(0.1)
            else:
                raise RuntimeError(f"{command} did not answer {ready} in 180 s")
        yield Served(base, port, process)
    finally:
        process.terminate()
        try:
            process.wait(15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


# --- tallies ---------------------------------------------------------------------------------


@dataclass
class Tally:
    latencies: list[float] = field(default_factory=list)
    errors: int = 0

    def summary(self, seconds: float) -> tuple[float, float, float]:
        """(requests per second, p50 ms, p99 ms)."""
        ordered = sorted(self.latencies)
        p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))] if ordered else 0.0
        p50 = statistics.median(ordered) if ordered else 0.0
        return len(ordered) / seconds, p50 * 1000, p99 * 1000
