"""``GET /health``: ready when the database answers and its schema is the one this code needs."""

from __future__ import annotations

import asyncio
from typing import Any

from litestar import Controller, get
from litestar.di import NamedDependency

from service.api.errors import problem_responses
from service.api.schemas.games import Health
from service.eventlog.log import EventLog
from service.exceptions import Unavailable
from service.platform.database import schema_revision

HEALTH_TIMEOUT = 0.8
"""Seconds the readiness probe waits for the database."""


class HealthController(Controller):
    path = "/health"
    tags = ["service"]  # noqa: RUF012

    @get(
        "/",
        operation_id="readHealth",
        summary="Readiness",
        description=(
            "200 when the database answers and is migrated to this code's head; else 503 naming "
            "the dependency that is down (`dependency`). It answers within a second whatever the "
            "database does."
        ),
        responses=problem_responses("unavailable"),
        cache=False,
    )
    async def health(
        self, event_log: NamedDependency[EventLog[Any]], migration_head: NamedDependency[str]
    ) -> Health:
        try:
            async with asyncio.timeout(HEALTH_TIMEOUT):
                current = await schema_revision(event_log.pool)
        except TimeoutError:
            raise Unavailable(
                f"the database did not answer within {HEALTH_TIMEOUT} s", dependency="database"
            ) from None
        except Exception as exc:
            raise Unavailable(
                f"the database is unreachable ({type(exc).__name__})", dependency="database"
            ) from exc
        if current != migration_head:
            raise Unavailable(
                f"the database schema is at {current}, this code needs {migration_head}",
                dependency="database schema",
            )
        return Health(status="ok", database="ok", migration=current)
