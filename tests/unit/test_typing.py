"""The domain type-checks under ``mypy --strict`` (STYLE.md: full type hints, strict on domain/).

mypy runs in process through its API, with its cache in ``.mypy_cache/`` at the repository root,
so a run after the first only re-checks what changed (about a second cold, well under one warm).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from mypy import api as mypy

ROOT = Path(__file__).resolve().parents[2]


def test_the_domain_is_clean_under_mypy_strict(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    stdout, stderr, status = mypy.run(
        ["--strict", "--cache-dir", str(ROOT / ".mypy_cache"), "domain"]
    )
    assert status == 0, f"mypy --strict domain failed (exit {status}):\n{stdout}{stderr}"
