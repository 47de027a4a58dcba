"""The HTTP API's own tables: players with hashed bearer tokens, and the games list.

- ``api.players`` keeps a player's display name and the sha256 of his bearer token, never the
  token itself. Names are personal data and stay out of the event log, which only ever holds
  the opaque player id.
- ``api.games`` is the lobby (the list behind ``GET /v1/games``) and each game's deal source:
  the fixed layouts or the seed its deals come from. The source is secret (it tells every hand
  to come) and is never served; the stream ``game-<id>`` stays the truth about the game itself.

Revision ID: 0002_api
Revises: 0001_event_store
Create Date: 2025-01-02
"""

from alembic import op

from migrations import APP_ROLE

revision = "0002_api"
down_revision = "0001_event_store"
branch_labels = None
depends_on = None

SCHEMA = f"""
CREATE SCHEMA api;

CREATE TABLE api.players (
  player_id   uuid PRIMARY KEY,
  name        text NOT NULL CHECK (length(name) BETWEEN 1 AND 64),
  token_hash  bytea NOT NULL UNIQUE CHECK (length(token_hash) = 32),  -- sha256 of the token
  created_at  timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE api.games (
  game_id     uuid PRIMARY KEY,  -- uuid7: time-ordered, so it is also the list's keyset
  stream_id   text NOT NULL UNIQUE,
  status      text NOT NULL CHECK (status IN ('seating', 'playing', 'finished')),
  preset      text NOT NULL,
  seats       smallint NOT NULL CHECK (seats IN (3, 4)),
  players     uuid[] NOT NULL,  -- per seat, NULL while free
  created_by  uuid NOT NULL REFERENCES api.players (player_id),
  created_at  timestamptz NOT NULL DEFAULT now(),
  version     bigint NOT NULL DEFAULT 0,  -- the stream version this row reflects
  seed        text,
  layouts     jsonb NOT NULL DEFAULT '[]'::jsonb CHECK (jsonb_typeof(layouts) = 'array')
);
CREATE INDEX games_by_status ON api.games (status, game_id DESC);

REVOKE ALL ON ALL TABLES IN SCHEMA api FROM PUBLIC;
GRANT USAGE ON SCHEMA api TO {APP_ROLE};
GRANT SELECT, INSERT ON api.players TO {APP_ROLE};
GRANT SELECT, INSERT, UPDATE ON api.games TO {APP_ROLE};
-- /health compares the database's revision with the code's.
GRANT SELECT ON public.alembic_version TO {APP_ROLE};
"""


def upgrade() -> None:
    op.execute(SCHEMA)


def downgrade() -> None:
    op.execute("DROP SCHEMA api CASCADE")
