"""``GET /health``: ready when the database answers and its schema is the one this code needs."""

from __future__ import annotations

from litestar import Controller, get
from litestar.di import NamedDependency

from service.api.schemas import Health
from service.errors import Unavailable, problem_responses
from service.games import GameService


class HealthController(Controller):
    path = "/health"
    tags = ["service"]  # noqa: RUF012

    @get(
        "/",
        summary="Readiness",
        description="200 when the database is reachable and migrated to this code's head.",
        responses=problem_responses("unavailable"),
        cache=False,
    )
    async def health(
        self, games: NamedDependency[GameService], migration_head: NamedDependency[str]
    ) -> Health:
        try:
            current = await games.schema_revision()
        except Exception as exc:
            raise Unavailable(f"the database is unreachable ({type(exc).__name__})") from exc
        if current != migration_head:
            raise Unavailable(
                f"the database schema is at {current}, this code needs {migration_head}"
            )
        return Health(status="ok", database="ok", migration=current)
