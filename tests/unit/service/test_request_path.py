"""The request path's own economies keep what they promise: no TaskGroup per request, and a
cached token trusted only while a revocation would be heard."""

from __future__ import annotations

from litestar.routes import HTTPRoute

from service.api.auth import admitted_viewer
from service.app import create_app
from service.platform.settings import Settings
from service.players.accounts import REVOKED, Players, token_hash


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
    assert set(keys) == {"embargo", "games", "players", "viewer"}
    assert keys.index("players") < keys.index("viewer")  # a dependency before its dependents


class _Pool:
    """Enough of an asyncpg pool for a token's lookup: one player, one token."""

    def __init__(self) -> None:
        self.lookups = 0

    async def fetchrow(self, query: str, *args: object) -> tuple[str | None, ...]:
        self.lookups += 1
        return ("p-1", "Anna", "human", "t-1", "play", None, None)  # no app, no expiry

    async def execute(self, query: str, *args: object) -> str:
        return "UPDATE 1"


async def test_a_cached_token_is_trusted_only_while_revocations_are_heard() -> None:
    hearing = [True]
    pool = _Pool()
    players = Players(pool, hearing=lambda: hearing[0])  # type: ignore[arg-type]

    first = await players.authenticate("secret")
    assert first is not None and players.known_caller("secret") == first
    assert await players.authenticate("secret") == first and pool.lookups == 1

    hearing[0] = False  # the LISTEN connection is down: a revocation could pass unheard
    assert players.known_caller("secret") is None
    assert not admitted_viewer(b"Bearer secret", players)
    await players.authenticate("secret")
    assert pool.lookups == 2

    hearing[0] = True
    assert admitted_viewer(b"Bearer secret", players)
    assert admitted_viewer(b"", players)  # a spectator
    assert not admitted_viewer(b"Bearer other", players)
    assert not admitted_viewer(b"Basic secret", players)
    players.on_news(REVOKED + token_hash("secret").hex())
    assert players.known_caller("secret") is None
