"""A pytest plugin (tests/conftest.py loads it): SIGTERM stops the run as Ctrl-C does.

Left to its default, SIGTERM (a CI job cancelled, ``timeout``, ``kill``) ends pytest on the
spot: no summary of what ran, no teardown. Here it raises ``KeyboardInterrupt`` instead, which
pytest answers by stopping at once and printing its summary, as for SIGINT.

A test that leaves a handler of its own for either signal behind would take that away from the
rest of the run, so after each test the session's handlers are put back, with a warning naming
the test that changed them.

Under pytest-xdist the signal reaches the controller alone (a ``kill``, a CI job cancelled),
which would wait ten seconds for its workers to finish their tests: it passes the signal on to
them, so each stops its test at once too and the run ends with its summary.
"""

from __future__ import annotations

import contextlib
import os
import signal
from collections.abc import Iterator
from types import FrameType
from typing import Any

import pytest

SIGNALS = (signal.SIGTERM, signal.SIGINT)
_before: dict[int, object] = {}
_workers: list[int] = []
"""The pids of this controller's xdist workers (none without xdist, or in a worker)."""


def interrupt(signum: int, frame: FrameType | None) -> None:
    """SIGTERM as SIGINT: ``KeyboardInterrupt``, which pytest stops on with its summary."""
    for pid in _workers:
        with contextlib.suppress(OSError):  # already gone
            os.kill(pid, signum)
    raise KeyboardInterrupt(f"stopped by {signal.Signals(signum).name}")


def _sigint(signum: int, frame: FrameType | None) -> None:
    """SIGINT as Python's own handler, passed on to the workers first (see `interrupt`)."""
    for pid in _workers:
        with contextlib.suppress(OSError):
            os.kill(pid, signum)
    signal.default_int_handler(signum, frame)


def _session_handlers() -> dict[int, object]:
    return {signal.SIGTERM: interrupt, signal.SIGINT: _sigint}


@pytest.hookimpl(optionalhook=True)
def pytest_testnodeready(node: Any) -> None:
    """An xdist worker is up (a hook of xdist's, called only where it runs): remember its pid.
    A popen gateway's worker is the controller's own child process."""
    popen = getattr(getattr(node.gateway, "_io", None), "popen", None)
    if popen is not None:
        _workers.append(popen.pid)


def pytest_configure(config: pytest.Config) -> None:
    for signum, handler in _session_handlers().items():
        _before[signum] = signal.signal(signum, handler)  # type: ignore[arg-type]


def pytest_unconfigure(config: pytest.Config) -> None:
    for signum, handler in _before.items():
        signal.signal(signum, signal.SIG_DFL if handler is None else handler)  # type: ignore[arg-type]
    _before.clear()
    _workers.clear()


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
