"""A pytest plugin (tests/conftest.py loads it): SIGTERM stops the run as Ctrl-C does.

Left to its default, SIGTERM (a CI job cancelled, ``timeout``, ``kill``) ends pytest on the
spot: no summary of what ran, no teardown. Here it raises ``KeyboardInterrupt`` instead, which
pytest answers by stopping at once and printing its summary, as for SIGINT.

A test that leaves a handler of its own for either signal behind would take that away from the
rest of the run, so after each test the session's handlers are put back, with a warning naming
the test that changed them.
"""

from __future__ import annotations

import signal
from collections.abc import Iterator
from types import FrameType

import pytest

SIGNALS = (signal.SIGTERM, signal.SIGINT)
_before: dict[int, object] = {}


def interrupt(signum: int, frame: FrameType | None) -> None:
    """SIGTERM as SIGINT: ``KeyboardInterrupt``, which pytest stops on with its summary."""
    raise KeyboardInterrupt(f"stopped by {signal.Signals(signum).name}")


def _session_handlers() -> dict[int, object]:
    return {signal.SIGTERM: interrupt, signal.SIGINT: signal.default_int_handler}


def pytest_configure(config: pytest.Config) -> None:
    for signum, handler in _session_handlers().items():
        _before[signum] = signal.signal(signum, handler)  # type: ignore[arg-type]


def pytest_unconfigure(config: pytest.Config) -> None:
    for signum, handler in _before.items():
        signal.signal(signum, signal.SIG_DFL if handler is None else handler)  # type: ignore[arg-type]
    _before.clear()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item: pytest.Item) -> Iterator[None]:
    try:
        return (yield)
    finally:
        for signum, handler in _session_handlers().items():
            if signal.getsignal(signum) is not handler:
                signal.signal(signum, handler)  # type: ignore[arg-type]
                name = signal.Signals(signum).name
                item.warn(pytest.PytestWarning(f"the test left its own {name} handler installed"))
