"""Pairing engines (жеребьёвка): who sits with whom in a round. Pure and deterministic: the
randomness is a `Draw` passed in.

- `table_sizes`: a field not divisible by the table size gets tables of the other size (4 with
  the dealer sitting out, or 3) or byes, per the event's rule;
- `random_schedule`: every round made in advance, no two players meeting twice: a randomised
  depth-first search that fills one table at a time, restarting a round with fresh randomness
  when it paints itself into a corner (docs/tournaments.md gives the field sizes it reaches);
- `swiss`: tables by standings, with a penalty for every repeated meeting;
- `cut`: the top of the standings play on;
- `check_pairing`: an arbiter's uploaded pairing, validated.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from itertools import combinations, pairwise
from typing import Literal

import msgspec

from domain.errors import IllegalAction, refuse
from domain.tournament.draw import Draw


class Pairing(msgspec.Struct, frozen=True, kw_only=True):
    """One round's tables (players, not yet seated) and byes."""

    tables: tuple[tuple[str, ...], ...]
    byes: tuple[str, ...] = ()


class NoSchedule(IllegalAction):
    """No schedule without repeats was found within the search budget."""

    code = "illegal.no_schedule"


Pair = frozenset[str]


def pairs_of(table: Iterable[str]) -> list[Pair]:
    """Every pair at a table: at four the dealer sits out each deal in turn, so all four meet."""
    return [frozenset(p) for p in combinations(sorted(table), 2)]


def meetings(rounds: Iterable[Pairing]) -> Counter[Pair]:
    """How often each pair has met."""
    met: Counter[Pair] = Counter()
    for pairing in rounds:
        for table in pairing.tables:
            met.update(pairs_of(table))
    return met


def table_sizes(n: int, size: int, uneven: Literal["mixed", "byes"]) -> tuple[list[int], int]:
    """The table sizes (larger first) and the number of byes for a field of ``n``."""
    if n < 3:
        return [], n
    if uneven == "byes":
        return [size] * (n // size), n % size
    other = 4 if size == 3 else 3
    odd = n % 3 if size == 3 else (-n) % 4  # tables of the other size that absorb the rest
    if n >= other * odd:
        return [4] * (odd if size == 3 else (n - 3 * odd) // 4) + [3] * (
            (n - 4 * odd) // 3 if size == 3 else odd
        ), 0
    return [size] * (n // size), n % size


def _byes(players: Sequence[str], count: int, byes_had: Mapping[str, int], draw: Draw) -> list[str]:
    """Byes go to those with fewest so far; the draw breaks ties (the last in ``players`` when it
    is ranked: swiss passes the draw as None and the field bottom-up)."""
    order = draw.shuffle(players)
    return sorted(order, key=lambda p: byes_had.get(p, 0))[:count]


def _fill(
    players: list[str], sizes: list[int], met: Counter[Pair], draw: Draw, budget: list[int]
) -> list[tuple[str, ...]] | None:
    """Tables of ``sizes`` from ``players`` with no pair in ``met``, depth first."""
    if not sizes:
        return []
    first, rest = players[0], players[1:]
    need = sizes[0] - 1
    candidates = [p for p in rest if frozenset((first, p)) not in met]
    for others in combinations(draw.shuffle(candidates), need):
        budget[0] -= 1
        if budget[0] < 0:
            return None
        if any(frozenset(pair) in met for pair in combinations(others, 2)):
            continue
        table = (first, *others)
        left = [p for p in rest if p not in others]
        tail = _fill(left, sizes[1:], met, draw, budget)
        if tail is not None:
            return [table, *tail]
    return None


def reachable_rounds(n: int, uneven: Literal["mixed", "byes"]) -> int:
    """Rounds without repeats that `random_schedule` finds for ``n`` players at tables of
    three, as measured (docs/tournaments.md has the table): ``n // 3 − 1`` from 12 players
    (from 9 with byes), and 4 for 9. The bound is (n − 1) // 2, reached for 9 (four rounds);
    10 and 11 players with tables of four cannot play two rounds: the four of round 2 needs
    four players from round 1's three tables."""
    if n == 9:
        return 4
    if uneven == "mixed" and n in (10, 11):
        return 1
    return max(1, n // 3 - 1) if n >= 3 else 0


def random_schedule(
    players: Sequence[str],
    rounds: int,
    size: int,
    uneven: Literal["mixed", "byes"],
    draw: Draw,
    avoid: Iterable[Pair] = (),
    attempts: int = 200,
    budget: int = 20_000,
) -> tuple[Pairing, ...]:
    """``rounds`` rounds made in advance, no two players meeting twice (nor any pair of
    ``avoid``: team-mates). Raises `NoSchedule` when the search gives up."""
    sizes, bye_count = table_sizes(len(players), size, uneven)
    for _ in range(attempts):
        met: Counter[Pair] = Counter(avoid)
        byes_had: Counter[str] = Counter()
        made: list[Pairing] = []
        for _ in range(rounds):
            pairing = _schedule_round(players, sizes, bye_count, met, byes_had, draw, budget)
            if pairing is None:
                break
            made.append(pairing)
            met.update(meetings([pairing]))
            byes_had.update(pairing.byes)
        if len(made) == rounds:
            return tuple(made)
    raise NoSchedule(
        f"no schedule of {rounds} rounds without repeats found for {len(players)} players"
    )


def _schedule_round(
    players: Sequence[str],
    sizes: list[int],
    bye_count: int,
    met: Counter[Pair],
    byes_had: Counter[str],
    draw: Draw,
    budget: int,
) -> Pairing | None:
    for _ in range(20):
        byes = _byes(players, bye_count, byes_had, draw)
        playing = [p for p in draw.shuffle(players) if p not in byes]
        # the most constrained player first: fewer candidates, earlier dead ends
        playing.sort(key=lambda p: -sum(1 for q in playing if frozenset((p, q)) in met))
        tables = _fill(playing, sizes, met, draw, [budget])
        if tables is not None:
            return Pairing(tables=tuple(tables), byes=tuple(sorted(byes)))
    return None


def rotation_schedule(players: Sequence[str], rounds: int, draw: Draw) -> tuple[Pairing, ...]:
    """A duplicate schedule by a known construction (a three-group Mitchell movement): the
    drawn field is split into groups A, B, C of m; in round r table k seats A[k], B[k + r],
    C[k + 2r] (mod m), group g in seat (g + r) mod 3. Tables are listed in seat order, so each
    player holds every seat's layout once in any three rounds. No pair meets twice for m rounds
    when m is odd (k + r and k + 2r are then distinct for distinct r), m/2 when m is even."""
    n = len(players)
    m = n // 3
    limit = m if m % 2 else m // 2
    if n % 3 or rounds > max(limit, 1) or m == 0:
        raise NoSchedule(f"no rotation of {rounds} rounds without repeats for {n} players")
    order = draw.shuffle(sorted(players))
    groups = [order[:m], order[m : 2 * m], order[2 * m :]]
    made = []
    for r in range(rounds):
        tables = []
        for k in range(m):
            members = (groups[0][k], groups[1][(k + r) % m], groups[2][(k + 2 * r) % m])
            seating = [""] * 3
            for g, player in enumerate(members):
                seating[(g + r) % 3] = player
            tables.append(tuple(seating))
        made.append(Pairing(tables=tuple(tables)))
    return tuple(made)


def swiss(
    ranked: Sequence[str],
    met: Counter[Pair],
    size: int,
    uneven: Literal["mixed", "byes"],
    byes_had: Mapping[str, int],
    penalty: int = 100,
    window: int = 8,
) -> Pairing:
    """Swiss for triples: tables top-down by standings, each taking the best-placed free player
    and the partners among the next ``window`` free players that cost least, a partner costing
    ``penalty`` per earlier meeting plus his distance in the standings; then swaps of two players
    between tables while a swap lowers the total cost. Byes go to the lowest-placed players with
    fewest byes. Deterministic: the order of ``ranked`` decides every tie."""
    sizes, bye_count = table_sizes(len(ranked), size, uneven)
    rank = {p: i for i, p in enumerate(ranked)}
    bottom_up = sorted(reversed(ranked), key=lambda p: byes_had.get(p, 0))
    byes = set(bottom_up[:bye_count])
    free = [p for p in ranked if p not in byes]

    def cost(table: Sequence[str]) -> int:
        ranks = [rank[p] for p in table]
        spread = max(ranks) - min(ranks)
        if not met:  # a first round: no meetings to look up
            return spread
        return penalty * sum(met[frozenset(pair)] for pair in combinations(table, 2)) + spread

    tables: list[list[str]] = []
    for table_size in sorted(sizes):  # tables of 3 at the top, of 4 at the bottom
        head = free[0]
        if met:
            best = min(
                combinations(free[1 : window + 1], table_size - 1),
                key=lambda o: cost((head, *o)),
            )
        else:  # no meetings: the cost is the spread, least for the next ones (and first tried)
            best = tuple(free[1:table_size])
        tables.append([head, *best])
        del free[0]
        for p in best:  # within the first few: removed without copying the rest
            free.remove(p)
    # Then swaps of two players between two tables while one lowers the total cost. A pair of
    # tables is skipped when no swap between them can cost less: two tables' spans sum to at
    # least the reach of their players' ranks less its widest gap (the two spans cover every
    # rank but at most one gap), and repeats cost >= 0. Skipping changes nothing (such a pair
    # never swaps); the bound of two tables whose ranks do not interleave comes from each
    # table's own lowest, highest and widest gap, without sorting the six ranks. And a table's
    # cost is at least its size less one (distinct ranks; repeats cost >= 0): two tables both
    # at that floor never swap. A first round's tables, of consecutive ranks, all are, so its
    # swap pass is over at once: 1,000 players are paired in some 3 ms of CPU, where trying
    # every swap took 10 s (docs/tournaments.md, The start of an event).
    costs = [cost(t) for t in tables]
    shapes = [_shape(t, rank) for t in tables]
    tight = [penalty >= 0 and c == len(t) - 1 for c, t in zip(costs, tables, strict=True)]
    improved = not all(tight)
    while improved:
        improved = False
        for a in range(len(tables)):
            for b in range(a + 1, len(tables)):
                if tight[a] and tight[b]:
                    continue
                if penalty >= 0 and costs[a] + costs[b] <= _reach(shapes[a], shapes[b]):
                    continue
                for i in range(len(tables[a])):
                    for j in range(len(tables[b])):
                        ta, tb = list(tables[a]), list(tables[b])
                        ta[i], tb[j] = tb[j], ta[i]
                        ca, cb = cost(ta), cost(tb)
                        if ca + cb < costs[a] + costs[b]:
                            tables[a], tables[b], costs[a], costs[b] = ta, tb, ca, cb
                            shapes[a], shapes[b] = _shape(ta, rank), _shape(tb, rank)
                            tight[a] = penalty >= 0 and ca == len(ta) - 1
                            tight[b] = penalty >= 0 and cb == len(tb) - 1
                            improved = True
    return Pairing(
        tables=tuple(tuple(sorted(t, key=rank.__getitem__)) for t in tables),
        byes=tuple(sorted(byes, key=rank.__getitem__)),
    )


_Shape = tuple[tuple[int, ...], int]
"""A table's ranks in order, and the widest gap between two of them."""


def _shape(table: Sequence[str], rank: Mapping[str, int]) -> _Shape:
    ranks = tuple(sorted(rank[p] for p in table))
    return ranks, max(y - x for x, y in pairwise(ranks))


def _reach(a: _Shape, b: _Shape) -> int:
    """The reach of two tables' ranks less its widest gap: what their costs sum to at least
    whoever sits where (see `swiss`)."""
    (ra, wa), (rb, wb) = a, b
    if ra[-1] < rb[0]:  # a's ranks all above b's: the widest gap is within one, or between
        return rb[-1] - ra[0] - max(wa, wb, rb[0] - ra[-1])
    if rb[-1] < ra[0]:
        return ra[-1] - rb[0] - max(wa, wb, ra[0] - rb[-1])
    ranks = sorted(ra + rb)
    return ranks[-1] - ranks[0] - max(y - x for x, y in pairwise(ranks))


def cut(ranked: Sequence[str], keep: int) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The finalists (the top ``keep`` of the standings, ties already broken) and the rest."""
    return tuple(ranked[:keep]), tuple(ranked[keep:])


def check_pairing(
    pairing: Pairing, field: Sequence[str], size: int, uneven: Literal["mixed", "byes"]
) -> None:
    """Refuse an uploaded pairing that is not the field split into allowed tables."""
    seen = [p for t in pairing.tables for p in t] + list(pairing.byes)
    if sorted(seen) != sorted(field) or len(set(seen)) != len(seen):
        raise refuse("bad_pairing", "every player of the field sits exactly once, or has a bye")
    allowed = {size} if uneven == "byes" else {3, 4}
    if any(len(t) not in allowed for t in pairing.tables):
        raise refuse("bad_pairing", f"tables have {' or '.join(map(str, sorted(allowed)))} seats")
    if pairing.byes and uneven != "byes":
        expected = table_sizes(len(field), size, uneven)[1]
        if len(pairing.byes) > expected:
            raise refuse("bad_pairing", "this event gives no byes the field does not force")
