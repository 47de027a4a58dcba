"""The page lives through a restart of the server: it says it is reconnecting, comes back on
its own, catches up on what it missed (Last-Event-ID) and plays on, without a reload."""

from __future__ import annotations

import asyncio
import os
import socket
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from webtools import TABLE, act_if_asked, seated_game, snapshot_of, wait_past

pytestmark = pytest.mark.integration


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class ServerProcess:
    """``preferans serve`` in a subprocess on ``port`` against ``dsn``: killed, started again."""

    def __init__(self, dsn: str, port: int, log: Path) -> None:
        self.dsn, self.port, self.log = dsn, port, log
        self.url = f"http://127.0.0.1:{port}"
        self.process: asyncio.subprocess.Process | None = None

    async def start(self) -> None:
        env = {**os.environ, "DATABASE_URL": self.dsn, "PREFERANS_POOL_MAX_SIZE": "5",
               "PREFERANS_RATE_LIMITS": "false"}  # fmt: skip
        with self.log.open("ab") as log:
            self.process = await asyncio.create_subprocess_exec(
                sys.executable,
                "-m",
                "service.cli",
                "serve",
                "--port",
                str(self.port),
                env=env,
                stdout=log,
                stderr=log,
                stdin=asyncio.subprocess.DEVNULL,
            )
        # 7 s on an idle 2-core machine; beside a full suite's other processes it took over 30.
        deadline = time.monotonic() + 120
        async with httpx.AsyncClient(timeout=2) as http:
            while time.monotonic() < deadline:
                if self.process.returncode is not None:
                    break
                try:
                    if (await http.get(f"{self.url}/health")).status_code == 200:
                        return
                except httpx.TransportError:
                    pass
                await asyncio.sleep(0.1)
        raise AssertionError(f"the server did not start:\n{self.log.read_text()[-3000:]}")

    async def kill(self) -> None:
        """SIGKILL: no goodbye to the open streams, as in a crash."""
        if self.process and self.process.returncode is None:
            self.process.kill()
            await self.process.wait()


async def test_the_page_recovers_by_itself_after_the_server_restarts(
    database_dsn: str, open_page: Any, shoot: Any, tmp_path: Path
) -> None:
    server = ServerProcess(database_dsn, _free_port(), tmp_path / "server.log")
    await server.start()
    try:
        async with httpx.AsyncClient(base_url=server.url, timeout=10) as http:
            game_id, (anna, vera, kolya) = await seated_game(
                http, ("Anna", "Vera", "Kolya"), seed="restart"
            )
            page = await open_page(token=anna.token, network_errors=True)
            await page.goto(f"{server.url}/#/game/{game_id}")
            await page.wait_for_selector(f"{TABLE}[data-connection=live]")
            await page.evaluate("window.sameDocument = true")

            await server.kill()
            await page.wait_for_selector(f"{TABLE}[data-connection=offline]", timeout=15_000)
            assert await page.inner_text(f"{TABLE} .conn") == "Reconnecting…"
            await shoot(page, "reconnecting")

            await server.start()
            # Vera acts while the page is still away: it must learn of it when it is back.
            await act_if_asked(http, game_id, vera)
            await page.wait_for_selector(f"{TABLE}[data-connection=live]", timeout=30_000)
            await page.wait_for_selector(f"{TABLE} .log-lines li:has-text('Vera')", timeout=10_000)
            # Kolya acts on the new stream; now it is Anna's turn, on the page as it was.
            await act_if_asked(http, game_id, kolya)
            await page.wait_for_selector(f"{TABLE}[data-my-turn=true]", timeout=10_000)
            assert await page.evaluate("window.sameDocument") is True

            snapshot = await snapshot_of(http, game_id, anna)
            bid = next(a for a in snapshot["legal_actions"] if a["type"] == "bid")
            await page.click(f"{TABLE} button[data-action-type=bid] >> nth=0")
            await wait_past(page, snapshot["version"])
            after = await snapshot_of(http, game_id, anna)
            assert after["view"]["deal"]["auction"][-1]["call"] == bid["bid"]
    finally:
        await server.kill()
