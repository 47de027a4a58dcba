"""The worker kit: the loop, the wake-up, the error policy, the metrics and cancellation that
every background worker of the service shares."""

from __future__ import annotations

import asyncio
import logging

import pytest

from service.platform.metrics import WORKER_ERRORS, WORKER_LAG_SECONDS, WORKER_ROUNDS
from service.platform.worker_kit import Worker


async def _until(predicate: object, timeout: float = 2.0) -> None:
    async with asyncio.timeout(timeout):
        while not predicate():  # type: ignore[operator]
            await asyncio.sleep(0.001)


async def test_a_hint_starts_a_round_at_once_instead_of_after_the_interval() -> None:
    rounds: list[int] = []

    async def step() -> float | None:
        rounds.append(len(rounds))
        return None

    worker = Worker("test-hint", step, interval=3600.0)
    task = asyncio.create_task(worker.run())
    try:
        await _until(lambda: len(rounds) == 1)
        worker.hint()
        await _until(lambda: len(rounds) == 2)
        assert worker.rounds == 2
    finally:
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task


async def test_a_failed_round_is_counted_and_the_loop_goes_on_after_its_backoff() -> None:
    calls = 0

    async def step() -> float | None:
        nonlocal calls
        calls += 1
        if calls == 1:
            raise RuntimeError("the database is away")
        return 0.0 if calls < 3 else None

    errors = WORKER_ERRORS.labels("test-errors")._value.get()
    worker = Worker("test-errors", step, interval=3600.0, backoff=0.01)
    task = asyncio.create_task(worker.run())
    try:
        await _until(lambda: calls == 3)
        assert worker.errors == 1 and worker.rounds == 2
        assert WORKER_ERRORS.labels("test-errors")._value.get() == errors + 1
        assert WORKER_ROUNDS.labels("test-errors")._value.get() >= 2
    finally:
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task


async def test_pace_batches_hints_and_after_runs_when_the_worker_is_cancelled() -> None:
    rounds = 0
    let_go = asyncio.Event()

    async def step() -> float | None:
        nonlocal rounds
        rounds += 1
        return None

    async def after() -> None:
        let_go.set()

    worker = Worker("test-pace", step, interval=3600.0, pace=0.2, after=after)
    task = asyncio.create_task(worker.run())
    await _until(lambda: rounds == 1)
    for _ in range(20):  # many hints within one pace: one more round, not twenty
        worker.hint()
        await asyncio.sleep(0.005)
    await _until(lambda: rounds == 2)
    await asyncio.sleep(0.05)
    assert rounds == 2
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert let_go.is_set()


def test_a_workers_lag_is_its_gauge_never_below_zero() -> None:
    async def step() -> float | None:
        return None

    worker = Worker("test-lag", step, interval=1.0)
    worker.report_lag(2.5)
    assert WORKER_LAG_SECONDS.labels("test-lag")._value.get() == 2.5
    worker.report_lag(-0.2)  # two clocks a little apart: caught up
    assert WORKER_LAG_SECONDS.labels("test-lag")._value.get() == 0.0


async def test_a_round_that_hangs_is_cancelled_at_its_timeout_said_where_and_the_loop_goes_on(
    caplog: pytest.LogCaptureFixture,
) -> None:
    calls = 0
    never = asyncio.Event()

    async def stuck_here() -> None:
        await never.wait()

    async def step() -> float | None:
        nonlocal calls
        calls += 1
        if calls == 1:
            await asyncio.gather(stuck_here(), asyncio.sleep(0))
        return None

    worker = Worker("test-hang", step, interval=3600.0, backoff=0.01, round_timeout=0.2)
    task = asyncio.create_task(worker.run())
    try:
        with caplog.at_level(logging.WARNING, logger="service.platform.worker_kit"):
            await _until(lambda: calls == 2)
        assert worker.errors == 1 and worker.rounds == 1
        logged = caplog.text
        assert "a round took over 0.2 s and was cancelled" in logged
        assert "in stuck_here" in logged, logged  # inside the gather, where it really waited
    finally:
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
