"""Whisting (вистование): who speaks, what he may say, and how it ends (docs/rules.md §D.1).

The first opponent is the player on the declarer's left; the second may whist or pass whatever
the first did. Half-whist (полвиста) exists on 6 and 7 only, after the first opponent passed;
the first opponent may then return the whist (возвратный вист). In gentleman whist the first
opponent may also whist, see the second pass, and go to half-whist himself (Lesnoy 3.8.14).
"""

from __future__ import annotations

from typing import Literal

import msgspec

from domain.cards import Seat, level_of
from domain.deal.state import Whisting
from domain.outcome import DefenderRole, WhistChoice


def defenders(state: Whisting) -> tuple[Seat, Seat]:
    """(first opponent, second opponent): the declarer's left, then the other one."""
    first = state.next_seat(state.declarer)
    return first, state.next_seat(first)


def _half_allowed(state: Whisting) -> bool:
    return state.rules.whist.half_whist and level_of(state.contract) in (6, 7)


def options(state: Whisting) -> tuple[Seat, tuple[WhistChoice, ...]] | None:
    """(seat to speak, its choices) while whisting goes on; None when the calls are complete."""
    first, second = defenders(state)
    calls = tuple(c for _, c in state.calls)
    half = _half_allowed(state)
    match calls:
        case ():
            return first, ("whist", "pass")
        case ("pass",):
            return second, (("whist", "pass", "half_whist") if half else ("whist", "pass"))
        case ("whist",):
            return second, ("whist", "pass")
        case ("pass", "half_whist"):
            return first, ("whist", "pass")  # return whist, or let the half-whist stand
        case ("whist", "pass", "half_whist"):
            return second, ("whist", "pass")  # gentleman: the passer may return the whist
    return None


class Resolution(msgspec.Struct, frozen=True, kw_only=True):
    """How whisting ended."""

    mode: Literal["no_play", "single", "double"]
    """Made without play; one whister (chooses open or closed); two whisters (closed)."""
    roles: tuple[DefenderRole, ...]
    whister: Seat | None = None


def resolve(state: Whisting) -> Resolution:
    """The defenders' roles once `options` returns None."""
    first, second = defenders(state)
    calls = tuple(c for _, c in state.calls)

    def role(
        seat: Seat, choice: WhistChoice, rank: int = 0, was_half: bool = False
    ) -> DefenderRole:
        return DefenderRole(seat=seat, choice=choice, whist_rank=rank, was_half_whist=was_half)

    match calls:
        case ("pass", "pass"):
            return Resolution(mode="no_play", roles=(role(first, "pass"), role(second, "pass")))
        case ("pass", "whist"):
            return Resolution(
                mode="single", whister=second,
                roles=(role(first, "pass"), role(second, "whist", 1)),
            )  # fmt: skip
        case ("whist", "pass"):
            return Resolution(
                mode="single", whister=first,
                roles=(role(first, "whist", 1), role(second, "pass")),
            )  # fmt: skip
        case ("whist", "whist"):
            return Resolution(
                mode="double", roles=(role(first, "whist", 1), role(second, "whist", 2))
            )
        case ("pass", "half_whist", "pass"):
            return Resolution(
                mode="no_play", roles=(role(first, "pass"), role(second, "half_whist"))
            )
        case ("pass", "half_whist", "whist"):
            return Resolution(
                mode="single", whister=first,
                roles=(role(first, "whist", 1), role(second, "pass", was_half=True)),
            )  # fmt: skip
        case ("whist", "pass", "half_whist", "pass"):
            return Resolution(
                mode="no_play", roles=(role(first, "half_whist"), role(second, "pass"))
            )
        case ("whist", "pass", "half_whist", "whist"):
            return Resolution(
                mode="single", whister=second,
                roles=(role(first, "pass", was_half=True), role(second, "whist", 1)),
            )  # fmt: skip
    raise AssertionError(f"whisting is not complete: {calls}")


def gentleman_half_whist_open(state: Whisting) -> bool:
    """Gentleman whist: after whist–pass the first opponent may still go to half-whist."""
    calls = tuple(c for _, c in state.calls)
    return (
        state.rules.whist.style == "gentleman"
        and _half_allowed(state)
        and calls == ("whist", "pass")
    )
