"""All-pass (распасы) scoring: the mountain per trick, the progression of a streak and its exit,
the zero-trick bonus, Rostov's whists, and Classic's dark passes and bombs (docs/rules.md §F, I-12b,
I-13, I-14b, I-16, I-22, I-23)."""

from __future__ import annotations

import msgspec
import pytest

from domain.outcome import DealOutcome, DefenderRole
from domain.rules import LENINGRAD, ROSTOV, SOCHI, Rules, rules_for
from domain.scoring import raspasy_price, score_deal
from domain.sheet import PoolSheet, apply_score, empty_sheet


def raspasy(
    tricks: tuple[int, int, int], *, seats: int = 3, dealer_tricks: int = 0, **flags: object
) -> DealOutcome:
    """Seats 0, 1, 2 play the all-pass; at four, seat 3 deals and sits out (or plays the talon
    and takes ``dealer_tricks``)."""
    return DealOutcome(
        kind="raspasy",
        dealer=3 if seats == 4 else 2,
        seats=seats,
        hands=(0, 1, 2),
        tricks=(*tricks, dealer_tricks) if seats == 4 else tuple(tricks),
        **flags,  # type: ignore[arg-type]
    )


def made_six(tricks: int = 6) -> DealOutcome:
    return DealOutcome(
        kind="game",
        dealer=2,
        seats=3,
        hands=(0, 1, 2),
        tricks=(tricks, 10 - tricks, 0),
        declarer=0,
        contract="6S",
        defenders=(
            DefenderRole(seat=1, choice="whist", whist_rank=1),
            DefenderRole(seat=2, choice="pass"),
        ),
    )


def play(rules: Rules, *deals: DealOutcome, sheet: PoolSheet | None = None) -> PoolSheet:
    sheet = sheet or empty_sheet(deals[0].seats)
    for deal in deals:
        sheet = apply_score(sheet, score_deal(deal, sheet, rules))
    return sheet


BIG_POOL = {"pool": {"target": 100}}


# --- to the mountain -----------------------------------------------------------------------------


def test_sochi_all_pass_writes_one_per_trick_and_one_pool_point_for_no_trick() -> None:
    after = play(SOCHI, raspasy((0, 4, 6)))
    assert after.mountain == (0, 4, 6)
    assert after.pool == (1, 0, 0)
    assert after.raspasy_streak == 1


def test_three_all_passes_in_a_row_cost_1_2_3_and_then_stay_at_the_cap() -> None:
    rules = rules_for("sochi", BIG_POOL)
    after = play(rules, *[raspasy((2, 3, 5))] * 4)
    assert after.mountain == (2 * (1 + 2 + 3 + 3), 3 * 9, 5 * 9)
    assert after.raspasy_streak == 4


def test_leningrad_all_pass_progresses_2_4_6_and_no_trick_earns_the_current_price() -> None:
    rules = rules_for("leningrad", BIG_POOL)
    after = play(rules, raspasy((1, 4, 5)), raspasy((1, 4, 5)), raspasy((0, 4, 6)))
    assert after.mountain == (2 + 4, 4 * 12, 5 * 6 + 6 * 6)
    assert after.pool == (6, 0, 0)


@pytest.mark.parametrize(
    ("progression", "cap", "prices"),
    [
        ("none", 3, [1, 1, 1, 1, 1]),
        ("none", 0, [1, 1, 1, 1, 1]),
        ("arith", 3, [1, 2, 3, 3, 3]),
        ("arith", 2, [1, 2, 2, 2, 2]),
        ("arith", 0, [1, 2, 3, 4, 5]),
        ("geom", 3, [1, 2, 4, 4, 4]),
        ("geom", 4, [1, 2, 4, 8, 8]),
        ("geom", 0, [1, 2, 4, 8, 16]),
    ],
)
def test_the_all_pass_price_follows_the_progression_until_the_capth_all_pass(
    progression: str, cap: int, prices: list[int]
) -> None:
    """The cap counts all-passes in a row, as preferans.pro caps its round: the price of the
    cap-th all-pass then repeats (docs/conventions.md: 1,1,1 / 1,2,3 / 1,2,4)."""
    rules = rules_for("sochi", {"raspasy": {"progression": progression, "progression_cap": cap}})
    assert [raspasy_price(streak, rules.raspasy) for streak in range(5)] == prices


def test_geometric_all_passes_at_the_default_cap_cost_1_2_4_then_stay_at_4_per_trick() -> None:
    # Seat 2 takes 5 tricks in each of four all-passes in a row: 5 × (1 + 2 + 4 + 4) = 55.
    rules = rules_for("sochi", {"raspasy": {"progression": "geom"}, **BIG_POOL})
    assert rules.raspasy.progression_cap == 3
    after = play(rules, *[raspasy((2, 3, 5))] * 4)
    assert after.mountain == (2 * 11, 3 * 11, 5 * 11)


def test_leningrad_geometric_all_passes_cost_2_4_8_per_trick() -> None:
    # base price 2 × steps 1, 2, 4: seat 1 takes 4 tricks each time, 4 × (2 + 4 + 8) = 56.
    rules = rules_for("leningrad", {"raspasy": {"progression": "geom"}, **BIG_POOL})
    after = play(rules, *[raspasy((1, 4, 5))] * 3)
    assert after.mountain[1] == 56


@pytest.mark.parametrize("rules", [SOCHI, LENINGRAD, ROSTOV], ids=lambda r: r.convention)
def test_a_played_contract_ends_the_streak_and_the_price_returns_to_the_base(rules: Rules) -> None:
    after = play(rules, raspasy((2, 3, 5)), raspasy((2, 3, 5)), made_six())
    assert after.raspasy_streak == 0
    assert raspasy_price(after.raspasy_streak, rules.raspasy) == rules.raspasy.base_price


def test_after_the_exit_a_sochi_all_pass_costs_one_per_trick_again() -> None:
    after = play(SOCHI, raspasy((2, 3, 5)), raspasy((2, 3, 5)), made_six())
    again = play(SOCHI, raspasy((2, 3, 5)), sheet=after)
    assert again.mountain[2] - after.mountain[2] == 5


def test_by_default_even_a_failed_contract_ends_the_streak() -> None:
    after = play(SOCHI, raspasy((2, 3, 5)), made_six(tricks=5))
    assert after.raspasy_streak == 0


def test_when_only_a_made_contract_exits_a_failed_one_keeps_the_streak() -> None:
    rules = rules_for("sochi", {"raspasy": {"exit_requires": "made"}})
    kept = play(rules, raspasy((2, 3, 5)), made_six(tricks=5))
    assert kept.raspasy_streak == 1
    assert play(rules, raspasy((2, 3, 5)), made_six()).raspasy_streak == 0


def test_amnesty_writes_tricks_above_the_fewest() -> None:
    rules = rules_for("sochi", {"raspasy": {"amnesty": True}})
    after = play(rules, raspasy((2, 3, 5)))
    assert after.mountain == (0, 1, 3)
    assert after.pool == (0, 0, 0)


# --- Rostov: in whists ---------------------------------------------------------------------------


def test_rostov_the_fewest_tricks_player_writes_5_per_trick_on_each_other_player() -> None:
    after = play(ROSTOV, raspasy((1, 4, 5)))
    assert after.whists == ((0, 20, 25), (0, 0, 0), (0, 0, 0))
    assert after.mountain == (0, 0, 0)


def test_rostov_zero_tricks_also_earns_one_pool_point() -> None:
    after = play(ROSTOV, raspasy((0, 3, 7)))
    assert after.pool == (1, 0, 0)
    assert after.whists[0] == (0, 15, 35)


def test_rostov_two_tied_for_fewest_each_write_half_rounded_down_on_the_third() -> None:
    after = play(ROSTOV, raspasy((3, 3, 4)))
    assert after.whists == ((0, 0, 10), (0, 0, 10), (0, 0, 0))
    odd = play(ROSTOV, raspasy((2, 2, 6)))
    assert (odd.whists[0][2], odd.whists[1][2]) == (15, 15)


def test_rostov_at_four_the_sitting_out_dealer_writes_a_pool_point() -> None:
    after = play(ROSTOV, raspasy((1, 4, 5), seats=4))
    assert after.pool == (0, 0, 0, 1)
    assert play(SOCHI, raspasy((1, 4, 5), seats=4)).pool == (0, 0, 0, 0)


def test_rostov_has_no_progression() -> None:
    after = play(ROSTOV, raspasy((1, 4, 5)), raspasy((1, 4, 5)))
    assert after.whists[0] == (0, 40, 50)


# --- Classic: dark passes and bombs --------------------------------------------------------------


CLASSIC = rules_for("sochi", {"classic": {"dark_games": True, "bombs": True}})


def test_a_dark_pass_doubles_the_all_pass_price_and_gives_the_dark_passer_a_bomb() -> None:
    after = play(CLASSIC, raspasy((2, 3, 5), raspasy_factor=2, dark_passers=(1,)))
    assert after.mountain == (4, 6, 10)
    assert after.bombs == (0, 1, 0)


def test_a_repeated_dark_pass_is_worth_four_and_its_bomb_two_doublings() -> None:
    after = play(CLASSIC, raspasy((2, 3, 5), raspasy_factor=4, dark_passers=(0, 1)))
    assert after.mountain == (8, 12, 20)
    assert after.bombs == (2, 2, 0)


def test_at_four_the_dealer_gets_a_bomb_after_a_dark_passed_all_pass() -> None:
    after = play(CLASSIC, raspasy((2, 3, 5), seats=4, raspasy_factor=2, dark_passers=(2,)))
    assert after.bombs == (0, 0, 1, 1)


def test_a_bomb_doubles_its_holders_next_all_pass_and_is_used_up() -> None:
    sheet = PoolSheet(
        players=3, pool=(0,) * 3, mountain=(0,) * 3, whists=((0,) * 3,) * 3, bombs=(0, 1, 0)
    )
    after = play(CLASSIC, raspasy((2, 3, 5)), sheet=sheet)
    assert after.mountain == (2, 6, 5)
    assert after.bombs == (0, 0, 0)


def test_without_the_bombs_option_no_bomb_is_given() -> None:
    after = play(SOCHI, raspasy((2, 3, 5), raspasy_factor=2, dark_passers=(1,)))
    assert after.bombs == (0, 0, 0)


@pytest.mark.parametrize("rules", [SOCHI, LENINGRAD, ROSTOV], ids=lambda r: r.convention)
def test_every_all_pass_entry_names_the_streak_and_the_price(rules: Rules) -> None:
    score = score_deal(raspasy((0, 4, 6)), empty_sheet(3), rules)
    assert score.entries
    assert all(e.explanation.startswith("all-pass #1 (trick price") for e in score.entries)


# --- four players: the dealer plays the talon (I-16) ---------------------------------------------

DEALER_TALON = {"players": 4, "players4": {"dealer_raspasy": "plays_talon"}}


def test_a_dealer_playing_the_talon_writes_his_tricks_to_the_mountain_at_the_price() -> None:
    # Second all-pass of a streak in Sochi, price 2: tricks 2, 3, 4 and the dealer's 1.
    # Mountains 4, 6, 8 and the dealer 1 × 2 = 2.
    rules = rules_for("sochi", DEALER_TALON)
    sheet = msgspec.structs.replace(empty_sheet(4), raspasy_streak=1)
    after = play(rules, raspasy((2, 3, 4), seats=4, dealer_tricks=1), sheet=sheet)
    assert after.mountain == (4, 6, 8, 2)


def test_a_dealer_playing_the_talon_earns_no_zero_trick_bonus() -> None:
    # Tricks 0, 4, 6 and the dealer none: only seat 0 writes 1 to his pool.
    after = play(rules_for("sochi", DEALER_TALON), raspasy((0, 4, 6), seats=4))
    assert after.pool == (1, 0, 0, 0)
    assert after.mountain == (0, 4, 6, 0)


def test_under_amnesty_the_dealer_writes_his_tricks_above_the_fewest_never_below_zero() -> None:
    # Tricks 1, 3, 4 and the dealer's 2; the fewest (seat 0) took 1: mountains 0, 2, 3, and
    # the dealer 2 − 1 = 1. With the dealer's 0 he writes nothing (not −1).
    rules = rules_for("sochi", {**DEALER_TALON, "raspasy": {"amnesty": True}})
    assert play(rules, raspasy((1, 3, 4), seats=4, dealer_tricks=2)).mountain == (0, 2, 3, 1)
    assert play(rules, raspasy((2, 3, 5), seats=4)).mountain == (0, 1, 3, 0)


def test_in_whists_the_fewest_tricks_player_writes_on_the_dealer_for_his_tricks_too() -> None:
    # Written in whists (5 per trick) with the talon in use: seat 0 took the fewest (1) and
    # writes 3 × 5 = 15 on seat 1, 4 × 5 = 20 on seat 2 and 2 × 5 = 10 on the dealer.
    rules = rules_for(
        "rostov",
        {**DEALER_TALON, "raspasy": {"use_talon": True, "dealer_writes_pool_point": False}},
    )
    after = play(rules, raspasy((1, 3, 4), seats=4, dealer_tricks=2))
    assert after.whists[0] == (0, 15, 20, 10)
    assert after.whists[3] == (0, 0, 0, 0)


def test_rostov_dealer_pool_point_goes_only_to_a_dealer_who_took_no_talon_trick() -> None:
    rules = rules_for("rostov", {**DEALER_TALON, "raspasy": {"use_talon": True}})
    assert play(rules, raspasy((1, 4, 5), seats=4)).pool == (0, 0, 0, 1)
    assert play(rules, raspasy((1, 4, 4), seats=4, dealer_tricks=1)).pool == (0, 0, 0, 0)


def test_a_dealer_sitting_out_writes_nothing_for_the_tricks_of_an_all_pass() -> None:
    after = play(rules_for("sochi", {"players": 4}), raspasy((2, 3, 4), seats=4, dealer_tricks=1))
    assert after.mountain == (2, 3, 4, 0)
