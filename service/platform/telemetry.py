"""Logs and traces: the request id, the log format, OpenTelemetry. Free of any web framework.

- **The request id** (`request_id`) is the current request's: the client's ``X-Request-ID`` when
  it is well formed (`well_formed_request_id`), else a fresh one; `service.api.observability`
  sets it for each request and echoes it back. The command handler writes it into every event
  it appends as the ``correlation_id`` of the event's metadata, so a log line, a trace and the
  events a request caused share one id.
- **Logs** (`configure_logging`): ``PREFERANS_LOG_FORMAT=text`` (default) or ``json``, one
  object a line with ``ts``, ``level``, ``logger``, ``message``, ``request_id`` and, for a
  failure, ``exc``.
- **Traces** (`configure_tracing`): with ``OTEL_EXPORTER_OTLP_ENDPOINT`` set, spans go there in
  batches over OTLP/HTTP; the HTTP layer adds a span per request, `tracer` spans the appends.
"""

from __future__ import annotations

import json
import logging
import os
import re
import sys
import time
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any

from opentelemetry import trace

if TYPE_CHECKING:
    from opentelemetry.sdk.trace.export import SpanExporter

    from service.platform.settings import Settings

request_id: ContextVar[str | None] = ContextVar("request_id", default=None)
"""The id of the request being served in this context (None outside a request)."""

tracer = trace.get_tracer("preferans")
"""The service's own spans (a no-op until `configure_tracing` installs a provider)."""

_REQUEST_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:\-]{0,127}")


def well_formed_request_id(value: str | None) -> str | None:
    """``value`` if it may serve as a request id (1–128 of ``A-Z a-z 0-9 . _ : -``), else None:
    a client's id goes into logs and event metadata, so nothing else is taken from it."""
    if value and _REQUEST_ID.fullmatch(value):
        return value
    return None


def new_request_id() -> str:
    """32 random hex digits, as ``uuid4().hex`` was, without making a UUID on every request."""
    return os.urandom(16).hex()


class JsonFormatter(logging.Formatter):
    """One JSON object a line: ``ts`` (UTC, ISO 8601), ``level``, ``logger``, ``message``,
    ``request_id`` (when in a request), ``exc`` (a traceback), and any ``extra`` fields."""

    _STANDARD = frozenset(vars(logging.makeLogRecord({})))

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "ts": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created))
            + f".{int(record.msecs):03d}Z",
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
        }
        if (rid := request_id.get()) is not None:
            entry["request_id"] = rid
        for key, value in vars(record).items():
            if key not in self._STANDARD and key not in entry and not key.startswith("_"):
                entry[key] = value
        if record.exc_info:
            entry["exc"] = self.formatException(record.exc_info)
        return json.dumps(entry, default=str, ensure_ascii=False)


class _TextFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        line = super().format(record)
        rid = request_id.get()
        return f"{line} [request {rid}]" if rid is not None else line


def configure_logging(settings: Settings, *, level: int | None = None) -> None:
    """The root logger of a ``preferans`` process: stderr, in the configured format, at
    ``level`` (default PREFERANS_LOG_LEVEL)."""
    handler = logging.StreamHandler(sys.stderr)
    if settings.log_format == "json":
        handler.setFormatter(JsonFormatter())
    else:
        handler.setFormatter(_TextFormatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    handler.set_name("preferans")
    root = logging.getLogger()
    for old in list(root.handlers):  # ours from an earlier call; a host's own stay
        if old.get_name() == "preferans":
            root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(level if level is not None else settings.log_level.upper())


_configured: list[object] = []


def configure_tracing(settings: Settings, exporter: SpanExporter | None = None) -> bool:
    """Install a tracer provider exporting to ``settings.otlp_endpoint`` (or to ``exporter``,
    the tests' in-memory one); False, and nothing done, when neither is given. Once per
    process: OpenTelemetry's global provider cannot be replaced."""
    if exporter is None and not settings.otlp_endpoint:
        return False
    if _configured:
        return True
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor, SimpleSpanProcessor

    resource = Resource.create({"service.name": settings.otel_service_name})
    provider = TracerProvider(resource=resource)
    if exporter is not None:
        provider.add_span_processor(SimpleSpanProcessor(exporter))
    else:
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

        # The exporter reads OTEL_EXPORTER_OTLP_ENDPOINT (and _HEADERS …) itself, appending
        # /v1/traces as the specification says.
        provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
    trace.set_tracer_provider(provider)
    _configured.append(provider)
    return True
