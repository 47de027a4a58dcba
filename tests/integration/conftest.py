"""Fixtures of the integration tests.

Fixtures:
    remembered_analyses  session   the analyst's solver remembers every game it or a test solved
                                   (`projection_games.RememberingSolver`): each game is solved once
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from projection_games import RememberingSolver

from service.read_models import analyst


@pytest.fixture(scope="session")
def remembered_analyses() -> Iterator[None]:
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(analyst, "_solver", RememberingSolver(analyst._solver))
        yield
