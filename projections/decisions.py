"""The analysis of decisions: each call of the auction, the discard, the contract, each whist
call, open or closed play and each acceptance of a claim, judged by what it was worth against the
best alternative, over the layouts the deciding seat could not tell apart at that moment
(docs/bots.md §8.2).

For every decision of a finished deal, `analyse_decisions` rebuilds the seat's view as it was
(`bots.view.BotView`: its own cards and whatever lay face up, never the real hidden cards),
reads what it knew (`bots.knowledge.read`) and draws layouts of the cards it had not seen
(`bots.sampling.worlds`, weighed by what the auction and the whisting implied,
`bots.inference.weight`; every layout when there are few). In each layout it puts each
alternative down on the table and plays the deal out by one fixed model:

- the rest of the auction, the talon and the discard by the basic bot's rules of thumb
  (`bots.basic`), for every seat, the deciding one included; the contract the lowest the rules
  allow in the strain those rules choose; each whist call the one worth most to its caller with
  every card known (double-dummy whisting, as the cards are played double-dummy);
- the cards double-dummy in a contract or a misère (`domain.solver`: the declarer's par; two
  whisters' tricks shared as a double-dummy play-out shares them), and by the all-pass rules of
  thumb in an all-pass (`bots.rollout`, as the strong bot judges all-pass cards);
- an acceptance: the claimed tricks, against playing on double-dummy (or, in an all-pass, by the
  rules of thumb).

Each outcome is scored alone by the preset's own scoring and settled (`bots.value.deal_results`),
so a value is the seat's result in whists, the game's own unit. A decision's loss is the mean
over the layouts of the best alternative's value minus the chosen one's, with a 95% interval
over the layouts (none when every layout was enumerated: the mean is then exact for the model).

Deterministic: each decision's layouts come from a generator seeded from the deal itself and the
decision's place in it, so the same game is always analysed the same way.
"""

from __future__ import annotations

import hashlib
import math
import random
from collections.abc import Iterator, Sequence
from typing import Literal

import msgspec

from bots import basic
from bots.evaluate import best_strain, declarer_tricks, miser_danger
from bots.inference import weight
from bots.knowledge import REST, Knowledge, read
from bots.rollout import play_out
from bots.sampling import World, count_layouts, enumerate_worlds, sample_world
from bots.value import deal_results
from bots.view import BotView
from domain import game as g
from domain.cards import BID_RANK, DECK, MISER, SUITS, Seat, level_of, sort_hand, strain_of
from domain.deal import decider as deal
from domain.deal.ending import outcome_of
from domain.deal.messages import (
    AnswerClaim,
    BidMade,
    CallWhist,
    ChoosePlay,
    ClaimAnswered,
    Concede,
    Conceded,
    ContractDeclared,
    DealEvent,
    DealStarted,
    Declare,
    Discard,
    Discarded,
    MakeBid,
    Pass,
    Passed,
    PlayChosen,
    SeatCommand,
    TakeTalon,
    WhistCalled,
)
from domain.deal.state import DealFinished, DealState, DealTable, Discarding, Playing
from domain.outcome import DealOutcome
from domain.solver import Position, Solver, advance, from_playing, solve, solver_for
from domain.solver.solve import fits

DecisionKind = Literal["bid", "discard", "contract", "whist", "play_choice", "claim"]
"""The auction (торговля), the discard (снос), the contract (заказ), a whist call (вист, пас,
полвиста), open or closed play (в светлую, втёмную), an acceptance of a claim."""

Verdict = Literal["best", "close", "mistake"]

LAYOUTS = 16
"""Layouts judged per decision at most, when they are too many to take every one (fewer once
the best alternative is clear of the others, `ROUND`)."""
MISTAKE_WHISTS = 2.0
"""A loss this large, with its interval clear of zero, is a mistake; a smaller one, or one the
layouts cannot tell from nothing, is close."""
MISER_WORTH_A_LOOK = 3.0
"""A misère is an alternative to a call only for a hand with at most this much misère danger
(by rule of thumb), as the strong bot looks at it; a misère made is always judged."""
ROUND = 8
"""Layouts are judged in rounds of this many; after each, the search stops once the best
alternative is clear of every other (`_settled`)."""
Z95 = 1.96
MAX_OPTIONS = 5
"""Alternatives judged per decision at most, the chosen one and the best by rule of thumb."""


class DecisionOption(msgspec.Struct, frozen=True, kw_only=True):
    """One alternative of a decision and its mean value to the deciding seat."""

    action: str
    """As `DecisionAnalysis.action` spells it."""
    value: float
    """Mean result of the deal for the deciding seat, in whists, over the layouts."""


class DecisionAnalysis(msgspec.Struct, frozen=True, kw_only=True):
    """One decision judged over the layouts its seat could not tell apart."""

    step: int
    """The replay step at which the seat decided (``?at=step`` shows the table just before the
    decision; the decision is the next event)."""
    kind: DecisionKind
    seat: Seat
    action: str
    """What the seat chose: a bid (``6S``, ``MISER``, ``9SWT``) or ``PASS`` (``DARK`` added
    when made in the dark), ``TAKE_TALON``; two cards for a discard (``7S 8S``); a contract or
    ``CONCEDE``; ``whist``, ``pass`` or ``half_whist``; ``open`` or ``closed``; ``accept`` or
    ``reject``."""
    best: str
    """The alternative of the highest mean value (the chosen one among equals)."""
    options: tuple[DecisionOption, ...]
    """Every alternative judged, the best first."""
    loss: float
    """Whists the choice gave away against the best alternative, on average (0: the best)."""
    low: float | None
    high: float | None
    """The loss's 95% interval over the layouts (both equal to it when they were all judged);
    none when the layouts judged weigh as one (a single layout): no interval can be told from
    one, and the verdict is then never ``mistake``."""
    samples: int
    """Layouts judged."""
    exhaustive: bool
    """Every layout consistent with what the seat knew was judged."""
    verdict: Verdict
    """``best``; ``mistake`` (a loss of at least 2 whists with its interval clear of zero);
    ``close`` otherwise."""
    summary: str = ""
    """One sentence saying so, in the language the replay was asked in."""


# ---- the deal's decisions ---------------------------------------------------------------------


def analyse_decisions(
    before: g.Pulka,
    events: Sequence[DealEvent],
    *,
    layouts: int = LAYOUTS,
) -> tuple[DecisionAnalysis, ...]:
    """Every decision of the finished deal whose events are ``events`` (from its
    ``DealStarted``), judged; ``before`` is the game just before the deal was dealt (its rules,
    seats and exit level)."""
    if not events or not isinstance(events[0], DealStarted):
        raise ValueError("the events must start with the deal's DealStarted")
    seed = hashlib.sha256(b"preferans decisions\0" + msgspec.json.encode(events[0])).digest()
    state: g.Pulka = before
    seats = before.rules.players
    feeds: list[list[g.Event]] = [[] for _ in range(seats)]
    out: list[DecisionAnalysis] = []
    model = Model()
    for i, event in enumerate(events):
        found = _decision(state, event)
        if found is not None:
            kind, seat, taken, legal = found
            view = BotView(
                seat=seat, game=g.game_view(state, seat), history=tuple(feeds[seat]),
                legal=tuple(legal),
            )  # fmt: skip
            rng = random.Random(int.from_bytes(hashlib.sha256(seed + i.to_bytes(2)).digest()[:8]))
            judged = judge(state, view, kind, taken, rng, layouts=layouts, model=model)
            if judged is not None:
                out.append(msgspec.structs.replace(judged, step=i))
        for s in range(seats):
            feeds[s].append(g.redact(event, s, state))
        after = g.evolve(state, event)
        assert isinstance(after, g.Pulka)
        state = after
    return tuple(out)


_KINDS: dict[type, DecisionKind] = {
    BidMade: "bid", Passed: "bid", Discarded: "discard", ContractDeclared: "contract",
    Conceded: "contract", WhistCalled: "whist", PlayChosen: "play_choice",
    ClaimAnswered: "claim",
}  # fmt: skip
_DECIDED = (BidMade, Passed, Discarded, ContractDeclared, Conceded, WhistCalled, PlayChosen,
            ClaimAnswered)  # fmt: skip


def _decision(
    state: g.Pulka, event: DealEvent
) -> tuple[DecisionKind, Seat, SeatCommand, list[SeatCommand]] | None:
    """The decision ``event`` records, if it records one with a choice: its kind, the seat, the
    command it came from and the seat's legal actions then. Events a rule made by itself (a
    forced whist), a totus discard and a claim rejected are not judged."""
    kind = _KINDS.get(type(event))
    if kind is None or not isinstance(event, _DECIDED):
        return None
    if isinstance(event, WhistCalled) and event.forced:
        return None
    if isinstance(event, Discarded) and event.by is not None:
        return None
    if isinstance(event, ContractDeclared) and event.totus:
        return None
    if isinstance(event, ClaimAnswered) and not event.accept:
        return None
    seat: Seat = event.seat
    legal = deal.legal_actions(state.deal, seat)
    if len(legal) < 2:
        return None
    for command in legal:  # the legal command that made this event (the decider accepts each)
        if deal.decide(command, state.deal)[0] == event:
            return kind, seat, command, legal
    return None


# ---- one decision -------------------------------------------------------------------------------


def judge(
    table: g.Pulka,
    view: BotView,
    kind: DecisionKind,
    taken: SeatCommand,
    rng: random.Random,
    *,
    layouts: int = LAYOUTS,
    model: Model | None = None,
) -> DecisionAnalysis | None:
    """``taken`` (one of ``view.legal``) judged against its alternatives over the layouts
    ``view``'s seat could not tell apart; None when there is nothing to judge."""
    model = model if model is not None else Model()
    k = read(view)
    options = _options(kind, k, view.legal, taken, rng)
    if len(options) < 2:
        return None
    seat = view.seat
    values: list[list[float]] = [[] for _ in options]
    weights: list[float] = []
    exhaustive, stream = _layouts(k, rng, layouts)
    for world, w in stream:
        dealt = _lay_out(table.deal, world)
        for j, option in enumerate(options):
            values[j].append(_worth(model, table, dealt, option, seat))
        weights.append(w)
        if not exhaustive and len(weights) % ROUND == 0 and _settled(values, weights):
            break
    if not weights:
        return None
    total = sum(weights)
    means = [sum(w * v for w, v in zip(weights, vs, strict=True)) / total for vs in values]
    chosen = 0  # options[0] is the one taken
    best = max(range(len(options)), key=lambda j: (means[j] - means[chosen] > 1e-9, means[j]))
    if means[best] <= means[chosen] + 1e-9:
        best = chosen
    diffs = [b - c for b, c in zip(values[best], values[chosen], strict=True)]
    loss = max(0.0, means[best] - means[chosen])
    half = 0.0 if exhaustive else _half_width(diffs, weights, loss)
    # An unbounded interval has no JSON number (msgspec writes an infinity as null): none.
    low, high = (None, None) if math.isinf(half) else (round(loss - half, 2), round(loss + half, 2))
    verdict: Verdict = (
        "best"
        if best == chosen
        else "mistake"
        if loss >= MISTAKE_WHISTS and low is not None and low > 0
        else "close"
    )
    labels = [label(o) for o in options]
    ranked = sorted(range(len(options)), key=lambda j: (-means[j], j != chosen, j))
    return DecisionAnalysis(
        step=0, kind=kind, seat=seat, action=labels[chosen], best=labels[best],
        options=tuple(DecisionOption(action=labels[j], value=round(means[j], 2)) for j in ranked),
        loss=round(loss, 2), low=low, high=high, samples=len(weights),
        exhaustive=exhaustive, verdict=verdict,
    )  # fmt: skip


def _settled(values: list[list[float]], weights: list[float]) -> bool:
    """Whether the alternative of the best mean so far is clear of every other one: each
    difference's 95% interval excludes zero, or it is nothing in every layout (then more layouts
    would not change the verdict)."""
    total = sum(weights)
    means = [sum(w * v for w, v in zip(weights, vs, strict=True)) / total for vs in values]
    top = max(range(len(values)), key=means.__getitem__)
    for j, vs in enumerate(values):
        if j == top:
            continue
        diffs = [a - b for a, b in zip(values[top], vs, strict=True)]
        if all(abs(d) < 1e-9 for d in diffs):
            continue  # worth the same in every layout (open or closed play, double-dummy)
        gap = means[top] - means[j]
        if gap - _half_width(diffs, weights, gap) <= 0:
            return False
    return True


def _half_width(diffs: list[float], weights: list[float], mean: float) -> float:
    """Half the 95% interval of a weighted mean over the layouts (Kish's effective count)."""
    total = sum(weights)
    n_eff = total * total / sum(w * w for w in weights)
    if n_eff <= 1.0:
        return math.inf
    var = sum(w * (d - mean) ** 2 for w, d in zip(weights, diffs, strict=True)) / total
    return Z95 * math.sqrt(var / (n_eff - 1.0))


def _layouts(
    k: Knowledge, rng: random.Random, n: int
) -> tuple[bool, Iterator[tuple[World, float]]]:
    """(exhaustive, layouts with their weights): every consistent layout, weighed, when there are
    at most twice ``n`` of them (as counted from the locations' sizes); else ``n`` drawn at
    random, each accepted with a probability equal to its weight (the thirtieth try in a row is
    taken anyway) and then counted alike."""
    if count_layouts(k.hidden, len(k.unseen)) <= 2 * n:
        every = enumerate_worlds(k)
        if every:
            return True, ((w, weight(k, w)) for w in every)

    def drawn() -> Iterator[tuple[World, float]]:
        for _ in range(n):
            for tries in range(30):
                w = sample_world(k, rng)
                if rng.random() <= weight(k, w) or tries == 29:
                    yield w, 1.0
                    break

    return False, drawn()


def _lay_out(state: DealState, world: World) -> DealState:
    """``state`` with the cards its seat could not see put where ``world`` says: the other hands,
    and (`REST`) the face-down talon first, then the discard."""
    assert isinstance(state, DealTable)
    hands = list(state.hands)
    for seat, cards in world.items():
        if seat != REST:
            hands[seat] = sort_hand(cards)
    rest = world.get(REST, ())
    changes: dict[str, object] = {"hands": tuple(hands)}
    if rest:
        n_talon = len(state.talon)
        changes["talon"] = tuple(rest[:n_talon])
        if len(rest) > n_talon:
            changes["discard"] = tuple(sorted(rest[n_talon:], key=DECK.index))
    return msgspec.structs.replace(state, **changes)


# ---- the alternatives -------------------------------------------------------------------------


def label(command: SeatCommand) -> str:
    """An alternative as `DecisionAnalysis.action` spells it."""
    dark = " DARK" if getattr(command, "dark", False) else ""
    match command:
        case MakeBid():
            return command.bid + dark
        case Pass():
            return "PASS" + dark
        case TakeTalon():
            return "TAKE_TALON"
        case Discard():
            return " ".join(sorted(command.cards, key=DECK.index))
        case Declare():
            return command.contract
        case CallWhist():
            return command.choice
        case ChoosePlay():
            return "open" if command.open else "closed"
        case AnswerClaim():
            return "accept" if command.accept else "reject"
        case Concede():
            return "CONCEDE"
    return type(command).__name__


def _options(
    kind: DecisionKind,
    k: Knowledge,
    legal: Sequence[SeatCommand],
    taken: SeatCommand,
    rng: random.Random,
) -> list[SeatCommand]:
    """The alternatives judged: the one taken first, then the rule-of-thumb choice and the
    plausible others of its kind (every one where they are few)."""
    out: list[SeatCommand] = [taken]

    def add(*commands: SeatCommand | None) -> None:
        for c in commands:
            if c is not None and c in legal and c not in out and len(out) < MAX_OPTIONS:
                out.append(c)

    fallback = _basic(k, legal, rng)
    if kind == "bid":
        light = sorted(
            (a for a in legal if isinstance(a, MakeBid) and not a.dark),
            key=lambda a: BID_RANK[a.bid],
        )
        passes = [a for a in legal if isinstance(a, Pass) and not a.dark]
        add(fallback, *passes[:1], *[a for a in light if a.bid != MISER][:1])
        hand = k.hands.get(k.seat, ())
        if len(hand) == 10 and miser_danger(hand) <= MISER_WORTH_A_LOOK:
            add(*[a for a in light if a.bid == MISER])
        add(*[a for a in legal if isinstance(a, TakeTalon)])
    elif kind == "discard":
        add(fallback, *_discards(k, legal))
    elif kind == "contract":
        declares = [a for a in legal if isinstance(a, Declare)]
        hand = k.hands.get(k.seat, ())
        ranked = _strains(hand)
        lowest: dict[str, SeatCommand] = {}
        for d in declares:
            lowest.setdefault(strain_of(d.contract) or "NT", d)
        add(fallback, *declares[:1], *(lowest.get(s) for s in ranked[:2]))
        add(*[a for a in legal if isinstance(a, Concede)])
    else:  # whist, open or closed, a claim: every alternative of the kind
        add(*[a for a in legal if type(a) is type(taken)])
    return out


def _basic(k: Knowledge, legal: Sequence[SeatCommand], rng: random.Random) -> SeatCommand | None:
    """The basic bot's choice from what the seat knew (a reference alternative)."""
    phase = k.deal.phase
    if phase == "bidding":
        return basic.bid(k, tuple(legal))
    if phase == "discarding":
        return basic.discard(k, tuple(legal))
    if phase == "declaring":
        return basic.declare(k, tuple(legal))
    if phase == "whisting":
        return basic.whist(k, tuple(legal))
    del rng
    return None


def _strains(hand: tuple[str, ...]) -> list[str]:
    """Strains ("NT" for no-trump) by the hand's rule-of-thumb tricks in them, best first."""
    scored = sorted(((declarer_tricks(hand, s), s) for s in SUITS), reverse=True)
    scored.append((declarer_tricks(hand, None), "NT"))
    return [s for _, s in sorted(scored, key=lambda x: -x[0])]


def _discards(k: Knowledge, legal: Sequence[SeatCommand]) -> list[Discard]:
    """The legal discards that keep the most by rule of thumb: the fewest dangerous cards for a
    misère, else the most tricks in the hand's two best strains."""
    hand = k.hands.get(k.seat, ())
    pairs = [a for a in legal if isinstance(a, Discard)]
    if k.deal.bid == MISER:

        def score(a: Discard) -> float:
            return -miser_danger(tuple(c for c in hand if c not in a.cards))
    else:
        strain, _ = best_strain(hand)
        second = next(s for s in _strains(hand) if s != (strain or "NT"))
        trumps = (strain, None if second == "NT" else second)

        def score(a: Discard) -> float:
            kept = tuple(c for c in hand if c not in a.cards)
            return max(declarer_tricks(kept, t) for t in trumps)

    return sorted(pairs, key=score, reverse=True)[: MAX_OPTIONS - 1]


# ---- the model: what an alternative leads to --------------------------------------------------


def _worth(
    model: Model, table: g.Pulka, dealt: DealState, command: SeatCommand, seat: Seat
) -> float:
    """``seat``'s result in whists when ``command`` is made in ``dealt`` and the deal is played
    out by the model (module docstring)."""
    after = deal.fold(dealt, deal.decide(command, dealt))
    return model.result(model.play_on(table, after), table)[seat]


class Model:
    """The model a decision's alternatives are played out by (module docstring), with what it
    has already worked out kept for the rest of the deal: the basic bot's choice for each hand
    and situation, a solver per kind of position (so one layout's table serves the next), and
    each outcome's score."""

    def __init__(self) -> None:
        self._moves: dict[tuple[object, ...], SeatCommand] = {}
        self._solvers: dict[tuple[object, ...], Solver] = {}
        self._results: dict[DealOutcome, tuple[float, ...]] = {}
        self._played: dict[tuple[object, ...], list[int]] = {}
        self._rng = random.Random(0)  # the rules of thumb draw nothing; it is their signature

    def result(self, outcome: DealOutcome, table: g.Pulka) -> tuple[float, ...]:
        """Each seat's result of ``outcome`` in whists (`bots.value.deal_results`)."""
        got = self._results.get(outcome)
        if got is None:
            got = self._results[outcome] = tuple(
                float(v) for v in deal_results(outcome, table.rules)
            )
        return got

    def play_on(self, table: g.Pulka, state: DealState) -> DealOutcome:
        """The outcome of ``state``'s deal played out by the model (module docstring): the
        rules of thumb for the calls, double-dummy whisting and cards (an all-pass by the rules
        of thumb), a pending claim accepted by those still to answer it."""
        for _ in range(64):
            if isinstance(state, DealFinished):
                return state.outcome
            if isinstance(state, Playing):
                if state.claim is not None:
                    seat = deal.to_act(state)[0]
                    answer = AnswerClaim(seat=seat, accept=True)
                    state = deal.fold(state, deal.decide(answer, state))
                    continue
                return self.played(state)
            state = deal.fold(state, deal.decide(self._move(table, state), state))
        raise AssertionError("a deal's calls end within 64 moves")

    def _move(self, table: g.Pulka, state: DealState) -> SeatCommand:
        """The basic bot's move for the seat to act, but for the contract: the lowest the rules
        allow in the strain the rules of thumb choose (they would often name more than a hand
        makes; a higher contract is judged as a decision of its own). What the seat sees of
        ``state`` decides it (its own hand, the legal actions, the bid, the contract and the
        whist calls so far), so the same situation is thought out once."""
        seat = deal.to_act(state)[0]
        legal = tuple(deal.legal_actions(state, seat))
        calls = [a for a in legal if isinstance(a, CallWhist)]
        if calls:
            return self._whist_call(table, state, seat, calls)
        assert isinstance(state, DealTable)
        key: tuple[object, ...] = (
            type(state), seat, state.hands[seat], legal, getattr(state, "bid", None),
            getattr(state, "contract", None), getattr(state, "calls", None),
        )  # fmt: skip
        if isinstance(state, Discarding):  # the rules of thumb discard by the hand alone
            key = (Discarding, seat, state.hands[seat], state.bid == MISER, len(legal))
        move = self._moves.get(key)
        if move is None:
            view = BotView(
                seat=seat, game=g.game_view(msgspec.structs.replace(table, deal=state), seat),
                history=(), legal=legal,
            )  # fmt: skip
            move = basic.decide(view, self._rng)
            if isinstance(move, Declare) and move.contract != MISER:
                strain = strain_of(move.contract)
                move = next(
                    a for a in legal
                    if isinstance(a, Declare) and a.contract != MISER
                    and strain_of(a.contract) == strain
                )  # fmt: skip
            self._moves[key] = move
        return move

    def _whist_call(
        self, table: g.Pulka, state: DealState, seat: Seat, calls: list[CallWhist]
    ) -> SeatCommand:
        """The call worth most to ``seat`` with every card known (the partner answering alike):
        double-dummy whisting, as the cards are played double-dummy; a pass among equals."""
        best: tuple[float, CallWhist] | None = None
        for call in sorted(calls, key=lambda c: c.choice != "pass"):
            after = deal.fold(state, deal.decide(call, state))
            value = self.result(self.play_on(table, after), table)[seat]
            if best is None or value > best[0] + 1e-9:
                best = (value, call)
        assert best is not None
        return best[1]

    def solver(self, pos: Position) -> Solver:
        """A solver for ``pos`` shared by the positions of its kind."""
        key = (pos.trump, pos.mode, pos.order.index(pos.focus), pos.talon_leads)
        s = self._solvers.get(key)
        if s is None or not fits(s, pos):
            s = self._solvers[key] = solver_for(pos)
        return s

    def played(self, state: Playing) -> DealOutcome:
        """The outcome of the play from ``state`` (every card known): a contract's or a
        misère's par, two whisters' tricks shared as a double-dummy play-out shares them; an
        all-pass by the rules of thumb."""
        whisters = tuple(d.seat for d in state.defenders if d.choice == "whist")
        # The play does not depend on who whists, only how the defence's tricks are shared:
        # one solve (or play-out) per position, whatever the calls that led to it.
        key = (
            state.hands, state.talon, state.turned, state.trump, state.kind, state.declarer,
            state.turn, state.trick, state.tricks_played, state.tricks, len(whisters) == 2,
        )  # fmt: skip
        taken = self._played.get(key)
        if taken is None:
            taken = self._played[key] = self._tricks(state, len(whisters) == 2)
        tricks = list(taken)
        if state.kind != "raspasy" and len(whisters) == 1:
            # a single whister writes for the defence's tricks, the passer's too
            defenders = [s for s in state.order if s != state.declarer]
            gained = sum(tricks[s] - state.tricks[s] for s in defenders)
            for s in defenders:
                tricks[s] = state.tricks[s]
            tricks[whisters[0]] += gained
        return outcome_of(
            state, kind=state.kind, tricks=dict(enumerate(tricks)), contract=state.contract,
            defenders=state.defenders, open_play=state.open_play, checked=state.checked,
            totus=state.totus,
        )  # fmt: skip

    def _tricks(self, state: Playing, shared: bool) -> list[int]:
        """Each seat's tricks at the end of the play from ``state``; the defence's shared as a
        double-dummy play-out shares them when ``shared`` (two whisters), else all the first
        defender's."""
        tricks = list(state.tricks)
        if state.kind == "raspasy":
            pos = from_playing(state, focus=state.order[0])
            order = pos.order
            hands = [pos.hands[s] for s in order]
            trick = [(order.index(s), 1 << c) for s, c in pos.trick]
            leader = order.index(pos.trick[0][0]) if pos.trick else order.index(pos.turn)
            taken = play_out(hands, leader, trick, pos.tricks_played, pos.talon_leads,
                             pos.forehand_leads_until)  # fmt: skip
            for slot, n in enumerate(taken):
                tricks[order[slot]] += n
        else:
            assert state.declarer is not None
            pos = from_playing(state)
            solver = self.solver(pos)
            if shared:
                for s, n in dd_play_out(pos, solver).items():
                    tricks[s] += n
            else:
                level = level_of(state.contract) if state.kind == "game" and state.contract else 0
                guess = max(0, min(pos.tricks_left, level - tricks[state.declarer]))
                par = solve(pos, solver=solver, values=False, guess=guess).focus_tricks
                tricks[state.declarer] += par
                rest = pos.tricks_left - par
                defenders = [s for s in state.order if s != state.declarer]
                tricks[defenders[0]] += rest
        return tricks


def dd_play_out(pos: Position, solver: Solver | None = None) -> dict[Seat, int]:
    """Tricks each active seat takes from ``pos`` when every hand plays a card that keeps par
    (the first such card in the deck's order): par for the focus, shared among the others as
    that play shares them."""
    if solver is None or not fits(solver, pos):
        solver = solver_for(pos)
    taken = dict.fromkeys(pos.order, 0)
    at: Position | None = pos
    while at is not None:
        card = solve(at, solver=solver, values=True).best()[0]
        at, won = advance(at, card)
        if won is not None:
            taken[won] += 1
    return taken


__all__ = [
    "LAYOUTS",
    "DecisionAnalysis",
    "DecisionKind",
    "DecisionOption",
    "Model",
    "analyse_decisions",
    "dd_play_out",
    "judge",
    "label",
]
