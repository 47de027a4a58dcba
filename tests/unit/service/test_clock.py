"""The service's one clock: the wall clock in a running service, a manual one in tests."""

from __future__ import annotations

import time

import pytest

from service.platform.clock import SYSTEM_CLOCK, ManualClock


def test_the_system_clock_reads_the_wall_clock_in_milliseconds() -> None:
    before = time.time_ns() // 1_000_000
    assert before <= SYSTEM_CLOCK.now_ms() <= time.time_ns() // 1_000_000


def test_a_manual_clock_moves_only_when_advanced_and_never_back() -> None:
    clock = ManualClock(start_ms=1_000)
    assert clock.now_ms() == 1_000 == clock.now_ms()
    clock.advance(1.5)
    assert clock.now_ms() == 2_500
    with pytest.raises(ValueError, match="does not go back"):
        clock.advance(-1)
    assert clock.now_ms() == 2_500
