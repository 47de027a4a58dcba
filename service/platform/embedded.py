"""The embedded PostgreSQL (the ``pgserver`` package) under the data folder, when no
DATABASE_URL is given: started, shared, stopped by its last user, and an orphan dealt with.

pgserver starts the server and counts its users, but a user killed with SIGKILL stays counted
for good: the server outlives it, the next ``preferans serve`` joins it, and no one ever stops
it. So the users are kept here, in a file of our own beside the cluster (``pg.users.json``):
the postmaster we started and each process using it, every one by pid *and* start time (a pid
alone may have been reused by another process since). `start` reads it under a lock:

- a postmaster runs and a recorded user is alive: join it;
- a postmaster runs, it is the one we recorded (same pid, same start time, this folder), and no
  user is alive: it is an orphan of a killed service; stop it cleanly (a fast shutdown, which
  checkpoints: every commit is kept) and start afresh, so that this service owns it and its
  SIGTERM stops it. Refusing instead would leave the operator to find pgserver's own pg_ctl;
- a postmaster runs that we did not record: refuse (`ForeignServer`), it is not ours to stop.

The last user to leave (at exit: SIGTERM, SIGINT, the end of a command) stops the server.
"""

from __future__ import annotations

import atexit
import contextlib
import fcntl
import logging
import os
import signal
import threading
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgspec
import psutil

log = logging.getLogger(__name__)


class ForeignServer(Exception):
    """A PostgreSQL that this service did not start runs on the data folder."""


class _Process(msgspec.Struct, frozen=True):
    """A process, told apart from a later one with the same pid by its start time."""

    pid: int
    started: float

    @classmethod
    def of(cls, pid: int) -> _Process | None:
        try:
            return cls(pid, psutil.Process(pid).create_time())
        except (psutil.NoSuchProcess, psutil.AccessDenied):
            return None

    def alive(self) -> bool:
        return _Process.of(self.pid) == self


class _Users(msgspec.Struct, kw_only=True):
    """The file of our own: the postmaster we started, and the processes that use it."""

    postmaster: _Process | None = None
    users: list[_Process] = msgspec.field(default_factory=list)


def users_file(pgdata: Path) -> Path:
    """Where the users of the cluster in ``pgdata`` are kept."""
    return pgdata.with_name(pgdata.name + ".users.json")


_joined: dict[Path, str] = {}
"""The clusters this process uses, and their admin DSN (a second `start` is a no-op)."""


def start(pgdata: Path) -> str:
    """Start (or join) the embedded server in ``pgdata``; the superuser's DSN to it.

    Blocking: the first start runs initdb (seconds). Raises `ForeignServer`, or whatever
    pgserver's initdb and pg_ctl raised.
    """
    pgdata = pgdata.expanduser().resolve()
    if pgdata in _joined:
        return _joined[pgdata]
    pgdata.parent.mkdir(parents=True, exist_ok=True)
    with _signals_deferred(), _locked(pgdata):
        record = _read(pgdata)
        users = [u for u in record.users if u.alive()]
        running = running_postmaster(pgdata)
        if running is not None and not users:
            if running != record.postmaster:
                raise ForeignServer(
                    f"a PostgreSQL that preferans did not start (pid {running.pid}) runs on "
                    f"{str(pgdata)!r}: stop it, or set DATABASE_URL to use it as a server"
                )
            log.warning(
                "the embedded PostgreSQL (pid %d) outlived the service that used it (killed?):"
                " stopping it and starting afresh", running.pid,
            )  # fmt: skip
            _stop(pgdata, running)
            running = None
        server = _pgserver(pgdata)
        postmaster = _Process.of(server.get_pid())
        if postmaster is None:
            raise RuntimeError("the embedded PostgreSQL stopped as it started")
        me = _Process.of(os.getpid())
        assert me is not None
        _write(pgdata, _Users(postmaster=postmaster, users=[*users, me]))
        dsn: str = server.get_uri()
        _joined[pgdata] = dsn
        atexit.register(_leave, pgdata, me)
    return dsn


def running_postmaster(pgdata: Path) -> _Process | None:
    """The postmaster serving ``pgdata`` (its ``postmaster.pid``), if one is alive."""
    try:
        lines = (pgdata / "postmaster.pid").read_text().splitlines()
        pid, folder = int(lines[0]), Path(lines[1])
    except (OSError, ValueError, IndexError):
        return None
    process = _Process.of(pid)
    if process is None or folder.resolve() != pgdata:
        return None
    with contextlib.suppress(psutil.Error):
        if psutil.Process(pid).name() in ("postgres", "postmaster"):
            return process
    return None


def _leave(pgdata: Path, me: _Process) -> None:
    """At exit: this process no longer uses the server; the last one stops it."""
    with _locked(pgdata):
        record = _read(pgdata)
        users = [u for u in record.users if u != me and u.alive()]
        running = running_postmaster(pgdata)
        if users or running is None or running != record.postmaster:
            _write(pgdata, _Users(postmaster=record.postmaster, users=users))
            return
        _stop(pgdata, running)
        _write(pgdata, _Users())
    _joined.pop(pgdata, None)


def _stop(pgdata: Path, postmaster: _Process) -> None:
    """A fast shutdown (sessions ended, a checkpoint written), else SIGTERM then SIGKILL."""
    import subprocess

    pg_ctl = _pgserver_module("pgserver._commands").pg_ctl
    try:
        pg_ctl(["-w", "-m", "fast", "stop"], pgdata=pgdata, user=_system_user(), timeout=60)
        return
    except (subprocess.CalledProcessError, subprocess.TimeoutExpired, OSError):
        log.warning("pg_ctl could not stop the embedded PostgreSQL (pid %d)", postmaster.pid)
    with contextlib.suppress(psutil.Error):
        process = psutil.Process(postmaster.pid)
        process.terminate()
        try:
            process.wait(30)
        except psutil.TimeoutExpired:
            process.kill()


def _system_user() -> str | None:
    """pgserver runs the server as ``pgserver`` when we are root (PostgreSQL refuses root)."""
    return "pgserver" if os.geteuid() == 0 else None


def _pgserver(pgdata: Path) -> Any:
    """pgserver's handle on the cluster, started if it is not running; it stops nothing itself
    (``cleanup_mode=None``): its count of users is the one a SIGKILL leaves wrong."""
    get_server = _pgserver_module("pgserver.postgres_server").get_server
    return get_server(pgdata, cleanup_mode=None)


def _pgserver_module(name: str) -> Any:
    """A pgserver module, imported without platformdirs' warning: where XDG_RUNTIME_DIR is
    unset (a service, a container) it falls back to /tmp/runtime-<uid>, which is all pgserver
    needs (its lock file), and says so on every start."""
    import importlib

    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*XDG_RUNTIME_DIR")
        return importlib.import_module(name)


@contextlib.contextmanager
def _locked(pgdata: Path) -> Iterator[None]:
    """The users file's lock, held across processes (flock on a file beside it)."""
    lock = users_file(pgdata).with_suffix(".lock")
    with lock.open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _read(pgdata: Path) -> _Users:
    try:
        return msgspec.json.decode(users_file(pgdata).read_bytes(), type=_Users)
    except (OSError, msgspec.DecodeError):
        return _Users()


def _write(pgdata: Path, record: _Users) -> None:
    path = users_file(pgdata)
    draft = path.with_suffix(".tmp")
    draft.write_bytes(msgspec.json.encode(record))
    draft.replace(path)


@contextlib.contextmanager
def _signals_deferred() -> Iterator[None]:
    """SIGTERM and SIGINT held until the block ends, then acted on.

    This process is recorded as the server's user only once the server is up; a signal that
    ended the process before that would leave a server nobody stops. Deferred, it ends the
    process once it is a user, and the exit handler stops the server. (Handlers, not a signal
    mask: a mask would be inherited by the server's own processes.)
    """
    if threading.current_thread() is not threading.main_thread():
        yield  # only the main thread may set handlers; it gets the signals anyway
        return
    caught: list[int] = []
    names = (signal.SIGTERM, signal.SIGINT)
    previous = {n: signal.signal(n, lambda signum, frame: caught.append(signum)) for n in names}
    try:
        yield
    finally:
        for n, handler in previous.items():
            signal.signal(n, handler if handler is not None else signal.SIG_DFL)
    if caught:
        if caught[0] == signal.SIGINT:
            raise KeyboardInterrupt
        raise SystemExit(128 + caught[0])
