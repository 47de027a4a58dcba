"""Moderation over HTTP: the collusion report, for moderators only (docs/fair-play.md)."""
