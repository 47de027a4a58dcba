"""The service around the API: readiness, the problem pages, migrations at start-up."""

from __future__ import annotations

import httpx
import pytest
from apitools import make_app
from litestar.testing import AsyncTestClient

from service.api.errors import KINDS
from service.platform.database import head_revision

pytestmark = pytest.mark.integration


async def test_health_reports_a_reachable_and_current_database(client: httpx.AsyncClient) -> None:
    response = await client.get("/health")
    assert response.status_code == 200
    body = response.json()
    # The pool's figures move with the app's own workers starting beside the request.
    assert body == {"status": "ok", "database": "ok", "migration": head_revision(),
                    "connections_in_use": body["connections_in_use"],
                    "waiting": body["waiting"]}  # fmt: skip
    assert body["connections_in_use"] >= 0 and body["waiting"] >= 0


async def test_the_app_migrates_an_empty_database_when_it_starts(empty_database_dsn: str) -> None:
    app = make_app(empty_database_dsn, migrate=True, projections=False)
    app_settings = app.state  # nothing connects before the lifespan
    assert "pool" not in app_settings
    async with AsyncTestClient(app) as client:
        health = await client.get("/health")
        created = await client.post("/v1/players", json={"name": "first"})
    assert health.json()["migration"] == head_revision()
    assert created.status_code == 201


async def test_health_is_503_when_the_schema_is_behind(empty_database_dsn: str) -> None:
    app = make_app(empty_database_dsn, migrate=False, projections=False)
    async with AsyncTestClient(app) as client:
        response = await client.get("/health")
    assert response.status_code == 503
    assert response.headers["content-type"] == "application/problem+json"
    assert response.json()["type"] == "/problems/unavailable"


@pytest.mark.parametrize("slug", sorted(KINDS))
async def test_each_problem_type_has_a_page(shared_client: httpx.AsyncClient, slug: str) -> None:
    response = await shared_client.get(f"/problems/{slug}")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/html")
    assert KINDS[slug].title.split()[0] in response.text
