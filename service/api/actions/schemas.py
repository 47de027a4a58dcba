"""A seat's action bodies (the domain's seat commands without their ``seat``).

An action's body is the domain's seat command without its ``seat``: the tag ``type`` and the
fields are the same (``{"type": "play", "card": "AH"}`` is ``PlayCard(seat=…, card="AH")``), so
`to_command` and `from_command` are a field copy. Cards and bids may be sent in any spelling
`domain.cards` parses (``"as"``, ``"A♠"``, ``"7nt"``); responses always use the canonical one.
"""

from __future__ import annotations

import typing
from typing import Annotated, Any, Literal

import msgspec

from domain.cards import parse_bid, parse_card
from domain.deal.messages import SeatCommand
from domain.outcome import WhistChoice
from service.api.text import BidText, CardText, SeatNumber


class ActionBody(
    msgspec.Struct, frozen=True, kw_only=True, tag_field="type", forbid_unknown_fields=True
):
    """What a seated player asks to do; the seat is the caller's."""


class LookAtCardsAction(ActionBody, frozen=True, tag="look_at_cards"):
    """Classic dark games: pick up your cards (bids before this are in the dark)."""


class BidAction(ActionBody, frozen=True, tag="bid"):
    """Bid in the auction; the current highest bid again is the hold («здесь»)."""

    bid: BidText
    dark: bool = False


class PassAction(ActionBody, frozen=True, tag="pass"):
    """Pass (пас) in the auction; final."""

    dark: bool = False


class TakeTalonAction(ActionBody, frozen=True, tag="take_talon"):
    """Take the talon (прикуп)."""


class DiscardAction(ActionBody, frozen=True, tag="discard"):
    """Put two cards away (снос)."""

    cards: Annotated[list[CardText], msgspec.Meta(min_length=2, max_length=2)]


class DeclareAction(ActionBody, frozen=True, tag="declare"):
    """Name the final contract (заказ), not below the winning bid."""

    contract: BidText


class DeclareTotusAction(ActionBody, frozen=True, tag="declare_totus"):
    """Classic: show twelve unbeatable cards and play a ten in ``strain`` (тотус)."""

    strain: Literal["S", "C", "D", "H", "NT"]


class ConcedeAction(ActionBody, frozen=True, tag="concede"):
    """Give up without play, where the rules allow it."""


class WhistAction(ActionBody, frozen=True, tag="whist"):
    """An opponent's call: whist (вист), pass (пас) or half-whist (полвиста)."""

    choice: WhistChoice


class ChoosePlayAction(ActionBody, frozen=True, tag="choose_play"):
    """The single whister plays open (в светлую) or closed (втёмную)."""

    open: bool


class LookAtHandAction(ActionBody, frozen=True, tag="look_at_hand"):
    """At four: the dealer, asked last whether he whists, looks at one opponent's cards."""

    hand: SeatNumber


class PlayAction(ActionBody, frozen=True, tag="play"):
    """Play a card; a whister playing the passer's open hand names the passer's card."""

    card: CardText


class ClaimAction(ActionBody, frozen=True, tag="claim"):
    """Claim ``tricks`` of the tricks left (the one in progress included), on your turn: the
    declarer of a contract or misère, anyone in an all-pass. The others answer; play waits."""

    tricks: Annotated[int, msgspec.Meta(ge=0, le=10)]


class AnswerClaimAction(ActionBody, frozen=True, tag="answer_claim"):
    """Accept or reject the claim you are asked about; one rejection ends it."""

    accept: bool


Action = (
    LookAtCardsAction
    | BidAction
    | PassAction
    | TakeTalonAction
    | DiscardAction
    | DeclareAction
    | DeclareTotusAction
    | ConcedeAction
    | WhistAction
    | ChoosePlayAction
    | LookAtHandAction
    | PlayAction
    | ClaimAction
    | AnswerClaimAction
)

_NOTATION = {"card": parse_card, "bid": parse_bid, "contract": parse_bid}


def canonical(action: Action) -> Action:
    """``action`` with its cards and bids in canonical notation; `NotationError` if malformed."""
    changes: dict[str, Any] = {
        name: parse(getattr(action, name))
        for name, parse in _NOTATION.items()
        if hasattr(action, name)
    }
    if isinstance(action, DiscardAction):
        changes["cards"] = [parse_card(action.cards[0]), parse_card(action.cards[1])]
    return msgspec.structs.replace(action, **changes) if changes else action


def to_command(action: Action, seat: int) -> SeatCommand:
    """The domain command for ``action`` (canonical) sent by ``seat``."""
    raw = msgspec.structs.asdict(action)
    raw["type"] = action.__struct_config__.tag
    raw["seat"] = seat
    command: SeatCommand = msgspec.convert(raw, SeatCommand)
    return command


_ACTION_TYPES: dict[str | int | None, type[ActionBody]] = {
    cls.__struct_config__.tag: cls for cls in typing.get_args(Action)
}


def from_command(command: SeatCommand) -> Action:
    """The request body that sends ``command``."""
    raw = msgspec.structs.asdict(command)
    del raw["seat"], raw["at"]
    action: Action = _ACTION_TYPES[command.__struct_config__.tag](**raw)  # type: ignore[assignment]
    return action
