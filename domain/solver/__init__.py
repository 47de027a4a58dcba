"""Double-dummy solving (all cards known, perfect play by every hand), pure and I/O-free.

    position    Position, position (from cards in notation), from_playing (from a deal's state)
    solve       solve → Solution (par and the value of every legal card), par, solver_for
    search      Solver: the zero-window search and its transposition table
    bits        the card model: one bit per card, one int per hand; shared tables
    reference   brute_force: exhaustive minimax, the yardstick of the tests

Modes: ``contract`` (the declarer's tricks), ``misere`` (the declarer's tricks, which he wants to
be none) and ``paranoid`` (all-pass: one seat's tricks against a coalition of the other two).
"""

from domain.solver.position import Mode, Position, advance, from_playing, position
from domain.solver.search import SearchAborted, Solver
from domain.solver.solve import Solution, card_value, fits, par, solve, solver_for

__all__ = [
    "Mode",
    "Position",
    "SearchAborted",
    "Solution",
    "Solver",
    "advance",
    "card_value",
    "fits",
    "from_playing",
    "par",
    "position",
    "solve",
    "solver_for",
]
