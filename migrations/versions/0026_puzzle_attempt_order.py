"""The order in which puzzle attempts were rated, so that the ratings rebuild from the attempts.

``api.puzzle_attempts.seq``: an identity drawn when the attempt's row is inserted, which the
request path does after it holds the player's row lock and the puzzle's
(`service.read_models.puzzles`): two attempts that share a player or a puzzle are numbered in
the order they were rated, so folding the attempts by ``seq`` gives every rating exactly
(``preferans puzzles ratings --rebuild``). Attempts kept before this migration are numbered by
their ``at``.

Revision ID: 0026_puzzle_attempt_order
Revises: 0025_fair_play
Create Date: 2026-12-06
"""

from alembic import op

revision = "0026_puzzle_attempt_order"
down_revision = "0025_fair_play"
branch_labels = None
depends_on = None

UP = """
ALTER TABLE api.puzzle_attempts ADD COLUMN seq bigint;
UPDATE api.puzzle_attempts a SET seq = o.n
  FROM (SELECT player_id, puzzle_id,
               row_number() OVER (ORDER BY at, player_id, puzzle_id) AS n
          FROM api.puzzle_attempts) o
 WHERE (a.player_id, a.puzzle_id) = (o.player_id, o.puzzle_id);
ALTER TABLE api.puzzle_attempts ALTER COLUMN seq SET NOT NULL;
ALTER TABLE api.puzzle_attempts ALTER COLUMN seq ADD GENERATED ALWAYS AS IDENTITY;
SELECT setval(pg_get_serial_sequence('api.puzzle_attempts', 'seq'),
              coalesce((SELECT max(seq) FROM api.puzzle_attempts), 0) + 1, false);
CREATE UNIQUE INDEX puzzle_attempts_seq ON api.puzzle_attempts (seq);
"""

DOWN = """
DROP INDEX api.puzzle_attempts_seq;
ALTER TABLE api.puzzle_attempts DROP COLUMN seq;
"""


def upgrade() -> None:
    op.execute(UP)


def downgrade() -> None:
    op.execute(DOWN)
