"""``GET /health``: ready when the database answers and its schema is the one this code needs."""

from __future__ import annotations

from typing import Any

from litestar import Controller, get
from litestar.di import NamedDependency

from service.api.schemas import Health
from service.database import schema_revision
from service.errors import problem_responses
from service.event_log import EventLog
from service.exceptions import Unavailable


class HealthController(Controller):
    path = "/health"
    tags = ["service"]  # noqa: RUF012

    @get(
        "/",
        operation_id="readHealth",
        summary="Readiness",
        description="200 when the database is reachable and migrated to this code's head.",
        responses=problem_responses("unavailable"),
        cache=False,
    )
    async def health(
        self, events: NamedDependency[EventLog[Any]], migration_head: NamedDependency[str]
    ) -> Health:
        try:
            current = await schema_revision(events.pool)
        except Exception as exc:
            raise Unavailable(f"the database is unreachable ({type(exc).__name__})") from exc
        if current != migration_head:
            raise Unavailable(
                f"the database schema is at {current}, this code needs {migration_head}"
            )
        return Health(status="ok", database="ok", migration=current)
