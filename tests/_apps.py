"""Apps kept between tests: built once per test process for each set of settings and options.

Building an app of a hundred routes takes Litestar 0.2-0.3 s of CPU, most of a small API test
(15% of the API tests' CPU went to it), while its start (the lifespan: pools, workers,
`app.state`) is all a test needs anew. So `kept` hands out an app built before with the same
settings and options, started on the new test's database, to one holder at a time: it is
reserved from the call until the end of the test (`release`, called by conftest after each
test's teardown), and while its lifespan runs (a module's shared app stays its module's).
Options that are not plain values (a test's clock, lifespan or route handlers) count by
identity, so a test's own clock gets an app of its own.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, fields, is_dataclass
from typing import Any

from litestar import Litestar

MAX_KEPT = 24
"""Apps kept per test process (each some megabytes); past it, an app is built and dropped."""

Dsn = str | Callable[[], str]
_PLAIN = (type(None), bool, int, float, str, bytes)


def kept(build: Callable[[Callable[[], str]], Litestar], like: object, dsn: Dsn) -> Litestar:
    """An app as ``build`` makes it (given a function naming the database at each start),
    kept for apps ``like`` it (settings and options), started on ``dsn`` this time."""
    key = _key(like)
    for app in _KEPT.get(key, ()):
        if not app.reserved and not app.running:
            app.reserved = True
            app.where[0] = dsn
            return app.app
    where: list[Dsn] = [dsn]
    made = build(lambda: _named(where[0]))
    if sum(map(len, _KEPT.values())) < MAX_KEPT:
        app = _Kept(made, where, key)
        made.on_startup.append(app.started)
        made.on_shutdown.append(app.stopped)
        _KEPT.setdefault(key, []).append(app)
    return made


def release() -> None:
    """The end of a test: the apps it was handed are free for the next (those still running
    stay reserved, a module's shared app among them)."""
    for app in (a for apps in _KEPT.values() for a in apps):
        if not app.running:
            app.reserved = False


@dataclass
class _Kept:
    app: Litestar
    where: list[Dsn]
    key: object
    """Holds the objects counted by identity, so that no other takes their id meanwhile."""
    reserved: bool = True
    running: int = 0

    async def started(self) -> None:
        self.running += 1

    async def stopped(self) -> None:
        # Litestar runs the shutdown hooks even when the start failed before `started` ran.
        self.running = max(0, self.running - 1)


_KEPT: dict[object, list[_Kept]] = {}


def _named(dsn: Dsn) -> str:
    return dsn() if callable(dsn) else dsn


def _key(value: object) -> object:
    """``value`` as a key: plain values, sequences, mappings and plain dataclasses by value,
    any other object by identity."""
    if isinstance(value, _PLAIN):
        return value
    if isinstance(value, list | tuple):
        return (type(value).__name__, *map(_key, value))
    if isinstance(value, dict):
        return ("dict", *sorted((str(k), _key(v)) for k, v in value.items()))
    if is_dataclass(value) and not isinstance(value, type):
        parts = [(f.name, _key(getattr(value, f.name))) for f in fields(value)]
        if all(not isinstance(v, _Same) for _, v in parts):
            return (type(value).__qualname__, *parts)
    return _Same(value)


class _Same:
    """An object equal only to itself."""

    def __init__(self, value: Any) -> None:
        self.value = value

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Same) and other.value is self.value

    def __hash__(self) -> int:
        return id(self.value)
