"""Chat at the table: two rooms, a length and a rate limit, mutes, reports, and a table's rule
"phrases only during a deal". Stored beside the log in ``api.chat_*`` (migration 0019), never in
the game's events: the log, its hash chain and the export stay what they were.

Who reads what (docs/chat.md):

- ``players``: said by a player seated at the table. Everyone at the table and every spectator
  reads it.
- ``spectators``: said by anyone else (a spectator may have seen more than a seat: the open
  hands of a finished deal, a replay). The spectators read it at once; the players only once
  the game is over, never while it is played.
- A player's mutes hide the muted authors' messages from him alone, in pages and on the stream.

A message is plain text (the page renders it as text, never as HTML) of at most
x

`TableTalk` is one per process, a kit worker like the notifications' hub: it follows the tables
that have followers here, reads their new messages and rematch offers (one query each per
round, woken at once by this process's own posts), and hands each follower what he may read.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import uuid
from collections.abc import AsyncIterator, Callable
from datetime import datetime
from typing import Any, Literal

import asyncpg
import msgspec

from domain import game
from domain.game import GameState, Pulka
from service.exceptions import ChatRefused, Forbidden, NotFound
from service.platform.worker_kit import Worker

log = logging.getLogger(__name__)

Room = Literal["players", "spectators"]
Phrase = Literal["good_luck", "well_played", "thanks", "sorry", "hurry_please"]
PHRASES: dict[str, str] = {
    "good_luck": "Good luck",
    "well_played": "Well played",
    "thanks": "Thanks",
    "sorry": "Sorry",
    "hurry_please": "Hurry please",
}
"""The fixed phrases, by key, with their English text (kept as the message's body)."""
MAX_LENGTH = 300
"""Characters of a message's text (the table's check says the same)."""
_SEEN_WINDOW = "5 seconds"
"""How far back each round looks again: a message whose number was drawn before another's may
commit after it, and is still read (seen ones are skipped)."""


class ChatMessage(msgspec.Struct, frozen=True, kw_only=True):
    """One message said at a table."""

    seq: int
    """Its number: increasing, with gaps (shared with the rematch offers)."""
    game_id: uuid.UUID
    author: uuid.UUID
    name: str | None = None
    """The author's name."""
    room: Room
    """``players`` (said by a seated player) or ``spectators``."""
    body: str
    """Plain text (never HTML); for a phrase, its English text."""
    phrase: Phrase | None = None
    """The fixed phrase's key, for the page to translate; null for free text."""
    created_at: datetime


class RematchAnswer(msgspec.Struct, frozen=True, kw_only=True):
    player: uuid.UUID
    accept: bool


class Rematch(msgspec.Struct, frozen=True, kw_only=True):
    """An offer to play again with the same players and rules, on a finished game."""

    game_id: uuid.UUID
    """The finished game."""
    offered_by: uuid.UUID
    status: Literal["open", "declined", "accepted"]
    answers: list[RematchAnswer]
    """Who answered so far (the one who offered accepted by offering)."""
    next_game: uuid.UUID | None = None
    """The new game, once every seated human accepted and it was created."""
    seq: int = 0


_MESSAGES = """
SELECT m.seq, m.game_id, m.author, p.name, m.room, m.body, m.phrase, m.created_at
  FROM api.chat_messages m JOIN api.players p ON p.player_id = m.author
 WHERE m.game_id = $1 AND m.seq < $2 AND m.room = ANY($3::text[])
   AND NOT EXISTS (SELECT 1 FROM api.chat_mutes u WHERE u.player_id = $4 AND u.muted = m.author)
 ORDER BY m.seq DESC LIMIT $5"""
_NEW = f"""
SELECT m.seq, m.game_id, m.author, p.name, m.room, m.body, m.phrase, m.created_at
  FROM api.chat_messages m JOIN api.players p ON p.player_id = m.author
 WHERE m.game_id = ANY($1::uuid[])
   AND (m.seq > $2 OR m.created_at > now() - interval '{_SEEN_WINDOW}')
 ORDER BY m.seq"""
_INSERT = """
INSERT INTO api.chat_messages (game_id, author, room, body, phrase) VALUES ($1, $2, $3, $4, $5)
RETURNING seq, created_at"""
_RULES = "SELECT phrases_only FROM api.chat_rules WHERE game_id = $1"
_SET_RULES = """
INSERT INTO api.chat_rules (game_id, phrases_only, set_by) VALUES ($1, $2, $3)
ON CONFLICT (game_id) DO UPDATE SET phrases_only = EXCLUDED.phrases_only,
  set_by = EXCLUDED.set_by, set_at = now()"""
_MUTES = "SELECT muted FROM api.chat_mutes WHERE player_id = $1"
_MUTE = "INSERT INTO api.chat_mutes (player_id, muted) VALUES ($1, $2) ON CONFLICT DO NOTHING"
_UNMUTE = "DELETE FROM api.chat_mutes WHERE player_id = $1 AND muted = $2"
_REPORT = "SELECT api.report_chat($1, $2, $3, $4)"
_LAST = """
SELECT greatest((SELECT max(seq) FROM api.chat_messages),
                (SELECT max(seq) FROM api.rematches), 0)"""
_REMATCHES = """
SELECT r.game_id, r.offered_by, r.status, r.next_game, r.seq,
       coalesce((SELECT jsonb_agg(jsonb_build_object('player', a.player_id, 'accept', a.accept)
                                  ORDER BY a.answered_at)
                   FROM api.rematch_answers a WHERE a.game_id = r.game_id), '[]'::jsonb)
  FROM api.rematches r WHERE r.game_id = ANY($1::uuid[])"""
_NEW_REMATCHES = (
    _REMATCHES + " AND (r.seq > $2 OR r.updated_at > now() - interval '{window}')"
).format(window=_SEEN_WINDOW)


def _message(row: asyncpg.Record) -> ChatMessage:
    return ChatMessage(
        seq=row[0], game_id=row[1], author=row[2], name=row[3], room=row[4], body=row[5],
        phrase=row[6], created_at=row[7],
    )  # fmt: skip


def rematch_of(row: asyncpg.Record) -> Rematch:
    answers = row[5] if not isinstance(row[5], str) else msgspec.json.decode(row[5])
    return Rematch(
        game_id=row[0], offered_by=row[1], status=row[2], next_game=row[3], seq=row[4],
        answers=[RematchAnswer(player=uuid.UUID(a["player"]), accept=a["accept"]) for a in answers],
    )  # fmt: skip


def room_of(state: GameState, player: str) -> Room:
    """The room a player speaks in: ``players`` if he holds a seat at the table."""
    return "players" if isinstance(state, Pulka) and player in state.players else "spectators"


def rooms_for(state: GameState, player: str | None) -> tuple[Room, ...]:
    """The rooms a viewer reads: a seated player the spectators' only once the game is over."""
    if player is not None and room_of(state, player) == "players":
        over = isinstance(state, Pulka) and game.status(state) == "finished"
        return ("players", "spectators") if over else ("players",)
    return ("players", "spectators")


def in_a_deal(state: GameState) -> bool:
    return isinstance(state, Pulka) and game.status(state) == "playing"


Frame = ChatMessage | Rematch


class _Follower:
    def __init__(self, game_id: uuid.UUID) -> None:
        self.game_id = game_id
        self.queue: asyncio.Queue[Frame] = asyncio.Queue(256)


class TableTalk:
    """The chat and the rematch offers of every table (see the module docstring)."""

    def __init__(self, pool: asyncpg.Pool, *, poll_interval: float = 0.5) -> None:
        self.pool = pool
        self._followers: dict[uuid.UUID, set[_Follower]] = {}
        self._last = 0
        self._seen: dict[int, float] = {}
        """Numbers of the frames handed out lately (message or rematch state), and when."""
        self._mutes: dict[str, set[uuid.UUID]] = {}
        self.worker = Worker("table-talk", self._round, interval=poll_interval, pace=0.02)

    # --- saying ----------------------------------------------------------------------------

    async def say(
        self, game_id: uuid.UUID, author: str, state: GameState, text: str | None,
        phrase: str | None, *, admit: Callable[[], None] = lambda: None,
    ) -> ChatMessage:  # fmt: skip
        """Say ``text`` (or the fixed ``phrase``) at the table, in the author's room.
        ``admit`` (the API's rate limit) is asked once the message is found fit: a refused
        message does not use up the author's window."""
        if not isinstance(state, Pulka):
            raise NotFound("no table has this id")
        if (text is None) == (phrase is None):
            raise ChatRefused("say either a text or a phrase", code="chat.text_or_phrase")
        if phrase is not None:
            if phrase not in PHRASES:
                raise ChatRefused(f"no phrase is called {phrase!r}", code="chat.unknown_phrase")
            body = PHRASES[phrase]
        else:
            assert text is not None
            body = text.strip()
            if not body:
                raise ChatRefused("a message needs some text", code="chat.empty")
            if len(body) > MAX_LENGTH:
                raise ChatRefused(
                    f"a message holds at most {MAX_LENGTH} characters, not {len(body)}",
                    code="chat.too_long",
                )
            if in_a_deal(state) and await self.phrases_only(game_id):
                raise ChatRefused(
                    "this table's rule: only the fixed phrases while the game is played",
                    code="chat.phrases_only",
                )
        admit()
        room = room_of(state, author)
        seq, at = await self.pool.fetchrow(_INSERT, game_id, uuid.UUID(author), room, body, phrase)
        self.worker.hint()
        return ChatMessage(
            seq=seq, game_id=game_id, author=uuid.UUID(author), room=room, body=body,
            phrase=phrase, created_at=at,  # type: ignore[arg-type]
        )  # fmt: skip

    async def recent(
        self, game_id: uuid.UUID, viewer: str | None, state: GameState, before: int, limit: int
    ) -> list[ChatMessage]:
        """Up to ``limit`` messages before ``before``, newest first, that ``viewer`` reads."""
        rows = await self.pool.fetch(
            _MESSAGES, game_id, before, list(rooms_for(state, viewer)),
            uuid.UUID(viewer) if viewer else None, limit,
        )  # fmt: skip
        return [_message(r) for r in rows]

    async def phrases_only(self, game_id: uuid.UUID) -> bool:
        return bool(await self.pool.fetchval(_RULES, game_id))

    async def set_phrases_only(
        self, game_id: uuid.UUID, by: str, state: GameState, created_by: str | None, on: bool
    ) -> None:
        """Set the table's rule: its creator or a seated player may."""
        if by != created_by and room_of(state, by) != "players":
            raise Forbidden(
                "only the game's creator or a player seated there sets its chat rule",
                code="not_at_table",
            )
        await self.pool.execute(_SET_RULES, game_id, on, uuid.UUID(by))

    # --- moderation ------------------------------------------------------------------------

    async def mutes(self, player: str) -> set[uuid.UUID]:
        known = self._mutes.get(player)
        if known is None:
            known = {r[0] for r in await self.pool.fetch(_MUTES, uuid.UUID(player))}
            self._mutes[player] = known
        return known

    async def mute(self, player: str, muted: uuid.UUID, on: bool) -> None:
        """``player`` hides ``muted``'s messages for himself (or shows them again)."""
        if str(muted) == player:
            raise ChatRefused("nobody mutes himself", code="chat.mute_self")
        if on:
            await self.pool.execute(_MUTE, uuid.UUID(player), muted)
        else:
            await self.pool.execute(_UNMUTE, uuid.UUID(player), muted)
        known = await self.mutes(player)
        (known.add if on else known.discard)(muted)

    async def report(self, game_id: uuid.UUID, seq: int, reporter: str, reason: str) -> bool:
        """Report a message to the moderators; False if this reporter had reported it."""
        if not 0 < seq < 2**63:  # no message's number (a bigint)
            raise NotFound("no message of this table has this number")
        added = await self.pool.fetchval(_REPORT, seq, game_id, uuid.UUID(reporter), reason)
        if added is None:
            raise NotFound("no message of this table has this number")
        return bool(added)

    # --- following -------------------------------------------------------------------------

    def hint(self, *_: object) -> None:
        self.worker.hint()

    async def run(self) -> None:
        await self.worker.run()

    async def _round(self) -> float | None:
        if not self._followers:
            return None
        games = list(self._followers)
        messages = await self.pool.fetch(_NEW, games, self._last)
        rematches = await self.pool.fetch(_NEW_REMATCHES, games, self._last)
        frames: list[Frame] = [_message(r) for r in messages] + [rematch_of(r) for r in rematches]
        now = asyncio.get_running_loop().time()
        for frame in sorted(frames, key=lambda f: f.seq):
            if frame.seq in self._seen:
                continue
            self._seen[frame.seq] = now
            self._last = max(self._last, frame.seq)
            for follower in self._followers.get(frame.game_id, ()):
                with contextlib.suppress(asyncio.QueueFull):  # a laggard misses chat, not play
                    follower.queue.put_nowait(frame)
        self._seen = {s: t for s, t in self._seen.items() if now - t < 30}
        return None

    async def follow(
        self, game_id: uuid.UUID, viewer: str | None, state_of: Any
    ) -> AsyncIterator[Frame]:
        """The table's new messages ``viewer`` reads (muted authors left out) and its rematch
        offer's changes, live, from now on. ``state_of()`` gives the game's state now."""
        follower = _Follower(game_id)
        if not self._followers:
            self._last = await self.pool.fetchval(_LAST)
        self._followers.setdefault(game_id, set()).add(follower)
        try:
            while True:
                frame = await follower.queue.get()
                if isinstance(frame, ChatMessage):
                    if viewer is not None and frame.author in await self.mutes(viewer):
                        continue
                    if frame.room not in rooms_for(await state_of(), viewer):
                        continue
                yield frame
        finally:
            followers = self._followers.get(game_id)
            if followers is not None:
                followers.discard(follower)
                if not followers:
                    del self._followers[game_id]

    async def rematch(self, game_id: uuid.UUID) -> Rematch | None:
        row = await self.pool.fetchrow(_REMATCHES, [game_id])
        return rematch_of(row) if row else None
