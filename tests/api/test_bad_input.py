"""Malformed requests: every one is a 4xx problem+json, none a 500, and the game is unchanged."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
from apitools import PROBLEM, register, seated_game, timeless

pytestmark = pytest.mark.integration


@pytest.fixture
def client(shared_client: httpx.AsyncClient) -> httpx.AsyncClient:
    """One app for the whole table of cases; each case makes its own game."""
    return shared_client


UUID_NOBODY = "01900000-0000-7000-8000-000000000000"

ACTIONS: list[tuple[str, bytes | Any, dict[str, str], int, str]] = [
    # (case, body, extra headers, status, problem type)
    ("broken json", b'{"type": "bid", "bid": ', {}, 400, "validation"),
    ("not json at all", b"pass", {}, 400, "validation"),
    ("empty body", b"", {}, 400, "validation"),
    ("not utf-8", b'{"type": "play", "card": "\xff\xfe"}', {}, 400, "validation"),
    ("an array", [], {}, 400, "validation"),
    ("no type", {"bid": "6S"}, {}, 400, "validation"),
    ("unknown type", {"type": "cheat"}, {}, 400, "validation"),
    ("missing field", {"type": "bid"}, {}, 400, "validation"),
    ("unknown field", {"type": "pass", "pass": True}, {}, 400, "validation"),
    ("a seat in the body", {"type": "pass", "seat": 0}, {}, 400, "validation"),
    ("wrong type", {"type": "bid", "bid": 6}, {}, 400, "validation"),
    ("wrong type bool", {"type": "choose_play", "open": "yes"}, {}, 400, "validation"),
    ("null card", {"type": "play", "card": None}, {}, 400, "validation"),
    ("three cards", {"type": "discard", "cards": ["7S", "8S", "9S"]}, {}, 400, "validation"),
    ("bad whist", {"type": "whist", "choice": "maybe"}, {}, 400, "validation"),
    ("bad card", {"type": "play", "card": "1S"}, {}, 400, "bad-notation"),
    ("ten as 10", {"type": "play", "card": "10H"}, {}, 400, "bad-notation"),
    ("bad suit", {"type": "discard", "cards": ["7S", "7X"]}, {}, 400, "bad-notation"),
    ("bad bid", {"type": "bid", "bid": "11S"}, {}, 400, "bad-notation"),
    ("long card", {"type": "play", "card": "A" * 50}, {}, 400, "validation"),
    ("nested", json.loads("[" * 200 + "]" * 200), {}, 400, "validation"),
    ("huge body", {"type": "pass", "padding": "x" * 100_000}, {}, 413, "payload-too-large"),
    ("bad If-Match", {"type": "pass"}, {"If-Match": "yesterday"}, 400, "validation"),
    ("weak If-Match", {"type": "pass"}, {"If-Match": 'W/"3"'}, 412, "version-mismatch"),
    ("empty key", {"type": "pass"}, {"Idempotency-Key": ""}, 400, "validation"),
    ("long key", {"type": "pass"}, {"Idempotency-Key": "k" * 300}, 400, "validation"),
]


def _check_problem(response: httpx.Response, status: int, kind: str) -> dict[str, Any]:
    assert response.status_code == status, response.text
    assert response.headers["content-type"] == PROBLEM
    problem = response.json()
    assert problem["type"] == f"/problems/{kind}"
    assert problem["status"] == status
    assert problem["title"] and problem["detail"]
    return problem


@pytest.mark.parametrize(
    ("body", "headers", "status", "kind"),
    [case[1:] for case in ACTIONS],
    ids=[case[0] for case in ACTIONS],
)
async def test_a_malformed_action_is_a_4xx_problem_and_changes_nothing(
    client: httpx.AsyncClient, body: Any, headers: dict[str, str], status: int, kind: str
) -> None:
    game_id, players = await seated_game(client, seed="bad input")
    before = timeless((await client.get(f"/v1/games/{game_id}")).json())
    seat = before["view"]["deal"]["to_act"][0]
    content = body if isinstance(body, bytes) else json.dumps(body).encode()

    response = await client.post(
        f"/v1/games/{game_id}/actions",
        content=content,
        headers={**players[seat].auth, "Content-Type": "application/json", **headers},
    )

    _check_problem(response, status, kind)
    assert timeless((await client.get(f"/v1/games/{game_id}")).json()) == before


OTHERS: list[tuple[str, str, str, Any, int, str]] = [
    # (case, method, path, json body, status, problem type); {game} is a real game's id
    ("unknown preset", "POST", "/v1/games", {"preset": "moscow"}, 400, "validation"),
    ("five seats", "POST", "/v1/games", {"seats": 5}, 400, "validation"),
    (
        "unknown option",
        "POST",
        "/v1/games",
        {"overrides": {"pool": {"tgt": 1}}},
        400,
        "validation",
    ),
    (
        "option out of range",
        "POST",
        "/v1/games",
        {"overrides": {"pool": {"target": 0}}},
        400,
        "validation",
    ),
    (
        "players in overrides",
        "POST",
        "/v1/games",
        {"overrides": {"players": 4}},
        422,
        "invalid-rules",
    ),
    (
        "option of a wrong type",
        "POST",
        "/v1/games",
        {"overrides": {"pool": "big"}},
        400,
        "validation",
    ),
    (
        "a layout dealing a card twice",
        "POST",
        "/v1/games",
        {"layouts": [{"hands": [["7S"] * 10, ["8S"] * 10, ["9S"] * 10], "talon": ["TS", "JS"]}]},
        422,
        "invalid-layout",
    ),
    (
        "a layout in bad notation",
        "POST",
        "/v1/games",
        {"layouts": [{"hands": [["1S"] * 10, ["8S"] * 10, ["9S"] * 10], "talon": ["TS", "JS"]}]},
        400,
        "bad-notation",
    ),
    ("a seat off the table", "POST", "/v1/games", {"seat": 3}, 409, "illegal-action"),
    (
        "a seat off the table on joining",
        "POST",
        "/v1/games/{game}/seats",
        {"seat": 7},
        400,
        "validation",
    ),
    (
        "unknown game",
        "POST",
        f"/v1/games/{UUID_NOBODY}/actions",
        {"type": "pass"},
        404,
        "game-not-found",
    ),
    ("unknown game read", "GET", f"/v1/games/{UUID_NOBODY}", None, 404, "game-not-found"),
    ("unknown game events", "GET", f"/v1/games/{UUID_NOBODY}/events", None, 404, "game-not-found"),
    ("unknown game stream", "GET", f"/v1/games/{UUID_NOBODY}/stream", None, 404, "game-not-found"),
    ("not a game id", "GET", "/v1/games/not-a-uuid", None, 404, "not-found"),
    ("unknown route", "GET", "/v1/tables", None, 404, "not-found"),
    ("wrong method", "DELETE", "/v1/games", None, 405, "method-not-allowed"),
    ("limit 0", "GET", "/v1/games?limit=0", None, 400, "validation"),
    ("limit huge", "GET", "/v1/games?limit=100000", None, 400, "validation"),
    ("bad status", "GET", "/v1/games?status=lost", None, 400, "validation"),
    ("bad cursor", "GET", "/v1/games?cursor=%%%%", None, 400, "validation"),
    ("negative cursor", "GET", "/v1/games/{game}/events?cursor=-1", None, 400, "validation"),
    # Bodies are read strictly, as their schema says: a number is not a flag, text not a number.
    ("a number for a flag", "POST", "/v1/games", {"private": 0}, 400, "validation"),
    ("text for a seat", "POST", "/v1/games", {"seat": "0"}, 400, "validation"),
    ("a seed holding NUL", "POST", "/v1/games", {"seed": "a\u0000b"}, 400, "validation"),
    ("no name", "POST", "/v1/players", {"name": ""}, 400, "validation"),
    ("a control character", "POST", "/v1/players", {"name": "a\nb"}, 400, "validation"),
    ("unknown player", "GET", f"/v1/players/{UUID_NOBODY}", None, 404, "player-not-found"),
    ("unknown problem", "GET", "/problems/nothing", None, 404, "not-found"),
]


@pytest.mark.parametrize(
    ("method", "path", "body", "status", "kind"),
    [case[1:] for case in OTHERS],
    ids=[case[0] for case in OTHERS],
)
async def test_other_malformed_requests_are_4xx_problems(
    client: httpx.AsyncClient, method: str, path: str, body: Any, status: int, kind: str
) -> None:
    game_id, _ = await seated_game(client, seed="others")
    outsider = await register(client, "O")
    before = timeless((await client.get(f"/v1/games/{game_id}")).json())
    games_before = (await client.get("/v1/games", params={"limit": 200})).json()

    response = await client.request(
        method, path.format(game=game_id), json=body, headers=outsider.auth
    )

    _check_problem(response, status, kind)
    assert timeless((await client.get(f"/v1/games/{game_id}")).json()) == before
    assert (await client.get("/v1/games", params={"limit": 200})).json() == games_before


async def test_an_invite_naming_nobody_we_know_is_404(client: httpx.AsyncClient) -> None:
    game_id, players = await seated_game(client, seed="invite")
    response = await client.post(
        f"/v1/games/{game_id}/invites", json={"player": UUID_NOBODY}, headers=players[0].auth
    )
    _check_problem(response, 404, "player-not-found")


@pytest.mark.parametrize("path", ["/v1/games", "/v1/players/me/tokens"])
async def test_options_lists_every_method_of_a_path(client: httpx.AsyncClient, path: str) -> None:
    response = await client.options(path)
    assert response.status_code == 204
    assert response.headers["allow"] == "GET, OPTIONS, POST"


async def test_a_bad_last_event_id_is_a_problem(client: httpx.AsyncClient) -> None:
    game_id, _ = await seated_game(client, seed="sse")
    response = await client.get(f"/v1/games/{game_id}/stream", headers={"Last-Event-ID": "x"})
    _check_problem(response, 400, "validation")
