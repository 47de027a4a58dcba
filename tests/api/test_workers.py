"""``preferans serve --workers 2``: two server processes on one port play a game, a bot seated
among the players, while an SSE follower sees every version once and in order, whichever process
serves each request.

The game is played for a fixed number of versions (several deals) rather than to its end: with
first-legal moves and a random bot, how many deals a pool takes is a matter of luck (a run of
all-passes writes nothing to the pool), and the claim here is about the stream, not the ending."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from clusters import ServiceProcess

pytestmark = pytest.mark.integration


def children(pid: int) -> list[int]:
    """The processes whose parent is ``pid`` (from /proc)."""
    out = []
    for status in Path("/proc").glob("[0-9]*/status"):
        try:
            fields = dict(line.split(":\t", 1) for line in status.read_text().splitlines()
                          if ":\t" in line)  # fmt: skip
        except OSError:
            continue
        if fields.get("PPid", "").strip() == str(pid):
            out.append(int(status.parent.name))
    return out


def follow(url: str, versions: list[int], done: threading.Event) -> None:
    """Read the game's SSE stream until ``done``, reconnecting after the last id seen."""
    while not done.is_set():
        after = versions[-1] if versions else 0
        try:
            with httpx.stream("GET", url, params={"after": after}, timeout=5) as stream:
                for line in stream.iter_lines():
                    if line.startswith("id:"):
                        versions.append(int(line[3:]))
                    if done.is_set():
                        return
        except httpx.HTTPError:
            time.sleep(0.1)


PLAYED = 120
"""Versions to play: a deal or two, every kind of event the stream carries. (The bot worker runs
niced: with the rest of the suite on both cores its moves wait, so more costs minutes.)"""


def settled_version(url: str) -> int:
    """The game's version once the bot has made the moves it owes (then a person is to act and
    the version stays put)."""
    last, still = -1, 0
    while still < 5:
        version = httpx.get(url).json()["version"]
        still = still + 1 if version == last else 0
        last = version
        time.sleep(0.1)
    return last


def test_two_workers_play_a_game_with_a_bot_and_sse_sees_every_version_once(database_dsn, tmp_path):
    server = ServiceProcess(
        {
            "DATABASE_URL": database_dsn,
            "PREFERANS_BOT_PACE": "0",
            "PREFERANS_WRITES_PER_MINUTE": "100000",
            "PREFERANS_READS_PER_MINUTE": "100000",
        },
        tmp_path / "serve.log",
        args=("--workers", "2"),
    )
    try:
        server.start()
        assert server.process is not None
        assert len(children(server.process.pid)) >= 3  # two workers and the bot worker
        url = server.url
        players: list[dict[str, Any]] = []
        for name in ("Anna", "Vera"):
            body = httpx.post(f"{url}/v1/players", json={"name": name}).json()
            players.append({"Authorization": f"Bearer {body['token']}"})
        created = httpx.post(f"{url}/v1/games", headers=players[0],
                             json={"seat": 0, "overrides": {"pool": {"target": 2}}})  # fmt: skip
        assert created.status_code == 201, created.text
        game_id = created.json()["id"]
        joined = httpx.post(f"{url}/v1/games/{game_id}/seats", json={"seat": 1},
                            headers=players[1])  # fmt: skip
        assert joined.status_code == 200, joined.text

        versions: list[int] = []
        done = threading.Event()
        follower = threading.Thread(
            target=follow, args=(f"{url}/v1/games/{game_id}/stream", versions, done), daemon=True
        )
        follower.start()
        bot = httpx.post(f"{url}/v1/games/{game_id}/bots", json={"level": "random"},
                         headers=players[0])  # fmt: skip
        assert bot.status_code in (200, 201), bot.text

        deadline = time.monotonic() + 120
        status, version = "", 0
        while status != "finished" and version < PLAYED and time.monotonic() < deadline:
            moved = False
            for n, auth in enumerate(players):
                view = httpx.get(f"{url}/v1/games/{game_id}", headers=auth).json()
                status, version = view["view"]["status"], view["version"]
                if view["legal_actions"]:
                    action = view["legal_actions"][0]
                    done_ = httpx.post(
                        f"{url}/v1/games/{game_id}/actions", json=action,
                        headers={**auth, "Idempotency-Key": f"{game_id}:{version}:{n}",
                                 "If-Match": f'"{version}"'},
                    )  # fmt: skip
                    assert done_.status_code in (200, 412), done_.text  # 412: the bot came first
                    moved = True
            if not moved:
                time.sleep(0.05)  # the bot's turn
        assert status == "finished" or version >= PLAYED, f"the game stalled at version {version}"
        final = settled_version(f"{url}/v1/games/{game_id}")
        wait = time.monotonic() + 10
        while (not versions or versions[-1] < final) and time.monotonic() < wait:
            time.sleep(0.05)
        done.set()
        assert versions == list(range(1, final + 1))
        page = httpx.get(f"{url}/v1/games/{game_id}/events", params={"limit": 500}).json()
        assert [item["version"] for item in page["items"]] == list(range(1, min(final, 500) + 1))
        assert json.loads(httpx.get(f"{url}/health").text)["status"] == "ok"
    finally:
        server.stop()
