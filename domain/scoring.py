"""Scoring a finished deal onto the pool sheet (запись), docs/rules.md §F and §G.

`score_deal` turns a `DealOutcome` into the entries it writes. It reads only `Rules` fields, never
the convention's name, so Sochi, Leningrad, Rostov and any mix of their options share one path.
Notation of docs/rules.md §F: ``P`` the contract price, ``u`` the declarer's undertricks, ``d`` the
defence's tricks, ``k`` a whister's missing tricks.

The steps, in order:

1. the entries of the deal at face value (`_game`, `_miser`, `_raspasy`);
2. Classic multipliers: a dark game (втёмную) doubles everything, a bomb (бомба) doubles its
   holder's next game or all-pass;
3. the pool target: a pool entry that would pass it becomes help (помощь) or a mountain write-off;
4. the new all-pass streak and bombs.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Final

import msgspec

from domain.cards import MISER, WITHOUT_TALON, is_talonless, level_of, price
from domain.outcome import DealOutcome, DefenderRole
from domain.rules import RaspasyRules, Rules
from domain.sheet import DealScore, Entry, EntryKind, PoolSheet, RuleCode

OBLIGATION: Final[dict[int, int]] = {6: 4, 7: 2, 8: 1, 9: 1, 10: 1}
"""Tricks the defence must take between them (обязательное число взяток), docs/rules.md §D.1."""

_SUIT_SIGN: Final = {"S": "♠", "C": "♣", "D": "♦", "H": "♥"}


def score_deal(outcome: DealOutcome, sheet: PoolSheet, rules: Rules) -> DealScore:
    """What a finished deal writes on the sheet under these rules (docs/rules.md §F, §G).

    Raises ValueError for an outcome that cannot be scored (a game without a contract, a table
    of another size than the sheet's): the deal decider never produces one.
    """
    if outcome.seats != sheet.players:
        raise ValueError(f"a deal of {outcome.seats} players on a sheet of {sheet.players}")
    bombs = list(sheet.bombs) or [0] * sheet.players
    if outcome.kind == "raspasy":
        entries = _raspasy(outcome, sheet, rules)
        if rules.classic.bombs:  # a bombed player's own all-pass writing is multiplied
            entries = [_times(e, 2 ** _bomb_of(e, outcome, bombs), "bomb") for e in entries]
    else:
        score = _miser if outcome.kind == "miser" else _game
        entries = score(outcome, sheet, rules)
        if outcome.dark:  # §B.3: «цена выигрыша и проигрыша … удваивается»
            entries = [_times(e, 2, "dark game") for e in entries]
        if rules.classic.bombs and outcome.declarer is not None:
            entries = [_times(e, 2 ** bombs[outcome.declarer], "bomb") for e in entries]
    return DealScore(
        entries=tuple(_cap_pools([e for e in entries if e.amount], sheet, rules)),
        raspasy_streak=_next_streak(outcome, sheet.raspasy_streak, rules),
        bombs=_next_bombs(outcome, bombs) if rules.classic.bombs else tuple(bombs),
    )


def raspasy_price(streak: int, raspasy: RaspasyRules) -> int:
    """Price of one all-pass trick after ``streak`` all-passes in a row (I-22, I-23).

    The k-th all-pass of a streak has the step 1, 2, 3 … (``arith``: k) or 1, 2, 4 …
    (``geom``: 2^(k−1)); the price is ``base_price`` × step. ``progression_cap`` counts
    all-passes, as preferans.pro caps its round number ([C3] ``PassGame::s_rounds``): from the
    cap-th all-pass on the price stays, so the default cap 3 gives 1-2-3-3 and 1-2-4-4 (0: no cap).
    """
    k = streak + 1
    if raspasy.progression_cap:
        k = min(k, raspasy.progression_cap)
    step = {"none": 1, "arith": k, "geom": 1 << (k - 1)}[raspasy.progression]
    return raspasy.base_price * step


class _Writer:
    """The entries of one deal, in the order they are written."""

    def __init__(self) -> None:
        self.entries: list[Entry] = []

    def pool(self, seat: int, amount: int, rule: RuleCode, why: str) -> None:
        self.entries.append(_entry("pool", seat, amount, rule, why))

    def mountain(self, seat: int, amount: int, rule: RuleCode, why: str) -> None:
        self.entries.append(_entry("mountain", seat, amount, rule, why))

    def whists(self, seat: int, on: int, amount: int, rule: RuleCode, why: str) -> None:
        self.entries.append(
            Entry(kind="whists", seat=seat, on=on, amount=amount, rule=rule, explanation=why)
        )


# --- trick contracts -----------------------------------------------------------------------------


def _game(o: DealOutcome, sheet: PoolSheet, rules: Rules) -> list[Entry]:
    """A trick contract (игра): the declarer's pool or remiz (ремиз), then the defence."""
    if o.contract is None or o.declarer is None:
        raise ValueError("a game outcome needs a contract and a declarer")
    decl, name, level = o.declarer, _name(o.contract), level_of(o.contract)
    p = _price(o.contract, rules)
    cons = _consolation(p, rules)
    rp = p * rules.scoring.remiz_factor
    w = _Writer()

    def consolation(u: int, what: str) -> None:
        """Every other player writes it, the sitting-out dealer too (Codex 3.8.1.2)."""
        for s in range(o.seats):
            if s != decl:
                text = (
                    f"{name} {what}: consolation {u} × {cons} = {cons * u} whists "
                    f"by seat {s} on seat {decl}"
                )
                w.whists(s, decl, cons * u, "consolation", text)

    if o.conceded:  # I-17: written as down ``conceded``, the opponents as passers
        u = o.conceded
        text = f"{name} conceded down {u}: {u} × {rp} = {rp * u} to seat {decl}'s mountain"
        w.mountain(decl, rp * u, "remiz", text)
        consolation(u, f"conceded down {u}")
        return w.entries
    if not o.played:
        _made_without_play(o, rules, w)
        return w.entries

    t = o.declarer_tricks
    u = max(0, level - t)
    if u:
        remiz = _per(p, rules.scoring.remiz_factor)
        text = f"{name} down {u} ({_tricks(t)}): {u} × {remiz} = {rp * u} to seat {decl}'s mountain"
        w.mountain(decl, rp * u, "remiz", text)
    else:
        how = "checked" if o.checked else _tricks(t)
        w.pool(decl, p, "contract_made", f"{name} made ({how}): price {p} to seat {decl}'s pool")
    if o.checked:  # I-7: a checked 10 carries no whister liability
        if u:
            wp, per = p * rules.scoring.whist_factor, _per(p, rules.scoring.whist_factor)
            for s, k in o.taken():
                if s != decl:
                    text = f"{name} checked, seat {s} took {_tricks(k)} × {per} = {wp * k} whists"
                    w.whists(s, decl, wp * k, "whists_for_tricks", f"{text} on seat {decl}")
    else:
        _defence(o, sheet, rules, u, w)
    if u:
        consolation(u, f"down {u}")
    return w.entries


def _made_without_play(o: DealOutcome, rules: Rules, w: _Writer) -> None:
    """Both defenders passed, or one went half-whist (полвиста, «за свои»): the contract counts as
    made, and a half-whister writes whists for half the obligation (§D.1)."""
    assert o.contract is not None and o.declarer is not None
    decl, name, p = o.declarer, _name(o.contract), _price(o.contract, rules)
    half = [d for d in o.defenders if d.choice == "half_whist"]
    how = "half-whisted" if half else "both defenders passed"
    text = f"{name} made without play ({how}): price {p} to seat {decl}'s pool"
    w.pool(decl, p, "contract_made", text)
    wp, per = p * rules.scoring.whist_factor, _per(p, rules.scoring.whist_factor)
    n = OBLIGATION[level_of(o.contract)] // 2  # 2 tricks on a 6, 1 on a 7; none on 8+
    for d in half:
        text = (
            f"{name} half-whisted by seat {d.seat}: half the obligation, {_tricks(n)} × {per} = "
            f"{wp * n} whists on seat {decl}"
        )
        w.whists(d.seat, decl, wp * n, "half_whist", text)


def _defence(o: DealOutcome, sheet: PoolSheet, rules: Rules, u: int, w: _Writer) -> None:
    """Whists for tricks and short whists (недовист), §D.2–D.3.

    Two whisters each write for their own tricks. A single whister writes for both defending
    hands (the passer's tricks are his, open or closed); on a remiz the passer writes nothing more
    than consolation under greedy whist (жлобский), half the whists under gentleman whist
    (джентльменский) unless his own half-whist was returned.
    """
    assert o.contract is not None and o.declarer is not None
    decl, name, level = o.declarer, _name(o.contract), level_of(o.contract)
    p = _price(o.contract, rules)
    wp = p * rules.scoring.whist_factor
    per = _per(p, rules.scoring.whist_factor)
    defence = {s: k for s, k in o.taken() if s != decl}
    d = sum(defence.values())
    whisters = sorted((r for r in o.defenders if r.choice == "whist"), key=_whist_order(o))
    if len(whisters) >= 2:
        for r in whisters:
            k = defence.get(r.seat, 0)
            text = f"{name} whisted by seat {r.seat}: {_tricks(k)} × {per} = {wp * k} whists"
            text += f" on seat {decl}"
            w.whists(r.seat, decl, wp * k, "whists_for_tricks", text)
        if not u:
            _short_pair(o, whisters, defence, sheet, rules, w)
        return
    if not whisters:
        return
    whister = whisters[0].seat
    partner = _gentleman_partner(o, whister) if u and rules.whist.style == "gentleman" else None
    if partner is None:
        text = (
            f"{name} whisted by seat {whister} alone: the defence's {_tricks(d)} × {per} = "
            f"{wp * d} whists on seat {decl}"
        )
        w.whists(whister, decl, wp * d, "whists_for_tricks", text)
    else:
        for s in (whister, partner):
            text = (
                f"{name} gentleman whist, seat {whister} whisted and seat {partner} passed: "
                f"half of {_tricks(d)} × {per} = {wp * d // 2} whists by seat {s} on seat "
                f"{decl}"
            )
            w.whists(s, decl, wp * d // 2, "whists_for_tricks", text)
    short = OBLIGATION[level] - d
    if not u and short > 0:
        pen = _penalty(whister, sheet, rules, rp=p * rules.scoring.remiz_factor)
        text = (
            f"{name} whisted alone by seat {whister}: the defence took {d} of "
            f"{OBLIGATION[level]}, {short} short × {pen} = {pen * short} to his mountain"
        )
        w.mountain(whister, pen * short, "short_whist", text)


def _short_pair(
    o: DealOutcome,
    whisters: list[DefenderRole],
    defence: dict[int, int],
    sheet: PoolSheet,
    rules: Rules,
    w: _Writer,
) -> None:
    """Two whisters short of the obligation (§D.2, I-8, I-8b).

    On 6 and 7 each whister answers for his half of the obligation, but only when the pair is
    short (Lesnoy's examples); on 8–10 the missing trick is the second whister's (Lesnoy), both
    whisters' in full (preferans.pro), or split half and half (OpenPref).
    """
    assert o.contract is not None
    name, level = _name(o.contract), level_of(o.contract)
    rp = _price(o.contract, rules) * rules.scoring.remiz_factor
    need = OBLIGATION[level]
    taken = sum(defence.get(r.seat, 0) for r in whisters)
    short = need - taken
    if short <= 0:
        return

    def write(seat: int, amount: int, detail: str) -> None:
        text = (
            f"{name} whisted by two, the pair took {taken} of {need}: seat {seat} {detail} = "
            f"{amount} to his mountain"
        )
        w.mountain(seat, amount, "short_whist", text)

    if level <= 7:
        half = need // 2
        for r in whisters:
            own = defence.get(r.seat, 0)
            k = max(0, half - own)
            if rules.whist.liability_6_7_cap:
                k = min(k, short)
            pen = _penalty(r.seat, sheet, rules, rp)
            write(r.seat, pen * k, f"took {own} of his half {half}: {k} × {pen}")
        return
    first, second = whisters[0].seat, whisters[1].seat
    match rules.whist.liability_8_10:
        case "second":
            pen = _penalty(second, sheet, rules, rp)
            write(second, pen * short, f"whisted second and answers: {short} × {pen}")
        case "both":
            for s in (first, second):
                pen = _penalty(s, sheet, rules, rp)
                write(s, pen * short, f"answers in full: {short} × {pen}")
        case "split":  # an odd point goes to the second whister, the liable one per Lesnoy
            for s, odd in ((first, 0), (second, 1)):
                full = _penalty(s, sheet, rules, rp) * short
                write(s, (full + odd) // 2, f"answers half of {full}")


def _penalty(seat: int, sheet: PoolSheet, rules: Rules, rp: int) -> int:
    """A whister's mountain per missing trick: the full remiz when responsible (ответственный
    вист), half when semi-responsible (полуответственный), §D.2, I-21. Under
    ``classic_full_after_close`` he is semi-responsible until his own pool is closed."""
    if rules.whist.classic_full_after_close:
        full = sheet.pool[seat] >= rules.pool.target
    else:
        full = rules.whist.responsibility == "full"
    return rp if full else rp // 2


def _gentleman_partner(o: DealOutcome, whister: int) -> int | None:
    """The passer who writes half the whists under gentleman whist. A former half-whister whose
    whist was returned writes none (Lesnoy 3.8.14), so the whister writes them all. Nor does
    either opponent of a whisting dealer at four: both left the contract to him."""
    if o.seats == 4 and whister == o.dealer:
        return None
    for r in o.defenders:
        if r.seat != whister and r.choice == "pass" and not r.was_half_whist:
            return r.seat
    return None


def _whist_order(o: DealOutcome) -> Callable[[DefenderRole], tuple[int, int]]:
    """The order of saying whist: ``whist_rank`` when set, else the order of ``defenders``."""
    position = {r.seat: i for i, r in enumerate(o.defenders)}
    return lambda r: (r.whist_rank or len(position) + 1, position[r.seat])


def _consolation(p: int, rules: Rules) -> int:
    """Consolation (консоляция) per undertrick: P, 2P or a flat amount (I-11)."""
    match rules.scoring.consolation:
        case "price":
            return p
        case "double_price":
            return 2 * p
        case "flat":
            return rules.scoring.consolation_flat


# --- misère --------------------------------------------------------------------------------------


def _miser(o: DealOutcome, sheet: PoolSheet, rules: Rules) -> list[Entry]:
    """Misère (мизер): its price to the pool for no trick, else the mountain per trick taken."""
    if o.declarer is None:
        raise ValueError("a misère outcome needs a declarer")
    contract = o.contract or MISER
    decl, t, p, name = o.declarer, o.declarer_tricks, _price(contract, rules), _name(contract)
    w = _Writer()
    if t == 0:
        w.pool(decl, p, "miser_made", f"{name} made: price {p} to seat {decl}'s pool")
        return w.entries
    per, cons = rules.scoring.miser_fail_per_trick, rules.scoring.miser_consolation
    text = f"{name} failed with {_tricks(t)}: {t} × {per} = {per * t} to seat {decl}'s mountain"
    w.mountain(decl, per * t, "miser_failed", text)
    for s in range(o.seats) if cons else ():  # I-9
        if s != decl:
            text = (
                f"{name} failed with {_tricks(t)}: consolation {t} × {cons} = {cons * t} "
                f"whists by seat {s} on seat {decl}"
            )
            w.whists(s, decl, cons * t, "miser_consolation", text)
    return w.entries


# --- all-pass ------------------------------------------------------------------------------------


def _raspasy(o: DealOutcome, sheet: PoolSheet, rules: Rules) -> list[Entry]:
    """All-pass (распасы): tricks to the mountain at the streak's price, or (Rostov) whists from
    the player with the fewest tricks on each other player; no trick earns one trick's price in
    the pool (§F.1–F.3, I-13, I-14b, I-16, I-22, I-23).

    At four, a dealer who played the talon (``players4.dealer_raspasy``) has his tricks written
    like anyone's, to his mountain or as whists on him, but he is never the fewest-tricks player:
    no zero-trick bonus, no Rostov whists written by him, and no amnesty below zero."""
    r = rules.raspasy
    base = raspasy_price(sheet.raspasy_streak, r)
    cost = base * o.raspasy_factor
    dark = f" ×{o.raspasy_factor} for dark passes" if o.raspasy_factor != 1 else ""
    label = f"all-pass #{sheet.raspasy_streak + 1} (trick price {base}{dark})"
    tricks = dict(o.taken())
    takers = dict(tricks)
    dealer_played = dealer_played_talon(o, rules)
    if dealer_played:
        takers[o.dealer] = o.tricks[o.dealer]
    fewest = min(tricks.values())
    w = _Writer()
    if r.writing == "mountain":
        low = fewest if r.amnesty else 0
        less = f" − {low} (amnesty)" if low else ""
        for s, t in takers.items():
            who = f"seat {s}" + (", the dealer playing the talon," if s not in tricks else "")
            k = max(0, t - low)
            text = f"{label}: {who} took {t}{less}, × {cost} = {k * cost} to his mountain"
            w.mountain(s, k * cost, "raspasy_tricks", text)
    else:
        per = r.whist_per_trick * (base // r.base_price) * o.raspasy_factor
        writers = [s for s, t in tricks.items() if t == fewest]
        ties = len(writers)  # I-14b: players tied for the fewest share the writing
        shared = f", shared by {ties}" if ties > 1 else ""
        for s, t in takers.items():
            for writer in writers if s not in writers else ():
                text = (
                    f"{label}: seat {writer} took the fewest ({fewest}); seat {s} took {t} "
                    f"× {per}{shared} = {per * t // ties} whists on seat {s}"
                )
                w.whists(writer, s, per * t // ties, "raspasy_whists", text)
    for s, t in tricks.items() if r.zero_trick_bonus else ():  # playing order, I-29
        if t == 0:
            text = f"{label}: seat {s} took no trick, one trick's price {cost} to his pool"
            w.pool(s, cost, "raspasy_zero", text)
    if r.dealer_writes_pool_point and o.seats == 4 and not o.tricks[o.dealer]:
        text = (
            f"{label}: seat {o.dealer}, the dealer sitting out, writes {o.raspasy_factor} to "
            f"his pool"
        )
        w.pool(o.dealer, o.raspasy_factor, "raspasy_dealer", text)
    return w.entries


def dealer_played_talon(o: DealOutcome, rules: Rules) -> bool:
    """At four, the dealer played the talon cards of the first two all-pass tricks (I-16)."""
    return (
        o.kind == "raspasy"
        and o.seats == 4
        and rules.players4.dealer_raspasy == "plays_talon"
        and rules.raspasy.use_talon
    )


def played_by(o: DealOutcome, rules: Rules) -> tuple[int, ...]:
    """The seats that played the deal and whose tricks count: the three active hands, and at
    four the dealer who played the talon of an all-pass (`dealer_played_talon`)."""
    return (*o.hands, o.dealer) if dealer_played_talon(o, rules) else o.hands


# --- the pool target (§G) ------------------------------------------------------------------------


def _cap_pools(entries: Iterable[Entry], sheet: PoolSheet, rules: Rules) -> list[Entry]:
    """Pool entries stop at the target; the excess goes as help (помощь) or to the mountain (§G).

    Help goes into the largest pool still below the target (tie: the nearest seat clockwise,
    i.e. the left neighbour), at most its shortfall, the rest to the next such pool; the helper
    writes ``help_whists_per_point`` whists per point on the helped player (I-18). What nobody
    can take is written off the player's own mountain ("only when there is nobody to help",
    [P11]) at ``pool_weight`` mountain points per pool point; once that mountain is 0 the rest
    goes onto every other player's mountain, which is the same at settlement ([C2], [C5]).
    Without help (I-19) the whole excess takes that mountain route ([C6]'s Leningrad).

    Several pool writes of one deal (two players without a trick in an all-pass) come in playing
    order from the first hand, as `score_deal` writes them (I-29): under ``write_order =
    "forehand"`` each is applied in turn, so an earlier one's help may close a later one's pool;
    under ``"simultaneous"`` every write first fills its own pool, and only then are the excesses
    given, in the same order.
    """
    target = rules.pool.target
    pool, mountain = list(sheet.pool), list(sheet.mountain)
    out: list[Entry] = []
    pending: list[tuple[int, int, str]] = []
    for e in entries:
        if e.kind == "mountain":
            mountain[e.seat] += e.amount
        if e.kind != "pool" or pool[e.seat] + e.amount <= target:
            pool[e.seat] += e.amount if e.kind == "pool" else 0
            out.append(e)
            continue
        s, own = e.seat, max(0, target - pool[e.seat])
        excess = e.amount - own
        if own:
            text = f"{e.explanation}; {own} of {e.amount} closes the pool at {target}"
            out.append(msgspec.structs.replace(e, amount=own, explanation=text))
            pool[s] += own
        source = f"{e.explanation.split(':')[0]}, {excess} over seat {s}'s pool of {target}"
        if rules.pool.write_order == "simultaneous":
            pending.append((s, excess, source))
        else:
            out += _give_excess(s, excess, source, pool, mountain, rules)
    for s, excess, source in pending:
        out += _give_excess(s, excess, source, pool, mountain, rules)
    return out


def _give_excess(
    s: int, excess: int, source: str, pool: list[int], mountain: list[int], rules: Rules
) -> list[Entry]:
    """Seat ``s``'s pool points over the target: help (помощь) while a pool is below the target,
    then the write-off. Updates ``pool`` and ``mountain`` as it writes."""
    target, n, hw = rules.pool.target, len(pool), rules.pool.help_whists_per_point
    out: list[Entry] = []
    while rules.pool.help_enabled and excess:
        unclosed = [j for j in range(n) if j != s and pool[j] < target]
        if not unclosed:
            break
        j = min(unclosed, key=lambda j: (-pool[j], (j - s) % n))
        g = min(excess, target - pool[j])
        text = f"{source}: help {g} into seat {j}'s pool ({pool[j]}, the largest below {target})"
        out.append(_entry("pool", j, g, "help", text))
        text = (
            f"{source}: for {g} point{'s' * (g != 1)} of help seat {s} writes "
            f"{g} × {hw} = {g * hw} whists on seat {j}"
        )
        out.append(
            Entry(kind="whists", seat=s, on=j, amount=g * hw, rule="help_whists", explanation=text)
        )
        pool[j] += g
        excess -= g
    if excess:
        out += _write_off(s, excess, mountain, rules, source)
    return out


def _write_off(s: int, excess: int, mountain: list[int], rules: Rules, source: str) -> list[Entry]:
    """The excess nobody can take: off the player's own mountain, then onto everyone else's."""
    weight = rules.settlement.pool_weight
    owed = excess * weight
    off = min(owed, mountain[s])
    reason = "nobody to help" if rules.pool.help_enabled else "no help in these rules"
    times = f" × {weight}" if weight != 1 else ""
    out: list[Entry] = []
    if off:
        all_of_it = "" if off == owed else f" of {excess}{times}, all it had"
        text = f"{source}, {reason}: {off}{all_of_it} written off seat {s}'s mountain"
        if times and not all_of_it:
            text += f" ({excess}{times})"
        out.append(_entry("mountain", s, -off, "mountain_written_off", text))
        mountain[s] -= off
    for j in range(len(mountain)) if owed > off else ():
        if j != s:
            text = (
                f"{source}, {reason} and seat {s}'s mountain is 0: {owed - off} onto "
                f"seat {j}'s mountain"
            )
            out.append(_entry("mountain", j, owed - off, "overflow_to_mountain", text))
            mountain[j] += owed - off
    return out


# --- streak and bombs ----------------------------------------------------------------------------


def _next_streak(o: DealOutcome, streak: int, rules: Rules) -> int:
    """An all-pass extends the streak; a played contract ends it, any or only a made one (I-12b)."""
    if o.kind == "raspasy":
        return streak + 1
    return 0 if rules.raspasy.exit_requires == "any" or _made(o) else streak


def _made(o: DealOutcome) -> bool:
    if o.kind == "miser":
        return o.declarer_tricks == 0
    if o.conceded:
        return False
    return not o.played or o.declarer_tricks >= level_of(o.contract or "6S")


def _next_bombs(o: DealOutcome, bombs: list[int]) -> tuple[int, ...]:
    """Bombs (бомбы, Classic, Lesnoy 3.3.19a). A game uses up its declarer's bombs, an all-pass
    those of the players in it. An all-pass after dark passes gives each dark passer, and the
    sitting-out dealer at four, a bomb worth the all-pass factor (×2, or ×4 after a second dark
    pass), kept as a count of doublings."""
    after = list(bombs)
    if o.kind != "raspasy":
        if o.declarer is not None:
            after[o.declarer] = 0
        return tuple(after)
    for s in o.hands:
        after[s] = 0
    if o.dark_passers:
        doublings = max(1, o.raspasy_factor.bit_length() - 1)
        for s in set(o.dark_passers) | ({o.dealer} if o.seats == 4 else set()):
            after[s] += doublings
    return tuple(after)


def _bomb_of(e: Entry, o: DealOutcome, bombs: list[int]) -> int:
    """Doublings from the bomb of the player an all-pass entry is about (his pool or mountain,
    or the whists written on him), if he played the all-pass."""
    subject = e.on if e.kind == "whists" and e.on is not None else e.seat
    return bombs[subject] if subject in o.hands else 0


def _times(e: Entry, factor: int, why: str) -> Entry:
    if factor == 1:
        return e
    text = f"{e.explanation}; ×{factor} ({why}) = {e.amount * factor}"
    return msgspec.structs.replace(e, amount=e.amount * factor, explanation=text)


def _entry(kind: EntryKind, seat: int, amount: int, rule: RuleCode, explanation: str) -> Entry:
    return Entry(kind=kind, seat=seat, amount=amount, rule=rule, explanation=explanation)


def _tricks(k: int) -> str:
    return f"{k} trick" if k == 1 else f"{k} tricks"


def _per(p: int, factor: int) -> str:
    """A per-trick rate named after the price: ``price 4``, or ``8 (2 × price 4)``."""
    return f"price {p}" if factor == 1 else f"{p * factor} ({factor} × price {p})"


def _price(contract: str, rules: Rules) -> int:
    """The contract's price P, a game without the talon raised by ``talonless_extra`` (I-6)."""
    extra = rules.scoring.talonless_extra if is_talonless(contract) else 0
    return price(contract) + extra


def _name(contract: str) -> str:
    """A contract for people: ``7♥``, ``6NT``, ``misère``, ``9♠ without the talon``."""
    if is_talonless(contract):
        return _name(contract[: -len(WITHOUT_TALON)]) + " without the talon"
    if contract == MISER:
        return "misère"
    return contract if contract.endswith("NT") else contract[:-1] + _SUIT_SIGN[contract[-1]]
