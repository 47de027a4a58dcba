"""The read models over HTTP: the app runs the projections in the background and serves them."""

from __future__ import annotations

import asyncio
import json
import random
import uuid
import xml.etree.ElementTree as ET
from collections.abc import AsyncIterator
from typing import Any

import msgspec
import pytest
from litestar import Litestar
from litestar.testing import AsyncTestClient
from projection_games import Game, Log, analysis_of, append_interleaved, play

from domain import game as g
from migrations import APP_ROLE
from projections import stats
from projections.analysis import analyse
from projections.analysis_text import worded
from projections.replay import deal_log
from service.app import create_app
from service.eventlog.log import EventLog, game_log
from service.exceptions import AlreadyImported
from service.games.export import import_game
from service.platform.database import create_pool, with_user
from service.platform.settings import Settings
from service.read_models.storage import READ_MODELS

pytestmark = [pytest.mark.integration, pytest.mark.usefixtures("remembered_analyses")]

PROBLEM = "application/problem+json"


@pytest.fixture
async def client(database_dsn: str) -> AsyncIterator[AsyncTestClient[Litestar]]:
    settings = Settings(database_url=database_dsn, pool_min_size=1,
                        pool_max_size=20, rate_limits=False,
                        background_worker="inline")  # fmt: skip
    app = create_app(settings, migrate=False, live_poll_interval=0.5)
    async with AsyncTestClient(app) as test_client:
        yield test_client


async def register(client: AsyncTestClient[Litestar], name: str) -> dict[str, str]:
    response = await client.post("/v1/players", json={"name": name})
    assert response.status_code == 201, response.text
    return response.json()


def auth(player: dict[str, str]) -> dict[str, str]:
    return {"Authorization": f"Bearer {player['token']}"}


async def caught_up(client: AsyncTestClient[Litestar]) -> None:
    """Wait until every projection has applied the whole log."""
    for _ in range(1500):  # up to 30 s: an open transaction elsewhere holds the horizon back
        response = await client.get("/v1/projections")
        assert response.status_code == 200
        rows = response.json()
        done = all(r["lag"] == 0 and r["status"] == "running" for r in rows)
        if len(rows) == len(READ_MODELS) and done:
            return
        await asyncio.sleep(0.02)
    raise AssertionError(f"the projections did not catch up: {rows}")


async def all_analysed(events: EventLog) -> None:
    """Wait for the app's analyst to analyse every finished game the projection queued (their
    decisions too: some seconds of CPU a game, on cores the suite shares)."""
    for _ in range(4800):
        queued = await events.pool.fetchval(
            "SELECT count(*) FROM rm.analysis_games_a WHERE NOT done"
        )
        if queued == 0:
            return
        await asyncio.sleep(0.05)
    raise AssertionError("the analyst did not analyse the finished games")


@pytest.fixture
def events(app_pool) -> EventLog:
    """The test's own event log on the app's database (the app's pool lives on its own loop)."""
    return game_log(app_pool, announce=False)


async def appended_games(events: EventLog, players: list[dict[str, str]], count: int = 3):
    """``count`` finished games among the registered players, appended straight to the store."""
    ids = [p["id"] for p in players]
    rng = random.Random(3)
    games = []
    for n in range(count):
        seated = rng.sample(ids, 3)
        state, appends = play("sochi", seated, 2, seed=100 + n)
        assert isinstance(state, g.PulkaClosed)
        games.append(Game(str(uuid.UUID(int=rng.getrandbits(128), version=4)), appends, state))
    log = Log()
    await append_interleaved(events.store, games, log, rng)
    return games, log


async def test_sheets_statistics_ratings_replays_and_exports_of_finished_games(client, events):
    players = [await register(client, name) for name in ("Анна", "Boris", "Cid", "Dora")]
    games, log = await appended_games(events, players)
    await caught_up(client)
    await all_analysed(events)
    first = games[0]
    assert isinstance(first.state, g.PulkaClosed)

    # The sheet, as JSON and as the drawing.
    response = await client.get(f"/v1/games/{first.game_id}/sheet")
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["status"] == "finished" and body["target"] == 2
    assert [s["pool"] for s in body["seats"]] == list(first.state.sheet.pool)
    assert [s["mountain"] for s in body["seats"]] == list(first.state.sheet.mountain)
    assert [s["result"] for s in body["seats"]] == list(first.state.settlement.result)
    assert body["settlement"]["exact"] == list(first.state.settlement.exact)
    assert len(body["deals"]) == first.state.sheet.deals
    etag = response.headers["etag"]
    assert (await client.get(f"/v1/games/{first.game_id}/sheet",
                             headers={"If-None-Match": etag})).status_code == 304  # fmt: skip
    drawn = await client.get(f"/v1/games/{first.game_id}/sheet.svg")
    assert drawn.status_code == 200 and drawn.headers["content-type"].startswith("image/svg+xml")
    root = ET.fromstring(drawn.content)
    names = {p["id"]: p["name"] for p in players}
    shown = {t.text for t in root.iter("{http://www.w3.org/2000/svg}text")
             if t.get("class") == "player"}  # fmt: skip
    assert shown == {names[p] for p in first.state.players}
    heading = root.find("{http://www.w3.org/2000/svg}title").text
    assert all(names[p] in heading for p in first.state.players)
    assert str(first.game_id) not in heading  # names, the convention and the day, not an id

    # A player's statistics and rating.
    anna = players[0]
    response = await client.get(f"/v1/players/{anna['id']}/stats")
    assert response.status_code == 200, response.text
    rows = []
    for gm in games:
        model = stats.EMPTY
        for event in gm.events:
            model = stats.apply(model, event)
        rows += [row for pid, row in stats.player_rows(gm.game_id, model) if pid == anna["id"]]
    # Tricks lost against par: each finished game analysed double-dummy.
    pars = [p for gm in games for p in analysis_of(gm.events).players
            if p.player == anna["id"]]  # fmt: skip
    par = (sum(p.deals for p in pars), sum(p.tricks_lost for p in pars))
    assert par[0] > 0
    expected = stats.player_stats(anna["id"], rows, par)
    assert response.json() == msgspec.json.decode(msgspec.json.encode(expected))
    played = [gm for gm in games if anna["id"] in gm.state.players]
    response = await client.get(f"/v1/players/{anna['id']}/rating")
    assert response.status_code == 200
    rating = response.json()
    assert rating["games"] == len(played) and rating["provisional"] is True
    assert [h["game_id"] for h in rating["history"]] == [
        gid
        for gid in dict.fromkeys(gid for gid, e in log.order if isinstance(e, g.GameEnded))
        if anna["id"] in next(gm.state.players for gm in games if gm.game_id == gid)
    ]
    response = await client.get("/v1/ratings", params={"limit": 2})
    assert response.status_code == 200, response.text
    board = response.json()
    assert board["total"] == len({p for gm in games for p in gm.state.players})
    assert [e["rank"] for e in board["items"]] == [1, 2]
    assert board["items"][0]["rating"] >= board["items"][1]["rating"]
    rest = (await client.get("/v1/ratings", params={"cursor": board["next_cursor"]})).json()
    assert [e["rank"] for e in rest["items"]] == list(range(3, board["total"] + 1))
    assert rest["next_cursor"] is None

    # Every deal is public once the game is over.
    log1 = deal_log(first.events, 1)
    response = await client.get(f"/v1/games/{first.game_id}/deals/1/replay", params={"at": 1})
    assert response.status_code == 200, response.text
    replay = response.json()
    assert replay["visibility"] == "full" and replay["steps"] == len(log1.events)
    assert len(replay["state"]["hands"]) == 3 and len(replay["state"]["talon"]) == 2
    # ... and so is its analysis: the cards double-dummy, the decisions over the layouts each
    # player could not tell apart, its sentences in the language asked for, players named.
    whole = next(d.analysis for d in analysis_of(first.events).deals if d.deal_no == 1)
    assert msgspec.structs.replace(whole, decisions=(), summary=()) == msgspec.structs.replace(
        analyse(log1.events, log1.rules), summary=()
    )
    seat_names = [names[p] for p in first.state.players]
    analysed = msgspec.json.decode(msgspec.json.encode(worded(whole, "en", seat_names)))
    assert replay["analysis"] == analysed and replay["analysis"]["decisions"]
    assert response.headers["content-language"] == "en"
    for asked in ({"params": {"at": 1, "lang": "ru"}}, {"headers": {"Accept-Language": "ru"}}):
        ru = await client.get(f"/v1/games/{first.game_id}/deals/1/replay", **asked)  # type: ignore[arg-type]
        assert ru.status_code == 200 and ru.headers["content-language"] == "ru"
        in_russian = ru.json()["analysis"]
        assert in_russian == msgspec.json.decode(
            msgspec.json.encode(worded(whole, "ru", seat_names))
        )
        assert [d["loss"] for d in in_russian["decisions"]] == [
            d["loss"] for d in analysed["decisions"]
        ]
        sentence = in_russian["decisions"][0]["summary"]
        assert sentence.startswith("Торговля, ") and any(n in sentence for n in seat_names)
        assert analysed["decisions"][0]["summary"].startswith("Auction, ")
    for params, status in (({"at": 0}, 400), ({"at": 10_000}, 404)):  # 404: no such step
        bad = await client.get(f"/v1/games/{first.game_id}/deals/1/replay", params=params)
        assert bad.status_code == status and bad.headers["content-type"] == PROBLEM
    missing = await client.get(f"/v1/games/{first.game_id}/deals/999/replay")
    assert missing.status_code == 404

    # The export: a header with the players' names, then the events; this server has the game.
    response = await client.get(f"/v1/games/{first.game_id}/export")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("application/x-ndjson")
    lines = response.content.splitlines()
    assert len(lines) == len(first.events) + 1
    header = json.loads(lines[0])
    assert header["game_id"] == first.game_id
    assert {p["id"]: p["name"] for p in header["players"]} == {
        p: names[p] for p in first.state.players
    }
    with pytest.raises(AlreadyImported):
        await import_game(events, lines)


async def test_an_imported_game_is_listed_readable_and_followable_and_counted_once(
    client, events, other_database_dsn
):
    players = [await register(client, name) for name in ("Анна", "Boris", "Cid", "Dora")]
    # One game: the one exported (the app's analyst solves whatever is appended meanwhile).
    games, _ = await appended_games(events, players, count=1)
    first = games[0]
    lines = (await client.get(f"/v1/games/{first.game_id}/export")).content.splitlines()

    settings = Settings(database_url=other_database_dsn, pool_min_size=1,
                        pool_max_size=10, rate_limits=False,
                        background_worker="inline")  # fmt: skip
    async with AsyncTestClient(create_app(settings, migrate=False)) as there:
        pool = await create_pool(with_user(other_database_dsn, APP_ROLE), min_size=1, max_size=2)
        try:
            imported = await import_game(game_log(pool, announce=False), lines)
            with pytest.raises(AlreadyImported):
                await import_game(game_log(pool, announce=False), lines)
        finally:
            await pool.close()
        assert str(imported.game_id) == first.game_id
        listed = (await there.get("/v1/games")).json()["items"]
        assert [(g["id"], g["status"], g["created_by"]) for g in listed] == [
            (first.game_id, "finished", None)
        ]
        view = await there.get(f"/v1/games/{first.game_id}")
        assert view.status_code == 200 and view.json()["view"]["status"] == "finished"
        page = await there.get(f"/v1/games/{first.game_id}/events", params={"limit": 500})
        assert page.status_code == 200 and page.json()["items"][0]["version"] == 1
        names = {p["id"]: p["name"] for p in players}
        for seat_player in first.state.players:
            guest = (await there.get(f"/v1/players/{seat_player}")).json()
            assert guest == {"id": seat_player, "name": names[seat_player], "kind": "guest"}
        await caught_up(there)
        stats_body = (await there.get(f"/v1/players/{first.state.players[0]}/stats")).json()
        assert stats_body["games"] == 1


async def test_unknown_games_and_players_are_404_problems(client):
    nobody = uuid.uuid4()
    for path in (f"/v1/games/{nobody}/sheet", f"/v1/games/{nobody}/sheet.svg",
                 f"/v1/games/{nobody}/deals/1/replay", f"/v1/games/{nobody}/export",
                 f"/v1/players/{nobody}/stats", f"/v1/players/{nobody}/rating"):  # fmt: skip
        response = await client.get(path)
        assert response.status_code == 404, path
        assert response.headers["content-type"] == PROBLEM


async def test_a_player_without_games_has_empty_statistics_and_the_starting_rating(client):
    player = await register(client, "Eve")
    stats_body = (await client.get(f"/v1/players/{player['id']}/stats")).json()
    assert stats_body["games"] == 0 and stats_body["best_game"] is None
    rating = (await client.get(f"/v1/players/{player['id']}/rating")).json()
    assert rating["games"] == 0 and rating["provisional"] and rating["history"] == []
    assert (await client.get("/v1/ratings")).json() == {"items": [], "total": 0,
                                                        "next_cursor": None}  # fmt: skip
    bad = await client.get("/v1/ratings", params={"cursor": "nonsense!"})
    assert bad.status_code == 400


async def play_until(client, game_id: str, players: list[dict[str, str]], deal_no: int) -> Any:
    """Play random legal actions through the API until deal ``deal_no`` has started."""
    rng = random.Random(5)
    while True:
        for player in players:
            view = (await client.get(f"/v1/games/{game_id}", headers=auth(player))).json()
            if view["view"]["deal_no"] >= deal_no:
                return view
            if view["legal_actions"]:
                action = rng.choice(view["legal_actions"])
                done = await client.post(f"/v1/games/{game_id}/actions", json=action,
                                         headers=auth(player))  # fmt: skip
                assert done.status_code == 200, done.text


async def test_during_a_game_finished_deals_replay_as_each_seat_saw_them(client, events):
    players = [await register(client, name) for name in ("North", "East", "West")]
    created = await client.post(
        "/v1/games", json={"seats": 3, "seat": 0, "seed": "replays"}, headers=auth(players[0])
    )
    assert created.status_code == 201, created.text
    game_id = created.json()["id"]
    for seat, player in enumerate(players[1:], 1):
        joined = await client.post(f"/v1/games/{game_id}/seats", json={"seat": seat},
                                   headers=auth(player))  # fmt: skip
        assert joined.status_code == 200, joined.text
    await play_until(client, game_id, players, deal_no=2)

    in_play = await client.get(f"/v1/games/{game_id}/deals/2/replay", headers=auth(players[0]))
    assert in_play.status_code == 409
    assert in_play.json()["code"] == "replay.deal_in_progress"
    export = await client.get(f"/v1/games/{game_id}/export")
    assert export.status_code == 409 and export.json()["code"] == "export.game_not_finished"

    logged = [item.event for item in await events.read(f"game-{game_id}")]
    dealt = deal_log(logged, 1).events[0]
    mine = (await client.get(f"/v1/games/{game_id}/deals/1/replay", params={"at": 1},
                             headers=auth(players[1]))).json()  # fmt: skip
    assert mine["visibility"] == "seat" and mine["viewer"] == 1
    assert mine["analysis"] is None  # it judges every hand: only once the game is over
    assert mine["state"]["hands"] == [None, list(dealt.hands[1]), None]
    assert mine["state"]["talon"] == []
    spectator = (await client.get(f"/v1/games/{game_id}/deals/1/replay",
                                  params={"at": 1})).json()  # fmt: skip
    assert spectator["visibility"] == "public" and spectator["state"]["hands"] == [None, None, None]
    assert spectator["analysis"] is None

    await caught_up(client)
    sheet = (await client.get(f"/v1/games/{game_id}/sheet")).json()
    assert sheet["status"] == "playing" and sheet["deals_scored"] >= 1
    assert sheet["settlement"] is None
