"""The ``expert`` level: the strong bot's card play at twice its layouts, with the auction and the
discard judged by the learned declarer model (`bots.learned`, docs/bots.md §11).

- Auction: for layouts of the talon drawn from the seat's knowledge (weighed by the auction,
  `bots.strong.weighted_worlds`), every discard of the twelve cards in every strain and misère
  is scored by the declarer model's trick distribution turned into whists by the preset's
  scoring; a contract's worth is the mean over the talons of the best discard's best contract
  at or above it. The bot bids the next step while some contract there is worth more than
  passing (`PASS_WORTH`), misère when that is worth more still.
- Discard: all 66 pairs in every strain scored by the model; the best few, and the rule of
  thumb's best, are then solved double-dummy over layouts of the other hands, as the strong bot
  solves its own candidates (`bots.strong.discard`).
- Whisting, the contract, open or closed play and everything else: the strong bot's (its
  layouts solved double-dummy whist better than the learned whist model: docs/bots.md §11.3).

Deterministic given the view, the random generator and the budget, like the strong bot; it sees
only the seat's view.
"""

from __future__ import annotations

import dataclasses
import random
import time
from collections.abc import Callable
from itertools import combinations

import numpy as np

from bots import basic, strong
from bots.budget import Budget, as_budget
from bots.common import light_bids, of_type
from bots.evaluate import trick_discard
from bots.knowledge import REST, Knowledge, read
from bots.learned import (
    STRAIN_INDEX,
    TRICKS,
    declarer_features,
    evaluators,
)
from bots.strong import Clock, _Results, weighted_worlds
from bots.view import BotView
from domain.cards import BID_RANK, MISER, STRAINS
from domain.deal.messages import (
    DeclareTotus,
    LookAtCards,
    PlayCard,
    SeatCommand,
)
from domain.solver.bits import CARD_INDEX

PLAY_FACTOR = 2
"""Card play judges this many times the budget's layouts (contract, misère and all-pass)."""
TALONS = 24
"""Talon layouts an auction decision scores (each: 66 discards × 6 strains through the model)."""
DISCARD_CANDIDATES = 4
"""Discards the model proposes for the double-dummy check, beside the rule of thumb's best."""
PASS_WORTH = -7.0
"""What passing in the auction is taken to be worth to the seat, in whists per deal: a contract
is bid for when it is worth more than that (the strong bot compares with zero). A seat that
does not declare defends or plays the all-pass, about −2 to −4 per deal for the expert under
Sochi (docs/bots.md §11.4); set lower still, the expert bids more, and against the strong level
−7 gained +0.79 ± 0.73 per deal over −4 (260 deals, paired), while −10 lost −1.04 ± 1.30 per
deal against −7 (130 deals, paired; docs/bots.md §11.3)."""


def decide(
    view: BotView, rng: random.Random, budget: Budget | float = strong.DEFAULT_BUDGET_S
) -> SeatCommand:
    """A legal action: learned auction, discard and whisting, strong card play."""
    return decide_with_stats(view, rng, budget)[0]


def decide_with_stats(
    view: BotView,
    rng: random.Random,
    budget: Budget | float = strong.DEFAULT_BUDGET_S,
    *,
    now: Callable[[], float] = time.perf_counter,
) -> tuple[SeatCommand, Clock]:
    b = as_budget(budget)
    if b.layouts is not None:
        layouts = dataclasses.replace(
            b.layouts, play=b.layouts.play * PLAY_FACTOR, all_pass=b.layouts.all_pass * PLAY_FACTOR
        )
        b = dataclasses.replace(b, layouts=layouts)
    clock = Clock.for_budget(b, now=now)
    return _decide(view, rng, clock), clock


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
        return strong.play(k, plays, rng, clock)
    phase = k.deal.phase
    if phase == "bidding":
        clock.judging("bid")
        return bid(k, legal, rng, clock)
    if phase == "discarding":
        clock.judging("discard")
        return discard(k, legal, rng, clock)
    if phase == "declaring":
        clock.judging("declare")
        return strong.declare(k, legal, rng, clock)
    if phase == "whisting":
        # The strong bot's double-dummy whisting: the learned whist model's, which sees one
        # defender's hand and not the layouts, lost +1.11 ± 0.79 a deal to it (docs/bots.md §11.3)
        clock.judging("whist")
        return strong.whist(k, legal, rng, clock)
    return basic.decide(view, rng)


# ---- the declarer model over many discards ------------------------------------------------

_PAIRS = list(combinations(range(12), 2))
_STRAINS = (*STRAINS, MISER)
_CONTRACTS: dict[str, list[str]] = {s: [f"{lvl}{s}" for lvl in range(6, 11)] for s in STRAINS}


_WORTH: dict[tuple[object, ...], dict[str, np.ndarray]] = {}
"""Worth tables already computed in this process, by what they depend on (a pure cache)."""


def _worth_table(k: Knowledge) -> dict[str, np.ndarray]:
    """The declarer's worth in whists of each trick count 0 … 10, per contract (and misère),
    for the seat as declarer: it depends on the rules, the seats and the dark calls only."""
    key = (k.rules, k.deal.dealer, k.order, k.seat, k.deal.dark, strong._dark_passers(k))
    got = _WORTH.get(key)
    if got is not None:
        return got
    res = _Results(k, k.seat)
    out = {
        c: np.array([res(c, t) for t in range(TRICKS)]) for cs in _CONTRACTS.values() for c in cs
    }
    out[MISER] = np.array([res(MISER, t) for t in range(TRICKS)])
    if len(_WORTH) >= 256:
        _WORTH.clear()
    _WORTH[key] = out
    return out


def _distributions(k: Knowledge, twelves: list[tuple[str, ...]]) -> np.ndarray:
    """P(tricks) for each twelve-card hand × discard pair × strain (`_STRAINS`):
    shape (hands, 66, 6, 11)."""
    masks: list[int] = []
    for twelve in twelves:
        bits = [1 << CARD_INDEX[c] for c in twelve]
        full = sum(bits)
        masks.extend(full ^ bits[a] ^ bits[b] for a, b in _PAIRS)
    m = np.repeat(np.array(masks, dtype=np.int64), len(_STRAINS))
    st = np.tile(np.array([STRAIN_INDEX[s] for s in _STRAINS], dtype=np.int64), len(masks))
    slot = np.full(m.shape[0], k.order.index(k.seat), dtype=np.int64)
    p = evaluators().declarer.predict(declarer_features(m, st, slot))
    return p.reshape(len(twelves), len(_PAIRS), len(_STRAINS), TRICKS)


def _contract_values(
    p: np.ndarray, worth: dict[str, np.ndarray], floor: int
) -> tuple[np.ndarray, np.ndarray]:
    """(best trick-contract worth at or above rank ``floor``, misère worth), each of shape
    (hands, 66): the best strain and level for every discard."""
    best = np.full(p.shape[:2], -np.inf)
    for i, s in enumerate(STRAINS):
        for c in _CONTRACTS[s]:
            if BID_RANK[c] >= floor:
                best = np.maximum(best, p[:, :, i, :] @ worth[c])
    miser = p[:, :, len(STRAINS), :] @ worth[MISER]
    return best, miser


# ---- the auction ---------------------------------------------------------------------------


def bid(
    k: Knowledge, legal: tuple[SeatCommand, ...], rng: random.Random, clock: Clock
) -> SeatCommand:
    fallback = basic.bid(k, legal)
    hand = k.hands.get(k.seat, ())
    bids = [b for b in light_bids(legal) if not b.bid.endswith("WT")]
    if not bids or len(hand) != 10:
        return fallback
    trick_bids = [b for b in bids if b.bid != MISER]
    miser_bid = next((b for b in bids if b.bid == MISER), None)
    lowest = trick_bids[0] if trick_bids else None
    talons: list[tuple[str, ...]] = []
    _, layouts = weighted_worlds(k, rng)
    for world, _w in layouts:
        talon = world.get(REST, ())
        if len(talon) != 2:
            break
        talons.append(tuple(talon))
        if len(talons) >= TALONS:
            break
    if not talons:
        return fallback
    clock.samples = len(talons)
    p = _distributions(k, [(*hand, *t) for t in talons])
    worth = _worth_table(k)
    floor = BID_RANK[lowest.bid] if lowest is not None else len(BID_RANK)
    best, miser = _contract_values(p, worth, floor)
    best_value, best_call = PASS_WORTH, None
    if miser_bid is not None:
        v = float(miser.max(axis=1).mean())
        if v > best_value:
            best_value, best_call = v, miser_bid
    if lowest is not None:
        v = float(best.max(axis=1).mean())
        if v > best_value:
            best_value, best_call = v, lowest
    if best_call is not None:
        return best_call
    return strong._pass_or(fallback, legal) if fallback in light_bids(legal) else fallback


# ---- the discard -------------------------------------------------------------------------


def discard(
    k: Knowledge, legal: tuple[SeatCommand, ...], rng: random.Random, clock: Clock
) -> SeatCommand:
    fallback = basic.discard(k, legal)
    hand = k.hands.get(k.seat, ())
    if isinstance(fallback, DeclareTotus) or len(hand) != 12:
        return fallback
    minimum = k.deal.bid
    p = _distributions(k, [hand])[0]  # (66, 6, 11)
    worth = _worth_table(k)
    candidates: list[tuple[str, tuple[str, ...]]] = []
    if minimum == MISER:
        values = p[:, len(STRAINS), :] @ worth[MISER]
        for j in np.argsort(-values, kind="stable")[: DISCARD_CANDIDATES + 1]:
            a, b = _PAIRS[int(j)]
            candidates.append((MISER, (hand[a], hand[b])))
    else:
        floor = BID_RANK[minimum] if minimum is not None else BID_RANK["6S"]
        scored: list[tuple[float, int, str]] = []
        for i, s in enumerate(STRAINS):
            allowed = [c for c in _CONTRACTS[s] if BID_RANK[c] >= floor]
            if not allowed:
                continue
            v = np.max(np.stack([p[:, i, :] @ worth[c] for c in allowed]), axis=0)
            scored.extend((float(v[j]), j, s) for j in range(len(_PAIRS)))
        scored.sort(key=lambda x: (-x[0], x[1], x[2]))
        seen: set[int] = set()
        for _, j, s in scored:
            if j in seen:
                continue
            seen.add(j)
            a, b = _PAIRS[j]
            candidates.append((s, (hand[a], hand[b])))
            if len(candidates) >= DISCARD_CANDIDATES:
                break
        if candidates:
            s0 = candidates[0][0]
            rule = trick_discard(hand, None if s0 == "NT" else s0)
            if all(set(rule) != set(pair) for _, pair in candidates):
                candidates.append((s0, rule))
    return strong.discard(k, legal, rng, clock, candidates=candidates)


__all__ = ["decide", "decide_with_stats"]
