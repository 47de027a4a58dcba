"""Creating, listing, joining and reading games."""

from __future__ import annotations

import asyncpg
import httpx
import pytest
from apitools import layouts, register, seated_game

from service.games import lobby
from service.games.streams import game_stream

pytestmark = pytest.mark.integration


async def test_the_creator_is_seated_only_when_he_names_a_seat(client: httpx.AsyncClient) -> None:
    alice = await register(client, "Alice")

    created = await client.post("/v1/games", json={"preset": "leningrad"}, headers=alice.auth)

    assert created.status_code == 201
    body = created.json()
    assert created.headers["location"] == f"/v1/games/{body['id']}"
    assert created.headers["etag"] == '"1"'
    assert body["seat"] is None and body["legal_actions"] == []
    assert body["view"]["players"] == [None, None, None]
    assert body["view"]["rules"]["convention"] == "leningrad"
    assert [e["event"]["type"] for e in body["events"]] == ["game_created"]
    seated = await client.post("/v1/games", json={"seat": 2}, headers=alice.auth)
    assert seated.json()["seat"] == 2
    assert seated.json()["view"]["players"] == [None, None, alice.id]


async def test_the_cards_are_dealt_in_the_step_that_fills_the_last_seat(
    client: httpx.AsyncClient,
) -> None:
    creator, second, third = [await register(client, n) for n in "ABC"]
    game_id = (await client.post("/v1/games", json={"seat": 0}, headers=creator.auth)).json()["id"]

    joined = await client.post(f"/v1/games/{game_id}/seats", headers=second.auth)
    last = await client.post(f"/v1/games/{game_id}/seats", json={}, headers=third.auth)

    assert (joined.status_code, joined.json()["seat"]) == (200, 1)
    assert joined.json()["view"]["status"] == "seating"
    assert last.json()["seat"] == 2
    assert [e["event"]["type"] for e in last.json()["events"]] == ["player_seated", "deal_started"]
    assert len(last.json()["view"]["deal"]["hand"]) == 10
    assert last.json()["view"]["status"] == "playing"
    full = await client.post(
        f"/v1/games/{game_id}/seats", headers=(await register(client, "D")).auth
    )
    assert (full.status_code, full.json()["code"]) == (409, "illegal.table_full")
    again = await client.post(f"/v1/games/{game_id}/seats", headers=second.auth)
    assert (again.status_code, again.json()["code"]) == (409, "illegal.already_seated")


async def test_a_table_of_four_deals_nothing_to_the_dealer(client: httpx.AsyncClient) -> None:
    game_id, players = await seated_game(client, seats=4, first_dealer=3, seed="four")

    hands = [
        (await client.get(f"/v1/games/{game_id}", headers=p.auth)).json()["view"]["deal"]["hand"]
        for p in players
    ]

    assert [len(h) for h in hands] == [10, 10, 10, 0]
    assert len(set().union(*map(set, hands))) == 30


async def test_the_first_deals_come_from_the_layouts_and_seeds_repeat(
    client: httpx.AsyncClient,
) -> None:
    deal = layouts(seed=3, count=1)
    fixed, players = await seated_game(client, layouts=deal)
    seeded_a, players_a = await seated_game(client, seed="same")
    seeded_b, players_b = await seated_game(client, seed="same")
    other, players_c = await seated_game(client, seed="other")

    async def hand(game_id: str, player: object) -> list[str]:
        view = await client.get(f"/v1/games/{game_id}", headers=player.auth)  # type: ignore[attr-defined]
        return view.json()["view"]["deal"]["hand"]

    assert set(await hand(fixed, players[1])) == set(deal[0]["hands"][1])
    assert await hand(seeded_a, players_a[0]) == await hand(seeded_b, players_b[0])
    assert await hand(seeded_a, players_a[0]) != await hand(other, players_c[0])


async def test_the_lobby_pages_newest_first_and_filters_by_status(
    client: httpx.AsyncClient,
) -> None:
    host = await register(client, "host")
    open_games = [
        (await client.post("/v1/games", json={}, headers=host.auth)).json()["id"] for _ in range(3)
    ]
    playing, _ = await seated_game(client, seed="lobby")

    pages, cursor = [], None
    while True:
        params = {"limit": 2, **({"cursor": cursor} if cursor else {})}
        page = (await client.get("/v1/games", params=params)).json()
        pages.append([g["id"] for g in page["items"]])
        cursor = page["next_cursor"]
        if cursor is None:
            break

    assert pages == [[playing, open_games[2]], [open_games[1], open_games[0]]]
    seating = (await client.get("/v1/games", params={"status": "seating"})).json()["items"]
    assert [g["id"] for g in seating] == open_games[::-1]
    (listed,) = (await client.get("/v1/games", params={"status": "playing"})).json()["items"]
    assert listed["id"] == playing and listed["seats"] == 3 and None not in listed["players"]
    assert (listed["preset"], listed["status"]) == ("sochi", "playing")


async def test_a_read_is_304_while_the_etag_is_current(client: httpx.AsyncClient) -> None:
    game_id, players = await seated_game(client, seed="etag")
    first = await client.get(f"/v1/games/{game_id}", headers=players[0].auth)
    etag = first.headers["etag"]

    unchanged = await client.get(
        f"/v1/games/{game_id}", headers={**players[0].auth, "If-None-Match": etag}
    )
    seat = first.json()["view"]["deal"]["to_act"][0]
    await client.post(
        f"/v1/games/{game_id}/actions", json={"type": "pass"}, headers=players[seat].auth
    )
    changed = await client.get(
        f"/v1/games/{game_id}", headers={**players[0].auth, "If-None-Match": etag}
    )

    assert etag == f'"{first.json()["version"]}"'
    assert (unchanged.status_code, unchanged.content, unchanged.headers["etag"]) == (304, b"", etag)
    assert changed.status_code == 200
    assert changed.headers["etag"] == f'"{first.json()["version"] + 1}"'


async def test_a_view_of_a_version_known_current_reads_no_log_until_a_later_one_is_hinted(
    app, client: httpx.AsyncClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A full view is answered from the knowledge a 304 is: the version this process knows to
    be the head (it read it, or committed it, and no hint has named a later one since) needs
    no read of the log; a hint of a later version (another process's commit) sends the next
    view to the log."""
    game_id, players = await seated_game(client, seed="known-view")
    games = app.state["games"]
    store = games.handler.store
    reads: list[object] = []
    read_stream = store.read_stream

    async def counted(stream_id: str, *args: object, **kwargs: object) -> object:
        if stream_id.startswith("game-"):  # the app's workers read their own streams beside
            reads.append(stream_id)
        return await read_stream(stream_id, *args, **kwargs)

    monkeypatch.setattr(store, "read_stream", counted)
    first = await client.get(f"/v1/games/{game_id}", headers=players[0].auth)
    views = [await client.get(f"/v1/games/{game_id}", headers=p.auth) for p in players]
    assert reads == []  # seating the last player committed the version: it is known
    assert {v.headers["etag"] for v in views} == {first.headers["etag"]}
    assert [v.json()["seat"] for v in views] == [0, 1, 2]  # each seat's own view
    # Another process's commit, as its hint tells it: the next view reads the log.
    stream, version, heads = game_stream(game_id), first.json()["version"], games.handler.log.heads
    heads.hinted(stream, version + 1)
    again = await client.get(f"/v1/games/{game_id}", headers=players[0].auth)
    assert again.status_code == 200 and reads == [stream]
    # A caller who saw a later version than the one known is never answered from memory.
    reads.clear()
    heads.listen(True)  # forget the hint; the version is known again
    heads.confirmed(stream, version)
    ahead = await client.get(
        f"/v1/games/{game_id}", headers={**players[0].auth, "If-None-Match": f'"{version + 1}"'}
    )
    assert ahead.status_code == 200 and reads == [stream]


async def test_a_304_from_the_edge_is_the_304_of_the_full_way(client: httpx.AsyncClient) -> None:
    """A token this process has not seen yet goes the full way (its lookup); once known, the
    edge answers from memory, with the same status, headers and (no) body."""
    game_id, players = await seated_game(client, seed="edge-304")
    etag = (await client.get(f"/v1/games/{game_id}", headers=players[0].auth)).headers["etag"]
    made = await client.post(
        "/v1/players/me/tokens", json={"name": "tablet"}, headers=players[0].auth
    )
    tablet = {"Authorization": f"Bearer {made.json()['token']}", "If-None-Match": etag}

    full = await client.get(f"/v1/games/{game_id}", headers=tablet)
    edge = await client.get(f"/v1/games/{game_id}", headers=tablet)
    spectator = await client.get(f"/v1/games/{game_id}", headers={"If-None-Match": etag})

    def shape(response: httpx.Response) -> tuple[int, bytes, list[tuple[str, str]]]:
        headers = sorted((k, v) for k, v in response.headers.items() if k != "x-request-id")
        return response.status_code, response.content, headers

    assert shape(full) == shape(edge) == shape(spectator)
    assert shape(edge) == (
        304, b"", [("cache-control", "private, no-cache"), ("etag", etag),
                   ("vary", "Authorization")],
    )  # fmt: skip
    assert edge.headers["x-request-id"] != full.headers["x-request-id"]
    unknown = {"Authorization": "Bearer not-a-token-of-ours", "If-None-Match": etag}
    assert (await client.get(f"/v1/games/{game_id}", headers=unknown)).status_code == 401
    typo = await client.get(f"/v1/games/{game_id}?limt=1", headers=tablet)
    assert typo.status_code == 400


async def test_the_events_page_by_version(client: httpx.AsyncClient) -> None:
    game_id, players = await seated_game(client, seed="pages")
    url = f"/v1/games/{game_id}/events"

    first = (await client.get(url, params={"limit": 2}, headers=players[0].auth)).json()
    rest = (
        await client.get(url, params={"cursor": first["next_cursor"]}, headers=players[0].auth)
    ).json()
    beyond = (await client.get(url, params={"cursor": 99}, headers=players[0].auth)).json()

    assert [e["version"] for e in first["items"]] == [1, 2]
    assert (first["next_cursor"], first["version"]) == ("2", 2)
    assert [e["version"] for e in rest["items"]] == [3, 4, 5]
    assert (rest["next_cursor"], rest["version"]) == (None, 5)
    assert beyond == {"items": [], "next_cursor": None, "version": 99}
    dealt = rest["items"][-1]["event"]
    assert dealt["type"] == "deal_started" and dealt["talon"] == []
    assert [len(h) for h in dealt["hands"]] == [10, 0, 0]


async def test_cards_and_bids_may_be_sent_in_any_spelling_and_come_back_canonical(
    client: httpx.AsyncClient,
) -> None:
    game_id, players = await seated_game(client, seed="spelling")
    view = (await client.get(f"/v1/games/{game_id}")).json()
    seat = view["view"]["deal"]["to_act"][0]

    response = await client.post(
        f"/v1/games/{game_id}/actions",
        json={"type": "bid", "bid": "6♠"},
        headers=players[seat].auth,
    )

    assert response.status_code == 200, response.text
    assert response.json()["events"][0]["event"]["bid"] == "6S"


async def test_the_lobby_row_commits_with_the_events_or_not_at_all(
    client: httpx.AsyncClient, pool: asyncpg.Pool, monkeypatch: pytest.MonkeyPatch
) -> None:
    creator, second, third = [await register(client, n) for n in "ABC"]
    created = await client.post("/v1/games", json={"seat": 0}, headers=creator.auth)
    game_id = created.json()["id"]
    await client.post(f"/v1/games/{game_id}/seats", json={"seat": 1}, headers=second.auth)

    async def row() -> tuple[str, int, int]:
        status, version = await pool.fetchrow(
            "SELECT status, version FROM api.games WHERE game_id = $1::uuid", game_id
        )
        stream = await pool.fetchval(
            "SELECT version FROM es.streams WHERE stream_id = $1", f"game-{game_id}"
        )
        return status, version, stream

    assert await row() == ("seating", 3, 3)
    real_row = lobby._row
    # The lobby's write fails (here the database refuses the row): the append goes with it.
    monkeypatch.setattr(lobby, "_row", lambda state, at: {**real_row(state, at), "status": "bogus"})
    failed = await client.post(f"/v1/games/{game_id}/seats", json={"seat": 2}, headers=third.auth)
    assert failed.status_code == 500
    assert await row() == ("seating", 3, 3)
    assert (await client.get(f"/v1/games/{game_id}")).json()["version"] == 3
    # Once it works again, the same join goes through, and the lobby says what the log says.
    monkeypatch.undo()
    joined = await client.post(f"/v1/games/{game_id}/seats", json={"seat": 2}, headers=third.auth)
    assert joined.status_code == 200, joined.text
    version = joined.json()["version"]
    assert await row() == ("playing", version, version)
    listed = (await client.get("/v1/games", params={"status": "playing"})).json()["items"]
    assert [g["id"] for g in listed] == [game_id]


async def test_a_four_hand_layout_with_its_empty_hand_off_the_dealers_seat_is_refused_at_creation(
    client: httpx.AsyncClient,
) -> None:
    host = await register(client, "host")
    three = layouts(seed=8, count=2)
    good = {**three[0], "hands": [[], *three[0]["hands"]]}  # deal 1: seat 0 deals
    stuck = {**three[1], "hands": [[], *three[1]["hands"]]}  # deal 2 is seat 1's, not seat 0's
    before = (await client.get("/v1/games")).json()["items"]

    refused = await client.post(
        "/v1/games",
        json={"seats": 4, "first_dealer": 0, "layouts": [good, stuck]},
        headers=host.auth,
    )

    assert refused.status_code == 422, refused.text
    assert refused.json()["type"].endswith("invalid-layout")
    assert "layout 2: seat 1 deals deal 2" in refused.json()["detail"]
    assert (await client.get("/v1/games")).json()["items"] == before
    accepted = await client.post(
        "/v1/games",
        json={"seats": 4, "first_dealer": 0, "layouts": [good, three[1]]},
        headers=host.auth,
    )
    assert accepted.status_code == 201, accepted.text


async def test_a_keyed_creation_the_rules_refuse_is_a_400_kept_under_its_key(
    client: httpx.AsyncClient,
) -> None:
    """A refused creation writes nothing but its key, which the caller's token vouches for
    (the log refuses a key no token vouches for: it was a 403 once)."""
    host = await register(client, "host")
    headers = {**host.auth, "Idempotency-Key": "bad creation"}
    body = {"seat": 0, "seats": 3, "bots": [{"level": "basic", "seat": 3}]}
    first = await client.post("/v1/games", json=body, headers=headers)
    again = await client.post("/v1/games", json=body, headers=headers)
    assert first.status_code in (400, 409, 422), first.text
    assert (again.status_code, again.json()) == (first.status_code, first.json())
    assert again.headers.get("Idempotent-Replayed") == "true"
