"""Shared steps of the API tests: players, games, layouts, SSE frames, what a seat must not see."""

from __future__ import annotations

import random
import re
import uuid
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any

import httpx
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
    role, with the tests' short SSE timings (and ``settings`` over the tests' own).

    Building an app of a hundred routes takes Litestar 0.2-0.3 s of CPU, most of a small API
    test (15% of the API tests' CPU went to it), while its start (the lifespan: pools, workers,
    `app.state`) is all each test needs anew. So an app built with the same settings and
    options is kept and handed out again, started on the new ``dsn``, to one holder at a time:
    it is reserved from the call until the end of the test (`release_apps`), and while its
    lifespan runs (a module's shared app stays its module's). Options that are not plain
    values are kept by identity, so a test's own clock or lifespan gets an app of its own."""
    key = _key(settings, options)
    for cached in _APPS.get(key, ()):
        if not cached.reserved and not cached.running:
            cached.reserved = True
            cached.where[0] = dsn
            return cached.app
    where: list[str | Callable[[], str]] = [dsn]
    app = _build(lambda: _named(where[0]), settings, options)
    if sum(map(len, _APPS.values())) < MAX_CACHED_APPS:
        cached = _CachedApp(app, where, key)
        app.on_startup.append(cached.started)
        app.on_shutdown.append(cached.stopped)
        _APPS.setdefault(key, []).append(cached)
    return app


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


MAX_CACHED_APPS = 24
"""Apps kept per test process (each some megabytes); past it, an app is built and dropped."""

_PLAIN = (type(None), bool, int, float, str, bytes)


@dataclass
class _CachedApp:
    app: Litestar
    where: list[str | Callable[[], str]]
    key: tuple[Any, ...]
    """Holds the options' objects kept by identity, so that no other takes their id."""
    reserved: bool = True
    running: int = 0

    async def started(self) -> None:
        self.running += 1

    async def stopped(self) -> None:
        self.running -= 1


_APPS: dict[tuple[Any, ...], list[_CachedApp]] = {}


def _named(dsn: str | Callable[[], str]) -> str:
    return dsn() if callable(dsn) else dsn


def _key(settings: dict[str, Any] | None, options: dict[str, object]) -> tuple[Any, ...]:
    """What makes two apps alike: the settings and options, plain values by value and other
    objects by identity (kept alive by the key itself)."""

    def part(value: object) -> object:
        if isinstance(value, _PLAIN):
            return value
        if isinstance(value, list | tuple):
            return (type(value).__name__, *map(part, value))
        if isinstance(value, dict):
            return ("dict", *sorted((k, part(v)) for k, v in value.items()))
        if isinstance(value, SseSettings):
            return ("sse", value.ping_interval, value.retry_ms)
        return _Same(value)

    return (
        tuple(sorted((k, part(v)) for k, v in (settings or {}).items())),
        tuple(sorted((k, part(v)) for k, v in options.items())),
    )


class _Same:
    """An option's object, equal only to itself (a clock, a lifespan, a route handler)."""

    def __init__(self, value: object) -> None:
        self.value = value

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Same) and other.value is self.value

    def __hash__(self) -> int:
        return id(self.value)


def release_apps() -> None:
    """The end of a test: the apps it was handed are free for the next (those still running
    stay reserved, a module's shared app among them)."""
    for cached in (c for apps in _APPS.values() for c in apps):
        if not cached.running:
            cached.reserved = False


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
