"""Golden deal scores: the worked examples of docs/rules.md §F.5.

Seats: dealer 2, so seat 0 is the first hand and declares; seat 1 (the declarer's left) speaks
first on whist, seat 2 second. ``whists[i][0]`` is what defender i wrote on the declarer.
"""

from __future__ import annotations

import pytest

from domain.cards import MISER
from domain.outcome import DealOutcome, DefenderRole, WhistChoice
from domain.rules import LENINGRAD, ROSTOV, SOCHI, Rules, rules_for
from domain.scoring import score_deal
from domain.sheet import PoolSheet, apply_score, empty_sheet

SOCHI_BOTH_LIABLE = rules_for("sochi", {"whist": {"liability_8_10": "both"}})
"""C3's (preferans.pro's) rule: both whisters answer in full on 8–10 (I-8)."""


def game(
    contract: str,
    tricks: tuple[int, int, int],
    first: WhistChoice = "whist",
    second: WhistChoice = "whist",
) -> DealOutcome:
    """Seat 0 declares ``contract``; seats 1 and 2 defend with these choices; tricks per seat."""
    roles, rank = [], 0
    for seat, choice in ((1, first), (2, second)):
        rank += choice == "whist"
        roles.append(DefenderRole(seat=seat, choice=choice, whist_rank=rank * (choice == "whist")))
    return DealOutcome(
        kind="game",
        dealer=2,
        seats=3,
        hands=(0, 1, 2),
        tricks=tuple(tricks),
        declarer=0,
        contract=contract,
        defenders=tuple(roles),
        played="whist" in (first, second),
    )


def written(outcome: DealOutcome, rules: Rules = SOCHI) -> PoolSheet:
    sheet = empty_sheet(outcome.seats)
    return apply_score(sheet, score_deal(outcome, sheet, rules))


def row(after: PoolSheet) -> tuple[int, int, int, int, int, int]:
    """The columns of the C3 table: declarer pool, mountain; W1 whists, mountain; W2 the same."""
    return (
        after.pool[0],
        after.mountain[0],
        after.whists[1][0],
        after.mountain[1],
        after.whists[2][0],
        after.mountain[2],
    )


# --- C3 (preferans.pro) table, Sochi -------------------------------------------------------------


@pytest.mark.parametrize("taken", range(11))
def test_c3_row1_misere_is_pool_10_clean_else_10_per_trick_to_the_mountain(taken: int) -> None:
    given = DealOutcome(
        kind="miser",
        dealer=2,
        seats=3,
        hands=(0, 1, 2),
        tricks=(taken, 10 - taken, 0),
        declarer=0,
        contract=MISER,
    )
    after = written(given)
    assert after.pool[0] == (10 if taken == 0 else 0)
    assert after.mountain[0] == 10 * taken
    assert after.whists == ((0, 0, 0),) * 3


@pytest.mark.parametrize(
    ("contract", "tricks", "expected"),
    [
        ("6S", (6, 2, 2), (2, 0, 4, 0, 4, 0)),  # row 2
        ("7S", (7, 1, 2), (4, 0, 4, 0, 8, 0)),  # row 3
        ("8S", (8, 1, 1), (6, 0, 6, 0, 6, 0)),  # row 4
        ("9S", (9, 1, 0), (8, 0, 8, 0, 0, 0)),  # row 5
        ("6S", (5, 3, 2), (0, 2, 8, 0, 6, 0)),  # row 6
        ("7S", (5, 3, 2), (0, 8, 20, 0, 16, 0)),  # row 7
        ("8S", (5, 3, 2), (0, 18, 36, 0, 30, 0)),  # row 8
        ("9S", (5, 3, 2), (0, 32, 56, 0, 48, 0)),  # row 9
        ("10S", (5, 3, 2), (0, 50, 80, 0, 70, 0)),  # row 10, the 10 whisted
    ],
)
def test_c3_rows_2_to_10_two_whisters_write_their_tricks_and_consolation(
    contract: str, tricks: tuple[int, int, int], expected: tuple[int, ...]
) -> None:
    assert row(written(game(contract, tricks))) == expected


@pytest.mark.parametrize(
    ("contract", "price", "whister_mountain"),
    [("6S", 2, 8), ("7S", 4, 8), ("8S", 6, 6), ("9S", 8, 8), ("10S", 10, 10)],
)
def test_c3_row11_a_lone_whister_with_no_trick_answers_for_the_whole_obligation(
    contract: str, price: int, whister_mountain: int
) -> None:
    after = written(game(contract, (10, 0, 0), first="whist", second="pass"))
    assert row(after) == (price, 0, 0, whister_mountain, 0, 0)


@pytest.mark.parametrize(
    ("contract", "price", "each"),
    [("6S", 2, 4), ("7S", 4, 4), ("8S", 6, 6), ("9S", 8, 8), ("10S", 10, 10)],
)
def test_c3_row12_both_whisters_blank_each_answer_when_both_are_liable(
    contract: str, price: int, each: int
) -> None:
    after = written(game(contract, (10, 0, 0)), SOCHI_BOTH_LIABLE)
    assert row(after) == (price, 0, 0, each, 0, each)


@pytest.mark.parametrize(
    ("contract", "price", "first", "second"),
    [("6S", 2, 4, 4), ("7S", 4, 4, 4), ("8S", 6, 0, 6), ("9S", 8, 0, 8), ("10S", 10, 0, 10)],
)
def test_row12_by_lesnoy_only_the_second_whister_answers_on_8_to_10(
    contract: str, price: int, first: int, second: int
) -> None:
    after = written(game(contract, (10, 0, 0)))  # default liability_8_10="second" (S4)
    assert row(after) == (price, 0, 0, first, 0, second)


# --- Lesnoy (S4) short-whist examples, per convention --------------------------------------------


@pytest.mark.parametrize(
    ("rules", "w1_whists", "w2_whists", "w2_mountain"),
    [(SOCHI, 4, 2, 2), (ROSTOV, 4, 2, 1), (LENINGRAD, 8, 4, 2)],
    ids=["sochi", "rostov", "leningrad"],
)
def test_l1_on_a_six_the_whister_below_his_half_writes_down_one(
    rules: Rules, w1_whists: int, w2_whists: int, w2_mountain: int
) -> None:
    after = written(game("6S", (7, 2, 1)), rules)
    assert after.pool[0] == 2
    assert (after.whists[1][0], after.whists[2][0]) == (w1_whists, w2_whists)
    assert (after.mountain[1], after.mountain[2]) == (0, w2_mountain)


@pytest.mark.parametrize(
    ("rules", "wa_whists", "wa_mountain", "wb_mountain"),
    [(SOCHI, 2, 2, 4), (ROSTOV, 2, 1, 2), (LENINGRAD, 4, 2, 4)],
    ids=["sochi", "rostov", "leningrad"],
)
def test_l2_on_a_six_taken_nine_the_whisters_write_down_one_and_down_two(
    rules: Rules, wa_whists: int, wa_mountain: int, wb_mountain: int
) -> None:
    after = written(game("6S", (9, 1, 0)), rules)
    assert after.whists[1][0] == wa_whists
    assert (after.mountain[1], after.mountain[2]) == (wa_mountain, wb_mountain)


@pytest.mark.parametrize(
    ("rules", "second_mountain"),
    [(SOCHI, 6), (ROSTOV, 3), (LENINGRAD, 6)],
    ids=["sochi", "rostov", "leningrad"],
)
def test_l3_on_an_eight_taken_ten_the_second_whister_writes_down_one(
    rules: Rules, second_mountain: int
) -> None:
    after = written(game("8S", (10, 0, 0)), rules)
    assert (after.mountain[1], after.mountain[2]) == (0, second_mountain)


# --- the derived single-whister illustration -----------------------------------------------------


@pytest.mark.parametrize(
    ("rules", "declarer_mountain", "whister", "passer"),
    [
        (SOCHI, 2, 12, 2),
        (rules_for("sochi", {"whist": {"style": "gentleman"}}), 2, 7, 7),
        (LENINGRAD, 4, 14, 14),
        (rules_for("leningrad", {"scoring": {"consolation": "price"}}), 4, 12, 12),
    ],
    ids=["sochi-greedy", "gentleman-sochi-prices", "leningrad-c4", "leningrad-c2"],
)
def test_single_whister_on_a_remiz_greedy_keeps_the_whists_gentleman_halves_them(
    rules: Rules, declarer_mountain: int, whister: int, passer: int
) -> None:
    after = written(game("6S", (5, 3, 2), first="whist", second="pass"), rules)
    assert after.mountain == (declarer_mountain, 0, 0)
    assert (after.whists[1][0], after.whists[2][0]) == (whister, passer)
