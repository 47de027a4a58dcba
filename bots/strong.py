"""The ``strong`` level: layouts of the unseen cards, weighed by the auction, decided by the
double-dummy solver within a budget of layouts per decision (PIMC, docs/bots.md §3, §6).

- Card play: draw layouts consistent with the play so far (or enumerate them when there are
  few, e.g. the 66 discards a misère catcher faces), solve each one double-dummy for every
  legal card, and play the card with the best expected score, the preset's own scoring turning
  the tricks into whists. The solver's table is shared by all the layouts of a decision.
  All-pass is not two-sided (each player minimises his own tricks): there each card is judged
  by play-outs in which every hand follows the all-pass rules of thumb (`bots.rollout`), which
  beat the double-dummy worst case (the other two against one) in a test on forced all-passes:
  +4.9 ± 1.6 against +1.3 ± 1.4 whists per seat and deal against basic, 60 deals.
- Bidding: evaluate the hand's best strains and misère over layouts of the talon and the other
  hands, each solved double-dummy after a rule-of-thumb discard, and bid while the next step is
  worth more than passing.
- Discard and contract: the same evaluation over layouts of the other hands, for the best few
  discards and every contract the bid allows; concede when that is worth more.
- Whisting: layouts of the declarer's and the partner's hands, solved for the contract, scored
  for each call (the partner's call as the basic bot would make it in that layout).

Every loop is anytime: it stops when the budget is spent, and each solve is bounded by the nodes
left, so a decision overshoots its budget by little. The budget is the caller's (`bots.budget`):
a number of layouts per kind of decision and a count of trick starts (solver nodes and tricks
played out), both the same on any machine, and a wall-clock cap (1.5 s by default, a safety
net), converted into nodes at the solver's measured speed; with no budget for a single layout,
the basic bot's choice stands. The solver is the compiled kernel when it is built (docs/bots.md
§4.10), which is what affords the layout counts.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Literal

from bots import basic
from bots.budget import DEFAULT_SECONDS, Budget, DecisionKind, Layouts, as_budget
from bots.common import OBLIGATION, find_discard, light_bids, of_type
from bots.evaluate import (
    best_strain,
    declarer_tricks,
    defender_tricks,
    miser_danger,
    miser_discard,
    trick_discard,
)
from bots.inference import weight
from bots.knowledge import REST, Knowledge, read
from bots.rollout import play_out
from bots.sampling import World, worlds
from bots.value import deal_results
from bots.view import BotView
from domain.cards import BID_RANK, MISER, PASS, RANK_OF, SUIT_OF, SUITS, Seat, level_of, strain_of
from domain.deal.messages import (
    CallWhist,
    ChoosePlay,
    Concede,
    ContractDeclared,
    Declare,
    DeclareTotus,
    LookAtCards,
    PlayCard,
    PlayStarted,
    SeatCommand,
)
from domain.outcome import DealKind, DealOutcome, DefenderRole, WhistChoice
from domain.solver import Position, SearchAborted, Solution, Solver, position, solve, solver_for
from domain.solver.bits import SUIT_INDEX, mask_of
from domain.solver.search import kernel_by_default
from domain.solver.solve import fits

DEFAULT_BUDGET_S = DEFAULT_SECONDS
MAX_SAMPLES = 400
"""No decision draws more layouts than this, however much time is left."""
MIN_LAYOUTS = 5
"""An auction, discard, contract or whist decision trusts the solver only over at least this
many layouts; with fewer (a short budget) the basic bot's judgement stands."""


def decide(
    view: BotView, rng: random.Random, budget: Budget | float = DEFAULT_BUDGET_S
) -> SeatCommand:
    """A legal action chosen over sampled layouts within ``budget`` (seconds, or a `Budget` of
    solver nodes and seconds)."""
    return decide_with_stats(view, rng, budget)[0]


def decide_with_stats(
    view: BotView,
    rng: random.Random,
    budget: Budget | float = DEFAULT_BUDGET_S,
    *,
    now: Callable[[], float] = time.perf_counter,
) -> tuple[SeatCommand, Clock]:
    """`decide`, with the decision's clock: layouts solved, solver nodes and time, and what
    ended the search. ``now`` is the clock it reads the time from (tests slow it down)."""
    clock = Clock.for_budget(as_budget(budget), now=now)
    return _decide(view, rng, clock), clock


UNLIMITED = 1 << 60
"""The node limit of a solve under layout counts alone: none."""

BUDGET_SHARE = 0.88
"""The share of the seconds the search may use: the rest covers reading the view, sampling and
the overshoot of the last solve. A node budget is the search's alone, all of it."""


def _decide(view: BotView, rng: random.Random, clock: Clock) -> SeatCommand:
    legal = view.legal
    if len(legal) == 1:
        return legal[0]
    looks = of_type(legal, LookAtCards)
    if looks:
        return looks[0]
    k = read(view)
    plays = of_type(legal, PlayCard)
    if plays:
        return play(k, plays, rng, clock)
    phase = k.deal.phase
    if phase == "bidding":
        clock.judging("bid")
        return bid(k, legal, rng, clock)
    if phase == "discarding":
        clock.judging("discard")
        return discard(k, legal, rng, clock)
    if phase == "declaring":
        clock.judging("declare")
        return declare(k, legal, rng, clock)
    if phase == "whisting":
        clock.judging("whist")
        return whist(k, legal, rng, clock)
    return basic.decide(view, rng)


# ---- the budget and the solver's share of it -------------------------------------------------


def _first_rate() -> float:
    """Trick starts a second a solve is first assumed to manage: the compiled search's or the
    pure one's (measured on the machine of docs/bots.md §9.2, with some margin)."""
    return 1_000_000.0 if kernel_by_default() else 20_000.0


@dataclass
class Clock:
    """A decision's meter: its limits (``budget_s`` seconds of search, ``node_budget`` trick
    starts, ``layouts`` per decision kind), what the search has spent, and the solver's speed
    seen so far (trick starts per second), which turns the seconds left into a node limit for
    each solve."""

    budget_s: float | None
    node_budget: int | None = None
    now: Callable[[], float] = time.perf_counter
    layouts: Layouts | None = None
    start: float = field(init=False)
    rate: float = field(default_factory=_first_rate)
    kind: DecisionKind | None = None
    """The decision being judged (`judging`): it sets the layout count."""
    layout_budget: int | None = None
    """Layouts this decision judges at most (None: no layout limit)."""
    nodes: int = 0
    """Trick starts expanded: solver nodes and tricks played out."""
    spent: float = 0.0
    samples: int = 0
    """Layouts solved."""
    exhaustive: bool = False
    """Whether the layouts were every possible one (else a random sample)."""
    stopped_by: Literal["layouts", "nodes", "seconds"] | None = None
    """Which limit ended the search (None: there were no more layouts to judge). Only a
    decision not ended by ``seconds`` is reproducible from its random generator."""

    def __post_init__(self) -> None:
        self.start = self.now()

    @classmethod
    def for_budget(cls, budget: Budget, now: Callable[[], float] = time.perf_counter) -> Clock:
        seconds = None if budget.seconds is None else budget.seconds * BUDGET_SHARE
        return cls(seconds, budget.nodes, now, budget.layouts)

    def judging(self, kind: DecisionKind) -> None:
        """The decision is of ``kind``: its layout count applies."""
        self.kind = kind
        self.layout_budget = None if self.layouts is None else self.layouts.of(kind)

    def left(self) -> float:
        """Seconds left to search (infinite without a wall-clock cap)."""
        if self.budget_s is None:
            return math.inf
        return self.budget_s - (self.now() - self.start)

    def nodes_left(self) -> int | None:
        """Trick starts left (None: no node budget)."""
        return None if self.node_budget is None else self.node_budget - self.nodes

    def out(self) -> bool:
        """Whether a limit is reached: no further layout is taken."""
        nodes = self.nodes_left()
        if self.layout_budget is not None and self.samples >= self.layout_budget:
            self.stopped_by = "layouts"
        elif nodes is not None and nodes <= 0:
            self.stopped_by = "nodes"
        elif self.left() <= 0:
            self.stopped_by = "seconds"
        return self.stopped_by is not None

    def played_out(self, tricks: int) -> None:
        """A play-out of ``tricks`` tricks was run: as many trick starts spent."""
        self.nodes += tricks

    def _limit(self) -> int | None:
        """The node limit of the next solve: the node budget left, capped by what the time
        left is worth at the measured speed (at least 200 nodes); None when nothing is left."""
        if self.out():
            return None
        limits = []
        nodes = self.nodes_left()
        if nodes is not None:
            limits.append(nodes)
        if self.budget_s is not None:
            limits.append(max(200, int(self.left() * self.rate)))
        return min(limits) if limits else UNLIMITED

    def solve(
        self, pos: Position, solver: Solver, *, values: bool, guess: int | None = None
    ) -> Solution | None:
        """`domain.solver.solve` bounded by the budget left; None when it ran out."""
        limit = self._limit()
        if limit is None:
            return None
        solver.limit_nodes(limit)
        before = solver.nodes
        t0 = self.now()
        try:
            return solve(pos, solver=solver, values=values, guess=guess)
        except SearchAborted:
            nodes = self.nodes_left()
            within = nodes is not None and solver.nodes - before >= nodes
            self.stopped_by = "nodes" if within else "seconds"
            return None
        finally:
            solver.limit_nodes(None)
            dt = self.now() - t0
            self.nodes += solver.nodes - before
            self.spent += dt
            if self.spent > 0.02 and self.nodes > 100:
                self.rate = self.nodes / self.spent


class Solvers:
    """One solver per kind of position in a decision, so layouts share their tables."""

    def __init__(self) -> None:
        self._by_key: dict[tuple[object, ...], Solver] = {}

    def for_(self, pos: Position) -> Solver:
        key = (pos.trump, pos.mode, pos.order.index(pos.focus), pos.talon_leads)
        s = self._by_key.get(key)
        if s is None or not fits(s, pos):
            s = solver_for(pos)
            self._by_key[key] = s
        return s


def weighted_worlds(k: Knowledge, rng: random.Random) -> tuple[bool, Iterator[tuple[World, float]]]:
    """Layouts with their weights; sampled ones are accepted in proportion to their weight (so
    plausible layouts get the solver's time), enumerated ones are all kept, weighted."""
    exhaustive, stream = worlds(k, rng)
    if exhaustive:
        return True, ((w, weight(k, w)) for w in stream)

    def accepted() -> Iterator[tuple[World, float]]:
        tries = 0
        for w in stream:
            tries += 1
            if rng.random() <= weight(k, w) or tries >= 30:
                tries = 0
                yield w, 1.0

    return False, accepted()


# ---- outcomes and their worth ----------------------------------------------------------------


def _dark_passers(k: Knowledge) -> tuple[Seat, ...]:
    return tuple(c.seat for c in k.deal.auction if c.call == PASS and c.dark)


def _flags(k: Knowledge) -> tuple[bool, bool]:
    """(checked, totus) of the contract in play."""
    checked = any(isinstance(e, PlayStarted) and e.checked for e in k.events)
    totus = any(isinstance(e, ContractDeclared) and e.totus for e in k.events)
    return checked, totus


def _outcome(
    k: Knowledge,
    kind: DealKind,
    tricks: dict[Seat, int],
    *,
    declarer: Seat | None,
    contract: str | None,
    defenders: tuple[DefenderRole, ...] = (),
    played: bool = True,
    open_play: bool = False,
    checked: bool = False,
    totus: bool = False,
    conceded: int = 0,
) -> DealOutcome:
    seats = k.rules.players
    dark_passers = _dark_passers(k)
    return DealOutcome(
        kind=kind, dealer=k.deal.dealer or 0, seats=seats, hands=k.order,
        tricks=tuple(tricks.get(s, 0) for s in range(seats)), declarer=declarer,
        contract=contract, defenders=defenders, played=played, open_play=open_play,
        checked=checked, conceded=conceded, dark=k.deal.dark,
        raspasy_factor=2 ** len(dark_passers) if kind == "raspasy" else 1,
        dark_passers=dark_passers, totus=totus,
    )  # fmt: skip


def _split(total: int, seats: list[Seat], already: dict[Seat, int]) -> dict[Seat, int]:
    """``total`` tricks among ``seats``: what each has, and the rest shared out evenly."""
    out = {s: already.get(s, 0) for s in seats}
    rest = max(0, total - sum(out.values()))
    i = 0
    while rest > 0 and seats:
        out[seats[i % len(seats)]] += 1
        rest -= 1
        i += 1
    return out


def play_utilities(k: Knowledge, mover: Seat) -> list[float]:
    """The mover's side's worth of each final trick count of the focus seat (0 … 10)."""
    kind = basic.kind_of(k)
    deal = k.deal
    out: list[float] = []
    if kind == "raspasy":
        others = [s for s in k.order if s != mover]
        for t in range(11):
            tricks = {mover: t, **_split(10 - t, others, k.tricks)}
            res = deal_results(
                _outcome(k, "raspasy", tricks, declarer=None, contract=None), k.rules
            )
            out.append(float(res[mover]))
        return out
    declarer = deal.declarer
    assert declarer is not None
    defenders = [s for s in k.order if s != declarer]
    checked, totus = _flags(k)
    for t in range(11):
        tricks = {declarer: t, **_split(10 - t, defenders, k.tricks)}
        o = _outcome(
            k, "miser" if kind == "miser" else "game", tricks, declarer=declarer,
            contract=deal.contract, defenders=deal.defenders, open_play=deal.open_play,
            checked=checked, totus=totus,
        )  # fmt: skip
        res = deal_results(o, k.rules)
        if mover == declarer:
            out.append(float(res[declarer]))
        else:
            out.append(float(sum(res[s] for s in defenders)))
    return out


# ---- card play -------------------------------------------------------------------------------


def _position(k: Knowledge, world: World, mode: str, focus: Seat) -> Position:
    hands = {s: k.hands[s] if s in k.hands else world.get(s, ()) for s in k.order}
    talon: tuple[str, ...] = ()
    if mode == "paranoid" and k.rules.raspasy.use_talon:
        talon = (*k.turned, *world.get(REST, ()))[:2]
    turn = k.turn if k.turn is not None else k.seat
    return position(
        hands, order=k.order, turn=turn, focus=focus, mode=mode,  # type: ignore[arg-type]
        trump=k.deal.trump, trick=k.trick, tricks_played=k.tricks_played, talon=talon,
        seats=k.rules.players,
    )  # fmt: skip


def play(k: Knowledge, plays: list[PlayCard], rng: random.Random, clock: Clock) -> SeatCommand:
    cards = [p.card for p in plays]
    fallback = basic.play(k, plays)
    if len(cards) == 1:
        return plays[0]
    if k.seat not in k.order:
        return fallback  # the whisting dealer at four plays an opponent's hand by rule of thumb
    kind = basic.kind_of(k)
    mover = k.turn if k.turn is not None else k.seat
    if kind == "raspasy":
        mode, focus = "paranoid", mover
    else:
        assert k.deal.declarer is not None
        mode, focus = ("misere" if kind == "miser" else "contract"), k.deal.declarer
    util = play_utilities(k, mover)
    done = k.tricks.get(focus, 0)
    clock.judging("all_pass" if kind == "raspasy" and ALL_PASS_PLAY == "play_out" else "play")
    if kind == "raspasy" and ALL_PASS_PLAY == "play_out":
        return _play_all_pass(k, plays, cards, util, done, rng, clock, fallback)
    totals = dict.fromkeys(cards, 0.0)
    wsum = 0.0
    solvers = Solvers()
    clock.exhaustive, layouts = weighted_worlds(k, rng)
    for n, (world, w) in enumerate(layouts):
        if n >= MAX_SAMPLES or (n and clock.out()):
            break
        pos = _position(k, world, mode, focus)
        solution = clock.solve(pos, solvers.for_(pos), values=True)
        if solution is None:
            break
        for c in cards:
            totals[c] += w * util[done + solution.values[c]]
        wsum += w
        clock.samples += 1
    return _best_play(totals, wsum, cards, plays, fallback, spend=min)


def _best_play(
    totals: dict[str, float],
    wsum: float,
    cards: list[str],
    plays: list[PlayCard],
    fallback: SeatCommand,
    *,
    spend: Callable[..., str],
) -> SeatCommand:
    """The card of the best weighted total over the layouts; among equals the fallback's, else
    the one ``spend`` picks by rank (``min`` in contract play, ``max`` in an all-pass). The
    fallback if no layout was judged."""
    if wsum == 0:
        return fallback
    best = max(totals.values())
    tied = [c for c in cards if totals[c] >= best - 1e-9 * max(1.0, abs(best))]
    if isinstance(fallback, PlayCard) and fallback.card in tied:
        return fallback
    pick = spend(tied, key=lambda c: RANK_OF[c])
    return next(p for p in plays if p.card == pick)


ALL_PASS_PLAY = "play_out"
"""How the strong bot judges an all-pass card: ``play_out`` (every hand then plays the all-pass
rules of thumb, `bots.rollout`) or ``paranoid`` (double-dummy, the other two against it)."""


def _play_all_pass(
    k: Knowledge,
    plays: list[PlayCard],
    cards: list[str],
    util: list[float],
    done: int,
    rng: random.Random,
    clock: Clock,
    fallback: SeatCommand,
) -> SeatCommand:
    """An all-pass card by play-outs over sampled layouts: the lowest expected cost."""
    mover = k.turn if k.turn is not None else k.seat
    order = k.order
    slot = order.index(mover)
    trick = [(order.index(s), mask_of((c,))) for s, c in k.trick]
    leader = order.index(k.trick[0][0]) if k.trick else slot
    talon_leads: tuple[int, ...] = ()
    forced = 0
    if k.rules.raspasy.use_talon:
        forced = 3
    totals = dict.fromkeys(cards, 0.0)
    wsum = 0.0
    clock.exhaustive, layouts = weighted_worlds(k, rng)
    for n, (world, w) in enumerate(layouts):
        if n >= MAX_SAMPLES * 4 or (n and clock.out()):
            break
        hands = [mask_of(k.hands[s] if s in k.hands else world.get(s, ())) for s in order]
        if k.rules.raspasy.use_talon:
            talon = (*k.turned, *world.get(REST, ()))[:2]
            talon_leads = tuple(SUIT_INDEX[SUIT_OF[c]] for c in talon)
        for c in cards:
            bit = mask_of((c,))
            hs = list(hands)
            hs[slot] ^= bit
            taken = play_out(hs, leader, [*trick, (slot, bit)], k.tricks_played, talon_leads,
                             forced)  # fmt: skip
            totals[c] += w * util[min(10, done + taken[slot])]
            clock.played_out(sum(taken))
        wsum += w
        clock.samples += 1
    return _best_play(totals, wsum, cards, plays, fallback, spend=max)


# ---- evaluating contracts over layouts -------------------------------------------------------


class _Results:
    """The declarer's worth of each (contract, tricks) in one decision, each computed once."""

    def __init__(self, k: Knowledge, declarer: Seat) -> None:
        self.k = k
        self.declarer = declarer
        self.memo: dict[tuple[str, int], float] = {}

    def __call__(self, contract: str, tricks: int) -> float:
        key = (contract, tricks)
        got = self.memo.get(key)
        if got is None:
            got = self.memo[key] = _declarer_result(self.k, self.declarer, contract, tricks)
        return got

    def mean(self, contract: str, tricks: list[int]) -> float:
        return _mean([self(contract, t) for t in tricks])


def _declarer_result(k: Knowledge, declarer: Seat, contract: str, tricks: int) -> float:
    """The declarer's worth of ``tricks`` in ``contract``, defended by one whister (closed)."""
    first = k.order[(k.order.index(declarer) + 1) % 3]
    second = k.order[(k.order.index(declarer) + 2) % 3]
    if contract == MISER:
        o = _outcome(
            k, "miser", {declarer: tricks, first: 10 - tricks}, declarer=declarer,
            contract=MISER,
            defenders=(DefenderRole(seat=first, choice="pass"),
                       DefenderRole(seat=second, choice="pass")),
        )  # fmt: skip
    else:
        roles = (
            DefenderRole(seat=first, choice="whist", whist_rank=1),
            DefenderRole(seat=second, choice="pass"),
        )
        ten = level_of(contract) == 10 and k.rules.whist.ten_is_checked
        o = _outcome(
            k, "game", {declarer: tricks, first: 10 - tricks}, declarer=declarer,
            contract=contract, defenders=roles, checked=ten,
        )  # fmt: skip
    return float(deal_results(o, k.rules)[declarer])


class _Tally:
    """DD trick counts per option (a strain or misère, with a discard) over the layouts."""

    def __init__(self) -> None:
        self.tricks: dict[tuple[str, tuple[str, ...]], list[int]] = {}

    def add(self, key: tuple[str, tuple[str, ...]], t: int) -> None:
        self.tricks.setdefault(key, []).append(t)


def _deal_position(
    k: Knowledge, me: Seat, mine: tuple[str, ...], world: World, strain: str
) -> Position:
    hands = {s: mine if s == me else world[s] for s in k.order}
    if strain == MISER:
        return position(hands, order=k.order, turn=k.order[0], focus=me, mode="misere",
                        seats=k.rules.players)  # fmt: skip
    trump = None if strain == "NT" else strain
    return position(
        hands, order=k.order, turn=k.order[0], focus=me, trump=trump, seats=k.rules.players
    )


def _evaluate(
    k: Knowledge,
    rng: random.Random,
    clock: Clock,
    options: Callable[[World], list[tuple[str, tuple[str, ...], tuple[str, ...]]]],
    min_layouts: int = 1,
) -> _Tally:
    """For each layout, each option (strain, discard, the ten cards kept) solved from the
    opening lead; stops at the budget."""
    tally = _Tally()
    solvers = Solvers()
    me = k.seat
    clock.exhaustive, layouts = weighted_worlds(k, rng)
    for n, (world, _w) in enumerate(layouts):
        if n >= MAX_SAMPLES or (n >= min_layouts and clock.out()):
            break
        results: list[tuple[tuple[str, tuple[str, ...]], int]] = []
        for strain, dropped, kept in options(world):
            pos = _deal_position(k, me, kept, world, strain)
            guess = (
                0
                if strain == MISER
                else min(10, round(declarer_tricks(kept, None if strain == "NT" else strain) + 1.5))
            )
            solution = clock.solve(pos, solvers.for_(pos), values=False, guess=guess)
            if solution is None:
                return tally  # out of time: this layout is left out
            results.append(((strain, dropped), solution.focus_tricks))
        for key, t in results:
            tally.add(key, t)
        clock.samples += 1
    return tally


def _mean(values: list[float]) -> float:
    return sum(values) / len(values) if values else float("-inf")


def _strains_to_try(hand: tuple[str, ...], n: int = 2) -> list[str]:
    """The ``n`` strains the hand looks best in ("NT" for no-trump)."""
    ranked = sorted((declarer_tricks(hand, t), "NT" if t is None else t) for t in (*SUITS, None))[
        ::-1
    ]
    return [s for _, s in ranked[:n]]


# ---- the auction ---------------------------------------------------------------------------


def bid(
    k: Knowledge, legal: tuple[SeatCommand, ...], rng: random.Random, clock: Clock
) -> SeatCommand:
    fallback = basic.bid(k, legal)
    hand = k.hands.get(k.seat, ())
    bids = light_bids(legal)
    if not bids or len(hand) != 10:
        return fallback
    trick_bids = [b for b in bids if b.bid != MISER]
    miser_bid = next((b for b in bids if b.bid == MISER), None)
    _, est = best_strain(hand)
    lowest = trick_bids[0] if trick_bids else None
    # far from the next step either way: the rules of thumb are enough
    consider_miser = miser_bid is not None and miser_danger(hand) <= 3.0
    if lowest is not None and not consider_miser:
        gap = level_of(lowest.bid) - (est + basic.TALON_BONUS)
        if gap >= 2.0 or gap <= -2.5:
            return fallback
    if lowest is None and not consider_miser:
        return fallback
    strains = _strains_to_try(hand)

    def options(world: World) -> list[tuple[str, tuple[str, ...], tuple[str, ...]]]:
        twelve = (*hand, *world.get(REST, ()))
        out: list[tuple[str, tuple[str, ...], tuple[str, ...]]] = []
        if lowest is not None:
            for s in strains:
                pair = trick_discard(twelve, None if s == "NT" else s)
                out.append((s, pair, tuple(c for c in twelve if c not in pair)))
        if consider_miser:
            pair = miser_discard(twelve)
            out.append((MISER, pair, tuple(c for c in twelve if c not in pair)))
        return out

    tally = _evaluate(k, rng, clock, options)
    if clock.samples < MIN_LAYOUTS:
        return fallback
    worth = _Results(k, k.seat)
    best_value = 0.0
    best_call: SeatCommand | None = None
    if consider_miser and miser_bid is not None:
        ts = next((v for (s, _), v in tally.tricks.items() if s == MISER), [])
        v = worth.mean(MISER, ts)
        if v > best_value:
            best_value, best_call = v, miser_bid
    if lowest is not None:
        # the highest contract worth playing, in any strain tried; bid the step if it is below
        for (s, _), ts in tally.tricks.items():
            if s == MISER:
                continue
            for level in range(6, 11):
                contract = f"{level}{s}"
                if BID_RANK[contract] < BID_RANK[lowest.bid]:
                    continue
                v = worth.mean(contract, ts)
                if v > best_value:
                    best_value, best_call = v, lowest
    if best_call is not None:
        return best_call
    return _pass_or(fallback, legal) if fallback in bids else fallback


def _pass_or(fallback: SeatCommand, legal: tuple[SeatCommand, ...]) -> SeatCommand:
    """The DD evaluation found no contract worth bidding: pass in the light if we may."""
    for a in legal:
        if type(a).__name__ == "Pass" and not getattr(a, "dark", False):
            return a
    return fallback


# ---- discard and contract ------------------------------------------------------------------


def discard(
    k: Knowledge,
    legal: tuple[SeatCommand, ...],
    rng: random.Random,
    clock: Clock,
    candidates: list[tuple[str, tuple[str, ...]]] | None = None,
) -> SeatCommand:
    """The discard of the best mean worth over layouts among ``candidates`` (strain, pair): by
    default the rule-of-thumb best pairs (the expert level passes the learned model's)."""
    fallback = basic.discard(k, legal)
    if isinstance(fallback, DeclareTotus):
        return fallback
    hand = k.hands.get(k.seat, ())
    if len(hand) != 12:
        return fallback
    minimum = k.deal.bid
    if candidates is not None:
        pass
    elif minimum == MISER:
        pairs = _miser_pairs(hand, 5)
        candidates = [(MISER, p) for p in pairs]
    else:
        candidates = []
        for i, s in enumerate(_strains_to_try(hand)):
            for p in _trick_pairs(hand, None if s == "NT" else s, 3 if i == 0 else 1):
                candidates.append((s, p))

    def options(world: World) -> list[tuple[str, tuple[str, ...], tuple[str, ...]]]:
        return [(s, p, tuple(c for c in hand if c not in p)) for s, p in candidates]

    tally = _evaluate(k, rng, clock, options)
    if clock.samples < MIN_LAYOUTS:
        return fallback
    worth = _Results(k, k.seat)
    floor = BID_RANK[minimum] if minimum is not None else BID_RANK[f"{max(6, k.deal.min_level)}S"]
    best: tuple[float, tuple[str, ...]] | None = None
    for (s, pair), ts in tally.tricks.items():
        if s == MISER:
            v = worth.mean(MISER, ts)
        else:
            v = (
                max(
                    worth.mean(f"{lvl}{s}", ts)
                    for lvl in range(6, 11)
                    if BID_RANK[f"{lvl}{s}"] >= floor
                )
                if any(BID_RANK[f"{lvl}{s}"] >= floor for lvl in range(6, 11))
                else float("-inf")
            )
        if best is None or v > best[0]:
            best = (v, pair)
    if best is None:
        return fallback
    a, b = best[1]
    return find_discard(legal, (a, b)) or fallback


def _trick_pairs(hand: tuple[str, ...], trump: str | None, n: int) -> list[tuple[str, str]]:
    scored = []
    for i, a in enumerate(hand):
        for b in hand[i + 1 :]:
            rest = [c for c in hand if c != a and c != b]
            scored.append((-declarer_tricks(rest, trump), RANK_OF[a] + RANK_OF[b], (a, b)))
    scored.sort()
    return [p for _, _, p in scored[:n]]


def _miser_pairs(hand: tuple[str, ...], n: int) -> list[tuple[str, str]]:
    scored = []
    for i, a in enumerate(hand):
        for b in hand[i + 1 :]:
            rest = [c for c in hand if c != a and c != b]
            scored.append((miser_danger(rest), -(RANK_OF[a] + RANK_OF[b]), (a, b)))
    scored.sort()
    return [p for _, _, p in scored[:n]]


def declare(
    k: Knowledge, legal: tuple[SeatCommand, ...], rng: random.Random, clock: Clock
) -> SeatCommand:
    fallback = basic.declare(k, legal)
    hand = k.hands.get(k.seat, ())
    declares = [d for d in of_type(legal, Declare) if d.contract != MISER]
    if len(hand) != 10 or not declares:
        return fallback
    strains = list(
        dict.fromkeys(
            [*_strains_to_try(hand, 2), *((strain_of(d.contract) or "NT") for d in declares[:1])]
        )
    )
    allowed = {d.contract for d in declares}

    def options(world: World) -> list[tuple[str, tuple[str, ...], tuple[str, ...]]]:
        return [
            (s, (), hand) for s in strains if any(f"{lvl}{s}" in allowed for lvl in range(6, 11))
        ]

    tally = _evaluate(k, rng, clock, options)
    if clock.samples < MIN_LAYOUTS:
        return fallback
    worth = _Results(k, k.seat)
    best: tuple[float, SeatCommand] | None = None
    for (s, _), ts in tally.tricks.items():
        for d in declares:
            if (strain_of(d.contract) or "NT") != s:
                continue
            v = worth.mean(d.contract, ts)
            if best is None or v > best[0]:
                best = (v, d)
    concede = of_type(legal, Concede)
    if concede and best is not None:
        down = 2 if k.rules.play.concede == "down2" else 3
        contract = declares[0].contract
        first = k.order[(k.order.index(k.seat) + 1) % 3]
        second = k.order[(k.order.index(k.seat) + 2) % 3]
        o = _outcome(
            k, "game", {k.seat: level_of(contract) - down}, declarer=k.seat, contract=contract,
            defenders=(DefenderRole(seat=first, choice="pass"),
                       DefenderRole(seat=second, choice="pass")),
            played=False, conceded=down,
        )  # fmt: skip
        if float(deal_results(o, k.rules)[k.seat]) > best[0]:
            return concede[0]
    return best[1] if best is not None else fallback


# ---- whisting -------------------------------------------------------------------------------


def whist(
    k: Knowledge, legal: tuple[SeatCommand, ...], rng: random.Random, clock: Clock
) -> SeatCommand:
    fallback = basic.whist(k, legal)
    calls = of_type(legal, CallWhist)
    if of_type(legal, ChoosePlay) or not calls:
        return fallback
    contract = k.deal.contract
    declarer = k.deal.declarer
    if contract is None or contract == MISER or declarer is None or k.seat not in k.order:
        return fallback  # the dealer at four, asked last, whists by the rules of thumb
    me = k.seat
    partner = next(s for s in k.order if s not in (me, declarer))
    s = strain_of(contract) or "NT"
    trump = None if s == "NT" else s
    level = level_of(contract)
    spoken = {c.seat: c.call for c in k.deal.whist_calls}
    choices: list[WhistChoice] = [c.choice for c in calls]
    totals = dict.fromkeys(choices, 0.0)
    count = 0
    solvers = Solvers()
    clock.exhaustive, layouts = weighted_worlds(k, rng)
    for n, (world, _w) in enumerate(layouts):
        if n >= MAX_SAMPLES or (n and clock.out()):
            break
        hands = {x: k.hands[x] if x in k.hands else world[x] for x in k.order}
        pos = position(hands, order=k.order, turn=k.order[0], focus=declarer, trump=trump,
                       seats=k.rules.players)  # fmt: skip
        solution = clock.solve(pos, solvers.for_(pos), values=False,
                               guess=min(10, level))  # fmt: skip
        if solution is None:
            break
        t = solution.focus_tricks
        p_call = spoken.get(partner)
        if p_call is None:
            p_mine = defender_tricks(hands[partner], trump)
            p_call = "whist" if p_mine >= OBLIGATION.get(level, 1) / 2 else "pass"
        for choice in choices:
            totals[choice] += _whist_value(k, me, partner, declarer, contract, t, choice, p_call,
                                           hands)  # fmt: skip
        count += 1
        clock.samples += 1
    if count < MIN_LAYOUTS:
        return fallback
    pick = max(choices, key=lambda c: (totals[c], c == "pass"))
    return next(c for c in calls if c.choice == pick)


def _whist_value(
    k: Knowledge,
    me: Seat,
    partner: Seat,
    declarer: Seat,
    contract: str,
    tricks: int,
    mine: WhistChoice,
    partner_call: str,
    hands: dict[Seat, tuple[str, ...]],
) -> float:
    """My worth of the deal if I call ``mine`` and the partner ends as ``partner_call``."""
    first = k.order[(k.order.index(declarer) + 1) % 3]
    p_role: WhistChoice = "whist" if partner_call == "whist" else "pass"
    if mine == "half_whist":
        roles = {me: DefenderRole(seat=me, choice="half_whist"),
                 partner: DefenderRole(seat=partner, choice="pass")}  # fmt: skip
        played = False
    elif mine == "whist" or p_role == "whist":
        whisters = [s for s, c in ((me, mine), (partner, p_role)) if c == "whist"]
        order_ = sorted(whisters, key=lambda s: 0 if s == first else 1)
        roles = {
            x: DefenderRole(seat=x, choice=c, whist_rank=order_.index(x) + 1 if x in order_ else 0)
            for x, c in ((me, mine), (partner, p_role))
        }
        played = True
    else:
        roles = {me: DefenderRole(seat=me, choice="pass"),
                 partner: DefenderRole(seat=partner, choice="pass")}  # fmt: skip
        played = False
    defenders = tuple(roles[s] for s in k.order if s != declarer)
    d = 10 - tricks
    mine_t = defender_tricks(hands[me], None)
    other_t = defender_tricks(hands[partner], None)
    share = round(d * (mine_t + 0.5) / (mine_t + other_t + 1.0))
    tr = {declarer: tricks, me: share, partner: d - share} if played else {}
    o = _outcome(k, "game", tr, declarer=declarer, contract=contract, defenders=defenders,
                 played=played)  # fmt: skip
    return float(deal_results(o, k.rules)[me])


__all__ = ["DEFAULT_BUDGET_S", "Budget", "Clock", "decide", "decide_with_stats"]
