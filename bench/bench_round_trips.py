"""Round trips to PostgreSQL per game command, counted from PostgreSQL's own statement log.

    python bench/bench_round_trips.py [--commands 40] [--smoke]

It makes a throwaway PostgreSQL 15 cluster (Debian's server binaries, as the fault tests do)
with ``log_statement = 'all'``, starts ``preferans serve`` on it, plays one game through the
API, and for each command reads what the server logged for the request path's role
(``preferans_app``) while that one request ran: the statements of the command path. The
projection runner is off for it, and the other background workers' statements (the live
updates' reads, the key purger) are told apart by their text and left out. It prints, for keyed
and unkeyed commands, the statements per command (each is one round trip: asyncpg sends a
prepared statement's bind and execute together).
"""

from __future__ import annotations

import argparse
import re
import statistics
import sys
import time
import uuid
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
import itertools

from clusters import Cluster, ServiceProcess

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _kit import add_smoke

BACKGROUND = re.compile(
    r"pg_snapshot_xmin|pg_try_advisory_lock|pg_advisory_unlock|projection_checkpoints|"
    r"rm\.projections|LISTEN|UNLISTEN|pg_notify|purge_idempotency_keys|rate_counts|"
    r"alembic_version|due_at|notification_heads|api\.players \(player_id, name, kind\)"
)
"""Statements of the background workers, not of the request being measured."""


ENTRY = re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d", re.M)
"""A log entry starts with its timestamp; a statement's text continues on the lines after."""


def statements_since(log: Path, offset: int) -> tuple[list[str], int]:
    data = log.read_bytes()[offset:]
    text = data.decode(errors="replace")
    starts = [m.start() for m in ENTRY.finditer(text)] + [len(text)]
    entries = [" ".join(text[a:b].split()) for a, b in itertools.pairwise(starts)]
    found = [
        e for e in entries
        if " preferans_app " in e and ("LOG: execute " in e or "LOG: statement: " in e)
    ]  # fmt: skip
    return [e for e in found if not BACKGROUND.search(e)], offset + len(data)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--commands", type=int, default=40)
    add_smoke(parser)
    args = parser.parse_args()
    if args.smoke:
        args.commands = 8
    cluster = Cluster().init("log_statement = 'all'", "log_line_prefix = '%m [%p] %u '")
    cluster.start()
    service = None
    try:
        cluster.psql("CREATE DATABASE preferans")
        service = ServiceProcess(
            {
                "DATABASE_URL": cluster.dsn_for("preferans"),
                "PREFERANS_RATE_LIMITS": "false",
                "PREFERANS_PROJECTIONS": "false",  # their transactions would blur the count
            },
            cluster.root / "service.log",
        )
        service.start()
        http = httpx.Client(base_url=service.url, timeout=10)
        tokens = []
        for name in ("A", "B", "C"):
            tokens.append(http.post("/v1/players", json={"name": name}).json()["token"])
        auth = [{"Authorization": f"Bearer {t}"} for t in tokens]
        game = http.post("/v1/games", json={"seat": 0, "seed": "round trips"}, headers=auth[0])
        game_id = game.json()["id"]
        for seat in (1, 2):
            http.post(f"/v1/games/{game_id}/seats", json={"seat": seat}, headers=auth[seat])
        counts: dict[str, list[int]] = {"keyed": [], "unkeyed": []}
        samples: dict[str, list[str]] = {}
        offset = 0
        for n in range(args.commands):
            views = [http.get(f"/v1/games/{game_id}", headers=a).json() for a in auth]
            seat = next((s for s, v in enumerate(views) if v["legal_actions"]), None)
            if seat is None:
                break
            kind = "keyed" if n % 2 == 0 else "unkeyed"
            headers = dict(auth[seat])
            if kind == "keyed":
                headers["Idempotency-Key"] = f"rt-{uuid.uuid4()}"
            time.sleep(0.2)  # let the background workers' statements land before the mark
            _, offset = statements_since(cluster.log, offset)
            done = http.post(
                f"/v1/games/{game_id}/actions", json=views[seat]["legal_actions"][0],
                headers=headers,
            )  # fmt: skip
            assert done.status_code == 200, done.text
            time.sleep(0.2)
            lines, offset = statements_since(cluster.log, offset)
            if n >= 4:  # after the first few: prepared statements and caches are warm
                counts[kind].append(len(lines))
                samples.setdefault(kind, [re.sub(r"^.*?LOG: ", "", ln)[:110] for ln in lines])
        print(f"PostgreSQL {cluster.psql('SHOW server_version')}; {args.commands} commands")
        for kind, values in counts.items():
            print(
                f"  {kind:8} statements per command: median {statistics.median(values):g}, "
                f"max {max(values)} over {len(values)} commands"
            )
            for line in samples.get(kind, []):
                print(f"      {line}")
        return 0
    finally:
        if service is not None:
            service.stop()
        cluster.remove()


if __name__ == "__main__":
    sys.exit(main())
