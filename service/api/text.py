"""The shared field types of the wire: a card, a bid, a name, a seat."""

from __future__ import annotations

from typing import Annotated

import msgspec

CardText = Annotated[
    str,
    msgspec.Meta(
        min_length=1,
        max_length=8,
        examples=["AH", "7S", "TD"],
        description="A card: rank (7 8 9 T J Q K A) then suit (S C D H).",
    ),
]
BidText = Annotated[
    str,
    msgspec.Meta(
        min_length=1,
        max_length=8,
        examples=["6S", "7NT", "MISER", "9SWT"],
        description="A bid or contract: level 6-10 then strain (S C D H NT), or MISER; a game "
        "without the talon adds WT (9SWT … 9NTWT, MISERWT).",
    ),
]
Name = Annotated[
    str,
    msgspec.Meta(min_length=1, max_length=64, pattern=r"^[^\x00-\x1f\x7f]+$", examples=["Alice"]),
]
SeatNumber = Annotated[int, msgspec.Meta(ge=0, le=3, description="0 .. seats-1, clockwise")]
"""A seat as a request names it (the domain's `Seat`, bounded)."""
