"""Rematch: "play again" at the end of a pulka, with the same players, seats and rules.

A seated player of a finished game offers it (and so accepts it); every other seated human is
notified (``rematch_offered``) and accepts or declines; the service's bots agree at once. One
refusal closes the offer (``rematch_declined``). Once every human accepted, the last to accept
creates the new game: the old game's rules, each player at his old seat, the first dealer moved
one seat on, a fresh committed secret; every human is notified (``rematch_started``) and the
followers of the old table are told on its stream, so every page follows to the new table.

The offer and the answers live in ``api.rematches`` and ``api.rematch_answers`` (migration
0019), written only through the database's functions, which lock the offer so that of two last
answers exactly one sees the offer accepted. The new game's creation runs under an idempotency
key named after the old game, so a retry of that step makes no second game.
"""

from __future__ import annotations

import uuid

import asyncpg

from domain.game import GameCreated, PulkaClosed
from service.exceptions import NotFound, NotSeated, RematchRefused
from service.games.chat import Rematch, TableTalk
from service.games.dealing import new_source
from service.games.service import GameService, GameSpec, client_seed
from service.games.streams import game_stream
from service.players.accounts import Caller, Player

_OFFER = "SELECT api.offer_rematch($1, $2, $3::uuid[])"
_ANSWER = "SELECT api.answer_rematch($1, $2, $3, $4::uuid[])"
_STARTED = "SELECT api.rematch_started($1, $2, $3::uuid[])"


class Rematches:
    """Offers, answers and the new game (see the module docstring)."""

    def __init__(self, pool: asyncpg.Pool, games: GameService, talk: TableTalk) -> None:
        self.pool = pool
        self.games = games
        self.talk = talk

    async def read(self, game_id: uuid.UUID) -> Rematch:
        rematch = await self.talk.rematch(game_id)
        if rematch is None:
            raise NotFound("nobody offered a rematch of this game")
        return rematch

    async def offer(self, game_id: uuid.UUID, caller: Caller) -> Rematch:
        caller.may_play()
        state, humans = await self._finished(game_id, caller)
        if await self.pool.fetchval(_OFFER, game_id, uuid.UUID(caller.id), humans) is None:
            raise RematchRefused(
                "a rematch of this game was offered already", code="rematch.already_offered"
            )
        if humans == [uuid.UUID(caller.id)]:  # only bots to ask: they agree at once
            await self._answer(game_id, caller, True, state, humans)
        self.talk.hint()
        return await self.read(game_id)

    async def answer(self, game_id: uuid.UUID, caller: Caller, accept: bool) -> Rematch:
        caller.may_play()
        state, humans = await self._finished(game_id, caller)
        current = await self.talk.rematch(game_id)
        if current is None:
            raise RematchRefused("nobody offered a rematch of this game", code="rematch.no_offer")
        await self._answer(game_id, caller, accept, state, humans)
        self.talk.hint()
        return await self.read(game_id)

    async def _answer(
        self, game_id: uuid.UUID, caller: Caller, accept: bool, state: PulkaClosed,
        humans: list[uuid.UUID],
    ) -> None:  # fmt: skip
        status = await self.pool.fetchval(_ANSWER, game_id, uuid.UUID(caller.id), accept, humans)
        if status is None:
            raise RematchRefused(
                "this rematch offer was declined or accepted already", code="rematch.not_open"
            )
        if status == "accepted":
            next_game = await self._start(game_id, caller, state)
            await self.pool.execute(_STARTED, game_id, next_game, humans)

    async def _finished(
        self, game_id: uuid.UUID, caller: Player
    ) -> tuple[PulkaClosed, list[uuid.UUID]]:
        """The finished game and its seated humans; the caller must be one of its players."""
        _, state = await self.games.state(game_id)
        if not isinstance(state, PulkaClosed):
            raise RematchRefused(
                "a rematch is offered once the game is over", code="rematch.game_not_over"
            )
        if caller.id not in state.players:
            raise NotSeated("only the game's players play it again")
        players = await self._players(state)
        humans = [uuid.UUID(p.id) for p in players.values() if p.kind != "bot"]
        return state, sorted(humans)

    async def _players(self, state: PulkaClosed) -> dict[str, Player]:
        assert self.games.players is not None, "the API process knows its players"
        return await self.games.players.many(state.players)

    async def _start(self, game_id: uuid.UUID, caller: Caller, state: PulkaClosed) -> uuid.UUID:
        """Create the new game, everyone seated: under a key named after the old game."""
        first = (await self.games.log.read(game_stream(game_id), 1, limit=1))[0].event
        assert isinstance(first, GameCreated)
        seats = len(state.players)
        entropy = self.games.entropy
        mine = state.players.index(caller.id)
        spec = GameSpec(
            rules=state.rules,
            first_dealer=(first.first_dealer + 1) % seats,
            source=new_source(seats, (), None, entropy),
            take_seat=mine,
            private=await self.games.lobby.is_private(game_id),
            client_seed=client_seed(None, entropy),
        )
        players = await self._players(state)
        others = [
            (seat, players[p]) for seat, p in enumerate(state.players) if p and p != caller.id
        ]
        key = f"rematch:{game_id}"
        done = await self.games.create(caller, spec, key=key, fingerprint=key.encode(), bots=others)
        assert done.outcome is not None, "a new game's creation is refused by nothing here"
        return done.outcome.game_id
