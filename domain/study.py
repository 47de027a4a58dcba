"""A what-if study (разбор): one deal of a finished game, forked at a step and played on.

A study is a decider of its own, over a stream of its own kind: `StudyForked` names the source
(the game, the deal, the step), the owner and who moves each seat, and is followed in the same
append by the source deal's first ``step`` events exactly as the game logged them (the prefix).
After that come the moves made in the study, as the deal's own events (`domain.deal`), notes on
its steps, who moves which seat, and whether it is shared. The deal's decider judges every
move, exactly as at the table; a study is never scored on a sheet, rated or counted.

A step is an event of the deal, counted from 1 (the cards dealt), as a replay counts them
(`projections.replay`): the study forked at step K holds the source's events 1 … K, and its
own moves from K + 1 on.

    decide(command, state) -> events      every rule (the deal's through `domain.deal.decider`)
    evolve(state, event) -> state         no rule
"""

from __future__ import annotations

from typing import Literal, get_args

import msgspec

from domain.cards import Seat
from domain.deal import decider as deal
from domain.deal.messages import DealEvent, DealStarted, SeatCommand
from domain.deal.state import DealState
from domain.errors import DealOver, IllegalAction, NotYourTurn, WrongPhase, refuse
from domain.rules import Rules

BotLevel = Literal["random", "basic", "strong", "expert"]
"""A bot that moves a seat of the study (the service's strategies, `bots.LEVELS`)."""
BOT_LEVELS: tuple[str, ...] = get_args(BotLevel)

NOTE_LENGTH = 500
"""A note's characters at most."""
NOTES = 200
"""Notes a study holds at most."""


# --- commands -----------------------------------------------------------------------------------


class StudyCommand(
    msgspec.Struct, frozen=True, kw_only=True, tag_field="type", forbid_unknown_fields=True
):
    at: int | None = None
    """When the service issued it, in milliseconds since the epoch."""


class ForkStudy(StudyCommand, frozen=True, tag="fork_study"):
    """Start a study from the first ``step`` events of deal ``deal_no`` of game ``game_id``."""

    owner: str
    game_id: str
    deal_no: int
    step: int
    rules: Rules
    players: tuple[str | None, ...]
    """The source game's players by seat (opaque ids), for the study's names."""
    prefix: tuple[DealEvent, ...]
    """The deal's events 1 … ``step``, as the game logged them."""
    bots: tuple[BotLevel | None, ...] = ()
    """By seat: the bot that moves it, or None for the owner's hand (empty: the owner's all)."""


class MoveInStudy(StudyCommand, frozen=True, tag="move_in_study"):
    """A seat's move in the study: the owner's, or (``by_bot``) the bot's that holds the seat."""

    move: SeatCommand
    by_bot: bool = False


class AnnotateStep(StudyCommand, frozen=True, tag="annotate_step"):
    """A text note on step ``step`` (1 … the study's steps)."""

    step: int
    text: str


class ShareStudy(StudyCommand, frozen=True, tag="share_study"):
    """Let anyone with the link read the study (``shared``), or no one but its owner."""

    shared: bool


class SetSeatBot(StudyCommand, frozen=True, tag="set_seat_bot"):
    """Give seat ``seat`` to a bot of level ``bot``, or (None) back to the owner's hand."""

    seat: Seat
    bot: BotLevel | None = None


Command = ForkStudy | MoveInStudy | AnnotateStep | ShareStudy | SetSeatBot


# --- events -------------------------------------------------------------------------------------


class StudyEventBase(msgspec.Struct, frozen=True, kw_only=True, tag_field="type"):
    pass


class StudyForked(StudyEventBase, frozen=True, tag="study_forked"):
    """A study began: its source, its owner, who moves each seat. The prefix follows."""

    owner: str
    game_id: str
    deal_no: int
    step: int
    rules: Rules
    players: tuple[str | None, ...]
    bots: tuple[BotLevel | None, ...]
    at: int | None = None


class NoteAdded(StudyEventBase, frozen=True, tag="note_added"):
    step: int
    text: str
    at: int | None = None


class StudyShared(StudyEventBase, frozen=True, tag="study_shared"):
    shared: bool
    at: int | None = None


class SeatBotSet(StudyEventBase, frozen=True, tag="seat_bot_set"):
    seat: Seat
    bot: BotLevel | None = None


StudyOwnEvent = StudyForked | NoteAdded | StudyShared | SeatBotSet
Event = StudyOwnEvent | DealEvent
"""Everything a study's stream holds."""


# --- state --------------------------------------------------------------------------------------


class Note(msgspec.Struct, frozen=True, kw_only=True):
    step: int
    text: str
    at: int | None = None


class NoStudy(msgspec.Struct, frozen=True):
    """Before `StudyForked`."""


class Study(msgspec.Struct, frozen=True, kw_only=True):
    owner: str
    game_id: str
    deal_no: int
    fork_step: int
    rules: Rules
    players: tuple[str | None, ...]
    bots: tuple[BotLevel | None, ...]
    deal: DealState
    events: tuple[DealEvent, ...] = ()
    """The deal's events so far: the prefix, then the study's own moves."""
    notes: tuple[Note, ...] = ()
    shared: bool = False

    @property
    def steps(self) -> int:
        return len(self.events)

    @property
    def over(self) -> bool:
        return deal.is_terminal(self.deal)


_DEAL_EVENTS = DealEvent.__args__

State = NoStudy | Study
INITIAL_STATE: State = NoStudy()


def to_act(state: Study) -> tuple[Seat, ...]:
    """The seats that may move now (two while a claim waits for its answers)."""
    return () if state.over else deal.to_act(state.deal)


def legal_moves(state: Study, seat: Seat) -> tuple[SeatCommand, ...]:
    """What ``seat`` may do now in the study's deal."""
    if state.over:
        return ()
    return tuple(deal.legal_actions(state.deal, seat))


# --- decide / evolve ----------------------------------------------------------------------------


def decide(command: Command, state: State) -> list[Event]:
    """The events ``command`` causes; raises an `IllegalAction` (or `PreferansError`)."""
    match command, state:
        case ForkStudy(), NoStudy():
            return _fork(command)
        case ForkStudy(), Study():
            raise WrongPhase("the study exists already", code="illegal.study_exists")
        case _, NoStudy():
            raise WrongPhase("no study has been forked here", code="illegal.no_study")
        case MoveInStudy(), Study():
            return _move(command, state)
        case AnnotateStep(), Study():
            return [_note(command, state)]
        case ShareStudy(), Study():
            if command.shared == state.shared:
                return []  # already so: an idempotent repeat
            return [StudyShared(shared=command.shared, at=command.at)]
        case SetSeatBot(), Study():
            if not 0 <= command.seat < state.rules.players:
                raise refuse("no_such_seat", f"the study's table has no seat {command.seat}")
            if state.bots[command.seat] == command.bot:
                return []
            return [SeatBotSet(seat=command.seat, bot=command.bot)]
    raise IllegalAction(f"{type(command).__name__} is not a study's command")


def _fork(command: ForkStudy) -> list[Event]:
    seats = command.rules.players
    if command.deal_no < 1:
        raise refuse("no_such_deal", "deals are counted from 1")
    if not 1 <= command.step == len(command.prefix):
        raise refuse("bad_prefix", "a study is forked after its step's events: 1 … the deal's")
    if not isinstance(command.prefix[0], DealStarted):
        raise refuse("bad_prefix", "a deal's events begin with its cards dealt")
    if len(command.players) != seats:
        raise refuse("bad_players", f"the study's table has {seats} seats")
    bots = command.bots or (None,) * seats
    if len(bots) != seats:
        raise refuse("bad_bots", f"name a bot, or none, for each of the {seats} seats")
    deal.fold(deal.initial_state(command.rules), command.prefix)  # a prefix the rules fold
    forked = StudyForked(
        owner=command.owner, game_id=command.game_id, deal_no=command.deal_no,
        step=command.step, rules=command.rules, players=command.players, bots=bots,
        at=command.at,
    )  # fmt: skip
    return [forked, *command.prefix]


def _move(command: MoveInStudy, state: Study) -> list[Event]:
    if state.over:
        raise DealOver("the study's deal is over: annotate it, or fork another")
    seat = command.move.seat
    held = state.bots[seat] if 0 <= seat < len(state.bots) else None
    if held is not None and not command.by_bot:
        raise NotYourTurn(
            f"seat {seat} is moved by the {held} bot: give it back to your hand first",
            code="illegal.bot_seat",
        )
    if held is None and command.by_bot:
        raise NotYourTurn(f"seat {seat} is the owner's hand, no bot's", code="illegal.owner_seat")
    return list(deal.decide(command.move, state.deal))


def _note(command: AnnotateStep, state: Study) -> NoteAdded:
    text = command.text.strip()
    if not text:
        raise refuse("empty_note", "a note says something")
    if len(text) > NOTE_LENGTH:
        raise refuse("note_too_long", f"a note holds at most {NOTE_LENGTH} characters")
    if not 1 <= command.step <= state.steps:
        raise refuse("no_such_step", f"the study's steps are 1 … {state.steps}")
    if len(state.notes) >= NOTES:
        raise refuse("too_many_notes", f"a study holds at most {NOTES} notes")
    return NoteAdded(step=command.step, text=text, at=command.at)


def evolve(state: State, event: Event) -> State:
    match event, state:
        case StudyForked(), NoStudy():
            return Study(
                owner=event.owner, game_id=event.game_id, deal_no=event.deal_no,
                fork_step=event.step, rules=event.rules, players=event.players,
                bots=event.bots, deal=deal.initial_state(event.rules),
            )  # fmt: skip
        case NoteAdded(), Study():
            note = Note(step=event.step, text=event.text, at=event.at)
            return msgspec.structs.replace(state, notes=(*state.notes, note))
        case StudyShared(), Study():
            return msgspec.structs.replace(state, shared=event.shared)
        case SeatBotSet(), Study():
            bots = tuple(event.bot if s == event.seat else b for s, b in enumerate(state.bots))
            return msgspec.structs.replace(state, bots=bots)
        case _, Study() if isinstance(event, _DEAL_EVENTS):
            return msgspec.structs.replace(
                state, deal=deal.evolve(state.deal, event), events=(*state.events, event)
            )
    raise ValueError(f"{type(event).__name__} does not follow {type(state).__name__}")
