"""A README-style client of the service in Python: the calls and models are the client that
openapi-python-client generates from openapi/openapi.json (package ``preferans_client``), the
stream is read with httpx-sse. Three players register, one opens a table, all sit down, and
they play first legal moves until the first deal is scored, while the game's stream is followed
in the background: the connection is dropped once after five frames and resumed from
``Last-Event-ID`` without losing or repeating a frame; then the first player reads his
notifications, each a model of its kind.

Run: python client.py <base URL>  (tests/api/test_generated_client.py type-checks it with
mypy --strict against the generated client and runs it against a live server)
"""

from __future__ import annotations

import asyncio
import secrets
import sys
from uuid import UUID

import httpx
from httpx_sse import aconnect_sse
from preferans_client import AuthenticatedClient, Client
from preferans_client.api.actions import act
from preferans_client.api.games import create_game, read_game, take_seat
from preferans_client.api.players import list_notifications, register_player
from preferans_client.models import (
    CardPlayedFrame,
    DealScoredFrame,
    GameOutcome,
    GameSnapshot,
    JoinGame,
    NewGame,
    NewPlayer,
    NotificationPage,
    PlayerCreated,
    YourTurnNote,
)

TALK = ("chat", "rematch")
"""Frames said at the table, not events of the log: they carry no id of their own (an SSE
reader keeps the last one it saw, as the standard says)."""


async def register(base: str, name: str) -> AuthenticatedClient:
    created = await register_player.asyncio(client=Client(base_url=base), body=NewPlayer(name=name))
    if not isinstance(created, PlayerCreated) or created.token is None:
        raise RuntimeError(f"registration refused: {created}")
    return AuthenticatedClient(base_url=base, token=created.token)


async def follow(base: str, game_id: UUID, scored: asyncio.Event) -> list[int]:
    """The ids of the game's frames up to the first deal scored, read over two connections."""
    seen: list[int] = []
    async with httpx.AsyncClient(base_url=base, timeout=30) as http:
        while not scored.is_set():
            headers = {"Last-Event-ID": str(seen[-1])} if seen else {}
            url = f"/v1/games/{game_id}/stream"
            async with aconnect_sse(http, "GET", url, headers=headers) as source:
                first_connection = not seen
                async for sse in source.aiter_sse():
                    if not sse.data or sse.event in TALK:
                        continue  # the opening retry, a keep-alive, the table's talk
                    seen.append(int(sse.id))
                    frame = {"id": int(sse.id), "event": sse.event, "data": sse.json()}
                    if sse.event == "card_played":
                        card = CardPlayedFrame.from_dict(frame).data
                        print(f"seat {card.seat} played {card.card}")
                    elif sse.event == "deal_scored":
                        print(f"deal {DealScoredFrame.from_dict(frame).data.deal_no} scored")
                        scored.set()
                        break
                    if first_connection and len(seen) == 5:
                        break  # drop the connection once; the next resumes after the last id
    return seen


async def main(base: str) -> None:
    suffix = secrets.token_hex(3)
    seats = [await register(base, f"{name} {suffix}") for name in ("Anna", "Vera", "Kolya")]
    made = await create_game.asyncio(
        client=seats[0], body=NewGame.from_dict({"overrides": {"pool": {"target": 10}}})
    )
    if not isinstance(made, GameOutcome):
        raise RuntimeError(f"no game: {made}")
    game_id = made.id
    for seat, client in enumerate(seats):
        await take_seat.asyncio(game_id, client=client, body=JoinGame(seat=seat))

    scored = asyncio.Event()
    following = asyncio.create_task(follow(base, game_id, scored))
    for _ in range(300):  # whoever is to act makes his first legal move
        if scored.is_set():
            break
        for client in seats:
            view = await read_game.asyncio(game_id, client=client)
            if isinstance(view, GameSnapshot) and view.legal_actions:
                await act.asyncio(game_id, client=client, body=view.legal_actions[0])
                break
        else:
            await asyncio.sleep(0.05)
    seen = await asyncio.wait_for(following, 30)
    if seen != list(range(1, len(seen) + 1)):
        raise RuntimeError(f"frames lost or repeated across the reconnect: {seen}")
    print(f"{len(seen)} frames in order across a reconnect")

    notes = await list_notifications.asyncio(client=seats[0], cursor="0", limit=100)
    items = notes.items if isinstance(notes, NotificationPage) else []
    turns = [note for note in items if isinstance(note, YourTurnNote)]
    if not turns:
        raise RuntimeError("no your_turn notification")
    print(f"{len(turns)} turns notified, the first at seat {turns[0].data.seat}")


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1] if len(sys.argv) > 1 else "http://127.0.0.1:8000"))
