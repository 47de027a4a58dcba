"""Replays: every step of a finished deal equals the domain's fold; hidden cards stay hidden."""

from __future__ import annotations

import pytest
from pulkas import flat, play_pulka, small_rules

from domain import game as g
from domain.deal import decider as deal
from domain.deal.messages import DealEnded, DealStarted, Discarded
from domain.deal.state import DealTable, Playing
from domain.deal.view import phase_name
from projections.replay import (
    DealInProgress,
    DealNotFound,
    StepOutOfRange,
    deal_log,
    replay,
    replay_state,
)


def finished_game(seed: int, players: int = 3) -> tuple[g.PulkaClosed, list[g.Event]]:
    state, appends = play_pulka(small_rules("sochi", players, target=3), seed)
    assert isinstance(state, g.PulkaClosed)
    return state, flat(appends)


@pytest.mark.parametrize(("seed", "players"), [(1, 3), (2, 3), (3, 4)])
def test_a_full_replay_at_every_step_equals_the_domain_state_folded_to_that_step(seed, players):
    state, events = finished_game(seed, players)
    deals = sum(isinstance(e, DealStarted) for e in events)
    assert deals == state.deal_no
    for n in range(1, deals + 1):
        log = deal_log(events, n)
        whole = replay("g", events, n)
        assert whole.visibility == "full" and whole.at == whole.steps == len(log.events)
        assert whole.events == log.events and isinstance(log.events[-1], DealEnded)
        folded = deal.initial_state(log.rules)
        for k, event in enumerate(log.events, start=1):
            folded = deal.evolve(folded, event)
            assert isinstance(folded, DealTable)
            shown = replay("g", events, n, at=k).state
            assert shown == replay_state(folded, "full", None)
            assert shown.view.phase == phase_name(folded)
            assert shown.hands == tuple(h or None for h in folded.hands)
            assert set(shown.talon) == set(folded.talon) | set(folded.shown_talon)
            assert len(shown.view.auction) == len(folded.auction)
            assert shown.discard == (getattr(folded, "discard", ()) or None)
            if not isinstance(folded, Playing) or folded.controllers:
                assert shown.view.to_act == deal.to_act(folded)
        assert whole.score is not None


def test_a_deal_still_being_played_cannot_be_replayed():
    _, appends = play_pulka(small_rules(), seed=4, stop_after=12)
    events = flat(appends)
    assert not any(isinstance(e, DealEnded) for e in events)
    with pytest.raises(DealInProgress):
        replay("g", events, 1)
    with pytest.raises(DealNotFound):
        replay("g", events, 2)
    with pytest.raises(DealNotFound):
        replay("g", events, 0)


def test_steps_outside_the_deal_are_refused():
    _, events = finished_game(5)
    steps = replay("g", events, 1).steps
    for at in (0, steps + 1):
        with pytest.raises(StepOutOfRange):
            replay("g", events, 1, at=at)


def running_game_with_a_finished_deal(seed: int) -> tuple[g.Pulka, list[g.Event]]:
    """A game in its second deal or later, the first deal over."""
    _, appends = play_pulka(small_rules(target=10), seed)
    events: list[g.Event] = []
    for batch in appends:
        events += batch
        if sum(isinstance(e, DealStarted) for e in events) == 2:
            break
    state = g.fold(events)
    assert isinstance(state, g.Pulka) and not isinstance(state, g.PulkaClosed)
    return state, events


def test_while_the_game_runs_a_player_sees_only_his_own_hand_of_a_finished_deal():
    state, events = running_game_with_a_finished_deal(6)
    log = deal_log(events, 1)
    me = state.players[1]
    seen = replay("g", events, 1, at=1, viewer_player=me)
    assert seen.visibility == "seat" and seen.viewer == 1
    dealt = log.events[0]
    assert isinstance(dealt, DealStarted)
    assert seen.state.hands == (None, dealt.hands[1], None)
    assert seen.state.talon == ()
    started = seen.events[0]
    assert isinstance(started, DealStarted)
    assert started.talon == () and [bool(h) for h in started.hands] == [False, True, False]
    # Someone else's discard never shows.
    for event in seen.events:
        if isinstance(event, Discarded) and event.seat != 1:
            assert event.cards == ()
    # A spectator sees no hand at the start.
    public = replay("g", events, 1, at=1)
    assert public.visibility == "public" and not any(public.state.hands)


def test_after_the_game_every_deal_is_public_in_full():
    state, events = finished_game(7)
    seen = replay("g", events, 1, at=1, viewer_player=state.players[0])
    assert seen.visibility == "full" and seen.viewer is None
    assert all(seen.state.hands) and len(seen.state.hands) == 3
    assert len(seen.state.talon) == 2
