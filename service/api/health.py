"""``GET /health``: ready when the database answers and its schema is the one this code needs.

It asks on a connection of its own (`service.platform.database.HealthProbe`), not the pool's:
a burst that takes every pooled connection makes it say ``overloaded``, never that the
database is down.
"""

from __future__ import annotations

import asyncio

from litestar import Controller, get
from litestar.di import NamedDependency

from service.api.errors import problem_responses
from service.api.games.schemas import Health
from service.exceptions import Unavailable
from service.platform.database import HealthProbe

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
            "200 when the database answers and is migrated to this code's head, with `status` "
            "`overloaded` when every pooled connection is taken and requests wait for one; else "
            "503 naming the dependency that is down (`dependency`). It asks the database on a "
            "connection of its own, so a burst of requests cannot make it say the database is "
            "down, and it answers within a second whatever the database does."
        ),
        responses=problem_responses("unavailable"),
        cache=False,
    )
    async def health(
        self, health: NamedDependency[HealthProbe], migration_head: NamedDependency[str]
    ) -> Health:
        try:
            async with asyncio.timeout(HEALTH_TIMEOUT):
                current = await health.schema_revision()
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
        in_use, waiting = health.load()
        return Health(
            status="overloaded" if health.overloaded() else "ok", database="ok", migration=current,
            connections_in_use=in_use, waiting=waiting,
        )  # fmt: skip
