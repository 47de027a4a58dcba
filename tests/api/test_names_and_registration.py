"""Names nobody can pass for, and a registration's Idempotency-Key that is no credential.

Names: NFKC (full-width letters are the letters), limits on symbols and combining marks, and no
two players whose names have one TR39 skeleton, enforced by a unique index (so two concurrent
registrations of look-alikes cannot both succeed). Registration keys: a repeat gets the player,
a new token only while the one answered before was never used (and that one is revoked), none
once it was used, and the key expires with the TTL of every key and is purged.
"""

from __future__ import annotations

import asyncio
from datetime import timedelta

import asyncpg
import httpx
import pytest
from apitools import PROBLEM

from service.players.accounts import Players
from service.players.names import clean_name, skeleton

pytestmark = pytest.mark.integration


def _problem(response: httpx.Response, status: int, slug: str) -> dict:
    assert response.status_code == status, response.text
    assert response.headers["content-type"] == PROBLEM
    body = response.json()
    assert body["type"] == f"/problems/{slug}"
    return body


# --- names ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "look_alike",
    [
        "\u0410nn\u0430",  # Cyrillic А and а
        "Ann\u0430",  # one Cyrillic а
        "\uff21\uff4e\uff4e\uff41",  # full-width
        "ANNA",
        "anna",
        "Anna ",
        "\U0001d400nna",  # mathematical bold A
    ],
)
async def test_a_name_that_looks_like_a_registered_one_is_409(
    client: httpx.AsyncClient, look_alike: str
) -> None:
    first = await client.post("/v1/players", json={"name": "Anna"})
    assert first.status_code == 201, first.text
    _problem(await client.post("/v1/players", json={"name": look_alike}), 409, "name-taken")


async def test_names_unlike_each_other_are_all_registered(client: httpx.AsyncClient) -> None:
    for name in ("Anna", "Ann", "Vera", "Вера Павловна", "Ёва", "Eva", "Kolya 2"):
        created = await client.post("/v1/players", json={"name": name})
        assert created.status_code == 201, (name, created.text)


async def test_full_width_letters_are_stored_as_the_letters(client: httpx.AsyncClient) -> None:
    created = await client.post("/v1/players", json={"name": "\uff2b\uff4f\uff4c\uff59\uff41"})
    assert created.status_code == 201 and created.json()["name"] == "Kolya"


@pytest.mark.parametrize(
    "name",
    ["\U0001f600" * 64, "\U0001f0cf" * 5, "a" + "\u0301\u0302\u0303\u0304" * 12, "!?!", "\u2605"],
)
async def test_walls_of_emoji_or_combining_marks_and_names_without_a_letter_are_refused(
    client: httpx.AsyncClient, name: str
) -> None:
    _problem(await client.post("/v1/players", json={"name": name}), 400, "validation")


def test_what_a_name_may_hold_in_moderation() -> None:
    assert clean_name("Anna \U0001f0cf\u2660") == "Anna \U0001f0cf\u2660"  # two symbols
    assert clean_name("Nguy\u1ec5n") == "Nguyễn"  # marks composed by NFKC
    assert clean_name("a\u0301\u0302\u0303") == "á\u0302\u0303"  # three marks on one letter
    assert skeleton("m") == skeleton("rn") and skeleton("Ill") == skeleton("lll")
    assert skeleton("Вера") == skeleton("Bepa")


async def test_the_bots_names_are_taken_by_the_bots(client: httpx.AsyncClient) -> None:
    host = await client.post("/v1/players", json={"name": "host"})
    auth = {"Authorization": f"Bearer {host.json()['token']}"}
    game = await client.post("/v1/games", json={}, headers=auth)
    seated = await client.post(
        f"/v1/games/{game.json()['id']}/bots", json={"level": "basic"}, headers=auth
    )
    assert seated.status_code == 200, seated.text
    _problem(await client.post("/v1/players", json={"name": "Basic bot I"}), 409, "name-taken")


async def test_concurrent_look_alikes_register_one_player(
    client: httpx.AsyncClient, pool: asyncpg.Pool
) -> None:
    names = ["Sasha", "\u0405asha", "SASHA", "sasha", "\uff33asha", "Sash\u0430"]
    answers = await asyncio.gather(*(client.post("/v1/players", json={"name": n}) for n in names))
    assert sorted(a.status_code for a in answers) == [201] + [409] * 5
    assert (
        await pool.fetchval("SELECT count(*) FROM api.player_names WHERE skeleton = 'sasha'") == 1
    )


async def test_players_registered_before_names_were_compared_claim_theirs_oldest_first(
    pool: asyncpg.Pool,
) -> None:
    await pool.execute(
        "INSERT INTO api.players (player_id, name, kind, created_at) VALUES"
        " ('01900000-0000-7000-8000-000000000001', 'Oleg', 'human', now() - interval '2 days'),"
        " ('01900000-0000-7000-8000-000000000002', 'OLEG', 'human', now() - interval '1 day'),"
        " ('01900000-0000-7000-8000-000000000003', 'Guest 1', 'guest', now())"
    )
    players = Players(pool)
    assert await players.claim_names() == 2  # the guest claims nothing
    claimed = await pool.fetch(
        "SELECT player_id::text FROM api.player_names WHERE skeleton = 'oleg'"
    )
    assert [r[0] for r in claimed] == ["01900000-0000-7000-8000-000000000001"]
    assert await players.claim_names() == 0
    with pytest.raises(Exception, match="looks like it"):
        await players.register("oleg")


# --- registration keys ---------------------------------------------------------------------------


async def test_a_repeat_after_the_token_was_used_gets_the_player_and_no_token(
    client: httpx.AsyncClient,
) -> None:
    key = {"Idempotency-Key": "reg-used"}
    first = await client.post("/v1/players", json={"name": "Marta"}, headers=key)
    assert first.status_code == 201
    auth = {"Authorization": f"Bearer {first.json()['token']}"}
    assert (await client.get("/v1/players/me", headers=auth)).status_code == 200
    for _ in range(2):  # anybody who learnt the key and the body
        again = await client.post("/v1/players", json={"name": "Marta"}, headers=key)
        assert again.status_code == 201, again.text
        assert again.json()["id"] == first.json()["id"]
        assert again.json()["token"] is None and again.json()["token_id"] is None
    assert (await client.get("/v1/players/me", headers=auth)).status_code == 200
    tokens = (await client.get("/v1/players/me/tokens", headers=auth)).json()["items"]
    assert len(tokens) == 1


async def test_a_repeat_of_an_answer_lost_gets_a_new_token_and_the_lost_one_is_revoked(
    client: httpx.AsyncClient,
) -> None:
    key = {"Idempotency-Key": "reg-lost"}
    lost = await client.post("/v1/players", json={"name": "Lena"}, headers=key)
    again = await client.post("/v1/players", json={"name": "Lena"}, headers=key)
    assert lost.status_code == again.status_code == 201
    assert lost.json()["id"] == again.json()["id"]
    assert again.json()["token"] not in (None, lost.json()["token"])
    gone = {"Authorization": f"Bearer {lost.json()['token']}"}
    auth = {"Authorization": f"Bearer {again.json()['token']}"}
    assert (await client.get("/v1/players/me", headers=gone)).status_code == 401
    assert (await client.get("/v1/players/me", headers=auth)).status_code == 200
    third = await client.post("/v1/players", json={"name": "Lena"}, headers=key)
    assert third.json()["token"] is None  # the second answer arrived: its token was used
    other = await client.post("/v1/players", json={"name": "Other"}, headers=key)
    _problem(other, 422, "idempotency-key-reused")


async def test_a_registration_key_expires_and_is_purged_like_every_key(
    client: httpx.AsyncClient, pool: asyncpg.Pool
) -> None:
    key = {"Idempotency-Key": "reg-old"}
    first = await client.post("/v1/players", json={"name": "Gleb"}, headers=key)
    assert first.status_code == 201
    expires = await pool.fetchval("SELECT expires_at - created_at FROM api.registrations")
    assert expires == timedelta(days=1)
    await pool.execute("UPDATE api.registrations SET expires_at = now() - interval '1 second'")
    # Past its TTL the key is a new request: a new player, whose name is taken.
    late = await client.post("/v1/players", json={"name": "Gleb"}, headers=key)
    _problem(late, 409, "name-taken")
    await Players(pool).purge_registrations()  # (the service's purger may have been first)
    assert await pool.fetchval("SELECT count(*) FROM api.registrations") == 0
    late = await client.post("/v1/players", json={"name": "Gleb"}, headers=key)
    _problem(late, 409, "name-taken")
