"""Colluding bots and a population of bots that play together: the test bed of the fair-play
statistics (docs/fair-play.md). The service never seats them.

A colluder is the basic bot (`bots.basic`) with one friend and the whole deal in view (every
hand: what a phone call across the table would tell, and more):

- a ``feeder`` (играть на лапу) plays double-dummy for his friend: when the friend declares it
  plays the card that leaves him most tricks; when both defend it plays the defence's best
  card; in an all-pass it plays the card that leaves the friend fewest tricks;
- a ``passer`` passes to let the friend win: out of the auction while the friend is in it, and
  pass rather than whist against the friend's contract.

`play_population` plays pulkas of three drawn from a population in which colluding pairs seek
each other's tables, and yields each game's events (nothing is stored; the caller folds them).
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Mapping, Sequence
from typing import Literal

from bots import LEVELS
from bots.common import find_whist, of_type
from bots.view import SeatFeed
from domain import game as g
from domain.deal.messages import Pass, PlayCard, SeatCommand
from domain.deal.state import Bidding, Playing, Whisting
from domain.rules import rules_for
from domain.simulation import random_deal
from domain.solver import card_value, from_playing, solve, solver_for

Kind = Literal["feeder", "passer"]


def _dd_card(state: Playing, plays: Sequence[PlayCard], focus: int, most: bool) -> PlayCard:
    """The card that leaves ``focus`` most (or fewest) tricks, double-dummy."""
    pos = from_playing(state, focus=focus)
    solver = solver_for(pos)
    par = solve(pos, solver=solver, values=False).focus_tricks
    scored = [(card_value(pos, p.card, par=par, solver=solver), i) for i, p in enumerate(plays)]
    _, index = (max if most else min)(scored)
    return plays[index]


def colluder_move(kind: Kind, state: g.Pulka, seat: int, friend: int) -> SeatCommand | None:
    """The colluder's move at ``seat`` with his friend at ``friend``; None: play honestly."""
    deal = state.deal
    legal = g.legal_actions(state, seat)
    if kind == "feeder" and isinstance(deal, Playing) and deal.claim is None:
        plays = of_type(legal, PlayCard)
        if len(plays) < 2:
            return None
        if deal.kind == "raspasy":
            return _dd_card(deal, plays, friend, most=False) if friend in deal.order else None
        declarer = deal.declarer
        if declarer is None or seat == declarer:
            return None
        if declarer == friend:
            return _dd_card(deal, plays, declarer, most=deal.kind != "miser")
        if any(d.seat == friend for d in deal.defenders):
            return _dd_card(deal, plays, declarer, most=deal.kind == "miser")
        return None
    if kind == "passer":
        if isinstance(deal, Whisting) and deal.declarer == friend:
            return find_whist(legal, "pass")
        if (
            isinstance(deal, Bidding)
            and friend in deal.order
            and friend not in deal.passed
            and deal.highest is not None
        ):
            return next((a for a in legal if isinstance(a, Pass) and not a.dark), None)
    return None


def play_pulka(
    players: Sequence[str],
    rng: random.Random,
    friends: Mapping[str, tuple[str, Kind]],
    *,
    target: int = 10,
) -> list[g.Event]:
    """One pulka of three; a player in ``friends`` colludes with his friend when both sit."""
    rules = rules_for("sochi", {"pool": {"target": target}})
    state: g.GameState = g.INITIAL_STATE
    events: list[g.Event] = []
    feeds = [SeatFeed(s) for s in range(3)]
    seat_of = {p: s for s, p in enumerate(players)}
    basic = LEVELS["basic"]

    def do(command: g.Command) -> None:
        nonlocal state
        for e in g.decide(command, state):
            state = g.evolve(state, e)
            events.append(e)
            for feed in feeds:
                feed.add(e)

    do(g.CreateGame(rules=rules, first_dealer=rng.randrange(3)))
    for seat, player in enumerate(players):
        do(g.TakeSeat(seat=seat, player=player))
    while not g.is_terminal(state):
        assert isinstance(state, g.Pulka)
        if g.needs_cards(state):
            do(random_deal(rng, 3, state.next_dealer))
            continue
        seat = g.to_act(state)[0]
        move: SeatCommand | None = None
        pact = friends.get(players[seat])
        if pact is not None and pact[0] in seat_of:
            move = colluder_move(pact[1], state, seat, seat_of[pact[0]])
        do(move if move is not None else basic(feeds[seat].view(), rng, 0.0))
    return events


def play_population(
    seed: int,
    players: Sequence[str],
    pairs: Sequence[tuple[str, str, Kind]],
    games: int,
    *,
    together: float = 0.5,
    target: int = 10,
) -> Iterator[tuple[str, list[g.Event]]]:
    """``games`` pulkas of three drawn from ``players``; each colluding pair ``(a, b, kind)``
    (both collude) sits together, with a third drawn at random, in ``together`` of the
    games; the rest are three drawn at random. Yields ``(game id, events)``."""
    rng = random.Random(seed)
    friends: dict[str, tuple[str, Kind]] = {}
    for a, b, kind in pairs:
        friends[a], friends[b] = (b, kind), (a, kind)
    for n in range(games):
        if pairs and rng.random() < together:
            a, b, _ = pairs[rng.randrange(len(pairs))]
            third = rng.choice([p for p in players if p not in (a, b)])
            table = [a, b, third]
        else:
            table = rng.sample(list(players), 3)
        rng.shuffle(table)
        yield f"sim-{seed}-{n}", play_pulka(table, rng, friends, target=target)
