"""The lobby hub's own bookkeeping (`service.games.lobby_live.LobbyHub`), without a database:
which hints it keeps, one read per round for every follower, and a reset whenever changes may
have been missed."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator
from datetime import UTC, datetime

from service.games.lobby import GameSummary
from service.games.lobby_live import RESET, LobbyChange, LobbyHub
from service.games.streams import game_stream

ONE, TWO = uuid.UUID(int=1), uuid.UUID(int=2)


class Rows:
    """The one query the hub sends: the public summaries of the hinted games."""

    def __init__(self, private: frozenset[uuid.UUID] = frozenset()) -> None:
        self.private = private
        self.asked: list[list[uuid.UUID]] = []

    async def public_summaries(self, game_ids: list[uuid.UUID]) -> list[GameSummary]:
        self.asked.append(sorted(game_ids))
        return [_summary(g) for g in sorted(game_ids) if g not in self.private]


def _summary(game_id: uuid.UUID) -> GameSummary:
    return GameSummary(
        id=game_id, status="seating", preset="sochi", seats=3, players=(None, None, None),
        created_by=None, created_at=datetime(2026, 1, 1, tzinfo=UTC),
    )  # fmt: skip


async def _take(changes: AsyncIterator[LobbyChange | None], n: int) -> list[LobbyChange | None]:
    return [await anext(changes) for _ in range(n)]


async def test_each_follower_starts_with_a_reset_then_gets_each_hinted_public_game_once() -> None:
    rows = Rows(private=frozenset({TWO}))
    hub = LobbyHub(rows, queue_size=8)  # type: ignore[arg-type]
    first, second = hub.stream(60), hub.stream(60)
    assert await _take(first, 1) == [RESET] and await _take(second, 1) == [RESET]
    for stream_id in (game_stream(ONE), game_stream(ONE), game_stream(TWO), "player-x"):
        hub.hint(stream_id, 1)
    await hub._round()
    assert rows.asked == [[ONE, TWO]]  # one read for both followers, each game once
    assert [c.id for c in await _take(first, 1)] == [ONE]  # type: ignore[union-attr]
    assert [c.id for c in await _take(second, 1)] == [ONE]  # type: ignore[union-attr]
    await hub._round()
    assert rows.asked == [[ONE, TWO]]  # nothing hinted since: no query
    await first.aclose()
    await second.aclose()
    assert hub.followed == 0


async def test_without_followers_hints_are_dropped_and_nothing_is_read() -> None:
    rows = Rows()
    hub = LobbyHub(rows)  # type: ignore[arg-type]
    hub.hint(game_stream(ONE), 1)
    await hub._round()
    assert rows.asked == []


async def test_lost_hints_and_a_follower_too_far_behind_are_told_to_read_the_lists_again() -> None:
    rows = Rows()
    hub = LobbyHub(rows, queue_size=2)  # type: ignore[arg-type]
    changes = hub.stream(60)
    assert await _take(changes, 1) == [RESET]
    hub.hint("", 0)  # the hint hub's LISTEN reopened: anything may have changed
    await hub._round()
    assert await _take(changes, 1) == [RESET]
    for game_id in (ONE, TWO, uuid.UUID(int=3)):  # three changes into a queue of two
        hub.hint(game_stream(game_id), 1)
    await hub._round()
    assert await _take(changes, 1) == [RESET]  # the backlog replaced by one reset
    hub.hint(game_stream(ONE), 2)
    await hub._round()
    assert [c.id for c in await _take(changes, 1)] == [ONE]  # type: ignore[union-attr]
    await changes.aclose()


async def test_silence_yields_a_keep_alive_and_closing_ends_every_stream() -> None:
    hub = LobbyHub(Rows())  # type: ignore[arg-type]
    changes = hub.stream(0.05)
    assert await _take(changes, 2) == [RESET, None]
    hub.close()
    async with asyncio.timeout(1):
        rest = [change async for change in changes]
    assert rest == []
