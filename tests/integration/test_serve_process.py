"""``preferans serve`` as a process: SIGTERM and SIGINT stop it and the embedded PostgreSQL it
started (no orphan holds the data folder), and a refused login is one line, exit 6."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import httpx
import psutil
import pytest

pytestmark = pytest.mark.integration


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def processes_using(folder: Path) -> list[str]:
    found = []
    for p in psutil.process_iter(["cmdline"]):
        cmdline = " ".join(p.info["cmdline"] or ())
        if str(folder) in cmdline:
            found.append(f"{p.pid} {cmdline}")
    return found


def wait_for(predicate, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.1)
    return False


def healthy(port: int) -> bool:
    try:
        return httpx.get(f"http://127.0.0.1:{port}/health", timeout=1).status_code == 200
    except httpx.HTTPError:
        return False


@pytest.mark.parametrize(
    ("signum", "when"),
    [(signal.SIGTERM, "serving"), (signal.SIGINT, "serving"), (signal.SIGTERM, "starting")],
)
def test_a_signal_stops_serve_and_its_embedded_postgres(tmp_path, signum, when):
    data = tmp_path / "data"
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
    env.update(PREFERANS_DATA_DIR=str(data), PREFERANS_PORT=str(port))
    process = subprocess.Popen(
        [sys.executable, "-m", "service.cli", "serve"], env=env, cwd=tmp_path,
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )  # fmt: skip
    try:
        if when == "serving":
            if not wait_for(lambda: healthy(port) or process.poll() is not None, 180) or (
                process.poll() is not None
            ):
                process.kill()
                pytest.fail(f"the service did not come up: {process.communicate()[1][-3000:]!r}")
        else:  # the embedded server runs, the API does not yet
            postgres = lambda: any("postgres -D" in p for p in processes_using(data / "pg"))  # noqa: E731
            assert wait_for(postgres, 120), "the embedded server did not start"
        assert processes_using(data / "pg")
        process.send_signal(signum)
        process.wait(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert wait_for(lambda: not processes_using(data), 20), processes_using(data)
    assert process.returncode in (0, 128 + signum), process.stderr.read() if process.stderr else ""


def test_a_refused_login_is_one_line_and_exits_6(tmp_path, pg_server_dsn):
    parts = urlsplit(pg_server_dsn)
    host = parts.netloc.rpartition("@")[2]
    url = urlunsplit(parts._replace(netloc=f"no_such_role_here:pw@{host}"))
    env = {**os.environ, "DATABASE_URL": url}
    result = subprocess.run(
        [sys.executable, "-m", "service.cli", "db", "upgrade"], env=env, cwd=tmp_path,
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert result.returncode == 6, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1
    assert lines[0].startswith("preferans: the database at postgresql://no_such_role_here:***@")
    assert "refused the login" in lines[0]
