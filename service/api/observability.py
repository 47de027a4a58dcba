"""What an operator watches, over HTTP: the request id, ``/metrics``, the per-route metrics.

- **The request id**: every request gets one, the client's ``X-Request-ID`` if well formed
  (`service.platform.telemetry.well_formed_request_id`), else a fresh one; it is set as
  `service.platform.telemetry.request_id` for the request's logs and events, echoed in the
  response's ``X-Request-ID``, and each request is logged once (logger ``preferans.access``,
  INFO) with its method, route, status and milliseconds.
- **The request metrics** (`RequestMetrics`): requests and their latency per route template
  (``/v1/games/{game_id}``, never a raw path) and status, as ``preferans_http_requests_total``
  and ``preferans_http_request_duration_seconds`` (the names and labels Litestar's Prometheus
  middleware gave them), with ``preferans_http_requests_in_progress`` and
  ``preferans_http_requests_error_total``.
- `MetricsController`: ``GET /metrics``, outside the API's schema and its rate limits; in
  multiprocess mode it adds up every process's values (`service.platform.metrics`).

The edge (`service.api.edge.Edge`, the one middleware) applies the first two to each request.
"""

from __future__ import annotations

import logging
import os
import time
from typing import Any

from litestar import Controller, Response, get
from litestar.datastructures import State
from prometheus_client import (
    REGISTRY,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
    multiprocess,
)
from prometheus_client.exposition import CONTENT_TYPE_LATEST

from service.platform.metrics import PROJECTION_LAG, PROJECTION_LAG_SECONDS
from service.platform.telemetry import new_request_id, well_formed_request_id

log = logging.getLogger(__name__)
access_log = logging.getLogger("preferans.access")

METRICS_PATH = "/metrics"


def request_id_of(given: bytes | None) -> str:
    """The request's id: the client's ``X-Request-ID`` if well formed, else a fresh one."""
    if given is not None:
        rid = well_formed_request_id(given.decode("latin-1"))
        if rid is not None:
            return rid
    return new_request_id()


def log_access(method: str, path: str, status: int, started: float) -> None:
    if access_log.isEnabledFor(logging.INFO):
        access_log.info(
            "%s %s %d %.1f ms", method, path, status, (time.perf_counter() - started) * 1000,
            extra={"method": method, "path": path, "status": status},
        )  # fmt: skip


_APP = "preferans"


class RequestMetrics:
    """The per-route request metrics of this process (made once: prometheus-client keeps one
    metric of a name per registry). Each (method, route, status) keeps its own children, so a
    request moves them without a label lookup."""

    def __init__(self) -> None:
        labels = ["method", "path", "status_code", "app_name"]
        self.total = Counter(
            "preferans_http_requests_total", "Total requests", labelnames=labels
        )  # fmt: skip
        self.seconds = Histogram(
            "preferans_http_request_duration_seconds", "Request duration, in seconds",
            labelnames=labels,
        )  # fmt: skip
        self.in_progress = Gauge(
            "preferans_http_requests_in_progress", "Total requests currently in progress",
            labelnames=labels, multiprocess_mode="livesum",
        )  # fmt: skip
        self.errors = Counter(
            "preferans_http_requests_error_total", "Total errors in requests", labelnames=labels
        )  # fmt: skip
        self._started: dict[tuple[str, str], Any] = {}
        self._ended: dict[tuple[str, str, int], tuple[Any, Any]] = {}

    def started(self, method: str, route: str) -> None:
        gauge = self._started.get((method, route))
        if gauge is None:
            gauge = self._started[(method, route)] = self.in_progress.labels(
                method, route, 200, _APP
            )
        gauge.inc()

    def ended(self, method: str, route: str, status: int, seconds: float) -> None:
        self._started[(method, route)].dec()
        children = self._ended.get((method, route, status))
        if children is None:
            values = (method, route, status, _APP)
            children = self._ended[(method, route, status)] = (
                self.total.labels(*values), self.seconds.labels(*values)
            )  # fmt: skip
        if status >= 500:
            self.errors.labels(method, route, status, _APP).inc()
        children[0].inc()
        children[1].observe(seconds)


_METRICS: list[RequestMetrics] = []


def request_metrics() -> RequestMetrics:
    """The process's one `RequestMetrics` (every app of a process shares it, as they share the
    registry)."""
    if not _METRICS:
        _METRICS.append(RequestMetrics())
    return _METRICS[0]


class MetricsController(Controller):
    """``GET /metrics`` in Prometheus' text format."""

    path = METRICS_PATH
    include_in_schema = False

    @get(name="metrics", opt={"exclude_from_auth": True})
    async def scrape(self, state: State) -> Response[bytes]:
        projections = state.get("projections")
        if projections is not None:
            await _measure_lag(projections)
        registry = REGISTRY
        if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
            registry = CollectorRegistry()
            multiprocess.MultiProcessCollector(registry)  # type: ignore[no-untyped-call]
        return Response(generate_latest(registry), media_type=CONTENT_TYPE_LATEST)


async def _measure_lag(projections: Any) -> None:
    """The projections' lag as the database says it now (a few small queries a scrape)."""
    try:
        rows = await projections.status()
    except Exception:  # the scrape still answers with what it has; /health says what is down
        log.debug("metrics: projection lag unavailable", exc_info=True)
        return
    for row in rows:
        if row.role == "active":
            PROJECTION_LAG.labels(row.name).set(row.lag)
            PROJECTION_LAG_SECONDS.labels(row.name).set(row.lag_seconds)
