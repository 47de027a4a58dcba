"""The double-dummy analysis of finished games: a read model in two slots, like the others.

- ``rm.analysis_games_<slot>``: the finished games the projection has seen, each to be analysed
  once by a service process (``leased_until`` while one is at it; ``done`` after);
- ``rm.analysis_deals_<slot>``: one row per analysed deal of a finished game
  (`projections.analysis.DealAnalysis`, written once).
- ``rm.analysis_players_<slot>``: one row per (player, game): deals in which he chose a card and
  the tricks his cards gave away against par (the statistics' "tricks lost against par").

Revision ID: 0009_analysis
Revises: 0008_snapshots
Create Date: 2026-12-01
"""

from alembic import op

from migrations import APP_ROLE, TAKE_OWNERSHIP

revision = "0009_analysis"
down_revision = "0008_snapshots"
branch_labels = None
depends_on = None

SLOT = """
CREATE TABLE rm.analysis_games_{s} (
  game_id      text PRIMARY KEY,
  stream_id    text NOT NULL,
  version      bigint NOT NULL,      -- the game's GameEnded
  leased_until timestamptz,
  done         boolean NOT NULL DEFAULT false
);
CREATE INDEX analysis_games_{s}_todo ON rm.analysis_games_{s} (leased_until) WHERE NOT done;
CREATE TABLE rm.analysis_deals_{s} (
  game_id  text NOT NULL,
  deal_no  int NOT NULL CHECK (deal_no >= 1),
  analysis jsonb NOT NULL,     -- projections.analysis.DealAnalysis
  PRIMARY KEY (game_id, deal_no)
);
CREATE TABLE rm.analysis_players_{s} (
  player_id   text NOT NULL,
  game_id     text NOT NULL,
  deals       int NOT NULL CHECK (deals >= 0),
  tricks_lost int NOT NULL CHECK (tricks_lost >= 0),
  PRIMARY KEY (player_id, game_id)
);
"""

TABLES = ("analysis_games", "analysis_deals", "analysis_players")


def upgrade() -> None:
    for slot in ("a", "b"):
        op.execute(SLOT.format(s=slot))
    op.execute(TAKE_OWNERSHIP)
    names = ", ".join(f"rm.{t}_{s}" for t in TABLES for s in ("a", "b"))
    op.execute(f"GRANT SELECT, INSERT, UPDATE, DELETE, TRUNCATE ON {names} TO {APP_ROLE}")


def downgrade() -> None:
    names = ", ".join(f"rm.{t}_{s}" for t in TABLES for s in ("a", "b"))
    op.execute(f"DROP TABLE {names}")
    op.execute("DELETE FROM rm.projections WHERE name = 'analysis'")
    op.execute("DELETE FROM es.projection_checkpoints WHERE projection ~ '^analysis@'")
