"""The collusion simulation (docs/fair-play.md §5): honest basic bots and colluding pairs
(`bots.colluders`) play pulkas, every game is folded by the collusion projection and its deals
analysed double-dummy as the analyst does (the cards alone, ``layouts=0``), and the report
ranks the pairs. Pure: no database, no HTTP (tests/unit/projections/test_collusion.py, and
bench/bench_collusion.py for the bigger run)."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from bots.colluders import Kind, play_population
from projections import collusion
from projections.game_analysis import analyse_game

HONEST = tuple(f"honest-{i}" for i in range(8))
PAIRS: tuple[tuple[str, str, Kind], ...] = (
    ("feeder-a", "feeder-b", "feeder"),
    ("passer-a", "passer-b", "passer"),
)


@dataclass
class Simulation:
    report: collusion.Report
    colluding: set[frozenset[str]]
    records: list[collusion.DealRecord] = field(default_factory=list)
    seconds: dict[str, float] = field(default_factory=dict)

    def rank_of(self, pair: frozenset[str]) -> int:
        """1 for the top of the report."""
        return next(i for i, p in enumerate(self.report.pairs, 1) if frozenset(p.players) == pair)

    def honest_pairs(self) -> list[collusion.PairReport]:
        return [p for p in self.report.pairs if frozenset(p.players) not in self.colluding]

    def false_positive_rate(self) -> float:
        honest = self.honest_pairs()
        return sum(p.flagged for p in honest) / len(honest) if honest else 0.0


def simulate(
    seed: int,
    games: int,
    *,
    honest: Sequence[str] = HONEST,
    pairs: Sequence[tuple[str, str, Kind]] = PAIRS,
    together: float = 0.4,
    target: int = 10,
) -> Simulation:
    players = [*honest, *(p for a, b, _ in pairs for p in (a, b))]
    play = fold = analyse = 0.0
    records: list[collusion.DealRecord] = []
    started = time.perf_counter()
    for game_id, events in play_population(
        seed, players, pairs, games, together=together, target=target
    ):
        t0 = time.perf_counter()
        model = collusion.EMPTY
        for e in events:
            model = collusion.apply(model, e)
        t1 = time.perf_counter()
        plays = {
            d.deal_no: collusion.play_of(d.analysis) for d in analyse_game(events, layouts=0).deals
        }
        t2 = time.perf_counter()
        records += collusion.records(game_id, model, plays)
        fold += t1 - t0
        analyse += t2 - t1
    play = time.perf_counter() - started - fold - analyse
    t0 = time.perf_counter()
    report = collusion.report(records)
    seconds = {"play": play, "fold": fold, "analyse": analyse,
               "report": time.perf_counter() - t0}  # fmt: skip
    return Simulation(
        report=report,
        colluding={frozenset((a, b)) for a, b, _ in pairs},
        records=records,
        seconds=seconds,
    )
