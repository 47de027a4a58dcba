"""A game's weight in the ratings: ``game_created`` schema 5.

The table's rules carry ``table.rating_weight`` (percent of an ordinary game; a tournament's
tables take the event's weight, docs/tournaments.md), so the log admits ``game_created`` at
schema 5. A game created before reads as weight 100 (`service.eventlog.codec`).

Revision ID: 0028_rating_weight
Revises: 0027_dumps
Create Date: 2026-12-07
"""

from alembic import op

revision = "0028_rating_weight"
down_revision = "0027_dumps"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute(
        "UPDATE es.stream_kinds SET events = jsonb_set(events, '{game_created,v}', '5')"
        " WHERE stream_type = 'game'"
    )


def downgrade() -> None:
    # Games written at schema 5 stay in the log; the code of the revision before cannot read them.
    op.execute(
        "UPDATE es.stream_kinds SET events = jsonb_set(events, '{game_created,v}', '4')"
        " WHERE stream_type = 'game'"
    )
