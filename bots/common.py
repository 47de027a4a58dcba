"""Helpers every strategy shares: picking among the legal actions by kind, and the default for an
action a strategy does not know (the rules are still growing: new bids, claims …)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

from domain.cards import BID_RANK, MISER, level_of
from domain.deal.messages import (
    CallWhist,
    ChoosePlay,
    Discard,
    LookAtCards,
    MakeBid,
    Pass,
    SeatCommand,
    TakeTalon,
)
from domain.outcome import WhistChoice

T = TypeVar("T")

OBLIGATION = {6: 4, 7: 2, 8: 1, 9: 1, 10: 1}
"""Tricks the defence must take between them (docs/rules.md §D.1)."""


class NoLegalAction(ValueError):
    """A strategy was asked to act for a seat that has no legal action."""


def of_type(legal: Sequence[SeatCommand], kind: type[T]) -> list[T]:
    return [a for a in legal if isinstance(a, kind)]


def default_action(legal: Sequence[SeatCommand]) -> SeatCommand:
    """A safe choice among ``legal``: look at the cards, pass in the light, take the talon, say
    pass to a whist, choose open play; else the first action listed."""
    for a in legal:
        if isinstance(a, LookAtCards):
            return a
    for a in legal:
        if isinstance(a, Pass) and not a.dark:
            return a
    for a in legal:
        if isinstance(a, TakeTalon):
            return a
    for a in legal:
        if isinstance(a, CallWhist) and a.choice == "pass":
            return a
    for a in legal:
        if isinstance(a, ChoosePlay) and a.open:
            return a
    if not legal:  # a seat with nothing to do was asked to act: say so, not IndexError
        raise NoLegalAction("there is no legal action to choose from")
    return legal[0]


def find_discard(legal: Sequence[SeatCommand], pair: tuple[str, str]) -> SeatCommand | None:
    want = set(pair)
    for a in legal:
        if isinstance(a, Discard) and set(a.cards) == want:
            return a
    return None


def find_whist(legal: Sequence[SeatCommand], choice: WhistChoice) -> SeatCommand | None:
    for a in legal:
        if isinstance(a, CallWhist) and a.choice == choice:
            return a
    return None


def light_bids(legal: Sequence[SeatCommand]) -> list[MakeBid]:
    """The bids in the light (not dark), lowest first."""
    return sorted(
        (a for a in legal if isinstance(a, MakeBid) and not a.dark), key=lambda a: BID_RANK[a.bid]
    )


def contract_ceiling(level: int, strain: str | None) -> str:
    """The highest bid of ``level`` in ``strain`` (None: no-trump) on the ladder."""
    level = max(6, min(10, level))
    return f"{level}{'NT' if strain is None else strain}"


def within(bid: str, ceiling: str | None) -> bool:
    """Whether ``bid`` is at most ``ceiling`` on the ladder (misère never is, here)."""
    return ceiling is not None and bid != MISER and BID_RANK[bid] <= BID_RANK[ceiling]


__all__ = [
    "OBLIGATION",
    "NoLegalAction",
    "contract_ceiling",
    "default_action",
    "find_discard",
    "find_whist",
    "level_of",
    "light_bids",
    "of_type",
    "within",
]
