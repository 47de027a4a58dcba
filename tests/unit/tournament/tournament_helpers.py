"""Givens for the tournament's tests: formats, a field, rounds played with chosen results."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import msgspec
import pytest

from domain.errors import PreferansError
from domain.fairness import commitment
from domain.tournament import decider as d
from domain.tournament import messages as m
from domain.tournament.format import Format, Registration

SECRETS = [bytes([i]) * 32 for i in range(1, 40)]
DEALS_SECRET = b"\xdd" * 32


def committed(i: int) -> str:
    """The commitment to round ``i + 1``'s secret."""
    return commitment(SECRETS[i])


def fmt(**changes: Any) -> Format:
    base = Format(rounds=3, registration=Registration(opens_at=0, closes_at=1000))
    return msgspec.structs.replace(base, **changes)


def run(state: d.State, *commands: m.TournamentCommand) -> tuple[d.State, list[m.TournamentEvent]]:
    events: list[m.TournamentEvent] = []
    for command in commands:
        new = d.decide(command, state)
        events += new
        state = d.fold(new, state)
    return state, events


def players(n: int) -> list[str]:
    return [f"p{i:02}" for i in range(n)]


def created(form: Format | None = None) -> d.State:
    form = form or fmt()
    deals = commitment(DEALS_SECRET) if form.duplicate is not None else None
    state, _ = run(
        d.INITIAL_STATE,
        m.CreateTournament(format=form, commitment=committed(0), deals_commitment=deals),
    )
    return state


def with_field(n: int, form: Format | None = None) -> d.State:
    state = created(form)
    teams = state.format.teams if isinstance(state, d.Tournament) else None
    for i, p in enumerate(players(n)):
        team = f"t{i // 3}" if teams is not None else None
        state, _ = run(state, m.Register(player=p, at=10, team=team))
    return state


def start(state: d.State, **changes: Any) -> tuple[d.State, list[m.TournamentEvent]]:
    assert isinstance(state, d.Tournament)
    i = len(state.rounds)
    command = m.StartRound(
        at=2000 + i, secret=SECRETS[i].hex(), next_commitment=committed(i + 1), **changes
    )
    return run(state, command)


Scorer = Callable[[int, Sequence[str]], tuple[int, ...]]


def by_name(round_no: int, seating: Sequence[str]) -> tuple[int, ...]:
    """A zero-sum result favouring the lowest name: +20 per place above the middle."""
    order = sorted(range(len(seating)), key=lambda i: seating[i])
    steps = [20 * (len(seating) - 1) - 40 * r for r in range(len(seating))]
    out = [0] * len(seating)
    for rank, seat in enumerate(order):
        out[seat] = steps[rank] // 2
    return tuple(out)


def finish_round(state: d.State, score: Scorer = by_name, close: bool = True) -> d.State:
    assert isinstance(state, d.Tournament)
    r = state.rounds[-1]
    for t in r.tables:
        if t.result is None and not t.annulled and not t.paused:
            state, _ = run(
                state,
                m.RecordResult(
                    round_no=r.round_no, table=t.table, whists=score(r.round_no, t.seating)
                ),
            )
    if close:
        state, _ = run(
            state, m.CloseRound(round_no=r.round_no, secret=SECRETS[r.round_no - 1].hex())
        )
    return state


def play(state: d.State, rounds: int, score: Scorer = by_name) -> d.State:
    for _ in range(rounds):
        state, _ = start(state)
        state = finish_round(state, score)
    return state


def refused(state: d.State, command: m.TournamentCommand, code: str) -> None:
    with pytest.raises(PreferansError) as refusal:
        d.decide(command, state)
    assert refusal.value.code == code, refusal.value.message


def live(state: d.State) -> d.Tournament:
    assert isinstance(state, d.Tournament)
    return state
