"""Shared steps of the API tests: players, games, layouts, SSE frames, what a seat must not see."""

from __future__ import annotations

import random
import re
import uuid
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any

import httpx
from _apps import kept
from litestar import Litestar

from domain.cards import DECK
from domain.deal.state import AwaitingDeal, DealFinished
from domain.game import GameState, NoGame
from service.api.games.events import SseSettings
from service.app import create_app
from service.platform.settings import Settings


def make_app(
    dsn: str | Callable[[], str], settings: dict[str, Any] | None = None, **options: object
) -> Litestar:
    """The app on ``dsn`` (or on the database a function names at each start) as the service
    role, with the tests' short SSE timings (and ``settings`` over the tests' own). An app
    built with the same settings and options before is started again instead (`_apps.kept`)."""
    return kept(lambda named: _build(named, settings, options), ("api", settings, options), dsn)


def _build(
    dsn: str | Callable[[], str], settings: dict[str, Any] | None, options: dict[str, object]
) -> Litestar:
    # Rate limits off: the tests that are about them turn them on with their own limits. The
    # analyst judges a finished game's decisions over 4 layouts, not the service's 16: most of
    # the CPU of analysing a game, paid by every test that finishes one, whatever it is about.
    config = Settings(
        database_url=dsn if isinstance(dsn, str) else None,
        pool_min_size=1,
        pool_max_size=20,
        rate_limits=False,
        bot_worker="inline",
        background_worker="inline",
        bot_pace=0.0,
        analysis_layouts=4,
        **(settings or {}),
    )
    options = {
        "migrate": False,  # the template is migrated; test_service checks the lifespan's upgrade
        "sse": SseSettings(ping_interval=0.3, retry_ms=100),
        "live_poll_interval": 0.5,
        **({} if isinstance(dsn, str) else {"dsn": dsn}),
        **options,
    }
    return create_app(config, **options)  # type: ignore[arg-type]


CARD = re.compile(r"^[789TJQKA][SCDH]$")
PROBLEM = "application/problem+json"


@dataclass
class Player:
    id: str
    token: str
    name: str

    @property
    def auth(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"}


async def register(client: httpx.AsyncClient, name: str) -> Player:
    """A new player named ``name``, or ``name`` and a random suffix once a look-alike is taken
    (tests that share a database register "player 0" more than once)."""
    response = await client.post("/v1/players", json={"name": name})
    if response.status_code == 409:
        response = await client.post(
            "/v1/players", json={"name": f"{name} {uuid.uuid4().hex}"[:64]}
        )
    assert response.status_code == 201, response.text
    body = response.json()
    return Player(id=body["id"], token=body["token"], name=body["name"])


async def seated_game(
    client: httpx.AsyncClient, seats: int = 3, **body: Any
) -> tuple[str, list[Player]]:
    """A game with every seat taken (so its first deal is dealt); players in seat order."""
    players = [await register(client, f"player {i}") for i in range(seats)]
    created = await client.post(
        "/v1/games", json={"seats": seats, "seat": 0, **body}, headers=players[0].auth
    )
    assert created.status_code == 201, created.text
    game_id = created.json()["id"]
    for seat, player in enumerate(players[1:], 1):
        joined = await client.post(
            f"/v1/games/{game_id}/seats", json={"seat": seat}, headers=player.auth
        )
        assert joined.status_code == 200, joined.text
    return game_id, players


def layouts(seed: int, count: int) -> list[dict[str, Any]]:
    """``count`` shuffled deals for a table of three, as the API takes them."""
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        deck = list(DECK)
        rng.shuffle(deck)
        out.append({"hands": [deck[0:10], deck[10:20], deck[20:30]], "talon": deck[30:32]})
    return out


BID_KEYS = frozenset({"bid", "contract", "call"})
"""Fields holding bids, where "9S" is nine spades to take, not the nine of spades."""


def cards_in(value: Any) -> set[str]:
    """Every card named anywhere in a JSON value (whole strings, bids excepted)."""
    match value:
        case str() if CARD.match(value):
            return {value}
        case dict():
            cards = [cards_in(v) for k, v in value.items() if k not in BID_KEYS]
            return set().union(*cards)
        case list() | tuple():
            return set().union(*(cards_in(v) for v in value)) if value else set()
    return set()


def hidden_from(state: GameState, seat: int | None) -> set[str]:
    """The cards ``seat`` must not see in ``state``: other hands not laid open, the talon while
    face down, and a discard unless it is his own."""
    if isinstance(state, NoGame):
        return set()
    deal = state.deal
    if isinstance(deal, AwaitingDeal):
        return set()
    hidden: set[str] = set(deal.talon)
    for other, hand in enumerate(deal.hands):
        if other != seat and other not in deal.open_hands:
            hidden |= set(hand)
    declarer = deal.outcome.declarer if isinstance(deal, DealFinished) else None
    declarer = getattr(deal, "declarer", declarer)
    if seat is None or seat != declarer:
        hidden |= set(getattr(deal, "discard", ()))
    return hidden - set(deal.shown_talon)


def own_hand(state: GameState, seat: int) -> set[str]:
    if isinstance(state, NoGame) or isinstance(state.deal, AwaitingDeal):
        return set()
    return set(state.deal.hands[seat])


def choose(rng: random.Random, legal: list[dict[str, Any]], *, quick: bool) -> dict[str, Any]:
    """A legal action, biased (``quick``) toward short deals: the first bidder opens at the
    lowest bid, everyone else passes, the declarer names the lowest contract, nobody whists."""
    if not quick:
        return rng.choice(legal)
    by_type: dict[str, list[dict[str, Any]]] = {}
    for action in legal:
        by_type.setdefault(action["type"], []).append(action)
    if "bid" in by_type and "pass" in by_type:
        return by_type["pass"][0] if rng.random() < 0.5 else by_type["bid"][0]
    if "whist" in by_type:
        calls = {a["choice"]: a for a in by_type["whist"]}
        if "pass" in calls and rng.random() < 0.6:
            return calls["pass"]
        return rng.choice(by_type["whist"])
    if "declare" in by_type:
        return by_type["declare"][0]
    return rng.choice(legal)


@dataclass
class Frame:
    id: int | None
    event: str | None
    data: str


@dataclass
class SseLog:
    """What one SSE connection received."""

    retry: int | None = None
    frames: list[Frame] = field(default_factory=list)
    pings: int = 0


async def read_sse(response: httpx.Response, log: SseLog) -> AsyncIterator[Frame]:
    """Parse ``text/event-stream`` into `log` and yield each event frame."""
    fields: dict[str, str] = {}
    async for line in response.aiter_lines():
        if line == "":
            if "data" in fields:
                frame = Frame(
                    int(fields["id"]) if "id" in fields else None,
                    fields.get("event"),
                    fields["data"],
                )
                log.frames.append(frame)
                yield frame
            fields = {}
        elif line.startswith(":"):
            log.pings += 1
        else:
            name, _, value = line.partition(":")
            value = value.removeprefix(" ")
            if name == "retry":
                log.retry = int(value)
            else:
                fields[name] = value


def timeless(body: dict[str, Any]) -> dict[str, Any]:
    """A game's JSON without the server's clock, which moves between two reads."""
    return {key: value for key, value in body.items() if key != "server_time"}
