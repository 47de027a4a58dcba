"""Leases (`service.platform.leases`) against the real database: due rows claimed once however
many claim at a time, leased until their due moves past, by the database's clock or the
caller's; the names in the SQL are identifiers, never anything else."""

from __future__ import annotations

import asyncio

import asyncpg
import pytest

from service.platform.leases import Lease, identifier

pytestmark = pytest.mark.integration

NOW_MS = 1_800_000_000_000


@pytest.fixture
async def jobs(pool: asyncpg.Pool) -> asyncpg.Pool:
    """A table of jobs: 100 due a minute before NOW_MS, in rank order 100..1."""
    await pool.execute(
        """CREATE TABLE jobs (job_id int PRIMARY KEY, due_at timestamptz, rank int NOT NULL,
                              done boolean NOT NULL DEFAULT false)"""
    )
    await pool.execute(
        "INSERT INTO jobs SELECT n, to_timestamp($1::float8 / 1000) - interval '1 minute', 101 - n"
        " FROM generate_series(1, 100) n",
        NOW_MS,
    )
    return pool


async def test_concurrent_claimers_never_take_the_same_due_row(jobs: asyncpg.Pool) -> None:
    due = Lease("public.jobs", key="job_id", due="due_at")
    batches = await asyncio.gather(
        *(due.claim(jobs, seconds=30, limit=15, now_ms=NOW_MS) for _ in range(8))
    )
    claimed = [row["job_id"] for batch in batches for row in batch]
    assert len(claimed) == len(set(claimed)) == 100  # every row once, none twice
    again = await due.claim(jobs, seconds=30, limit=100, now_ms=NOW_MS + 29_000)
    assert again == []  # leased: not due again until the lease runs out
    expired = await due.claim(jobs, seconds=30, limit=100, now_ms=NOW_MS + 30_000)
    assert len(expired) == 100  # a claimer that died leaves its rows to the next


async def test_a_claim_moves_the_due_to_the_lease_and_says_how_late_it_came(
    jobs: asyncpg.Pool,
) -> None:
    due = Lease("jobs", key="job_id", due="due_at")
    [row] = await due.claim(jobs, seconds=5, limit=1, now_ms=NOW_MS)
    assert row["job_id"] == 1  # the earliest due first (all alike here: any one)
    assert row["due_at"].timestamp() == NOW_MS / 1000 + 5
    assert row["overdue"] == pytest.approx(60.0)
    [late] = await due.claim(jobs, seconds=5, limit=1, now_ms=NOW_MS, grace=45)
    assert late["overdue"] == pytest.approx(15.0)  # past its grace by 15 s
    assert await due.claim(jobs, seconds=5, limit=1, now_ms=NOW_MS - 60_000, grace=1) == []


async def test_by_the_databases_clock_a_null_due_a_done_flag_and_another_order(
    jobs: asyncpg.Pool,
) -> None:
    await jobs.execute("UPDATE jobs SET due_at = NULL WHERE job_id <= 3")
    await jobs.execute("UPDATE jobs SET due_at = now() + interval '1 hour' WHERE job_id > 3")
    await jobs.execute("UPDATE jobs SET done = true WHERE job_id = 3")
    queue = Lease(
        "jobs", key="job_id", due="due_at", order_by="rank", unset_is_due=True, unless="done",
        returning=("rank",),
    )  # fmt: skip
    first = await queue.claim(jobs, seconds=300)
    assert [(r["job_id"], r["rank"], r["overdue"]) for r in first] == [(2, 99, 0.0)]
    assert [r["job_id"] for r in await queue.claim(jobs, seconds=300)] == [1]
    assert await queue.claim(jobs, seconds=300) == []  # the done one, and none due
    plain = Lease("jobs", key="job_id", due="due_at")
    assert await plain.claim(jobs, seconds=300, limit=100) == []  # NULL: nothing to do


@pytest.mark.parametrize(
    "name", ["jobs; DROP TABLE jobs", 'jobs"', "Jobs", "a.b.c", "", "rm.analysis games"]
)
def test_only_identifiers_reach_the_sql(name: str) -> None:
    with pytest.raises(ValueError):
        identifier(name)
    with pytest.raises(ValueError):
        Lease("jobs", key="job_id", due=name)


def test_identifiers_are_quoted() -> None:
    assert identifier("rm.analysis_games_a") == '"rm"."analysis_games_a"'
