"""The analysis of finished deals, in CPU time: the cards double-dummy (the baseline: what the
analyst did before decisions were judged) beside the decisions over the layouts each player
could not tell apart, deal by deal on the same deals, in the same run.

    python bench/bench_analysis.py [--deals 40] [--layouts 16] [--preset sochi] [--seed 1] \
        [--smoke]

The deals are played by the basic bot in every seat (seeded), a pulka long enough to hold them;
each is analysed as the analyst analyses it (`projections.analysis.analyse`, then
`projections.decisions.analyse_decisions`), each measured by `time.process_time` (this process
alone: the machine is shared). It prints, per deal, the CPU of the cards and of the decisions
(mean, median, p95, max), the decisions per deal, the layouts each decision judged (mean, and
how many decisions stopped early, ran to the limit or took every layout), and what it comes to:
deals analysed per CPU second, and a 30-deal game's CPU. Timings are never asserted in tests.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
from _kit import add_smoke

from bots import basic
from bots.table import Table
from domain import game as g
from domain.deal.messages import DealEvent
from domain.rules import rules_for
from domain.simulation import random_deal
from projections.analysis import analyse
from projections.decisions import DecisionAnalysis, analyse_decisions


def played_deals(preset: str, n: int, seed: int) -> list[tuple[g.Pulka, list[DealEvent]]]:
    """``n`` deals of a pulka played by the basic bot, each with the game just before it."""
    rules = rules_for(preset, {"pool": {"target": 1000}})
    table = Table(rules)
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        before = table.state
        assert isinstance(before, g.Pulka)
        start = len(table.events)
        table.play_deal(random_deal(rng, rules.players, table.next_dealer), [basic.decide] * 3, rng)
        out.append((before, [e for e in table.events[start:] if isinstance(e, DealEvent)]))
    return out


def _line(label: str, xs: list[float]) -> str:
    xs = sorted(xs)
    p95 = xs[min(len(xs) - 1, round(0.95 * (len(xs) - 1)))]
    return (
        f"{label:<34} mean {1000 * statistics.fmean(xs):8.1f} ms   median "
        f"{1000 * statistics.median(xs):8.1f}   p95 {1000 * p95:8.1f}   max {1000 * xs[-1]:8.1f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deals", type=int, default=40)
    parser.add_argument("--layouts", type=int, default=16)
    parser.add_argument("--preset", default="sochi")
    parser.add_argument("--seed", type=int, default=1)
    add_smoke(parser)
    args = parser.parse_args()
    if args.smoke:
        args.deals, args.layouts = 2, 4
    deals = played_deals(args.preset, args.deals, args.seed)
    cards_cpu: list[float] = []
    decisions_cpu: list[float] = []
    judged: list[DecisionAnalysis] = []
    per_deal: list[int] = []
    for before, events in deals:  # interleaved: each deal's cards, then its decisions
        t0 = time.process_time()
        analyse(events, before.rules)
        t1 = time.process_time()
        found = analyse_decisions(before, events, layouts=args.layouts)
        t2 = time.process_time()
        cards_cpu.append(t1 - t0)
        decisions_cpu.append(t2 - t1)
        judged += found
        per_deal.append(len(found))
    print(
        f"{args.deals} deals of {args.preset} played by the basic bot (seed {args.seed}); "
        f"each decision judged over at most {args.layouts} layouts; CPU of this process"
    )
    print(_line("baseline: the cards (double-dummy)", cards_cpu))
    print(_line("the decisions", decisions_cpu))
    whole = [a + b for a, b in zip(cards_cpu, decisions_cpu, strict=True)]
    print(_line("the whole deal (cards + decisions)", whole))
    n = len(judged)
    print(
        f"decisions per deal: mean {statistics.fmean(per_deal):.1f} (max {max(per_deal)}); "
        f"CPU per decision: mean {1000 * sum(decisions_cpu) / max(1, n):.1f} ms"
    )
    every = sum(d.exhaustive for d in judged)
    limit = sum(not d.exhaustive and d.samples >= args.layouts for d in judged)
    early = n - every - limit
    print(
        f"layouts per decision: mean {statistics.fmean(d.samples for d in judged):.1f}; "
        f"{early} stopped early (the best clear of the rest), {limit} at the limit, "
        f"{every} every layout"
    )
    verdicts = {v: sum(d.verdict == v for d in judged) for v in ("best", "close", "mistake")}
    print(f"verdicts: {verdicts}")
    total, cards = sum(whole), sum(cards_cpu)
    print(
        f"throughput: {len(deals) / total:.2f} deals per CPU second (cards alone "
        f"{len(deals) / max(cards, 1e-9):.0f}); a 30-deal game {30 * total / len(deals):.1f} s "
        f"of CPU (cards alone {30 * cards / len(deals):.2f} s)"
    )


if __name__ == "__main__":
    main()
