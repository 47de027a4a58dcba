"""``preferans serve`` runs each kind of work in a process of its own, logged in as its own role:
the API's workers hold only the request path's login, the background worker (projections,
analyst, purger, snapshots' writer) holds the projections' and the purger's, and the read
models and snapshots still follow the log."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import asyncpg
import httpx
import psutil
import pytest
from clusters import ServiceProcess

from migrations import APP_ROLE, BOTS_ROLE, PROJECTIONS_ROLE, PURGER_ROLE

pytestmark = pytest.mark.integration


def register(url: str, name: str) -> dict[str, str]:
    response = httpx.post(f"{url}/v1/players", json={"name": name})
    assert response.status_code == 201, response.text
    return {"Authorization": f"Bearer {response.json()['token']}"}


def act(url: str, game_id: str, players: list[dict[str, str]]) -> None:
    """Whoever is to act makes his first legal move."""
    for auth in players:
        view = httpx.get(f"{url}/v1/games/{game_id}", headers=auth).json()
        if view["legal_actions"]:
            done = httpx.post(
                f"{url}/v1/games/{game_id}/actions", json=view["legal_actions"][0], headers=auth
            )
            assert done.status_code == 200, done.text
            return
    raise AssertionError("nobody is to act")


def wait_for(check: Any, timeout: float = 30.0) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if value := check():
            return value
        time.sleep(0.1)
    raise AssertionError("timed out waiting")


async def logins_by_process(dsn: str, root: int) -> dict[str, set[str]]:
    """The database roles each process under ``root`` is connected as, by its kind: the
    background worker (``background``), the bot worker (``bots``) or the API (``api``)."""
    async with asyncpg.create_pool(dsn, min_size=1, max_size=1) as admin:
        rows = await admin.fetch(
            "SELECT client_port, usename FROM pg_stat_activity WHERE client_port IS NOT NULL"
        )
    role_at = {r["client_port"]: r["usename"] for r in rows}
    found: dict[str, set[str]] = {}
    for process in [psutil.Process(root), *psutil.Process(root).children(recursive=True)]:
        try:
            command = " ".join(process.cmdline())
            ports = [c.laddr.port for c in process.net_connections("tcp") if c.raddr]
        except psutil.NoSuchProcess:
            continue
        kind = (
            "background" if "worker_entry('background')" in command
            else "bots" if "worker_entry('bots')" in command
            else "api"
        )  # fmt: skip
        found.setdefault(kind, set()).update(role_at[p] for p in ports if p in role_at)
    return found


async def test_the_api_process_holds_only_its_role_and_the_background_one_does_the_rest(
    database_dsn: str, tmp_path: Path
) -> None:
    env = {"DATABASE_URL": database_dsn, "PREFERANS_RATE_LIMITS": "false",
           "PREFERANS_SNAPSHOT_EVERY": "5", "PREFERANS_KEY_PURGE_INTERVAL": "0.2"}  # fmt: skip
    service = ServiceProcess(env, tmp_path / "serve.log")
    service.start()
    try:
        url = service.url
        players = [register(url, name) for name in ("Anna", "Vera", "Kolya")]
        created = httpx.post(f"{url}/v1/games", json={"overrides": {"pool": {"target": 10}}},
                             headers=players[0])  # fmt: skip
        game_id = created.json()["id"]
        for auth in players:
            seated = httpx.post(f"{url}/v1/games/{game_id}/seats", json={}, headers=auth)
            assert seated.status_code == 200, seated.text
        for _ in range(8):
            act(url, game_id, players)

        async def snapshot_version() -> int:
            async with asyncpg.create_pool(database_dsn, min_size=1, max_size=1) as admin:
                return int(await admin.fetchval(
                    "SELECT coalesce(max(version), 0) FROM es.snapshots WHERE stream_id = $1",
                    f"game-{game_id}",
                ))  # fmt: skip

        # The background's writer took the snapshot from the log (nobody offered it one).
        deadline = time.monotonic() + 30
        while await snapshot_version() < 10 and time.monotonic() < deadline:
            time.sleep(0.1)
        assert await snapshot_version() >= 10

        # The projections ran in the background process and caught up with the log.
        def caught_up() -> bool:
            status = httpx.get(f"{url}/v1/projections").json()
            return bool(status) and all(p["lag"] == 0 and p["position"] > 0 for p in status)

        wait_for(caught_up)
        assert service.process is not None
        logins = await logins_by_process(database_dsn, service.process.pid)
        assert logins["api"] <= {APP_ROLE} and APP_ROLE in logins["api"], logins
        assert PROJECTIONS_ROLE in logins["background"], logins
        assert logins["background"] <= {PROJECTIONS_ROLE, PURGER_ROLE}, logins
        assert logins.get("bots", {BOTS_ROLE}) <= {BOTS_ROLE}, logins
        tree = psutil.Process(service.process.pid).children(recursive=True)
    finally:
        service.stop()
    # Stopped with serve: no worker outlives it.
    wait_for(lambda: not [p for p in tree if p.is_running() and p.status() != "zombie"], 15)
