"""The double-dummy search: exact trick counts with perfect play by every hand.

The search is the one strong double-dummy solvers use, in pure Python (docs/bots.md §4):

- a zero-window test "can the maximising side make the focus take at least t tricks?",
  driven by MTD steps from a guess, so every node only answers yes or no;
- a transposition table at trick starts, keyed by the hands with their ranks renumbered among
  the cards still out (deals that differ only in the cards already played share an entry), with
  lower and upper bounds on the tricks still to come. The entries hold for any deal with the
  same trump, mode and focus slot, so one `Solver` serves a whole played trace or every sample
  of a bot's decision;
- equivalent cards: of cards adjacent among the cards still out (the table counted in), one is
  tried;
- move ordering: the lead that last settled the node, then (in a contract) the leads that are
  not winners before cashing, the cheapest winner or a low card later in the trick, and in misère
  and all-pass the highest card that ducks;
- sure-trick bounds: quick tricks in contract play; in misère and all-pass, a focus seat whose
  every card is below all the others' cards of its suit is safe for good (it never wins a
  trick, so it never leads; measured on realistic misère hands: 4× fewer nodes). And the target
  cut-offs: stop once the tricks won reach the target, or once the tricks left cannot.

Internally the three active seats are slots 0, 1, 2 in the order of play (slot 0 the first
hand). The maximising side wants the focus seat to take tricks: the declarer himself in a
contract, the defenders against a misère, the coalition against the all-pass seat.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Final

from domain.solver.bits import RELATIVE, REPS, SUIT_MASK
from domain.solver.position import Mode

try:  # the compiled search (domain/solver/_kernel.c), built by `pip install -e .`
    from domain.solver import _kernel as _compiled
except ImportError:  # a source tree never built: the pure search serves alone
    _compiled = None  # type: ignore[assignment]

KERNEL_AVAILABLE: Final = _compiled is not None
"""Whether the compiled search is importable here."""
PURE_ENV: Final = "PREFERANS_SOLVER"
"""``PREFERANS_SOLVER=pure`` makes every `Solver` use the pure search (a reference run, or a
machine whose build of the kernel is in doubt)."""


def kernel_by_default() -> bool:
    """Whether a `Solver` made without saying uses the compiled search."""
    return KERNEL_AVAILABLE and os.environ.get(PURE_ENV, "").strip().lower() != "pure"


TT_LIMIT: Final = 1_500_000
"""Entries kept before the table is cleared (a whole deal stores some 10^4–10^5)."""

FEATURES: Final = frozenset({"tt", "equivalent_cards", "quick_tricks", "ordering"})
"""The enhancements over a plain zero-window alpha-beta; benchmarks switch them off to measure
what each one buys."""

SearchFn = Callable[[int, int, int, int], bool]

NO_LIMIT: Final = 1 << 62


class SearchAborted(Exception):
    """The search expanded more trick starts than `Solver.node_limit` allows (a caller's budget).

    The table keeps only finished results, so the solver stays valid for further searches.
    """


class Solver:
    """A search context: one trump, mode and focus slot, with its transposition table.

    Reuse it for every position of one kind (the plays of one deal, the samples of a decision):
    the table's entries depend only on the relative cards, so they stay valid across deals.
    `hands` holds the three hands by slot; `test` searches from a trick start.
    """

    def __init__(
        self,
        *,
        trump: int | None,
        mode: Mode,
        focus_slot: int,
        talon_leads: tuple[int, ...] = (),
        forehand_leads_until: int = 0,
        features: frozenset[str] = FEATURES,
        kernel: bool | None = None,
    ) -> None:
        """``kernel``: the compiled search (True), the pure one (False), or the compiled one
        when it is built and not switched off by `PURE_ENV` (None). The compiled search has
        every feature; a solver with some switched off is pure."""
        if kernel is None:
            kernel = kernel_by_default() and features == FEATURES
        if kernel and (_compiled is None or features != FEATURES):
            raise ValueError("the compiled search is not built here, or a feature is off")
        self.features = features
        self.trump = trump
        self.mode: Mode = mode
        self.focus_slot = focus_slot
        self.talon_leads = talon_leads
        self.forehand_leads_until = forehand_leads_until
        self.table: dict[int, int] = {}
        """key → lower bound << 4 | upper bound, on the focus tricks still to come."""
        self.best: dict[int, int] = {}
        """key → the lead that last settled the node, tried first next time."""
        self.hands: list[int] = [0, 0, 0]
        self.counter = [0]
        """Trick starts expanded so far (for benchmarks and budgets)."""
        self.limit = [NO_LIMIT]
        """`SearchAborted` is raised once `nodes` passes this."""
        contract = mode == "contract"
        self.is_max: tuple[bool, bool, bool] = (
            (focus_slot == 0) == contract,
            (focus_slot == 1) == contract,
            (focus_slot == 2) == contract,
        )
        """Per slot: whether it wants the focus to take tricks."""
        self.kernel: _compiled.Kernel | None = None
        """The compiled search's context (its own table and counter), or None: pure."""
        if kernel:
            assert _compiled is not None
            self.kernel = _compiled.Kernel(
                trump, contract, focus_slot, talon_leads, forehand_leads_until
            )
        self._search = _compile(self)

    @property
    def backend(self) -> str:
        """``kernel`` or ``pure``: which search answers."""
        return "pure" if self.kernel is None else "kernel"

    @property
    def nodes(self) -> int:
        if self.kernel is not None:
            return int(self.kernel.nodes)
        return self.counter[0]

    def limit_nodes(self, more: int | None) -> None:
        """Allow ``more`` trick starts from now on (None: no limit)."""
        if self.kernel is not None:
            self.kernel.set_limit(-1 if more is None else self.kernel.nodes + more)
            return
        self.limit[0] = NO_LIMIT if more is None else self.counter[0] + more

    def test(self, leader: int, need: int, n: int, k: int) -> bool:
        """Whether the maximising side can make the focus take at least ``need`` of the ``n``
        tricks left, from a trick start with ``leader`` (a slot) to lead trick ``k`` (0-based),
        the hands being `hands`. `hands` is the same again on return."""
        if self.kernel is not None:
            h = self.hands
            got = self.kernel.test(h[0], h[1], h[2], leader, need, n, k)
            if got is None:
                raise SearchAborted
            return bool(got)
        if len(self.table) > TT_LIMIT:
            self.table.clear()
            self.best.clear()
        return self._search(leader, need, n, k)


def _compile(solver: Solver) -> SearchFn:
    """The search of ``solver`` as a closure over its tables (local names are the fast ones)."""
    h = solver.hands
    tm = SUIT_MASK[solver.trump] if solver.trump is not None else 0
    trump_sh = (solver.trump << 3) if solver.trump is not None else -1
    g = solver.focus_slot
    contract = solver.mode == "contract"
    is_max = solver.is_max
    talon = solver.talon_leads
    n_talon = len(talon)
    forced = solver.forehand_leads_until
    table = solver.table
    best = solver.best
    counter = solver.counter
    limit = solver.limit
    features = solver.features
    reps_t = REPS if "equivalent_cards" in features else _IDENTITY
    use_tt = "tt" in features
    use_qt = "quick_tricks" in features
    ordering = "ordering" in features
    keyed = use_tt or ordering
    rel_t = RELATIVE
    sm_t = SUIT_MASK
    nxt_slot = (1, 2, 0)

    def legal_reps(hand: int, led: int, present: int) -> int:
        """One card of each run of equivalent cards among those ``hand`` may play to ``led``."""
        if led >= 0:
            f = hand & sm_t[led]
            if f:
                sh = led << 3
                return reps_t[((present >> sh) & 255) << 8 | ((f >> sh) & 255)] << sh
            if tm and hand & tm:
                return (
                    reps_t[((present >> trump_sh) & 255) << 8 | ((hand >> trump_sh) & 255)]
                    << trump_sh
                )
        out = 0
        for sh in (0, 8, 16, 24):
            hs = (hand >> sh) & 255
            if hs:
                out |= reps_t[((present >> sh) & 255) << 8 | hs] << sh
        return out

    def quick_tricks(lead: int, present: int) -> int:
        """Tricks the leader's side takes for sure by cashing from the top (contract play): in
        each suit the leader's cards above all the others', or all his cards once the opponents
        are out of the suit, capped where a hand with trumps would ruff (an opponent's ruff
        beats him, a partner's ruff takes the lead away)."""
        side = is_max[lead]
        p1 = nxt_slot[lead]
        p2 = nxt_slot[p1]
        opps: tuple[int, ...]
        if is_max[p1] == side:
            partner, opps = p1, (p2,)
        elif is_max[p2] == side:
            partner, opps = p2, (p1,)
        else:
            partner, opps = -1, (p1, p2)
        hl = h[lead]
        total = 0
        for sm in sm_t:
            mine = hl & sm
            if not mine:
                continue
            others = present & sm & ~hl
            if others:
                top = (mine & ~((1 << others.bit_length()) - 1)).bit_count()
                if not top:
                    continue
            else:
                top = mine.bit_count()
            opp_len = 0
            for o in opps:
                c = (h[o] & sm).bit_count()
                if c > opp_len:
                    opp_len = c
            if partner >= 0 and h[partner] & sm:
                k_s = top
            else:
                k_s = mine.bit_count() if top >= opp_len else top
            if tm and sm != tm:
                for o in opps:
                    if h[o] & tm:
                        c = (h[o] & sm).bit_count()
                        if c < k_s:
                            k_s = c
                if partner >= 0 and h[partner] & tm:
                    c = (h[partner] & sm).bit_count()
                    if c < k_s:
                        k_s = c
            total += k_s
        return total

    def search(lead: int, need: int, n: int, k: int) -> bool:
        if need <= 0:
            return True
        if need > n:
            return False
        h0 = h[0]
        h1 = h[1]
        h2 = h[2]
        p1 = nxt_slot[lead]
        p2 = nxt_slot[p1]
        if n == 1:
            c0 = h[lead]
            c1 = h[p1]
            c2 = h[p2]
            led = talon[k] if k < n_talon else (c0.bit_length() - 1) >> 3
            played = c0 | c1 | c2
            top = played & tm
            if not top:
                top = played & sm_t[led]
            if not top:
                w = lead
            else:
                hb = 1 << (top.bit_length() - 1)
                w = lead if hb == c0 else (p1 if hb == c1 else p2)
            return w == g
        present = h0 | h1 | h2
        # the key: relative hands and the leader, and the trick while the talon still sets the
        # suit or the first hand still leads
        key = lead
        for sh in (0, 8, 16, 24) if keyed else ():
            pr = ((present >> sh) & 255) << 8
            key = (
                (key << 24)
                | rel_t[pr | ((h0 >> sh) & 255)] << 16
                | rel_t[pr | ((h1 >> sh) & 255)] << 8
                | rel_t[pr | ((h2 >> sh) & 255)]
            )
        if k < forced or k < n_talon:
            key = key << 4 | k
        entry = table.get(key) if use_tt else None
        if entry is not None:
            lo = entry >> 4
            if lo >= need:
                return True
            hi = entry & 15
            if hi < need:
                return False
        else:
            lo = 0
            hi = n
        if use_qt and contract:
            qt = quick_tricks(lead, present)
            if qt:
                if is_max[lead]:
                    if qt >= need:
                        table[key] = (qt << 4) | hi
                        return True
                    if qt > lo:
                        lo = qt
                else:
                    if n - qt < need:
                        table[key] = (lo << 4) | (n - qt)
                        return False
                    if n - qt < hi:
                        hi = n - qt
        elif use_qt and lead != g and k >= n_talon and not (g == 0 and k + 1 < forced):
            # misère and all-pass: the focus is safe for good when each of its cards is below
            # every card the others hold in that suit. The others lead (the focus never wins,
            # so it never leads), and whatever they lead, the focus follows under or throws.
            hg = h[g]
            others = present & ~hg
            for sm in sm_t:
                d = hg & sm
                if d:
                    o = others & sm
                    if o and (o & -o) < d:
                        break
            else:
                table[key] = lo << 4  # no more tricks for the focus
                return False
        counter[0] += 1
        if counter[0] > limit[0]:
            raise SearchAborted
        max0 = is_max[lead]
        max1 = is_max[p1]
        max2 = is_max[p2]
        next_forced = k + 1 < forced
        talon_led = talon[k] if k < n_talon else -1
        k1 = k + 1
        n1 = n - 1

        # ---- the lead ---------------------------------------------------------------------
        hl = h[lead]
        reps0 = legal_reps(hl, talon_led, present)
        moves0: list[int] = []
        first = best.get(key, 0) if ordering else 0
        if first and reps0 & first:
            moves0.append(first)
            reps0 ^= first
        x = reps0
        if contract and ordering:
            later: list[int] = []
            while x:
                c = x & -x
                x ^= c
                if present & ~hl & ~((c << 1) - 1) & sm_t[(c.bit_length() - 1) >> 3]:
                    moves0.append(c)
                else:
                    later.append(c)  # a winner: cash it after the leads that build tricks
            moves0 += later
        else:
            while x:  # misère and all-pass: low cards first
                c = x & -x
                x ^= c
                moves0.append(c)

        result = not max0
        for c0 in moves0:
            h[lead] = hl ^ c0
            led = talon_led if talon_led >= 0 else (c0.bit_length() - 1) >> 3
            lm = sm_t[led]
            lsh = led << 3
            lpr = ((present >> lsh) & 255) << 8
            win0 = c0 if c0 & lm else 0
            # ---- the second hand ------------------------------------------------------------
            hs1 = h[p1]
            f = hs1 & lm
            reps1 = reps_t[lpr | f >> lsh] << lsh if f else legal_reps(hs1, led, present)
            moves1: list[int] = []
            y = reps1
            if not ordering:
                while y:
                    c = y & -y
                    y ^= c
                    moves1.append(c)
            elif contract:
                cheapest = 0
                while y:
                    c = y & -y
                    y ^= c
                    if (
                        not cheapest
                        and max1 != max0
                        and (
                            (c & tm and (not (win0 & tm) or c > win0))
                            if c & tm
                            else (not (win0 & tm) and c & lm and c > win0)
                        )
                    ):
                        cheapest = c
                    else:
                        moves1.append(c)
                if cheapest:
                    moves1.insert(0, cheapest)
            else:
                ducks: list[int] = []
                while y:
                    c = y & -y
                    y ^= c
                    if win0 and c & lm and c > win0:
                        moves1.append(c)
                    else:
                        ducks.append(c)
                ducks.reverse()
                moves1 = ducks + moves1 if (lead == g or p1 == g) else moves1 + ducks
            r1 = not max1
            for c1 in moves1:
                h[p1] = hs1 ^ c1
                if not win0:
                    w01 = c1 if (c1 & lm or c1 & tm) else 0
                    wslot = p1 if w01 else lead
                elif (
                    (not (win0 & tm) or c1 > win0)
                    if c1 & tm
                    else (not (win0 & tm) and c1 & lm and c1 > win0)
                ):
                    w01 = c1
                    wslot = p1
                else:
                    w01 = win0
                    wslot = lead
                # ---- the last hand: each card settles the trick ------------------------------
                hs2 = h[p2]
                f = hs2 & lm
                y = reps_t[lpr | f >> lsh] << lsh if f else legal_reps(hs2, led, present)
                good: list[int] = []
                bad: list[int] = []
                while y:
                    c2 = y & -y
                    y ^= c2
                    if not w01:
                        w = p2 if (c2 & lm or c2 & tm) else lead
                    elif (
                        (not (w01 & tm) or c2 > w01)
                        if c2 & tm
                        else (not (w01 & tm) and c2 & lm and c2 > w01)
                    ):
                        w = p2
                    else:
                        w = wslot
                    if (w == g) == max2:
                        good.append(c2 << 2 | w)
                    else:
                        bad.append(c2 << 2 | w)
                if not ordering:
                    good += bad
                    good.sort()
                    bad = []
                elif not contract:
                    good.reverse()
                    bad.reverse()
                r2 = not max2
                for cw in good + bad:
                    w = cw & 3
                    nd = need - 1 if w == g else need
                    if nd <= 0:
                        r = True
                    elif nd > n1:
                        r = False
                    elif n1 == 1:
                        # the last trick plays itself
                        nl = 0 if next_forced else w
                        q1 = nxt_slot[nl]
                        q2 = nxt_slot[q1]
                        d0 = h[nl] if nl != p2 else hs2 ^ (cw >> 2)
                        d1 = h[q1] if q1 != p2 else hs2 ^ (cw >> 2)
                        d2 = h[q2] if q2 != p2 else hs2 ^ (cw >> 2)
                        led2 = talon[k1] if k1 < n_talon else (d0.bit_length() - 1) >> 3
                        played = d0 | d1 | d2
                        top = played & tm
                        if not top:
                            top = played & sm_t[led2]
                        if not top:
                            r = nl == g
                        else:
                            hb = 1 << (top.bit_length() - 1)
                            r = (nl if hb == d0 else (q1 if hb == d1 else q2)) == g
                    else:
                        h[p2] = hs2 ^ (cw >> 2)
                        r = search(0 if next_forced else w, nd, n1, k1)
                    if r == max2:
                        r2 = r
                        break
                h[p2] = hs2
                if r2 == max1:
                    r1 = r2
                    break
            h[p1] = hs1
            if r1 == max0:
                result = r1
                best[key] = c0
                break
        h[lead] = hl
        if result:
            if need > lo:
                lo = need
        elif need - 1 < hi:
            hi = need - 1
        if use_tt:
            table[key] = (lo << 4) | hi
        return result

    return search


_IDENTITY: Final = [i & 255 for i in range(65536)]
"""Every held card is its own representative: no equivalent cards."""
