"""The deal as a decider: ``decide(command, state) -> events`` and ``evolve(state, event)``.

Every rule lives in `decide` (and the helpers it calls); `evolve` only records facts, so a deal
folds from its events without running a rule. `legal_actions` lists everything a seat may do now;
`decide` accepts exactly those commands and refuses anything else with a typed error.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgspec

from domain.cards import BID_RANK, DECK, LADDER, MISER, SORT_KEY, level_of, trump_of
from domain.deal import bidding, whisting
from domain.deal.messages import (
    AllPassed,
    AuctionWon,
    BidMade,
    CallWhist,
    CardPlayed,
    CardsLooked,
    ChoosePlay,
    Concede,
    Conceded,
    ContractDeclared,
    DealEnded,
    DealEvent,
    DealStarted,
    Declare,
    DeclareTotus,
    Discard,
    Discarded,
    HandsOpened,
    LookAtCards,
    MakeBid,
    Pass,
    Passed,
    PlayCard,
    PlayChosen,
    PlayStarted,
    SeatCommand,
    StartDeal,
    TakeTalon,
    TalonCardTurned,
    TalonTaken,
    TotusShown,
    TrickWon,
    WhistCalled,
)
from domain.deal.play import playable, refusal_reason, trick_winner
from domain.deal.state import (
    AwaitingDeal,
    AwaitingTalon,
    Bidding,
    Contracted,
    DealFinished,
    DealState,
    DealTable,
    Declaring,
    Discarding,
    Playing,
    Seat,
    TotusDiscarding,
    Whisting,
    contract_fields,
    table_fields,
)
from domain.errors import DealOver, InvalidLayout, NotationError, NotYourTurn, WrongPhase, refuse
from domain.outcome import DealOutcome, DefenderRole
from domain.rules import Rules

_DECK = frozenset(DECK)


def initial_state(rules: Rules) -> AwaitingDeal:
    return AwaitingDeal(rules=rules)


def is_terminal(state: DealState) -> bool:
    return isinstance(state, DealFinished)


def active_order(dealer: Seat, seats: int) -> tuple[Seat, Seat, Seat]:
    """First, second and third hand: clockwise from the dealer's left. At three the dealer is the
    third hand; at four he sits out (RULES.md §A)."""
    return ((dealer + 1) % seats, (dealer + 2) % seats, (dealer + 3) % seats)


# ---- decide ---------------------------------------------------------------------------------


def decide(command: StartDeal | SeatCommand, state: DealState) -> list[DealEvent]:
    """The events that ``command`` causes in ``state``; raises `IllegalAction` if not allowed."""
    if isinstance(state, DealFinished):
        raise DealOver("the deal is over: no more actions are possible in it")
    if isinstance(command, StartDeal):
        if not isinstance(state, AwaitingDeal):
            raise WrongPhase("the cards are already dealt", code="illegal.already_dealt")
        return [_deal(command, state.rules)]
    if isinstance(state, AwaitingDeal):
        raise WrongPhase("no cards have been dealt yet", code="illegal.not_dealt")
    if not 0 <= command.seat < state.seats or command.seat not in state.order:
        raise NotYourTurn(f"seat {command.seat} does not play in this deal")
    handler = _HANDLERS.get((type(command), type(state)))
    if handler is None:
        raise WrongPhase(
            f"'{type(command).__struct_config__.tag}' is not possible during "
            f"{_PHASE_NAMES[type(state)]}"
        )
    return handler(command, state)


def _deal(command: StartDeal, rules: Rules) -> DealStarted:
    seats = rules.players
    hands, talon = command.hands, command.talon
    if len(hands) != seats:
        raise InvalidLayout(f"a table of {seats} needs {seats} hands, got {len(hands)}")
    if not 0 <= command.dealer < seats:
        raise InvalidLayout(f"dealer {command.dealer} is not a seat of a table of {seats}")
    for seat, hand in enumerate(hands):
        want = 0 if seats == 4 and seat == command.dealer else 10
        if len(hand) != want:
            raise InvalidLayout(f"seat {seat} must hold {want} cards, got {len(hand)}")
    cards = [c for hand in hands for c in hand] + list(talon)
    if len(cards) != 32 or frozenset(cards) != _DECK:
        raise InvalidLayout("the hands and the talon must hold each of the 32 cards exactly once")
    if not 6 <= command.min_level <= 10:
        raise InvalidLayout("the minimum opening level must be between 6 and 10")
    return DealStarted(
        dealer=command.dealer,
        hands=tuple(tuple(sorted(h, key=SORT_KEY.__getitem__)) for h in hands),
        talon=talon,
        min_level=command.min_level,
    )


def _turn(state: Bidding | Playing, seat: Seat, what: str) -> None:
    if seat != state.turn:
        raise NotYourTurn(f"it is seat {state.turn}'s turn to {what}, not seat {seat}'s")


# -- bidding


def _check_darkness(state: Bidding, seat: Seat, dark: bool) -> None:
    looked = seat in state.looked
    if dark and not state.rules.classic.dark_games:
        raise refuse("dark_games_off", "calls in the dark (втёмную) are not played in this game")
    if dark and looked:
        raise refuse("dark_after_looking", "a dark call must be made before looking at the cards")
    if not dark and not looked:
        raise refuse("look_first", "look at your cards first, or call in the dark")


def _look(command: LookAtCards, state: Bidding) -> list[DealEvent]:
    if not state.rules.classic.dark_games:
        raise refuse("dark_games_off", "cards are looked at as dealt when dark games are off")
    if command.seat in state.looked:
        raise refuse("already_looked", "you have already looked at your cards")
    return [CardsLooked(seat=command.seat)]


def _after_call(state: Bidding, passed: tuple[Seat, ...]) -> list[DealEvent]:
    """End of the auction: everyone passed, or two passed after a bid (Lesnoy 3.3.12–3.3.13)."""
    if len(passed) == 3:
        return [AllPassed(), *_start_raspasy(state)]
    if len(passed) == 2 and state.highest_by is not None and state.highest_by not in passed:
        winner = state.highest_by
        return [AuctionWon(seat=winner, bid=state.highest, dark=state.highest_dark)]
    return []


def _known_bid(bid: str) -> str:
    """Commands built in Python skip the JSON pattern check: malformed bids fail here, typed."""
    if bid not in BID_RANK:
        raise NotationError(f"{bid!r} is not a bid: expected 6S … 10NT or MISER")
    return bid


def _bid(command: MakeBid, state: Bidding) -> list[DealEvent]:
    _known_bid(command.bid)
    _turn(state, command.seat, "bid")
    _check_darkness(state, command.seat, command.dark)
    seat, bid = command.seat, command.bid
    if bid == MISER:
        if not bidding.may_bid_miser(state, seat):
            if seat in state.bidders:
                raise refuse(
                    "miser_after_trick_bid",
                    "misère may only be a player's first bid (мизер кабальный)",
                )
            raise refuse("bid_not_higher", f"misère is not above the current bid {state.highest}")
    elif bid not in bidding.trick_bids(state, seat, dark=command.dark):
        raise _bid_refusal(state, seat, bid)
    hold = bid == state.highest
    waived = not hold and bidding.holder(state) == seat
    event = BidMade(seat=seat, bid=bid, hold=hold, dark=command.dark, hold_waived=waived)
    after = _evolve_bid(state, event)
    return [event, *_after_call(after, after.passed)]


def _bid_refusal(state: Bidding, seat: Seat, bid: str) -> Exception:
    if seat == state.miser_by:
        return refuse(
            "trick_bid_after_miser", "a player who bid misère may not bid a trick game afterwards"
        )
    if state.highest == MISER and state.highest_dark:
        return refuse("dark_miser", "a dark misère is overcalled only by a dark 10")
    floor = bidding.effective_min_level(state)
    if level_of(bid) < floor:
        return refuse("below_minimum", f"the bidding opens at {floor} in this deal")
    if state.highest is not None and BID_RANK[bid] <= BID_RANK[state.highest]:
        if bid == state.highest:
            return refuse("hold_not_allowed", f"you may not hold («здесь») at {bid} now")
        return refuse("bid_not_higher", f"{bid} is not above the current bid {state.highest}")
    return refuse("jump_bid", "bids go up one step at a time (no jump bids in this game)")


def _pass(command: Pass, state: Bidding) -> list[DealEvent]:
    _turn(state, command.seat, "bid")
    if command.dark:
        if not bidding.may_pass_dark(state, command.seat):
            raise refuse(
                "dark_pass_not_allowed",
                "a dark pass is made before looking and before anyone has bid",
            )
    else:
        _check_darkness(state, command.seat, False)
    event = Passed(seat=command.seat, dark=command.dark)
    after = _evolve_passed(state, event)
    return [event, *_after_call(after, after.passed)]


def _silent_take(command: TakeTalon, state: Bidding) -> list[DealEvent]:
    _turn(state, command.seat, "bid")
    if not bidding.may_take_talon_silently(state, command.seat):
        raise refuse(
            "talon_not_yours", "only the auction's winner takes the talon (or the last hand "
            "after two passes, where the rules allow a silent take)",
        )  # fmt: skip
    return [
        AuctionWon(seat=command.seat, bid=None),
        TalonTaken(seat=command.seat, cards=tuple(state.talon)),  # type: ignore[arg-type]
    ]


def _start_raspasy(state: DealTable) -> list[DealEvent]:
    """All-pass (распасы): no trumps; the talon cards set the suit of the first two tricks."""
    events: list[DealEvent] = [
        PlayStarted(
            kind="raspasy",
            controllers=_own_controllers(state),
            trump=None,
            leader=state.order[0],
        )
    ]
    if state.rules.raspasy.use_talon:
        events.append(TalonCardTurned(card=state.talon[0]))
    return events


def _own_controllers(state: DealTable) -> tuple[Seat, ...]:
    return tuple(s if s in state.order else -1 for s in range(state.seats))


# -- talon, discard, contract


def _declarer_only(state: Contracted, seat: Seat, what: str) -> None:
    if seat != state.declarer:
        raise NotYourTurn(f"only the declarer (seat {state.declarer}) may {what}")


def _take_talon(command: TakeTalon, state: AwaitingTalon) -> list[DealEvent]:
    _declarer_only(state, command.seat, "take the talon")
    cards = tuple(state.talon)
    return [TalonTaken(seat=command.seat, cards=cards, shown=not state.dark)]  # type: ignore[arg-type]


def _dark_miser_switch(command: Declare, state: AwaitingTalon) -> list[DealEvent]:
    """Before taking a dark game's talon the winner may switch to misère: the talon is then
    shown and the doubling is gone (Lesnoy 3.3.19b)."""
    _declarer_only(state, command.seat, "declare")
    _known_bid(command.contract)
    if not (state.dark and command.contract == MISER and _below_miser(state.bid)):
        raise refuse(
            "declare_after_discard", "take the talon and discard before naming the contract"
        )
    return [
        AuctionWon(seat=command.seat, bid=MISER, dark=False),
        TalonTaken(seat=command.seat, cards=tuple(state.talon), shown=True),  # type: ignore[arg-type]
    ]


def _below_miser(bid: str | None) -> bool:
    return bid is not None and BID_RANK[bid] < BID_RANK[MISER]


def _discard(command: Discard, state: Discarding) -> list[DealEvent]:
    _declarer_only(state, command.seat, "discard")
    cards = command.cards
    hand = state.hands[state.declarer]
    if cards[0] == cards[1]:
        raise refuse("discard_twice", "the discard (снос) is two different cards")
    missing = [c for c in cards if c not in hand]
    if missing:
        raise refuse("discard_not_held", f"you cannot discard {', '.join(missing)}: not in hand")
    events: list[DealEvent] = [Discarded(seat=state.declarer, cards=cards)]
    if state.bid == MISER:
        # the talon was taken on a misère bid: misère it stays (Lesnoy 3.3.7)
        declared = ContractDeclared(seat=state.declarer, contract=MISER)
        events += [declared, *_after_contract(_declared_state(state, cards, declared))]
    return events


def _declared_state(
    state: Contracted, discard: tuple[str, ...], event: ContractDeclared
) -> Whisting:
    hand = state.hands[state.declarer]
    hands = _replace_hand(state.hands, state.declarer, tuple(c for c in hand if c not in discard))
    fields = contract_fields(state) | {"hands": hands, "discard": discard}
    return Whisting(**fields, contract=event.contract, totus=event.totus)  # type: ignore[arg-type]


def _minimum_contract(state: Contracted) -> str:
    """The winning bid; after a silent take, the lowest opening bid, which a dark pass raises
    (it is overcalled only by a 7, a second one only by an 8: Lesnoy 3.3.19a)."""
    if state.bid is not None:
        return state.bid
    return f"{min(10, max(state.min_level, 6 + len(state.dark_passers)))}S"


def _declare(command: Declare, state: Declaring) -> list[DealEvent]:
    _declarer_only(state, command.seat, "declare")
    contract = _known_bid(command.contract)
    silent = state.bid is None
    if contract == MISER:
        if not (silent and state.rules.bidding.third_hand_may_miser):
            raise refuse(
                "miser_after_trick_bid",
                "misère cannot be declared after the talon was taken on a trick bid",
            )
    elif BID_RANK[contract] < BID_RANK[_minimum_contract(state)]:
        raise refuse(
            "declared_below_bid",
            f"the contract must be at least the winning bid {_minimum_contract(state)}",
        )
    event = ContractDeclared(seat=state.declarer, contract=contract, dark=state.dark)
    return [event, *_after_contract(_declared_state(state, state.discard, event))]


def _declare_totus(command: DeclareTotus, state: Discarding) -> list[DealEvent]:
    _declarer_only(state, command.seat, "declare a totus")
    contract = _known_bid(f"10{command.strain}")
    if not state.rules.classic.totus:
        raise refuse("totus_off", "totus (тотус) is not played in this game")
    if state.bid == MISER or BID_RANK[contract] < BID_RANK[_minimum_contract(state)]:
        raise refuse("declared_below_bid", f"a totus in {command.strain} is below the winning bid")
    return [
        TotusShown(seat=state.declarer, strain=command.strain),
        HandsOpened(hands={state.declarer: state.hands[state.declarer]}),
    ]


def _totus_discard(command: Discard, state: TotusDiscarding) -> list[DealEvent]:
    chooser = state.next_seat(state.declarer)
    if command.seat != chooser:
        raise NotYourTurn(f"the first opponent (seat {chooser}) chooses the totus discard")
    cards = command.cards
    hand = state.hands[state.declarer]
    if cards[0] == cards[1] or any(c not in hand for c in cards):
        raise refuse("discard_not_held", "choose two different cards of the declarer's hand")
    declared = ContractDeclared(
        seat=state.declarer, contract=f"10{state.strain}", dark=state.dark, totus=True
    )
    return [
        Discarded(seat=state.declarer, cards=cards, by=chooser),
        declared,
        *_after_contract(_declared_state(state, cards, declared)),
    ]


def _concede(command: Concede, state: Declaring) -> list[DealEvent]:
    _declarer_only(state, command.seat, "concede")
    mode = state.rules.play.concede
    if mode == "none" or state.bid == MISER:
        raise refuse("concede_off", "conceding without play is not allowed in this game")
    down = 2 if mode == "down2" else 3
    contract = _minimum_contract(state)
    first, second = (
        state.next_seat(state.declarer),
        state.next_seat(state.next_seat(state.declarer)),
    )
    tricks = {s: 0 for s in state.order} | {state.declarer: level_of(contract) - down}
    outcome = _outcome(
        state, kind="game", tricks=tricks, contract=contract, played=False, conceded=down,
        defenders=(DefenderRole(seat=first, choice="pass"),
                   DefenderRole(seat=second, choice="pass")),
    )  # fmt: skip
    return [Conceded(seat=state.declarer, undertricks=down), DealEnded(outcome=outcome)]


def _after_contract(state: Whisting) -> list[DealEvent]:
    """What follows the declaration: misère and a checked 10 go straight to play; a compulsory
    whist is called for the defenders; otherwise the first opponent speaks."""
    first, second = whisting.defenders(state)
    contract = state.contract
    if contract == MISER:
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


def _start_play(
    state: Contracted,
    kind: str,
    roles: tuple[DefenderRole, ...],
    *,
    open_play: bool,
    checked: bool = False,
    contract: str | None = None,
) -> list[DealEvent]:
    contract = contract or getattr(state, "contract", None)
    controllers = list(_own_controllers(state))
    opened: dict[Seat, tuple[str, ...]] = {}
    if open_play:
        whister = next(r.seat for r in roles if r.choice == "whist")
        passer = next(r.seat for r in roles if r.choice != "whist")
        controllers[passer] = whister
        opened = {whister: state.hands[whister], passer: state.hands[passer]}
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
            kind=kind,  # type: ignore[arg-type]
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
        events.append(HandsOpened(hands=opened))
    return events


# -- whisting


def _whist(command: CallWhist, state: Whisting) -> list[DealEvent]:
    opts = whisting.options(state)
    if opts is None:
        if whisting.gentleman_half_whist_open(state) and command.choice == "half_whist":
            first, _ = whisting.defenders(state)
            if command.seat != first:
                raise NotYourTurn("only the first opponent may go to half-whist now")
            return [WhistCalled(seat=command.seat, choice="half_whist")]
        raise refuse("whisting_over", "whisting is over: the whister chooses open or closed play")
    seat, choices = opts
    if command.seat != seat:
        raise NotYourTurn(f"it is seat {seat}'s turn to whist, not seat {command.seat}'s")
    if command.choice not in choices:
        if command.choice == "half_whist":
            raise refuse(
                "half_whist_not_allowed",
                "half-whist (полвиста) is only possible on 6 and 7 after the first opponent passed",
            )
        raise refuse("whist_choice", f"choose one of: {', '.join(choices)}")
    event = WhistCalled(seat=seat, choice=command.choice)
    after = _evolve_whist(state, event)
    if whisting.options(after) is not None:
        return [event]
    resolution = whisting.resolve(after)
    if resolution.mode == "no_play":
        tricks = {s: 0 for s in state.order}
        outcome = _outcome(
            after, kind="game", tricks=tricks, contract=state.contract, played=False,
            defenders=resolution.roles,
        )  # fmt: skip
        return [event, DealEnded(outcome=outcome)]
    if resolution.mode == "double":
        return [event, *_start_play(after, "game", resolution.roles, open_play=False)]
    return [event]  # a single whister now chooses open or closed play


def _choose_play(command: ChoosePlay, state: Whisting) -> list[DealEvent]:
    if whisting.options(state) is not None:
        raise refuse("whisting_not_over", "the opponents have not finished whisting")
    resolution = whisting.resolve(state)
    if resolution.mode != "single":
        raise refuse("no_single_whister", "open or closed play is chosen by a single whister")
    if command.seat != resolution.whister:
        raise NotYourTurn(f"the whister (seat {resolution.whister}) chooses how to play")
    return [
        PlayChosen(seat=command.seat, open=command.open),
        *_start_play(state, "game", resolution.roles, open_play=command.open),
    ]


# -- play


def _play(command: PlayCard, state: Playing) -> list[DealEvent]:
    hand_seat, card = state.turn, command.card
    controller = state.controllers[hand_seat]
    if command.seat != controller:
        if card in state.hands[command.seat] and command.seat != hand_seat:
            raise NotYourTurn(f"it is seat {hand_seat}'s turn to play, not seat {command.seat}'s")
        raise NotYourTurn(f"seat {controller} plays the cards of seat {hand_seat} now")
    hand = state.hands[hand_seat]
    if card not in hand:
        raise refuse("card_not_in_hand", f"{card} is not in the hand of seat {hand_seat}")
    reason = refusal_reason(state, hand, card)
    if reason is not None:
        code = "must_trump" if "trump" in reason else "must_follow_suit"
        raise refuse(code, reason)
    events: list[DealEvent] = [CardPlayed(seat=hand_seat, card=card)]
    trick = (*state.trick, (hand_seat, card))
    if (
        state.kind == "miser"
        and hand_seat == state.declarer
        and not state.trick
        and not state.open_hands
        and state.rules.play.miser_open_timing == "codex"
    ):
        # the misère player led: now the catchers' cards are laid open (S0)
        events.append(HandsOpened(hands=_catchers(state, after_card=card)))
    if len(trick) < 3:
        return events
    winner = trick_winner(trick, state.trump, state.talon_card)
    done = state.tricks_played + 1
    talon_tricks = state.kind == "raspasy" and state.rules.raspasy.use_talon
    if done == 10:
        leader = None
    elif talon_tricks and done < 3:
        leader = state.order[0]  # the first hand leads the first three all-pass tricks
    else:
        leader = winner
    events.append(TrickWon(seat=winner, cards=tuple(c for _, c in trick), leader=leader))
    if (
        done == 1
        and state.kind == "miser"
        and not state.open_hands
        and state.rules.play.miser_open_timing == "after_first_trick"
    ):
        events.append(HandsOpened(hands=_catchers(state, after_card=card)))
    if done == 10:
        tricks = list(state.tricks)
        tricks[winner] += 1
        events.append(DealEnded(outcome=_play_outcome(state, tricks)))
    elif talon_tricks and done == 1:
        events.append(TalonCardTurned(card=state.talon[0]))
    return events


def _catchers(state: Playing, after_card: str) -> dict[Seat, tuple[str, ...]]:
    return {
        r.seat: tuple(c for c in state.hands[r.seat] if c != after_card) for r in state.defenders
    }


def _play_outcome(state: Playing, tricks: list[int]) -> DealOutcome:
    return _outcome(
        state, kind=state.kind, tricks={s: tricks[s] for s in state.order},
        contract=state.contract, defenders=state.defenders, open_play=state.open_play,
        checked=state.checked, totus=state.totus,
    )  # fmt: skip


def _outcome(state: DealTable, *, kind: str, tricks: dict[Seat, int], **facts: Any) -> DealOutcome:
    declarer = getattr(state, "declarer", None)
    dark = bool(getattr(state, "dark", False))
    totus = bool(facts.pop("totus", False)) or bool(getattr(state, "totus", False))
    return DealOutcome(
        kind=kind,  # type: ignore[arg-type]
        dealer=state.dealer,
        seats=state.seats,
        hands=state.order,
        tricks=tricks,
        declarer=declarer,
        dark=dark,
        totus=totus,
        raspasy_factor=2 ** len(state.dark_passers) if kind == "raspasy" else 1,
        dark_passers=state.dark_passers,
        **facts,
    )


_Handler = Callable[[Any, Any], list[DealEvent]]
_HANDLERS: dict[tuple[type, type], _Handler] = {
    (LookAtCards, Bidding): _look,
    (MakeBid, Bidding): _bid,
    (Pass, Bidding): _pass,
    (TakeTalon, Bidding): _silent_take,
    (TakeTalon, AwaitingTalon): _take_talon,
    (Declare, AwaitingTalon): _dark_miser_switch,
    (Discard, Discarding): _discard,
    (DeclareTotus, Discarding): _declare_totus,
    (Discard, TotusDiscarding): _totus_discard,
    (Declare, Declaring): _declare,
    (Concede, Declaring): _concede,
    (CallWhist, Whisting): _whist,
    (ChoosePlay, Whisting): _choose_play,
    (PlayCard, Playing): _play,
}

_PHASE_NAMES: dict[type, str] = {
    Bidding: "the auction (торговля)",
    AwaitingTalon: "the talon exchange (the declarer takes the talon)",
    Discarding: "the discard (снос)",
    TotusDiscarding: "the totus discard",
    Declaring: "the declaration (заказ)",
    Whisting: "whisting (вистование)",
    Playing: "play (розыгрыш)",
}


# ---- evolve ---------------------------------------------------------------------------------


def _replace_hand(hands: tuple[tuple[str, ...], ...], seat: Seat, hand: tuple[str, ...]):
    return (*hands[:seat], hand, *hands[seat + 1 :])


def _next_bidder(state: Bidding, seat: Seat, passed: tuple[Seat, ...]) -> Seat:
    nxt = state.next_seat(seat)
    while nxt in passed and nxt != seat:
        nxt = state.next_seat(nxt)
    return nxt


def _evolve_started(state: AwaitingDeal, e: DealStarted) -> Bidding:
    seats = len(e.hands)
    order = active_order(e.dealer, seats)
    return Bidding(
        rules=state.rules, dealer=e.dealer, order=order, hands=e.hands, talon=e.talon,
        min_level=e.min_level, looked=() if state.rules.classic.dark_games else order,
        turn=order[0],
    )  # fmt: skip


def _evolve_looked(state: Bidding, e: CardsLooked) -> Bidding:
    return _replace(state, looked=(*state.looked, e.seat))


def _evolve_bid(state: Bidding, e: BidMade) -> Bidding:
    return _replace(
        state,
        highest=e.bid,
        highest_by=e.seat,
        highest_dark=e.dark,
        bidders=state.bidders
        if e.bid == MISER or e.seat in state.bidders
        else (*state.bidders, e.seat),
        miser_by=e.seat if e.bid == MISER else state.miser_by,
        opened_by=e.seat if state.opened_by is None else state.opened_by,
        hold_lost=(*state.hold_lost, e.seat) if e.hold_waived else state.hold_lost,
        turn=_next_bidder(state, e.seat, state.passed),
        auction=(*state.auction, (e.seat, e.bid, "hold" if e.hold else "dark" if e.dark else "")),
    )


def _evolve_passed(state: Bidding, e: Passed) -> Bidding:
    passed = (*state.passed, e.seat)
    return _replace(
        state,
        passed=passed,
        dark_passers=(*state.dark_passers, e.seat) if e.dark else state.dark_passers,
        turn=_next_bidder(state, e.seat, passed),
        auction=(*state.auction, (e.seat, "PASS", "dark" if e.dark else "")),
    )


def _evolve_won(state: Bidding | AwaitingTalon, e: AuctionWon) -> AwaitingTalon:
    fields = table_fields(state) | {"looked": state.order}
    return AwaitingTalon(**fields, declarer=e.seat, bid=e.bid, dark=e.dark)  # type: ignore[arg-type]


def _evolve_all_passed(state: Bidding, e: AllPassed) -> Playing:
    return Playing(
        **table_fields(state) | {"looked": state.order},  # type: ignore[arg-type]
        kind="raspasy",
        turn=state.order[0],
        tricks=(0,) * state.seats,
    )


def _evolve_talon(state: AwaitingTalon, e: TalonTaken) -> Discarding:
    hand = tuple(sorted((*state.hands[e.seat], *e.cards), key=SORT_KEY.__getitem__))
    fields = contract_fields(state) | {
        "hands": _replace_hand(state.hands, e.seat, hand),
        "talon": (),
        "shown_talon": e.cards if e.shown else (),
    }
    return Discarding(**fields)  # type: ignore[arg-type]


def _evolve_discarded(state: Discarding | TotusDiscarding, e: Discarded) -> Declaring:
    hand = tuple(c for c in state.hands[e.seat] if c not in e.cards)
    fields = contract_fields(state) | {
        "hands": _replace_hand(state.hands, e.seat, hand),
        "discard": e.cards,
    }
    return Declaring(**fields)  # type: ignore[arg-type]


def _evolve_totus(state: Discarding, e: TotusShown) -> TotusDiscarding:
    return TotusDiscarding(**contract_fields(state), strain=e.strain)  # type: ignore[arg-type]


def _evolve_declared(state: Declaring, e: ContractDeclared) -> Whisting:
    return Whisting(**contract_fields(state), contract=e.contract, totus=e.totus)  # type: ignore[arg-type]


def _evolve_whist(state: Whisting, e: WhistCalled) -> Whisting:
    return _replace(state, calls=(*state.calls, (e.seat, e.choice)))


def _evolve_play_started(state: DealTable, e: PlayStarted) -> Playing:
    if isinstance(state, Playing):  # all-pass: the table was laid out by AllPassed
        return _replace(state, controllers=e.controllers, trump=e.trump, turn=e.leader)
    assert isinstance(state, Whisting)
    return Playing(
        **table_fields(state),  # type: ignore[arg-type]
        kind=e.kind, declarer=e.declarer, contract=e.contract, bid=state.bid, dark=state.dark,
        totus=state.totus, discard=state.discard, defenders=e.defenders, open_play=e.open_play,
        checked=e.checked, trump=e.trump, controllers=e.controllers, turn=e.leader,
        tricks=(0,) * state.seats,
    )  # fmt: skip


def _evolve_opened(state: Any, e: HandsOpened) -> Any:
    seats = tuple(s for s in e.hands if s not in state.open_hands)
    return _replace(state, open_hands=(*state.open_hands, *seats))


def _evolve_turned(state: Playing, e: TalonCardTurned) -> Playing:
    return _replace(
        state,
        talon=tuple(c for c in state.talon if c != e.card),
        talon_card=e.card,
        turned=(*state.turned, e.card),
        shown_talon=(*state.shown_talon, e.card),
    )


def _evolve_card(state: Playing, e: CardPlayed) -> Playing:
    hand = tuple(c for c in state.hands[e.seat] if c != e.card)
    return _replace(
        state,
        hands=_replace_hand(state.hands, e.seat, hand),
        trick=(*state.trick, (e.seat, e.card)),
        turn=state.next_seat(e.seat),
    )


def _evolve_trick(state: Playing, e: TrickWon) -> Playing:
    tricks = list(state.tricks)
    tricks[e.seat] += 1
    return _replace(
        state,
        tricks=tuple(tricks),
        tricks_played=state.tricks_played + 1,
        played=state.played + e.cards,
        last_trick=state.trick,
        trick=(),
        talon_card=None,
        turn=e.leader if e.leader is not None else state.turn,
    )


def _evolve_ended(state: DealTable, e: DealEnded) -> DealFinished:
    return DealFinished(
        **table_fields(state) | {"looked": state.order},  # type: ignore[arg-type]
        outcome=e.outcome,
        discard=getattr(state, "discard", ()),
        played=getattr(state, "played", ()),
        turned=getattr(state, "turned", ()),
        last_trick=getattr(state, "last_trick", ()),
    )


def _unchanged(state: Any, e: Any) -> Any:
    return state


_EVOLVERS: dict[type, Callable[[Any, Any], DealState]] = {
    DealStarted: _evolve_started,
    CardsLooked: _evolve_looked,
    BidMade: _evolve_bid,
    Passed: _evolve_passed,
    AuctionWon: _evolve_won,
    AllPassed: _evolve_all_passed,
    TalonTaken: _evolve_talon,
    Discarded: _evolve_discarded,
    TotusShown: _evolve_totus,
    ContractDeclared: _evolve_declared,
    Conceded: _unchanged,
    WhistCalled: _evolve_whist,
    PlayChosen: _unchanged,
    PlayStarted: _evolve_play_started,
    HandsOpened: _evolve_opened,
    TalonCardTurned: _evolve_turned,
    CardPlayed: _evolve_card,
    TrickWon: _evolve_trick,
    DealEnded: _evolve_ended,
}


def evolve(state: DealState, event: DealEvent) -> DealState:
    """The state after ``event``. Records facts only; no rule is checked here."""
    return _EVOLVERS[type(event)](state, event)


def fold(state: DealState, events: list[DealEvent] | tuple[DealEvent, ...]) -> DealState:
    for event in events:
        state = _EVOLVERS[type(event)](state, event)
    return state


_replace = msgspec.structs.replace


# ---- legal actions --------------------------------------------------------------------------


def legal_actions(state: DealState, seat: Seat) -> list[SeatCommand]:
    """Every command ``seat`` may send now; `decide` accepts each of them."""
    match state:
        case Bidding():
            return _legal_bidding(state, seat)
        case AwaitingTalon() if seat == state.declarer:
            actions: list[SeatCommand] = [TakeTalon(seat=seat)]
            if state.dark and _below_miser(state.bid):
                actions.append(Declare(seat=seat, contract=MISER))
            return actions
        case Discarding() if seat == state.declarer:
            hand = state.hands[seat]
            actions = [
                Discard(seat=seat, cards=(a, b)) for i, a in enumerate(hand) for b in hand[i + 1 :]
            ]
            if state.rules.classic.totus and state.bid != MISER:
                floor = BID_RANK[_minimum_contract(state)]
                actions += [
                    DeclareTotus(seat=seat, strain=s)  # type: ignore[arg-type]
                    for s in ("S", "C", "D", "H", "NT")
                    if BID_RANK[f"10{s}"] >= floor
                ]
            return actions
        case TotusDiscarding() if seat == state.next_seat(state.declarer):
            hand = state.hands[state.declarer]
            return [
                Discard(seat=seat, cards=(a, b)) for i, a in enumerate(hand) for b in hand[i + 1 :]
            ]
        case Declaring() if seat == state.declarer:
            return _legal_declarations(state, seat)
        case Whisting():
            return _legal_whisting(state, seat)
        case Playing():
            if state.controllers[state.turn] != seat:
                return []
            return [PlayCard(seat=seat, card=c) for c in playable(state, state.hands[state.turn])]
    return []


def _legal_bidding(state: Bidding, seat: Seat) -> list[SeatCommand]:
    dark_games = state.rules.classic.dark_games
    dark = dark_games and seat not in state.looked
    if seat != state.turn:
        # a player may pick up his cards at any time of the auction, not only on his turn
        return [LookAtCards(seat=seat)] if dark and seat in state.order else []
    actions: list[SeatCommand] = []
    if dark:
        actions.append(LookAtCards(seat=seat))
        if bidding.may_pass_dark(state, seat):
            actions.append(Pass(seat=seat, dark=True))
    else:
        actions.append(Pass(seat=seat))
    actions += [
        MakeBid(seat=seat, bid=b, dark=dark) for b in bidding.trick_bids(state, seat, dark=dark)
    ]
    if bidding.may_bid_miser(state, seat) and state.highest != MISER:
        actions.append(MakeBid(seat=seat, bid=MISER, dark=dark))
    if bidding.may_take_talon_silently(state, seat):
        actions.append(TakeTalon(seat=seat))
    return sorted(actions, key=_bid_sort_key)


def _bid_sort_key(cmd: SeatCommand) -> int:
    if isinstance(cmd, MakeBid):
        return 10 + LADDER.index(cmd.bid)
    return 0 if isinstance(cmd, LookAtCards) else 1 if isinstance(cmd, Pass) else 100


def _legal_declarations(state: Declaring, seat: Seat) -> list[SeatCommand]:
    floor = BID_RANK[_minimum_contract(state)]
    actions: list[SeatCommand] = [
        Declare(seat=seat, contract=b) for b in LADDER if b != MISER and BID_RANK[b] >= floor
    ]
    if state.bid is None and state.rules.bidding.third_hand_may_miser:
        actions.append(Declare(seat=seat, contract=MISER))
    if state.rules.play.concede != "none":
        actions.append(Concede(seat=seat))
    return actions


def _legal_whisting(state: Whisting, seat: Seat) -> list[SeatCommand]:
    opts = whisting.options(state)
    if opts is not None:
        turn, choices = opts
        return [CallWhist(seat=seat, choice=c) for c in choices] if seat == turn else []  # type: ignore[arg-type]
    resolution = whisting.resolve(state)
    if resolution.mode != "single" or seat != resolution.whister:
        return []
    actions: list[SeatCommand] = [
        ChoosePlay(seat=seat, open=True),
        ChoosePlay(seat=seat, open=False),
    ]
    if whisting.gentleman_half_whist_open(state):
        actions.append(CallWhist(seat=seat, choice="half_whist"))
    return actions


def to_act(state: DealState) -> tuple[Seat, ...]:
    """The seats that may act now (one, except none once the deal is over)."""
    match state:
        case Bidding() | Playing():
            return (state.controllers[state.turn],) if isinstance(state, Playing) else (state.turn,)
        case AwaitingTalon() | Discarding() | Declaring():
            return (state.declarer,)
        case TotusDiscarding():
            return (state.next_seat(state.declarer),)
        case Whisting():
            opts = whisting.options(state)
            if opts is not None:
                return (opts[0],)
            res = whisting.resolve(state)
            return (res.whister,) if res.whister is not None else ()
    return ()
