"""Collusion statistics (docs/fair-play.md): per pair of players, figures of play that favour one
of them, each beside its population baseline with a z-score. A screen for a moderator, never a
verdict: nothing here bans anyone.

Two pure steps:

- `apply` folds one game's events into `CollusionGame`: who sat where, and each scored deal's
  facts (`DealFacts`: kind, declarer, contract, each defender's whist choice, the whists the
  sheet wrote and on whom). Read from what the domain recorded, never a rule run again.
- `report` reads the deals of finished games (`DealRecord`: the facts, and the double-dummy
  play of each seat, `DealPlay`, once the analyst has solved the deal) and ranks the pairs.

Every figure is a per-deal mean for an ordered pair ``giver → taker`` over the deals both
played, oriented so that more is more suspicious:

- ``fed_tricks``: the taker declared (a contract or a misère, played) and the giver defended:
  the tricks the giver's cards gave away against double-dummy par;
- ``defence_accuracy``: both defended together: the share of the giver's cards that kept par;
- ``allpass_gifts``: an all-pass: the tricks the giver took against his own par, in the share
  of the taker's escape below his own par (the tricks the taker did not have to take);
- ``passes_for``: the taker declared a trick contract and the giver chose (not forced): 1 when
  he passed or half-whisted, 0 when he whisted;
- ``whist_flow``: every deal both played: whists the taker wrote on the giver, less the
  whists the giver wrote on the taker.

The baseline of a pair's figure is the giver's own mean with everyone else, shrunk towards the
population's mean by `PRIOR` deals (a player seen little is compared with everyone), and the
z-score divides the difference by the population's per-deal deviation over both samples. A
pair's score is its highest z over the figures with at least `MIN_DEALS` deals, in either
direction; co-seating is shown (games together against those expected were the seats drawn at
random) but never scored: friends may sit together.
"""

from __future__ import annotations

import heapq
import math
from collections import defaultdict
from collections.abc import Iterable, Mapping
from typing import Literal, NamedTuple

import msgspec

from domain.deal.messages import DealEnded
from domain.game import DealScored, Event, GameCreated, GameEnded, PlayerSeated
from domain.outcome import DealOutcome
from projections.analysis import DealAnalysis

FigureName = Literal[
    "fed_tricks", "defence_accuracy", "allpass_gifts", "passes_for", "whist_flow", "co_seating"
]
SCORED: tuple[FigureName, ...] = (
    "fed_tricks", "defence_accuracy", "allpass_gifts", "passes_for", "whist_flow",
)  # fmt: skip
"""The figures a pair's score is taken over (co-seating is context only)."""

PRIOR = 20.0
"""Deals of the population's mean added to a giver's own record to make a baseline."""
MIN_DEALS = 10
"""A figure over fewer deals is shown, not scored."""
FLAG_Z = 4.0
"""A pair whose score reaches it is flagged for a moderator's look (docs/fair-play.md: the
false-positive rate measured on honest bots)."""
EXAMPLES = 5
"""Deals linked per figure: those that weighed most."""


# --- a game's facts ------------------------------------------------------------------------------


class DealFacts(msgspec.Struct, frozen=True, kw_only=True, array_like=True):
    """One scored deal as the statistics need it."""

    deal_no: int
    kind: str
    players: tuple[str | None, ...]
    """Who sat in each seat during the deal."""
    hands: tuple[int, ...]
    """The active seats."""
    declarer: int | None = None
    contract: str | None = None
    played: bool = True
    choices: tuple[tuple[int, str, bool], ...] = ()
    """``(seat, whist choice, forced)`` of each defender."""
    whists: tuple[tuple[int, int, int], ...] = ()
    """``(writer, on, whists)``: the whists the deal wrote on the sheet."""


class CollusionGame(msgspec.Struct, frozen=True, kw_only=True):
    """The collusion read model of one game."""

    players: tuple[str | None, ...] = ()
    deals: tuple[DealFacts, ...] = ()
    ended: DealOutcome | None = None
    """The last deal's outcome, recorded once its score arrives."""
    finished: bool = False


EMPTY = CollusionGame()

HANDLED: frozenset[str] = frozenset(
    cls.__struct_config__.tag  # type: ignore[misc]
    for cls in (GameCreated, PlayerSeated, DealEnded, DealScored, GameEnded)
)
"""Stored event types that change the model."""


def apply(model: CollusionGame, event: Event) -> CollusionGame:
    """The game's model after ``event``."""
    replace = msgspec.structs.replace
    match event:
        case GameCreated(rules=rules):
            return CollusionGame(players=(None,) * rules.players)
        case PlayerSeated(seat=seat, player=player):
            players = (*model.players[:seat], player, *model.players[seat + 1 :])
            return replace(model, players=players)
        case DealEnded(outcome=outcome):
            return replace(model, ended=outcome)
        case DealScored(deal_no=deal_no, score=score):
            o = model.ended
            if o is None:
                return model
            facts = DealFacts(
                deal_no=deal_no, kind=o.kind, players=model.players, hands=o.hands,
                declarer=o.declarer, contract=o.contract, played=o.played,
                choices=tuple((d.seat, d.choice, d.forced) for d in o.defenders),
                whists=tuple(
                    (e.seat, e.on, e.amount)
                    for e in score.entries if e.kind == "whists" and e.on is not None
                ),
            )  # fmt: skip
            return replace(model, deals=(*model.deals, facts), ended=None)
        case GameEnded():
            return replace(model, finished=True)
    return model


# --- the double-dummy play of a deal ------------------------------------------------------------


class SeatPlay(msgspec.Struct, frozen=True, kw_only=True, array_like=True):
    """The cards one seat chose in a deal, judged double-dummy."""

    seat: int
    cards: int
    best: int
    """Cards that kept par."""
    cost: int
    """Tricks given away against par."""


class DealPlay(msgspec.Struct, frozen=True, kw_only=True):
    seats: tuple[SeatPlay, ...] = ()
    opening_par: tuple[int | None, ...] = ()
    result: tuple[int | None, ...] = ()

    def of(self, seat: int) -> SeatPlay | None:
        return next((s for s in self.seats if s.seat == seat), None)


def play_of(analysis: DealAnalysis) -> DealPlay:
    """What the statistics keep of a deal's analysis (the service does the same in SQL)."""
    by: dict[int, list[int]] = {}
    for c in analysis.cards:
        n = by.setdefault(c.by, [0, 0, 0])
        n[0] += 1
        n[1] += c.cost <= 0
        n[2] += max(c.cost, 0)
    return DealPlay(
        seats=tuple(
            SeatPlay(seat=s, cards=a, best=b, cost=c) for s, (a, b, c) in sorted(by.items())
        ),
        opening_par=analysis.opening_par,
        result=analysis.result,
    )


class DealRecord(NamedTuple):
    game_id: str
    facts: DealFacts
    play: DealPlay | None
    """None until the analyst has solved the deal (the double-dummy figures skip it)."""


def records(
    game_id: str, game: CollusionGame, plays: Mapping[int, DealPlay] | None = None
) -> list[DealRecord]:
    """A finished game's deals (none for a game still in play)."""
    if not game.finished:
        return []
    plays = plays or {}
    return [DealRecord(game_id, d, plays.get(d.deal_no)) for d in game.deals]


# --- the report ----------------------------------------------------------------------------------


class DealLink(msgspec.Struct, frozen=True, kw_only=True):
    game_id: str
    deal_no: int
    value: float
    """The figure's value in this deal."""


class Figure(msgspec.Struct, frozen=True, kw_only=True):
    name: FigureName
    giver: str | None
    """The player the figure is about (None for co-seating)."""
    taker: str | None
    """The player it would favour."""
    deals: int
    """Deals (games, for co-seating) it is measured over."""
    value: float
    """The pair's mean per deal (games together, for co-seating)."""
    baseline: float
    """What was expected: the giver's own mean with others, shrunk towards the population's
    (co-seating: games together were the seats drawn at random)."""
    population: float
    """The mean over every pair in the population."""
    z: float
    scored: bool
    """Enough deals to count in the pair's score."""
    examples: tuple[DealLink, ...] = ()


class PairReport(msgspec.Struct, frozen=True, kw_only=True):
    players: tuple[str, str]
    games: int
    deals: int
    score: float
    """The highest z of its scored figures, either way (0 when none is scored)."""
    flagged: bool
    top: str | None
    """The figure that gave the score (one of `SCORED`), None when no figure scored above 0."""
    figures: tuple[Figure, ...]


class Report(msgspec.Struct, frozen=True, kw_only=True):
    games: int
    deals: int
    analysed: int
    """Deals with their double-dummy play known."""
    players: int
    flag_z: float
    pairs: tuple[PairReport, ...]
    """Ranked, the highest score first."""


class _Sum:
    __slots__ = ("n", "s", "ss")

    def __init__(self) -> None:
        self.n = 0
        self.s = 0.0
        self.ss = 0.0

    def add(self, x: float) -> None:
        self.n += 1
        self.s += x
        self.ss += x * x


class _Acc:
    def __init__(self) -> None:
        self.pair: dict[tuple[str, str, str], _Sum] = defaultdict(_Sum)
        self.giver: dict[tuple[str, str], _Sum] = defaultdict(_Sum)
        self.population: dict[str, _Sum] = defaultdict(_Sum)
        self.examples: dict[tuple[str, str, str], list[tuple[float, str, int]]] = defaultdict(list)

    def add(self, fig: str, g: str, t: str, x: float, game_id: str, deal_no: int) -> None:
        self.pair[fig, g, t].add(x)
        self.giver[fig, g].add(x)
        self.population[fig].add(x)
        heap = self.examples[fig, g, t]
        item = (x, game_id, -deal_no)
        if len(heap) < EXAMPLES:
            heapq.heappush(heap, item)
        elif item > heap[0]:
            heapq.heapreplace(heap, item)


def _observe(acc: _Acc, r: DealRecord) -> None:
    f, p = r.facts, r.play
    who: dict[int, str] = {
        s: name for s in f.hands if s < len(f.players) and (name := f.players[s]) is not None
    }

    def add(fig: str, g: int, t: int, x: float) -> None:
        acc.add(fig, who[g], who[t], x, r.game_id, f.deal_no)

    seats = [s for s in f.hands if s in who]
    paid: dict[tuple[int, int], int] = defaultdict(int)
    for writer, on, amount in f.whists:
        paid[writer, on] += amount
    for g in seats:
        for t in seats:
            if g != t and who[g] != who[t]:
                add("whist_flow", g, t, paid[t, g] - paid[g, t])
    decl = f.declarer
    if f.kind != "raspasy" and decl in who:
        if f.kind == "game":
            for seat, choice, forced in f.choices:
                if seat in who and not forced and who[seat] != who[decl]:
                    add("passes_for", seat, decl, float(choice != "whist"))
        if p is not None and f.played:
            defending = {s: sp for s in seats if s != decl and (sp := p.of(s)) and sp.cards}
            for g, sp in defending.items():
                if who[g] != who[decl]:
                    add("fed_tricks", g, decl, sp.cost)
                for t in defending:
                    if t != g and who[t] != who[g]:
                        add("defence_accuracy", g, t, sp.best / sp.cards)
    elif f.kind == "raspasy" and p is not None and p.opening_par:
        below = {
            s: max(0, (p.opening_par[s] or 0) - (p.result[s] or 0))
            for s in seats
            if s < len(p.opening_par) and s < len(p.result)
        }
        for g in seats:
            sp = p.of(g)
            if sp is None or g not in below:
                continue
            others = sum(v for s, v in below.items() if s != g)
            for t in seats:
                if t != g and t in below and who[t] != who[g]:
                    share = below[t] / others if others else 0.0
                    add("allpass_gifts", g, t, sp.cost * share)


def _mean_var(s: _Sum) -> tuple[float, float]:
    if not s.n:
        return 0.0, 0.0
    mean = s.s / s.n
    return mean, max(0.0, s.ss / s.n - mean * mean)


def _figure(acc: _Acc, fig: FigureName, g: str, t: str) -> Figure | None:
    pair = acc.pair.get((fig, g, t))
    if pair is None or not pair.n:
        return None
    pop_mean, pop_var = _mean_var(acc.population[fig])
    total = acc.giver[fig, g]
    n_o, s_o = total.n - pair.n, total.s - pair.s
    baseline = (s_o + PRIOR * pop_mean) / (n_o + PRIOR)
    value = pair.s / pair.n
    se = math.sqrt(pop_var * (1 / pair.n + 1 / (n_o + PRIOR)))
    z = (value - baseline) / se if se > 0 else 0.0
    links = sorted(acc.examples[fig, g, t], reverse=True)
    return Figure(
        name=fig, giver=g, taker=t, deals=pair.n, value=round(value, 4),
        baseline=round(baseline, 4), population=round(pop_mean, 4), z=round(z, 2),
        scored=pair.n >= MIN_DEALS,
        examples=tuple(DealLink(game_id=gid, deal_no=-d, value=round(x, 3)) for x, gid, d in links),
    )  # fmt: skip


def report(deals: Iterable[DealRecord], *, limit: int | None = None) -> Report:
    """The pairs of players ranked by their score (see the module docstring); ``limit``: the
    first pairs only."""
    acc = _Acc()
    games_of: dict[str, set[str]] = defaultdict(set)
    together: dict[tuple[str, str], set[str]] = defaultdict(set)
    deals_together: dict[tuple[str, str], int] = defaultdict(int)
    seats_of_game: dict[str, set[str]] = defaultdict(set)
    n_deals = n_analysed = 0
    for r in deals:
        n_deals += 1
        n_analysed += r.play is not None
        present = sorted({p for s in r.facts.hands if s < len(r.facts.players)
                          if (p := r.facts.players[s]) is not None})  # fmt: skip
        for p in present:
            games_of[p].add(r.game_id)
            seats_of_game[r.game_id].add(p)
        for i, a in enumerate(present):
            for b in present[i + 1 :]:
                together[a, b].add(r.game_id)
                deals_together[a, b] += 1
        _observe(acc, r)
    seat_games = sum(len(v) for v in seats_of_game.values())
    per_game = seat_games / len(seats_of_game) if seats_of_game else 0.0
    pairs: list[PairReport] = []
    for (a, b), games in together.items():
        figures: list[Figure] = []
        ga, gb = len(games_of[a]), len(games_of[b])
        expected = ga * gb * (per_game - 1) / seat_games if seat_games else 0.0
        figures.append(Figure(
            name="co_seating", giver=None, taker=None, deals=len(games), value=len(games),
            baseline=round(expected, 3), population=round(expected, 3),
            z=round((len(games) - expected) / math.sqrt(expected), 2) if expected > 0 else 0.0,
            scored=False,
        ))  # fmt: skip
        for fig in SCORED:
            for g, t in ((a, b), (b, a)):
                found = _figure(acc, fig, g, t)
                if found is not None:
                    figures.append(found)
        scored = [f for f in figures if f.scored]
        top = max(scored, key=lambda f: f.z, default=None)
        score = max(top.z, 0.0) if top else 0.0
        pairs.append(PairReport(
            players=(a, b), games=len(games), deals=deals_together[a, b], score=score,
            flagged=score >= FLAG_Z, top=top.name if top and score > 0 else None,
            figures=tuple(sorted(figures, key=lambda f: -f.z)),
        ))  # fmt: skip
    pairs.sort(key=lambda p: (-p.score, p.players))
    return Report(
        games=len(seats_of_game), deals=n_deals, analysed=n_analysed, players=len(games_of),
        flag_z=FLAG_Z, pairs=tuple(pairs[:limit] if limit is not None else pairs),
    )  # fmt: skip


def pairs_of(report: Report, player: str) -> list[PairReport]:
    """The pairs a player belongs to."""
    return [p for p in report.pairs if player in p.players]
