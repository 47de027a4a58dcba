"""A study's rules: forked from a deal's prefix, played on by the deal's own rules, annotated,
shared, its seats given to bots and taken back."""

from __future__ import annotations

import random

import pytest

from domain import study as st
from domain.deal import decider as deal
from domain.deal.messages import CardPlayed, DealEnded, DealEvent, DealStarted, PlayCard
from domain.errors import DealOver, IllegalAction, NotYourTurn, WrongPhase
from domain.game import Event
from domain.rules import rules_for
from domain.simulation import play_random_pulka

RULES = rules_for("sochi", {"pool": {"target": 4}})


def _finished_deal() -> list[DealEvent]:
    """The first deal with play of a pulka of random legal play, from its cards dealt to its
    end."""
    _, appends = play_random_pulka(RULES, random.Random(7))
    events: list[Event] = [e for batch in appends for e in batch]
    deal_events: list[DealEvent] = []
    for e in events:
        if isinstance(e, DealStarted):
            deal_events = []
        if isinstance(e, st._DEAL_EVENTS):
            deal_events.append(e)
        if isinstance(e, DealEnded) and any(isinstance(x, CardPlayed) for x in deal_events):
            return deal_events
    raise AssertionError("no deal was played out")


DEAL = _finished_deal()


def fork(step: int, bots: tuple[st.BotLevel | None, ...] = ()) -> st.Study:
    command = st.ForkStudy(
        owner="owner", game_id="g", deal_no=1, step=step, rules=RULES,
        players=("a", "b", "c"), prefix=tuple(DEAL[:step]), bots=bots,
    )  # fmt: skip
    events = st.decide(command, st.INITIAL_STATE)
    state: st.State = st.INITIAL_STATE
    for e in events:
        state = st.evolve(state, e)
    assert isinstance(state, st.Study)
    return state


def run(state: st.Study, command: st.Command) -> st.Study:
    for e in st.decide(command, state):
        new = st.evolve(state, e)
        assert isinstance(new, st.Study)
        state = new
    return state


def test_a_fork_holds_the_deals_prefix_and_the_deals_own_state_after_it() -> None:
    first_card = next(k for k, e in enumerate(DEAL) if isinstance(e, CardPlayed))
    study = fork(first_card)
    assert study.events == tuple(DEAL[:first_card])
    assert study.deal == deal.fold(deal.initial_state(RULES), DEAL[:first_card])
    assert study.fork_step == first_card and study.steps == first_card
    assert study.bots == (None, None, None) and not study.shared and not study.over


def test_the_owner_plays_on_by_the_deals_rules_to_its_end() -> None:
    study = fork(1)
    while not study.over:
        seat = st.to_act(study)[0]
        move = st.legal_moves(study, seat)[-1]  # not the real line's choice, usually
        study = run(study, st.MoveInStudy(move=move))
    assert isinstance(study.events[-1], DealEnded)
    with pytest.raises(DealOver):
        st.decide(st.MoveInStudy(move=PlayCard(seat=0, card="7S")), study)


def test_an_illegal_move_is_refused_as_at_the_table() -> None:
    first_card = next(k for k, e in enumerate(DEAL) if isinstance(e, CardPlayed))
    study = fork(first_card)
    seat = st.to_act(study)[0]
    other = (seat + 1) % 3
    with pytest.raises(IllegalAction):
        st.decide(st.MoveInStudy(move=PlayCard(seat=other, card=study.deal.hands[other][0])),
                  study)  # fmt: skip


def test_a_bots_seat_takes_no_hand_move_and_an_owners_seat_no_bot_move() -> None:
    study = fork(1, bots=("basic", None, None))
    seat = st.to_act(study)[0]
    move = st.legal_moves(study, seat)[0]
    if study.bots[seat] is not None:
        with pytest.raises(NotYourTurn):
            st.decide(st.MoveInStudy(move=move), study)
        assert st.decide(st.MoveInStudy(move=move, by_bot=True), study)
    else:
        with pytest.raises(NotYourTurn):
            st.decide(st.MoveInStudy(move=move, by_bot=True), study)
    study = run(study, st.SetSeatBot(seat=0, bot=None))
    assert study.bots == (None, None, None)
    assert st.decide(st.SetSeatBot(seat=0, bot=None), study) == []  # as it is: nothing


def test_notes_name_a_step_of_the_study_and_say_something() -> None:
    study = fork(3)
    study = run(study, st.AnnotateStep(step=2, text="  the bid that mattered  "))
    assert study.notes == (st.Note(step=2, text="the bid that mattered"),)
    for bad in (st.AnnotateStep(step=4, text="x"), st.AnnotateStep(step=0, text="x"),
                st.AnnotateStep(step=1, text="   "),
                st.AnnotateStep(step=1, text="x" * (st.NOTE_LENGTH + 1))):  # fmt: skip
        with pytest.raises(IllegalAction):
            st.decide(bad, study)


def test_sharing_is_switched_and_a_repeat_changes_nothing() -> None:
    study = fork(1)
    assert st.decide(st.ShareStudy(shared=False), study) == []
    study = run(study, st.ShareStudy(shared=True))
    assert study.shared
    assert st.decide(st.ShareStudy(shared=True), study) == []


def test_a_fork_is_made_once_from_a_whole_prefix_of_a_deal() -> None:
    study = fork(2)
    with pytest.raises(WrongPhase):
        st.decide(st.ForkStudy(owner="x", game_id="g", deal_no=1, step=1, rules=RULES,
                               players=("a", "b", "c"), prefix=(DEAL[0],)), study)  # fmt: skip
    for step, prefix in ((0, ()), (2, (DEAL[0],)), (1, (DEAL[1],))):
        with pytest.raises(IllegalAction):
            st.decide(st.ForkStudy(owner="x", game_id="g", deal_no=1, step=step, rules=RULES,
                                   players=("a", "b", "c"), prefix=prefix),
                      st.INITIAL_STATE)  # fmt: skip
    with pytest.raises(WrongPhase):
        st.decide(st.ShareStudy(shared=True), st.INITIAL_STATE)
