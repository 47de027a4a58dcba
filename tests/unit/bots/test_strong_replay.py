"""A strong bot's moves are thought again from the game's log and each move's recorded seed and
budget, in a fresh process (another string hash seed, nothing shared but the log written as
JSON): a budget of layouts per decision kind makes every move reproducible (docs/bots.md §6).

The deals are played as the service plays them: every seat a strong bot, each move with a seed
of its own drawn by the table, its budget kept beside it in the words of `Budget.describe`
(what the steward writes into the move's metadata, `service.workers.steward.thought_of`)."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path

import msgspec

from bots import LEVELS
from bots.budget import DEFAULT_LAYOUTS, Budget
from bots.table import Table
from bots.view import BotView, seat_input
from domain import game as g
from domain.deal.messages import SeatCommand
from domain.rules import SOCHI, rules_for
from domain.simulation import random_deal

ROOT = Path(__file__).resolve().parents[3]
BUDGET = Budget(seconds=None, layouts=DEFAULT_LAYOUTS.scaled(0.25))
"""A quarter of the default counts, no cap: a test's worth of thinking, reproducible."""


def _played(seed: int, players: int) -> tuple[list[g.Event], list[dict[str, object]]]:
    """The log of one deal among strong bots, and each decision: the log's length when it was
    taken, the seat, the seed, the budget, the move."""
    rules = SOCHI if players == 3 else rules_for("sochi", {"players": 4})
    table = Table(rules, first_dealer=seed % players)
    seeds = random.Random(seed)
    decisions: list[dict[str, object]] = []

    def strong(view: BotView, _rng: random.Random, budget: Budget | float) -> SeatCommand:
        assert isinstance(budget, Budget)
        move_seed = seeds.getrandbits(64)
        move = LEVELS["strong"](view, random.Random(move_seed), budget)
        decisions.append({
            "at": len(table.events), "seat": view.seat, "seed": move_seed,
            "budget": budget.describe(), "move": msgspec.json.encode(move).decode(),
        })  # fmt: skip
        return move

    cards = random_deal(random.Random(seed), players, seed % players)
    table.play_deal(cards, [strong] * players, random.Random(0), BUDGET)
    return table.events, decisions


_REPLAY = """
import json, random, sys
import msgspec
from bots import LEVELS
from bots.budget import Budget
from bots.view import seat_input
from domain import game as g

data = json.load(open(sys.argv[1]))
events = msgspec.json.decode(data["log"].encode(), type=list[g.Event])
moves = []
for d in data["decisions"]:
    view = seat_input(events[: d["at"]], d["seat"])
    move = LEVELS["strong"](view, random.Random(d["seed"]), Budget.parse(d["budget"]))
    moves.append(msgspec.json.encode(move).decode())
print(json.dumps(moves))
"""


def test_every_strong_move_is_thought_again_from_the_log_in_a_fresh_process(
    tmp_path: Path,
) -> None:
    for seed, players in ((3, 3), (8, 3), (5, 4)):
        events, decisions = _played(seed, players)
        assert len(decisions) >= 10
        # the log alone rebuilds each decision's view
        for d in decisions:
            view = seat_input(events[: int(str(d["at"]))], int(str(d["seat"])))
            assert view.seat == d["seat"] and view.legal
        path = tmp_path / f"log-{seed}.json"
        path.write_text(json.dumps({
            "log": msgspec.json.encode(events).decode(), "decisions": decisions,
        }))  # fmt: skip
        env = {**os.environ, "PYTHONHASHSEED": str(seed + 11), "PYTHONPATH": str(ROOT)}
        out = subprocess.run(
            [sys.executable, "-c", _REPLAY, str(path)], env=env, capture_output=True, text=True,
            check=True, timeout=240,
        )  # fmt: skip
        assert json.loads(out.stdout) == [d["move"] for d in decisions], seed
