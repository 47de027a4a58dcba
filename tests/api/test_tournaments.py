"""Tournaments through the public API (issue 24): a whole Swiss event, a whole duplicate event,
a robot duplicate, the duplicate tables' embargo door by door, the arbiter, and bad input."""

from __future__ import annotations

import asyncio
import hashlib
import json
import random
import time
import uuid
from fractions import Fraction
from typing import Any

import asyncpg
import httpx
import jsonschema_rs
import pytest
from apitools import PROBLEM, Player, SseLog, cards_in, choose, make_app, read_sse, register
from litestar import Litestar
from litestar.testing import AsyncTestClient

from service.app import OPENAPI_PATH
from service.eventlog.store import uuid7
from service.platform.clock import Clock

pytestmark = pytest.mark.integration

HOUR = 3_600_000


@pytest.fixture
def app(database_dsn: str) -> Litestar:
    return make_app(database_dsn, {"daily_robot_duplicate": False})


def _format(**over: Any) -> dict[str, Any]:
    now = int(time.time() * 1000)
    body: dict[str, Any] = {
        "rounds": 2,
        "pairing": "swiss",
        "length": {"kind": "deals", "deals": 1},
        "registration": {"opens_at": now - 1000, "closes_at": now + HOUR},
    }
    body.update(over)
    return body


async def _players(client: httpx.AsyncClient, n: int) -> list[Player]:
    return [await register(client, f"entrant {i}") for i in range(n)]


async def _create(client: httpx.AsyncClient, organiser: Player, **fmt: Any) -> dict[str, Any]:
    created = await client.post(
        "/v1/tournaments", json={"name": "Test cup", "format": _format(**fmt)},
        headers=organiser.auth,
    )  # fmt: skip
    assert created.status_code == 201, created.text
    return created.json()


async def _play_table(
    client: httpx.AsyncClient, game: str, by_id: dict[str, Player], rng: random.Random
) -> dict[str, Any]:
    """Every seat of the table played by its own player's token, to the game's end."""
    for _ in range(3000):
        for someone in by_id.values():  # a duplicate table shows itself to its players only
            seen = await client.get(game, headers=someone.auth)
            if seen.status_code == 200:
                break
        public = seen.json()
        players = public["view"]["players"]
        if public["view"]["status"] == "finished":
            return public
        to_act = public["view"]["deal"]["to_act"]
        if not to_act:
            await asyncio.sleep(0.05)
            continue
        player = by_id.get(players[to_act[0]])
        if player is None:  # a bot's seat: the steward moves for it
            await asyncio.sleep(0.05)
            continue
        mine = (await client.get(game, headers=player.auth)).json()
        if not mine["legal_actions"]:
            await asyncio.sleep(0.05)
            continue
        action = choose(rng, mine["legal_actions"], quick=True)
        done = await client.post(f"{game}/actions", json=action, headers=player.auth)
        assert done.status_code in (200, 409, 412), done.text
    raise AssertionError("the table did not finish")


async def _event_of(client: httpx.AsyncClient, n: int) -> tuple[Player, list[Player], str]:
    """An event (`_create`) with ``n`` entrants registered: its organiser, the field, its id."""
    organiser, *field = await _players(client, n + 1)
    tid = (await _create(client, organiser))["id"]
    for p in field:
        joined = await client.post(f"/v1/tournaments/{tid}/registrations", headers=p.auth)
        assert joined.status_code == 200, joined.text
    return organiser, field, tid


def _round_ready(n: int) -> Any:
    def ready(body: dict[str, Any]) -> bool:
        rounds = body["rounds"]
        return len(rounds) == n and all(t["game"] for t in rounds[-1]["tables"])

    return ready


async def _until(client: Any, path: str, check: Any, app: Litestar, tries: int = 200) -> Any:
    for _ in range(tries):
        body = (await client.get(path)).json()
        if check(body):
            return body
        await asyncio.sleep(0.05)
    raise AssertionError(f"{path} never came to the expected state: {body}")


async def test_a_whole_swiss_event_of_nine_in_two_rounds(app: Litestar) -> None:
    rng = random.Random(24)
    async with AsyncTestClient(app) as client:
        organiser, *field = await _players(client, 10)
        by_id = {p.id: p for p in field}
        created = await _create(client, organiser, rating_weight=150)
        tid = created["id"]
        assert created["status"] == "registering" and created["organiser"] == organiser.id
        assert created["format"]["rating_weight"] == 150
        listed = (await client.get("/v1/tournaments")).json()["items"]
        assert any(t["id"] == tid and t["kind"] == "swiss" for t in listed)
        for p in field:
            joined = await client.post(f"/v1/tournaments/{tid}/registrations", headers=p.auth)
            assert joined.status_code == 200, joined.text
        again = await client.post(f"/v1/tournaments/{tid}/registrations", headers=field[0].auth)
        assert again.status_code == 409 and again.headers["content-type"] == PROBLEM
        assert again.json()["code"] == "illegal.already_registered"
        # Only the organiser starts it.
        refused = await client.post(f"/v1/tournaments/{tid}/rounds", headers=field[0].auth)
        assert refused.status_code == 403, refused.text
        started = await client.post(f"/v1/tournaments/{tid}/rounds", headers=organiser.auth)
        assert started.status_code == 200, started.text
        assert started.json()["status"] == "running"
        # The tables are opened after the answer, one after another, each listed once created.
        view = await _until(client, f"/v1/tournaments/{tid}", _round_ready(1), app)
        (round1,) = view["rounds"]
        assert len(round1["tables"]) == 3 and round1["secret"] is None
        seated = sorted(p for t in round1["tables"] for p in t["seating"])
        assert seated == sorted(by_id)
        # Each table's game exists with its players seated and dealt; they are told.
        for t in round1["tables"]:
            game = (await client.get(t["game"], headers=by_id[t["seating"][0]].auth)).json()
            assert game["view"]["players"] == t["seating"]
            assert game["view"]["status"] == "playing"
            assert game["view"]["rules"]["pool"]["max_deals"] == 1
            assert game["view"]["rules"]["table"]["rating_weight"] == 150  # the event's
        notes = (await client.get("/v1/players/me/notifications", headers=field[0].auth)).json()
        assert any(n["kind"] == "tournament_table" for n in notes["items"]), notes
        for t in round1["tables"]:
            await _play_table(client, t["game"], by_id, rng)
        view = await _until(client, f"/v1/tournaments/{tid}", _round_ready(2), app)
        round1, round2 = view["rounds"]
        assert round1["secret"] is not None  # revealed: the seats can be recomputed
        assert all(t["result"] is not None for t in round1["tables"])
        for t in round1["tables"]:
            assert sum(t["result"]["whists"]) == 0
        # Swiss: nobody meets a round-1 opponent again (nine players make that possible).
        met = {frozenset((a, b)) for t in round1["tables"] for a in t["seating"]
               for b in t["seating"] if a != b}  # fmt: skip
        again_met = {frozenset((a, b)) for t in round2["tables"] for a in t["seating"]
                     for b in t["seating"] if a != b}  # fmt: skip
        assert not met & again_met
        for t in round2["tables"]:
            await _play_table(client, t["game"], by_id, rng)
        view = await _until(
            client, f"/v1/tournaments/{tid}", lambda b: b["status"] == "finished", app
        )
        standings = view["standings"]
        assert sorted(s["player"] for s in standings) == sorted(by_id)
        assert all(s["rounds"] == 2 for s in standings)
        assert [s["place"] for s in standings] == sorted(s["place"] for s in standings)
        # The log holds every step; the exports publish the pairings and results.
        log = (await client.get(f"/v1/tournaments/{tid}/log", params={"limit": 500})).json()
        types = [i["type"] for i in log["items"]]
        assert types[0] == "tournament_created"
        assert types.count("player_registered") == 9
        assert types.count("round_started") == 2 and types.count("round_ended") == 2
        assert types.count("table_result_recorded") == 6 and types[-1] == "tournament_ended"
        text = await client.get(f"/v1/tournaments/{tid}/export", params={"format": "text"})
        assert text.status_code == 200 and text.headers["content-type"].startswith("text/plain")
        assert "Round 1" in text.text and "Round 2" in text.text and "Standings" in text.text
        assert field[0].name in text.text
        exported = (await client.get(f"/v1/tournaments/{tid}/export")).json()
        assert exported["standings"] == standings
        history = (await client.get(f"/v1/players/{field[0].id}/tournaments")).json()
        assert [t["id"] for t in history["items"]] == [tid]
        # Both of his tables are rated at the event's weight.
        games = {t["game"].rsplit("/", 1)[-1] for r in view["rounds"] for t in r["tables"]
                 if field[0].id in t["seating"]}  # fmt: skip
        rating = await _until(
            client, f"/v1/players/{field[0].id}/rating", lambda b: b["games"] == 2, app
        )
        assert {line["game_id"] for line in rating["history"]} == games
        assert [line["weight"] for line in rating["history"]] == [150, 150]


async def _deal_hands(client: httpx.AsyncClient, game: str, player: Player) -> list[list[str]]:
    """Each deal's dealt hands as ``player`` was shown them (the others' empty)."""
    page = (await client.get(f"{game}/events", params={"limit": 500}, headers=player.auth)).json()
    return [i["event"]["hands"] for i in page["items"] if i["event"]["type"] == "deal_started"]


async def test_a_whole_duplicate_event_and_its_embargo_door_by_door(app: Litestar) -> None:
    rng = random.Random(7)
    async with AsyncTestClient(app) as client:
        organiser, *field = await _players(client, 10)
        by_id = {p.id: p for p in field}
        created = await _create(
            client, organiser, pairing="schedule", uneven="byes",
            length={"kind": "deals", "deals": 2},
            duplicate={"deals_per_round": 2, "scale": "matchpoints"},
        )  # fmt: skip
        tid = created["id"]
        assert created["kind"] == "duplicate" and created["deals_secret"] is None
        commitment = created["deals_commitment"]
        for p in field:
            assert (await client.post(f"/v1/tournaments/{tid}/registrations",
                                      headers=p.auth)).status_code == 200  # fmt: skip
        started = await client.post(f"/v1/tournaments/{tid}/rounds", headers=organiser.auth)
        assert started.status_code == 200, started.text
        view = await _until(client, f"/v1/tournaments/{tid}", _round_ready(1), app)
        one, two, three = view["rounds"][0]["tables"]
        a, b = by_id[one["seating"][0]], by_id[two["seating"][0]]
        # While the event runs nobody but a table's players sees it: not a player of the
        # other table (who plays the same deals), not a spectator.
        for who in (b.auth, {}):
            for path in ("", "/events", "/sheet", "/sheet.svg", "/chat"):
                seen = await client.get(f"{one['game']}{path}", headers=who)
                assert seen.status_code == 403, (path, seen.text)
                assert seen.json()["code"] == "duplicate_embargo"
        stream = await client.get(f"{one['game']}/stream", headers=b.auth)
        assert stream.status_code == 403
        assert (await client.get(one["game"], headers=a.auth)).status_code == 200
        await _play_table(client, one["game"], by_id, rng)
        # Table one is over, table two is not: its players see nothing more of the layouts
        # than they saw in play, and the tournament shows no result of the round yet.
        for door in ("/deals/1/replay", "/deals/2/replay?lang=ru", "/export", "/proof"):
            shut = await client.get(f"{one['game']}{door}", headers=a.auth)
            assert shut.status_code == 409, (door, shut.text)
            assert shut.json()["code"] == "tournament.duplicate_embargo"
        mine = await client.get(one["game"], headers=a.auth)
        assert mine.status_code == 200
        await asyncio.sleep(1.5)  # the clerk has recorded table one by now
        now = (await client.get(f"/v1/tournaments/{tid}")).json()
        assert all(t["result"] is None for t in now["rounds"][0]["tables"])
        log = (await client.get(f"/v1/tournaments/{tid}/log", params={"limit": 500})).json()
        for item in log["items"]:
            if item["type"] == "table_result_recorded":
                assert item["event"]["outcomes"] == [] and item["event"]["whists"] == []
        text = (await client.get(f"/v1/tournaments/{tid}/export", params={"format": "text"})).text
        assert "+" not in text.split("Standings")[0]
        await _play_table(client, two["game"], by_id, rng)
        await _play_table(client, three["game"], by_id, rng)
        view = await _until(client, f"/v1/tournaments/{tid}", _round_ready(2), app)
        for t in view["rounds"][1]["tables"]:
            await _play_table(client, t["game"], by_id, rng)
        view = await _until(
            client, f"/v1/tournaments/{tid}",
            lambda body: body["status"] == "finished" and body["deals_secret"], app,
        )  # fmt: skip
        # The deals' secret opens the commitment made at creation.

        assert hashlib.sha256(bytes.fromhex(view["deals_secret"])).hexdigest() == commitment
        # Every table of a round held the same cards at the same seat.
        for r in view["rounds"]:
            for seat in range(3):
                held = []
                for t in r["tables"]:
                    hands = await _deal_hands(client, t["game"], by_id[t["seating"][seat]])
                    assert all(len(h[seat]) == 10 for h in hands)
                    held.append([h[seat] for h in hands])
                assert held[0] == held[1] == held[2]
        # Now every door opens, to anyone.
        for door in ("", "/deals/1/replay", "/export", "/proof", "/sheet"):
            assert (await client.get(f"{one['game']}{door}")).status_code == 200, door
        replay = (await client.get(f"{one['game']}/deals/1/replay")).json()
        assert replay["visibility"] == "full"
        assert len(cards_in(replay["state"]["hands"])) == 30
        totals = [s["duplicate"] for s in view["standings"]]
        assert all(t is not None for t in totals)
        # Matchpoints per deal and seat sum to n(n - 1): three tables, 2 deals, 3 seats, 2 rounds.
        assert sum(Fraction(t) for t in totals) == 3 * 2 * 2 * 3 * 2
        log = (await client.get(f"/v1/tournaments/{tid}/log", params={"limit": 500})).json()
        assert log["items"][-1]["type"] == "deals_revealed"


async def test_bad_input_is_a_problem(app: Litestar) -> None:
    async with AsyncTestClient(app) as client:
        organiser, other = await _players(client, 2)
        bad = await client.post(
            "/v1/tournaments", json={"name": "x", "format": _format(rounds=0)},
            headers=organiser.auth,
        )  # fmt: skip
        assert bad.status_code == 422 and bad.headers["content-type"] == PROBLEM
        unknown = await client.post(
            "/v1/tournaments", json={"name": "x", "format": _format(preset="nowhere")},
            headers=organiser.auth,
        )  # fmt: skip
        assert unknown.status_code == 422
        duplicate = await client.post(
            "/v1/tournaments",
            json={"name": "x", "format": _format(uneven="byes",
                                                  duplicate={"deals_per_round": 3})},
            headers=organiser.auth,
        )  # fmt: skip
        assert duplicate.status_code == 422, duplicate.text  # its length is not its deals
        for over in ({"rating_weight": 301}, {"overrides": {"table": {"rating_weight": 0}}},
                     {"overrides": {"table": 3}}):  # fmt: skip
            weighed = await client.post(
                "/v1/tournaments", json={"name": "x", "format": _format(**over)},
                headers=organiser.auth,
            )  # fmt: skip
            assert weighed.status_code == 422, weighed.text
            assert weighed.json()["code"] == "invalid_tournament"
        anonymous = await client.post("/v1/tournaments", json={"name": "x", "format": _format()})
        assert anonymous.status_code == 401
        missing = await client.get("/v1/tournaments/01900000-0000-7000-8000-000000000000")
        assert missing.status_code == 404 and missing.headers["content-type"] == PROBLEM
        tid = (await _create(client, organiser))["id"]
        garbage = await client.post(
            f"/v1/tournaments/{tid}/decisions", json={"type": "pause_table", "round_no": 1},
            headers=organiser.auth,
        )  # fmt: skip
        assert garbage.status_code == 400
        no_reason = await client.post(
            f"/v1/tournaments/{tid}/decisions",
            json={"type": "give_card", "player": other.id, "reason": " "},
            headers=organiser.auth,
        )  # fmt: skip
        assert no_reason.status_code == 400
        not_arbiter = await client.post(
            f"/v1/tournaments/{tid}/decisions",
            json={"type": "record_appeal", "player": other.id, "appeal": "a", "reason": "r",
                  "decision": "pending"},
            headers=other.auth,
        )  # fmt: skip
        assert not_arbiter.status_code == 403
        too_few = await client.post(f"/v1/tournaments/{tid}/rounds", headers=organiser.auth)
        assert too_few.status_code == 409 and too_few.json()["code"] == "illegal.field_too_small"
        no_run = await client.post(f"/v1/tournaments/{tid}/runs", headers=other.auth)
        assert no_run.status_code == 409
        cursor = await client.get("/v1/tournaments", params={"cursor": "nope"})
        assert cursor.status_code == 400


class _AheadClock(Clock):
    """The wall clock, moved forward when the test says so: the robot event's window closes
    when the test is done playing, however slow the machine, not after a fixed wait."""

    ahead_ms = 0

    def now_ms(self) -> int:
        return super().now_ms() + self.ahead_ms


async def test_a_robot_duplicate_compares_every_entrant_on_the_same_deals(
    database_dsn: str,
) -> None:
    """One human and two bots per run (two entrants here); each entrant's human seat is
    played by a script; the event ends by its window, only then are results and deals shown."""
    rng = random.Random(3)
    clock = _AheadClock()
    app = make_app(database_dsn, {"daily_robot_duplicate": False}, clock=clock)
    async with AsyncTestClient(app) as client:
        organiser, *field = await _players(client, 3)
        by_id = {p.id: p for p in field}
        now = clock.now_ms()
        window = {"opens_at": now - 1000, "closes_at": now + HOUR}
        created = await _create(
            client, organiser, rounds=1, uneven="byes", registration=window,
            length={"kind": "deals", "deals": 3},
            duplicate={"deals_per_round": 3, "robots": {"level": "basic"}},
        )  # fmt: skip
        tid = created["id"]
        assert created["kind"] == "robot"
        games = []
        for p in field:
            assert (await client.post(f"/v1/tournaments/{tid}/registrations",
                                      headers=p.auth)).status_code == 200  # fmt: skip
            run = await client.post(f"/v1/tournaments/{tid}/runs", headers=p.auth)
            assert run.status_code == 201, run.text
            games.append(run.json()["game"])
            twice = await client.post(f"/v1/tournaments/{tid}/runs", headers=p.auth)
            assert twice.status_code == 409 and twice.json()["code"] == "illegal.already_played"
        first_view = (await client.get(games[0], headers=field[0].auth)).json()
        assert first_view["view"]["players"][0] == field[0].id
        assert all(k == "bot" for k in [s["kind"] for s in first_view["seated"][1:]])
        # Another entrant cannot look at a run, even after playing his own.
        assert (await client.get(games[0], headers=field[1].auth)).status_code == 403
        for game, p in zip(games, field, strict=True):
            await _play_table(client, game, {p.id: p}, rng)
        await asyncio.sleep(1.5)
        shown = (await client.get(f"/v1/tournaments/{tid}")).json()
        assert shown["status"] == "running"
        assert all(r["result"] is None for r in shown["runs"])  # withheld while others may play
        assert (await client.get(f"{games[0]}/deals/1/replay")).status_code == 409
        clock.ahead_ms = HOUR + 1000  # the window closes
        view = await _until(
            client, f"/v1/tournaments/{tid}",
            lambda body: body["status"] == "finished" and body["deals_secret"], app, tries=600,
        )  # fmt: skip
        assert all(r["result"] is not None for r in view["runs"])
        standings = {s["player"]: s for s in view["standings"]}
        assert set(standings) == set(by_id)  # the bots are never compared
        total = sum(Fraction(s["duplicate"]) for s in standings.values())
        assert total == 2 * 1 * 3  # n(n - 1) per deal: two entrants, three deals
        # In deal k each entrant held the same cards: seat (k - 1) mod 3's of the deck.
        held = [await _deal_hands(client, g, p) for g, p in zip(games, field, strict=True)]
        for k in range(3):
            assert held[0][k][0] == held[1][k][0]
        assert (await client.get(f"{games[0]}/deals/1/replay")).status_code == 200


async def test_the_arbiters_decisions_are_events_of_the_log_with_their_reasons(
    app: Litestar,
) -> None:
    async with AsyncTestClient(app) as client:
        organiser, *field = await _players(client, 4)
        tid = (await _create(client, organiser))["id"]
        for p in field:
            await client.post(f"/v1/tournaments/{tid}/registrations", headers=p.auth)
        await client.post(f"/v1/tournaments/{tid}/rounds", headers=organiser.auth)

        async def decide(**body: Any) -> httpx.Response:
            return await client.post(
                f"/v1/tournaments/{tid}/decisions", json=body, headers=organiser.auth
            )

        paused = await decide(type="pause_table", round_no=1, table=1, reason="a dispute")
        assert paused.status_code == 200 and paused.json()["rounds"][0]["tables"][0]["paused"]
        again = await decide(type="pause_table", round_no=1, table=1, reason="again")
        assert again.status_code == 409 and again.json()["code"] == "illegal.table_paused"
        await decide(type="resume_table", round_no=1, table=1, reason="settled")
        carded = await decide(type="give_card", player=field[0].id, reason="slow play")
        assert (
            next(e for e in carded.json()["entrants"] if e["player"] == field[0].id)["cards"] == 1
        )
        await decide(type="record_appeal", player=field[1].id, appeal="the card was misplayed",
                     decision="rejected", reason="the log shows it")  # fmt: skip
        log = (await client.get(f"/v1/tournaments/{tid}/log")).json()["items"]
        decisions = [(i["type"], i["event"]["reason"]) for i in log if "reason" in i["event"]
                     and i["type"] != "yellow_card"]  # fmt: skip
        assert decisions == [
            ("table_paused", "a dispute"), ("table_resumed", "settled"),
            ("appeal_recorded", "the log shows it"),
        ]  # fmt: skip
        card = next(i["event"] for i in log if i["type"] == "yellow_card")
        assert card["arbiter"] == organiser.id and card["detail"] == "slow play"
        withdrawn = await client.delete(
            f"/v1/tournaments/{tid}/registrations", params={"reason": "ill"}, headers=field[2].auth
        )
        assert withdrawn.status_code == 200
        gone = next(e for e in withdrawn.json()["entrants"] if e["player"] == field[2].id)
        assert gone["status"] == "withdrawn"


async def test_the_clerk_creates_the_days_robot_duplicate_once(database_dsn: str) -> None:
    app = make_app(database_dsn, {"daily_robot_duplicate": True})
    async with AsyncTestClient(app) as client:
        for _ in range(100):
            items = (await client.get("/v1/tournaments")).json()["items"]
            if items:
                break
            await asyncio.sleep(0.05)
        (daily,) = items
        assert daily["kind"] == "robot" and daily["daily"] is not None
        read = await client.get(f"/v1/tournaments/{daily['id']}")
        assert read.status_code == 200, read.text
        view = read.json()
        assert view["format"]["duplicate"]["robots"]["level"] == "basic"
        window = view["format"]["registration"]
        assert window["closes_at"] - window["opens_at"] == 24 * HOUR
        await asyncio.sleep(1.5)  # the clerk looks again: still one
        assert len((await client.get("/v1/tournaments")).json()["items"]) == 1


async def test_the_standings_stream_sends_the_standings_at_once_and_after_each_change(
    server: str,
) -> None:
    async with httpx.AsyncClient(base_url=server, timeout=10) as client:
        organiser, player, *others = await _players(client, 4)
        tid = (await _create(client, organiser))["id"]
        log = SseLog()
        async with client.stream("GET", f"/v1/tournaments/{tid}/stream") as response:
            assert response.status_code == 200
            frames = read_sse(response, log)
            first = await anext(frames)
            assert first.event == "standings" and json.loads(first.data)["standings"] == []
            joined = await client.post(f"/v1/tournaments/{tid}/registrations", headers=player.auth)
            assert joined.status_code == 200
            second = await asyncio.wait_for(anext(frames), 5)
            body = json.loads(second.data)
            assert second.id == body["version"] == first.id + 1
            # everything changed (one standing, new): the whole standings again
            assert second.event == "standings"
            assert [s["player"] for s in body["standings"]] == [player.id]
            # after that, only what changed; applied in order they give the view's standings
            standings = {s["player"]: s for s in body["standings"]}
            version = body["version"]
            for other in others:
                joined = await client.post(
                    f"/v1/tournaments/{tid}/registrations", headers=other.auth
                )
                assert joined.status_code == 200
                frame = await asyncio.wait_for(anext(frames), 5)
                change = json.loads(frame.data)
                assert frame.event == "standings-changes" and change["since"] == version
                assert other.id in [s["player"] for s in change["changed"]]
                assert len(change["changed"]) < len(standings) + 1 and change["left"] == []
                standings.update((s["player"], s) for s in change["changed"])
                version = change["version"]
            left = await client.delete(
                f"/v1/tournaments/{tid}/registrations", headers=others[0].auth
            )
            assert left.status_code in (200, 204), left.text
            frame = await asyncio.wait_for(anext(frames), 5)
            change = json.loads(frame.data)
            for s in change.get("changed", change.get("standings", [])):
                standings[s["player"]] = s
            for gone in change.get("left", []):
                standings.pop(gone)
            view = (await client.get(f"/v1/tournaments/{tid}")).json()
            assert view["version"] == change["version"]
            shown = sorted(standings.values(), key=lambda s: (s["place"], s["player"]))
            assert shown == sorted(view["standings"], key=lambda s: (s["place"], s["player"]))
        missing = await client.get("/v1/tournaments/01900000-0000-7000-8000-000000000000/stream")
        assert missing.status_code == 404
        # Every message is one the spec describes (TournamentFrame).
        spec = json.loads(OPENAPI_PATH.read_text())
        check = jsonschema_rs.validator_for(
            {"$ref": "#/components/schemas/TournamentFrame", "components": spec["components"]}
        )
        messages = [{"retry": log.retry}] + [
            {"id": f.id, "event": f.event, "data": json.loads(f.data)} for f in log.frames
        ]
        assert {m.get("event") for m in messages} == {None, "standings", "standings-changes"}
        for message in messages:
            assert [str(e) for e in check.iter_errors(message)] == [], message
        assert not check.is_valid({"id": 1, "event": "standings", "data": {}})


async def test_a_tournament_exported_as_text_says_so_in_one_content_type(
    client: httpx.AsyncClient,
) -> None:
    (organiser,) = await _players(client, 1)
    tid = (await _create(client, organiser))["id"]
    text = await client.get(f"/v1/tournaments/{tid}/export", params={"format": "text"})
    assert text.status_code == 200 and text.headers["content-type"] == "text/plain; charset=utf-8"
    assert "Standings" in text.text
    spec = json.loads(OPENAPI_PATH.read_text())
    documented = spec["paths"]["/v1/tournaments/{tournament_id}/export"]["get"]["responses"]
    assert set(documented["200"]["content"]) == {"application/json", "text/plain"}


async def test_a_player_removed_for_timeouts_is_played_for_and_carded(app: Litestar) -> None:
    """Nobody moves at the table: each seat times out, is marked absent and played for by the
    stand-in to the table's end; the tournament removes and cards each, and his result counts."""
    async with AsyncTestClient(app) as client:
        organiser, *field = await _players(client, 4)
        clock = {"table": {"move_seconds": 1, "timeouts_to_absent": 1}}
        tid = (await _create(client, organiser, rounds=1, overrides=clock))["id"]
        for p in field:
            await client.post(f"/v1/tournaments/{tid}/registrations", headers=p.auth)
        await client.post(f"/v1/tournaments/{tid}/rounds", headers=organiser.auth)
        view = await _until(
            client, f"/v1/tournaments/{tid}", lambda b: b["status"] == "finished", app, tries=400
        )
        (table,) = view["rounds"][0]["tables"]
        assert table["result"] is not None and sum(table["result"]["whists"]) == 0
        removed = set(table["removed"])
        assert removed and removed <= set(table["seating"])
        cards = {e["player"]: e["cards"] for e in view["entrants"]}
        assert all(cards[p] == 1 for p in removed)
        log = (await client.get(f"/v1/tournaments/{tid}/log", params={"limit": 500})).json()
        types = [i["type"] for i in log["items"]]
        assert types.count("player_removed") == len(removed)
        assert types.index("player_removed") < types.index("table_result_recorded")


async def test_check_in_no_shows_and_an_arbiters_uploaded_pairing(app: Litestar) -> None:
    async with AsyncTestClient(app) as client:
        organiser, *field = await _players(client, 5)
        now = int(time.time() * 1000)
        window = {"opens_at": now - 1000, "closes_at": now + HOUR,
                  "check_in_opens_at": now - 1000, "check_in_closes_at": now + HOUR}  # fmt: skip
        tid = (await _create(client, organiser, rounds=1, registration=window))["id"]
        for p in field:
            await client.post(f"/v1/tournaments/{tid}/registrations", headers=p.auth)
        for p in field[:3]:
            checked = await client.post(
                f"/v1/tournaments/{tid}/check-ins", json={"client_seed": "mine"}, headers=p.auth
            )
            assert checked.status_code == 200, checked.text
        twice = await client.post(f"/v1/tournaments/{tid}/check-ins", headers=field[0].auth)
        assert twice.status_code == 409 and twice.json()["code"] == "illegal.checked_in"
        here = [p.id for p in field[:3]]
        wrong = await client.post(
            f"/v1/tournaments/{tid}/rounds", json={"pairing": {"tables": [here[:2]]}},
            headers=organiser.auth,
        )  # fmt: skip
        assert wrong.status_code == 409, wrong.text
        started = await client.post(
            f"/v1/tournaments/{tid}/rounds", json={"pairing": {"tables": [here]}},
            headers=organiser.auth,
        )  # fmt: skip
        assert started.status_code == 200, started.text
        view = started.json()
        assert sorted(view["rounds"][0]["tables"][0]["seating"]) == sorted(here)
        status = {e["player"]: e["status"] for e in view["entrants"]}
        assert [status[p.id] for p in field[3:]] == ["no_show"]
        log = (await client.get(f"/v1/tournaments/{tid}/log")).json()["items"]
        started_event = next(i["event"] for i in log if i["type"] == "round_started")
        assert started_event["pairing"] == "arbiter" and started_event["arbiter"] == organiser.id


async def test_a_round_left_half_opened_is_opened_by_the_clerk(
    app: Litestar, database_dsn: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A process that stops while it opens a round's tables (each table's row claimed, no game
    created yet) leaves them to the clerk's next look, which opens them for their rows;
    meanwhile the view links no game that is not there."""
    async with AsyncTestClient(app) as client:
        organiser, field, tid = await _event_of(client, 6)
        by_id = {p.id: p for p in field}
        service = app.state.tournaments
        monkeypatch.setattr(service, "_open_later", lambda *_: None)  # the process stops
        started = await client.post(f"/v1/tournaments/{tid}/rounds", headers=organiser.auth)
        assert started.status_code == 200, started.text
        claimed = []
        conn = await asyncpg.connect(database_dsn)
        try:
            for t in started.json()["rounds"][0]["tables"]:
                claimed.append(str(uuid7()))
                await conn.execute(
                    "INSERT INTO api.tournament_tables (game_id, tournament_id, round_no,"
                    " table_no, players) VALUES ($1, $2, 1, $3, $4::uuid[])",
                    uuid.UUID(claimed[-1]), uuid.UUID(tid), t["table"], t["seating"],
                )  # fmt: skip
        finally:
            await conn.close()
        shown = (await client.get(f"/v1/tournaments/{tid}")).json()["rounds"][0]["tables"]
        assert [t["game"] for t in shown] == [None, None]  # no link to a game not there

        monkeypatch.undo()  # the clerk's next look opens both
        view = await _until(client, f"/v1/tournaments/{tid}", _round_ready(1), app, tries=400)
        for t in view["rounds"][0]["tables"]:
            game = await client.get(t["game"], headers=by_id[t["seating"][0]].auth)
            assert game.status_code == 200, game.text
            assert game.json()["view"]["players"] == t["seating"]
        assert [t["game_id"] for t in view["rounds"][0]["tables"]] == claimed  # for their rows


async def test_the_clerk_loads_only_the_games_that_have_ended(
    app: Litestar, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The clerk looks with every append anywhere: it turns to a table (loading its game) only
    once the game's lobby row says it ended, never to the tables still in play (a round of a
    thousand players had it load every table's game on every look)."""
    rng = random.Random(31)
    async with AsyncTestClient(app) as client:
        organiser, field, tid = await _event_of(client, 6)
        by_id = {p.id: p for p in field}
        service = app.state.tournaments
        looked: list[uuid.UUID] = []
        real = service._record

        async def spy(tid: uuid.UUID, state: Any, row: Any) -> bool:
            looked.append(row.game_id)
            return bool(await real(tid, state, row))

        monkeypatch.setattr(service, "_record", spy)
        started = await client.post(f"/v1/tournaments/{tid}/rounds", headers=organiser.auth)
        assert started.status_code == 200, started.text
        path = f"/v1/tournaments/{tid}"
        first, second = (await _until(client, path, _round_ready(1), app))["rounds"][0]["tables"]
        await _play_table(client, first["game"], by_id, rng)  # its every move: a look
        done = await _until(
            client, path, lambda b: b["rounds"][0]["tables"][0]["result"] is not None, app,
            tries=400,
        )  # fmt: skip
        assert done["rounds"][0]["tables"][1]["result"] is None
        assert set(looked) == {uuid.UUID(first["game_id"])}  # the one that ended, only
        assert uuid.UUID(second["game_id"]) not in looked
