"""The double-dummy solver is exact: it agrees with a brute-force minimax on thousands of random
endings, gives the known results of the worked deals, and its card values are what play then
shows (a best card keeps par; a card marked as a loss costs its side exactly that)."""

from __future__ import annotations

import random

import pytest
from solver_helpers import (
    ALL_PASS_SWEEP,
    ALL_TEN,
    MISER_HAND,
    STANDARD,
    all_pass,
    contract_play,
    play,
)

from domain.rules import ROSTOV
from domain.solver import Position, advance, from_playing, par, position, solve, solver_for
from domain.solver.reference import brute_force, random_ending
from domain.solver.search import FEATURES, Solver

# endings by tricks left: many small ones, fewer of the expensive five-trick ones
ENDINGS = {1: 150, 2: 300, 3: 600, 4: 600, 5: 150}


@pytest.mark.parametrize("tricks", sorted(ENDINGS))
def test_the_solver_agrees_with_brute_force_on_every_generated_ending(tricks: int) -> None:
    rng = random.Random(1000 + tricks)
    for _ in range(ENDINGS[tricks]):
        pos = random_ending(rng, tricks)
        want_par, want_values = brute_force(pos)
        got = solve(pos)
        assert (got.focus_tricks, got.values) == (want_par, want_values), pos


def test_every_enhancement_can_be_switched_off_without_changing_a_value() -> None:
    rng = random.Random(7)
    for features in (frozenset(), *(FEATURES - {f} for f in FEATURES)):
        for _ in range(40):
            pos = random_ending(rng, rng.randint(2, 4))
            solver = Solver(
                trump=pos.trump, mode=pos.mode, focus_slot=pos.order.index(pos.focus),
                talon_leads=pos.talon_leads, forehand_leads_until=pos.forehand_leads_until,
                features=features,
            )  # fmt: skip
            got = solve(pos, solver=solver)
            assert (got.focus_tricks, got.values) == brute_force(pos)


def test_a_solver_shared_between_deals_gives_the_same_values_as_a_fresh_one() -> None:
    rng = random.Random(11)
    shared: dict[tuple[object, ...], Solver] = {}
    for _ in range(300):
        pos = random_ending(rng, rng.randint(3, 5))
        key = (pos.trump, pos.mode, pos.order.index(pos.focus), pos.talon_leads)
        solver = shared.setdefault(key, solver_for(pos))
        assert solve(pos, solver=solver) == solve(pos)


def test_a_best_card_keeps_par_and_a_losing_card_costs_its_side_what_the_solver_says() -> None:
    rng = random.Random(3)
    for _ in range(60):
        pos = random_ending(rng, rng.randint(4, 6))
        solution = solve(pos)
        mover_maximises = solution.maximising
        for card, value in solution.values.items():
            after, winner = advance(pos, card)
            won = 1 if winner == pos.focus else 0
            later = 0 if after is None else par(after)
            assert won + later == value
            if card in solution.best():
                assert value == solution.focus_tricks
            else:
                # the side that played it ends up with less than par
                assert (
                    value < solution.focus_tricks
                    if mover_maximises
                    else value > solution.focus_tricks
                )
                assert solution.cost(card) > 0


def test_the_first_hand_takes_all_ten_of_the_spade_game_whatever_he_leads() -> None:
    solution = solve(from_playing(contract_play(STANDARD, "6S")))
    assert solution.focus_tricks == 10 and solution.other_tricks == 0
    assert set(solution.values.values()) == {10}


def test_all_eight_trumps_and_two_aces_make_a_checked_ten() -> None:
    state = contract_play(ALL_TEN, "10S")
    assert state.checked
    solution = solve(from_playing(state))
    assert solution.focus_tricks == 10
    assert set(solution.values.values()) == {10}


def test_the_lowest_cards_of_every_suit_make_the_misere_whatever_the_catchers_do() -> None:
    state = contract_play(MISER_HAND, "MISER")
    solution = solve(from_playing(state))
    assert solution.mode == "misere"
    assert solution.focus_tricks == 0
    assert set(solution.values.values()) == {0}
    # and after the catchers' best play at every step, still none
    for _ in range(3):
        pos = from_playing(state)
        best = solve(pos).best()[0]
        state = play(state, best)
    assert par(from_playing(state)) == 0


def test_the_all_pass_sweep_gives_the_first_hand_all_ten_tricks() -> None:
    state = all_pass(ALL_PASS_SWEEP)
    pos = from_playing(state, focus=0)
    assert pos.talon_leads == (0, 1)  # the talon turns spades, then clubs
    assert par(pos) == 10
    # the other two escape with none
    assert par(from_playing(state, focus=1)) == 0
    assert par(from_playing(state, focus=2)) == 0


def test_a_rostov_all_pass_has_no_talon_tricks() -> None:
    state = all_pass(ALL_PASS_SWEEP, rules=ROSTOV)
    pos = from_playing(state, focus=0)
    assert pos.talon_leads == () and pos.forehand_leads_until == 0
    # he leads every trick and each of his cards is the highest of its suit
    assert par(pos) == 10


def test_positions_from_play_agree_with_brute_force_near_the_end() -> None:
    rng = random.Random(5)
    state = contract_play(STANDARD, "6S", whists=("whist", "pass"))
    while state.tricks_played < 6:
        pos = from_playing(state)
        state = play(state, rng.choice(list(solve(pos).values)))
    pos = from_playing(state)
    assert (solve(pos).focus_tricks, solve(pos).values) == brute_force(pos)


def test_a_position_refuses_inconsistent_cards() -> None:
    with pytest.raises(ValueError, match="two hands"):
        Position(hands=(1, 1, 0), order=(0, 1, 2), turn=0, focus=0)
    with pytest.raises(ValueError, match="same number"):
        position({0: ["AS"], 1: ["KS", "QS"], 2: ["JS"]}, order=(0, 1, 2), turn=0, focus=0)
    with pytest.raises(ValueError, match="may not be played"):
        pos = position(
            {0: ["AS"], 1: ["KS", "7H"], 2: ["7D", "8D"]}, order=(0, 1, 2), turn=1, focus=0,
            trick=[(0, "QS")],
        )  # fmt: skip
        advance(pos, "7H")
