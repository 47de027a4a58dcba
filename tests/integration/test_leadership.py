"""Leadership (`service.platform.leadership`) against the real database: one leader per name,
held across rounds on one connection, handed over on resigning, and won again by another
process when the leader's connection drops."""

from __future__ import annotations

import asyncio
import contextlib

import asyncpg
import pytest

from service.platform.leadership import Leadership

pytestmark = pytest.mark.integration

_HOLDERS = """
SELECT pid FROM pg_locks
 WHERE locktype = 'advisory' AND granted
   AND database = (SELECT oid FROM pg_database WHERE datname = current_database())"""


async def test_one_process_leads_a_name_until_it_resigns_then_another_does(
    app_pool: asyncpg.Pool,
) -> None:
    first, second = Leadership(app_pool), Leadership(app_pool)
    async with first, second:
        assert await first.lead("job")
        assert await first.lead("job")  # held across rounds: asking again keeps it
        assert not await second.lead("job")
        assert second.held == frozenset()
        await first.resign("job")
        assert await second.lead("job")
        assert not await first.lead("job")


async def test_names_are_led_apart_over_one_connection_given_back_when_all_are_resigned(
    app_pool: asyncpg.Pool, pool: asyncpg.Pool
) -> None:
    first, second = Leadership(app_pool), Leadership(app_pool)
    async with first, second:
        assert await first.lead("proj:sheet@1") and await first.lead("proj:stats@1")
        assert await second.lead("proj:ratings@1")
        assert not await second.lead("proj:sheet@1")
        assert first.held == {"proj:sheet@1", "proj:stats@1"}
        assert len(set(await pool.fetch(_HOLDERS))) == 2  # one connection per leading process
    assert await pool.fetch(_HOLDERS) == []


async def test_a_process_that_leads_nothing_holds_no_connection(app_pool: asyncpg.Pool) -> None:
    leader, other = Leadership(app_pool), Leadership(app_pool)
    async with leader, other:
        assert await leader.lead("job")
        for _ in range(3):
            assert not await other.lead("job")
            assert app_pool.get_size() - app_pool.get_idle_size() == 1  # the leader's alone


async def test_when_the_leaders_connection_drops_another_leads_and_the_old_leader_learns_it(
    app_pool: asyncpg.Pool, pool: asyncpg.Pool
) -> None:
    leader, other = Leadership(app_pool), Leadership(app_pool)
    async with leader, other:
        assert await leader.lead("job")
        [holder] = await pool.fetch(_HOLDERS)
        assert await pool.fetchval("SELECT pg_terminate_backend($1)", holder["pid"])
        async with asyncio.timeout(10):
            while not await other.lead("job"):  # the server frees the lock as the session ends
                await asyncio.sleep(0.01)
        # The server freed the lock a moment before the old leader's client sees the socket
        # close: until then it still believes it leads (the module's doc), and then it learns.
        lost = False
        async with asyncio.timeout(10):
            while not lost:
                # Meeting the dropped link first, it stands again at the next call.
                with contextlib.suppress(asyncpg.PostgresConnectionError, asyncpg.InterfaceError):
                    lost = not await leader.lead("job")
                if not lost:
                    await asyncio.sleep(0.01)
        assert leader.held == frozenset()
        await other.resign("job")
        assert await leader.lead("job")  # elected again, on a new connection


async def test_a_resignation_cancelled_midway_gives_its_connection_back(
    app_pool: asyncpg.Pool, pool: asyncpg.Pool
) -> None:
    leadership = Leadership(app_pool)
    assert await leadership.lead("cancelled")
    size = app_pool.get_size() - app_pool.get_idle_size()  # the connection held for it
    resigning = asyncio.create_task(leadership.resign_all())
    await asyncio.sleep(0)  # the task is inside its UNLOCK's round trip now
    resigning.cancel()
    with pytest.raises(asyncio.CancelledError):
        await resigning
    assert leadership.held == frozenset()
    assert app_pool.get_size() - app_pool.get_idle_size() == size - 1  # none kept out
    for _ in range(100):  # a terminated backend's locks go with it, a moment later
        if not await pool.fetch(_HOLDERS):
            break
        await asyncio.sleep(0.02)
    assert await pool.fetch(_HOLDERS) == []
    await asyncio.wait_for(app_pool.close(), 10)  # the pool's close is not held up
