"""Tournament points (турнирные очки) and standings, pure helpers over recorded results.

A table's result is each player's whists (the settlement of the round's pulka). It is counted
through the event's transforms, in order: a timed-out positive result voided (if the format says
so), damping bands, the cut-off and the cap. Place points go by the raw whists, shared places
share the points of the places they cover, and a table's only positive player gets a bonus.
Standings rank by the primary measure, then the tie-breaks in order; head-to-head is read among
the players still tied only. Exact rationals throughout (`fractions.Fraction`).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from fractions import Fraction

import msgspec

from domain.tournament.format import Band, Format, PointsRules


class Result(msgspec.Struct, frozen=True, kw_only=True):
    """One table's result: players in seat order with their whists (and pools, for the bula)."""

    round_no: int
    players: tuple[str, ...]
    whists: tuple[int, ...]
    pool: tuple[int, ...] = ()
    timed_out: bool = False


class Standing(msgspec.Struct, frozen=True, kw_only=True):
    """A player's line in the standings. ``place`` is shared by players tied on every key."""

    player: str
    place: int
    points: Fraction
    whists: Fraction
    bula: int
    rounds: int


def damp(whists: Fraction | int, bands: Sequence[Band]) -> Fraction:
    """Whists through damping bands, marginally and symmetrically: with ×1/2 above 50 and ×1/10
    above 100, +120 counts 50 + 50/2 + 20/10 = 77, and −120 counts −77."""
    value = abs(Fraction(whists))
    out, prev, factor = Fraction(0), Fraction(0), Fraction(1)
    for band in sorted(bands, key=lambda b: b.above):
        edge = Fraction(band.above)
        if value <= edge:
            break
        out += (edge - prev) * factor
        prev, factor = edge, Fraction(band.factor)
    out += (value - prev) * factor
    return out if whists >= 0 else -out


def counted(whists: int, rules: PointsRules, *, voided: bool = False) -> Fraction:
    """The whists a result counts for: voided if positive and the table ran out of time under
    ``void_positive``, then damped, then bounded by the cut-off and the cap."""
    value = Fraction(0) if voided and whists > 0 else damp(whists, rules.damping)
    if rules.cut_off is not None:
        value = max(value, Fraction(-rules.cut_off))
    if rules.cap is not None:
        value = min(value, Fraction(rules.cap))
    return value


def place_points(whists: Sequence[int], rules: PointsRules) -> tuple[Fraction, ...]:
    """Place points of a table in seat order: equal results share the mean of their places'
    points; the only positive player gets the bonus."""
    table = rules.places_4 if len(whists) == 4 else rules.places_3
    order = sorted(range(len(whists)), key=lambda i: -whists[i])
    points = [Fraction(0)] * len(whists)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and whists[order[j + 1]] == whists[order[i]]:
            j += 1
        share = Fraction(sum(table[i : j + 1]), j - i + 1)
        for k in order[i : j + 1]:
            points[k] = share
        i = j + 1
    positive = [i for i, w in enumerate(whists) if w > 0]
    if len(positive) == 1:
        points[positive[0]] += rules.alone_positive_bonus
    return tuple(points)


def round_points(result: Result, fmt: Format) -> dict[str, tuple[Fraction, Fraction]]:
    """Each player's (place points, counted whists) at one table."""
    voided = result.timed_out and fmt.length.on_time == "void_positive"
    places = place_points(result.whists, fmt.points)
    return {
        p: (places[i], counted(result.whists[i], fmt.points, voided=voided))
        for i, p in enumerate(result.players)
    }


def standings(
    players: Iterable[str],
    results: Iterable[Result],
    fmt: Format,
    byes: Iterable[tuple[int, str]] = (),
    since_round: int = 1,
) -> list[Standing]:
    """The standings of ``players`` over ``results`` (and byes, as (round, player)) of rounds
    from ``since_round``, best first."""
    field = list(players)
    points = {p: Fraction(0) for p in field}
    whists = {p: Fraction(0) for p in field}
    bula = dict.fromkeys(field, 0)
    rounds = dict.fromkeys(field, 0)
    kept = [r for r in results if r.round_no >= since_round]
    for result in kept:
        for i, (player, (earned, counted_whists)) in enumerate(round_points(result, fmt).items()):
            if player in points:
                points[player] += earned
                whists[player] += counted_whists
                bula[player] += result.pool[i] if result.pool else 0
                rounds[player] += 1
    for round_no, player in byes:
        if round_no >= since_round and player in points:
            points[player] += Fraction(fmt.points.bye_points)
            rounds[player] += 1
    primary = points if fmt.points.primary == "places" else whists
    groups = _split(sorted(field), primary)
    for tiebreak in fmt.points.tiebreaks:  # each splits only the players still tied
        groups = [
            part
            for group in groups
            for part in _split(group, _key(tiebreak, group, kept, whists, bula, fmt))
        ]
    table, place = [], 1
    for group in groups:
        for player in sorted(group):
            table.append(
                Standing(
                    player=player, place=place, points=points[player], whists=whists[player],
                    bula=bula[player], rounds=rounds[player],
                )
            )  # fmt: skip
        place += len(group)
    return table


def _key(
    tiebreak: str,
    group: list[str],
    results: list[Result],
    whists: Mapping[str, Fraction],
    bula: Mapping[str, int],
    fmt: Format,
) -> Mapping[str, Fraction] | Mapping[str, int]:
    if tiebreak == "whists":
        return whists
    if tiebreak == "bula":
        return bula
    return head_to_head(group, results)


def head_to_head(group: Sequence[str], results: Iterable[Result]) -> dict[str, Fraction]:
    """Among ``group``: how many times each finished ahead of another member at a common table,
    less how many times behind."""
    members = set(group)
    score = {p: Fraction(0) for p in group}
    for result in results:
        here = [(p, w) for p, w in zip(result.players, result.whists, strict=True) if p in members]
        for p, w in here:
            score[p] += sum((w > v) - (w < v) for q, v in here if q != p)
    return score


def _split(group: list[str], key: Mapping[str, Fraction] | Mapping[str, int]) -> list[list[str]]:
    """``group`` (in standing order) split into runs of equal ``key``, best first."""
    if len(group) == 1:
        return [group]
    # Compared as whole numbers over a common denominator: the same order, without a
    # Fraction's comparison per step of the sort (a field of 1,000 took 10 ms).
    scale = math.lcm(*(key[p].denominator for p in group))
    whole = {p: key[p].numerator * (scale // key[p].denominator) for p in group}
    ordered = sorted(group, key=lambda p: -whole[p])
    parts: list[list[str]] = []
    for player in ordered:
        if parts and whole[parts[-1][0]] == whole[player]:
            parts[-1].append(player)
        else:
            parts.append([player])
    return parts


class TeamStanding(msgspec.Struct, frozen=True, kw_only=True):
    team: str
    place: int
    points: Fraction
    whists: Fraction


def team_standings(
    teams: Mapping[str, Sequence[str]], results: Iterable[Result], fmt: Format
) -> list[TeamStanding]:
    """Team sums: each round the points and counted whists of the team's playing members."""
    member_of = {p: team for team, members in teams.items() for p in members}
    points = {t: Fraction(0) for t in teams}
    whists = {t: Fraction(0) for t in teams}
    for result in results:
        for player, (earned, counted_whists) in round_points(result, fmt).items():
            if player in member_of:
                points[member_of[player]] += earned
                whists[member_of[player]] += counted_whists
    primary = points if fmt.points.primary == "places" else whists
    order = sorted(teams, key=lambda t: (-primary[t], -whists[t], t))
    out, place = [], 0
    for i, team in enumerate(order):
        prev = order[i - 1] if i else None
        if prev is None or (primary[prev], whists[prev]) != (primary[team], whists[team]):
            place = i + 1
        out.append(TeamStanding(team=team, place=place, points=points[team], whists=whists[team]))
    return out
