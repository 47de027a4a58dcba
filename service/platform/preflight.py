"""What ``preferans`` checks before it starts, so that a bad configuration is one plain line.

A command that needs the database first resolves it here (`database_dsn`): the URL must be a
PostgreSQL one, the data folder of the embedded server must be writable, and the server must
answer and let us in. Each failure is a `ConfigurationError` whose message names what to fix
and whose ``exit_code`` tells a supervisor which it was (docs/operations.md, "Exit codes")::

    ConfigurationError           base
    ├── BadSetting               a variable's value is malformed (`platform.settings`)     3
    ├── MalformedDatabaseUrl     DATABASE_URL is no PostgreSQL URL                          4
    ├── DatabaseUnreachable      nothing answers there, or the database does not exist     5
    ├── DatabaseLoginRefused     the server answers but refuses the login                   6
    ├── DataDirNotWritable       the embedded server's folder cannot be written             7
    ├── EmbeddedServerFailed     the embedded PostgreSQL did not start                      8
    └── ListenAddressTaken       another process listens on the port, or it cannot be bound  9

``preferans serve`` claims its listen address (`claim_listen_address`) before it starts the
embedded server: granian binds with SO_REUSEPORT, so a second service on a port in use would
otherwise start without a word and share the port's connections with the first.
"""

from __future__ import annotations

import errno
import os
import socket
import tempfile
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

from service.platform.settings import Settings, SettingsError


class ConfigurationError(Exception):
    """The service cannot start as configured; the message says what to fix."""

    exit_code = 1


class BadSetting(ConfigurationError):
    """A setting's value is malformed (PREFERANS_PORT=abc)."""

    exit_code = 3


class MalformedDatabaseUrl(ConfigurationError):
    """DATABASE_URL is no PostgreSQL URL."""

    exit_code = 4


class DatabaseUnreachable(ConfigurationError):
    """Nothing answers at DATABASE_URL, or its database does not exist."""

    exit_code = 5


class DatabaseLoginRefused(ConfigurationError):
    """The database server refuses the login."""

    exit_code = 6


class DataDirNotWritable(ConfigurationError):
    """The data folder (PREFERANS_DATA_DIR) cannot be written."""

    exit_code = 7


class EmbeddedServerFailed(ConfigurationError):
    """The embedded PostgreSQL did not start."""

    exit_code = 8


class ListenAddressTaken(ConfigurationError):
    """The listen address is in use by another process, or cannot be bound."""

    exit_code = 9


def load_settings() -> Settings:
    """`Settings.from_env`, a malformed value being `BadSetting`."""
    try:
        return Settings.from_env()
    except SettingsError as exc:
        raise BadSetting(str(exc)) from None


def redacted(url: str) -> str:
    """``url`` without its password, fit for a message or a log."""
    try:
        parts = urlsplit(url)
        if parts.password is None:
            return url
        user, _, host = parts.netloc.rpartition("@")
        return parts._replace(netloc=f"{user.partition(':')[0]}:***@{host}").geturl()
    except ValueError:
        return "<unparsable URL>"


def check_database_url(url: str) -> None:
    """`MalformedDatabaseUrl` unless ``url`` is a ``postgresql://`` URL naming a server."""
    shown = redacted(url)
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018  (raises ValueError for a port that is no number)
    except ValueError as exc:
        raise MalformedDatabaseUrl(f"DATABASE_URL {shown!r} is malformed: {exc}") from None
    if parts.scheme not in ("postgresql", "postgres"):
        raise MalformedDatabaseUrl(
            f"DATABASE_URL {shown!r} is not a PostgreSQL URL: it should look like "
            "postgresql://user:password@host:5432/database"
        )
    if not parts.hostname and "host" not in parse_qs(parts.query):
        raise MalformedDatabaseUrl(f"DATABASE_URL {shown!r} names no host")


def check_data_dir(path: Path) -> None:
    """`DataDirNotWritable` unless a file can be written in ``path`` (made if missing)."""
    try:
        path.mkdir(parents=True, exist_ok=True)
        fd, probe = tempfile.mkstemp(dir=path, prefix=".write-check-")
        os.close(fd)
        os.unlink(probe)
    except OSError as exc:
        raise DataDirNotWritable(
            f"the data folder {str(path)!r} cannot be written ({exc.strerror or exc}): "
            "set PREFERANS_DATA_DIR to a writable folder, or DATABASE_URL to a server"
        ) from None


def database_dsn(settings: Settings) -> str:
    """The administrator's DSN: DATABASE_URL checked, or the embedded server started; then the
    server is asked for a connection (`probe`)."""
    from service.platform.database import start_embedded

    if settings.database_url:
        check_database_url(settings.database_url)
        dsn = settings.database_url
    else:
        check_data_dir(settings.embedded_pg_dir.parent)
        try:
            dsn = start_embedded(settings.embedded_pg_dir)
        except Exception as exc:  # pgserver raises whatever initdb or pg_ctl gave it
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            raise EmbeddedServerFailed(
                f"the embedded PostgreSQL under {str(settings.embedded_pg_dir)!r} did not start: "
                f"{first}"
            ) from None
    probe(dsn, timeout=settings.connect_timeout)
    return dsn


_LOGIN_REFUSED = ("password authentication failed", "no pg_hba.conf entry", "role ")


def probe(dsn: str, *, timeout: float = 5.0) -> None:
    """Open and close one connection to ``dsn``: `DatabaseUnreachable` or
    `DatabaseLoginRefused` in one line if that cannot be done."""
    import psycopg2

    shown = redacted(dsn)
    try:
        psycopg2.connect(dsn, connect_timeout=max(1, round(timeout))).close()
    except psycopg2.ProgrammingError as exc:  # libpq could not parse it
        raise MalformedDatabaseUrl(f"DATABASE_URL {shown!r} is malformed: {_first(exc)}") from None
    except psycopg2.OperationalError as exc:
        reason = _first(exc)
        if any(marker in reason for marker in _LOGIN_REFUSED):
            raise DatabaseLoginRefused(
                f"the database at {shown} refused the login: {reason}"
            ) from None
        raise DatabaseUnreachable(f"cannot reach the database at {shown}: {reason}") from None


def _first(exc: Exception) -> str:
    """The first line of a libpq message, without its ``connection to server … failed:``."""
    text = " ".join(str(exc).split("\n")[0].split())
    _, sep, rest = text.partition(" failed: ")
    return rest if sep and text.startswith("connection to server") else text


def claim_listen_address(host: str, port: int) -> socket.socket:
    """Check that nothing listens on ``host:port`` and hold it for this service until the
    returned socket is closed; `ListenAddressTaken` in one line otherwise.

    The check binds with SO_REUSEADDR alone: it fails on a listening socket there, granian's
    included, and passes over connections left in TIME_WAIT. The socket returned is bound
    with SO_REUSEPORT alone and never listens: it receives no connection, lets this service's
    own granian (SO_REUSEPORT, the same user) bind beside it, and makes the next service's
    check fail from now on, while this one is still starting its database.
    """
    try:
        family, kind, proto, _, address = socket.getaddrinfo(
            host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
        )[0]
    except (OSError, UnicodeError) as exc:
        raise ListenAddressTaken(f"cannot listen on {host!r}: {exc}") from None
    shown = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
    for claim in (False, True):
        held = socket.socket(family, kind, proto)
        try:
            # The check over TIME_WAIT (SO_REUSEADDR); the claim beside our server only.
            option = socket.SO_REUSEPORT if claim else socket.SO_REUSEADDR
            held.setsockopt(socket.SOL_SOCKET, option, 1)
            held.bind(address)
        except OSError as exc:
            held.close()
            if exc.errno == errno.EADDRINUSE:
                raise ListenAddressTaken(
                    f"{shown} is already in use (another preferans serve?): stop it, or set "
                    "PREFERANS_PORT (--port) to a free port"
                ) from None
            raise ListenAddressTaken(f"cannot listen on {shown}: {exc.strerror or exc}") from None
        if claim:
            return held
        held.close()
    raise AssertionError("unreachable")
