"""Read models of the projections (schema ``rm``), each in two slots for blue/green rebuilds.

A projection's generation ``g`` (its checkpoint is ``<name>@<g>`` in es.projection_checkpoints)
writes the tables of slot ``a`` when g is odd and ``b`` when it is even. A rebuild builds
generation g+1 into the other slot from position zero while g keeps serving, then
``rm.projections`` switches to it in one transaction (docs/event-store.md §9.4). The service never
creates tables: both slots exist from here on, owned by the migration role.

Every per-game row keeps the stream version it reflects, so re-applying an event is a no-op
(idempotent per (stream_id, version)).

Revision ID: 0003_read_models
Revises: 0002_api
Create Date: 2025-01-03
"""

from alembic import op

from migrations import APP_ROLE

revision = "0003_read_models"
down_revision = "0002_api"
branch_labels = None
depends_on = None

REGISTRY = """
CREATE SCHEMA rm;

CREATE TABLE rm.projections (
  name        text PRIMARY KEY,                -- 'sheet', 'stats', 'ratings'
  active      int  NOT NULL CHECK (active >= 1),   -- the generation serving reads
  active_code int  NOT NULL,                   -- the projection code version it was built by
  building    int  CHECK (building > active),  -- a blue/green rebuild in progress
  building_code int,
  switched_at timestamptz NOT NULL DEFAULT now()
);
"""

SLOT = """
CREATE TABLE rm.sheet_{s} (
  game_id  text PRIMARY KEY,
  version  bigint NOT NULL,   -- the last stream version applied
  model    jsonb NOT NULL     -- projections.sheet.GameSheet without its deals
);
CREATE TABLE rm.sheet_deals_{s} (
  game_id  text NOT NULL,
  deal_no  int NOT NULL,
  line     jsonb NOT NULL,    -- projections.sheet.SheetDeal, written once
  PRIMARY KEY (game_id, deal_no)
);

CREATE TABLE rm.stats_games_{s} (
  game_id  text PRIMARY KEY,
  version  bigint NOT NULL,
  model    jsonb NOT NULL     -- projections.stats.GameStats
);
CREATE TABLE rm.stats_players_{s} (
  player_id text NOT NULL,
  game_id   text NOT NULL,
  row       jsonb NOT NULL,   -- projections.stats.PlayerGame, rewritten whole
  PRIMARY KEY (player_id, game_id)
);

CREATE TABLE rm.rating_games_{s} (
  game_id  text PRIMARY KEY,
  version  bigint NOT NULL,
  model    jsonb NOT NULL     -- projections.ratings.RatedGame
);
CREATE TABLE rm.ratings_{s} (
  player_id text PRIMARY KEY,
  mu        float8 NOT NULL,
  sigma     float8 NOT NULL,
  games     int NOT NULL,
  rating    float8 NOT NULL,  -- mu - 3 sigma, the leaderboard's order
  updated_at timestamptz NOT NULL
);
CREATE INDEX ratings_{s}_board ON rm.ratings_{s} (rating DESC, player_id);
CREATE TABLE rm.rating_history_{s} (
  player_id text NOT NULL,
  game_no   int NOT NULL,     -- 1 for the player's first rated game
  game_id   text NOT NULL,
  position  bigint NOT NULL,  -- global position of the game's end
  at        timestamptz NOT NULL,
  change    jsonb NOT NULL,   -- projections.ratings.RatingChange
  PRIMARY KEY (player_id, game_no)
);
"""

TABLES = (
    "sheet",
    "sheet_deals",
    "stats_games",
    "stats_players",
    "rating_games",
    "ratings",
    "rating_history",
)


def upgrade() -> None:
    op.execute(REGISTRY)
    for slot in ("a", "b"):
        op.execute(SLOT.format(s=slot))
    names = ", ".join(f"rm.{t}_{s}" for t in TABLES for s in ("a", "b"))
    op.execute(
        f"""
REVOKE ALL ON ALL TABLES IN SCHEMA rm FROM PUBLIC;
GRANT USAGE ON SCHEMA rm TO {APP_ROLE};
GRANT SELECT, INSERT, UPDATE ON rm.projections TO {APP_ROLE};
GRANT SELECT, INSERT, UPDATE, DELETE, TRUNCATE ON {names} TO {APP_ROLE};
"""
    )


def downgrade() -> None:
    op.execute("DROP SCHEMA rm CASCADE")
    op.execute("DELETE FROM es.projection_checkpoints WHERE projection ~ '^(sheet|stats|ratings)@'")
