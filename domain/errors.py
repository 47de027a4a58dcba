"""Every refusal the rules engine can give.

The tree, as httpx draws it::

    PreferansError              base of every domain refusal
    ├── NotationError           malformed card, bid or contract text ("1S", "XX")
    ├── InvalidLayout           a layout that is not a deal of the 32-card deck
    ├── InvalidRules            a rules option out of range, or an unknown preset
    │   └── InvalidTournament   a tournament format that cannot be run (domain.tournament)
    └── IllegalAction           well-formed, but the rules forbid it here
        ├── NotYourTurn         another seat is to act
        ├── WrongPhase          the command belongs to another phase of the deal
        ├── DealOver            the deal (or the pulka) has ended
        └── ClaimLimited        a claim the table does not take now (one per trick, …)

Every error carries a stable machine-readable ``code`` (``illegal.bid_not_higher``) and a human
message naming the rule, so the service can map it to problem+json without knowing the rules.
"""

from __future__ import annotations


class PreferansError(Exception):
    """Base for every domain refusal."""

    code: str = "preferans_error"

    def __init__(self, message: str, *, code: str | None = None) -> None:
        super().__init__(message)
        if code is not None:
            self.code = code

    @property
    def message(self) -> str:
        return str(self.args[0])


class NotationError(PreferansError, ValueError):
    """Malformed notation of a card, a bid or a contract (docs/rules.md §N)."""

    code = "notation"


class InvalidLayout(PreferansError, ValueError):
    """A layout that is not exactly the 32-card deck dealt into hands of ten and a talon of two."""

    code = "invalid_layout"


class InvalidRules(PreferansError, ValueError):
    """A rules option out of range, or an unknown preset."""

    code = "invalid_rules"


class IllegalAction(PreferansError):
    """Well-formed, but the rules forbid it now (e.g. discarding (снос) before taking the talon)."""

    code = "illegal"


class NotYourTurn(IllegalAction):
    """Another seat is to act."""

    code = "illegal.not_your_turn"


class WrongPhase(IllegalAction):
    """The command belongs to another phase of the deal."""

    code = "illegal.wrong_phase"


class DealOver(IllegalAction):
    """The deal, or the whole pulka, has ended: nothing more may be done in it."""

    code = "illegal.deal_over"


class ClaimLimited(IllegalAction):
    """A claim (заявка) refused however many tricks it names: the seat already claimed in this
    trick, or the dealer at four still plays the talon cards (`domain.deal.claims`)."""

    code = "illegal.claim_limited"


def refuse(code: str, message: str) -> IllegalAction:
    """An `IllegalAction` with a stable code under ``illegal.``."""
    return IllegalAction(message, code=f"illegal.{code}")
