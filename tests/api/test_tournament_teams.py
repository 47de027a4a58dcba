"""A whole team event through the public API (issue 24): teams of 3 to 5 register, captains
(or the arbiter) name who plays, three of each team play each round, and the teams rank by the
sums of their playing members."""

from __future__ import annotations

import random
from fractions import Fraction

from apitools import PROBLEM
from litestar import Litestar
from litestar.testing import AsyncTestClient
from test_tournaments import _create, _play_table, _players, _round_ready, _until, app

__all__ = ["app"]  # the fixture, shared with the other tournaments' tests


async def test_a_whole_team_event_of_three_teams_three_playing_each_round(app: Litestar) -> None:
    rng = random.Random(3)
    async with AsyncTestClient(app) as client:
        organiser, *everyone = await _players(client, 12)
        by_id = {p.id: p for p in everyone}
        teams = {"North": everyone[0:4], "South": everyone[4:7], "East": everyone[7:11]}
        team_of = {p.id: team for team, members in teams.items() for p in members}
        created = await _create(client, organiser, teams={"min_size": 3, "max_size": 5})
        tid = created["id"]
        assert created["teams"] == []
        alone = await client.post(f"/v1/tournaments/{tid}/registrations", headers=everyone[0].auth)
        assert alone.status_code == 409 and alone.json()["code"] == "illegal.team"
        for team, members in teams.items():
            for p in members:
                joined = await client.post(
                    f"/v1/tournaments/{tid}/registrations", json={"team": team}, headers=p.auth
                )
                assert joined.status_code == 200, joined.text
        view = joined.json()
        north, south, east = teams["North"], teams["South"], teams["East"]
        shown = {t["team"]: t for t in view["teams"]}
        assert shown["North"]["members"] == [p.id for p in north]
        assert shown["North"]["captain"] == north[0].id
        assert shown["North"]["lineup"] == [p.id for p in north[:3]]  # the first three
        lineups = f"/v1/tournaments/{tid}/lineups"
        # Only the captain (or the arbiter) names a lineup; it names three of the team.
        body = {"team": "North", "players": [north[3].id, north[1].id, north[2].id]}
        mate = await client.post(lineups, json=body, headers=north[1].auth)
        assert mate.status_code == 403 and mate.headers["content-type"] == PROBLEM
        assert mate.json()["code"] == "not_captain"
        other = await client.post(lineups, json=body, headers=south[0].auth)
        assert other.status_code == 403
        foreign = {"team": "North", "players": [north[0].id, north[1].id, south[1].id]}
        bad = await client.post(lineups, json=foreign, headers=north[0].auth)
        assert bad.status_code == 409 and bad.json()["code"] == "illegal.bad_lineup"
        two = {"team": "North", "players": [north[0].id, north[1].id]}
        assert (await client.post(lineups, json=two, headers=north[0].auth)).status_code == 409
        named = await client.post(lineups, json=body, headers=north[0].auth)
        assert named.status_code == 200, named.text
        by_arbiter = {"team": "East", "players": [p.id for p in east[1:]]}
        named = await client.post(lineups, json=by_arbiter, headers=organiser.auth)
        assert named.status_code == 200, named.text
        shown = {t["team"]: t for t in named.json()["teams"]}
        assert set(shown["North"]["lineup"]) == {p.id for p in north[1:]}
        assert set(shown["East"]["lineup"]) == {p.id for p in east[1:]}

        started = await client.post(f"/v1/tournaments/{tid}/rounds", headers=organiser.auth)
        assert started.status_code == 200, started.text
        view = await _until(client, f"/v1/tournaments/{tid}", _round_ready(1), app)
        (round1,) = view["rounds"]
        seated = {p for t in round1["tables"] for p in t["seating"]}
        assert seated == {p.id for p in (*north[1:], *south, *east[1:])}
        for t in round1["tables"]:  # team-mates never share a table when they can be apart
            assert len({team_of[p] for p in t["seating"]}) == 3, t["seating"]
        # While round 1 is played the captain names round 2's lineup: its captain is back.
        back = {"team": "North", "players": [north[0].id, north[1].id, north[2].id]}
        named = await client.post(lineups, json=back, headers=north[0].auth)
        assert named.status_code == 200, named.text
        for t in round1["tables"]:
            await _play_table(client, t["game"], by_id, rng)
        view = await _until(client, f"/v1/tournaments/{tid}", _round_ready(2), app)
        seated = {p for t in view["rounds"][1]["tables"] for p in t["seating"]}
        assert north[0].id in seated and north[3].id not in seated
        late = await client.post(lineups, json=body, headers=north[0].auth)
        assert late.status_code == 409 and late.json()["code"] == "illegal.no_round_left"
        for t in view["rounds"][1]["tables"]:
            await _play_table(client, t["game"], by_id, rng)
        view = await _until(
            client, f"/v1/tournaments/{tid}", lambda b: b["status"] == "finished", app
        )
        # Team sums: each team's points and counted whists are its playing members' sums.
        singles = {s["player"]: s for s in view["standings"]}
        for team in view["teams"]:
            for key in ("points", "whists"):
                summed = sum(Fraction(singles[p][key]) for p in team["members"])
                assert Fraction(team[key]) == summed, (team, key)
        assert sum(Fraction(t["whists"]) for t in view["teams"]) == 0  # every table is zero-sum
        assert [t["place"] for t in view["teams"]] == sorted(t["place"] for t in view["teams"])
        ranked = [Fraction(t["points"]) for t in view["teams"]]
        assert ranked == sorted(ranked, reverse=True)
        assert singles[east[0].id]["rounds"] == 0 and singles[north[3].id]["rounds"] == 1
        log = (await client.get(f"/v1/tournaments/{tid}/log", params={"limit": 500})).json()
        named_log = [i["event"] for i in log["items"] if i["type"] == "lineup_named"]
        assert [(e["team"], e["by"], e["for_round"]) for e in named_log] == [
            ("North", north[0].id, 1), ("East", organiser.id, 1), ("North", north[0].id, 2),
        ]  # fmt: skip
        text = await client.get(f"/v1/tournaments/{tid}/export", params={"format": "text"})
        assert "Teams" in text.text and "North" in text.text
