"""Where the database is, how its schema is brought up to date, and how we connect to it.

- `resolve_dsn` uses DATABASE_URL, or starts an embedded PostgreSQL (`service.platform.embedded`)
  under the data folder, so ``preferans serve`` works on a fresh machine with nothing installed.
  That is the administrator's connection: it runs the migrations.
- `app_dsn` is the request path's: the same server as the login role ``preferans_app``
  (PREFERANS_APP_DATABASE_URL overrides it), which may only read the log and append through the
  owner's functions (migration ``0005_least_privilege``). `role_dsn` is any process kind's:
  the bot worker, the projections (with the analyst and the snapshots' writer) and the purger
  each log in as a role of their own (``0017_roles_per_process``, docs/operations.md).
- `upgrade` runs the alembic migrations of the ``migrations`` package under a session-level
  advisory lock: idempotent, and safe when several processes start at once.
- `create_pool` builds the asyncpg pool the service uses, with jsonb decoded by msgspec and
  every wait bounded: connecting, waiting for a pooled connection, a statement, a lock.

The event store's own SQL lives in `service.eventlog.store`; the few statements here only manage
the database itself (create it, lock it for a migration).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar
from urllib.parse import quote, urlsplit, urlunsplit

import asyncpg
import msgspec

import migrations
from migrations import APP_ROLE, SERVICE_ROLES
from service.platform.settings import Settings

if TYPE_CHECKING:
    from alembic.config import Config  # imported lazily: only migrations need alembic

log = logging.getLogger(__name__)

T = TypeVar("T")

EMBEDDED_DATABASE = "preferans"
"""The database created inside the embedded server (its default ``postgres`` stays untouched)."""

_MIGRATION_LOCK = 0x5052_4546_4D49_4752  # "PREFMIGR": one migrator per database at a time

_JSONB_VERSION = b"\x01"  # jsonb's binary wire format is a version byte, then the JSON text
_json_encoder = msgspec.json.Encoder()
_json_decoder = msgspec.json.Decoder()


def resolve_dsn(settings: Settings) -> str:
    """DATABASE_URL when set, else the DSN of the embedded server (started on first use).

    Blocking: starting the embedded server takes a few seconds the first time (initdb); from
    async code, run it in a thread (``await asyncio.to_thread(resolve_dsn, settings)``).
    """
    if settings.database_url:
        return settings.database_url
    return start_embedded(settings.embedded_pg_dir)


def start_embedded(pgdata: Path) -> str:
    """Start (or join) the embedded PostgreSQL in ``pgdata`` and return a DSN to its database.

    The server stops when the last process using it exits (`service.platform.embedded`).
    """
    from service.platform import embedded

    admin_dsn = embedded.start(pgdata)
    _create_database(admin_dsn, EMBEDDED_DATABASE)
    return with_database(admin_dsn, EMBEDDED_DATABASE)


def _create_database(admin_dsn: str, name: str) -> None:
    # Synchronous (psycopg2), so that resolve_dsn works with or without a running event loop.
    import psycopg2
    from psycopg2 import errors

    conn = psycopg2.connect(admin_dsn)
    try:
        conn.autocommit = True  # CREATE DATABASE cannot run in a transaction
        with conn.cursor() as cursor:
            cursor.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,))
            if cursor.fetchone() is None:
                # Another process may create it between our check and our CREATE.
                with contextlib.suppress(errors.DuplicateDatabase):
                    cursor.execute(f'CREATE DATABASE "{name}"')
    finally:
        conn.close()


def app_dsn(admin_dsn: str, settings: Settings) -> str:
    """The request path's DSN: PREFERANS_APP_DATABASE_URL, else ``admin_dsn`` as ``preferans_app``
    (with PREFERANS_APP_PASSWORD when the server asks for one)."""
    if settings.app_database_url:
        return settings.app_database_url
    return with_user(admin_dsn, APP_ROLE, settings.app_password)


def role_dsn(admin_dsn: str, settings: Settings, role: str) -> str:
    """The DSN of the login role ``role`` (one of `migrations.SERVICE_ROLES`): `app_dsn` for
    the API's; the others on the same server as the API's (PREFERANS_APP_DATABASE_URL, else
    ``admin_dsn``), with PREFERANS_APP_PASSWORD, which the migrations give every service role."""
    if role == APP_ROLE:
        return app_dsn(admin_dsn, settings)
    if role not in SERVICE_ROLES:
        raise ValueError(f"{role!r} is no role of the service")
    base = settings.app_database_url or admin_dsn
    password = settings.app_password
    if password is None and settings.app_database_url:
        password = urlsplit(settings.app_database_url).password
    return with_user(base, role, password)


def with_user(dsn: str, user: str, password: str | None = None) -> str:
    """The same server and database as ``dsn``, as another user."""
    parts = urlsplit(dsn)
    host = parts.netloc.rpartition("@")[2]
    credentials = quote(user, safe="") + (":" + quote(password, safe="") if password else "")
    return urlunsplit(parts._replace(netloc=f"{credentials}@{host}"))


def with_database(dsn: str, database: str) -> str:
    """The same server and credentials as ``dsn``, on another database.

    Works for host DSNs and for socket DSNs (``postgresql://u:@/db?host=/run/pg``).
    """
    parts = urlsplit(dsn)
    return urlunsplit(parts._replace(path="/" + database))


# --- migrations -------------------------------------------------------------------------------


def alembic_config() -> Config:
    """An alembic Config pointing at the installed ``migrations`` package (no alembic.ini)."""
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(Path(migrations.__file__).parent))
    return config


def head_revision() -> str:
    """The newest migration revision shipped with this code."""
    from alembic.script import ScriptDirectory

    head = ScriptDirectory.from_config(alembic_config()).get_current_head()
    assert head is not None, "the migrations package has no revisions"
    return head


def upgrade(dsn: str, revision: str = "head", *, app_password: str | None = None) -> None:
    """Migrate the database at ``dsn`` to ``revision``; a no-op when it is already there.
    With ``app_password``, every login role of the service logs in with it from then on.

    A session-level advisory lock makes concurrent callers queue: the second one finds the schema
    current and does nothing. The lock goes with the connection, so a failed migration (rolled
    back as one transaction) releases it too.
    """
    import sqlalchemy as sa
    from alembic import command
    from sqlalchemy.pool import NullPool

    url = sa.engine.make_url(dsn).set(drivername="postgresql+psycopg2")
    engine = sa.create_engine(url, poolclass=NullPool)
    try:
        with engine.connect() as conn:
            conn.execute(sa.text("SELECT pg_advisory_lock(:key)"), {"key": _MIGRATION_LOCK})
            conn.commit()  # end the implicit transaction; the session lock stays held
            config = alembic_config()
            config.attributes["connection"] = conn
            if not _at(conn, config, revision):  # a migration queues on the roles (env.py)
                command.upgrade(config, revision)
            if app_password is not None:
                quoted = conn.exec_driver_sql(
                    "SELECT quote_literal(%(p)s)", {"p": app_password}
                ).scalar_one()
                for role in SERVICE_ROLES:  # those the migrations made so far
                    if conn.exec_driver_sql(
                        "SELECT 1 FROM pg_roles WHERE rolname = %(r)s", {"r": role}
                    ).scalar():
                        conn.exec_driver_sql(f"ALTER ROLE {role} PASSWORD {quoted}")
            conn.commit()
    finally:
        engine.dispose()


def _at(conn: Any, config: Any, revision: str) -> bool:
    """Whether the database is at ``revision`` already ("head": the newest)."""
    from alembic.runtime.migration import MigrationContext
    from alembic.script import ScriptDirectory

    current = MigrationContext.configure(conn).get_current_revision()
    wanted = (
        ScriptDirectory.from_config(config).get_current_head() if revision == "head" else revision
    )
    conn.commit()  # the read's implicit transaction; the session's advisory lock stays held
    return current is not None and current == wanted


async def upgrade_async(
    dsn: str, revision: str = "head", *, app_password: str | None = None
) -> None:
    """`upgrade` from async code (alembic is synchronous, so it runs in a worker thread)."""
    await asyncio.to_thread(upgrade, dsn, revision, app_password=app_password)


# --- connections ------------------------------------------------------------------------------


def _encode_jsonb(value: Any) -> bytes:
    # Pass msgspec.Raw to send JSON already encoded (event payloads) without a second encode.
    return _JSONB_VERSION + _json_encoder.encode(value)


def _decode_jsonb(data: bytes) -> Any:
    return _json_decoder.decode(data[1:])


async def init_connection(conn: asyncpg.Connection) -> None:
    """Per-connection setup: json and jsonb go through msgspec."""
    await conn.set_type_codec(
        "jsonb", schema="pg_catalog", encoder=_encode_jsonb, decoder=_decode_jsonb, format="binary"
    )
    await conn.set_type_codec(
        "json",
        schema="pg_catalog",
        encoder=_json_encoder.encode,
        decoder=_json_decoder.decode,
        format="text",
    )


def server_settings(
    *,
    idle_tx_timeout: str = "30s",
    statement_timeout: str = "0",
    lock_timeout: str = "0",
) -> dict[str, str]:
    """Session settings every service connection starts with."""
    return {
        "application_name": "preferans",
        # An idle writer pins the global feed's xid horizon (docs/event-store.md §9.3).
        "idle_in_transaction_session_timeout": idle_tx_timeout,
        # A frozen server or a held row lock fails a request instead of hanging it.
        "statement_timeout": statement_timeout,
        "lock_timeout": lock_timeout,
    }


async def _keep_session(conn: asyncpg.Connection) -> None:
    """Reset nothing more on release (asyncpg itself still rolls back an open transaction)."""


class DatabaseUnavailable(Exception):
    """No connection could be had: the server refused, is away, or every connection stayed
    busy past the acquire timeout. Nothing was sent, so nothing changed."""


BROKEN_CONNECTION: tuple[type[BaseException], ...] = (
    asyncpg.InternalClientError,  # "cannot switch to state 11; another operation is in progress"
    asyncpg.InterfaceError,  # the connection is closed, or was released under us
    asyncpg.PostgresConnectionError,  # ConnectionDoesNotExistError: the backend is gone
    OSError,  # reset, refused
    TimeoutError,  # the server did not answer: the protocol may still wait for it
)
"""Failures after which a connection cannot be trusted with another statement: it is
discarded (terminated), never handed to the next request."""


def nothing_sent(exc: BaseException) -> bool:
    """Whether ``exc`` was raised before its statement left the client: asyncpg refuses to
    start a statement on a connection whose protocol is not idle (a connection a restart or a
    terminated backend left broken). Running it again elsewhere is then safe, a write too.
    (asyncpg names the state it could not switch to; only a statement's start switches to a
    numbered one: ``cannot switch to "idle"`` comes at a statement's end, after sending.)"""
    return type(exc) is asyncpg.InternalClientError and (
        str(exc).startswith("cannot switch to state ") or str(exc) == "not connected"
    )


class BoundedPool(asyncpg.Pool):  # type: ignore[misc]
    """An asyncpg pool whose every wait for a free connection is bounded (``acquire_timeout``
    seconds), including the waits of ``pool.fetch`` and friends, and whose failures to give a
    connection are `DatabaseUnavailable` (whatever asyncpg or the socket raised).

    A connection whose block ended in a `BROKEN_CONNECTION` failure (or was cancelled) is
    terminated rather than pooled again. ``fetch``, ``fetchrow``, ``fetchval`` and ``execute``
    run once more on another connection when the first could not even send (`nothing_sent`).
    ``waiting`` counts the acquires waiting for a free connection (/health's "overloaded").
    """

    def __init__(self, *args: Any, acquire_timeout: float | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.acquire_timeout = acquire_timeout
        self.waiting = 0
        self.discarded = 0
        """Connections terminated because a failure left them untrustworthy."""

    def acquire(self, *, timeout: float | None = None) -> Any:
        wait = timeout if timeout is not None else self.acquire_timeout
        return _Acquire(self, super().acquire(timeout=wait))

    async def fetch(self, query: str, *args: Any, **kwargs: Any) -> Any:
        return await self._once_more(super().fetch, query, *args, **kwargs)

    async def fetchrow(self, query: str, *args: Any, **kwargs: Any) -> Any:
        return await self._once_more(super().fetchrow, query, *args, **kwargs)

    async def fetchval(self, query: str, *args: Any, **kwargs: Any) -> Any:
        return await self._once_more(super().fetchval, query, *args, **kwargs)

    async def execute(self, query: str, *args: Any, **kwargs: Any) -> Any:
        return await self._once_more(super().execute, query, *args, **kwargs)

    async def _once_more(self, run: Any, *args: Any, **kwargs: Any) -> Any:
        try:
            return await run(*args, **kwargs)
        except asyncpg.InternalClientError as exc:
            if not nothing_sent(exc):
                raise
            log.warning("a pooled connection was broken (%s): discarded, run again", exc)
        return await run(*args, **kwargs)

    def overloaded(self) -> bool:
        """Every connection the pool may open is taken, and acquires wait for one."""
        return self.waiting > 0 and self.get_size() - self.get_idle_size() >= self.get_max_size()

    def load(self) -> tuple[int, int]:
        """(connections in use, acquires waiting for one)."""
        return self.get_size() - self.get_idle_size(), self.waiting


class _Acquire:
    """asyncpg's acquire context, its failures to connect turned into `DatabaseUnavailable`,
    and a connection left broken discarded on the way out."""

    def __init__(self, pool: BoundedPool, inner: Any) -> None:
        self.pool = pool
        self.inner = inner
        self.conn: Any = None

    async def __aenter__(self) -> Any:
        self.pool.waiting += 1
        try:
            self.conn = await self.inner.__aenter__()
            return self.conn
        except (OSError, TimeoutError, asyncpg.PostgresError, asyncpg.InterfaceError) as exc:
            raise DatabaseUnavailable(f"no database connection: {type(exc).__name__}") from exc
        finally:
            self.pool.waiting -= 1

    async def __aexit__(self, kind: Any, exc: Any, tb: Any) -> Any:
        if exc is not None and self.conn is not None and _untrustworthy(exc):
            # Terminated, the pool replaces it; released as it is, the next request would
            # meet "another operation is in progress" on it.
            self.pool.discarded += 1
            self.conn.terminate()
            if _server_side(exc):
                # A restart or a killed backend: its resting siblings are likely broken too.
                # Expired, each is replaced as it is next acquired (and a retry gets a new one).
                await self.pool.expire_connections()
        return await self.inner.__aexit__(kind, exc, tb)

    def __await__(self) -> Any:
        return self.__aenter__().__await__()


async def on_a_connection(pool: asyncpg.Pool, work: Callable[[Any], Awaitable[T]]) -> T:
    """``work(conn)`` on a pooled connection, and once more on another if its first statement
    could not be sent (`nothing_sent`: the connection was broken before ``work`` began, so
    nothing of it ran). Any other failure is raised, the connection discarded if broken."""
    for attempt in range(2):
        ran = True
        try:
            async with pool.acquire() as conn:  # raised through it: the connection discarded
                sent = conn._protocol.queries_count  # asyncpg's own count, as its pool reads it
                try:
                    return await work(conn)
                except asyncpg.InternalClientError:
                    ran = conn._protocol.queries_count != sent
                    raise
        except asyncpg.InternalClientError as exc:
            if attempt or ran or not nothing_sent(exc):
                raise
            log.warning("a pooled connection was broken (%s): discarded, run again", exc)
    raise AssertionError("unreachable")


def _server_side(exc: BaseException) -> bool:
    """A failure that says the server went away or left the connection broken, rather than
    this request's own cancellation or wait."""
    seen: BaseException | None = exc
    for _ in range(8):
        if seen is None:
            return False
        if nothing_sent(seen) or isinstance(seen, asyncpg.PostgresConnectionError):
            return True
        seen = seen.__cause__ or seen.__context__
    return False


def _untrustworthy(exc: BaseException) -> bool:
    """A cancellation (the statement may still be running), or a `BROKEN_CONNECTION` failure,
    raised or behind the error it was translated into (`CommitUnknown` ...)."""
    seen: BaseException | None = exc
    for _ in range(8):  # a cause's chain is short; never loop on a cycle
        if seen is None:
            return False
        if isinstance(seen, BROKEN_CONNECTION) or not isinstance(seen, Exception):
            return True
        seen = seen.__cause__ or seen.__context__
    return False


class HealthProbe:
    """/health's own connection to the database, outside the pool: a burst of requests that
    takes every pooled connection cannot make the probe wait, so it tells a database that is
    down from a pool that is exhausted (`load`). Opened on first use; any failure (a timeout,
    a restart, a terminated backend) drops it, and the next probe opens a new one."""

    def __init__(self, dsn: str, pool: asyncpg.Pool, *, connect_timeout: float = 5.0) -> None:
        self.dsn = dsn
        self.pool = pool
        self.connect_timeout = connect_timeout
        self._conn: asyncpg.Connection | None = None
        self._turn = asyncio.Lock()  # one probe at a time on the one connection

    async def schema_revision(self) -> str | None:
        """The database's migration revision, read on the reserved connection (bound the wait
        with ``asyncio.timeout``: a cancelled probe drops its connection)."""
        async with self._turn:
            try:
                if self._conn is None or self._conn.is_closed():
                    self._conn = await asyncpg.connect(
                        self.dsn, timeout=self.connect_timeout,
                        server_settings={"application_name": "preferans-health"},
                    )  # fmt: skip
                revision: str | None = await self._conn.fetchval(_SCHEMA_REVISION)
                return revision
            except BaseException:
                self._drop()
                raise

    def load(self) -> tuple[int, int]:
        """The pool's (connections in use, acquires waiting for one)."""
        if isinstance(self.pool, BoundedPool):
            return self.pool.load()
        return self.pool.get_size() - self.pool.get_idle_size(), 0

    def overloaded(self) -> bool:
        """Whether the pool is exhausted with requests waiting (`BoundedPool.overloaded`)."""
        return isinstance(self.pool, BoundedPool) and self.pool.overloaded()

    def _drop(self) -> None:
        if self._conn is not None:
            self._conn.terminate()
            self._conn = None

    async def close(self) -> None:
        self._drop()


async def create_pool(
    dsn: str,
    *,
    min_size: int = 2,
    max_size: int = 20,
    idle_tx_timeout: str = "30s",
    statement_timeout: str = "0",
    lock_timeout: str = "0",
    connect_timeout: float = 10.0,
    acquire_timeout: float | None = None,
    full_reset: bool = False,
) -> asyncpg.Pool:
    """An asyncpg pool with msgspec jsonb codecs and bounded waits (0 / None: unbounded).

    By default a released connection skips asyncpg's ``RESET ALL; UNLISTEN *; CLOSE ALL;
    pg_advisory_unlock_all()``: that is a second round trip for every pooled query, and it
    roughly doubled the client's CPU per append. So leave no session state on a pooled
    connection: ``SET LOCAL`` rather than ``SET``, listeners through `EventStore.listen`,
    session advisory locks unlocked before release. ``full_reset=True`` restores asyncpg's.
    """
    pool = BoundedPool(
        dsn,
        min_size=min_size,
        max_size=max_size,
        max_queries=50_000,
        max_inactive_connection_lifetime=300.0,
        init=init_connection,
        reset=None if full_reset else _keep_session,
        loop=None,
        connection_class=asyncpg.Connection,
        record_class=asyncpg.Record,
        acquire_timeout=acquire_timeout,
        timeout=connect_timeout,
        server_settings=server_settings(
            idle_tx_timeout=idle_tx_timeout,
            statement_timeout=statement_timeout,
            lock_timeout=lock_timeout,
        ),
    )
    await pool
    return pool


_SCHEMA_REVISION = "SELECT version_num FROM public.alembic_version"


async def schema_revision(pool: asyncpg.Pool) -> str | None:
    """The database's migration revision (for readiness)."""
    revision: str | None = await pool.fetchval(_SCHEMA_REVISION, timeout=5)
    return revision


async def pool_from_settings(
    settings: Settings, dsn: str, *, max_size: int | None = None
) -> asyncpg.Pool:
    """`create_pool` with the sizes and timeouts of ``settings`` (at most ``max_size``
    connections if given: a background worker's own pool)."""
    largest = settings.pool_max_size if max_size is None else max_size
    return await create_pool(
        dsn,
        min_size=min(settings.pool_min_size, largest),
        max_size=largest,
        idle_tx_timeout=settings.idle_tx_timeout,
        statement_timeout=settings.statement_timeout,
        lock_timeout=settings.lock_timeout,
        connect_timeout=settings.connect_timeout,
        acquire_timeout=settings.acquire_timeout,
    )
