"""Hypothesis profiles for the suite, chosen by ``HYPOTHESIS_PROFILE`` (imported by conftest.py).

``ci`` (the default: a plain ``pytest``)
    A bounded number of examples, the same ones every run (``derandomize``, so no example
    database either), no deadline and no ``too_slow`` health check: a shared or slow machine
    changes how long a run takes, never whether it passes.
``deep``
    Many more examples, freshly drawn each run, for long runs looking for new failures:
    ``HYPOTHESIS_PROFILE=deep pytest tests/property``.

A test whose examples are much dearer or cheaper than most says how many it wants under ``ci``
with :func:`examples`, which every other profile scales by its own ``max_examples``: a count
written into ``@settings`` by hand would override the profile and make ``deep`` no deeper.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

PROFILE_ENV = "HYPOTHESIS_PROFILE"
CI_EXAMPLES = 50

settings.register_profile(
    "ci",
    max_examples=CI_EXAMPLES,
    derandomize=True,
    deadline=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile(
    "deep",
    max_examples=CI_EXAMPLES * 40,
    derandomize=False,
    deadline=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile(os.environ.get(PROFILE_ENV) or "ci")


def examples(ci: int) -> int:
    """``ci`` examples under the ci profile; proportionally as many under any other."""
    scale = settings.default.max_examples / CI_EXAMPLES
    return max(1, round(ci * scale))
