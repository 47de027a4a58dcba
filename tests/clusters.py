"""Throwaway PostgreSQL clusters and service processes for the tests that restart things.

`Cluster` is a PostgreSQL 15 cluster of the test's own (Debian's server binaries), never the
shared server: made with initdb in a temporary folder, listening on a unix socket there and a
free TCP port, started, crashed (``immediate``), restarted, replicated (pg_basebackup), removed.
`ServiceProcess` is ``preferans serve`` in a subprocess: started, killed with SIGKILL, started
again, its log kept for failures.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

BIN = Path(os.environ.get("PREFERANS_PG_BIN", "/usr/lib/postgresql/15/bin"))
"""Where the PostgreSQL 15 server binaries are (Debian's postgresql-15 package)."""


def have_server_binaries() -> bool:
    return (BIN / "initdb").exists() and (BIN / "pg_ctl").exists()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _as_postgres(args: list[str]) -> list[str]:
    """Run as the ``postgres`` user when we are root: the server refuses to run as root."""
    if os.geteuid() == 0:
        return ["runuser", "-u", "postgres", "--", *args]
    return args


class Cluster:
    """A PostgreSQL cluster of the test's own (see the module docstring)."""

    def __init__(self, root: Path | None = None, *, port: int | None = None) -> None:
        self.root = root or Path(tempfile.mkdtemp(prefix="preferans-cluster-"))
        self.data = self.root / "data"
        self.port = port or free_port()
        self.log = self.root / "server.log"
        os.chmod(self.root, 0o777)  # the server's user writes its socket and log here

    @property
    def dsn(self) -> str:
        """The superuser's DSN over TCP (trust authentication inside the cluster)."""
        return f"postgresql://postgres@127.0.0.1:{self.port}/postgres"

    def dsn_for(self, database: str, user: str = "postgres") -> str:
        return f"postgresql://{user}@127.0.0.1:{self.port}/{database}"

    def _run(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            _as_postgres([str(a) for a in args]), capture_output=True, text=True, check=check,
            timeout=120,
        )  # fmt: skip

    def init(self, *settings: str) -> Cluster:
        self._run(
            BIN / "initdb", "-D", str(self.data), "-U", "postgres", "--auth=trust",
            "--no-instructions", "-E", "UTF8",
        )  # fmt: skip
        conf = self.data / "postgresql.conf"
        lines = [
            f"port = {self.port}",
            "listen_addresses = '127.0.0.1'",
            f"unix_socket_directories = '{self.root}'",
            "fsync = on",  # restarts must keep what was acknowledged
            "synchronous_commit = on",
            "max_connections = 100",
            *settings,
        ]
        with conf.open("a") as f:
            f.write("\n".join(lines) + "\n")
        return self

    def start(self) -> Cluster:
        self._run(BIN / "pg_ctl", "-D", str(self.data), "-l", str(self.log), "-w", "start")
        return self

    def stop(self, mode: str = "fast") -> None:
        self._run(BIN / "pg_ctl", "-D", str(self.data), "-m", mode, "-w", "stop", check=False)

    def restart(self, mode: str = "immediate") -> None:
        """``immediate`` is a crash: no checkpoint, recovery from the WAL at start."""
        self.stop(mode)
        self.start()

    def psql(self, sql: str, database: str = "postgres") -> str:
        done = self._run(
            "psql", "-h", str(self.root), "-p", str(self.port), "-U", "postgres",
            "-d", database, "-Atqc", sql,
        )  # fmt: skip
        return done.stdout.strip()

    def replica(self) -> Cluster:
        """A streaming standby of this cluster (pg_basebackup -R), started: read-only, and
        replaying what the primary writes."""
        standby = Cluster()
        self._run(
            BIN / "pg_basebackup", "-D", str(standby.data), "-R", "-X", "stream",
            "-h", "127.0.0.1", "-p", str(self.port), "-U", "postgres",
            "--checkpoint=fast",  # a spread one paces itself over minutes of checkpoint_timeout
        )  # fmt: skip
        with (standby.data / "postgresql.conf").open("a") as f:
            f.write(f"port = {standby.port}\nunix_socket_directories = '{standby.root}'\n"
                    "hot_standby = on\n")  # fmt: skip
        return standby.start()

    def remove(self) -> None:
        self.stop("immediate")
        shutil.rmtree(self.root, ignore_errors=True)


class ServiceProcess:
    """``preferans serve`` in a subprocess (see the module docstring)."""

    def __init__(
        self, env: dict[str, str], log: Path, port: int | None = None, args: tuple[str, ...] = ()
    ) -> None:
        self.args = args
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.env = {**os.environ, **env, "PREFERANS_PORT": str(self.port)}
        self.log = log
        self.process: subprocess.Popen[bytes] | None = None

    def start(self, timeout: float = 120) -> None:
        # 7 s on an idle 2-core machine; beside a full suite's other processes, 30 s and more.
        with self.log.open("ab") as log:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "service.cli", "serve", *self.args], env=self.env,
                stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                start_new_session=True,
            )  # fmt: skip
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                break
            try:
                if httpx.get(f"{self.url}/health", timeout=1).status_code == 200:
                    return
            except httpx.TransportError:
                pass
            time.sleep(0.1)
        raise AssertionError(f"the service did not start:\n{self.log.read_text()[-4000:]}")

    def kill(self) -> None:
        """SIGKILL, as a crash would: no shutdown, no flush."""
        if self.process is not None and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=10)
            self._port_released()

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.kill()
            self._port_released()

    def _port_released(self, timeout: float = 30) -> None:
        """Wait until no process listens on the port any more: ``serve`` gone, its granian
        worker may still hold the socket for a moment (the whole group was signalled, each
        process dies on its own), and a ``serve`` started on the port then refuses it as taken
        (seen once beside the whole suite)."""
        deadline = time.monotonic() + timeout
        while True:
            with socket.socket() as probe:  # as `preflight.claim_listen_address` checks
                probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
                try:
                    probe.bind(("127.0.0.1", self.port))
                    return
                except OSError:
                    if time.monotonic() > deadline:
                        raise
            time.sleep(0.05)
