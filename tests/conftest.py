"""Shared fixtures: a real PostgreSQL for every test that asks for one; never a mock.

The server comes from, in order:

1. ``PREFERANS_TEST_DATABASE_URL`` (a CI service container, a local server);
2. a testcontainers ``postgres:16-alpine``, when a Docker engine answers;
3. the embedded server of the ``pgserver`` package, in a temporary directory.

If none can be had, the tests that need it fail (not skip) saying so. Each test gets its own
database, copied from a template migrated once per session; when the test is over the database is
made as new again (the template's schema, rows and sequences, checked) for the next test, or
dropped if it cannot be (`_recycling`, `_Databases`): a drop checkpoints the whole cluster.

Fixtures:
    pg_server_dsn       session   DSN of the server's maintenance database (create/drop here)
    template_database   session   name of the migrated template database
    fresh_databases     session   the template's copies, each made as new again between tests
    database_dsn        function  DSN of a migrated database for this test, as the template made it
    other_database_dsn  function  DSN of a second fresh migrated database (another server's)
    empty_database_dsn  function  DSN of a fresh database with no schema (migration tests)
    pool                function  asyncpg pool on ``database_dsn`` as the owner, service codecs
    app_pool            function  the same as the service role ``preferans_app``

Tests that start real processes (``preferans serve``, the CLI, PostgreSQL clusters, a code
generator) or play whole games and long sweeps are marked ``slow`` here, by path in ``SLOW``,
and so is every test that drives the browser (asks for the ``chromium`` fixture): a plain
``pytest`` runs them, ``pytest -m "not slow"`` leaves them out.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import tempfile
import uuid
import warnings
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import _bytecode  # noqa: F401  (first: bytecode caches for every module imported after it)
import _hypothesis  # noqa: F401  (registers and loads the Hypothesis profiles)
import asyncpg
import pytest
from _databases import create_database
from _recycling import Pristine

from migrations import APP_ROLE, PROJECTIONS_ROLE, PURGER_ROLE
from service.platform.database import create_pool, upgrade_async, with_database, with_user

pytest_plugins = ("_interrupt",)  # SIGTERM stops the run with its summary, as Ctrl-C does

SERVER_ENV = "PREFERANS_TEST_DATABASE_URL"
TESTS = Path(__file__).resolve().parent

# Under tests/: a folder ("faults/"), a file, or one test of a file ("file.py::test_name").
SLOW = (
    "faults/",  # service processes killed, PostgreSQL clusters stopped
    "bench/",  # every bench's smoke run: servers, clusters, subprocesses
    "api/test_schemathesis.py",
    "api/test_live_processes.py",
    "api/test_workers.py",
    "api/test_generated_client.py",  # runs openapi-python-client
    "api/test_client_kits.py",  # npm, tsc and node
    "integration/test_serve_process.py",
    "integration/test_process_roles.py",  # preferans serve and its workers
    "integration/test_replica_reads.py",  # a primary and a standby cluster
    "integration/test_projections_cli.py",
    "integration/test_migrations.py::test_concurrent_migration_processes",
    "integration/test_migrations.py::test_without_database_url_the_cli_uses_an_embedded_server",
    "unit/service/test_cli.py",
    "unit/test_interrupt.py::test_a_signal_stops_pytest_at_once_with_its_summary",  # pytest
    "unit/bots/test_strong_replay.py",  # a fresh interpreter thinks each move again
    # Whole games and long sweeps: 5-50 s each on 2 cores with the rest of the suite beside
    # them (`pytest --durations`); the quick run checks the same rules on smaller cases.
    "integration/test_projections.py::test_live_read_models_equal_the_pure_folds_and_a_full_rebuild",
    "integration/test_projections_api.py::test_sheets_statistics_ratings_replays_and_exports_of_finished_games",
    "integration/test_studies.py::test_the_projections_ignore_studies",
    "unit/projections/test_projection_collusion.py",
    "unit/projections/test_projection_decisions.py::test_every_decision_of_random_games_is_judged_with_a_coherent_verdict",
    "unit/bots/test_bot_levels.py::test_every_level_meets_every_kind_of_decision_and_answers_it_legally",
    "property/test_solver_kernel.py",
    "property/test_bot_properties.py",
    "api/test_hidden_information.py",
    "api/test_live_tables.py::test_a_whole_pulka_of_three_bots_ends_and_settles",
    "api/test_live_tables.py::test_an_expert_bot_plays_a_whole_game_through_the_api",
    "api/test_tournaments.py::test_a_whole_duplicate_event_and_its_embargo_door_by_door",
    "api/test_tournaments.py::test_a_robot_duplicate_compares_every_entrant_on_the_same_deals",
    "api/test_moderation.py",
)


def _is_slow(item: pytest.Item) -> bool:
    if "chromium" in getattr(item, "fixturenames", ()):
        return True
    try:
        where = item.path.resolve().relative_to(TESTS).as_posix()
    except ValueError:
        return False
    test = f"{where}::{getattr(item, 'originalname', item.name)}"
    return any(
        where.startswith(slow) if slow.endswith("/") else slow in (where, test) for slow in SLOW
    )


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if _is_slow(item):
            item.add_marker(pytest.mark.slow)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item: pytest.Item) -> Iterator[None]:
    """After a test's fixtures are torn down, the apps it was handed are free for the next
    (`_apps`: apps built with the same settings are kept)."""
    try:
        return (yield)
    finally:
        import _apps  # here: it imports Litestar, and _bytecode goes first

        _apps.release()


def _docker_answers() -> bool:
    try:
        import docker

        docker.from_env(timeout=3).ping()
    except Exception:
        return False
    return True


@pytest.fixture(scope="session")
def pg_server_dsn() -> Iterator[str]:
    """A PostgreSQL server for the session (see the module docstring for where it comes from)."""
    if url := os.environ.get(SERVER_ENV):
        yield url
        return
    if _docker_answers():
        from testcontainers.postgres import PostgresContainer

        with PostgresContainer("postgres:16-alpine", driver=None) as container:
            yield _disposable(container.get_connection_url())
        return
    try:
        import pgserver

        # Not under pytest's basetemp: run as root, pgserver runs postgres as another user, and
        # a concurrent pytest session resets /tmp/pytest-of-root to 0700 under its feet.
        pgdata = Path(tempfile.mkdtemp(prefix="preferans-test-pg-")) / "data"
        server = pgserver.get_server(pgdata, cleanup_mode="delete")
    except Exception as exc:
        pytest.fail(
            f"no PostgreSQL for the tests: set {SERVER_ENV}, start a Docker engine, or fix the "
            f"embedded pgserver ({type(exc).__name__}: {exc})",
            pytrace=False,
        )
    try:
        yield _disposable(server.get_uri())
    finally:
        server.cleanup()
        shutil.rmtree(pgdata.parent, ignore_errors=True)


def _disposable(dsn: str) -> str:
    """Trade durability for speed on a server that dies with the session (never on the env's)."""

    async def tune() -> None:
        conn = await asyncpg.connect(dsn)
        try:
            for setting in ("fsync", "synchronous_commit", "full_page_writes"):
                await conn.execute(f"ALTER SYSTEM SET {setting} = off")
            await conn.execute("SELECT pg_reload_conf()")
        finally:
            await conn.close()

    asyncio.run(tune())
    return dsn


async def _admin(server_dsn: str, statement: str) -> None:
    conn = await asyncpg.connect(server_dsn)
    try:
        await conn.execute(statement)
    finally:
        await conn.close()


async def _new_database(server_dsn: str, prefix: str, template: str | None = None) -> str:
    name = f"{prefix}_{uuid.uuid4().hex[:12]}"  # unique: other sessions may share the server
    await create_database(server_dsn, name, template)
    return name


async def _drop_database(server_dsn: str, name: str) -> None:
    await _admin(server_dsn, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


async def _migrated_template(server_dsn: str) -> str:
    """A new database migrated to head. The migrations grant and revoke on the cluster's roles,
    which two sessions doing at once fail on ("tuple concurrently updated"): the sessions of
    this conftest (pytest-xdist's workers) take turns under an advisory lock, and a collision
    with any other session is retried on a fresh database."""
    lock = await asyncpg.connect(server_dsn)
    try:
        await lock.execute("SELECT pg_advisory_lock(hashtext('preferans tests: migrating'))")
        for attempt in range(3):
            name = await _new_database(server_dsn, "preferans_tpl")
            try:
                await upgrade_async(with_database(server_dsn, name))
            except Exception as exc:
                await _drop_database(server_dsn, name)
                if "concurrently updated" not in str(exc) or attempt == 2:
                    raise
            else:
                return name
        raise AssertionError("unreachable")
    finally:
        await lock.close()  # and its lock with it


@pytest.fixture(scope="session")
async def template_database(pg_server_dsn: str) -> AsyncIterator[str]:
    """A database migrated to head once per session, copied for each test."""
    name = await _migrated_template(pg_server_dsn)
    try:
        yield name
    finally:
        await _drop_database(pg_server_dsn, name)


ROTATION = 3
"""Databases each test process keeps in turn: while a test uses one, those the tests before
gave back are made as new in the background (0.1-0.25 s each, which the next test waited for;
three measured a little faster than two on the API tests)."""


class _Databases:
    """The databases of the tests that want one of their own. A database a test gives back is
    made as new again in the background (`_recycling`: the template's schema, rows and
    sequences, or else it is dropped) and handed to a later test; `ROTATION` of them take
    turns, so that one is made as new while a test runs on another. A fresh copy of the
    template is made only when none can be, and never runs on into a test: a CREATE or DROP
    DATABASE holds the cluster's xid horizon (the feed's end) back while it lasts; a database
    made as new holds it for its one short transaction."""

    def __init__(self, server_dsn: str, template: str, pristine: Pristine) -> None:
        self.server_dsn = server_dsn
        self.template = template
        self.pristine = pristine
        self._owned = 0
        """The databases in turn: in a test's hands or being made as new."""
        self._recycling: list[tuple[str, asyncio.Task[bool]]] = []
        self._drops: dict[str, asyncio.Task[None]] = {}

    def _copy(self) -> tuple[str, asyncio.Task[None]]:
        name = f"preferans_test_{uuid.uuid4().hex[:12]}"  # unique: other sessions share it
        return name, asyncio.create_task(create_database(self.server_dsn, name, self.template))

    async def _made_new(self, name: str, restoring: asyncio.Task[bool]) -> bool:
        """Whether ``name`` came back as new; if not it is dropped (and leaves the turns)."""
        try:
            try:
                if await restoring:
                    return True
            except TimeoutError:
                # asyncpg's connect timed out while this process's loop stood still: the
                # restore started in the background, and the sync tests that ran next (mypy's
                # alone takes up to a minute) did not turn the loop past asyncpg's 60 s. Now.
                if await self.pristine.restore(with_database(self.server_dsn, name)):
                    return True
        except (OSError, asyncpg.PostgresError, asyncpg.InterfaceError) as exc:
            # Said aloud (the run's warnings summary): a cleaning that fails every time costs
            # every test a fresh copy, as it did unseen while the TRUNCATE broke on a key.
            warnings.warn(
                f"a test database could not be made as new ({exc!r}): dropped", stacklevel=1
            )
        self._owned -= 1
        self._drops[name] = asyncio.create_task(_drop_database(self.server_dsn, name))
        return False

    async def _recycled(self, *, wait: bool) -> str | None:
        """A database given back and made as new, if one is (``wait``: for the first one
        still being made as new, else only one already done); the others are dropped."""
        while self._recycling:
            done = [i for i, (_, restoring) in enumerate(self._recycling) if restoring.done()]
            if not done and not wait:
                return None
            name, restoring = self._recycling.pop(done[0] if done else 0)
            if await self._made_new(name, restoring):
                return name
        return None

    async def take(self) -> str:
        """A database as the template made it, for one test."""
        if (name := await self._recycled(wait=self._owned >= ROTATION)) is not None:
            return name
        if dropping := [task for task in self._drops.values() if not task.done()]:
            await asyncio.wait(dropping)  # a failed one is dropped again at the session's end
        name, copying = self._copy()
        await copying
        self._owned += 1
        return name

    def give_back(self, name: str) -> None:
        """Make ``name`` as new again in the background, for the next test."""
        dsn = with_database(self.server_dsn, name)
        self._recycling.append((name, asyncio.create_task(self.pristine.restore(dsn))))

    async def close(self) -> None:
        """Drop every database, and drop again any whose background drop did not finish
        (failed, or cancelled with the loop); an error here leaves a database behind on a
        shared server, so it is raised."""
        for name, restoring in self._recycling:
            await asyncio.gather(restoring, return_exceptions=True)
            self._drops[name] = asyncio.create_task(_drop_database(self.server_dsn, name))
        await asyncio.gather(*self._drops.values(), return_exceptions=True)
        for name, task in self._drops.items():
            if task.cancelled() or task.exception() is not None:
                await _drop_database(self.server_dsn, name)


@pytest.fixture(scope="session")
async def fresh_databases(pg_server_dsn: str, template_database: str) -> AsyncIterator[_Databases]:
    pristine = await Pristine.read(with_database(pg_server_dsn, template_database))
    databases = _Databases(pg_server_dsn, template_database, pristine)
    try:
        yield databases
    finally:
        await databases.close()


@pytest.fixture
async def database_dsn(pg_server_dsn: str, fresh_databases: _Databases) -> AsyncIterator[str]:
    """A migrated database of this test's own, as the template made it."""
    name = await fresh_databases.take()
    try:
        yield with_database(pg_server_dsn, name)
    finally:
        fresh_databases.give_back(name)


@pytest.fixture
async def other_database_dsn(pg_server_dsn: str, fresh_databases: _Databases) -> AsyncIterator[str]:
    """A second migrated database as the template made it: where another server would keep
    its games (one of the databases in turn, as ``database_dsn``'s: no DROP DATABASE, which
    checkpoints the whole cluster, after the test)."""
    name = await fresh_databases.take()
    try:
        yield with_database(pg_server_dsn, name)
    finally:
        fresh_databases.give_back(name)


@pytest.fixture
async def empty_database_dsn(pg_server_dsn: str) -> AsyncIterator[str]:
    """A fresh database with no schema at all."""
    name = await _new_database(pg_server_dsn, "preferans_empty")
    try:
        yield with_database(pg_server_dsn, name)
    finally:
        await _drop_database(pg_server_dsn, name)


POOL_CLOSE_S = 20.0
"""How long a test's pool may take to close: asyncpg's ``close`` waits for every connection to
be given back, without end, so a connection a test left out would stop the whole run."""


async def _close(pool: asyncpg.Pool) -> None:
    """Close ``pool``; a connection never given back fails the test instead of hanging it."""
    try:
        await asyncio.wait_for(pool.close(), POOL_CLOSE_S)
    except TimeoutError:
        pool.terminate()
        pytest.fail(f"a connection of the test's pool was not given back in {POOL_CLOSE_S:g} s")


@pytest.fixture
async def pool(database_dsn: str) -> AsyncIterator[asyncpg.Pool]:
    """A service pool (msgspec jsonb codecs) on this test's database, as the schema owner."""
    created = await create_pool(database_dsn, min_size=1, max_size=10)
    try:
        yield created
    finally:
        await _close(created)


@contextlib.asynccontextmanager
async def _role_pool(database_dsn: str, role: str, max_size: int) -> AsyncIterator[asyncpg.Pool]:
    """A service pool on this test's database logged in as ``role``: only what it is granted."""
    created = await create_pool(with_user(database_dsn, role), min_size=1, max_size=max_size)
    try:
        yield created
    finally:
        await _close(created)


@pytest.fixture
async def projections_pool(database_dsn: str) -> AsyncIterator[asyncpg.Pool]:
    """As ``preferans_projections``: the read models' and snapshots' writer (migration 0017)."""
    async with _role_pool(database_dsn, PROJECTIONS_ROLE, 20) as created:
        yield created


@pytest.fixture
async def purger_pool(database_dsn: str) -> AsyncIterator[asyncpg.Pool]:
    """As ``preferans_purger``: expired keys and notifications only."""
    async with _role_pool(database_dsn, PURGER_ROLE, 4) as created:
        yield created


@pytest.fixture
async def app_pool(database_dsn: str) -> AsyncIterator[asyncpg.Pool]:
    """As ``preferans_app``, the request path: only what the service is granted. At most 20
    connections: the test workers share one server's 100 (a race of fifty writers still
    races, twenty at a time)."""
    async with _role_pool(database_dsn, APP_ROLE, 20) as created:
        yield created
