"""The table's chat (post, page, mute, report, the "phrases only" rule) and the rematch offer.

Chat is no game event: it is stored beside the log (`service.games.chat`) and delivered on the
game's stream as ``chat`` frames, the rematch offer's changes as ``rematch`` frames
(`service.api.games.events`).
"""

from __future__ import annotations

import uuid
from typing import Annotated

import msgspec
from litestar import Controller, Response, delete, get, post, put
from litestar.di import NamedDependency
from litestar.params import FromPath, JSONBody, QueryParameter

from service.api.auth import SECURITY
from service.api.chat.schemas import (
    ChatPage,
    ChatReport,
    ChatRules,
    MuteList,
    NewChatMessage,
    RematchAnswerBody,
    Reported,
)
from service.api.common import NO_STORE, PRIVATE
from service.api.errors import problem_responses
from service.api.rate_limits import CHAT, RateLimiter
from service.exceptions import RateLimited
from service.games.chat import ChatMessage, Rematch, TableTalk
from service.games.lobby import Lobby
from service.games.rematch import Rematches
from service.games.service import GameService
from service.games.tournaments import Embargo
from service.players.accounts import Caller

_WRITE = ("validation", "unauthenticated", "forbidden", "game-not-found")


class ChatController(Controller):
    path = "/games/{game_id:uuid}"
    tags = ["chat"]  # noqa: RUF012

    @post(
        "/chat",
        status_code=201,
        operation_id="postChatMessage",
        summary="Say something at the table",
        description=(
            "A plain-text message (at most 300 characters) or a fixed phrase. A seated player "
            "speaks in the players' room, anyone else in the spectators': the players read the "
            "spectators' room only once the game is over. At most five messages per ten "
            "seconds per player per table (429 `rate-limited`). Never part of the game's "
            "events: it reaches the table on the game's stream as a `chat` frame."
        ),
        security=SECURITY,
        responses=problem_responses(*_WRITE, "chat-refused", "rate-limited", "not-found"),
    )
    async def post_message(
        self,
        game_id: FromPath[uuid.UUID],
        caller: NamedDependency[Caller],
        games: NamedDependency[GameService],
        talk: NamedDependency[TableTalk],
        chat_limiter: NamedDependency[RateLimiter],
        data: JSONBody[NewChatMessage],
    ) -> Response[ChatMessage]:
        caller.may_play()
        _, state = await games.state(game_id)

        def admit() -> None:
            verdict = chat_limiter.hit(CHAT.name, [f"{caller.id}:{game_id}"])
            if not verdict.allowed:
                raise RateLimited(
                    f"at most {CHAT.limit} messages per {CHAT.window} s at a table",
                    retry_after=verdict.reset,
                )

        message = await talk.say(game_id, caller.id, state, data.text, data.phrase, admit=admit)
        message = msgspec.structs.replace(message, name=caller.name)
        return Response(message, status_code=201, headers=NO_STORE)

    @get(
        "/chat",
        operation_id="listChatMessages",
        summary="The table's recent messages",
        description=(
            "Newest first, the messages the caller reads: a seated player the players' room "
            "(and the spectators' once the game is over), anyone else both; authors the caller "
            "muted are left out. Page back with `before` set to `next_before`."
        ),
        responses=problem_responses("validation", "game-not-found", "forbidden"),
    )
    async def list_messages(
        self,
        game_id: FromPath[uuid.UUID],
        viewer: NamedDependency[Caller | None],
        games: NamedDependency[GameService],
        talk: NamedDependency[TableTalk],
        embargo: NamedDependency[Embargo],
        before: Annotated[int | None, QueryParameter(ge=1, le=2**62)] = None,
        limit: Annotated[int, QueryParameter(ge=1, le=200)] = 50,
    ) -> Response[ChatPage]:
        _, state = await games.state(game_id)
        # A duplicate table's talk is its players' until the event ends, like its cards.
        await embargo.may_watch(game_id, viewer.id if viewer else None)
        items = await talk.recent(
            game_id, viewer.id if viewer else None, state, before or 2**62, limit
        )
        page = ChatPage(
            items=items,
            next_before=items[-1].seq if len(items) == limit else None,
            phrases_only=await talk.phrases_only(game_id),
        )
        return Response(page, headers=PRIVATE)

    @put(
        "/chat/rules",
        operation_id="setChatRules",
        summary="Set the table's chat rule",
        description=(
            "`phrases_only`: while the game is played, only the fixed phrases (free text is "
            "422 `chat.phrases_only`); before it starts and once it is over, any text. The "
            "game's creator or a seated player may set it."
        ),
        security=SECURITY,
        responses=problem_responses(*_WRITE),
    )
    async def set_rules(
        self,
        game_id: FromPath[uuid.UUID],
        caller: NamedDependency[Caller],
        games: NamedDependency[GameService],
        lobby: NamedDependency[Lobby],
        talk: NamedDependency[TableTalk],
        data: JSONBody[ChatRules],
    ) -> Response[ChatRules]:
        caller.may_play()
        _, state = await games.state(game_id)
        summary = await lobby.summary(game_id)
        created_by = summary.created_by
        await talk.set_phrases_only(game_id, caller.id, state, created_by, data.phrases_only)
        return Response(data, headers=NO_STORE)

    @post(
        "/chat/{seq:int}/reports",
        status_code=202,
        operation_id="reportChatMessage",
        summary="Report a message to the moderators",
        description="Kept for the moderators, once per message and reporter.",
        security=SECURITY,
        responses=problem_responses(*_WRITE, "not-found"),
    )
    async def report(
        self,
        game_id: FromPath[uuid.UUID],
        seq: FromPath[int],
        caller: NamedDependency[Caller],
        talk: NamedDependency[TableTalk],
        data: JSONBody[ChatReport | None] = None,
    ) -> Response[Reported]:
        caller.may_play()
        reported = await talk.report(game_id, seq, caller.id, (data or ChatReport()).reason)
        return Response(Reported(reported=reported), status_code=202, headers=NO_STORE)

    @get(
        "/rematch",
        operation_id="readRematch",
        summary="The rematch offer of a finished game",
        description=(
            "Who offered, who answered, and the new game once all accepted; null while nobody "
            "offered one."
        ),
        responses=problem_responses("validation", "not-found"),
    )
    async def read_rematch(
        self, game_id: FromPath[uuid.UUID], talk: NamedDependency[TableTalk]
    ) -> Response[Rematch | None]:
        return Response(await talk.rematch(game_id), headers=PRIVATE)

    @post(
        "/rematch",
        status_code=201,
        operation_id="offerRematch",
        summary="Offer to play again",
        description=(
            "On a finished game, by one of its players: the same players at the same seats, "
            "the same rules, the first dealer one seat on. The offerer accepts by offering; "
            "the other humans are notified (`rematch_offered`) and answer; the service's bots "
            "agree at once. Once all accepted the new game is created (`next_game`), its "
            "players notified (`rematch_started`)."
        ),
        security=SECURITY,
        responses=problem_responses(*_WRITE, "not-seated", "rematch-refused"),
    )
    async def offer(
        self,
        game_id: FromPath[uuid.UUID],
        caller: NamedDependency[Caller],
        rematches: NamedDependency[Rematches],
    ) -> Response[Rematch]:
        return Response(await rematches.offer(game_id, caller), status_code=201, headers=NO_STORE)

    @post(
        "/rematch/answer",
        status_code=200,
        operation_id="answerRematch",
        summary="Accept or decline the rematch",
        description=(
            "One refusal closes the offer (`rematch_declined` to the others). The last "
            "acceptance creates the new game: `next_game` in the answer."
        ),
        security=SECURITY,
        responses=problem_responses(*_WRITE, "not-seated", "rematch-refused"),
    )
    async def answer(
        self,
        game_id: FromPath[uuid.UUID],
        caller: NamedDependency[Caller],
        rematches: NamedDependency[Rematches],
        data: JSONBody[RematchAnswerBody],
    ) -> Response[Rematch]:
        rematch = await rematches.answer(game_id, caller, data.accept)
        return Response(rematch, headers=NO_STORE)


class MutesController(Controller):
    path = "/players/me/mutes"
    tags = ["chat"]  # noqa: RUF012

    @get(
        "/",
        operation_id="listMutes",
        summary="The players you muted",
        security=SECURITY,
        responses=problem_responses("unauthenticated"),
    )
    async def list_mutes(
        self, caller: NamedDependency[Caller], talk: NamedDependency[TableTalk]
    ) -> Response[MuteList]:
        muted = sorted(str(m) for m in await talk.mutes(caller.id))
        return Response(MuteList(muted=muted), headers=PRIVATE)

    @put(
        "/{player_id:uuid}",
        status_code=200,
        operation_id="mutePlayer",
        summary="Mute a player",
        description="Hide the player's chat messages from you (only you), at every table.",
        security=SECURITY,
        responses=problem_responses(
            "validation", "unauthenticated", "forbidden", "chat-refused", "not-found"
        ),
    )
    async def mute(
        self,
        player_id: FromPath[uuid.UUID],
        caller: NamedDependency[Caller],
        talk: NamedDependency[TableTalk],
    ) -> Response[MuteList]:
        caller.may_play()
        await talk.mute(caller.id, player_id, True)
        muted = sorted(str(m) for m in await talk.mutes(caller.id))
        return Response(MuteList(muted=muted), headers=NO_STORE)

    @delete(
        "/{player_id:uuid}",
        status_code=200,
        operation_id="unmutePlayer",
        summary="Show a muted player's messages again",
        security=SECURITY,
        responses=problem_responses(
            "validation", "unauthenticated", "forbidden", "chat-refused", "not-found"
        ),
    )
    async def unmute(
        self,
        player_id: FromPath[uuid.UUID],
        caller: NamedDependency[Caller],
        talk: NamedDependency[TableTalk],
    ) -> Response[MuteList]:
        caller.may_play()
        await talk.mute(caller.id, player_id, False)
        muted = sorted(str(m) for m in await talk.mutes(caller.id))
        return Response(MuteList(muted=muted), headers=NO_STORE)


ROUTES = [ChatController, MutesController]
