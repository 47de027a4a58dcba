"""What must hold across service processes: rate limits counted in PostgreSQL, and exactly one
purger of expired idempotency keys."""

from __future__ import annotations

import asyncio
import time

import asyncpg
import pytest

from service.api.rate_limits import Policy, RateLimiter
from service.eventlog.log import game_log
from service.workers.key_purger import KeyPurger

pytestmark = pytest.mark.integration


async def test_a_limit_holds_across_processes_to_within_one_sync(app_pool: asyncpg.Pool) -> None:
    policy = Policy("writes", limit=50, window=60)
    now = 1_800_000_000.0  # mid-window, the same clock for both
    processes = [
        RateLimiter(app_pool, [policy], sync_interval=0.05, clock=lambda: now) for _ in range(2)
    ]
    admitted = 0
    for round_ in range(40):
        for limiter in processes:
            for _ in range(3):  # each process admits a few between two syncs
                admitted += limiter.hit("writes", ["token:abc"]).allowed
        await asyncio.gather(*(limiter.sync() for limiter in processes))
        if round_ > 20:
            assert not any(lim.hit("writes", ["token:abc"]).allowed for lim in processes)
    # Each process may admit what it saw room for since its last sync: at most 3 per round.
    assert 50 <= admitted <= 50 + 2 * 3
    counted = await app_pool.fetchval("SELECT sum(hits) FROM api.rate_counts")
    assert counted == admitted
    # Another subject, and the next window, start afresh.
    assert processes[0].hit("writes", ["token:other"]).allowed
    later = RateLimiter(app_pool, [policy], clock=lambda: now + 60)
    assert later.hit("writes", ["token:abc"]).allowed


async def test_hits_admitted_while_a_sync_is_on_its_way_still_count(
    app_pool: asyncpg.Pool, pool: asyncpg.Pool
) -> None:
    now = 1_800_000_000.0
    limiter = RateLimiter(app_pool, [Policy("writes", limit=3, window=60)], clock=lambda: now)
    assert limiter.hit("writes", ["token:abc"]).remaining == 2
    async with pool.acquire() as conn, conn.transaction():
        await conn.execute("LOCK TABLE api.rate_counts IN EXCLUSIVE MODE")  # the sync waits
        syncing = asyncio.create_task(limiter.sync())
        await asyncio.sleep(0.1)
        assert not syncing.done()
        assert limiter.hit("writes", ["token:abc"]).remaining == 1
    await syncing
    assert limiter.hit("writes", ["token:abc"]).remaining == 0
    assert not limiter.hit("writes", ["token:abc"]).allowed
    await limiter.sync()
    assert await app_pool.fetchval("SELECT sum(hits) FROM api.rate_counts") == 3


async def test_exactly_one_process_purges_expired_keys(
    purger_pool: asyncpg.Pool, pool: asyncpg.Pool
) -> None:
    await pool.execute(
        "INSERT INTO es.idempotency_keys (principal_id, idem_key, request_hash, expires_at)"
        " SELECT 'p', 'k' || n, '\\x00', now() - interval '1 hour' FROM generate_series(1, 7000) n"
    )
    await pool.execute(
        "INSERT INTO es.idempotency_keys (principal_id, idem_key, request_hash)"
        " VALUES ('p', 'fresh', '\\x00')"
    )
    purgers = [KeyPurger(game_log(purger_pool), interval=0.05, batch=1000) for _ in range(2)]
    tasks = [asyncio.create_task(p.run()) for p in purgers]
    try:
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            # Both: a purger counts its round once its delete committed, a moment later.
            left = await pool.fetchval("SELECT count(*) FROM es.idempotency_keys")
            if left == 1 and sum(p.purged for p in purgers) >= 7000:
                break
            await asyncio.sleep(0.05)
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    assert await pool.fetchval("SELECT idem_key FROM es.idempotency_keys") == "fresh"
    assert sorted(p.purged for p in purgers) == [0, 7000]  # one leader did it all
