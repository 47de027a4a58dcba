"""A duplicate match between bot levels: luck removed by playing every deal from every seat.

    python bench/duplicate_match.py [--presets sochi,leningrad,rostov] [--players 3]
        [--deals 200] [--pairs strong:basic,basic:random] [--strong-layouts 1]
        [--strong-budget SECONDS] [--strong-nodes N]
        [--jobs 2] [--seed 1] [--start 0] [--full] [--smoke]

For each preset and each pair of levels (A against B) the same seeded deals are played in
rotations: A in one active seat and B in the other two, in each of the three seats in turn
(``--full`` adds the three rotations with two A's against one B). So each level meets every
layout from every seat, and a deal's luck (who holds the cards) cancels in the comparison.

Every deal is scored alone on an empty sheet with the preset's own scoring
(`domain.scoring.score_deal`) and the closed-form settlement (`domain.settlement`): its
results sum to zero, in whist-equivalents. It prints, per preset and pair:

- the deals played and the rotations per deal;
- each level's mean result per seat per deal, with a 95% confidence interval over the deals
  (each deal's rotations averaged first, so the interval is over independent deals);
- A's margin over B per deal, with its 95% interval; the margin is real when the interval
  excludes zero.

At a table of four the sitting-out dealer belongs to no level (his consolation is left out of
the means). The strong level plays by its layout counts per decision kind (docs/bots.md §6,
`bots.budget.Layouts`), times ``--strong-layouts`` (1: the service's counts), with no wall-clock
cap unless ``--strong-budget`` sets one: the match then plays the same on any machine, however
loaded, and can be rerun exactly. ``--strong-layouts 0`` leaves the seconds alone (0.25 s
unless ``--strong-budget`` says otherwise); ``--strong-nodes`` gives a budget of solver nodes
instead. The report says which was used. The expert level (docs/bots.md §11) plays by the same
budget (its card play at twice the counts).

A level may also be the ``cheater`` (`bots.oracle`: the basic bot's auction, discard and
whisting, every card played double-dummy with every hand in view): the ceiling of card play.
And ``LEVEL/KINDS`` plays LEVEL's decisions of the kinds named (``bid``, ``discard``,
``declare``, ``whist``, ``play``, joined by ``+``) and the basic bot's others: ``strong/play``
is the strong bot's card play alone. When the pairs hold ``cheater:B``, a closing table gives
every other pair against the same B as a share of the cheater's margin: how much of what card
play could gain each level, or each kind of its decisions, takes.

``--start`` plays the seed's deals from that index on, so a long match can run in parts (deals
``start`` … ``start + deals − 1``), and ``--dump FILE`` writes each deal's results per level as
JSON lines, so the parts can be pooled into the whole match's figures.
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import os
import random
import statistics
import sys
import time
from collections.abc import Sequence
from fractions import Fraction

sys.path.insert(0, os.path.dirname(__file__))
from _kit import add_smoke

from bots import LEVELS, Budget, Strategy
from bots.budget import DEFAULT_LAYOUTS
from bots.oracle import CHEATER, cheater
from bots.table import Table
from bots.value import deal_results
from bots.view import BotView
from domain.cards import Seat
from domain.deal.messages import (
    CallWhist,
    ChoosePlay,
    Concede,
    Declare,
    DeclareTotus,
    Discard,
    LookAtHand,
    PlayCard,
    SeatCommand,
)
from domain.outcome import DealOutcome
from domain.rules import rules_for
from domain.simulation import random_deal

KINDS = ("bid", "discard", "declare", "whist", "play")
"""The kinds of decision a ``LEVEL/KINDS`` level takes from LEVEL."""


def decision_kind(legal: Sequence[SeatCommand]) -> str:
    """The kind of decision ``legal`` asks for (the auction when nothing else fits)."""
    for a in legal:
        if isinstance(a, PlayCard):
            return "play"
        if isinstance(a, CallWhist | ChoosePlay | LookAtHand):
            return "whist"
        if isinstance(a, Discard | DeclareTotus):
            return "discard"
        if isinstance(a, Declare | Concede):
            return "declare"
    return "bid"


def check_level(level: str) -> str:
    """``level`` if it names a level (see the module's docstring), else a usage error."""
    name, slash, kinds = level.partition("/")
    if name != CHEATER and name not in LEVELS:
        raise SystemExit(f"no level {name!r}: {', '.join([*LEVELS, CHEATER])}")
    if slash and (name == CHEATER or not kinds or set(kinds.split("+")) - set(KINDS)):
        raise SystemExit(f"{level!r}: LEVEL/KINDS takes kinds from {', '.join(KINDS)}")
    return level


def strategy_of(level: str, table: Table, seat: Seat) -> Strategy:
    """The strategy of ``level`` in ``seat`` of ``table``."""
    name, _, kinds = level.partition("/")
    if name == CHEATER:
        return cheater(table, seat)
    if not kinds:
        return LEVELS[name]
    own, mine, basic = set(kinds.split("+")), LEVELS[name], LEVELS["basic"]

    def decide(view: BotView, rng: random.Random, budget: Budget | float) -> SeatCommand:
        return (mine if decision_kind(view.legal) in own else basic)(view, rng, budget)

    return decide


def rotations(players: int, dealer: int, full: bool) -> list[tuple[str, ...]]:
    """Seat assignments ("A"/"B" per seat; "-" for a sitting-out dealer)."""
    active = [s for s in range(players) if not (players == 4 and s == dealer)]
    out: list[tuple[str, ...]] = []
    for lone, rest in (("A", "B"), ("B", "A")) if full else (("A", "B"),):
        for seat in active:
            out.append(
                tuple(
                    "-" if s not in active else (lone if s == seat else rest)
                    for s in range(players)
                )
            )
    return out


def play_one(
    args: tuple[str, int, int, str, str, Budget | float, int, bool],
) -> tuple[int, list[tuple[tuple[str, ...], tuple[Fraction, ...], str, tuple[str, ...]]], float]:
    """Deal ``index`` of the match, in every rotation: (index, [(assignment, results, kind)],
    seconds)."""
    preset, players, index, a, b, budget, seed, full = args
    rules = rules_for(preset, {"players": players})
    deal_rng = random.Random(f"{seed}:{preset}:{players}:{index}")
    dealer = index % players
    cards = random_deal(deal_rng, players, dealer)
    out = []
    t0 = time.perf_counter()
    for assignment in rotations(players, dealer, full):
        table = Table(rules, first_dealer=dealer)
        strategies = [
            strategy_of(a if x == "A" else b, table, seat) for seat, x in enumerate(assignment)
        ]
        bot_rng = random.Random(f"{seed}:{index}:{''.join(assignment)}")
        outcome = table.play_deal(cards, strategies, bot_rng, budget)
        results = deal_results(outcome, rules)
        kind = outcome.kind if outcome.kind != "game" else f"game {outcome.contract}"
        out.append((assignment, results, kind, _roles(outcome)))
    return index, out, time.perf_counter() - t0


def _roles(outcome: DealOutcome) -> tuple[str, ...]:
    """Each seat's part in the deal: declarer, defender (of a game or a misère), all-pass."""
    out = []
    for seat in range(outcome.seats):
        if seat not in outcome.hands:
            out.append("out")
        elif outcome.kind == "raspasy":
            out.append("all-pass")
        elif seat == outcome.declarer:
            out.append(f"{outcome.kind} declarer")
        else:
            out.append(f"{outcome.kind} defender")
    return tuple(out)


def interval(values: Sequence[float]) -> tuple[float, float]:
    """(mean, half-width of the 95% confidence interval)."""
    n = len(values)
    mean = statistics.fmean(values)
    if n < 2:
        return mean, math.inf
    return mean, 1.96 * statistics.stdev(values) / math.sqrt(n)


def run_pair(
    preset: str,
    players: int,
    a: str,
    b: str,
    deals: int,
    budget: Budget | float,
    seed: int,
    jobs: int,
    full: bool,
    start: int = 0,
    dump: str | None = None,
) -> tuple[float, float]:
    """Play and print the match of ``a`` against ``b``; A's margin per deal and its 95%
    half-width."""
    work = [(preset, players, i, a, b, budget, seed, full) for i in range(start, start + deals)]
    t0 = time.perf_counter()
    if jobs > 1:
        with multiprocessing.Pool(jobs) as pool:
            done = list(pool.imap_unordered(play_one, work))
    else:
        done = [play_one(w) for w in work]
    wall = time.perf_counter() - t0
    per_a: list[float] = []
    per_b: list[float] = []
    margin: list[float] = []
    kinds: dict[str, int] = {}
    by_role: dict[str, list[float]] = {}
    for index, plays, _ in sorted(done):
        sa: list[Fraction] = []
        sb: list[Fraction] = []
        for assignment, results, kind, roles in plays:
            kinds[kind.split()[0]] = kinds.get(kind.split()[0], 0) + 1
            for seat, x in enumerate(assignment):
                if x == "A":
                    sa.append(results[seat])
                    by_role.setdefault(roles[seat], []).append(float(results[seat]))
                elif x == "B":
                    sb.append(results[seat])
        ma, mb = float(sum(sa) / len(sa)), float(sum(sb) / len(sb))
        if dump is not None:
            with open(dump, "a") as f:
                f.write(
                    json.dumps(
                        {
                            "preset": preset,
                            "players": players,
                            "a": a,
                            "b": b,
                            "index": index,
                            "a_mean": ma,
                            "b_mean": mb,
                        }
                    )
                )
                f.write("\n")
        per_a.append(ma)
        per_b.append(mb)
        margin.append(ma - mb)
    ra, rb, rm = interval(per_a), interval(per_b), interval(margin)
    spend = budget.describe() if isinstance(budget, Budget) else f"seconds={budget:g}"
    searching = {"strong", "expert"} & {a.partition("/")[0], b.partition("/")[0]}
    strong_note = f", strong budget {spend}" if searching else ""
    print(
        f"{preset}, {players} players: {a} vs {b}: {len(done)} deals × "
        f"{len(rotations(players, 0, full))} rotations{strong_note} ({wall:.0f} s wall)"
    )
    print(f"  {a:>7}: {ra[0]:+7.2f} ± {ra[1]:.2f} whists per seat per deal")
    print(f"  {b:>7}: {rb[0]:+7.2f} ± {rb[1]:.2f} whists per seat per deal")
    verdict = "real" if abs(rm[0]) > rm[1] else "not shown"
    print(f"  margin {a} − {b}: {rm[0]:+.2f} ± {rm[1]:.2f} per deal (95% CI; {verdict})")
    total = sum(kinds.values())
    mix = ", ".join(f"{k} {100 * v / total:.0f}%" for k, v in sorted(kinds.items()))
    print(f"  deal kinds: {mix}")
    roles = ", ".join(
        f"{r} {statistics.fmean(v):+.1f} (n={len(v)})" for r, v in sorted(by_role.items())
    )
    print(f"  {a}'s mean result by its part in the deal: {roles}")
    sys.stdout.flush()
    return rm


def print_shares(margins: dict[tuple[str, str], tuple[float, float]], preset: str) -> None:
    """Each pair's margin as a share of the cheater's against the same second level."""
    for (c, b), (ceiling, width) in margins.items():
        if c != CHEATER:
            continue
        print(f"{preset}: the ceiling of card play, {CHEATER} − {b}: {ceiling:+.2f} ± {width:.2f}"
              " per deal; each pair's margin as a share of it:")  # fmt: skip
        for (a, other), (m, w) in margins.items():
            if other == b and a != CHEATER:
                share = f"{100 * m / ceiling:.0f}%" if ceiling > 0 else "n/a"
                print(f"  {a:>22} − {b}: {m:+7.2f} ± {w:.2f} per deal, {share} of the ceiling")
    sys.stdout.flush()


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--presets", default="sochi,leningrad,rostov")
    p.add_argument("--players", type=int, default=3, choices=(3, 4))
    p.add_argument("--deals", type=int, default=200)
    p.add_argument("--pairs", default="strong:basic,basic:random")
    p.add_argument("--strong-layouts", type=float, default=1.0, help="times the default counts")
    p.add_argument("--strong-budget", type=float, default=None, help="a wall-clock cap, seconds")
    p.add_argument("--strong-nodes", type=int, default=None, help="solver nodes, not layouts")
    p.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 1))
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--start", type=int, default=0, help="the first deal's index (runs in parts)")
    p.add_argument("--dump", default=None, help="append each deal's results to this file")
    p.add_argument("--full", action="store_true", help="also two A's against one B")
    add_smoke(p)
    args = p.parse_args()
    if args.smoke:
        args.presets, args.deals, args.jobs = "sochi", 2, 1
        args.pairs = "basic:random,cheater:random,basic/play:random"
    budget: Budget | float
    if args.strong_nodes is not None:
        budget = Budget.of_nodes(args.strong_nodes)
    elif args.strong_layouts > 0:
        budget = Budget(
            seconds=args.strong_budget, layouts=DEFAULT_LAYOUTS.scaled(args.strong_layouts)
        )
    else:
        budget = args.strong_budget if args.strong_budget is not None else 0.25
    pairs = [
        (check_level(a), check_level(b))
        for a, _, b in (pair.partition(":") for pair in args.pairs.split(","))
    ]
    for preset in args.presets.split(","):
        margins: dict[tuple[str, str], tuple[float, float]] = {}
        for a, b in pairs:
            margins[a, b] = run_pair(
                preset,
                args.players,
                a,
                b,
                args.deals,
                budget,
                args.seed,
                args.jobs,
                args.full,
                args.start,
                args.dump,
            )
        print_shares(margins, preset)


if __name__ == "__main__":
    main()
