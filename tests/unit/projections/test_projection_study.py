"""A study beside its source deal: where it left the real line, each card judged double-dummy,
and the par of its position now."""

from __future__ import annotations

from pulkas import bot_pulka

from domain import study as st
from domain.deal import decider as deal
from domain.deal.messages import CardPlayed, DealEnded, PlayCard
from domain.deal.state import Playing
from projections.analysis import analyse
from projections.replay import deal_log
from projections.study import compare

EVENTS = bot_pulka(11)


def _played_deal() -> int:
    n = 1
    while True:
        log = deal_log(EVENTS, n)
        if any(isinstance(e, CardPlayed) for e in log.events):
            return n
        n += 1


DEAL_NO = _played_deal()
LOG = deal_log(EVENTS, DEAL_NO)
FIRST_CARD = next(k for k, e in enumerate(LOG.events) if isinstance(e, CardPlayed))


def test_a_study_that_follows_the_real_line_is_judged_as_the_analysis_judges_it() -> None:
    found = compare(LOG.rules, LOG.events, LOG.events, FIRST_CARD)
    assert found.diverged_at is None
    analysis = analyse(LOG.events, LOG.rules)
    assert [c.analysis for c in found.real.cards] == list(analysis.cards)
    assert found.study == found.real
    assert found.real.finished and found.now is None
    steps = [k + 1 for k, e in enumerate(LOG.events) if isinstance(e, CardPlayed)]
    assert [c.step for c in found.real.cards] == steps
    by_seat = [0] * LOG.rules.players
    for c in analysis.cards:
        by_seat[c.by] += c.cost
    assert list(found.real.lost) == by_seat


def test_another_card_at_the_fork_is_where_the_study_leaves_the_real_line() -> None:
    state = deal.fold(deal.initial_state(LOG.rules), LOG.events[:FIRST_CARD])
    assert isinstance(state, Playing)
    real_card = LOG.events[FIRST_CARD]
    assert isinstance(real_card, CardPlayed)
    seat = state.turn
    chooser = state.controllers[seat] if state.controllers[seat] >= 0 else seat
    other = next(
        a for a in deal.legal_actions(state, chooser)
        if isinstance(a, PlayCard) and a.card != real_card.card
    )  # fmt: skip
    line = list(LOG.events[:FIRST_CARD]) + list(deal.decide(other, state))
    found = compare(LOG.rules, LOG.events, line, FIRST_CARD)
    assert found.diverged_at == FIRST_CARD + 1
    assert found.study.cards[0].analysis.card == other.card
    assert not found.study.finished and found.study.tricks is None
    assert found.now is not None and found.now.best
    study_state = deal.fold(deal.initial_state(LOG.rules), line)
    assert isinstance(study_state, Playing)
    assert found.now.seat == study_state.turn
    # the par now is what the card left: its own "after"
    assert found.now.par == found.study.cards[0].analysis.after


def test_a_study_played_to_its_end_has_a_result() -> None:
    state: st.State = st.INITIAL_STATE
    command = st.ForkStudy(owner="o", game_id="g", deal_no=DEAL_NO, step=FIRST_CARD,
                           rules=LOG.rules, players=LOG.players,
                           prefix=tuple(LOG.events[:FIRST_CARD]))  # fmt: skip
    for e in st.decide(command, state):
        state = st.evolve(state, e)
    assert isinstance(state, st.Study)
    while not state.over:
        seat = st.to_act(state)[0]
        for e in st.decide(st.MoveInStudy(move=st.legal_moves(state, seat)[0]), state):
            state = st.evolve(state, e)
        assert isinstance(state, st.Study)
    found = compare(LOG.rules, LOG.events, state.events, FIRST_CARD)
    assert found.study.finished and isinstance(state.events[-1], DealEnded)
    assert found.study.tricks == tuple(
        dict(state.events[-1].outcome.taken()).get(s) for s in range(LOG.rules.players)
    )
