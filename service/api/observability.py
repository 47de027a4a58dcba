"""What an operator watches, over HTTP: the request id, ``/metrics``, the per-route metrics.

- `RequestIds` (ASGI middleware, outermost): every request gets an id, the client's
  ``X-Request-ID`` if well formed (`service.platform.telemetry.well_formed_request_id`), else a
  fresh one; it is set as `service.platform.telemetry.request_id` for the request's logs and events,
  echoed in the response's ``X-Request-ID``, and each request is logged once (logger
  ``preferans.access``, INFO) with its method, route, status and milliseconds.
- `prometheus_config`: Litestar's Prometheus middleware, requests and their latency per route
  template (``/v1/games/{game_id}``, never a raw path) and status, as
  ``preferans_http_requests_total`` and ``preferans_http_request_duration_seconds``.
- `MetricsController`: ``GET /metrics``, outside the API's schema and its rate limits; in
  multiprocess mode it adds up every process's values (`service.platform.metrics`).
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from litestar import Controller, Response, get
from litestar.datastructures import State
from litestar.plugins.prometheus import PrometheusConfig
from prometheus_client import REGISTRY, CollectorRegistry, generate_latest, multiprocess
from prometheus_client.exposition import CONTENT_TYPE_LATEST

from service.platform.metrics import PROJECTION_LAG, PROJECTION_LAG_SECONDS
from service.platform.telemetry import new_request_id, request_id, well_formed_request_id

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

log = logging.getLogger(__name__)
access_log = logging.getLogger("preferans.access")

METRICS_PATH = "/metrics"


class RequestIds:
    """The ASGI middleware (see the module docstring)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        given = None
        for key, value in scope["headers"]:
            if key == b"x-request-id":
                given = well_formed_request_id(value.decode("latin-1"))
                break
        rid = given or new_request_id()
        token = request_id.set(rid)
        header = (b"x-request-id", rid.encode())
        status = 500
        started = time.perf_counter()

        async def sending(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                message["headers"] = [*message.get("headers", ()), header]
            await send(message)

        try:
            await self.app(scope, receive, sending)
        finally:
            if access_log.isEnabledFor(logging.INFO):
                access_log.info(
                    "%s %s %d %.1f ms", scope["method"], scope["path"], status,
                    (time.perf_counter() - started) * 1000,
                    extra={"method": scope["method"], "path": scope["path"], "status": status},
                )  # fmt: skip
            request_id.reset(token)


def prometheus_config() -> PrometheusConfig:
    return PrometheusConfig(
        app_name="preferans",
        prefix="preferans_http",
        group_path=True,  # the route's template: a label per route, not per game id
        exclude=[f"^{METRICS_PATH}$"],
    )


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
