"""The double-dummy solver's speed, the compiled kernel beside the pure search and the baselines,
all measured in the same run, in CPU time.

    python bench/bench_solver.py [--deals 100] [--endings 200] [--seed 1] [--baseline-deals 10] \
        [--smoke]

It prints, on one core, in CPU seconds of this process (`time.process_time`: the machine is
shared, and another process's load does not count):

- whole deals from the opening lead (30 cards in play): the par of random contract deals (a
  random trump or no-trump, a random declarer), realistic misère hands (the declarer keeps the
  ten lowest of twelve cards drawn towards low ranks) and all-pass deals solved from one seat
  (paranoid), as median / p95 / max; then the same contract deals valued for every opening lead.
  Each by the compiled kernel (domain/solver/_kernel.c) and by the pure search, on the same
  deals, with the kernel's speed-up and the node counts (the same in both: the same search);
- the baseline for whole deals: the pure search with only its transposition table (no
  equivalent cards, ordering or quick tricks), on the first ``--baseline-deals`` deals;
- positions with 5 tricks left (random endings of every mode, a trick sometimes partly played),
  every legal card valued: the kernel, the pure solver, the plain zero-window alpha-beta without
  any enhancement, and the brute-force minimax of the tests, on the same positions.

Targets (docs/bots.md §9.2): the kernel values every opening lead of a whole contract deal in a
median ≤ 2 ms and a p95 ≤ 10 ms of CPU; the pure search a whole deal's par in a median under
100 ms and a p95 under 1 s; five tricks left under 5 ms. Timings are never asserted in tests;
compare the figures with the baselines of the same run.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import statistics
import sys
import time
from collections.abc import Callable

sys.path.insert(0, os.path.dirname(__file__))
from _kit import add_smoke

from domain.cards import DECK, RANK_OF, SUITS
from domain.solver import Position, position, solve
from domain.solver.reference import brute_force, random_ending
from domain.solver.search import KERNEL_AVAILABLE, Solver

TARGET_DEAL_MEDIAN_S = 0.100
TARGET_DEAL_P95_S = 1.0
TARGET_ENDING_S = 0.005
TARGET_KERNEL_MEDIAN_S = 0.002
TARGET_KERNEL_P95_S = 0.010


def contract_deals(rng: random.Random, n: int) -> list[Position]:
    out = []
    for _ in range(n):
        deck = list(DECK)
        rng.shuffle(deck)
        hands = {s: deck[s * 10 : (s + 1) * 10] for s in range(3)}
        trump = rng.choice((*SUITS, None))
        out.append(position(hands, order=(0, 1, 2), turn=0, focus=rng.randrange(3), trump=trump))
    return out


def misere_deals(rng: random.Random, n: int) -> list[Position]:
    out = []
    for _ in range(n):
        deck = list(DECK)
        rng.shuffle(deck)
        drawn = sorted(deck, key=lambda c: rng.random() * (1 + RANK_OF[c]) ** 1.5)[:12]
        mine = sorted(drawn, key=lambda c: RANK_OF[c])[:10]
        rest = [c for c in deck if c not in mine]
        d = rng.randrange(3)
        hands = {d: mine, (d + 1) % 3: rest[:10], (d + 2) % 3: rest[10:20]}
        out.append(position(hands, order=(0, 1, 2), turn=0, focus=d, mode="misere"))
    return out


def all_pass_deals(rng: random.Random, n: int) -> list[Position]:
    out = []
    for _ in range(n):
        deck = list(DECK)
        rng.shuffle(deck)
        hands = {s: deck[s * 10 : (s + 1) * 10] for s in range(3)}
        out.append(
            position(
                hands,
                order=(0, 1, 2),
                turn=0,
                focus=rng.randrange(3),
                mode="paranoid",
                talon=(deck[30], deck[31]),
            )
        )
    return out


def timed(positions: list[Position], run: Callable[[Position], object]) -> list[float]:
    """CPU seconds of each run (this process's, so other processes' load is not counted)."""
    out = []
    for p in positions:
        t = time.process_time()
        run(p)
        out.append(time.process_time() - t)
    return out


def p95(times: list[float]) -> float:
    s = sorted(times)
    return s[min(len(s) - 1, int(0.95 * len(s)))]


def stats(times: list[float]) -> str:
    s = sorted(times)
    return (
        f"median {1000 * statistics.median(s):8.2f} ms   p95 {1000 * p95(s):8.2f} ms   "
        f"max {1000 * s[-1]:8.2f} ms   (n={len(s)})"
    )


def made(pos: Position, *, kernel: bool) -> Solver:
    """A fresh solver for ``pos``, compiled or pure."""
    return Solver(
        trump=pos.trump, mode=pos.mode, focus_slot=pos.order.index(pos.focus),
        talon_leads=pos.talon_leads, forehand_leads_until=pos.forehand_leads_until, kernel=kernel,
    )  # fmt: skip


def backends() -> tuple[tuple[str, bool], ...]:
    return (("kernel", True), ("pure", False)) if KERNEL_AVAILABLE else (("pure", False),)


def compare(label: str, positions: list[Position], **kwargs: object) -> dict[str, list[float]]:
    """Each backend's CPU times on ``positions`` (a fresh solver each), printed with the
    kernel's speed-up and the mean node count (the same search, so the same in both)."""
    out: dict[str, list[float]] = {}
    for name, kernel in backends():
        nodes = []

        def run(q: Position, kernel: bool = kernel, nodes: list[int] = nodes) -> None:
            s = made(q, kernel=kernel)
            solve(q, solver=s, **kwargs)  # type: ignore[arg-type]
            nodes.append(s.nodes)

        out[name] = timed(positions, run)
        extra = ""
        if name == "pure" and "kernel" in out:
            speedup = sum(out["pure"]) / max(1e-9, sum(out["kernel"]))
            extra = f"   kernel ×{speedup:.1f} faster"
        mean_nodes = statistics.fmean(nodes)
        print(f"  {label:<18}{name:<7}{stats(out[name])}   {mean_nodes:7.0f} nodes{extra}")
    return out


def with_features(features: frozenset[str]) -> Callable[[Position], object]:
    def run(p: Position) -> object:
        solver = Solver(
            trump=p.trump, mode=p.mode, focus_slot=p.order.index(p.focus),
            talon_leads=p.talon_leads, forehand_leads_until=p.forehand_leads_until,
            features=features, kernel=False,
        )  # fmt: skip
        return solve(p, solver=solver)

    return run


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--deals", type=int, default=100)
    p.add_argument("--endings", type=int, default=200)
    p.add_argument("--baseline-deals", type=int, default=10)
    p.add_argument("--seed", type=int, default=1)
    add_smoke(p)
    args = p.parse_args()
    if args.smoke:
        args.deals, args.endings, args.baseline_deals = 2, 5, 1
    rng = random.Random(args.seed)
    print(f"python {platform.python_version()} on {platform.machine()}, one core, CPU time")
    print(f"kernel built: {KERNEL_AVAILABLE}")
    print(
        "targets: kernel, whole contract deal with every lead valued: median ≤ 2 ms, "
        "p95 ≤ 10 ms;\n         pure, whole deal par: median < 100 ms, p95 < 1 s; "
        "5 tricks left < 5 ms\n"
    )

    contracts = contract_deals(rng, args.deals)
    print("whole deals from the opening lead (30 cards), par only:")
    compare("contract", contracts, values=False)
    misere = misere_deals(rng, max(1, args.deals // 2))
    compare("misère", misere, values=False, guess=0)
    paranoid = all_pass_deals(rng, max(1, args.deals // 2))
    compare("all-pass (1 seat)", paranoid, values=False)
    print("whole contract deals, every opening lead valued:")
    valued = compare("every lead", contracts)
    if "kernel" in valued:
        k = valued["kernel"]
        ok = statistics.median(k) <= TARGET_KERNEL_MEDIAN_S and p95(k) <= TARGET_KERNEL_P95_S
        print(
            f"  kernel target (median ≤ 2 ms, p95 ≤ 10 ms): median "
            f"{1000 * statistics.median(k):.2f} ms, p95 {1000 * p95(k):.2f} ms: "
            f"{'met' if ok else 'NOT met'}"
        )
    base = contracts[: args.baseline_deals]
    tt_only = timed(base, lambda q: solve(q, values=False, solver=_tt_only(q)))
    ours = timed(base, lambda q: solve(q, values=False, solver=made(q, kernel=False)))
    print(f"baseline, table only, first {len(base)} contract deals (pure search):")
    print(f"  table only        {stats(tt_only)}")
    print(f"  full solver       {stats(ours)}   ×{sum(tt_only) / max(1e-9, sum(ours)):.1f} faster")
    print()

    erng = random.Random(args.seed + 1)
    endings = [random_ending(erng, 5) for _ in range(args.endings)]
    print("positions with 5 tricks left, every legal card valued:")
    by = compare("solver", endings)
    solver_t = by["pure"]
    plain_t = timed(endings, with_features(frozenset()))
    print(f"  plain alpha-beta  pure   {stats(plain_t)}   ×{sum(plain_t) / sum(solver_t):.1f}")
    brute_t = timed(endings[: max(1, args.endings // 4)], brute_force)
    mean_solver = statistics.fmean(solver_t[: len(brute_t)])
    print(
        f"  brute force              {stats(brute_t)}   "
        f"×{statistics.fmean(brute_t) / max(1e-9, mean_solver):.0f}"
    )
    sys.stdout.flush()


def _tt_only(q: Position) -> Solver:
    return Solver(
        trump=q.trump, mode=q.mode, focus_slot=q.order.index(q.focus),
        talon_leads=q.talon_leads, forehand_leads_until=q.forehand_leads_until,
        features=frozenset({"tt"}), kernel=False,
    )  # fmt: skip


if __name__ == "__main__":
    main()
