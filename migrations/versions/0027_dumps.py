"""Dumps of the finished rated games, written by the background process.

The background process logs in as ``preferans_projections``, which could read the log but not
the lobby. A dump (`service.workers.dumps`) chooses its games from ``api.games`` (finished,
rated, not private), leaves out the duplicate tables still embargoed (``api.tournament_tables``)
and names the players (``api.players``: the id and the name only, never anything else of an
account). Reading, never writing.

Revision ID: 0027_dumps
Revises: 0026_puzzle_attempt_order
Create Date: 2026-12-06
"""

from alembic import op

from migrations import PROJECTIONS_ROLE

revision = "0027_dumps"
down_revision = "0026_puzzle_attempt_order"
branch_labels = None
depends_on = None

GRANTS = f"""
GRANT SELECT ON api.games, api.tournament_tables TO {PROJECTIONS_ROLE};
GRANT SELECT (player_id, name) ON api.players TO {PROJECTIONS_ROLE};
"""

DOWN = f"""
REVOKE SELECT ON api.games, api.tournament_tables FROM {PROJECTIONS_ROLE};
REVOKE SELECT (player_id, name) ON api.players FROM {PROJECTIONS_ROLE};
"""


def upgrade() -> None:
    op.execute(GRANTS)


def downgrade() -> None:
    op.execute(DOWN)
