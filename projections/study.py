"""A study beside its source: the real line and the study's line, each card judged double-dummy.

Both lines share the deal's first ``fork_step`` events; `compare` judges every card of each
against the par of its position (`projections.analysis.judge_line`: the tricks the declarer, or
an all-pass player himself, takes from there with perfect play by all), says where the study
first left the real line, how each line ended, and the par of the study's position now with the
cards that keep it (a hint for the seat to play). Everything here shows every hand: the service
compares only studies of finished games.
"""

from __future__ import annotations

from collections.abc import Sequence

import msgspec

from domain.cards import Seat
from domain.deal.messages import CardPlayed, DealEnded, DealEvent
from domain.deal.state import Playing
from domain.rules import Rules
from domain.solver import from_playing, solve
from projections.analysis import CardAnalysis, judge_line


class JudgedCard(msgspec.Struct, frozen=True, kw_only=True):
    """A card of a line at its step (the deal's event counted from 1, as a replay counts)."""

    step: int
    analysis: CardAnalysis


class Line(msgspec.Struct, frozen=True, kw_only=True):
    """One line of the deal: its steps, its cards judged, and its result once it ended."""

    steps: int
    cards: tuple[JudgedCard, ...]
    finished: bool
    tricks: tuple[int | None, ...] | None = None
    """Tricks taken by seat once the line ended (None for a seat out of the deal)."""
    lost: tuple[int, ...] = ()
    """By seat: tricks the seat's own choices gave away against par on this line."""


class ParNow(msgspec.Struct, frozen=True, kw_only=True):
    """The study's position now, when a card is to be played."""

    seat: Seat
    """The hand to play."""
    judged: Seat
    par: int
    """``judged``'s total tricks with perfect play from here."""
    best: tuple[str, ...]
    """The cards that keep par."""


class StudyComparison(msgspec.Struct, frozen=True, kw_only=True):
    fork_step: int
    diverged_at: int | None
    """The first step at which the study's event is not the real one (None: it follows the
    real line so far)."""
    real: Line
    study: Line
    now: ParNow | None = None


def compare(
    rules: Rules, real: Sequence[DealEvent], study: Sequence[DealEvent], fork_step: int
) -> StudyComparison:
    """The study's line (``study``: the shared prefix, then its own moves) beside the real one
    (``real``: the source deal's events), each judged double-dummy."""
    diverged = next(
        (k + 1 for k in range(fork_step, len(study)) if k >= len(real) or study[k] != real[k]),
        None,
    )
    study_line, state = _line(rules, study)
    real_line, _ = _line(rules, real)
    now = None
    if isinstance(state, Playing) and state.claim is None and state.controllers:
        judged = state.turn if state.kind == "raspasy" else state.declarer
        assert judged is not None
        solution = solve(from_playing(state, focus=judged))
        now = ParNow(
            seat=state.turn, judged=judged, par=state.tricks[judged] + solution.focus_tricks,
            best=solution.best(),
        )  # fmt: skip
    return StudyComparison(
        fork_step=fork_step, diverged_at=diverged, real=real_line, study=study_line, now=now
    )


def _line(rules: Rules, events: Sequence[DealEvent]) -> tuple[Line, object]:
    judged, _, state = judge_line(events, rules)
    steps = [k + 1 for k, e in enumerate(events) if isinstance(e, CardPlayed)]
    cards = tuple(JudgedCard(step=s, analysis=c) for s, c in zip(steps, judged, strict=True))
    seats = rules.players
    lost = [0] * seats
    for c in judged:
        if c.cost > 0:
            lost[c.by] += c.cost
    end = events[-1] if events else None
    tricks: tuple[int | None, ...] | None = None
    if isinstance(end, DealEnded):
        taken = dict(end.outcome.taken())
        tricks = tuple(taken.get(s) for s in range(seats))
    line = Line(
        steps=len(events), cards=cards, finished=tricks is not None, tricks=tricks,
        lost=tuple(lost),
    )  # fmt: skip
    return line, state
