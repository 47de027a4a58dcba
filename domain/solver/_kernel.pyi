"""The compiled double-dummy search (domain/solver/_kernel.c, docs/bots.md §4.10)."""

from collections.abc import Sequence

class Kernel:
    """One search context (a trump, a mode, a focus slot, the talon's leads) with its
    transposition table: `domain.solver.search.Solver` with the search compiled."""

    def __init__(
        self,
        trump: int | None,
        contract: bool,
        focus_slot: int,
        talon_leads: Sequence[int],
        forehand_leads_until: int,
    ) -> None: ...
    @property
    def nodes(self) -> int:
        """Trick starts expanded so far."""
    @property
    def entries(self) -> int:
        """Positions in the transposition table."""
    def test(
        self, h0: int, h1: int, h2: int, leader: int, need: int, n: int, k: int
    ) -> bool | None:
        """Whether the maximising side makes the focus take at least ``need`` of the ``n``
        tricks left from a trick start (None: the node limit ended the search)."""
    def root(
        self,
        h0: int,
        h1: int,
        h2: int,
        trick: Sequence[tuple[int, int]],
        turn_slot: int,
        need: int,
        n: int,
        k: int,
        led: int,
    ) -> bool | None:
        """The same test with the cards of ``trick`` (slot, one-bit card) on the table."""
    def set_limit(self, nodes: int) -> None:
        """Abort once the node count passes ``nodes`` (negative: no limit)."""
    def clear(self) -> None:
        """Empty the transposition table."""
