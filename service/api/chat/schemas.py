"""The bodies of the table's chat and of a rematch."""

from __future__ import annotations

from typing import Annotated

import msgspec

from service.games.chat import ChatMessage, Phrase

ChatText = Annotated[
    str,
    msgspec.Meta(
        min_length=1,
        max_length=2000,
        description="Plain text, shown as text (never as HTML). The table takes at most 300 "
        "characters (`chat-refused`, `chat.too_long`); the wire bound is looser so that the "
        "refusal says so.",
    ),
]


class NewChatMessage(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Say something at the table: a ``text``, or one of the fixed ``phrase`` keys."""

    text: ChatText | None = None
    phrase: Phrase | None = None
    """``good_luck``, ``well_played``, ``thanks``, ``sorry``, ``hurry_please``: the page shows
    them in the reader's language; the only messages at a table whose rule is "phrases only"
    while the game is played."""


class ChatPage(msgspec.Struct, frozen=True, kw_only=True):
    items: list[ChatMessage]
    """Newest first: the messages the caller reads (his room, his mutes left out)."""
    next_before: int | None
    """Pass as ``before`` for the older page; null on the last page."""
    phrases_only: bool
    """The table's rule: only the fixed phrases while the game is played."""


class ChatRules(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    phrases_only: bool


class ChatReport(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    reason: Annotated[str, msgspec.Meta(max_length=300)] = ""
    """What is wrong with the message, for the moderators."""


class Reported(msgspec.Struct, frozen=True, kw_only=True):
    reported: bool
    """False if you had reported this message before (it is kept once)."""


class MuteList(msgspec.Struct, frozen=True, kw_only=True):
    muted: list[str]
    """The players whose messages you do not see."""


class RematchAnswerBody(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    accept: bool
