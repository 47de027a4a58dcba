"""Puzzles mined from finished deals, rated by their attempts; what-if studies of finished deals.

- ``es.stream_kinds`` gets the ``study`` kind (``study-<uuid>``), filled from
  ``domain.study.Event`` (tests/integration/test_studies.py keeps the two equal):
  ``study_forked`` first, then the deal's own events (the source deal's prefix, and the moves
  made in the study), notes, the sharing switch and the seats' bots, anywhere.
- ``api.studies``: each study's summary for its owner's list (the stream holds the rest).
- ``rm.puzzle_games_<slot>``: the finished games the ``puzzles`` read model has seen, each to be
  mined once by the miner (``leased_until`` while one is at it; ``done`` after, with the number
  of puzzles found and the milliseconds the mining took);
- ``rm.puzzles_<slot>``: one row per puzzle (`projections.puzzles.Puzzle`), its id a UUID
  derived from its game, deal and step, so that a rebuild finds the same puzzles again.
- ``api.puzzle_ratings``, ``api.puzzle_players``: each attempted puzzle's rating, and each
  player's; ``api.puzzle_attempts``: every rated attempt, written once and never changed. The
  request path writes them (an attempt is a request); nobody else may, and no role may change
  or delete an attempt.

Revision ID: 0024_puzzles_and_studies
Revises: 0023_tournaments
Create Date: 2026-12-06
"""

from alembic import op

from migrations import APP_ROLE, PROJECTIONS_ROLE, TAKE_OWNERSHIP

revision = "0024_puzzles_and_studies"
down_revision = "0023_tournaments"
branch_labels = None
depends_on = None

DEAL_EVENTS = (
    ("deal_started", 1), ("cards_looked", 1), ("bid_made", 1), ("passed", 1),
    ("auction_won", 1), ("all_passed", 1), ("talon_set_aside", 1), ("talon_taken", 1),
    ("discarded", 1), ("contract_declared", 1), ("totus_shown", 1), ("conceded", 1),
    ("whist_called", 1), ("hand_looked_at", 1), ("play_chosen", 1), ("play_started", 1),
    ("hands_opened", 2), ("talon_card_turned", 1), ("card_played", 1), ("trick_won", 1),
    ("claim_made", 1), ("claim_answered", 1), ("deal_ended", 2),
)  # fmt: skip
"""The deal's event types and their schema versions, as the games' catalog holds them."""

_CATALOG = ", ".join(
    ['"study_forked": {"v": 1, "place": "first"}']
    + [
        f'"{name}": {{"v": 1, "place": "any"}}'
        for name in ("note_added", "study_shared", "seat_bot_set")
    ]
    + [f'"{name}": {{"v": {v}, "place": "any"}}' for name, v in DEAL_EVENTS]
)

STUDIES = f"""
INSERT INTO es.stream_kinds (stream_type, events) VALUES ('study', '{{{_CATALOG}}}');

CREATE TABLE api.studies (
  study_id    uuid PRIMARY KEY,
  owner       uuid NOT NULL,
  game_id     uuid NOT NULL,
  deal_no     integer NOT NULL CHECK (deal_no >= 1),
  step        integer NOT NULL CHECK (step >= 1),
  created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX studies_of_owner ON api.studies (owner, created_at DESC, study_id DESC);
"""

PUZZLE_SLOT = """
CREATE TABLE rm.puzzle_games_{s} (
  game_id      text PRIMARY KEY,
  stream_id    text NOT NULL,
  version      bigint NOT NULL,      -- the game's GameEnded
  leased_until timestamptz,
  done         boolean NOT NULL DEFAULT false,
  puzzles      integer CHECK (puzzles >= 0),
  mined_ms     integer CHECK (mined_ms >= 0)
);
CREATE INDEX puzzle_games_{s}_todo ON rm.puzzle_games_{s} (leased_until) WHERE NOT done;
CREATE TABLE rm.puzzles_{s} (
  puzzle_id  uuid PRIMARY KEY,
  game_id    text NOT NULL,
  deal_no    integer NOT NULL CHECK (deal_no >= 1),
  step       integer NOT NULL CHECK (step >= 1),
  theme      text NOT NULL,
  puzzle     jsonb NOT NULL         -- projections.puzzles.Puzzle
);
CREATE INDEX puzzles_{s}_game ON rm.puzzles_{s} (game_id);
"""

RATINGS = """
CREATE TABLE api.puzzle_ratings (
  puzzle_id  uuid PRIMARY KEY,
  mu         double precision NOT NULL,
  sigma      double precision NOT NULL CHECK (sigma > 0),
  attempts   integer NOT NULL DEFAULT 0 CHECK (attempts >= 0),
  solved     integer NOT NULL DEFAULT 0 CHECK (solved >= 0)
);
CREATE INDEX puzzle_ratings_mu ON api.puzzle_ratings (mu, puzzle_id);
CREATE TABLE api.puzzle_players (
  player_id  uuid PRIMARY KEY,
  mu         double precision NOT NULL,
  sigma      double precision NOT NULL CHECK (sigma > 0),
  attempts   integer NOT NULL DEFAULT 0 CHECK (attempts >= 0),
  solved     integer NOT NULL DEFAULT 0 CHECK (solved >= 0),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE api.puzzle_attempts (
  player_id     uuid NOT NULL,
  puzzle_id     uuid NOT NULL,
  card          text NOT NULL CHECK (card ~ '^[789TJQKA][SCDH]$'),
  solved        boolean NOT NULL,
  at            timestamptz NOT NULL DEFAULT now(),
  player_before double precision NOT NULL,
  player_mu     double precision NOT NULL,
  player_sigma  double precision NOT NULL,
  puzzle_before double precision NOT NULL,
  puzzle_mu     double precision NOT NULL,
  puzzle_sigma  double precision NOT NULL,
  PRIMARY KEY (player_id, puzzle_id)
);
CREATE INDEX puzzle_attempts_history ON api.puzzle_attempts (player_id, at DESC, puzzle_id DESC);
"""

PUZZLE_TABLES = ("puzzle_games", "puzzles")

GRANTS = f"""
REVOKE ALL ON api.studies, api.puzzle_ratings, api.puzzle_players, api.puzzle_attempts
  FROM PUBLIC;
GRANT SELECT, INSERT ON api.studies TO {APP_ROLE};
GRANT SELECT, INSERT, UPDATE ON api.puzzle_ratings, api.puzzle_players TO {APP_ROLE};
GRANT SELECT, INSERT ON api.puzzle_attempts TO {APP_ROLE};
GRANT SELECT ON {", ".join(f"rm.{t}_{s}" for t in PUZZLE_TABLES for s in "ab")} TO {APP_ROLE};
GRANT SELECT, INSERT, UPDATE, DELETE, TRUNCATE
  ON {", ".join(f"rm.{t}_{s}" for t in PUZZLE_TABLES for s in "ab")} TO {PROJECTIONS_ROLE};
"""

DOWN = f"""
DROP TABLE api.puzzle_attempts, api.puzzle_players, api.puzzle_ratings, api.studies;
DROP TABLE {", ".join(f"rm.{t}_{s}" for t in PUZZLE_TABLES for s in "ab")};
DELETE FROM rm.projections WHERE name = 'puzzles';
DELETE FROM es.projection_checkpoints WHERE projection ~ '^puzzles@';
DELETE FROM es.stream_kinds WHERE stream_type = 'study';
"""


def upgrade() -> None:
    op.execute(STUDIES)
    for slot in ("a", "b"):
        op.execute(PUZZLE_SLOT.format(s=slot))
    op.execute(RATINGS)
    op.execute(TAKE_OWNERSHIP)
    op.execute(GRANTS)


def downgrade() -> None:
    op.execute(DOWN)
