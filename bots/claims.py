"""How a bot answers a claim (`domain.deal.claims`), and why it never makes one.

A bot accepts a claim only when it cannot cost its own side anything, whatever the unseen cards:
the declarer of a contract claiming none of the tricks left, the declarer of a misère claiming
all of them. Anything else is rejected, and play goes on: the bot then plays the tricks out,
which is never worse for it than a claim the cards do not bear out. Bots make no claims: they
play every card, which costs a human opponent only the time of the tricks.
"""

from __future__ import annotations

from bots.view import BotView
from domain.deal.messages import AnswerClaim


def answer(view: BotView) -> AnswerClaim:
    """The bot's answer to the claim it is asked about."""
    claim = view.game.deal.claim
    seat = view.seat
    if claim is None:  # nothing to weigh: reject, which keeps play going
        return AnswerClaim(seat=seat, accept=False)
    kind = "miser" if view.game.deal.contract == "MISER" else None
    if view.game.deal.declarer is None:
        accept = False  # all-pass: every trick left to someone is a trick written somewhere
    elif kind == "miser":
        accept = claim.tricks == claim.remaining
    else:
        accept = claim.tricks == 0
    return AnswerClaim(seat=seat, accept=accept)
