"""Scoring a contract whisted by the dealer at a table of four (docs/rules.md §D.1–D.3, §F): he is
the single whister, so he writes whists for both defending hands, answers for a short defence,
and shares his whists with neither opponent, who both left the contract to him.

Seat 3 deals and whists; seat 0 declares; seats 1 and 2 are the opponents (seat 2 had said
half-whist, so he counts as a passer).
"""

from __future__ import annotations

from domain.outcome import DealOutcome, DefenderRole
from domain.rules import Rules, rules_for
from domain.scoring import score_deal
from domain.sheet import PoolSheet, apply_score, empty_sheet

SOCHI4 = rules_for("sochi", {"players": 4})
LENINGRAD4 = rules_for("leningrad", {"players": 4})
DEALER_WHISTS = (
    DefenderRole(seat=1, choice="pass"),
    DefenderRole(seat=2, choice="pass", was_half_whist=True),
    DefenderRole(seat=3, choice="whist", whist_rank=1),
)


def whisted_by_the_dealer(contract: str, tricks: tuple[int, int, int]) -> DealOutcome:
    return DealOutcome(
        kind="game",
        dealer=3,
        seats=4,
        hands=(0, 1, 2),
        tricks=(*tricks, 0),
        declarer=0,
        contract=contract,
        defenders=DEALER_WHISTS,
    )


def scored(outcome: DealOutcome, rules: Rules) -> PoolSheet:
    return apply_score(empty_sheet(4), score_deal(outcome, empty_sheet(4), rules))


def test_a_dealer_who_whists_a_failed_six_writes_whists_for_both_hands_and_consolation():
    # 6♠ down one (5 tricks; the defence 3 + 2 = 5), price 2:
    #   declarer: remiz 1 × 2 = 2 to the mountain
    #   dealer (whister): 5 × 2 = 10 whists + consolation 1 × 2 = 2, so 12
    #   seats 1 and 2 (passers): consolation 2 each, the former half-whister too
    after = scored(whisted_by_the_dealer("6S", (5, 3, 2)), SOCHI4)
    assert after.mountain == (2, 0, 0, 0)
    assert [after.whists[s][0] for s in (1, 2, 3)] == [2, 2, 12]


def test_a_dealer_who_whists_a_made_eight_writes_for_the_defences_tricks():
    # 8♠ made with 8, the defence 1 + 1 = 2: declarer pool 6; dealer 2 × 6 = 12 whists.
    after = scored(whisted_by_the_dealer("8S", (8, 1, 1)), SOCHI4)
    assert after.pool == (6, 0, 0, 0)
    assert after.whists[3][0] == 12
    assert after.whists[1][0] == after.whists[2][0] == 0


def test_a_whisting_dealer_answers_for_a_short_defence():
    # 6♠ with 9 tricks: the defence took 1 of 4, so 3 short × 2 = 6 to the dealer's mountain
    # (responsible whist); he still writes 1 × 2 = 2 whists; nothing for the passers.
    after = scored(whisted_by_the_dealer("6S", (9, 1, 0)), SOCHI4)
    assert after.mountain == (0, 0, 0, 6)
    assert after.whists[3][0] == 2
    assert after.pool == (2, 0, 0, 0)


def test_under_gentleman_whist_a_whisting_dealer_shares_his_whists_with_nobody():
    # Leningrad 6♠ down one, the defence took 5: whists 2 × price 2 = 4 per trick, so the
    # dealer writes 5 × 4 = 20 + consolation 2 × 2 = 4 → 24; each passer writes 4 only.
    # Declarer: remiz 2 × 2 = 4.
    after = scored(whisted_by_the_dealer("6S", (5, 3, 2)), LENINGRAD4)
    assert after.mountain == (4, 0, 0, 0)
    assert [after.whists[s][0] for s in (1, 2, 3)] == [4, 4, 24]
