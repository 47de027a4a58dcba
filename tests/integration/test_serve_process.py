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


def test_metrics_of_every_process_of_serve_are_added_up(tmp_path, database_dsn):
    """Two API workers and the bot worker: whichever worker answers /metrics counts every
    request, and the bots' thinking, which happens in the bot worker alone, is there too."""
    from prometheus_client.parser import text_string_to_metric_families

    port = free_port()
    env = {
        **os.environ, "DATABASE_URL": database_dsn, "PREFERANS_PORT": str(port),
        "PREFERANS_WORKERS": "2", "PREFERANS_RATE_LIMITS": "false", "PREFERANS_BOT_PACE": "0",
    }  # fmt: skip
    env.pop("PROMETHEUS_MULTIPROC_DIR", None)
    process = subprocess.Popen(
        [sys.executable, "-m", "service.cli", "serve"], env=env, cwd=tmp_path,
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )  # fmt: skip

    def samples() -> dict[tuple[str, frozenset[tuple[str, str]]], float]:
        text = httpx.get(f"{base}/metrics", timeout=5).text
        return {(s.name, frozenset(s.labels.items())): s.value
                for f in text_string_to_metric_families(text) for s in f.samples}  # fmt: skip

    base = f"http://127.0.0.1:{port}"
    try:
        if not wait_for(lambda: healthy(port) or process.poll() is not None, 180) or (
            process.poll() is not None
        ):
            process.kill()
            pytest.fail(f"the service did not come up: {process.communicate()[1][-3000:]!r}")
        for _ in range(12):  # a connection each, so both workers answer some
            assert httpx.get(f"{base}/v1/games", timeout=5).status_code == 200
        key = ("preferans_http_requests_total", frozenset({
            ("app_name", "preferans"), ("method", "GET"), ("path", "/v1/games"),
            ("status_code", "200")}))  # fmt: skip
        assert all(samples()[key] == 12 for _ in range(4))

        token = httpx.post(f"{base}/v1/players", json={"name": "host"}).json()["token"]
        auth = {"Authorization": f"Bearer {token}"}
        game_id = httpx.post(f"{base}/v1/games", json={}, headers=auth).json()["id"]
        for _ in range(3):
            seated = httpx.post(f"{base}/v1/games/{game_id}/bots", json={"level": "random"},
                                headers=auth)  # fmt: skip
            assert seated.status_code == 200, seated.text
        thought = ("preferans_bot_think_seconds_count", frozenset({("level", "random")}))
        assert wait_for(lambda: samples().get(thought, 0) > 0, 60)
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
