"""Fair play: the collusion statistics' read model and the moderators who may read it.

- ``rm.collusion_games_<slot>``: each game's `projections.collusion.CollusionGame` (who sat
  where, each scored deal's facts), one row per game as the other per-game read models keep
  theirs; ``finished`` beside the model, so that the report reads finished games only.
- ``api.moderators``: the players who may read the moderation report (docs/fair-play.md). Only
  the administrator grants or revokes the role (``preferans moderators grant``): no service
  role may write the table, the request path only reads it.

Revision ID: 0025_fair_play
Revises: 0024_puzzles_and_studies
Create Date: 2026-12-07
"""

from alembic import op

from migrations import APP_ROLE, PROJECTIONS_ROLE, TAKE_OWNERSHIP

revision = "0025_fair_play"
down_revision = "0024_puzzles_and_studies"
branch_labels = None
depends_on = None

SLOT = """
CREATE TABLE rm.collusion_games_{s} (
  game_id  text PRIMARY KEY,
  version  bigint NOT NULL,
  model    jsonb NOT NULL,    -- projections.collusion.CollusionGame
  finished boolean GENERATED ALWAYS AS (coalesce((model->>'finished')::boolean, false)) STORED
);
CREATE INDEX collusion_games_{s}_finished ON rm.collusion_games_{s} (game_id) WHERE finished;
"""

MODERATORS = """
CREATE TABLE api.moderators (
  player_id  uuid PRIMARY KEY,
  granted_at timestamptz NOT NULL DEFAULT now(),
  note       text NOT NULL DEFAULT '' CHECK (length(note) <= 200)
);
"""

TABLES = ", ".join(f"rm.collusion_games_{s}" for s in "ab")

GRANTS = f"""
REVOKE ALL ON api.moderators FROM PUBLIC;
GRANT SELECT ON api.moderators TO {APP_ROLE};
GRANT SELECT ON {TABLES} TO {APP_ROLE};
GRANT SELECT, INSERT, UPDATE, DELETE, TRUNCATE ON {TABLES} TO {PROJECTIONS_ROLE};
"""

DOWN = f"""
DROP TABLE api.moderators, {TABLES};
DELETE FROM rm.projections WHERE name = 'collusion';
DELETE FROM es.projection_checkpoints WHERE projection ~ '^collusion@';
"""


def upgrade() -> None:
    for slot in ("a", "b"):
        op.execute(SLOT.format(s=slot))
    op.execute(MODERATORS)
    op.execute(TAKE_OWNERSHIP)
    op.execute(GRANTS)


def downgrade() -> None:
    op.execute(DOWN)
