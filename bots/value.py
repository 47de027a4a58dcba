"""What a deal is worth to each seat, in whists, from the preset's own scoring.

A deal is scored alone on an empty sheet (`domain.scoring.score_deal`) and settled in closed
form (`domain.settlement.settle`), so the results of one deal sum to zero: the zero-sum
whist-equivalents of docs/bots.md §5, used both by the strong bot's expected values and by the
duplicate match.
"""

from __future__ import annotations

from fractions import Fraction

from domain.outcome import DealOutcome
from domain.rules import Rules
from domain.scoring import score_deal
from domain.settlement import exact_value, settle
from domain.sheet import apply_score, empty_sheet


def deal_results(outcome: DealOutcome, rules: Rules) -> tuple[Fraction, ...]:
    """Each seat's result of ``outcome`` in whists, scored on an empty sheet; the sum is 0."""
    sheet = empty_sheet(outcome.seats)
    after = apply_score(sheet, score_deal(outcome, sheet, rules))
    return tuple(exact_value(v) for v in settle(after, rules).exact)
