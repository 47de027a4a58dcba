"""The bodies of the puzzles' requests (the responses are `service.read_models.puzzles`'s)."""

from __future__ import annotations

import msgspec

from service.api.text import CardText


class AttemptBody(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """The card the hand to play should play (one of the puzzle's ``legal``)."""

    card: CardText
