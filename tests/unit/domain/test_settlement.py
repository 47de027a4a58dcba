"""The final settlement (расчёт пули), docs/rules.md §H: golden cases and the arithmetic shown."""

from __future__ import annotations

from fractions import Fraction

import pytest

from domain.outcome import DealOutcome, DefenderRole
from domain.rules import LENINGRAD, SOCHI, rules_for
from domain.scoring import score_deal
from domain.settlement import exact_value, settle
from domain.sheet import PoolSheet, apply_score, empty_sheet


def sheet(
    pool: tuple[int, ...], mountain: tuple[int, ...], whists: tuple[tuple[int, ...], ...]
) -> PoolSheet:
    return PoolSheet(players=len(pool), pool=pool, mountain=mountain, whists=whists)


CASE_2A = sheet((14, 8, 0), (12, 26, 6), ((0, 12, 0), (22, 0, 0), (22, 4, 0)))
CASE_2B = sheet((0, 0, 0), (2, 0, 0), ((0, 0, 0), (4, 0, 0), (10, 0, 0)))
CASE_2C = sheet((2, 0, 0), (0, 62, 6), ((0, 110, 14), (2, 0, 12), (4, 70, 0)))


@pytest.mark.parametrize(
    ("given", "exact", "rounded"),
    [
        (CASE_2A, ("184/3", "-302/3", "118/3"), (62, -101, 39)),  # C3: 62, -101, 39
        (CASE_2B, ("-82/3", "32/3", "50/3"), (-27, 11, 16)),  # C3: -28, 11, 17
        (CASE_2C, ("358", "-566", "208"), (358, -566, 208)),  # C3: 359, -567, 208
    ],
    ids=["2a-filled", "2b-partially-filled", "2c-partially-filled1"],
)
def test_preferans_pro_cases_settle_to_the_published_exact_values(
    given: PoolSheet, exact: tuple[str, ...], rounded: tuple[int, ...]
) -> None:
    result = settle(given, SOCHI)
    assert result.exact == exact
    assert result.result == rounded
    assert sum(result.result) == 0
    assert sum(exact_value(v) for v in result.exact) == 0


def test_largest_remainder_keeps_each_result_within_one_whist_of_the_exact_value() -> None:
    for case in (CASE_2A, CASE_2B, CASE_2C):
        result = settle(case, SOCHI)
        assert all(
            abs(r - exact_value(e)) < 1 for r, e in zip(result.result, result.exact, strict=True)
        )


def test_the_settlement_shows_amnesty_conversion_and_netting() -> None:
    result = settle(CASE_2A, SOCHI)
    assert result.mountain_amnesty == 6
    assert result.mountain_after_amnesty == (6, 20, 0)
    assert result.mountain_whists == ("20", "200/3", "0")
    assert not result.pools_cancel
    assert result.pool_whists == ("140/3", "80/3", "0")
    # by 0 on 1: 12 written + 1's mountain 200/3 + 0's pool 140/3
    assert result.converted[0] == ("0", "376/3", "140/3")
    assert result.pairwise[0][1] == "170/3"  # 376/3 − (22 + 20 + 80/3), by 1 on 0
    assert sum(exact_value(v) for v in result.pairwise[0]) == exact_value(result.exact[0])


def test_each_remaining_mountain_point_costs_10_over_n_whists_from_every_other_player() -> None:
    given = sheet((10, 10, 10), (54, 0, 0), ((0,) * 3,) * 3)  # [P9]: 54 / 3 × 10 = 180
    result = settle(given, SOCHI)
    assert result.mountain_whists[0] == "180"
    assert result.pools_cancel
    assert result.result == (-360, 180, 180)


def test_at_four_the_codex_dealer_writes_7_whists_for_a_down_one_six() -> None:
    # S2 3.3.16.3: 2 mountain points × 10/4 + 2 consolation = 7 whists from the sitting-out dealer
    down_one = DealOutcome(
        kind="game",
        dealer=3,
        seats=4,
        hands=(0, 1, 2),
        tricks=(3, 2, 5),
        declarer=2,
        contract="6S",
        defenders=(
            DefenderRole(seat=0, choice="whist", whist_rank=1),
            DefenderRole(seat=1, choice="pass"),
        ),
    )
    start = empty_sheet(4)
    after = apply_score(start, score_deal(down_one, start, SOCHI))
    assert (after.mountain[2], after.whists[3][2]) == (2, 2)
    assert exact_value(settle(after, SOCHI).converted[3][2]) == 7


def test_leningrad_weighs_a_pool_point_as_two_mountain_points() -> None:
    given = sheet((10, 9, 10), (0, 0, 0), ((0,) * 3,) * 3)
    assert settle(given, SOCHI).exact == ("10/3", "-20/3", "10/3")
    assert settle(given, LENINGRAD).exact == ("20/3", "-40/3", "20/3")


def test_equal_pools_cancel() -> None:
    closed = sheet((10, 10, 10), (4, 0, 2), ((0, 6, 0), (0, 0, 0), (0, 0, 0)))
    unplayed = sheet((0, 0, 0), (4, 0, 2), ((0, 6, 0), (0, 0, 0), (0, 0, 0)))
    assert settle(closed, SOCHI).pools_cancel
    assert settle(closed, SOCHI).exact == settle(unplayed, SOCHI).exact


def test_amnesty_changes_no_result() -> None:
    raised = sheet(CASE_2A.pool, tuple(m + 100 for m in CASE_2A.mountain), CASE_2A.whists)
    assert settle(raised, SOCHI).exact == settle(CASE_2A, SOCHI).exact


def test_writing_a_rest_onto_the_others_mountains_equals_writing_it_off_ones_own() -> None:
    own = sheet((10, 10, 10), (-3, 4, 8), ((0,) * 3,) * 3)
    others = sheet((10, 10, 10), (0, 7, 11), ((0,) * 3,) * 3)
    assert settle(own, SOCHI).exact == settle(others, SOCHI).exact


def test_floor_rounding_floors_each_conversion_and_still_sums_to_zero() -> None:
    floor = rules_for("sochi", {"settlement": {"rounding": "floor"}})
    result = settle(CASE_2A, floor)
    assert sum(result.result) == 0
    # as written, no amnesty: mountains (12, 26, 6) floored to 40, 86, 20 whists on each
    # holder, pools (14, 8, 0) to 46, 26, 0 on each opponent
    assert result.result == (
        (12 + 86 + 46) - (22 + 40 + 26) + (0 + 20 + 46) - (22 + 40 + 0),
        (22 + 40 + 26) - (12 + 86 + 46) + (0 + 20 + 26) - (4 + 86 + 0),
        (22 + 40 + 0) - (0 + 20 + 46) + (4 + 86 + 0) - (0 + 20 + 26),
    )
    assert all(
        abs(r - exact_value(e)) <= 2 for r, e in zip(result.result, result.exact, strict=True)
    )


def test_floor_rounding_is_openprefs_close_pool_even_when_the_amnesty_would_change_it() -> None:
    # docs/rules.md §H.6: mountains 3, 2, 2 and equal pools; C1 gives p0 2 × 6 − 2 × 10 = −8
    # (flooring 20/3 to 6), where flooring after the amnesty (mountains 1, 0, 0) would give −6.
    floor = rules_for("sochi", {"settlement": {"rounding": "floor"}})
    result = settle(sheet((10, 10, 10), (3, 2, 2), ((0,) * 3,) * 3), floor)
    assert result.result == (-8, 4, 4)


def test_exact_values_are_fractions_in_lowest_terms() -> None:
    assert exact_value(settle(CASE_2A, SOCHI).exact[0]) == Fraction(184, 3)


# --- pools left unclosed (a game ended by its deals or its time, §G) ------------------------------

UNCLOSED = sheet((4, 10, 7), (0, 0, 0), ((0, 0, 0), (0, 0, 0), (0, 0, 0)))


@pytest.mark.parametrize(
    ("rules", "result"),
    [(SOCHI, (-30, 30, 0)), (LENINGRAD, (-60, 60, 0))],
    ids=["sochi", "leningrad"],
)
def test_unclosed_pools_are_settled_as_whists_after_the_amnesty_of_the_smallest_pool(
    rules, result
) -> None:
    # pools 4, 10, 7 less the smallest 4 → 0, 6, 3, each point 10/3 × weight on every other:
    #   seat 0: 10/3 × w × ((4 − 10) + (4 − 7)) = −30 w; seat 1: +30 w; seat 2: 0
    settled = settle(UNCLOSED, rules)
    assert not settled.pools_cancel and settled.pool_after_amnesty == (0, 6, 3)
    assert settled.result == result


@pytest.mark.parametrize("rules", [SOCHI, LENINGRAD], ids=["sochi", "leningrad"])
def test_writing_each_missing_pool_to_the_mountain_at_the_pool_weight_settles_the_same(rules):
    # poolya.py (C5) writes target − pool to the mountain; at the pool's weight this is the same
    # settlement as converting the pools (C1, C3), so the engine offers no separate option.
    target, weight = 10, rules.settlement.pool_weight
    given = sheet((4, 10, 7), (12, 0, 30), ((0, 14, 0), (2, 0, 8), (0, 40, 0)))
    filled = sheet(
        (target,) * 3,
        tuple(m + weight * (target - p) for m, p in zip(given.mountain, given.pool, strict=True)),
        given.whists,
    )
    assert settle(given, rules).exact == settle(filled, rules).exact
