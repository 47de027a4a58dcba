"""The bodies of the studies' requests and responses (`service.api.studies`)."""

from __future__ import annotations

import datetime as dt
import uuid
from typing import Annotated, Literal

import msgspec

from domain.deal.messages import DealEvent
from projections.replay import ReplayState
from service.api.actions.schemas import Action
from service.api.text import SeatNumber

BotLevel = Literal["random", "basic", "strong", "expert"]
Step = Annotated[int, msgspec.Meta(ge=1, le=1_000)]


class NewStudy(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Fork deal ``deal_no`` of the finished game ``game_id`` after its first ``step`` events
    (1: the cards just dealt; a replay's step numbers)."""

    game_id: uuid.UUID
    deal_no: Annotated[int, msgspec.Meta(ge=1, le=10_000)]
    step: Step = 1
    bots: Annotated[list[BotLevel | None], msgspec.Meta(max_length=4)] = []
    """By seat: the bot that moves it (``random``, ``basic``, ``strong``, ``expert``), or null
    for your own hand; empty: you move every seat."""


class StudyMove(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A move for ``seat``: one of the seat's ``legal`` actions in the study."""

    seat: SeatNumber
    action: Action


class NoteBody(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    step: Step
    text: Annotated[str, msgspec.Meta(min_length=1, max_length=500, pattern=r"\S")]


class SharingBody(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    shared: bool
    """True: anyone with the study's link reads it (only you change it); false: you alone."""


class SeatBody(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    bot: BotLevel | None = None
    """The bot that moves the seat from now on, or null for your own hand."""


class StudySeat(msgspec.Struct, frozen=True, kw_only=True):
    seat: int
    player: str | None
    """The source game's player at this seat (an opaque id)."""
    bot: BotLevel | None
    """The bot that moves the seat in the study, or null: the owner's hand."""


class SeatActions(msgspec.Struct, frozen=True, kw_only=True):
    seat: int
    actions: tuple[Action, ...]


class NoteView(msgspec.Struct, frozen=True, kw_only=True):
    step: int
    text: str
    at: int | None = None
    """When it was written, ms since the epoch."""


class StudyView(msgspec.Struct, frozen=True, kw_only=True):
    """A study at step ``at``: every card (the source game is over), its line, its notes."""

    id: uuid.UUID
    owner: str
    mine: bool
    """Whether the caller owns it (and so may move, annotate and share it)."""
    game_id: uuid.UUID
    deal_no: int
    fork_step: int
    """The study holds the source deal's events 1 … ``fork_step``, then its own moves."""
    version: int
    shared: bool
    over: bool
    """The study's deal has ended."""
    steps: int
    at: int
    seats: tuple[StudySeat, ...]
    events: tuple[DealEvent, ...]
    """The deal's events in the study, every card shown."""
    state: ReplayState
    """The deal after its first ``at`` events."""
    to_act: tuple[int, ...]
    """The seats to move now (at the study's last step)."""
    legal: tuple[SeatActions, ...]
    """For the owner, the actions of each seat of his hand to move now; empty otherwise."""
    notes: tuple[NoteView, ...]


class StudyListItem(msgspec.Struct, frozen=True, kw_only=True):
    id: uuid.UUID
    game_id: uuid.UUID
    deal_no: int
    step: int
    created_at: dt.datetime


class StudyPage(msgspec.Struct, frozen=True, kw_only=True):
    items: tuple[StudyListItem, ...]
    next_cursor: str | None = None
