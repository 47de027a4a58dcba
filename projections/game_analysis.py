"""The analysis of a whole finished game: every deal's cards double-dummy and its decisions over
the layouts each player could not tell apart, and each player's tricks lost against par
(`projections.analysis` judges one deal's cards, `projections.decisions` its decisions)."""

from __future__ import annotations

from collections.abc import Sequence

import msgspec

from domain import game as g
from domain.deal.messages import DealEnded, DealEvent, DealStarted
from domain.game import Event
from projections.analysis import DealAnalysis, analyse
from projections.analysis_text import summary_sentences
from projections.decisions import LAYOUTS, analyse_decisions


class AnalysedDeal(msgspec.Struct, frozen=True, kw_only=True):
    deal_no: int
    analysis: DealAnalysis


class PlayerPar(msgspec.Struct, frozen=True, kw_only=True):
    """One player's double-dummy record in one game."""

    player: str
    deals: int
    """Deals with play in which he chose at least one card."""
    tricks_lost: int
    """Tricks his cards gave away against par, over those deals."""


class GameAnalysis(msgspec.Struct, frozen=True, kw_only=True):
    deals: tuple[AnalysedDeal, ...]
    players: tuple[PlayerPar, ...]


def analyse_game(events: Sequence[Event], *, layouts: int = LAYOUTS) -> GameAnalysis:
    """Every finished deal of a game analysed, and each player's tricks lost against par.

    ``layouts`` is how many layouts each decision is judged over at most (0: the cards alone).
    A card counts against the player of the seat that chose it (`CardAnalysis.by`); the deal
    counts for every player who chose a card in it. The caller decides when the analysis may be
    shown: it reveals every hand (the service computes it once the game is over).
    """
    deals: list[AnalysedDeal] = []
    lost: dict[str, int] = {}
    played: dict[str, int] = {}
    state: g.GameState = g.INITIAL_STATE
    before: g.Pulka | None = None
    current: list[DealEvent] = []
    deal_no = 0
    for event in events:
        if isinstance(event, DealStarted) and isinstance(state, g.Pulka):
            before, current, deal_no = state, [event], deal_no + 1
        elif current and isinstance(event, DealEvent):
            current.append(event)
        state = g.evolve(state, event)
        if not (isinstance(event, DealEnded) and current and before is not None):
            continue
        analysis = analyse(current, before.rules)
        if layouts > 0:
            decided = analyse_decisions(before, current, layouts=layouts)
            analysis = msgspec.structs.replace(analysis, decisions=decided)
            analysis = msgspec.structs.replace(analysis, summary=summary_sentences(analysis, "en"))
        deals.append(AnalysedDeal(deal_no=deal_no, analysis=analysis))
        for seat in {c.by for c in analysis.cards}:
            player = before.players[seat] if seat < len(before.players) else None
            if player is None:
                continue
            played[player] = played.get(player, 0) + 1
            cost = sum(c.cost for c in analysis.cards if c.by == seat and c.cost > 0)
            lost[player] = lost.get(player, 0) + cost
        current = []
    return GameAnalysis(
        deals=tuple(deals),
        players=tuple(
            PlayerPar(player=p, deals=played[p], tricks_lost=lost[p]) for p in sorted(played)
        ),
    )
