"""The double-dummy analysis of a whole finished game: every deal, and each player's tricks
lost against par (`projections.analysis` judges one deal)."""

from __future__ import annotations

from collections.abc import Sequence

import msgspec

from domain.game import Event
from projections.analysis import DealAnalysis, analyse
from projections.replay import DealNotFound, deal_log


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


def analyse_game(events: Sequence[Event]) -> GameAnalysis:
    """Every finished deal of a game analysed, and each player's tricks lost against par.

    A card counts against the player of the seat that chose it (`CardAnalysis.by`); the deal
    counts for every player who chose a card in it. The caller decides when the analysis may be
    shown: it reveals every hand (the service computes it once the game is over).
    """
    deals: list[AnalysedDeal] = []
    lost: dict[str, int] = {}
    played: dict[str, int] = {}
    deal_no = 1
    while True:
        try:
            log = deal_log(events, deal_no)
        except DealNotFound:
            break
        if log.finished:
            analysis = analyse(log.events, log.rules)
            deals.append(AnalysedDeal(deal_no=deal_no, analysis=analysis))
            choosers = {c.by for c in analysis.cards}
            for seat in choosers:
                player = log.players[seat] if seat < len(log.players) else None
                if player is None:
                    continue
                played[player] = played.get(player, 0) + 1
                cost = sum(c.cost for c in analysis.cards if c.by == seat and c.cost > 0)
                lost[player] = lost.get(player, 0) + cost
        deal_no += 1
    return GameAnalysis(
        deals=tuple(deals),
        players=tuple(
            PlayerPar(player=p, deals=played[p], tricks_lost=lost[p]) for p in sorted(played)
        ),
    )
