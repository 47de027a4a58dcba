"""The apps the tests keep between them (`tests/_apps.py`): one holder at a time, alike only
when their settings are, started on the database of whoever holds them now."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import _apps
import pytest
from _apps import kept, release
from litestar import Litestar

from service.platform.clock import ManualClock


@pytest.fixture(autouse=True)
def _forget_these_apps() -> Iterator[None]:
    """The apps of these tests leave no place taken among the process's kept ones."""
    before = set(_apps._KEPT)
    yield
    for key in set(_apps._KEPT) - before:
        del _apps._KEPT[key]


def _build(named: list[Callable[[], str]]) -> Callable[[Callable[[], str]], Litestar]:
    def build(dsn: Callable[[], str]) -> Litestar:
        named.append(dsn)
        return Litestar(route_handlers=[])

    return build


def test_an_app_is_handed_out_again_only_once_released_and_on_the_new_database() -> None:
    built: list[Callable[[], str]] = []
    like = ("unit", {"pool_max_size": 7}, {"sse": (0.3, 100)})
    first = kept(_build(built), like, "postgresql:///one")
    second = kept(_build(built), like, "postgresql:///two")
    assert second is not first  # the first is still reserved
    release()
    again = kept(_build(built), ("unit", {"pool_max_size": 7}, {"sse": (0.3, 100)}), "db-three")
    assert again in (first, second) and len(built) == 2
    assert sorted(dsn() for dsn in built).count("db-three") == 1  # it starts on the new one
    other = kept(_build(built), ("unit", {"pool_max_size": 8}, {}), "db-four")
    assert other not in (first, second) and len(built) == 3
    release()


def test_objects_count_by_identity_so_a_tests_own_clock_gets_its_own_app() -> None:
    built: list[Callable[[], str]] = []
    clock = ManualClock()
    mine = kept(_build(built), ("unit-clock", clock), "a")
    release()
    assert kept(_build(built), ("unit-clock", clock), "b") is mine
    release()
    assert kept(_build(built), ("unit-clock", ManualClock()), "c") is not mine
    release()


async def test_a_running_app_stays_reserved_after_its_test_and_a_failed_start_frees_it() -> None:
    built: list[Callable[[], str]] = []
    app = kept(_build(built), ("unit-running",), "a")
    async with app.lifespan():
        release()  # the end of a test while a module's app runs
        assert kept(_build(built), ("unit-running",), "b") is not app
        release()
    assert kept(_build(built), ("unit-running",), "c") is not app  # its test has not ended
    release()  # now it has
    assert kept(_build(built), ("unit-running",), "c") is app
    release()
    for hook in app.on_shutdown:  # a start that failed before `started`: shutdown hooks run
        await hook()
    assert kept(_build(built), ("unit-running",), "d") is app
    release()
