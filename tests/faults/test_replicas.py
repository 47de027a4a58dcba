"""Two API replicas (``preferans serve``) on one database behind HAProxy (docker/haproxy.cfg):
games are played through the balancer with Idempotency-Keys, one replica is killed with SIGKILL
mid-game, and afterwards every acknowledged action is in the log, once, and every client went on
through the replica left."""

from __future__ import annotations

import os
import random
import shutil
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from clusters import ServiceProcess, free_port

pytestmark = [
    pytest.mark.integration,
    pytest.mark.skipif(
        shutil.which("haproxy") is None, reason="HAProxy needed (apt-get install haproxy)"
    ),
]

CONFIG = Path(__file__).parents[2] / "docker" / "haproxy.cfg"
GAMES = 6


class Balancer:
    """HAProxy in the foreground with docker/haproxy.cfg, its addresses from the environment."""

    def __init__(self, replicas: list[ServiceProcess], log: Path) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        env = {**os.environ, "PREFERANS_LB_BIND": f"127.0.0.1:{self.port}"}
        for n, replica in enumerate(replicas, 1):
            env[f"PREFERANS_REPLICA_{n}"] = f"127.0.0.1:{replica.port}"
        with log.open("ab") as out:
            self.process = subprocess.Popen(["haproxy", "-db", "-f", str(CONFIG)], env=env,
                                            stdout=out, stderr=subprocess.STDOUT)  # fmt: skip
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            try:
                if httpx.get(f"{self.url}/health", timeout=1).status_code == 200:
                    return
            except httpx.TransportError:
                time.sleep(0.1)
        raise AssertionError(f"HAProxy did not start:\n{log.read_text()[-3000:]}")

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=10)


@pytest.fixture
def topology(database_dsn: str, tmp_path: Path) -> Iterator[tuple[Balancer, list[ServiceProcess]]]:
    env = {"DATABASE_URL": database_dsn, "PREFERANS_RATE_LIMITS": "false",
           "PREFERANS_PROJECTIONS": "false", "PREFERANS_BOT_WORKER": "off",
           "PREFERANS_POOL_MAX_SIZE": "8"}  # fmt: skip
    replicas = [ServiceProcess(env, tmp_path / f"replica-{n}.log") for n in range(2)]
    balancer = None
    try:
        for replica in replicas:
            replica.start()
        balancer = Balancer(replicas, tmp_path / "haproxy.log")
        yield balancer, replicas
    finally:
        if balancer is not None:
            balancer.stop()
        for replica in replicas:
            replica.stop()


def send(method: str, url: str, **kw: Any) -> httpx.Response:
    """A request retried while the balancer or a replica fails it (connection broken, 502, 503):
    with an Idempotency-Key a retry is safe, and it is how a client goes on after a crash."""
    deadline = time.monotonic() + 30
    while True:
        try:
            response = httpx.request(method, url, timeout=10, **kw)
            if response.status_code not in (502, 503, 504):
                return response
        except httpx.TransportError:
            pass
        if time.monotonic() > deadline:
            raise AssertionError(f"{method} {url} kept failing")
        time.sleep(0.2)


def test_a_replica_killed_mid_game_loses_no_acknowledged_action(topology):
    balancer, replicas = topology
    url = balancer.url
    players = []
    for name in ("Anna", "Vera", "Kolya"):
        body = send("POST", f"{url}/v1/players", json={"name": name}).json()
        players.append({"Authorization": f"Bearer {body['token']}"})
    games: list[str] = []
    homes: set[str] = set()  # the replicas the balancer sends the games to (by their ids)
    while len(games) < GAMES or (homes != {"api1", "api2"} and len(games) < 4 * GAMES):
        created = send("POST", f"{url}/v1/games", headers=players[0],
                       json={"seat": 0, "overrides": {"pool": {"target": 10}}})  # fmt: skip
        assert created.status_code == 201, created.text
        game_id = created.json()["id"]
        for seat in (1, 2):
            joined = send("POST", f"{url}/v1/games/{game_id}/seats", json={"seat": seat},
                          headers=players[seat])  # fmt: skip
            assert joined.status_code == 200, joined.text
        games.append(game_id)
        homes.add(send("GET", f"{url}/v1/games/{game_id}").headers["x-replica"])

    acknowledged: dict[str, dict[int, dict[str, Any]]] = {g: {} for g in games}
    moves_after_kill = {g: 0 for g in games}
    served_by: dict[str, set[str]] = {g: set() for g in games}
    crash = threading.Timer(0.0, replicas[0].kill)  # SIGKILL, at a moment requests are in flight
    for step in range(36):
        if step == 12:
            crash = threading.Timer(random.uniform(0.05, 0.5), replicas[0].kill)
            crash.start()
        killed = not crash.is_alive() and step >= 12
        for game_id in games:
            for seat, auth in enumerate(players):
                view = send("GET", f"{url}/v1/games/{game_id}", headers=auth).json()
                if not view["legal_actions"]:
                    continue
                version = view["version"]
                headers = {**auth, "Idempotency-Key": f"{game_id}:{version}:{seat}",
                           "If-Match": f'"{version}"'}  # fmt: skip
                done = send("POST", f"{url}/v1/games/{game_id}/actions",
                            json=view["legal_actions"][0], headers=headers)  # fmt: skip
                assert done.status_code == 200, done.text
                if not killed:
                    served_by[game_id].add(done.headers["x-replica"])
                for item in done.json()["events"]:
                    acknowledged[game_id][item["version"]] = item["event"]
                moves_after_kill[game_id] += killed
                break
    crash.join()
    assert {"api1", "api2"} <= set().union(*served_by.values())  # both served before the crash
    assert all(n >= 15 for n in moves_after_kill.values()), moves_after_kill

    for game_id in games:  # read as the first seat, as the acknowledgements were redacted
        log: dict[int, dict[str, Any]] = {}
        for seat, auth in enumerate(players):
            after = 0
            while True:
                page = send("GET", f"{url}/v1/games/{game_id}/events", headers=auth,
                            params={"cursor": str(after), "limit": 500}).json()  # fmt: skip
                for item in page["items"]:
                    log.setdefault(item["version"], {})[seat] = item["event"]
                if not page["items"]:
                    break
                after = page["items"][-1]["version"]
        assert sorted(log) == list(range(1, len(log) + 1))  # gapless: nothing twice, no hole
        for version, event in acknowledged[game_id].items():
            assert event in log[version].values(), f"{game_id} lost acknowledged version {version}"
