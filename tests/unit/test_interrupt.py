"""SIGTERM and SIGINT stop a pytest run at once, with its summary (tests/_interrupt.py), also
after a test ran the CLI in-process (``service.cli.main`` gives the caller its handlers back)."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from service import cli

TESTS = Path(__file__).resolve().parents[1]
ROOT = TESTS.parent

SLEEPING = """
import asyncio
import time
from pathlib import Path

from service import cli


def test_the_cli_in_process(tmp_path):
    export = tmp_path / "empty.ndjson"
    export.write_bytes(b"")
    assert cli.main(["games", "verify", str(export)]) == 2


def test_sleeps():
    Path({ready!r}).touch()
    time.sleep(60)


async def test_sleeps_in_the_event_loop():
    Path({ready!r}).touch()
    await asyncio.sleep(60)
"""


def test_the_cli_run_in_process_gives_back_the_callers_sigterm_handler(tmp_path: Path) -> None:
    def mine(signum: int, frame: object) -> None:
        raise AssertionError("not called")

    previous = signal.signal(signal.SIGTERM, mine)
    try:
        export = tmp_path / "empty.ndjson"
        export.write_bytes(b"")
        assert cli.main(["games", "verify", str(export)]) == 2
        assert signal.getsignal(signal.SIGTERM) is mine
    finally:
        signal.signal(signal.SIGTERM, previous)


@pytest.mark.parametrize(
    ("signum", "test"),
    [
        (signal.SIGTERM, "test_sleeps"),
        (signal.SIGTERM, "test_sleeps_in_the_event_loop"),
        (signal.SIGINT, "test_sleeps_in_the_event_loop"),
    ],
)
def test_a_signal_stops_pytest_at_once_with_its_summary(
    tmp_path: Path, signum: signal.Signals, test: str
) -> None:
    ready = tmp_path / "ready"
    (tmp_path / "test_sleeping.py").write_text(SLEEPING.format(ready=str(ready)))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(TESTS), str(ROOT)])}
    process = subprocess.Popen(
        [
            sys.executable, "-m", "pytest", "-p", "_interrupt", "-p", "no:cacheprovider",
            "-o", "asyncio_mode=auto", "-o", "asyncio_default_fixture_loop_scope=function",
            "--rootdir", str(tmp_path), "-c", os.devnull,
            "test_sleeping.py::test_the_cli_in_process", f"test_sleeping.py::{test}",
        ],
        cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 60
        while not ready.exists():
            assert process.poll() is None, process.communicate()[0]
            assert time.monotonic() < deadline, "the sleeping test never started"
            time.sleep(0.05)
        sent = time.monotonic()
        process.send_signal(signum)
        out, _ = process.communicate(timeout=30)
        took = time.monotonic() - sent
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    # At once: long before the 60 s sleep would end. Not a tighter bound: the summary and the
    # teardown took 6.4 s on a machine at a load of 10.
    assert took < 20, out
    assert process.returncode == pytest.ExitCode.INTERRUPTED, out
    assert "KeyboardInterrupt" in out, out
    assert re.search(r"^=+ 1 passed in [\d.]+s.* =+$", out, re.M), out
    assert "handler installed" not in out, out  # the CLI gave the run its handler back
