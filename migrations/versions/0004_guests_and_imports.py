"""Players of a kind (registered humans, and named guests of imported games) and imported games.

- ``api.players.kind``: ``human`` (registered, with a bearer token) or ``guest`` (a player of an
  imported game unknown here: a name, no token, so nobody logs in as him).
- ``api.games.created_by`` may be NULL (an imported game was not created here), and
  ``api.games.imported`` marks such games.

Revision ID: 0004_guests_and_imports
Revises: 0003_read_models
Create Date: 2026-12-01
"""

from alembic import op

revision = "0004_guests_and_imports"
down_revision = "0003_read_models"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute(
        """
ALTER TABLE api.players
  ADD COLUMN kind text NOT NULL DEFAULT 'human' CHECK (kind IN ('human', 'guest')),
  ALTER COLUMN token_hash DROP NOT NULL,
  ADD CONSTRAINT players_humans_have_tokens CHECK (kind <> 'human' OR token_hash IS NOT NULL);
ALTER TABLE api.games
  ALTER COLUMN created_by DROP NOT NULL,
  ADD COLUMN imported boolean NOT NULL DEFAULT false;
"""
    )


def downgrade() -> None:
    op.execute(
        """
ALTER TABLE api.games DROP COLUMN imported, ALTER COLUMN created_by SET NOT NULL;
ALTER TABLE api.players DROP CONSTRAINT players_humans_have_tokens,
  ALTER COLUMN token_hash SET NOT NULL, DROP COLUMN kind;
"""
    )
