"""What a bot may spend on one decision: layouts judged, solver work, wall-clock time, or any of
them (docs/bots.md §6).

- ``layouts``: how many layouts of the unseen cards a decision judges, per kind of decision
  (`Layouts`). It is the budget the strong bot plays by: the same count on any machine and under
  any load, so the same view, the same random generator and the same budget give the same move
  anywhere, and a replay of the log thinks every move again. The compiled solver (docs/bots.md
  §4.10) makes the counts affordable: a whole deal solved from the opening lead costs well
  under a millisecond of CPU.
- ``nodes``: trick starts expanded, a node of the double-dummy solver (`domain.solver.Solver
  .nodes`, the same count in the compiled and the pure search) or a trick played out by
  `bots.rollout`; also the same on any machine.
- ``seconds``: a wall-clock cap, the safety net of production, where a table must not wait on
  a machine that is suddenly slow. Only a decision that the cap did not end is reproducible from
  its seed (the decision's `bots.strong.Clock` says which limit ended it).

Whichever limit runs out first ends the search. A plain number where a budget is expected is
seconds alone, the budget the levels always had; `Budget()` is the default layouts with the cap.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Literal

DEFAULT_SECONDS = 1.5
"""The wall-clock cap per decision (a safety net under the layout counts)."""

DecisionKind = Literal["bid", "discard", "declare", "whist", "play", "all_pass"]
"""The strong bot's decisions, by what a layout costs in each: an auction, discard or contract
layout solves a few candidate contracts from the opening lead (par only); a whist layout one;
a card-play layout values every legal card; an all-pass layout plays every card out by rules
of thumb (`bots.rollout`)."""


@dataclass(frozen=True, slots=True)
class Layouts:
    """Layouts judged per decision kind. The defaults were sized on the machine of docs/bots.md
    §9.2 so that a decision takes a small part of the wall-clock cap at p95: the cap is left as
    a safety net, not the budget (bench/bench_bots.py prints the figures)."""

    bid: int = 40
    discard: int = 40
    declare: int = 40
    whist: int = 60
    play: int = 40
    all_pass: int = 60

    def __post_init__(self) -> None:
        for f in fields(self):
            if getattr(self, f.name) < 1:
                raise ValueError(f"a decision judges at least one layout ({f.name})")

    def of(self, kind: DecisionKind) -> int:
        return int(getattr(self, kind))

    def describe(self) -> str:
        """``bid:40,discard:40,…``: what `parse` reads back."""
        return ",".join(f"{f.name}:{getattr(self, f.name)}" for f in fields(self))

    @classmethod
    def parse(cls, text: str) -> Layouts:
        """The layouts `describe` wrote (kinds left out keep their defaults)."""
        counts: dict[str, int] = {}
        names = {f.name for f in fields(cls)}
        for part in filter(None, text.split(",")):
            name, _, value = part.partition(":")
            if name not in names:
                raise ValueError(f"no decision kind {name!r}")
            counts[name] = int(value)
        return cls(**counts)

    def scaled(self, factor: float) -> Layouts:
        """Every count times ``factor`` (at least one layout)."""
        counts = {f.name: max(1, round(getattr(self, f.name) * factor)) for f in fields(self)}
        return Layouts(**counts)


DEFAULT_LAYOUTS = Layouts()


@dataclass(frozen=True, slots=True)
class Budget:
    """``layouts`` per decision kind, ``nodes`` trick starts, ``seconds`` of wall clock, or any of
    them; None: no limit of that kind."""

    seconds: float | None = DEFAULT_SECONDS
    nodes: int | None = None
    layouts: Layouts | None = DEFAULT_LAYOUTS

    def __post_init__(self) -> None:
        if self.seconds is None and self.nodes is None and self.layouts is None:
            raise ValueError("a budget limits layouts, nodes, seconds or some of them")
        if self.nodes is not None and self.nodes < 0:
            raise ValueError("a node budget is not negative")

    @classmethod
    def of_nodes(cls, nodes: int) -> Budget:
        """A budget of solver work alone: the same move on any machine."""
        return cls(seconds=None, nodes=nodes, layouts=None)

    @classmethod
    def of_layouts(cls, layouts: Layouts = DEFAULT_LAYOUTS) -> Budget:
        """A budget of layouts alone, no cap: the same move on any machine, however slow."""
        return cls(seconds=None, nodes=None, layouts=layouts)

    def describe(self) -> str:
        """``layouts=bid:40,… nodes=4000 seconds=1.5`` (the limits set): what `parse` reads."""
        parts = []
        if self.layouts is not None:
            parts.append(f"layouts={self.layouts.describe()}")
        if self.nodes is not None:
            parts.append(f"nodes={self.nodes}")
        if self.seconds is not None:
            parts.append(f"seconds={self.seconds:g}")
        return " ".join(parts)

    @classmethod
    def parse(cls, text: str) -> Budget:
        """The budget `describe` wrote (as a bot move's metadata keeps it)."""
        limits = dict(part.split("=", 1) for part in text.split())
        unknown = set(limits) - {"layouts", "nodes", "seconds"}
        if unknown:
            raise ValueError(f"not a budget's limit: {sorted(unknown)}")
        return cls(
            seconds=float(limits["seconds"]) if "seconds" in limits else None,
            nodes=int(limits["nodes"]) if "nodes" in limits else None,
            layouts=Layouts.parse(limits["layouts"]) if "layouts" in limits else None,
        )


def as_budget(budget: Budget | float) -> Budget:
    """``budget`` as a `Budget`: a plain number is seconds alone."""
    if isinstance(budget, Budget):
        return budget
    return Budget(seconds=float(budget), layouts=None)


__all__ = [
    "DEFAULT_LAYOUTS",
    "DEFAULT_SECONDS",
    "Budget",
    "DecisionKind",
    "Layouts",
    "as_budget",
]
