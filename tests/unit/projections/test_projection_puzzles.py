"""Puzzles mined from finished deals are exact: each answer is the only card that keeps par.

Every check solves each alternative on its own, with a fresh solver and no shared table (the
card played, then the par of what follows, or the brute force's value for endings of up to
four tricks), never through the miner's own search."""

from __future__ import annotations

import pytest
from pulkas import bot_pulka, play_pulka, small_rules

from domain import game as g
from domain.deal.decider import fold, initial_state
from domain.deal.messages import CardPlayed
from domain.deal.state import Playing
from domain.deal.view import seat_view
from domain.solver import Position, advance, from_playing, par, solver_for
from domain.solver.reference import brute_force
from projections.analysis import decisive
from projections.puzzles import GameStillInPlay, Puzzle, mine_deal, mine_game
from projections.replay import DealNotFound, deal_log

SEEDS = (1, 2, 3, 4)
GAMES = {seed: bot_pulka(seed) for seed in SEEDS}
MINED = {seed: mine_game(GAMES[seed]) for seed in SEEDS}


def independent_total(state: Playing, pos: Position, card: str) -> int:
    """The judged seat's total tricks once ``card`` is played, solved from scratch."""
    after, won = advance(pos, card)
    tricks = state.tricks[pos.focus] + (1 if won == pos.focus else 0)
    if after is not None:
        tricks += par(after, solver=solver_for(after))
    return tricks


def position_of(events: list[g.Event], puzzle: Puzzle) -> tuple[Playing, Position]:
    log = deal_log(events, puzzle.position.deal_no)
    state = fold(initial_state(log.rules), log.events[: puzzle.position.step])
    assert isinstance(state, Playing)
    return state, from_playing(state, focus=puzzle.position.judged)


def test_the_bot_games_hold_puzzles_of_several_themes() -> None:
    found = [p for seed in SEEDS for p in MINED[seed]]
    assert len(found) >= 10
    assert len({p.position.theme for p in found}) >= 3


@pytest.mark.parametrize("seed", SEEDS)
def test_every_answer_is_the_only_card_that_keeps_par(seed: int) -> None:
    for puzzle in MINED[seed]:
        state, pos = position_of(GAMES[seed], puzzle)
        totals = {c: independent_total(state, pos, c) for c in puzzle.position.legal}
        keeping = [c for c, t in totals.items() if t == puzzle.position.par]
        assert keeping == [puzzle.solution.answer], (puzzle.position, totals)
        assert {v.card: v.total for v in puzzle.solution.values} == totals
        for card, total in totals.items():
            if card != puzzle.solution.answer:
                assert decisive(puzzle.position.par, total, state.kind, state.contract), card
        if pos.tricks_left <= 4:  # the exhaustive minimax agrees too
            best, values = brute_force(pos)
            assert state.tricks[pos.focus] + best == puzzle.position.par
            assert [c for c, v in values.items() if v == best] == [puzzle.solution.answer]


@pytest.mark.parametrize("seed", SEEDS[:1])
def test_no_position_that_is_a_puzzle_is_missed(seed: int) -> None:
    events = GAMES[seed]
    mined = {(p.position.deal_no, p.position.step) for p in MINED[seed]}
    deal_no = 1
    while True:
        try:
            log = deal_log(events, deal_no)
        except DealNotFound:
            break
        state = initial_state(log.rules)
        for step, e in enumerate(log.events):
            if isinstance(e, CardPlayed) and isinstance(state, Playing):
                judged = e.seat if state.kind == "raspasy" else state.declarer
                assert judged is not None
                pos = from_playing(state, focus=judged)
                cards = sorted(_legal(state))
                totals = {c: independent_total(state, pos, c) for c in cards}
                maximising = (pos.turn == judged) == (pos.mode == "contract")
                best = (max if maximising else min)(totals.values())
                keeping = [c for c, t in totals.items() if t == best]
                others = [t for c, t in totals.items() if t != best]
                is_puzzle = (
                    len(cards) >= 2
                    and len(keeping) == 1
                    and all(decisive(best, t, state.kind, state.contract) for t in others)
                )
                assert is_puzzle == ((deal_no, step) in mined), (deal_no, step, totals)
            state = fold(state, [e])
        deal_no += 1


def _legal(state: Playing) -> list[str]:
    from domain.deal.decider import legal_actions
    from domain.deal.messages import PlayCard

    controller = state.controllers[state.turn] if state.controllers else state.turn
    chooser = state.turn if controller < 0 else controller
    return [a.card for a in legal_actions(state, chooser) if isinstance(a, PlayCard)]


@pytest.mark.parametrize("seed", SEEDS)
def test_a_puzzle_shows_what_its_solver_knew_and_the_full_layout(seed: int) -> None:
    for puzzle in MINED[seed]:
        state, _ = position_of(GAMES[seed], puzzle)
        shown = puzzle.position
        controller = state.controllers[shown.seat]
        assert shown.solver == (shown.seat if controller < 0 else controller)
        assert shown.seen == seat_view(state, shown.solver, (shown.seat,))
        assert shown.hands == tuple(h or None for h in state.hands)
        assert sorted(shown.legal) == sorted(_legal(state))
        assert shown.trick == state.tricks_played + 1


def test_a_game_still_in_play_is_never_mined() -> None:
    rules = small_rules()
    _, appends = play_pulka(rules, 5, stop_after=60)
    events = [e for batch in appends for e in batch]
    assert not any(isinstance(e, g.GameEnded) for e in events)
    with pytest.raises(GameStillInPlay):
        mine_game(events)
    log = deal_log(events, 1)
    if not log.finished:
        with pytest.raises(ValueError):
            mine_deal(log.events, log.rules, 1)
