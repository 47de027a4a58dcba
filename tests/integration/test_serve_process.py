"""``preferans serve`` as a process: SIGTERM and SIGINT stop it and the embedded PostgreSQL it
started (no orphan holds the data folder), and a refused login is one line, exit 6."""

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


@pytest.fixture
def data_folder():
    """A data folder for an embedded server, outside pytest's basetemp: pgserver runs postgres
    as another user, opens the folders above for it, and another xdist worker creating its own
    basetemp resets /tmp/pytest-of-root to 0700 under its feet (initdb: Permission denied)."""
    scratch = Path(tempfile.mkdtemp(prefix="preferans-serve-"))
    yield scratch / "data"
    shutil.rmtree(scratch, ignore_errors=True)


@pytest.mark.parametrize(
    ("signum", "when"),
    [(signal.SIGTERM, "serving"), (signal.SIGINT, "serving"), (signal.SIGTERM, "starting")],
)
def test_a_signal_stops_serve_and_its_embedded_postgres(tmp_path, data_folder, signum, when):
    data = data_folder
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
    # On SIGABRT, faulthandler writes every thread's stack to stderr: a stop that hangs says where.
    env.update(PREFERANS_DATA_DIR=str(data), PREFERANS_PORT=str(port), PYTHONFAULTHANDLER="1")
    # stderr to a file, not a pipe: a pipe nobody reads while the test waits fills at 64 KiB,
    # and a process writing to a full pipe waits as long as the test does.
    errors = tmp_path / "stderr"
    with errors.open("wb") as sink:
        process = subprocess.Popen(
            [sys.executable, "-m", "service.cli", "serve"], env=env, cwd=tmp_path,
            stdout=subprocess.DEVNULL, stderr=sink,
        )  # fmt: skip
    said = lambda: errors.read_text(errors="replace")[-6000:]  # noqa: E731
    try:
        if when == "serving":
            if not wait_for(lambda: healthy(port) or process.poll() is not None, 180) or (
                process.poll() is not None
            ):
                process.kill()
                process.wait()
                pytest.fail(f"the service did not come up: {said()!r}")
        else:  # the embedded server runs, the API does not yet
            postgres = lambda: any("postgres -D" in p for p in processes_using(data / "pg"))  # noqa: E731
            assert wait_for(postgres, 120), "the embedded server did not start"
        assert processes_using(data / "pg")
        process.send_signal(signum)
        # Up to the service's own bound: a signal while the server is still coming up stops it
        # with pg_ctl (60 s at most), then SIGTERM (30 s): on a loaded machine (the whole suite
        # on 2 cores) the stop took longer than the 60 s this waited once.
        try:
            process.wait(timeout=120)
        except subprocess.TimeoutExpired:
            process.send_signal(signal.SIGABRT)
            process.wait(timeout=30)
            pytest.fail(f"serve did not stop in 120 s; what it wrote, its stacks last:\n{said()}")
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert wait_for(lambda: not processes_using(data), 20), processes_using(data)
    assert process.returncode in (0, 128 + signum), said()


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


def _serve(env: dict[str, str], cwd: Path, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "service.cli", "serve", *args], env=env, cwd=cwd, text=True,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True,
    )  # fmt: skip


def _come_up(process: subprocess.Popen[str], port: int) -> None:
    if not wait_for(lambda: healthy(port) or process.poll() is not None, 180) or (
        process.poll() is not None
    ):
        process.kill()
        pytest.fail(f"the service did not come up: {process.communicate()[1][-3000:]!r}")


def _end(process: subprocess.Popen[str], signum: int = signal.SIGTERM) -> tuple[str, str]:
    if process.poll() is None:
        os.killpg(process.pid, signum)
    try:
        return process.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        return process.communicate()


def test_a_second_serve_on_a_port_in_use_refuses_in_one_line_and_the_first_keeps_it(
    tmp_path, database_dsn
):
    """granian binds with SO_REUSEPORT: a second service used to start on the port, and the
    kernel then shared the connections between two services (on two databases)."""
    port = free_port()
    env = {**os.environ, "DATABASE_URL": database_dsn, "PREFERANS_PORT": str(port),
           "PREFERANS_BOT_WORKER": "off"}  # fmt: skip
    first = _serve(env, tmp_path)
    try:
        _come_up(first, port)
        data = tmp_path / "second-data"
        second = subprocess.run(
            [sys.executable, "-m", "service.cli", "serve"], cwd=tmp_path, text=True,
            env={**env, "DATABASE_URL": "", "PREFERANS_DATA_DIR": str(data)},
            capture_output=True, timeout=60,
        )  # fmt: skip
        assert second.returncode == 9, second.stderr
        assert second.stderr.strip() == (
            f"preferans: 127.0.0.1:{port} is already in use (another preferans serve?): stop "
            "it, or set PREFERANS_PORT (--port) to a free port"
        )
        assert not data.exists()  # refused before its embedded database was started
        assert healthy(port) and first.poll() is None
    finally:
        _end(first)


def test_after_a_sigkill_the_next_serve_stops_the_orphaned_embedded_postgres(tmp_path, data_folder):
    """A SIGKILLed serve leaves its embedded PostgreSQL running. The next serve used to adopt
    it and never stop it; it now stops it cleanly, starts its own, and stops that at SIGTERM.
    Every start says in one line where things are, and no third-party warning (platformdirs'
    on an unset XDG_RUNTIME_DIR)."""
    from service.platform.embedded import running_postmaster

    data, port = data_folder, free_port()
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "XDG_RUNTIME_DIR")}
    env.update(PREFERANS_DATA_DIR=str(data), PREFERANS_PORT=str(port), PREFERANS_BOT_WORKER="off")
    where = (
        f"preferans: web client http://127.0.0.1:{port}/ · API docs "
        f"http://127.0.0.1:{port}/schema · data in {data}"
    )
    first = _serve(env, tmp_path)
    _come_up(first, port)
    out, err = _end(first, signal.SIGKILL)
    assert out.splitlines() == [where]
    assert "Warning" not in err and "XDG_RUNTIME_DIR" not in err, err
    orphan = running_postmaster(data / "pg")
    assert orphan is not None  # pg_ctl put the server in a session of its own: it outlived us

    second = _serve(env, tmp_path)
    try:
        _come_up(second, port)
        assert not psutil.pid_exists(orphan.pid) or running_postmaster(data / "pg") != orphan
        assert httpx.post(f"http://127.0.0.1:{port}/v1/players", json={"name": "after"},
                          timeout=10).status_code == 201  # fmt: skip
    finally:
        out, err = _end(second)
    assert out.splitlines() == [where]
    assert "outlived the service that used it" in err
    assert second.returncode == 0, err
    assert wait_for(lambda: not processes_using(data), 20), processes_using(data)


def test_a_postgres_we_did_not_start_on_the_data_folder_is_refused_in_one_line(tmp_path):
    """Not ours to stop: a server started by hand (or by an older release) on the folder."""
    from clusters import Cluster, have_server_binaries

    if not have_server_binaries():
        pytest.skip("no PostgreSQL 15 server binaries")
    cluster = Cluster()  # under /tmp: the server's user cannot enter pytest's folders
    cluster.data = cluster.root / "pg"  # where PREFERANS_DATA_DIR=root keeps its cluster
    cluster.init().start()
    try:
        env = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
        result = subprocess.run(
            [sys.executable, "-m", "service.cli", "db", "upgrade"], cwd=tmp_path, text=True,
            env={**env, "PREFERANS_DATA_DIR": str(cluster.root)}, capture_output=True,
            timeout=60,
        )  # fmt: skip
        assert result.returncode == 8, result.stderr
        (line,) = result.stderr.strip().splitlines()
        assert "a PostgreSQL that preferans did not start" in line
        assert cluster.psql("SELECT 1") == "1"  # left alone
    finally:
        cluster.remove()
