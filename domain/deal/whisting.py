"""The defenders' side of a contract: what follows its declaration (misère and a checked 10 go
straight to play, a compulsory whist is called for them), their whisting calls (вист, пас,
полвиста), the single whister's choice of open or closed play, and the start of play.

Who speaks and what he may say is `domain.deal.whisting_rules`; this module turns calls into
events.
"""

from __future__ import annotations

from domain.cards import Seat, is_miser, level_of, trump_of
from domain.deal import whisting_rules
from domain.deal.ending import outcome_of
from domain.deal.evolve import evolve
from domain.deal.messages import (
    CallWhist,
    ChoosePlay,
    DealEnded,
    DealEvent,
    HandLookedAt,
    HandsOpened,
    LookAtHand,
    PlayChosen,
    PlayStarted,
    WhistCalled,
)
from domain.deal.state import Whisting, own_controllers
from domain.errors import NotYourTurn, refuse
from domain.outcome import DealKind, DefenderRole


def after_contract(state: Whisting) -> list[DealEvent]:
    """What follows the declaration: misère and a checked 10 go straight to play; a compulsory
    whist is called for the defenders; otherwise the first opponent speaks."""
    first, second = whisting_rules.defenders(state)
    contract = state.contract
    if is_miser(contract):
        roles = (DefenderRole(seat=first, choice="pass"), DefenderRole(seat=second, choice="pass"))
        return _start_play(state, "miser", roles, open_play=False)
    if level_of(contract) == 10 and state.rules.whist.ten_is_checked:
        roles = (DefenderRole(seat=first, choice="pass"), DefenderRole(seat=second, choice="pass"))
        return _start_play(state, "game", roles, open_play=False, checked=True)
    compulsory = (contract == "6S" and state.rules.whist.stalingrad) or (
        state.dark and level_of(contract) == 6
    )
    if compulsory:
        roles = (
            DefenderRole(seat=first, choice="whist", whist_rank=1, forced=True),
            DefenderRole(seat=second, choice="whist", whist_rank=2, forced=True),
        )
        return [
            WhistCalled(seat=first, choice="whist", forced=True),
            WhistCalled(seat=second, choice="whist", forced=True),
            *_start_play(state, "game", roles, open_play=False),
        ]
    return []


def call_whist(command: CallWhist, state: Whisting) -> list[DealEvent]:
    opts = whisting_rules.options(state)
    if opts is None:
        if whisting_rules.gentleman_half_whist_open(state) and command.choice == "half_whist":
            first, _ = whisting_rules.defenders(state)
            if command.seat != first:
                raise NotYourTurn("only the first opponent may go to half-whist now")
            return [WhistCalled(seat=command.seat, choice="half_whist")]
        raise refuse("whisting_over", "whisting is over: the whister chooses open or closed play")
    seat, choices = opts
    if command.seat != seat:
        raise NotYourTurn(f"it is seat {seat}'s turn to whist, not seat {command.seat}'s")
    if command.choice not in choices:
        if seat == state.dealer and state.seats == 4:
            if command.choice == "whist":
                raise refuse(
                    "dealer_look_first",
                    "look at the cards of one of the declarer's opponents first: the dealer "
                    "whists with that hand",
                )
            raise refuse("whist_choice", "the dealer may whist or pass, not half-whist")
        if command.choice == "half_whist":
            raise refuse(
                "half_whist_not_allowed",
                "half-whist (полвиста) is only possible on 6 and 7 after the first opponent passed",
            )
        raise refuse("whist_choice", f"choose one of: {', '.join(choices)}")
    event = WhistCalled(seat=seat, choice=command.choice)
    after = evolve(state, event)
    assert isinstance(after, Whisting)
    if whisting_rules.options(after) is not None:
        return [event]
    resolution = whisting_rules.resolve(after)
    if resolution.mode == "no_play":
        tricks = {s: 0 for s in state.order}
        outcome = outcome_of(
            after, kind="game", tricks=tricks, contract=state.contract, played=False,
            defenders=resolution.roles,
        )  # fmt: skip
        return [event, DealEnded(outcome=outcome)]
    if resolution.mode == "double":
        return [event, *_start_play(after, "game", resolution.roles, open_play=False)]
    if resolution.whister == state.dealer and whisting_rules.dealer_whists_open(after):
        return [event, *_start_play(after, "game", resolution.roles, open_play=True)]
    return [event]  # a single whister now chooses open or closed play


def look_at_hand(command: LookAtHand, state: Whisting) -> list[DealEvent]:
    """The dealer at four, asked whether he whists, looks at one opponent's cards (3.8.8)."""
    opts = whisting_rules.options(state)
    if not whisting_rules.dealer_asked(state) or opts is None or command.seat != opts[0]:
        raise NotYourTurn("only the dealer at a table of four, asked last whether he whists, "
                          "may look at an opponent's cards")  # fmt: skip
    if not whisting_rules.dealer_may_look(state):
        raise refuse(
            "dealer_look_off", "here the dealer whists with both opponents' hands laid open"
        )
    if whisting_rules.dealer_look(state) is not None:
        raise refuse("hand_already_looked_at", "the dealer looks at one opponent's cards only")
    if command.hand not in whisting_rules.defenders(state):
        raise refuse("not_an_opponent", f"seat {command.hand} is not an opponent of the declarer")
    return [HandLookedAt(seat=command.seat, hand=command.hand)]


def choose_play(command: ChoosePlay, state: Whisting) -> list[DealEvent]:
    if whisting_rules.options(state) is not None:
        raise refuse("whisting_not_over", "the opponents have not finished whisting")
    resolution = whisting_rules.resolve(state)
    if resolution.mode != "single":
        raise refuse("no_single_whister", "open or closed play is chosen by a single whister")
    if command.seat != resolution.whister:
        raise NotYourTurn(f"the whister (seat {resolution.whister}) chooses how to play")
    return [
        PlayChosen(seat=command.seat, open=command.open),
        *_start_play(state, "game", resolution.roles, open_play=command.open),
    ]


def _start_play(
    state: Whisting,
    kind: DealKind,
    roles: tuple[DefenderRole, ...],
    *,
    open_play: bool,
    checked: bool = False,
) -> list[DealEvent]:
    """Play begins: who plays which hand, which hands lie open, and who leads.

    An open single whister plays the passer's cards too; a whisting dealer at four has no cards
    of his own and plays both opponents' hands when open, else the hand he looked at.
    """
    contract = state.contract
    controllers = list(own_controllers(state))
    opened: dict[Seat, tuple[str, ...]] = {}
    whister = next((r.seat for r in roles if r.choice == "whist"), None)
    if open_play:
        assert whister is not None
        passers = [r.seat for r in roles if r.choice != "whist"]
        for passer in passers:
            controllers[passer] = whister
        opened = {s: state.hands[s] for s in (whister, *passers) if state.hands[s]}
    elif whister is not None and whister not in state.order:
        looked = whisting_rules.dealer_look(state)
        assert looked is not None
        controllers[looked] = whister
    if checked:
        opened = {s: state.hands[s] for s in state.order}
    leader = state.order[0]
    if (
        kind == "miser"
        and leader != state.declarer
        and state.rules.play.miser_open_timing == "codex"
    ):
        opened = {r.seat: state.hands[r.seat] for r in roles}
    events: list[DealEvent] = [
        PlayStarted(
            kind=kind,
            controllers=tuple(controllers),
            trump=trump_of(contract) if kind == "game" and contract else None,
            leader=leader,
            declarer=state.declarer,
            contract=contract,
            defenders=roles,
            open_play=open_play,
            checked=checked,
        )
    ]
    if opened:
        events.append(HandsOpened.of(opened))
    return events
