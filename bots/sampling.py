"""Layouts of the cards a seat has not seen, consistent with what it knows (docs/bots.md §2.2).

Hard constraints come first: each hidden location (another hand, the talon, a discard) holds a
known number of cards, and a card may only be where `Knowledge.allowed` puts it (a player who
showed out of a suit holds none of it; the shown talon is in the declarer's hand or his
discard). `worlds` then either enumerates every layout, when there are few (a misère catcher or
a single open whister faces C(12, 2) = 66), or draws them at random. Soft evidence (what the
bids and plays imply) is applied by the caller as a weight per layout.
"""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Iterator, Mapping

from bots.knowledge import Knowledge
from domain.cards import Seat

World = dict[Seat, tuple[str, ...]]
"""A layout of the unseen cards: location → cards."""

ENUMERATE_LIMIT = 200
"""Enumerate the layouts instead of sampling when there are at most this many."""


def count_layouts(sizes: Mapping[Seat, int], n: int) -> int:
    """Layouts of ``n`` cards into locations of these sizes, ignoring constraints."""
    total = 1
    left = n
    for size in sizes.values():
        total *= math.comb(left, size)
        left -= size
    return total


def enumerate_worlds(k: Knowledge) -> list[World]:
    """Every layout consistent with the hard constraints (use when `count_layouts` is small)."""
    locs = list(k.hidden)
    cards = list(k.unseen)
    out: list[World] = []

    def place(i: int, left: list[str], acc: World) -> None:
        if i == len(locs) - 1:
            loc = locs[i]
            if all(loc in k.allowed[c] for c in left):
                out.append({**acc, loc: tuple(left)})
            return
        loc = locs[i]
        fits = [c for c in left if loc in k.allowed[c]]
        for combo in itertools.combinations(fits, k.hidden[loc]):
            chosen = set(combo)
            place(i + 1, [c for c in left if c not in chosen], {**acc, loc: combo})

    if not locs:
        return [{}]
    place(0, cards, {})
    return out


def sample_world(k: Knowledge, rng: random.Random, attempts: int = 40) -> World:
    """A random layout consistent with the hard constraints: the most constrained cards are
    placed first, each into an allowed location chosen in proportion to the room left there.
    If the constraints cannot be met in ``attempts`` tries (they can always be met by the true
    layout, so this is bad luck), the voids are dropped rather than fail."""
    locs = list(k.hidden)
    for attempt in range(attempts + 1):
        relax = attempt == attempts
        room = dict(k.hidden)
        out: dict[Seat, list[str]] = {loc: [] for loc in locs}
        cards = list(k.unseen)
        rng.shuffle(cards)
        if not relax:
            cards.sort(key=lambda c: len(k.allowed[c]))
        ok = True
        for c in cards:
            options = [x for x in (locs if relax else k.allowed[c]) if room[x] > 0]
            if not options:
                ok = False
                break
            loc = rng.choices(options, [room[x] for x in options])[0]
            out[loc].append(c)
            room[loc] -= 1
        if ok:
            return {loc: tuple(cards_) for loc, cards_ in out.items()}
    raise AssertionError("unreachable: the relaxed draw always succeeds")


def worlds(
    k: Knowledge, rng: random.Random, limit: int = ENUMERATE_LIMIT
) -> tuple[bool, Iterator[World]]:
    """(exhaustive, layouts): every layout in random order when there are at most ``limit``,
    else an endless stream of random ones."""
    if count_layouts(k.hidden, len(k.unseen)) <= limit:
        every = enumerate_worlds(k)
        if every:
            rng.shuffle(every)
            return True, iter(every)

    def stream() -> Iterator[World]:
        while True:
            yield sample_world(k, rng)

    return False, stream()
