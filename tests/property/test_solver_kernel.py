"""The compiled kernel (domain/solver/_kernel.c) is the pure search, only faster: on thousands of
random endings of every mode (contract, misère, all-pass with and without the talon, three and
four seats, tricks partly played) and on whole deals, its par and every legal card's value are
the pure solver's and, where the brute force can follow, the brute force's; its node counts are
the pure solver's too, so a budget counted in nodes buys the same search in either; a node limit
aborts both alike and leaves the kernel's table valid."""

from __future__ import annotations

import os
import random
import subprocess
import sys

import pytest
from _hypothesis import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from domain.cards import DECK, SUITS
from domain.solver import Position, SearchAborted, advance, position, solve
from domain.solver.reference import brute_force, random_ending
from domain.solver.search import KERNEL_AVAILABLE, PURE_ENV, Solver

pytestmark = pytest.mark.skipif(not KERNEL_AVAILABLE, reason="the kernel is not built")


def _solver(pos: Position, *, kernel: bool) -> Solver:
    return Solver(
        trump=pos.trump, mode=pos.mode, focus_slot=pos.order.index(pos.focus),
        talon_leads=pos.talon_leads, forehand_leads_until=pos.forehand_leads_until, kernel=kernel,
    )  # fmt: skip


def _both(pos: Position) -> tuple[tuple[int, dict[str, int]], int, int]:
    """The kernel's (par, values), after checking them and the node count against the pure
    solver's; and both node counts."""
    pure, kernel = _solver(pos, kernel=False), _solver(pos, kernel=True)
    assert kernel.backend == "kernel" and pure.backend == "pure"
    want = solve(pos, solver=pure)
    got = solve(pos, solver=kernel)
    assert got == want, pos
    assert kernel.nodes == pure.nodes, pos
    return (got.focus_tricks, got.values), pure.nodes, kernel.nodes


def test_the_kernel_is_built_by_the_install() -> None:
    """`pip install -e .` builds it (setup.py); without it every solve falls back to pure."""
    assert KERNEL_AVAILABLE
    pos = random_ending(random.Random(0), 3)
    assert solve(pos) == solve(pos, solver=_solver(pos, kernel=False))


@settings(max_examples=examples(1000))
@given(seed=st.integers(0, 2**32 - 1), tricks=st.integers(1, 4))
def test_endings_the_kernel_values_as_the_pure_solver_and_the_brute_force(
    seed: int, tricks: int
) -> None:
    pos = random_ending(random.Random(seed), tricks)
    got, _, _ = _both(pos)
    assert got == brute_force(pos), pos


@settings(max_examples=examples(300))
@given(seed=st.integers(0, 2**32 - 1), tricks=st.integers(5, 8))
def test_longer_endings_the_kernel_values_as_the_pure_solver(seed: int, tricks: int) -> None:
    rng = random.Random(seed)
    pos = random_ending(rng, tricks)
    got, _, _ = _both(pos)
    if tricks == 5 and rng.random() < 0.2:  # the brute force is slow from five tricks on
        assert got == brute_force(pos), pos


def _whole_deal(rng: random.Random) -> Position:
    seats = rng.choice((3, 4))
    dealer = rng.randrange(seats)
    order = tuple((dealer + i) % seats for i in (1, 2, 3))
    assert len(order) == 3
    deck = list(DECK)
    rng.shuffle(deck)
    hands = {s: deck[i * 10 : (i + 1) * 10] for i, s in enumerate(order)}
    mode = rng.choice(("contract", "contract", "misere", "paranoid"))
    trump = rng.choice((*SUITS, None)) if mode == "contract" else None
    talon = (deck[30], deck[31]) if mode == "paranoid" and rng.random() < 0.7 else ()
    return position(
        hands, order=order, turn=order[0], focus=rng.choice(order), mode=mode, trump=trump,
        talon=talon, seats=seats,
    )  # fmt: skip


@settings(max_examples=examples(15))
@given(seed=st.integers(0, 2**32 - 1))
def test_whole_deals_every_opening_lead_valued_as_the_pure_solver(seed: int) -> None:
    _both(_whole_deal(random.Random(seed)))


@settings(max_examples=examples(25))
@given(seed=st.integers(0, 2**32 - 1))
def test_a_kernel_shared_along_a_played_deal_values_every_position_as_a_fresh_pure_one(
    seed: int,
) -> None:
    """One kernel's table serves a whole trace, as the analysis and the bots use it (held to a
    fresh pure solver where that is quick, to a fresh kernel before)."""
    rng = random.Random(seed)
    pos: Position | None = _whole_deal(rng)
    assert pos is not None
    shared = _solver(pos, kernel=True)
    while pos is not None:
        got = solve(pos, solver=shared)
        fresh = _solver(pos, kernel=pos.tricks_left > 6)
        assert got == solve(pos, solver=fresh), pos
        pos, _ = advance(pos, rng.choice(list(got.values)))


@settings(max_examples=examples(50))
@given(seed=st.integers(0, 2**32 - 1), limit=st.integers(0, 400))
def test_a_node_limit_aborts_the_kernel_where_it_aborts_the_pure_solver(
    seed: int, limit: int
) -> None:
    rng = random.Random(seed)
    pos = _whole_deal(rng) if rng.random() < 0.2 else random_ending(rng, rng.randint(5, 8))
    want = solve(pos, solver=_solver(pos, kernel=True))
    outcomes = []
    for kernel in (False, True):
        s = _solver(pos, kernel=kernel)
        s.limit_nodes(limit)
        try:
            outcomes.append(solve(pos, solver=s))
        except SearchAborted:
            outcomes.append(None)
        s.limit_nodes(None)
        outcomes.append(s.nodes)
        # the table keeps only finished results: the solver stays exact
        assert solve(pos, solver=s) == want
    assert outcomes[:2] == outcomes[2:]


def test_the_environment_forces_the_pure_search() -> None:
    code = (
        "from domain.solver.search import Solver;"
        "print(Solver(trump=None, mode='contract', focus_slot=0).backend)"
    )
    for env, want in (({}, "kernel"), ({PURE_ENV: "pure"}, "pure")):
        out = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, check=True,
            env={**_env(), **env},
        )  # fmt: skip
        assert out.stdout.strip() == want


def _env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k != PURE_ENV}
