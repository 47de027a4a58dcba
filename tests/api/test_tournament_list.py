"""The tournaments' list as the web client reads it: filtered by status, each item with its
registration window, planned and started rounds and field (docs/tournaments.md, The API)."""

from __future__ import annotations

import asyncio
import time

import pytest
from apitools import make_app, register
from litestar import Litestar
from litestar.testing import AsyncTestClient

pytestmark = pytest.mark.integration

HOUR = 3_600_000


@pytest.fixture
def app(database_dsn: str) -> Litestar:
    return make_app(database_dsn, {"daily_robot_duplicate": False})


async def test_the_list_filters_by_status_and_summarises_each_event(app: Litestar) -> None:
    async with AsyncTestClient(app) as client:
        organiser, *field = [await register(client, f"lister {i}") for i in range(4)]
        now = int(time.time() * 1000)
        fmt = {"rounds": 2, "length": {"kind": "deals", "deals": 1},
               "registration": {"opens_at": now - 1000, "closes_at": now + HOUR}}  # fmt: skip
        ids = []
        for name in ("Waiting cup", "Running cup"):
            created = await client.post(
                "/v1/tournaments", json={"name": name, "format": fmt}, headers=organiser.auth
            )
            assert created.status_code == 201, created.text
            ids.append(created.json()["id"])
        waiting, running = ids
        for p in field:
            joined = await client.post(f"/v1/tournaments/{running}/registrations", headers=p.auth)
            assert joined.status_code == 200, joined.text
        gone = await client.delete(
            f"/v1/tournaments/{running}/registrations", headers=field[0].auth
        )
        assert gone.status_code == 200
        late = await register(client, "lister 4")
        await client.post(f"/v1/tournaments/{running}/registrations", headers=late.auth)
        started = await client.post(f"/v1/tournaments/{running}/rounds", headers=organiser.auth)
        assert started.status_code == 200, started.text

        listed = {i["id"]: i for i in (await client.get("/v1/tournaments")).json()["items"]}
        assert listed[waiting]["status"] == "registering" and listed[waiting]["entrants"] == 0
        item = listed[running]
        assert item["status"] == "running"
        assert (item["opens_at"], item["closes_at"]) == (now - 1000, now + HOUR)
        assert (item["rounds"], item["round_no"], item["entrants"]) == (2, 1, 3)  # one withdrew

        only = (await client.get("/v1/tournaments", params={"status": "running"})).json()["items"]
        assert running in {i["id"] for i in only} and waiting not in {i["id"] for i in only}
        assert all(i["status"] == "running" for i in only)
        bad = await client.get("/v1/tournaments", params={"status": "sleeping"})
        assert bad.status_code == 400

        # The round's table is opened after the organiser's answer; a player's list names the
        # events he has played a table of, so it names this one once the table's game exists.
        for _ in range(400):
            view = (await client.get(f"/v1/tournaments/{running}")).json()
            if all(t["game"] for t in view["rounds"][-1]["tables"]):
                break
            await asyncio.sleep(0.05)
        played = (await client.get(f"/v1/players/{field[1].id}/tournaments")).json()["items"]
        assert [(i["id"], i["entrants"], i["round_no"]) for i in played] == [(running, 3, 1)]
