"""Moderation's wire types (the report is `service.read_models.moderation.ModerationReport`)."""

from __future__ import annotations

import msgspec


class ModeratorView(msgspec.Struct, frozen=True, kw_only=True):
    """Whether the caller holds the moderator role."""

    moderator: bool
