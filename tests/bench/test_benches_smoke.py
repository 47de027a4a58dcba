"""Every bench in bench/ still runs at HEAD: each one's ``--smoke`` mode, in a subprocess,
exits 0 and prints its figures (their labels, never their values: timings are not asserted).

The benches are found by listing bench/ (but ``_kit.py`` and other ``_`` modules), so a new
bench is run too, and one without an entry in `FIGURES` fails until it has one.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BENCH = ROOT / "bench"

FIGURES: dict[str, tuple[str, ...]] = {
    "bench_active_games.py": ("moves/s", "cache 1024, no snapshots (before)",
                              "whole fold (before)", "snapshot + tail", "a stored event"),
    "bench_analysis.py": ("baseline: the cards (double-dummy)", "the decisions",
                          "layouts per decision", "throughput"),
    "bench_api.py": ("baseline: 1 INSERT", "service: keyed command", "service: unkeyed command",
                     "baseline: 1 SELECT", "service: GET seat view", "baseline: 304 from memory",
                     "service: 304", "service / baseline:", "cli ms"),
    "bench_append.py": ("baseline", "append", "unchained", "+notify", "command",
                        "the hash chain's cost per append"),
    "bench_bot_tables.py": ("baseline (no bots)", "with bot tables", "p99 with the bots"),
    "bench_collusion.py": ("colluders", "per 1,000 deals", "baseline: fold alone",
                           "report build", "false-positive rate at z >= ", "report over"),
    "bench_bots.py": ("random:", "basic:", "strong:", "expert:", "layouts solved per decision"),
    "bench_conditional_get.py": ("baseline: read the log every time", "known heads", "svc ms"),
    "bench_domain.py": ("play", "fold", "baseline", "decode"),
    "bench_dumps.py": ("baseline: COPY of the events", "baseline: COPY + gzip", "dump",
                       "dump / COPY:", "ms per game"),
    "bench_keepalive.py": ("baseline: GET /health, new conn.", "GET /health, keep-alive",
                           "client Nagle"),
    "bench_mixed.py": ("action", "view", "304 poll", "baseline: /health", "CPU per command"),
    "bench_projections.py": ("feed only", "catch-up: all projections together",
                             "rebuild (blue/green): all"),
    "bench_replica.py": ("primary alone", "with the standby", "moved off the primary",
                         "standby lag"),
    "bench_puzzles.py": ("per 100 finished deals", "found at the table", "mining: mine_game",
                         "baseline: analyse_game, cards", "study compared with its real line"),
    "bench_round_trips.py": ("keyed    statements per command", "unkeyed  statements per command"),
    "bench_solver.py": ("contract", "misère", "kernel target", "baseline, table only",
                        "plain alpha-beta", "brute force"),
    "bench_sse.py": ("followers on the acting process", "followers on the other process",
                     "baseline: GET /health round trip", "PostgreSQL CPU per action"),
    "bench_timeouts.py": ("timeout decided", "timeout committed", "baseline: asyncio timer",
                          "baseline: one SELECT 1"),
    "bench_tournament_start.py": ("idle", "start request", "last table dealt", "followers told",
                                  "players notified", "during the start", "p99 during the start"),
    "crossings.py": ("a card played:", "its replay:", "the card's key row:"),
    "duplicate_match.py": ("basic vs random", "margin basic − random", "the ceiling of card play",
                           "basic/play − random", "of the ceiling"),
    "make_event_fixtures.py": ("fixtures written, 0 event types never occurred",),
    "train_evaluators.py": ("declarer data:", "whist data:", "declarer model:", "whist model:",
                            "total:"),
}  # fmt: skip
"""Each bench's figures: labels its smoke run must print."""


def benches() -> list[str]:
    return sorted(p.name for p in BENCH.glob("*.py") if not p.name.startswith("_"))


def test_every_bench_listed_is_still_in_bench():
    gone = sorted(set(FIGURES) - set(benches()))
    assert gone == [], f"FIGURES names benches that are gone: {gone}"


@pytest.mark.parametrize("name", benches())
def test_the_bench_runs_in_its_smoke_mode_and_prints_its_figures(
    name, pg_server_dsn, template_database, tmp_path
):
    assert name in FIGURES, f"bench/{name} has no smoke test: list its figures in FIGURES"
    env = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
    env["PREFERANS_TEST_DATABASE_URL"] = pg_server_dsn
    # The session's migrated template: a bench's migrated scratch database is its copy.
    env["PREFERANS_BENCH_TEMPLATE"] = template_database
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    done = subprocess.run(
        [sys.executable, str(BENCH / name), "--smoke"], env=env, cwd=tmp_path,
        capture_output=True, text=True, timeout=240,
    )  # fmt: skip
    output = f"exit {done.returncode}:\n{done.stdout[-2000:]}\n{done.stderr[-4000:]}"
    assert done.returncode == 0, output
    missing = [figure for figure in FIGURES[name] if figure not in done.stdout]
    assert missing == [], f"not printed: {missing}\n{done.stdout[-3000:]}"
