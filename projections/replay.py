"""Replays: one finished deal step by step, rebuilt by folding its events.

`replay` cuts deal ``n`` out of a game's log (from its ``DealStarted`` to its ``DealEnded``) and
folds it with `domain.deal.decider.fold`; the state at step ``K`` is the fold of the deal's
first ``K`` events (step 1: the cards are dealt; the last step: the deal is over). Every hand,
the talon, the discard, the bidding, the whisting and every trick are in the log, so the replay is
exact.

Who may see what (the safe rule):

- A deal still being played is never replayed, to anyone: `DealInProgress` (HTTP 409). The
  players have the live game view for it.
- Once the game is over (``GameEnded``), every deal is public: the replay shows all the cards
  (``visibility="full"``).
- While the game runs, a finished deal is replayed as each seat saw it at the time: a player
  sees his own hand and what lay face up (the talon once shown, open hands, the cards played),
  never the others' hands nor someone else's discard (``visibility="seat"``); a spectator sees
  only what lay face up (``"public"``). A hand passed out without play would otherwise tell the
  others what a player held while they still play against him. Cards are hidden through the
  domain's own door, `domain.deal.view.seat_view` and `redact_event`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

import msgspec

from domain.deal import decider as deal
from domain.deal.messages import DealEnded, DealEvent, DealStarted
from domain.deal.state import DealFinished, DealState, DealTable, Playing
from domain.deal.view import SeatView, redact_event, seat_view
from domain.game import DealScored, Event, GameCreated, GameEnded, PlayerSeated
from domain.rules import Rules
from domain.sheet import DealScore
from projections.analysis import DealAnalysis

Visibility = Literal["full", "seat", "public"]


class ReplayError(Exception):
    """A replay that cannot be given."""


class DealNotFound(ReplayError):
    """The game has no such deal (HTTP 404)."""


class DealInProgress(ReplayError):
    """The deal is still being played (HTTP 409)."""


class StepOutOfRange(ReplayError, ValueError):
    """``at`` is not a step of the deal (HTTP 400)."""


class ReplayState(msgspec.Struct, frozen=True, kw_only=True):
    """The deal at one step: the seat view it was, and every card the replay may show.

    ``view`` is the domain's `SeatView` (a spectator's in a full or public replay), so a replay
    shows the table exactly as the game view did; ``hands``, ``talon`` and ``discard`` add what
    the replay may show beyond it (all of it once the game is over).
    """

    view: SeatView
    hands: tuple[tuple[str, ...] | None, ...]
    """By seat, the hands the viewer may see (all of them in a full replay); null for the
    others."""
    talon: tuple[str, ...]
    """Talon cards the viewer may see: face down ones only in a full replay."""
    discard: tuple[str, ...] | None
    """The discard (снос), when the viewer may see it."""


class Replay(msgspec.Struct, frozen=True, kw_only=True):
    """A finished deal: every event, and the state at step ``at``."""

    game_id: str
    deal_no: int
    visibility: Visibility
    viewer: int | None
    """The seat whose view this is (``visibility="seat"``)."""
    steps: int
    """Events in the deal; ``at`` runs from 1 (dealt) to ``steps`` (over)."""
    at: int
    events: tuple[DealEvent, ...]
    """The deal's events, hidden cards removed unless the replay is full."""
    state: ReplayState
    """The deal after its first ``at`` events."""
    score: DealScore | None = None
    """What the deal wrote on the sheet."""
    analysis: DealAnalysis | None = None
    """The double-dummy analysis of the play (par before every card, what each card cost, the
    decisive mistakes): only in a full replay, once the analysis projection has reached the
    game (a moment after its end)."""


class DealLog(msgspec.Struct, frozen=True, kw_only=True):
    """One deal cut out of a game's log."""

    rules: Rules
    players: tuple[str | None, ...]
    events: tuple[DealEvent, ...]
    finished: bool
    """The deal ended (its ``DealEnded`` is in the log)."""
    score: DealScore | None
    game_over: bool


def deal_log(events: Sequence[Event], deal_no: int) -> DealLog:
    """Deal ``deal_no`` (from 1) of a game's events; `DealNotFound` if there is none."""
    rules: Rules | None = None
    players: list[str | None] = []
    current, found, finished, game_over = 0, [], False, False
    score: DealScore | None = None
    for event in events:
        match event:
            case GameCreated():
                rules = event.rules
                players = [None] * event.rules.players
            case PlayerSeated():
                players[event.seat] = event.player
            case DealStarted():
                current += 1
            case DealScored() if current == deal_no:
                score = event.score
            case GameEnded():
                game_over = True
        if current == deal_no and not finished and isinstance(event, DealEvent):
            found.append(event)
            finished = isinstance(event, DealEnded)
    if rules is None or deal_no < 1 or not found:
        raise DealNotFound(f"the game has no deal {deal_no}")
    return DealLog(
        rules=rules,
        players=tuple(players),
        events=tuple(found),
        finished=finished,
        score=score,
        game_over=game_over,
    )


def state_at(rules: Rules, events: Sequence[DealEvent], at: int) -> DealState:
    """The domain's state of a deal after its first ``at`` events."""
    return deal.fold(deal.initial_state(rules), tuple(events[:at]))


def replay_state(state: DealState, visibility: Visibility, viewer: int | None) -> ReplayState:
    """What a replay shows of ``state``: everything (``full``), or the seat's own view."""
    assert isinstance(state, DealTable), "a replay starts once the cards are dealt"
    # Between AllPassed and PlayStarted (one append) nobody controls a hand yet.
    laid_out = not isinstance(state, Playing) or bool(state.controllers)
    to_act = deal.to_act(state) if laid_out else ()
    seen = seat_view(state, viewer if visibility == "seat" else None, to_act)
    if visibility == "full":
        hands = tuple(state.hands[s] or None for s in range(state.seats))
        talon = (*state.shown_talon, *state.talon)
        discard: tuple[str, ...] | None = getattr(state, "discard", ()) or None
        if isinstance(state, DealFinished):
            discard = state.discard or None
    else:
        hands = tuple(
            seen.hand if s == viewer and seen.hand else cards
            for s, cards in enumerate(seen.open_hands or (None,) * state.seats)
        )
        talon, discard = seen.talon, seen.discard
    return ReplayState(view=seen, hands=hands, talon=talon, discard=discard)


def visibility_for(log: DealLog, viewer_player: str | None) -> tuple[Visibility, int | None]:
    """The replay rule (module docstring): full after the game, else the viewer's own seat."""
    if log.game_over:
        return "full", None
    if viewer_player is not None and viewer_player in log.players:
        return "seat", log.players.index(viewer_player)
    return "public", None


def replay(
    game_id: str,
    events: Sequence[Event],
    deal_no: int,
    *,
    at: int | None = None,
    viewer_player: str | None = None,
) -> Replay:
    """The replay of deal ``deal_no`` at step ``at`` (default: the end), for ``viewer_player``.

    Raises `DealNotFound`, `DealInProgress` or `StepOutOfRange`.
    """
    log = deal_log(events, deal_no)
    if not log.finished:
        raise DealInProgress(f"deal {deal_no} is still being played")
    steps = len(log.events)
    at = steps if at is None else at
    if not 1 <= at <= steps:
        raise StepOutOfRange(f"step {at} is not in 1 … {steps}")
    visibility, viewer = visibility_for(log, viewer_player)
    shown: tuple[DealEvent, ...] = log.events
    if visibility != "full":
        state: DealState = deal.initial_state(log.rules)
        redacted = []
        for event in log.events:
            redacted.append(redact_event(event, viewer, state))
            state = deal.evolve(state, event)
        shown = tuple(redacted)
    return Replay(
        game_id=game_id,
        deal_no=deal_no,
        visibility=visibility,
        viewer=viewer,
        steps=steps,
        at=at,
        events=shown,
        state=replay_state(state_at(log.rules, log.events, at), visibility, viewer),
        score=log.score,
    )
