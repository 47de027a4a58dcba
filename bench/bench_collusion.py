"""The collusion statistics on a simulated population (docs/fair-play.md §5): honest basic bots
and two colluding pairs (`bots.colluders`: a double-dummy feeder, a passer) play pulkas of
three; each game is folded by the collusion projection and analysed double-dummy (the cards
alone, as the analyst does with ``layouts=0``); the report ranks the pairs.

Figures: the colluders' ranks and scores, the honest pairs' false-positive rate at the flag
(z ≥ 4) and at z ≥ 3, the highest honest score, and the time per 1,000 deals of each step
(the report's build is the projection's cost; its baseline, measured in the same run, is the
fold alone, which every projection of the log pays). Pure: no database, no HTTP.

    python bench/bench_collusion.py [--games 600] [--seeds 1 2 3] [--deals 100000] [--smoke]

``--deals N`` also times the report over N deals: the first seed's records copied until there
are N, each copy's players renamed (a population as many times larger, its pairs as many).
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import msgspec

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(__file__))
sys.path.insert(0, os.path.join(ROOT, "tests"))

from _kit import add_smoke  # noqa: E402
from collusion_sim import simulate  # noqa: E402

from projections import collusion  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=600)
    parser.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3])
    parser.add_argument("--deals", type=int, default=0, help="time the report over N deals")
    add_smoke(parser)
    args = parser.parse_args()
    games, seeds = (12, [1]) if args.smoke else (args.games, args.seeds)
    scaled = 200 if args.smoke and not args.deals else args.deals
    fp4, fp3, honest_total, worst = 0, 0, 0, 0.0
    for seed in seeds:
        sim = simulate(seed, games)
        per_k = 1000 / max(sim.report.deals, 1)
        # The report again, timed alone (best of three): the projection's build per 1,000 deals.
        builds = []
        for _ in range(3):
            t0 = time.perf_counter()
            collusion.report(sim.records)
            builds.append(time.perf_counter() - t0)
        honest = sim.honest_pairs()
        honest_total += len(honest)
        fp4 += sum(p.score >= collusion.FLAG_Z for p in honest)
        fp3 += sum(p.score >= 3.0 for p in honest)
        worst = max([worst, *(p.score for p in honest)])
        if scaled and seed == seeds[0]:
            many = _copied(sim.records, scaled)
            t0 = time.perf_counter()
            c0 = time.process_time()
            big = collusion.report(many)
            wall, cpu = time.perf_counter() - t0, time.process_time() - c0
            print(f"report over {len(many):,} deals ({len(big.pairs):,} pairs):"
                  f" {wall:.2f} s, {cpu:.2f} s CPU")  # fmt: skip
        print(
            f"seed {seed}: {games} games, {sim.report.deals} deals, {len(sim.report.pairs)} pairs"
        )
        for pair in sorted(sim.colluding, key=sorted):
            rank = sim.rank_of(pair)
            found = sim.report.pairs[rank - 1]
            print(f"  colluders {' & '.join(sorted(pair))}: rank {rank}, score {found.score}"
                  f" ({found.top})")  # fmt: skip
        s = sim.seconds
        fold_ms, build_ms = s["fold"] * per_k * 1000, min(builds) * per_k * 1000
        print(f"  per 1,000 deals: play {s['play'] * per_k:.1f} s, analysis (cards) "
              f"{s['analyse'] * per_k:.2f} s, baseline: fold alone {fold_ms:.1f} ms,"
              f" report build {build_ms:.1f} ms")  # fmt: skip
    print(f"false-positive rate at z >= {collusion.FLAG_Z}: {fp4}/{honest_total} honest pairs"
          f" ({100 * fp4 / max(honest_total, 1):.1f} %)")  # fmt: skip
    print(f"honest pairs at z >= 3: {fp3}/{honest_total}; highest honest score {worst:.2f}")
    return 0


def _copied(records: list[collusion.DealRecord], n: int) -> list[collusion.DealRecord]:
    """``records`` copied until there are ``n``, each copy's players and games renamed."""
    out: list[collusion.DealRecord] = []
    copy = 0
    while len(out) < n:
        for r in records[: n - len(out)]:
            players = tuple(None if p is None else f"{p}~{copy}" for p in r.facts.players)
            facts = msgspec.structs.replace(r.facts, players=players)
            out.append(collusion.DealRecord(f"{r.game_id}~{copy}", facts, r.play))
        copy += 1
    return out


if __name__ == "__main__":
    sys.exit(main())
