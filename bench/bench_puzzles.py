"""Puzzles mined from finished deals: how many, of which themes, and what the mining costs beside
the double-dummy analysis the service already runs on every finished game (its baseline, measured
in the same run, game by game, interleaved); and a study's comparison with its real line.

    python bench/bench_puzzles.py [--deals 300] [--seed 1] [--level basic] [--smoke]

The games are whole pulkas (pool 10, Sochi) played by the service's ``basic`` bots (each seeing
only its seat), dealt from the seed: play as a table of modest players plays, which is what the
puzzles come from (random legal play would make every position a puzzle of nothing). It prints,
in CPU time of this process (`time.process_time`; the machine is shared):

- puzzles per 100 finished deals, by theme, and how many the table's player found at the time;
- mining (`projections.puzzles.mine_game`): CPU ms per deal and per game, median / p95 / max
  per game;
- baseline: the analysis of the same games' cards (`projections.game_analysis.analyse_game`
  with ``layouts=0``: par before every card, the work mining is most like; the decisions'
  judgement the analyst adds is bench/bench_analysis.py's);
- a study compared with its real line (`projections.study.compare`), the study forked at the
  first card and played on with each seat's lowest legal move: CPU ms per comparison.
"""

from __future__ import annotations

import argparse
import math
import os
import random
import statistics
import sys
import time
from collections import Counter
from collections.abc import Callable
from typing import Any

sys.path.insert(0, os.path.dirname(__file__))
from _kit import add_smoke

from bots import LEVELS
from bots.view import SeatFeed
from domain import game as g
from domain import study as st
from domain.deal.messages import CardPlayed
from domain.rules import Rules, rules_for
from domain.simulation import random_deal
from projections.game_analysis import analyse_game
from projections.puzzles import Puzzle, mine_game
from projections.replay import deal_log
from projections.study import compare


def play_pulka(rules: Rules, rng: random.Random, level: str) -> list[g.Event]:
    """One whole pulka played by ``level`` bots, each from its seat's own view."""
    state: g.GameState = g.INITIAL_STATE
    events: list[g.Event] = []
    feeds = [SeatFeed(s) for s in range(3)]

    def do(command: g.Command) -> None:
        nonlocal state
        for e in g.decide(command, state):
            state = g.evolve(state, e)
            events.append(e)
            for feed in feeds:
                feed.add(e)

    do(g.CreateGame(rules=rules, first_dealer=0))
    for seat in range(3):
        do(g.TakeSeat(seat=seat, player=f"p{seat}"))
    while not g.is_terminal(state):
        assert isinstance(state, g.Pulka)
        if g.needs_cards(state):
            do(random_deal(rng, 3, state.next_dealer))
            continue
        seat = g.to_act(state)[0]
        do(LEVELS[level](feeds[seat].view(), rng, 0.2))
    return events


def play_games(deals: int, seed: int, level: str) -> list[list[g.Event]]:
    """Whole pulkas until ``deals`` finished deals are in finished games (the last game played
    to its end)."""
    rules = rules_for("sochi", {"pool": {"target": 10}})
    rng = random.Random(seed)
    games: list[list[g.Event]] = []
    played = 0
    while played < deals:
        games.append(play_pulka(rules, rng, level))
        played += sum(1 for e in games[-1] if isinstance(e, g.DealScored))
    return games


def cpu(work: Callable[..., object], *args: object) -> float:
    """CPU seconds of this process that ``work(*args)`` took."""
    started = time.process_time()
    work(*args)
    return time.process_time() - started


def study_of(events: list[g.Event]) -> tuple[Any, ...] | None:
    """The first deal with play of a game, forked at its first card and played on by every seat's
    lowest legal move: (rules, real events, study events, fork step)."""
    deal_no = 1
    while True:
        try:
            log = deal_log(events, deal_no)
        except Exception:
            return None
        first = next((k for k, e in enumerate(log.events) if isinstance(e, CardPlayed)), None)
        if first is not None:
            break
        deal_no += 1
    state: st.State = st.INITIAL_STATE
    fork = st.ForkStudy(owner="o", game_id="g", deal_no=deal_no, step=first, rules=log.rules,
                        players=log.players, prefix=tuple(log.events[:first]))  # fmt: skip
    for e in st.decide(fork, state):
        state = st.evolve(state, e)
    assert isinstance(state, st.Study)
    while not state.over:
        seat = st.to_act(state)[0]
        for e in st.decide(st.MoveInStudy(move=st.legal_moves(state, seat)[0]), state):
            state = st.evolve(state, e)
        assert isinstance(state, st.Study)
    return log.rules, log.events, state.events, first


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=300)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--level", default="basic", choices=sorted(LEVELS))
    add_smoke(parser)
    args = parser.parse_args()
    if args.smoke:
        args.deals = 20
    started = time.monotonic()
    games = play_games(args.deals, args.seed, args.level)
    deals = sum(sum(1 for e in events if isinstance(e, g.DealScored)) for events in games)
    print(f"{len(games)} games, {deals} finished deals played by {args.level} bots "
          f"in {time.monotonic() - started:.1f} s")  # fmt: skip

    mining: list[float] = []
    analysis: list[float] = []
    themes: Counter[str] = Counter()
    found = 0
    per_game: list[int] = []
    for events in games:  # interleaved, game by game: the same load for both
        mined: list[Puzzle] = []
        mining.append(cpu(lambda found, game: found.extend(mine_game(game)), mined, events))
        analysis.append(cpu(lambda game: analyse_game(game, layouts=0), events))
        per_game.append(len(mined))
        for puzzle in mined:
            themes[puzzle.position.theme] += 1
            found += puzzle.solution.played == puzzle.solution.answer
    total = sum(per_game)
    print(f"puzzles: {total} in {deals} deals = {100 * total / deals:.1f} per 100 finished deals"
          f" ({', '.join(f'{k} {v}' for k, v in themes.most_common())})")  # fmt: skip
    print(f"found at the table: {found} of {total} (the others are a real player's mistake)")

    def line(label: str, times: list[float]) -> None:
        ms = [t * 1000 for t in times]
        q = sorted(ms)[max(0, math.ceil(0.95 * len(ms)) - 1)]  # nearest rank
        print(f"{label:<32} {1000 * sum(times) / deals:7.2f} ms CPU per deal; per game median"
              f" {statistics.median(ms):7.1f} p95 {q:7.1f} max {max(ms):7.1f} ms")  # fmt: skip

    line("mining: mine_game", mining)
    line("baseline: analyse_game, cards", analysis)
    print(f"mining / analysis: {sum(mining) / sum(analysis):.2f}× the analysis' CPU")

    comparisons = []
    for events in games:
        made = study_of(events)
        if made is not None:
            comparisons.append(cpu(compare, *made))
    if comparisons:
        ms = [t * 1000 for t in comparisons]
        print(f"study compared with its real line: median {statistics.median(ms):.1f} ms CPU,"
              f" max {max(ms):.1f} ms over {len(ms)} studies")  # fmt: skip


if __name__ == "__main__":
    main()
