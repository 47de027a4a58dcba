"""A pool that would pass its target (docs/rules.md §G, I-18, I-19): help (помощь) into the largest
unclosed pool, capped at each one's shortfall, then the mountain write-off."""

from __future__ import annotations

import pytest

from domain.outcome import DealOutcome, DefenderRole
from domain.rules import LENINGRAD, ROSTOV, SOCHI, Rules, rules_for
from domain.scoring import score_deal
from domain.settlement import settle
from domain.sheet import DealScore, PoolSheet, apply_score


def made(contract: str, declarer: int = 0) -> DealOutcome:
    """``declarer`` makes ``contract`` exactly; the two others whisted."""
    level = int(contract[:-1])
    others = [s for s in (0, 1, 2) if s != declarer]
    return DealOutcome(
        kind="game",
        dealer=2,
        seats=3,
        hands=(0, 1, 2),
        tricks=tuple({declarer: level, others[0]: 10 - level}.get(s, 0) for s in range(3)),
        declarer=declarer,
        contract=contract,
        defenders=tuple(
            DefenderRole(seat=s, choice="whist", whist_rank=i + 1) for i, s in enumerate(others)
        ),
    )


def sheet(pool: tuple[int, int, int], mountain: tuple[int, int, int] = (0, 0, 0)) -> PoolSheet:
    return PoolSheet(players=3, pool=pool, mountain=mountain, whists=((0, 0, 0),) * 3)


def scored(
    before: PoolSheet, outcome: DealOutcome, rules: Rules = SOCHI
) -> tuple[DealScore, PoolSheet]:
    score = score_deal(outcome, before, rules)
    return score, apply_score(before, score)


def helper_whists(after: PoolSheet, helper: int = 0) -> tuple[int, ...]:
    return after.whists[helper]


@pytest.mark.parametrize("rules", [SOCHI, LENINGRAD, ROSTOV], ids=lambda r: r.convention)
def test_the_excess_goes_as_help_into_the_largest_unclosed_pool_for_10_whists_a_point(
    rules: Rules,
) -> None:
    _, after = scored(sheet((8, 6, 7)), made("7H"), rules)  # price 4: 2 fill the pool, 2 over
    assert after.pool == (10, 6, 9)
    assert helper_whists(after) == (0, 0, 20)


def test_a_tie_for_the_largest_pool_goes_to_the_left_neighbour() -> None:
    _, after = scored(sheet((9, 5, 5)), made("6S", declarer=0))
    assert after.pool == (10, 6, 5)
    _, after = scored(sheet((5, 5, 9)), made("6S", declarer=2))
    assert after.pool == (6, 5, 10)  # seat 0 is seat 2's left neighbour


def test_help_is_capped_at_each_shortfall_and_the_rest_goes_on_then_off_the_mountain() -> None:
    score, after = scored(sheet((10, 9, 8), mountain=(5, 0, 0)), made("8S"))  # 6 over
    assert after.pool == (10, 10, 10)
    assert helper_whists(after) == (0, 10, 20)
    assert after.mountain == (2, 0, 0)
    assert [e.rule for e in score.entries if e.seat == 0 and e.kind != "whists"] == [
        "mountain_written_off"
    ]


@pytest.mark.parametrize(
    ("rules", "written_off"),
    [(SOCHI, 2), (LENINGRAD, 4), (ROSTOV, 2)],
    ids=lambda v: getattr(v, "convention", None),
)
def test_with_nobody_to_help_the_excess_is_written_off_the_own_mountain_at_the_pool_weight(
    rules: Rules, written_off: int
) -> None:
    score, after = scored(sheet((8, 10, 10), mountain=(7, 1, 1)), made("7H"), rules)
    assert after.pool == (10, 10, 10)
    assert after.mountain == (7 - written_off, 1, 1)
    assert any("nobody to help" in e.explanation for e in score.entries)


def test_with_the_mountain_already_0_the_rest_goes_onto_every_other_mountain() -> None:
    _, after = scored(sheet((9, 10, 10), mountain=(1, 3, 5)), made("8S"))  # 5 over, 1 written off
    assert after.mountain == (0, 7, 9)


def test_without_help_leningrad_writes_the_excess_off_the_mountain_at_double() -> None:
    rules = rules_for("leningrad", {"pool": {"help_enabled": False}})
    _, after = scored(sheet((9, 0, 0), mountain=(10, 0, 0)), made("7H"), rules)
    assert after.pool == (10, 0, 0)
    assert after.mountain == (4, 0, 0)  # 3 over × 2
    assert helper_whists(after) == (0, 0, 0)


def test_an_all_pass_zero_trick_bonus_overflows_like_any_pool_entry() -> None:
    raspasy = DealOutcome(kind="raspasy", dealer=2, seats=3, hands=(0, 1, 2), tricks=(0, 4, 6))
    _, after = scored(sheet((10, 3, 2)), raspasy)
    assert after.pool == (10, 4, 2)
    assert helper_whists(after) == (0, 10, 0)


def test_help_entries_name_the_source_and_the_numbers() -> None:
    score, _ = scored(sheet((8, 6, 7)), made("7H"))
    help_entry = next(e for e in score.entries if e.rule == "help")
    whists_entry = next(e for e in score.entries if e.rule == "help_whists")
    assert help_entry.explanation.startswith("7♥ made (7 tricks), 2 over seat 0's pool of 10")
    assert "2 × 10 = 20 whists on seat 2" in whists_entry.explanation


# --- two pool writes of one deal (I-29) ----------------------------------------------------------

TWO_ZEROS = DealOutcome(kind="raspasy", dealer=2, seats=3, hands=(0, 1, 2), tricks=(0, 0, 10))
"""A Leningrad all-pass at price 2 where the forehand (seat 0) and seat 1 take no trick: each
writes 2 to his pool, both near the target."""


def test_two_pool_writes_of_one_deal_apply_in_playing_order_from_the_forehand() -> None:
    # Pools 9, 9, 10 and mountains 10, 10, 0. Seat 2's 10 tricks × 2 = 20 to his mountain.
    # Seat 0 first: 1 closes his pool, 1 over helps seat 1 (9 → 10) for 10 whists.
    # Seat 1 then: his pool is closed and nobody is below 10, so his 2 are written off his
    # mountain at the pool weight 2: 10 − 4 = 6.
    # Settlement (pools equal, 10/3 per mountain point): mountains 10, 6, 20, whists 0→1 10:
    #   seat 0: +10 + 10/3 × ((6 − 10) + (20 − 10)) = 10 + 20 = 30
    #   seat 1: −10 + 10/3 × ((10 − 6) + (20 − 6)) = −10 + 60 = 50
    #   seat 2:   0 + 10/3 × ((10 − 20) + (6 − 20)) = −80
    assert LENINGRAD.pool.write_order == "forehand"
    before = sheet((9, 9, 10), mountain=(10, 10, 0))
    _, after = scored(before, TWO_ZEROS, LENINGRAD)
    assert (after.pool, after.mountain) == ((10, 10, 10), (10, 6, 20))
    assert helper_whists(after) == (0, 10, 0)
    assert settle(after, LENINGRAD).result == (30, 50, -80)


def test_simultaneous_pool_writes_fill_every_own_pool_before_giving_any_excess() -> None:
    # Both fill their own pool with 1 (9 → 10); the two excesses of 1 find no pool below 10 and
    # are written off each one's mountain at weight 2: mountains 8, 8, 20, no help whists:
    #   seat 0: 10/3 × ((8 − 8) + (20 − 8)) = 40, seat 1: 40, seat 2: 10/3 × (−12 − 12) = −80
    rules = rules_for("leningrad", {"pool": {"write_order": "simultaneous"}})
    before = sheet((9, 9, 10), mountain=(10, 10, 0))
    _, after = scored(before, TWO_ZEROS, rules)
    assert (after.pool, after.mountain) == ((10, 10, 10), (8, 8, 20))
    assert after.whists == ((0, 0, 0),) * 3
    assert settle(after, rules).result == (40, 40, -80)


def test_the_forehand_writes_first_whichever_seat_number_he_has() -> None:
    # Dealer 0, so seat 1 is the forehand and seat 2 the second hand; both take no trick.
    # Seat 1 (9) closes with 1 and helps seat 2 (9 → 10); seat 2's 2 are written off (10 − 4).
    outcome = DealOutcome(kind="raspasy", dealer=0, seats=3, hands=(1, 2, 0), tricks=(10, 0, 0))
    _, after = scored(sheet((10, 9, 9), mountain=(0, 10, 10)), outcome, LENINGRAD)
    assert after.mountain == (20, 10, 6)
    assert after.whists[1] == (0, 0, 10)
