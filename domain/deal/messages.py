"""Commands (imperative) and events (past tense) of one deal (сдача).

Both are frozen msgspec Structs in tagged unions (``"type"`` field), so they travel as JSON as is.
Events hold facts only; everything a rule decides (the auction's winner, a trick's winner, the
outcome) is recorded as its own event, so folding needs no rules.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Literal

import msgspec

from domain.cards import Bid, Card, Seat
from domain.outcome import DealKind, DealOutcome, DefenderRole, WhistChoice

Strain = Literal["S", "C", "D", "H", "NT"]
"""A totus strain: a suit, or no-trump."""


class Command(
    msgspec.Struct, frozen=True, kw_only=True, tag_field="type", forbid_unknown_fields=True
):
    """Something a seat asks to do. ``seat`` is the acting player."""

    seat: Seat
    at: int | None = None
    """When the service received it, in milliseconds since the epoch: the domain's only clock
    (clocks, deadlines). None where time plays no part."""


class Event(msgspec.Struct, frozen=True, kw_only=True, tag_field="type"):
    """Something that happened in a deal."""


# ---- commands -------------------------------------------------------------------------------


class LookAtCards(Command, frozen=True, tag="look_at_cards"):
    """Classic dark games: pick up one's cards; bids made before this are in the dark (втёмную)."""


class MakeBid(Command, frozen=True, tag="bid"):
    """Bid a contract in the auction; the current highest bid again is the hold («здесь»)."""

    bid: Bid
    dark: bool = False


class Pass(Command, frozen=True, tag="pass"):
    """Pass (пас) in the auction; final."""

    dark: bool = False


class TakeTalon(Command, frozen=True, tag="take_talon"):
    """Take the talon (прикуп): by the auction's winner, or silently by the last hand after two
    passes (Lesnoy 3.3.15)."""


class Discard(Command, frozen=True, tag="discard"):
    """Put two cards away face down (снос)."""

    cards: tuple[Card, Card]


class Declare(Command, frozen=True, tag="declare"):
    """Name the final contract (заказ), not below the winning bid."""

    contract: Bid


class DeclareTotus(Command, frozen=True, tag="declare_totus"):
    """Classic: show twelve unbeatable cards and play a 10 in ``strain`` (тотус)."""

    strain: Strain


class Concede(Command, frozen=True, tag="concede"):
    """Give up without play («без трёх» / «без двух»), where the rules allow it (I-17)."""


class CallWhist(Command, frozen=True, tag="whist"):
    """An opponent's whisting call: whist (вист), pass (пас) or half-whist (полвиста)."""

    choice: WhistChoice


class LookAtHand(Command, frozen=True, tag="look_at_hand"):
    """At a table of four: the dealer, asked whether he whists, looks at the cards of ``hand``,
    one of the declarer's opponents (Lesnoy 3.8.8); if he whists he plays that hand."""

    hand: Seat


class ChoosePlay(Command, frozen=True, tag="choose_play"):
    """The single whister plays in the light (open, в светлую) or closed (втёмную)."""

    open: bool


class PlayCard(Command, frozen=True, tag="play"):
    """Play ``card``. The card names the hand it comes from, so a whister playing the passer's
    cards in open play sends the passer's card."""

    card: Card


class Claim(Command, frozen=True, tag="claim"):
    """Claim ``tricks`` of the tricks still to play, the one in progress included (заявка): the
    declarer in a contract or a misère, any player in an all-pass, on his turn. The others answer
    (`AnswerClaim`); if all accept the deal ends so (docs/tables.md, Claims)."""

    tricks: Annotated[int, msgspec.Meta(ge=0, le=10)]


class AnswerClaim(Command, frozen=True, tag="answer_claim"):
    """Accept or reject the pending claim; one rejection ends it and play goes on."""

    accept: bool


class StartDeal(msgspec.Struct, frozen=True, kw_only=True, tag="start_deal", tag_field="type"):
    """Deal ``hands`` (one per seat; the sitting-out dealer's is empty) and the ``talon``.

    Randomness stays outside the domain: the shuffled layout comes in as data.
    """

    dealer: Seat
    hands: tuple[tuple[Card, ...], ...]
    talon: tuple[Card, Card]
    min_level: int = 6
    """Minimum opening level, raised after an all-pass by the exit rule (выход из распасов)."""


# ---- events ---------------------------------------------------------------------------------


class DealStarted(Event, frozen=True, tag="deal_started"):
    """Cards dealt: ``hands[seat]`` for each seat, and the talon (прикуп) face down."""

    dealer: Seat
    hands: tuple[tuple[Card, ...], ...]
    talon: tuple[Card, ...]
    """Two cards; empty in a seat's redacted feed."""
    min_level: int = 6


class CardsLooked(Event, frozen=True, tag="cards_looked"):
    """A player picked up his cards (only recorded when dark games are on)."""

    seat: Seat
    hand: tuple[Card, ...] = ()
    """Empty in the log (the hand is in `DealStarted`); filled in the looker's own feed."""


class BidMade(Event, frozen=True, tag="bid_made"):
    seat: Seat
    bid: Bid
    hold: bool = False
    """The senior hand named the same bid: «здесь» / «мои»."""
    dark: bool = False
    hold_waived: bool = False
    """The bidder could have held and bid higher instead (matters when the hold lapses, I-3)."""


class Passed(Event, frozen=True, tag="passed"):
    seat: Seat
    dark: bool = False


class AuctionWon(Event, frozen=True, tag="auction_won"):
    """Two players passed; ``seat`` plays at least ``bid``. ``dark``: won by a dark bid."""

    seat: Seat
    bid: Bid | None
    """None when the last hand took the talon silently after two passes."""
    dark: bool = False


class AllPassed(Event, frozen=True, tag="all_passed"):
    """Everyone passed: the deal is played as all-pass (распасы)."""


class TalonSetAside(Event, frozen=True, tag="talon_set_aside"):
    """The auction was won by a game without the talon (игра без прикупа): the talon stays face
    down and nobody sees it; the declarer names his contract from his own ten cards."""

    seat: Seat


class TalonTaken(Event, frozen=True, tag="talon_taken"):
    """The declarer took the talon (прикуп), shown to all unless the game is dark."""

    seat: Seat
    cards: tuple[Card, ...]
    """Two cards; empty in the feed of a seat that may not see them."""
    shown: bool = True


class Discarded(Event, frozen=True, tag="discarded"):
    """Two cards put away face down (снос); only the declarer may see them."""

    seat: Seat
    cards: tuple[Card, ...]
    """Two cards; empty in the feed of a seat that may not see them."""
    by: Seat | None = None
    """Who chose them, when not the declarer (the opponents choose a totus discard)."""


class ContractDeclared(Event, frozen=True, tag="contract_declared"):
    seat: Seat
    contract: Bid
    dark: bool = False
    totus: bool = False


class TotusShown(Event, frozen=True, tag="totus_shown"):
    """Classic: the declarer showed his twelve cards for a totus in ``strain``."""

    seat: Seat
    strain: Strain


class Conceded(Event, frozen=True, tag="conceded"):
    seat: Seat
    undertricks: int


class WhistCalled(Event, frozen=True, tag="whist_called"):
    seat: Seat
    choice: WhistChoice
    forced: bool = False


class HandLookedAt(Event, frozen=True, tag="hand_looked_at"):
    """The sitting-out dealer looked at the cards of ``hand``, an opponent of the declarer."""

    seat: Seat
    hand: Seat
    cards: tuple[Card, ...] = ()
    """Empty in the log (the hand is in `DealStarted`); filled in the looker's own feed."""


class PlayChosen(Event, frozen=True, tag="play_chosen"):
    """The single whister chose open (в светлую) or closed (втёмную) play."""

    seat: Seat
    open: bool


class PlayStarted(Event, frozen=True, tag="play_started"):
    """Play begins. ``controllers[i]`` is the seat that plays hand ``i`` (the whister plays the
    passer's cards in open play; -1 for a sitting-out dealer)."""

    kind: DealKind
    controllers: tuple[Seat, ...]
    trump: str | None
    leader: Seat
    declarer: Seat | None = None
    contract: str | None = None
    defenders: tuple[DefenderRole, ...] = ()
    open_play: bool = False
    checked: bool = False


class OpenHand(msgspec.Struct, frozen=True, kw_only=True):
    """One hand laid face up: whose it is and its cards."""

    seat: Seat
    cards: tuple[Card, ...]


class HandsOpened(Event, frozen=True, tag="hands_opened"):
    """Hands laid face up for everyone: open whist, misère catchers, a checked 10.

    Schema 2: ``hands`` is a tuple of `OpenHand` (schema 1 was a mapping seat → cards).
    """

    hands: tuple[OpenHand, ...]

    @classmethod
    def of(cls, hands: Mapping[Seat, tuple[Card, ...]]) -> HandsOpened:
        """The event laying ``hands`` (seat → cards) open, in seat order."""
        return cls(hands=tuple(OpenHand(seat=s, cards=c) for s, c in sorted(hands.items())))

    @property
    def seats(self) -> tuple[Seat, ...]:
        return tuple(h.seat for h in self.hands)


class TalonCardTurned(Event, frozen=True, tag="talon_card_turned"):
    """All-pass: a talon card turned up sets the suit of this trick."""

    card: Card


class CardPlayed(Event, frozen=True, tag="card_played"):
    seat: Seat
    """The hand the card came from."""
    card: Card


class TrickWon(Event, frozen=True, tag="trick_won"):
    """``seat`` took the trick; ``leader`` leads the next one (None after the last trick)."""

    seat: Seat
    cards: tuple[Card, ...]
    leader: Seat | None = None


class ClaimMade(Event, frozen=True, tag="claim_made"):
    """``seat`` claims ``tricks`` of the ``remaining`` ones; ``asked`` must all accept (the seats
    that play the other hands). Play waits for their answers."""

    seat: Seat
    tricks: int
    remaining: int
    asked: tuple[Seat, ...]


class ClaimAnswered(Event, frozen=True, tag="claim_answered"):
    """An answer to the pending claim. A rejection ends the claim; the last acceptance is followed
    by the deal's end."""

    seat: Seat
    accept: bool


class DealEnded(Event, frozen=True, tag="deal_ended"):
    """The deal is over; its outcome is ready for scoring."""

    outcome: DealOutcome


DealCommand = (
    StartDeal
    | LookAtCards
    | MakeBid
    | Pass
    | TakeTalon
    | Discard
    | Declare
    | DeclareTotus
    | Concede
    | CallWhist
    | LookAtHand
    | ChoosePlay
    | PlayCard
    | Claim
    | AnswerClaim
)
SeatCommand = (
    LookAtCards
    | MakeBid
    | Pass
    | TakeTalon
    | Discard
    | Declare
    | DeclareTotus
    | Concede
    | CallWhist
    | LookAtHand
    | ChoosePlay
    | PlayCard
    | Claim
    | AnswerClaim
)
DealEvent = (
    DealStarted
    | CardsLooked
    | BidMade
    | Passed
    | AuctionWon
    | AllPassed
    | TalonSetAside
    | TalonTaken
    | Discarded
    | ContractDeclared
    | TotusShown
    | Conceded
    | WhistCalled
    | HandLookedAt
    | PlayChosen
    | PlayStarted
    | HandsOpened
    | TalonCardTurned
    | CardPlayed
    | TrickWon
    | ClaimMade
    | ClaimAnswered
    | DealEnded
)
