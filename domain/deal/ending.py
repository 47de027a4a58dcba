"""The `DealOutcome` of a deal that ends now: after the last trick, on a concession, or when
both defenders pass. It gathers the facts scoring needs from the state and the way it ended."""

from __future__ import annotations

from collections.abc import Mapping

from domain.cards import Seat
from domain.deal.state import Contracted, Playing, Whisting
from domain.outcome import DealKind, DealOutcome, DefenderRole


def outcome_of(
    state: Contracted | Playing,
    *,
    kind: DealKind,
    tricks: Mapping[Seat, int],
    contract: str | None = None,
    defenders: tuple[DefenderRole, ...] = (),
    played: bool = True,
    open_play: bool = False,
    checked: bool = False,
    conceded: int = 0,
    totus: bool = False,
) -> DealOutcome:
    """The outcome of ``state``'s deal; the keywords default as in `DealOutcome`."""
    return DealOutcome(
        kind=kind,
        dealer=state.dealer,
        seats=state.seats,
        hands=state.order,
        tricks=tuple(tricks.get(s, 0) for s in range(state.seats)),
        declarer=state.declarer,
        contract=contract,
        defenders=defenders,
        played=played,
        open_play=open_play,
        checked=checked,
        conceded=conceded,
        dark=state.dark,
        raspasy_factor=2 ** len(state.dark_passers) if kind == "raspasy" else 1,
        dark_passers=state.dark_passers,
        totus=totus or (isinstance(state, Whisting | Playing) and state.totus),
    )
