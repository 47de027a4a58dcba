"""Whisting (вистование): who speaks, what he may say, and how it ends (docs/rules.md §D.1).

The first opponent is the player on the declarer's left; the second may whist or pass whatever
the first did. Half-whist (полвиста) exists on 6 and 7 only, after the first opponent passed;
the first opponent may then return the whist (возвратный вист). In gentleman whist the first
opponent may also whist, see the second pass, and go to half-whist himself (Lesnoy 3.8.14).

At a table of four the dealer, who holds no cards, speaks last (Lesnoy 3.8.8–3.8.8.2): when the
opponents' calls leave nobody whisting (pass, pass on any contract; a half-whist let stand on a 6
or 7) he is asked whether he whists, having looked at one opponent's cards if he likes. If he
whists he is the single whister, and a half-whister becomes a passer.
"""

from __future__ import annotations

from typing import Literal

import msgspec

from domain.cards import Seat, level_of
from domain.deal.state import Playing, Whisting
from domain.outcome import DefenderRole, WhistChoice


def defenders(state: Whisting) -> tuple[Seat, Seat]:
    """(first opponent, second opponent): the declarer's left, then the other one."""
    first = state.next_seat(state.declarer)
    return first, state.next_seat(first)


def _half_allowed(state: Whisting) -> bool:
    return state.rules.whist.half_whist and level_of(state.contract) in (6, 7)


def _defender_calls(state: Whisting) -> tuple[str, ...]:
    first, second = defenders(state)
    return tuple(c for s, c in state.calls if s in (first, second))


def _dealer_calls(state: Whisting) -> tuple[str, ...]:
    if state.seats != 4:
        return ()
    return tuple(c for s, c in state.calls if s == state.dealer)


def dealer_asked(state: Whisting) -> bool:
    """Whether the sitting-out dealer at four is still to say whether he whists: the opponents'
    calls are complete and nobody whisted (Lesnoy 3.8.8–3.8.8.1)."""
    if state.seats != 4 or not state.rules.players4.dealer_whist or _dealer_calls(state):
        return False
    calls = _defender_calls(state)
    return _opponents_options(state, calls) is None and calls in _NOBODY_WHISTS


def dealer_look(state: Whisting | Playing) -> Seat | None:
    """The opponent whose cards the sitting-out dealer looked at, if he did."""
    return next((hand for viewer, hand in state.peeks if viewer == state.dealer), None)


def may_look(state: Whisting, seat: Seat) -> bool:
    """The asked dealer may look at one opponent's cards, once, where he then plays that hand."""
    return (
        dealer_asked(state)
        and seat == state.dealer
        and dealer_may_look(state)
        and dealer_look(state) is None
    )


def dealer_may_look(state: Whisting) -> bool:
    """Whether the table lets the asked dealer look at an opponent's cards (``looked``: he must
    before he whists; ``may_look``: he may, S4 3.8.8)."""
    return state.rules.players4.dealer_whist_hand in ("looked", "may_look")


def dealer_whists_open(state: Whisting) -> bool:
    """A whisting dealer plays both opponents' hands laid open at once: the table says so
    (``open``), or (``may_look``) he whisted without looking at either hand."""
    hand = state.rules.players4.dealer_whist_hand
    return hand == "open" or (hand == "may_look" and dealer_look(state) is None)


def options(state: Whisting) -> tuple[Seat, tuple[WhistChoice, ...]] | None:
    """(seat to speak, its choices) while whisting goes on; None when the calls are complete."""
    calls = _defender_calls(state)
    opts = _opponents_options(state, calls)
    if opts is not None or not dealer_asked(state):
        return opts
    if state.rules.players4.dealer_whist_hand == "looked" and dealer_look(state) is None:
        return state.dealer, ("pass",)  # he whists with the hand he looked at: look first
    return state.dealer, ("whist", "pass")


_NOBODY_WHISTS: tuple[tuple[str, ...], ...] = (
    ("pass", "pass"),
    ("pass", "half_whist", "pass"),
    ("whist", "pass", "half_whist", "pass"),
)
"""Complete calls of the two opponents that leave the contract unwhisted."""


def _opponents_options(
    state: Whisting, calls: tuple[str, ...]
) -> tuple[Seat, tuple[WhistChoice, ...]] | None:
    first, second = defenders(state)
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
    """The defenders' roles once `options` returns None. A whisting dealer at four is the single
    whister; the opponents are then passers, a half-whister among them (3.8.8.2)."""
    opponents = _resolve_opponents(state)
    if _dealer_calls(state) != ("whist",):
        return opponents
    passers = tuple(
        DefenderRole(
            seat=r.seat, choice="pass", was_half_whist=r.was_half_whist or r.choice != "pass"
        )
        for r in opponents.roles
    )
    dealer = DefenderRole(seat=state.dealer, choice="whist", whist_rank=1)
    return Resolution(mode="single", roles=(*passers, dealer), whister=state.dealer)


def _resolve_opponents(state: Whisting) -> Resolution:
    first, second = defenders(state)
    calls = _defender_calls(state)

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
    calls = _defender_calls(state)
    return (
        state.rules.whist.style == "gentleman"
        and _half_allowed(state)
        and calls == ("whist", "pass")
    )
