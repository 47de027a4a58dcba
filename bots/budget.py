"""What a bot may spend on one decision: solver work, wall-clock time, or both (docs/bots.md §6).

The strong bot's search is counted in trick starts expanded: a node of the double-dummy solver
(`domain.solver.Solver.nodes`) or a trick played out by `bots.rollout`. A budget of ``nodes``
stops the search after that many, whatever the machine's speed, so that the same view and the
same random generator give the same move anywhere: tests and replays of a bot's move use it.
``seconds`` is a wall-clock cap, for production, where a table must not wait on a slow machine.
With both, whichever runs out first ends the search; only a decision the cap did not cut short
is reproducible from its seed (the decision's `bots.strong.Clock` says which ended it).

A plain number where a budget is expected is seconds alone, the budget the levels always had.
"""

from __future__ import annotations

from dataclasses import dataclass

DEFAULT_SECONDS = 1.5
"""The strong bot's default wall-clock budget per decision."""


@dataclass(frozen=True, slots=True)
class Budget:
    """``nodes`` trick starts, ``seconds`` of wall clock, or both; None: no limit of that kind."""

    seconds: float | None = DEFAULT_SECONDS
    nodes: int | None = None

    def __post_init__(self) -> None:
        if self.seconds is None and self.nodes is None:
            raise ValueError("a budget limits nodes, seconds or both")
        if self.nodes is not None and self.nodes < 0:
            raise ValueError("a node budget is not negative")

    @classmethod
    def of_nodes(cls, nodes: int) -> Budget:
        """A budget of solver work alone: the same move on any machine."""
        return cls(seconds=None, nodes=nodes)


def as_budget(budget: Budget | float) -> Budget:
    """``budget`` as a `Budget`: a plain number is seconds alone."""
    return budget if isinstance(budget, Budget) else Budget(seconds=float(budget))


__all__ = ["DEFAULT_SECONDS", "Budget", "as_budget"]
