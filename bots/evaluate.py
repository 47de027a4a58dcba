"""Hand evaluation by rules of thumb (docs/bots.md §3.7): fast, and the basic bot's whole judgement.

Tricks are counted fractionally: an ace is a trick, ace-king two, a guarded king half a trick,
long trumps win late; misère danger counts the cards a catcher can force to win.
"""

from __future__ import annotations

from collections.abc import Iterable

from domain.cards import RANK_OF, SUIT_OF, SUITS

A, K, Q, J = 7, 6, 5, 4


def by_suit(cards: Iterable[str]) -> dict[str, list[int]]:
    """Ranks (7 = 0 … A = 7) per suit, highest first."""
    out: dict[str, list[int]] = {s: [] for s in SUITS}
    for c in cards:
        out[SUIT_OF[c]].append(RANK_OF[c])
    for ranks in out.values():
        ranks.sort(reverse=True)
    return out


def suit_tricks(ranks: list[int], *, trump: bool, out: frozenset[int] = frozenset()) -> float:
    """Tricks a suit is worth to its holder playing it himself. ``out`` lists ranks already
    played (they no longer stop his cards)."""
    if not ranks:
        return 0.0
    alive = [r for r in range(7, -1, -1) if r not in out]  # ranks still in play, high first
    held = set(ranks)
    tricks = 0.0
    # cards on top of the suit are sure tricks
    top = 0
    for r in alive:
        if r in held:
            top += 1
        else:
            break
    tricks += min(top, len(ranks))
    n = len(ranks)
    if top < n:
        lost = [r for r in alive if r not in held]
        # one missing honour: the next card is a half trick if guarded
        rest = ranks[top:]
        if lost and rest and n >= 2:
            gap = alive.index(rest[0])
            if gap == top + 1:  # e.g. K with the A out: a finesse or a second-round trick
                tricks += 0.5 if n - top >= 2 else 0.25
            elif gap == top + 2 and n - top >= 3:  # Qxx
                tricks += 0.25
    if trump:
        tricks += max(0, n - 3) * 0.75 if n > top else 0
    elif n >= 5:
        tricks += (n - 4) * 0.5 if top >= 2 else (n - 4) * 0.25
    return min(float(n), tricks)


def declarer_tricks(cards: Iterable[str], trump: str | None) -> float:
    """Tricks the holder expects to take as declarer with ``trump`` (None: no-trump)."""
    suits = by_suit(cards)
    total = 0.0
    for s, ranks in suits.items():
        total += suit_tricks(ranks, trump=s == trump)
    if trump is not None:
        trumps = len(suits[trump])
        short = sum(1 for s, r in suits.items() if s != trump and len(r) == 0)
        single = sum(1 for s, r in suits.items() if s != trump and len(r) == 1)
        total += min(trumps - 3, short * 1.0 + single * 0.5) if trumps >= 4 else 0
        if trumps <= 2:
            total -= 1.0
    else:
        # no-trump: a suit without a stopper lets the defence run it
        unstopped = sum(1 for s, r in suits.items() if not r or (r[0] < K and len(r) < 3))
        total -= 0.75 * unstopped
    return max(0.0, min(10.0, total))


def best_strain(cards: Iterable[str]) -> tuple[str | None, float]:
    """The trump (None for no-trump) with the most expected tricks, and that many."""
    hand = list(cards)
    options = [(declarer_tricks(hand, t), t) for t in (*SUITS, None)]
    tricks, trump = max(options, key=lambda x: (x[0], x[1] is None, x[1] or ""))
    return trump, tricks


def defender_tricks(cards: Iterable[str], trump: str | None) -> float:
    """Tricks the holder expects to take against a contract in ``trump``."""
    suits = by_suit(cards)
    total = 0.0
    for s, ranks in suits.items():
        if not ranks:
            continue
        if s == trump:
            n = len(ranks)
            total += sum(1.0 for r in ranks[:2] if r >= K and n >= 2)
            total += 0.5 if n >= 4 else 0.0
            continue
        if ranks[0] == A:
            total += 1.0
            if len(ranks) >= 2 and ranks[1] == K:
                total += 0.75
        elif ranks[0] == K and len(ranks) >= 2:
            total += 0.5
    if trump is not None and len(suits[trump]) >= 2:
        total += 0.25 * sum(1 for s, r in suits.items() if s != trump and len(r) <= 1)
    return total


def miser_danger(cards: Iterable[str]) -> float:
    """Tricks a misère hand may be forced to take: in each suit the i-th lowest card is safe
    while it is no higher than the i-th card of a perfect escape (7, 9, J, K); a lone high card
    is a sure trick."""
    danger = 0.0
    for ranks in by_suit(cards).values():
        low = sorted(ranks)
        for i, r in enumerate(low):
            if r > 2 * i:
                danger += 1.0 if r - 2 * i >= 2 else 0.5
    return danger


def miser_discard(cards: Iterable[str]) -> tuple[str, str]:
    """The two cards whose removal leaves the least misère danger."""
    hand = list(cards)
    best: tuple[float, int, tuple[str, str]] | None = None
    for i, a in enumerate(hand):
        for b in hand[i + 1 :]:
            rest = [c for c in hand if c != a and c != b]
            key = (miser_danger(rest), -(RANK_OF[a] + RANK_OF[b]), (a, b))
            if best is None or key < best:
                best = key
    assert best is not None
    return best[2]


def trick_discard(cards: Iterable[str], trump: str | None) -> tuple[str, str]:
    """The two cards whose removal keeps the most expected tricks in ``trump``; among equals,
    the ones that empty a short side suit."""
    hand = list(cards)
    best: tuple[float, int, tuple[str, str]] | None = None
    for i, a in enumerate(hand):
        for b in hand[i + 1 :]:
            rest = [c for c in hand if c != a and c != b]
            key = (-declarer_tricks(rest, trump), RANK_OF[a] + RANK_OF[b], (a, b))
            if best is None or key < best:
                best = key
    assert best is not None
    return best[2]
