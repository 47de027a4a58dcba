"""The request path's own economies keep what they promise: no TaskGroup per request, and the
same answer from the cheaper path."""

from __future__ import annotations

from litestar.routes import HTTPRoute

from service.app import create_app
from service.platform.settings import Settings


def test_every_route_resolves_its_dependencies_one_at_a_time() -> None:
    """Litestar opens an anyio TaskGroup for each batch of more than one dependency; the app's
    batches hold one each, in an order fixed by their names, and each route keeps them all."""
    app = create_app(Settings(), dsn="postgresql://unused", migrate=False)
    read_game = None
    for route in app.routes:
        if not isinstance(route, HTTPRoute):
            continue
        for handler, kwargs_model in route.route_handler_map.values():
            assert all(len(batch) == 1 for batch in kwargs_model.dependency_batches), route.path
            if handler.handler_name.endswith("read_game"):
                read_game = kwargs_model
    assert read_game is not None
    keys = [next(iter(batch)).key for batch in read_game.dependency_batches]
    assert set(keys) == {"games", "players", "viewer"}
    assert keys.index("players") < keys.index("viewer")  # a dependency before its dependents
