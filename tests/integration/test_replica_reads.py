"""Reads from a streaming standby (PREFERANS_REPLICA_DATABASE_URL), on a throwaway primary and
its standby made with Debian's PostgreSQL 15 binaries: views and event pages are read there,
and a client who proved he saw a version (his ETag, ``after``) is never answered from behind
it, even while the standby's replay is paused."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator, Iterator

import asyncpg
import pytest
from clusters import Cluster, have_server_binaries
from litestar.testing import AsyncTestClient

from migrations import APP_ROLE
from service.app import create_app
from service.platform.database import upgrade, with_user
from service.platform.settings import Settings

pytestmark = [
    pytest.mark.integration,
    pytest.mark.skipif(not have_server_binaries(), reason="PostgreSQL 15 server binaries needed"),
]


@pytest.fixture(scope="module")
def clusters() -> Iterator[tuple[Cluster, Cluster]]:
    primary = Cluster().init("wal_level = replica", "max_wal_senders = 4").start()
    standby = None
    try:
        primary.psql("CREATE DATABASE preferans")
        upgrade(primary.dsn_for("preferans"))
        standby = primary.replica()
        yield primary, standby
    finally:
        if standby is not None:
            standby.remove()
        primary.remove()


def app_of(clusters: tuple[Cluster, Cluster]):  # type: ignore[no-untyped-def]
    primary, standby = clusters
    settings = Settings(
        database_url=primary.dsn_for("preferans"),
        replica_database_url=with_user(standby.dsn_for("preferans"), APP_ROLE),
        rate_limits=False, bot_worker="off", projections=False, steward=False, pool_min_size=1,
    )  # fmt: skip
    return AsyncTestClient(app=create_app(settings, migrate=False))


@pytest.fixture
async def client(clusters) -> AsyncIterator[AsyncTestClient]:  # type: ignore[type-arg]
    async with app_of(clusters) as test_client:
        yield test_client


async def statements(cluster: Cluster) -> int:
    """Transactions the cluster's database has run so far (its own count, pg_stat_database;
    counted once the backends that ran them have ended)."""
    await asyncio.sleep(0.5)
    conn = await asyncpg.connect(cluster.dsn_for("preferans"))
    try:
        await conn.execute("SELECT pg_stat_clear_snapshot()")
        return int(await conn.fetchval(
            "SELECT xact_commit FROM pg_stat_database WHERE datname = 'preferans'"))  # fmt: skip
    finally:
        await conn.close()


async def a_game(client) -> tuple[str, list[dict[str, str]]]:  # type: ignore[no-untyped-def]
    auth = []
    for name in ("Anna", "Vera", "Kolya"):  # names are unique: each game's players their own
        body = (
            await client.post("/v1/players", json={"name": f"{name} {uuid.uuid4().hex[:8]}"})
        ).json()
        auth.append({"Authorization": f"Bearer {body['token']}"})
    game_id = (await client.post("/v1/games", json={"seat": 0}, headers=auth[0])).json()["id"]
    for seat in (1, 2):
        await client.post(f"/v1/games/{game_id}/seats", json={"seat": seat}, headers=auth[seat])
    return game_id, auth


async def act(client, game_id: str, auth: list[dict[str, str]]) -> int:  # type: ignore[no-untyped-def]
    for headers in auth:
        view = (await client.get(f"/v1/games/{game_id}", headers=headers)).json()
        if view["legal_actions"]:
            done = await client.post(f"/v1/games/{game_id}/actions",
                                     json=view["legal_actions"][0], headers=headers)  # fmt: skip
            assert done.status_code == 200, done.text
            return int(done.json()["version"])
    raise AssertionError("nobody is to act")


async def test_reads_go_to_the_standby_and_the_primary_serves_fewer(clusters):
    primary, standby = clusters
    async with app_of(clusters) as client:
        game_id, auth = await a_game(client)
        await act(client, game_id, auth)

    async def reads(count: int) -> tuple[int, int]:
        """Transactions on the primary and on the standby of an app's life with ``count``
        reads of a view and of an event page (each app closes its connections at the end)."""
        before = (await statements(primary), await statements(standby))
        async with app_of(clusters) as client:
            await client.get(f"/v1/games/{game_id}", headers=auth[1])  # a cold load: primary
            for _ in range(count):
                view = await client.get(f"/v1/games/{game_id}", headers=auth[1])
                page = await client.get(f"/v1/games/{game_id}/events", headers=auth[1])
                assert (view.status_code, page.status_code) == (200, 200)
        return await statements(primary) - before[0], await statements(standby) - before[1]

    idle = await reads(0)
    busy = await reads(20)
    # Every event page read on the standby; a view is answered from the version this process
    # knows to be the head (no read at all, as its 304 is) or else read there too.
    assert busy[1] - idle[1] >= 20
    assert busy[0] - idle[0] <= 2, (idle, busy)  # none on the primary


async def test_a_client_who_saw_a_version_is_never_answered_from_a_standby_behind_it(
    client, clusters
):  # fmt: skip
    _, standby = clusters
    game_id, auth = await a_game(client)
    standby.psql("SELECT pg_wal_replay_pause()", "preferans")
    try:
        for _ in range(3):
            version = await act(client, game_id, auth)
            etag = {"If-None-Match": f'"{version}"'}
            view = await client.get(f"/v1/games/{game_id}", headers={**auth[2], **etag})
            assert view.status_code == 304 and view.headers["etag"] == f'"{version}"'
            wanted = {"cursor": str(version - 1), "min_version": version}
            page = await client.get(f"/v1/games/{game_id}/events", headers=auth[2], params=wanted)
            assert [item["version"] for item in page.json()["items"]] == [version]
    finally:
        standby.psql("SELECT pg_wal_replay_resume()", "preferans")
