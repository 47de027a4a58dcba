"""Throughput of the deal decider, beside bare-loop baselines measured in the same run.

    python bench/bench_domain.py [--deals 400] [--repeat 20] [--seed 1] [--profile] [--smoke]

It prints:

- play:     random legal deals played through ``decide``/``evolve`` per second (every choice drawn
            from ``legal_actions``, over a mix of rules: Sochi, Leningrad, Rostov, four players,
            Classic dark games with totus and concession), and the commands and events per second;
- fold:     events folded per second when replaying the recorded deals (each deal's events folded
            from the initial state, all the deals ``--repeat`` times over);
- baseline: a bare loop over the very same event lists that only bumps a dict counter and
            rebuilds a small tuple per event; the ratio says how many bare loops one fold costs;
- decode:   the same events decoded from JSON (msgspec) per second, as a replay from the store
            would start.

The aim is folding ≥ 500,000 events/s on one core. ``--profile`` adds a cProfile of the fold.
"""

from __future__ import annotations

import argparse
import cProfile
import os
import platform
import pstats
import random
import sys
import time
from collections.abc import Callable

import msgspec

sys.path.insert(0, os.path.dirname(__file__))
from _kit import add_smoke

from domain.deal.decider import decide, fold, initial_state, is_terminal, legal_actions, to_act
from domain.deal.messages import DealEvent, StartDeal
from domain.rules import LENINGRAD, ROSTOV, SOCHI, Rules, rules_for
from domain.simulation import random_deal

AIM_EVENTS_PER_SECOND = 500_000

RULES_MIX: tuple[Rules, ...] = (
    SOCHI,
    LENINGRAD,
    ROSTOV,
    rules_for("sochi", {"players": 4}),
    rules_for(
        "sochi",
        {"classic": {"dark_games": True, "totus": True}, "play": {"concede": "down3"}},
    ),
)


def random_start(rules: Rules, rng: random.Random) -> StartDeal:
    dealer = rng.randrange(rules.players)
    cards = random_deal(rng, rules.players, dealer)
    return StartDeal(dealer=dealer, hands=cards.hands, talon=cards.talon)


def play_deal(rules: Rules, start: StartDeal, rng: random.Random) -> tuple[list[DealEvent], int]:
    """One deal, every choice drawn at random from the legal actions: (its events, commands)."""
    state = initial_state(rules)
    events = decide(start, state)
    log = list(events)
    for event in events:
        state = fold(state, [event])
    commands = 1
    while not is_terminal(state):
        (seat,) = to_act(state)
        events = decide(rng.choice(legal_actions(state, seat)), state)
        state = fold(state, events)
        log += events
        commands += 1
    return log, commands


def timed(run: Callable[[], object]) -> float:
    start = time.perf_counter()
    run()
    return time.perf_counter() - start


def best_of(times: int, run: Callable[[], object]) -> float:
    return min(timed(run) for _ in range(times))


def fold_all(deals: list[tuple[Rules, list[DealEvent]]], repeat: int) -> None:
    starts = [(initial_state(rules), log) for rules, log in deals]
    for _ in range(repeat):
        for state, log in starts:
            fold(state, log)


def bare_loop(deals: list[tuple[Rules, list[DealEvent]]], repeat: int) -> None:
    """The floor a fold is measured against: touch each event, update a dict and a tuple."""
    for _ in range(repeat):
        for _rules, log in deals:
            counts: dict[type, int] = {}
            last: tuple[object, int] = (None, 0)
            for event in log:
                kind = type(event)
                counts[kind] = counts.get(kind, 0) + 1
                last = (event, last[1] + 1)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deals", type=int, default=400, help="random deals to play and record")
    parser.add_argument("--repeat", type=int, default=20, help="times the recorded deals fold")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--profile", action="store_true", help="cProfile one round of folding")
    add_smoke(parser)
    args = parser.parse_args()
    if args.smoke:
        args.deals, args.repeat = 20, 2

    rng = random.Random(args.seed)
    starts = [
        (rules, random_start(rules, rng))
        for rules in (RULES_MIX[i % len(RULES_MIX)] for i in range(args.deals))
    ]
    deals: list[tuple[Rules, list[DealEvent]]] = []
    commands = 0

    def play_all() -> None:
        nonlocal commands
        deals.clear()
        commands = 0
        for rules, start in starts:
            log, n = play_deal(rules, start, rng)
            deals.append((rules, log))
            commands += n

    played = timed(play_all)
    events = sum(len(log) for _, log in deals)
    total = events * args.repeat

    fold_all(deals, 1)  # warm up
    folded = best_of(3, lambda: fold_all(deals, args.repeat))
    baseline = best_of(3, lambda: bare_loop(deals, args.repeat))
    wire = [msgspec.json.encode(log) for _, log in deals]
    decoder = msgspec.json.Decoder(list[DealEvent])
    decoded = best_of(3, lambda: [decoder.decode(w) for w in wire])

    fold_rate = total / folded
    base_rate = total / baseline
    print(f"python {platform.python_version()} on {platform.machine()}, one core, seed {args.seed}")
    print(
        f"play      {args.deals / played:12,.0f} deals/s   "
        f"({commands / played:,.0f} commands/s, {events / played:,.0f} events/s; "
        f"{events / args.deals:.1f} events and {commands / args.deals:.1f} commands a deal)"
    )
    print(f"fold      {fold_rate:12,.0f} events/s   ({total:,} events: {args.repeat} × {events:,})")
    print(f"baseline  {base_rate:12,.0f} events/s   (bare loop over the same events)")
    print(
        f"ratio     {base_rate / fold_rate:12.1f} ×          (one fold costs this many bare loops)"
    )
    print(f"decode    {events / decoded:12,.0f} events/s   (msgspec JSON → DealEvent)")
    verdict = "meets" if fold_rate >= AIM_EVENTS_PER_SECOND else "is BELOW"
    print(f"folding {verdict} the aim of {AIM_EVENTS_PER_SECOND:,} events/s")

    if args.profile:
        profiler = cProfile.Profile()
        profiler.runcall(fold_all, deals, max(1, args.repeat // 4))
        pstats.Stats(profiler, stream=sys.stdout).sort_stats("tottime").print_stats(12)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
