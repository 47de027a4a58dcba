"""How long each bot level takes to decide, and how many layouts the searching ones solve.

    python bench/bench_bots.py [--deals 12] [--budget 1.5] [--layouts 1] [--preset sochi] \
        [--levels strong,expert] [--seed 1] [--smoke]

Seeded deals are played with one strong seat (rotating) among basic ones, and the same deals
again with an expert seat in its place (interleaved, deal by deal, so both meet the same load);
every decision of every seat is timed. It prints, per level, the decision time p50 / p95 / max
over all decisions and per kind of decision (bidding, discard, contract, whisting, play), and
for the searching levels the layouts (samples) solved per decision at each trick of the play and
in the other phases, apart for decisions that sampled layouts and those that enumerated every
one (a misère catcher or an open whister, late in the play, or when voids leave few). Contract
and misère layouts are each solved double-dummy for every legal card; all-pass layouts are
played out by rules of thumb for every legal card (`bots.rollout`), so many more fit in the
budget.

The strong level's budget is its default layout counts per decision kind (`bots.budget.Layouts`,
times ``--layouts``; 0: none, the wall clock alone) under the wall-clock cap of ``--budget``
seconds (1.5 s). It also prints what ended each strong search: its layout count (``layouts``),
the cap (``seconds``) or the layouts running out (``none``); under layout counts a decision the
cap did not end is reproducible on any machine. Targets: the strong level at most 1.5 s per
decision at p95 on one core, with the cap ending no decision (the counts, not the clock, set the
work); at least 30 layouts per card decision at tricks 1–2; the basic level under 5 ms. Timings
are never asserted in tests.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from collections import defaultdict

sys.path.insert(0, os.path.dirname(__file__))
from _kit import add_smoke

from bots import basic, expert, random_bot, strong
from bots.budget import DEFAULT_LAYOUTS, Budget
from bots.knowledge import read
from bots.table import Table
from bots.view import BotView
from domain.deal.messages import SeatCommand
from domain.rules import rules_for
from domain.simulation import random_deal


def pct(xs: list[float], q: float) -> float:
    s = sorted(xs)
    return s[min(len(s) - 1, int(q * len(s)))]


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--deals", type=int, default=12)
    p.add_argument("--budget", type=float, default=1.5)
    p.add_argument("--layouts", type=float, default=1.0)
    p.add_argument("--preset", default="sochi")
    p.add_argument("--players", type=int, default=3)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--levels", default="strong,expert", help="the searching levels timed")
    add_smoke(p)
    args = p.parse_args()
    if args.smoke:
        args.deals, args.layouts, random_deals = 1, 0.1, 20
    else:
        random_deals = 200
    rules = rules_for(args.preset, {"players": args.players})
    rng = random.Random(args.seed)
    times: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    searching = args.levels.split(",")
    samples: dict[str, dict[str, list[int]]] = defaultdict(lambda: defaultdict(list))
    exhaustive: dict[str, dict[str, list[int]]] = defaultdict(lambda: defaultdict(list))
    ended: dict[str, dict[str, dict[str, int]]] = defaultdict(
        lambda: defaultdict(lambda: defaultdict(int))
    )
    budget: Budget | float = (
        Budget(seconds=args.budget, layouts=DEFAULT_LAYOUTS.scaled(args.layouts))
        if args.layouts > 0
        else args.budget
    )

    def timed(level: str, view: BotView, r: random.Random, budget: Budget | float) -> SeatCommand:
        phase = view.game.deal.phase
        t = time.perf_counter()
        if level in ("strong", "expert"):
            think = strong.decide_with_stats if level == "strong" else expert.decide_with_stats
            action, clock = think(view, r, budget)
            if phase == "playing":
                k = read(view)
                kind = basic.kind_of(k)
                how = "all-pass play-outs" if kind == "raspasy" else f"{kind}, solved"
                key = f"{how}: trick {k.tricks_played + 1:2d}"
            else:
                key = f"{phase}, solved"
            if len(view.legal) > 1:
                (exhaustive if clock.exhaustive else samples)[level][key].append(clock.samples)
                if clock.kind is not None:
                    ended[level][clock.kind][clock.stopped_by or "none"] += 1
        elif level == "basic":
            action = basic.decide(view, r, budget)
        else:
            action = random_bot.decide(view, r, budget)
        times[level][phase].append(time.perf_counter() - t)
        return action

    for d in range(args.deals):
        dealer = d % rules.players
        cards = random_deal(rng, rules.players, dealer)
        strong_seat = (dealer + 1 + d // rules.players) % rules.players
        for searcher in searching:
            table = Table(rules, first_dealer=dealer)
            lineup = [searcher if s == strong_seat else "basic" for s in range(rules.players)]
            strategies = [(lambda v, r, b, lvl=lvl: timed(lvl, v, r, b)) for lvl in lineup]
            table.play_deal(cards, strategies, random.Random(d), budget)
    for _ in range(random_deals):  # the random level's decisions, the floor of the scale
        table = Table(rules)
        cards = random_deal(rng, rules.players, 0)
        table.play_deal(cards, [lambda v, r, b: timed("random", v, r, b)] * rules.players, rng, 0.0)
    how = budget.describe() if isinstance(budget, Budget) else f"seconds={budget:g}"
    print(f"{args.preset}, {args.players} players, {args.deals} deals, strong budget {how}")
    for level in ("random", "basic", "strong", "expert"):
        every = [t for ts in times[level].values() for t in ts]
        if not every:
            continue
        p50, p95, top = (1000 * pct(every, 0.5), 1000 * pct(every, 0.95), 1000 * max(every))
        print(f"{level:>7}: {len(every):5d} decisions  p50 {p50:8.2f} ms  p95 {p95:8.2f} ms  "
              f"max {top:8.2f} ms")  # fmt: skip
        for phase, ts in sorted(times[level].items()):
            print(f"         {phase:<15} {len(ts):5d}  p50 {1000 * pct(ts, 0.5):8.2f} ms  "
                  f"p95 {1000 * pct(ts, 0.95):8.2f} ms")  # fmt: skip
    for level in searching:
        print(f"{level}: layouts solved per decision with a choice (median, min–max, decisions)")
        print(f"  {'':<32} {'sampled layouts':<24}  every layout (enumerated)")
        for key in sorted(set(samples[level]) | set(exhaustive[level])):
            cols = []
            for table_ in (samples[level], exhaustive[level]):
                xs = table_.get(key, [])
                cols.append(
                    f"{statistics.median(xs):5.0f} {min(xs):4d}–{max(xs):<4d} (n={len(xs):3d})"
                    if xs
                    else " " * 22
                )
            print(f"  {key:<32} {cols[0]:<24}  {cols[1]}")
        print(f"{level}: what ended each search, per decision kind")
        for kind, by in sorted(ended[level].items()):
            print(f"  {kind:<10} " + "  ".join(f"{why} {n}" for why, n in sorted(by.items())))


if __name__ == "__main__":
    main()
