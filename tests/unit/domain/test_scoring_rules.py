"""One rule of docs/rules.md §F per test, under each preset where the presets differ.

Seats: dealer 2, so seat 0 is the first hand and declares; seat 1 speaks first on whist.
"""

from __future__ import annotations

from typing import Any

import pytest

from domain.cards import MISER
from domain.outcome import DealOutcome, DefenderRole, WhistChoice
from domain.rules import LENINGRAD, ROSTOV, SOCHI, Rules, rules_for
from domain.scoring import score_deal
from domain.sheet import PoolSheet, apply_score, empty_sheet


def _id(value: object) -> str | None:
    return value.convention if isinstance(value, Rules) else None


PRESETS = pytest.mark.parametrize("rules", [SOCHI, LENINGRAD, ROSTOV], ids=_id)


def role(seat: int, choice: WhistChoice, rank: int = 0, *, returned: bool = False) -> DefenderRole:
    return DefenderRole(seat=seat, choice=choice, whist_rank=rank, was_half_whist=returned)


WHIST_WHIST = (role(1, "whist", 1), role(2, "whist", 2))
WHIST_PASS = (role(1, "whist", 1), role(2, "pass"))


def game(
    contract: str,
    tricks: tuple[int, int, int],
    defenders: tuple[DefenderRole, ...] = WHIST_WHIST,
    *,
    seats: int = 3,
    dealer: int = 2,
    **flags: Any,
) -> DealOutcome:
    """Seat 0 declares; seats 0, 1 and 2 play (at four, dealer 3 sits out)."""
    return DealOutcome(
        kind="game",
        dealer=dealer,
        seats=seats,
        hands=(0, 1, 2),
        tricks=tuple(tricks),
        declarer=0,
        contract=contract,
        defenders=defenders,
        **flags,
    )


def miser(taken: int) -> DealOutcome:
    return DealOutcome(
        kind="miser",
        dealer=2,
        seats=3,
        hands=(0, 1, 2),
        tricks=(taken, 10 - taken, 0),
        declarer=0,
        contract=MISER,
    )


def written(outcome: DealOutcome, rules: Rules, sheet: PoolSheet | None = None) -> PoolSheet:
    sheet = sheet or empty_sheet(outcome.seats)
    return apply_score(sheet, score_deal(outcome, sheet, rules))


def rules_of(score_rules: Rules, **sections: dict[str, object]) -> Rules:
    return rules_for(score_rules.convention, sections)


# --- the declarer --------------------------------------------------------------------------------


@PRESETS
def test_a_made_contract_writes_its_price_to_the_declarers_pool(rules: Rules) -> None:
    after = written(game("7H", (7, 2, 1)), rules)
    assert after.pool == (4, 0, 0)
    assert after.mountain == (0, 0, 0)


@pytest.mark.parametrize(
    ("rules", "per_undertrick"), [(SOCHI, 4), (LENINGRAD, 8), (ROSTOV, 4)], ids=_id
)
@pytest.mark.parametrize("taken", [6, 4])
def test_remiz_writes_the_price_per_undertrick_doubled_in_leningrad(
    rules: Rules, per_undertrick: int, taken: int
) -> None:
    after = written(game("7H", (taken, 10 - taken - 2, 2)), rules)
    assert after.mountain[0] == per_undertrick * (7 - taken)
    assert after.pool[0] == 0


@pytest.mark.parametrize(
    ("rules", "consolation"), [(SOCHI, 4), (LENINGRAD, 8), (ROSTOV, 10)], ids=_id
)
def test_consolation_per_undertrick_is_p_2p_or_a_flat_10(rules: Rules, consolation: int) -> None:
    after = written(game("7H", (5, 3, 2)), rules)  # down 2, whists 3 and 2 tricks
    whist = 4 * rules.scoring.whist_factor
    assert after.whists[1][0] == 3 * whist + 2 * consolation
    assert after.whists[2][0] == 2 * whist + 2 * consolation


@PRESETS
def test_at_four_the_sitting_out_dealer_writes_consolation_too(rules: Rules) -> None:
    given = game("6S", (5, 3, 2), dealer=3, seats=4)
    after = written(given, rules)
    assert after.whists[3][0] == after.whists[1][0] - 3 * 2 * rules.scoring.whist_factor > 0
    assert after.whists[3][0] == after.whists[2][0] - 2 * 2 * rules.scoring.whist_factor


@PRESETS
def test_a_conceded_game_is_written_down_with_opponents_as_passers(rules: Rules) -> None:
    given = game("8D", (0, 0, 0), defenders=(role(1, "pass"), role(2, "pass")), conceded=3)
    after = written(given, rules)
    cons = {"sochi": 6, "leningrad": 12, "rostov": 10}[rules.convention]
    assert after.mountain[0] == 3 * 6 * rules.scoring.remiz_factor
    assert (after.whists[1][0], after.whists[2][0]) == (3 * cons, 3 * cons)


# --- whists for tricks ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("rules", "per_trick"), [(SOCHI, 6), (LENINGRAD, 12), (ROSTOV, 6)], ids=_id
)
def test_each_of_two_whisters_writes_the_whist_price_per_own_trick(
    rules: Rules, per_trick: int
) -> None:
    after = written(game("8NT", (8, 2, 0)), rules)
    assert (after.whists[1][0], after.whists[2][0]) == (2 * per_trick, 0)


@PRESETS
def test_a_lone_whister_writes_for_both_defending_hands_when_the_contract_is_made(
    rules: Rules,
) -> None:
    after = written(game("6C", (6, 1, 3), defenders=WHIST_PASS), rules)
    assert (after.whists[1][0], after.whists[2][0]) == (4 * 2 * rules.scoring.whist_factor, 0)
    assert after.mountain == (0, 0, 0)


@PRESETS
def test_the_same_in_open_play_where_the_whister_plays_both_hands(rules: Rules) -> None:
    after = written(game("6C", (6, 1, 3), defenders=WHIST_PASS, open_play=True), rules)
    assert after.whists[1][0] == 4 * 2 * rules.scoring.whist_factor


# --- short whist (недовист) ----------------------------------------------------------------------


@pytest.mark.parametrize(("rules", "per_trick"), [(SOCHI, 2), (LENINGRAD, 2), (ROSTOV, 1)], ids=_id)
def test_both_defenders_short_on_a_six_each_answer_for_his_half(
    rules: Rules, per_trick: int
) -> None:
    after = written(game("6S", (8, 1, 1)), rules)  # each 1 short of his half (2)
    assert (after.mountain[1], after.mountain[2]) == (per_trick, per_trick)


@pytest.mark.parametrize(("rules", "penalty"), [(SOCHI, 6), (LENINGRAD, 6), (ROSTOV, 3)], ids=_id)
def test_both_defenders_short_on_an_eight_the_second_whister_answers(
    rules: Rules, penalty: int
) -> None:
    after = written(game("8S", (10, 0, 0)), rules)
    assert (after.mountain[1], after.mountain[2]) == (0, penalty)


def test_the_second_whister_is_the_second_to_say_whist_not_the_second_seat() -> None:
    defenders = (role(1, "whist", 2), role(2, "whist", 1))
    after = written(game("9H", (10, 0, 0), defenders=defenders), SOCHI)
    assert (after.mountain[1], after.mountain[2]) == (8, 0)


def test_split_liability_on_an_eight_gives_the_odd_point_to_the_second_whister() -> None:
    rules = rules_of(ROSTOV, whist={"liability_8_10": "split"})
    after = written(game("8S", (10, 0, 0)), rules)  # semi-responsible: 3 to split
    assert (after.mountain[1], after.mountain[2]) == (1, 2)


def test_a_whister_over_his_half_leaves_his_partner_down_two_unless_capped() -> None:
    given = game("6S", (7, 3, 0))  # the pair is one short; seat 2 is two below his half
    assert written(given, SOCHI).mountain == (0, 0, 4)
    capped = rules_of(SOCHI, whist={"liability_6_7_cap": True})
    assert written(given, capped).mountain == (0, 0, 2)


def test_a_pair_that_reaches_the_obligation_writes_no_mountain_even_if_one_is_below_half() -> None:
    after = written(game("6S", (6, 4, 0)), SOCHI)
    assert after.mountain == (0, 0, 0)
    assert after.whists[1][0] == 8


@pytest.mark.parametrize(("rules", "per_trick"), [(SOCHI, 4), (LENINGRAD, 4), (ROSTOV, 2)], ids=_id)
def test_a_lone_whister_short_answers_for_every_missing_trick(rules: Rules, per_trick: int) -> None:
    after = written(game("7D", (9, 1, 0), defenders=WHIST_PASS), rules)
    assert after.mountain == (0, per_trick, 0)


def test_classic_whister_is_semi_responsible_until_his_own_pool_is_closed() -> None:
    classic = rules_for(
        "sochi", {"whist": {"responsibility": "half", "classic_full_after_close": True}}
    )
    open_pool = empty_sheet(3)
    closed = PoolSheet(players=3, pool=(0, 10, 0), mountain=(0, 0, 0), whists=((0,) * 3,) * 3)
    given = game("7D", (9, 1, 0), defenders=WHIST_PASS)
    assert written(given, classic, open_pool).mountain[1] == 2
    assert written(given, classic, closed).mountain[1] == 4


# --- without play --------------------------------------------------------------------------------


@PRESETS
def test_both_defenders_passing_makes_the_contract_without_play(rules: Rules) -> None:
    given = game("9C", (0, 0, 0), defenders=(role(1, "pass"), role(2, "pass")), played=False)
    after = written(given, rules)
    assert after.pool == (8, 0, 0)
    assert after.whists == ((0, 0, 0),) * 3


@pytest.mark.parametrize(("rules", "whists"), [(SOCHI, 4), (LENINGRAD, 8), (ROSTOV, 4)], ids=_id)
@pytest.mark.parametrize("contract", ["6S", "7S"])
def test_half_whist_writes_half_the_obligation_and_the_contract_counts_as_made(
    rules: Rules, whists: int, contract: str
) -> None:
    half = (role(1, "pass"), role(2, "half_whist"))
    after = written(game(contract, (0, 0, 0), defenders=half, played=False), rules)
    assert after.pool[0] == {"6S": 2, "7S": 4}[contract]
    assert (after.whists[1][0], after.whists[2][0]) == (0, whists)


@PRESETS
def test_after_a_returned_half_whist_the_former_half_whister_writes_only_consolation(
    rules: Rules,
) -> None:
    returned = (role(1, "whist", 1), role(2, "pass", returned=True))
    after = written(game("6S", (5, 3, 2), defenders=returned), rules)
    wp, cons = 2 * rules.scoring.whist_factor, after.whists[2][0]
    assert cons == {"sochi": 2, "leningrad": 4, "rostov": 10}[rules.convention]
    assert after.whists[1][0] == 5 * wp + cons  # the returner writes all the whists
    assert after.mountain[0] == 2 * rules.scoring.remiz_factor


def test_under_gentleman_whist_a_plain_passer_halves_the_whists_on_a_remiz() -> None:
    after = written(game("6S", (5, 3, 2), defenders=WHIST_PASS), ROSTOV)
    assert (after.whists[1][0], after.whists[2][0]) == (5 + 10, 5 + 10)


# --- the checked ten -----------------------------------------------------------------------------


@PRESETS
def test_a_checked_ten_made_writes_10_to_the_pool_and_nothing_else(rules: Rules) -> None:
    after = written(game("10NT", (10, 0, 0), defenders=(), checked=True), rules)
    assert after.pool == (10, 0, 0)
    assert after.mountain == (0, 0, 0)
    assert after.whists == ((0, 0, 0),) * 3


@PRESETS
def test_a_checked_ten_failed_defenders_write_their_tricks_and_consolation_no_liability(
    rules: Rules,
) -> None:
    after = written(game("10NT", (8, 2, 0), defenders=(), checked=True), rules)
    wp = 10 * rules.scoring.whist_factor
    cons = {"sochi": 10, "leningrad": 20, "rostov": 10}[rules.convention]
    assert after.mountain == (2 * 10 * rules.scoring.remiz_factor, 0, 0)
    assert (after.whists[1][0], after.whists[2][0]) == (2 * wp + 2 * cons, 2 * cons)


# --- misère --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("rules", "per_trick"), [(SOCHI, 10), (LENINGRAD, 20), (ROSTOV, 10)], ids=_id
)
@pytest.mark.parametrize("taken", [1, 3])
def test_a_failed_misere_costs_per_trick_taken(rules: Rules, per_trick: int, taken: int) -> None:
    after = written(miser(taken), rules)
    assert after.mountain[0] == per_trick * taken
    assert after.pool[0] == 0


@pytest.mark.parametrize(
    ("rules", "consolation"), [(SOCHI, 0), (LENINGRAD, 0), (ROSTOV, 10)], ids=_id
)
def test_misere_consolation_only_in_rostov(rules: Rules, consolation: int) -> None:
    after = written(miser(3), rules)
    assert (after.whists[1][0], after.whists[2][0]) == (3 * consolation, 3 * consolation)


@PRESETS
def test_a_clean_misere_writes_10_to_the_pool(rules: Rules) -> None:
    assert written(miser(0), rules).pool == (10, 0, 0)


# --- Classic multipliers -------------------------------------------------------------------------


def test_a_dark_game_doubles_every_entry() -> None:
    after = written(game("6S", (5, 3, 2), dark=True), SOCHI)
    assert after.mountain[0] == 4
    assert (after.whists[1][0], after.whists[2][0]) == (16, 12)


def test_a_bomb_doubles_its_holders_next_game_and_is_used_up() -> None:
    bombs = rules_for("sochi", {"classic": {"bombs": True}})
    sheet = PoolSheet(
        players=3, pool=(0,) * 3, mountain=(0,) * 3, whists=((0,) * 3,) * 3, bombs=(1, 2, 0)
    )
    score = score_deal(game("7H", (7, 2, 1)), sheet, bombs)
    after = apply_score(sheet, score)
    assert after.pool[0] == 8
    assert after.whists[1][0] == 16
    assert after.bombs == (0, 2, 0)


def test_every_entry_explains_itself_with_the_contract_and_numbers() -> None:
    score = score_deal(game("7H", (7, 2, 1)), empty_sheet(3), SOCHI)
    texts = {(e.rule, e.seat): e.explanation for e in score.entries}
    assert (
        texts["whists_for_tricks", 1]
        == "7♥ whisted by seat 1: 2 tricks × price 4 = 8 whists on seat 0"
    )
    assert texts["contract_made", 0].startswith("7♥ made")
