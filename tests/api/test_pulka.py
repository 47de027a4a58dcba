"""A whole pulka (пулька) played over HTTP only, checked against the pure domain."""

from __future__ import annotations

import random
from typing import Any

import httpx
import msgspec
import pytest
from apitools import choose, layouts, seated_game

from domain import game
from domain.deal.messages import SeatCommand
from domain.rules import rules_for

pytestmark = pytest.mark.integration

OVERRIDES = {"pool": {"target": 4}}


def as_json(value: Any) -> Any:
    return msgspec.json.decode(msgspec.json.encode(value))


async def _all_events(client: httpx.AsyncClient, game_id: str, auth: dict[str, str]) -> list[Any]:
    items: list[Any] = []
    after = 0
    while True:
        page = await client.get(
            f"/v1/games/{game_id}/events", params={"cursor": after, "limit": 200}, headers=auth
        )
        assert page.status_code == 200, page.text
        body = page.json()
        items += body["items"]
        after = body["version"]
        if body["next_cursor"] is None:
            return items


async def _play_to_the_end(
    client: httpx.AsyncClient, game_id: str, players: list[Any], rng: random.Random
) -> tuple[list[tuple[int, dict[str, Any]]], dict[str, Any]]:
    choices: list[tuple[int, dict[str, Any]]] = []
    for _ in range(5000):
        public = (await client.get(f"/v1/games/{game_id}")).json()
        if public["view"]["status"] == "finished":
            return choices, public
        seat = public["view"]["deal"]["to_act"][0]
        mine = (await client.get(f"/v1/games/{game_id}", headers=players[seat].auth)).json()
        action = choose(rng, mine["legal_actions"], quick=True)
        response = await client.post(
            f"/v1/games/{game_id}/actions", json=action, headers=players[seat].auth
        )
        assert response.status_code == 200, response.text
        assert response.json()["version"] > public["version"]
        choices.append((seat, action))
    raise AssertionError("the pulka did not end")


def _replay(
    players: list[Any],
    deals: list[dict[str, Any]],
    choices: list[tuple[int, dict[str, Any]]],
    stamped: list[dict[str, Any]],
) -> list[game.Event]:
    """The same game through `domain.game` alone: same rules, seats, layouts and choices, and
    what the service stamped (the creation time, the commitment, the client seeds, the secret)."""
    created = stamped[0]
    seeds = [e["client_seed"] for e in stamped if e["type"] == "player_seated"]
    secret = next(e["secret"] for e in stamped if e["type"] == "secret_revealed")
    state: game.GameState = game.INITIAL_STATE
    log: list[game.Event] = []

    def apply(command: game.Command) -> None:
        nonlocal state
        events = game.decide(command, state)
        log.extend(events)
        state = game.fold(events, state)
        while game.needs_cards(state):
            assert isinstance(state, game.Pulka)
            layout = deals[state.deal_no]  # the next deal's, numbered from 1
            cards = game.DealCards(
                hands=tuple(map(tuple, layout["hands"])), talon=tuple(layout["talon"])
            )
            dealt = game.decide(cards, state)
            log.extend(dealt)
            state = game.fold(dealt, state)

    apply(
        game.CreateGame(
            rules=rules_for("sochi", {**OVERRIDES, "players": 3}), at=created["at"],
            dealing=created["dealing"], commitment=created["commitment"],
            fixed_deals=created["fixed_deals"], fairness=created["fairness"],
        )
    )  # fmt: skip
    for seat, player in enumerate(players):
        apply(game.TakeSeat(seat=seat, player=player.id, client_seed=seeds[seat]))
    for seat, action in choices:
        apply(msgspec.convert({**action, "seat": seat}, SeatCommand))  # type: ignore[arg-type]
    apply(game.RevealSecret(secret=secret))
    return log


async def test_three_players_finish_a_pulka_over_http_with_the_domains_sheet(
    client: httpx.AsyncClient,
) -> None:
    deals = layouts(seed=5, count=60)
    game_id, players = await seated_game(client, layouts=deals, overrides=OVERRIDES)

    choices, final = await _play_to_the_end(client, game_id, players, random.Random(11))

    stamped = [item["event"] for item in await _all_events(client, game_id, players[0].auth)]
    created = stamped[0]
    assert created["type"] == "game_created" and isinstance(created["at"], int)
    assert created["dealing"] == "fixed" and len(created["commitment"]) == 64
    log = _replay(players, deals, choices, stamped)
    played = {action["type"] for _, action in choices}
    assert {"bid", "discard", "declare", "whist", "play"} <= played  # not a pulka of all-passes
    pure = game.fold(log)
    assert isinstance(pure, game.PulkaClosed)
    assert final["version"] == len(log)
    assert final["view"]["deal_no"] == pure.deal_no >= 3
    assert final["view"]["sheet"] == as_json(pure.sheet)
    assert final["view"]["settlement"] == as_json(pure.settlement)
    assert sum(final["view"]["settlement"]["result"]) == 0
    # Every seat's history is the domain's own redaction of the same events, version by version.
    for seat, player in enumerate(players):
        state: game.GameState = game.INITIAL_STATE
        expected = []
        for version, event in enumerate(log, 1):
            viewer = game.seat_of(state, player.id)
            expected.append({"version": version, "event": game.redact(event, viewer, state)})
            state = game.evolve(state, event)
        assert await _all_events(client, game_id, player.auth) == as_json(expected), f"seat {seat}"
    listed = (await client.get("/v1/games", params={"status": "finished"})).json()
    assert [g["id"] for g in listed["items"]] == [game_id]
    assert (await client.get(f"/v1/games/{game_id}", headers=players[0].auth)).json()[
        "legal_actions"
    ] == []
