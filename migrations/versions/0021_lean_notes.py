"""A notification's shape checked in PL/pgSQL (issue 20: a lean command path).

``api.note_fits`` (0016) was a SQL function with a common table expression, which PostgreSQL
cannot inline: called from ``api.command_effects`` it was parsed and planned again in every
transaction (each command), about 0.4 ms of the database's CPU per notification (pgbench, one
call per transaction), most of what a command's notifications cost. The same check in
PL/pgSQL is compiled once per connection: the same answer for every kind and data (exactly the
kind's keys, each of its JSON types, ``uuid`` a player's id as a string).

Revision ID: 0021_lean_notes
Revises: 0020_accounts
Create Date: 2026-12-02
"""

from alembic import op

revision = "0021_lean_notes"
down_revision = "0020_accounts"
branch_labels = None
depends_on = None

NOTE_FITS = """
-- Whether a notification's data is what a command sends for its kind (service.games.lobby's
-- notifications): exactly these keys, each of its JSON type ('uuid': a player's id, or null).
CREATE OR REPLACE FUNCTION api.note_fits(p_kind text, p_data jsonb)
RETURNS boolean
LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
  shape jsonb;
  types jsonb;
  item record;
  seen int := 0;
BEGIN
  shape := CASE p_kind
    WHEN 'game_started' THEN '{"version": ["number"]}'::jsonb
    WHEN 'game_ended' THEN '{"version": ["number"], "seat": ["number"], "result": ["number"]}'
    WHEN 'timed_out' THEN '{"version": ["number"], "seat": ["number"]}'
    WHEN 'your_turn' THEN '{"version": ["number"], "seat": ["number"],
                            "deadline": ["number", "null"]}'
    WHEN 'claim' THEN '{"version": ["number"], "seat": ["number"], "by": ["number"],
                        "tricks": ["number"], "remaining": ["number"],
                        "deadline": ["number", "null"]}'
    WHEN 'player_absent' THEN '{"version": ["number"], "seat": ["number"],
                                "player": ["uuid", "null"]}'
    WHEN 'player_returned' THEN '{"version": ["number"], "seat": ["number"],
                                  "player": ["uuid", "null"]}'
    WHEN 'player_left' THEN '{"version": ["number"], "seat": ["number"],
                              "player": ["uuid", "null"]}'
  END;
  IF shape IS NULL OR p_data IS NULL OR jsonb_typeof(p_data) <> 'object' THEN
    RETURN false;
  END IF;
  FOR item IN SELECT d.key, d.value FROM jsonb_each(p_data) AS d(key, value) LOOP
    types := shape -> item.key;
    IF types IS NULL THEN
      RETURN false;
    END IF;
    IF NOT (types ? jsonb_typeof(item.value)
            OR (types ? 'uuid' AND jsonb_typeof(item.value) = 'string'
                AND item.value #>> '{}'
                    ~ '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$')) THEN
      RETURN false;
    END IF;
    seen := seen + 1;
  END LOOP;
  RETURN seen = (SELECT count(*) FROM jsonb_object_keys(shape));
END $$;
"""

NOTE_FITS_BEFORE = """
-- Whether a notification's data is what a command sends for its kind (service.games.lobby's
-- notifications): exactly these keys, each of its JSON type ('uuid': a player's id, or null).
CREATE OR REPLACE FUNCTION api.note_fits(p_kind text, p_data jsonb)
RETURNS boolean
LANGUAGE sql IMMUTABLE AS $$
  WITH shape(kind, key, types) AS (VALUES
    ('game_started', 'version', '{number}'::text[]),
    ('game_ended', 'version', '{number}'), ('game_ended', 'seat', '{number}'),
    ('game_ended', 'result', '{number}'),
    ('timed_out', 'version', '{number}'), ('timed_out', 'seat', '{number}'),
    ('your_turn', 'version', '{number}'), ('your_turn', 'seat', '{number}'),
    ('your_turn', 'deadline', '{number,"null"}'),
    ('claim', 'version', '{number}'), ('claim', 'seat', '{number}'),
    ('claim', 'by', '{number}'), ('claim', 'tricks', '{number}'),
    ('claim', 'remaining', '{number}'), ('claim', 'deadline', '{number,"null"}'),
    ('player_absent', 'version', '{number}'), ('player_absent', 'seat', '{number}'),
    ('player_absent', 'player', '{uuid,"null"}'),
    ('player_returned', 'version', '{number}'), ('player_returned', 'seat', '{number}'),
    ('player_returned', 'player', '{uuid,"null"}'),
    ('player_left', 'version', '{number}'), ('player_left', 'seat', '{number}'),
    ('player_left', 'player', '{uuid,"null"}')
  ), wanted AS (
    SELECT key, types FROM shape WHERE kind = p_kind
  )
  SELECT coalesce(jsonb_typeof(p_data) = 'object', false)
     AND EXISTS (SELECT 1 FROM wanted)
     AND (SELECT count(*) FROM jsonb_object_keys(p_data)) = (SELECT count(*) FROM wanted)
     AND NOT EXISTS (
       SELECT 1 FROM jsonb_each(p_data) AS d(key, value) LEFT JOIN wanted w USING (key)
        WHERE w.key IS NULL
           OR NOT coalesce(jsonb_typeof(d.value) = ANY (w.types)
                   OR ('uuid' = ANY (w.types) AND jsonb_typeof(d.value) = 'string'
                       AND d.value #>> '{}' ~ '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'), false))
$$;
"""  # noqa: E501


def upgrade() -> None:
    op.execute(NOTE_FITS)


def downgrade() -> None:
    op.execute(NOTE_FITS_BEFORE)
