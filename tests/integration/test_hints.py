"""The process's hint hub (`service.eventlog.hints`) against the real database: this process's
appends and the others' NOTIFYs reach every subscriber over one LISTEN connection, news goes to
the news listeners, and a dropped connection is opened again, with everyone told to look at
everything and the heads trusted only while it listens."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import asyncpg
import pytest

from service.eventlog.hints import EVERYTHING, HintHub
from service.eventlog.log import EventLog, game_log
from service.eventlog.store import NOTIFY_CHANNEL

pytestmark = pytest.mark.integration

_LISTENERS = """
SELECT pid FROM pg_stat_activity
 WHERE datname = current_database() AND query LIKE 'LISTEN%' AND pid <> pg_backend_pid()"""


async def _until(predicate: Callable[[], bool], timeout: float = 10.0) -> None:
    async with asyncio.timeout(timeout):
        while not predicate():
            await asyncio.sleep(0.005)


class _Heard:
    def __init__(self, hub: HintHub) -> None:
        self.hints: list[tuple[str, int]] = []
        self.news: list[str] = []
        hub.subscribe(lambda stream_id, version: self.hints.append((stream_id, version)))
        hub.on_news(self.news.append)

    def opened(self) -> int:
        return self.hints.count((EVERYTHING, 0))


@pytest.fixture
async def events(app_pool: asyncpg.Pool) -> EventLog[object]:
    log: EventLog[object] = game_log(app_pool, announce=False)
    return log


@pytest.fixture
async def hub(events: EventLog[object]) -> HintHub:
    """A hub that opens a dropped connection again after 50 ms (each test runs it)."""
    return HintHub(events, retry=0.05)


async def test_every_subscriber_hears_this_processs_appends_and_the_others_over_one_connection(
    hub: HintHub, events: EventLog[object], pool: asyncpg.Pool
) -> None:
    first, second = _Heard(hub), _Heard(hub)
    task = asyncio.create_task(hub.run())
    try:
        await _until(lambda: first.opened() == 1)
        assert events.heads.listening
        assert len(await pool.fetch(_LISTENERS)) == 1  # one LISTEN connection for all
        events.committed("game-a", 3)  # this process's append: at once, no round trip
        assert first.hints[-1] == second.hints[-1] == ("game-a", 3)
        await pool.execute("SELECT pg_notify($1, 'game-b:7')", NOTIFY_CHANNEL)  # another's
        await _until(lambda: ("game-b", 7) in second.hints)
        assert ("game-b", 7) in first.hints
        await pool.execute("SELECT pg_notify($1, 'revoked:abcd')", NOTIFY_CHANNEL)
        await _until(lambda: "revoked:abcd" in first.news)
        assert first.news == second.news == ["", "revoked:abcd"]  # "": news may have been missed
    finally:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
    assert not events.heads.listening


async def test_a_dropped_listen_connection_is_opened_again_and_everyone_looks_at_everything(
    hub: HintHub, events: EventLog[object], pool: asyncpg.Pool
) -> None:
    heard = _Heard(hub)
    task = asyncio.create_task(hub.run())
    try:
        await _until(lambda: heard.opened() == 1)
        [listener] = await pool.fetch(_LISTENERS)
        assert await pool.fetchval("SELECT pg_terminate_backend($1)", listener["pid"])
        await _until(lambda: hub.worker.errors == 1)  # the drop is a failed round, counted
        await _until(lambda: heard.opened() == 2)  # open again: look at everything
        assert heard.news.count("") == 2
        assert events.heads.listening
        [again] = await pool.fetch(_LISTENERS)
        assert again["pid"] != listener["pid"]
        await pool.execute("SELECT pg_notify($1, 'game-c:2')", NOTIFY_CHANNEL)
        await _until(lambda: ("game-c", 2) in heard.hints)  # heard on the new connection
    finally:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
