"""Bytecode caches for the suite's interpreters, even where the environment turns them off.

With ``PYTHONDONTWRITEBYTECODE`` set (as on this project's CI machines) nothing is cached: each
of pytest's processes compiled every test module again while rewriting its asserts (8.3 CPU-s
to collect the quick run, 3.6 with the caches), and every interpreter a test starts (``preferans
serve``, its workers, the CLI, the benches) compiled the service's modules again (0.85-0.9
CPU-s to import ``service.app``, 0.7 with the caches). The caches are written beside the
sources (``__pycache__/``, ignored by git), as an interpreter left to its default does.

Imported first by tests/conftest.py: before the test modules are rewritten, and before
pytest-xdist starts its workers, which inherit the environment without the variable.
"""

from __future__ import annotations

import os
import sys

if os.environ.pop("PYTHONDONTWRITEBYTECODE", None) is not None:
    sys.dont_write_bytecode = False
