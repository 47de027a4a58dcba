"""The service's own Prometheus metrics (prometheus-client), apart from the HTTP ones.

Every metric is defined here, once, and moved by the part of the service that knows the fact
(the command handler, the live fan-outs, the steward, the projection runner); ``/metrics``
(`service.api.observability`) serves them beside the per-route request metrics.

    preferans_commands_total{outcome, command}   commands handled: ``accepted`` (events
                                                 appended, or none needed), ``refused`` (a rule
                                                 said no), ``conflict`` (a stale version that
                                                 retries could not mend), ``replayed`` (an
                                                 Idempotency-Key's stored answer)
    preferans_append_seconds                     one append of a command's events (a histogram)
    preferans_projection_lag_events{projection}  events between a read model and the log's head
    preferans_projection_lag_seconds{projection} how old the oldest unprojected event is
    preferans_sse_subscribers{stream}            open Server-Sent Events streams (game, player)
    preferans_bot_think_seconds{level}           one decision of a service bot (a histogram)
    preferans_timeouts_pending                   clocks running at tables a steward watches
    preferans_worker_rounds_total{worker}        rounds of a background worker (the kit's,
                                                 `service.platform.worker_kit`)
    preferans_worker_errors_total{worker}        rounds that failed (logged, then retried)
    preferans_worker_round_seconds{worker}       one round of a worker (a histogram)
    preferans_worker_lag_seconds{worker}         how far behind its work a worker is, where
                                                 that means something: the projections, the
                                                 oldest event not yet applied; a steward, how
                                                 late it came to the table due longest ago

Several processes (``PREFERANS_WORKERS``, the bot worker): ``preferans serve`` points
``PROMETHEUS_MULTIPROC_DIR`` at a fresh folder before it starts them (`prepare_multiprocess`),
each writes its values there, and every API worker's ``/metrics`` sums them all, so any worker
answers for the whole service. The gauges say how they add up: subscribers are summed over the
live processes; the lags, measured from the database at each scrape, are the latest measure;
pending timeouts, which every steward counts alike, take the maximum, and a worker's lag the
maximum over the live processes (the one furthest behind).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from collections.abc import AsyncIterator
from pathlib import Path

from prometheus_client import Counter, Gauge, Histogram

COMMANDS = Counter(
    "preferans_commands", "Commands handled, by outcome", ["outcome", "command"]
)  # fmt: skip
APPEND_SECONDS = Histogram(
    "preferans_append_seconds",
    "Seconds one append of a command's events took (decide excluded)",
    buckets=(0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0),
)
STREAMS_QUARANTINED = Counter(
    "preferans_streams_quarantined",
    "Streams found unreadable (an event that cannot be decoded or folded), once per process",
)
PROJECTION_LAG = Gauge(
    "preferans_projection_lag_events",
    "Events in the log a projection has not applied yet",
    ["projection"],
    multiprocess_mode="mostrecent",  # measured by whichever process was scraped last
)
PROJECTION_LAG_SECONDS = Gauge(
    "preferans_projection_lag_seconds",
    "Age of the oldest event a projection has not applied yet",
    ["projection"],
    multiprocess_mode="mostrecent",
)
SSE_SUBSCRIBERS = Gauge(
    "preferans_sse_subscribers",
    "Open Server-Sent Events streams",
    ["stream"],
    multiprocess_mode="livesum",
)
BOT_THINK_SECONDS = Histogram(
    "preferans_bot_think_seconds",
    "Seconds a service bot thought over one decision",
    ["level"],
    buckets=(0.001, 0.01, 0.05, 0.1, 0.25, 0.5, 1.0, 1.5, 2.0, 3.0, 5.0),
)
TIMEOUTS_PENDING = Gauge(
    "preferans_timeouts_pending",
    "Clocks running at the tables a steward watches (a timeout will fire when one runs out)",
    multiprocess_mode="max",
)
SNAPSHOT_MISMATCHES = Counter(
    "preferans_snapshot_mismatches",
    "Snapshots offered and discarded: a refold from the log's first event differed",
)
STEWARD_TABLE_FAILURES = Counter(
    "preferans_steward_table_failures",
    "Rounds of the steward at one table that failed (a bug or a refused stand-in move)",
    ["duty"],
)
TABLES_FOR_ARBITER = Counter(
    "preferans_tables_for_arbiter",
    "Tables the steward gave up on after failing there round after round: an arbiter must look",
    ["duty"],
)
TABLES_AWAITING_ARBITER = Gauge(
    "preferans_tables_awaiting_arbiter",
    "Tables marked for an arbiter that nothing has moved since",
    ["duty"],
    multiprocess_mode="livesum",
)
WORKER_ROUNDS = Counter(
    "preferans_worker_rounds", "Rounds of a background worker", ["worker"]
)  # fmt: skip
WORKER_ERRORS = Counter(
    "preferans_worker_errors", "Rounds of a background worker that failed", ["worker"]
)  # fmt: skip
WORKER_ROUND_SECONDS = Histogram(
    "preferans_worker_round_seconds",
    "Seconds one round of a background worker took",
    ["worker"],
    buckets=(0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1.0, 5.0, 30.0),
)

WORKER_LAG_SECONDS = Gauge(
    "preferans_worker_lag_seconds",
    "How far behind its work a background worker is (seconds)",
    ["worker"],
    multiprocess_mode="livemax",
)


@contextlib.asynccontextmanager
async def subscribed(stream: str) -> AsyncIterator[None]:
    """Counted in ``preferans_sse_subscribers{stream}`` while the block runs."""
    gauge = SSE_SUBSCRIBERS.labels(stream)
    gauge.inc()
    try:
        yield
    finally:
        gauge.dec()


def prepare_multiprocess() -> Path | None:
    """Before ``preferans serve`` starts its processes: a fresh folder for their metrics in
    PROMETHEUS_MULTIPROC_DIR, unless the operator gave one (it is emptied: values of processes
    gone would count). Returns the folder. Must run before any process creates a metric, so
    the children, which inherit the variable, are the ones that do."""
    given = os.environ.get("PROMETHEUS_MULTIPROC_DIR")
    if given:
        folder = Path(given)
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir(parents=True, exist_ok=True)
    else:
        folder = Path(tempfile.mkdtemp(prefix="preferans-metrics-"))
        os.environ["PROMETHEUS_MULTIPROC_DIR"] = str(folder)
    return folder


def forget_process(pid: int) -> None:
    """A child process has ended: its live gauges no longer count."""
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        from prometheus_client import multiprocess

        multiprocess.mark_process_dead(pid)  # type: ignore[no-untyped-call]
