"""The API through the real ASGI app, on a fresh migrated PostgreSQL database per test.

Fixtures:
    app        the app (`create_app`) on this test's database, as the service role (an app
               built once per test process and started anew on each test's database:
               `apitools.make_app` keeps the apps built with the same settings)
    client     `AsyncTestClient` over it (lifespan run: pool, poller)
    server     the same app served by uvicorn on a free port (for Server-Sent Events, which the
               in-process test client cannot stream); yields its base URL
    shared_client  module-scoped: one database and app for a module's many small cases (each
               makes its own game, so they stay independent)
"""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from collections.abc import AsyncIterator

import asyncpg
import pytest
import uvicorn
from _databases import create_database
from apitools import make_app
from litestar import Litestar
from litestar.testing import AsyncTestClient

from service.platform.database import with_database

pytestmark = pytest.mark.integration


@pytest.fixture
def app(database_dsn: str) -> Litestar:
    return make_app(database_dsn)


@pytest.fixture
async def client(app: Litestar) -> AsyncIterator[AsyncTestClient[Litestar]]:
    async with AsyncTestClient(app) as test_client:
        yield test_client


@pytest.fixture
async def server(app: Litestar) -> AsyncIterator[str]:
    # A client's idle keep-alive connection is closed by uvicorn after 5 s by default; on a
    # loaded machine a client may pick one up just as it is closed (a ReadError, no answer).
    config = uvicorn.Config(
        app, host="127.0.0.1", port=0, log_level="warning", timeout_graceful_shutdown=1,
        timeout_keep_alive=120,
    )  # fmt: skip
    instance = uvicorn.Server(config)
    # SIGINT and SIGTERM stay the test run's (uvicorn would take them while it serves).
    instance.capture_signals = contextlib.nullcontext  # type: ignore[method-assign]
    task = asyncio.create_task(instance.serve())
    while not instance.started:
        if task.done():
            task.result()
        await asyncio.sleep(0.01)
    port = instance.servers[0].sockets[0].getsockname()[1]
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        instance.should_exit = True
        await asyncio.wait_for(task, 10)


@pytest.fixture(scope="module")
async def shared_client(
    pg_server_dsn: str, template_database: str
) -> AsyncIterator[AsyncTestClient[Litestar]]:
    name = f"preferans_api_{uuid.uuid4().hex[:12]}"
    await create_database(pg_server_dsn, name, template_database)
    try:
        async with AsyncTestClient(make_app(with_database(pg_server_dsn, name))) as test_client:
            yield test_client
    finally:
        admin = await asyncpg.connect(pg_server_dsn)
        try:
            await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        finally:
            await admin.close()
