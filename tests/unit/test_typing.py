"""The code type-checks under ``mypy --strict`` (full type hints, strict everywhere).

mypy runs in process through its API, with its cache in ``.mypy_cache/`` at the repository root,
so a run after the first only re-checks what changed (some 15 s cold, a second warm).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from mypy import api as mypy

ROOT = Path(__file__).resolve().parents[2]


def test_bots_domain_service_and_projections_are_clean_under_mypy_strict(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(ROOT)
    packages = ["bots", "domain", "projections", "service"]
    stdout, stderr, status = mypy.run(
        ["--strict", "--cache-dir", str(ROOT / ".mypy_cache"), *packages]
    )
    checked = " ".join(packages)
    assert status == 0, f"mypy --strict {checked} failed (exit {status}):\n{stdout}{stderr}"
