"""A game created with the service's bots at its seats: its lobby row says at once that a bot
is to act (and when a clock runs out), as every later command's row does.

``api.command_effects`` now writes ``deadline``, ``due_at`` and ``bot_due_at`` for a new game
too (they were left empty until the game's second command, which never comes when the first
to act is a bot seated at the creation); ``api.bot_to_act`` is the test both paths share.

Revision ID: 0010_bots_at_creation
Revises: 0009_analysis
Create Date: 2026-12-01
"""

from alembic import op

from migrations import TAKE_OWNERSHIP

revision = "0010_bots_at_creation"
down_revision = "0009_analysis"
branch_labels = None
depends_on = None

BOT_TO_ACT = """
-- A bot of the service is among the seats to act in a lobby row's effects.
CREATE FUNCTION api.bot_to_act(p_effects jsonb) RETURNS boolean
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
  SELECT EXISTS (SELECT 1 FROM api.players p
                  WHERE p.kind = 'bot' AND p.player_id = ANY (ARRAY(
                    SELECT (p_effects->'players'->>(s::int))::uuid
                      FROM jsonb_array_elements_text(coalesce(p_effects->'to_act', '[]')) AS t(s)
                     WHERE p_effects->'players'->>(s::int) IS NOT NULL)))
$$;
REVOKE ALL ON FUNCTION api.bot_to_act(jsonb) FROM PUBLIC;
"""

EFFECTS = """
-- api.command_effects (0007) with the clocks and the bot to act of a new game too.
CREATE OR REPLACE FUNCTION api.command_effects(p_stream text, p_version bigint, p_effects jsonb)
RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
  game uuid;
  token bytea;
BEGIN
  IF p_effects IS NULL THEN
    RETURN;
  END IF;
  IF p_effects ? 'token' THEN
    token := decode(p_effects->>'token', 'hex');
    PERFORM 1 FROM api.tokens WHERE token_hash = token AND revoked_at IS NULL FOR SHARE;
    IF NOT FOUND THEN
      RAISE EXCEPTION USING ERRCODE = 'P0401', MESSAGE = 'token_revoked';
    END IF;
    UPDATE api.tokens SET last_used_at = now()
     WHERE token_hash = token
       AND (last_used_at IS NULL OR last_used_at < now() - interval '1 minute');
  END IF;
  game := (p_effects->>'game_id')::uuid;
  IF p_effects->>'op' = 'insert' THEN
    INSERT INTO api.games (game_id, stream_id, status, preset, seats, players, created_by,
                           version, imported, private, to_act, dealing, deadline, due_at, bot_due_at)
    VALUES (game, p_stream, p_effects->>'status', p_effects->>'preset',
            (p_effects->>'seats')::smallint,
            ARRAY(SELECT jsonb_array_elements_text(p_effects->'players'))::uuid[],
            (p_effects->>'created_by')::uuid, p_version,
            coalesce((p_effects->>'imported')::boolean, false),
            coalesce((p_effects->>'private')::boolean, false),
            ARRAY(SELECT jsonb_array_elements_text(
                    coalesce(p_effects->'to_act', '[]')))::smallint[],
            coalesce(p_effects->>'dealing', 'legacy'),
            to_timestamp((p_effects->>'deadline_ms')::double precision / 1000),
            to_timestamp((p_effects->>'due_ms')::double precision / 1000),
            CASE WHEN api.bot_to_act(p_effects) THEN now() END);
    INSERT INTO api.deal_sources (game_id, seats, seed, layouts, secret)
    VALUES (game, (p_effects->>'seats')::smallint, p_effects->>'seed',
            coalesce(p_effects->'layouts', '[]'::jsonb), decode(p_effects->>'secret', 'hex'));
  ELSIF p_effects->>'op' = 'update' THEN
    -- Guarded by the version: a late write never takes the row back in time. The service acts
    -- at the table at the time the command computed (a deadline, a seat to play for), and a
    -- bot of its own to act is due at once.
    UPDATE api.games g
       SET status = p_effects->>'status',
           players = ARRAY(SELECT jsonb_array_elements_text(p_effects->'players'))::uuid[],
           to_act = ARRAY(SELECT jsonb_array_elements_text(p_effects->'to_act'))::smallint[],
           deadline = to_timestamp((p_effects->>'deadline_ms')::double precision / 1000),
           due_at = to_timestamp((p_effects->>'due_ms')::double precision / 1000),
           bot_due_at = CASE WHEN api.bot_to_act(p_effects) THEN now() END,
           version = p_version,
           updated_at = now()
     WHERE game_id = game AND version < p_version;
  ELSIF p_effects ? 'op' THEN
    RAISE EXCEPTION USING ERRCODE = '22023', MESSAGE = 'unknown summary op ' || (p_effects->>'op');
  END IF;
  IF p_effects ? 'notes' THEN
    PERFORM api.notify(p_effects->'notes');
  END IF;
END $$;
"""  # noqa: E501 (the text as it always was)

EFFECTS_BEFORE = """
-- api.command_effects as 0007 wrote it: the downgrade's.
CREATE OR REPLACE FUNCTION api.command_effects(p_stream text, p_version bigint, p_effects jsonb)
RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
  game uuid;
  token bytea;
BEGIN
  IF p_effects IS NULL THEN
    RETURN;
  END IF;
  IF p_effects ? 'token' THEN
    token := decode(p_effects->>'token', 'hex');
    PERFORM 1 FROM api.tokens WHERE token_hash = token AND revoked_at IS NULL FOR SHARE;
    IF NOT FOUND THEN
      RAISE EXCEPTION USING ERRCODE = 'P0401', MESSAGE = 'token_revoked';
    END IF;
    UPDATE api.tokens SET last_used_at = now()
     WHERE token_hash = token
       AND (last_used_at IS NULL OR last_used_at < now() - interval '1 minute');
  END IF;
  game := (p_effects->>'game_id')::uuid;
  IF p_effects->>'op' = 'insert' THEN
    INSERT INTO api.games (game_id, stream_id, status, preset, seats, players, created_by,
                           version, imported, private, to_act, dealing)
    VALUES (game, p_stream, p_effects->>'status', p_effects->>'preset',
            (p_effects->>'seats')::smallint,
            ARRAY(SELECT jsonb_array_elements_text(p_effects->'players'))::uuid[],
            (p_effects->>'created_by')::uuid, p_version,
            coalesce((p_effects->>'imported')::boolean, false),
            coalesce((p_effects->>'private')::boolean, false),
            ARRAY(SELECT jsonb_array_elements_text(
                    coalesce(p_effects->'to_act', '[]')))::smallint[],
            coalesce(p_effects->>'dealing', 'legacy'));
    INSERT INTO api.deal_sources (game_id, seats, seed, layouts, secret)
    VALUES (game, (p_effects->>'seats')::smallint, p_effects->>'seed',
            coalesce(p_effects->'layouts', '[]'::jsonb), decode(p_effects->>'secret', 'hex'));
  ELSIF p_effects->>'op' = 'update' THEN
    -- Guarded by the version: a late write never takes the row back in time. The service acts
    -- at the table at the time the command computed (a deadline, a seat to play for), and a
    -- bot of its own to act is due at once.
    UPDATE api.games g
       SET status = p_effects->>'status',
           players = ARRAY(SELECT jsonb_array_elements_text(p_effects->'players'))::uuid[],
           to_act = ARRAY(SELECT jsonb_array_elements_text(p_effects->'to_act'))::smallint[],
           deadline = to_timestamp((p_effects->>'deadline_ms')::double precision / 1000),
           due_at = to_timestamp((p_effects->>'due_ms')::double precision / 1000),
           bot_due_at = CASE
             WHEN EXISTS (SELECT 1 FROM api.players p
                           WHERE p.kind = 'bot' AND p.player_id = ANY (ARRAY(
                             SELECT (p_effects->'players'->>(s::int))::uuid
                               FROM jsonb_array_elements_text(p_effects->'to_act') AS t(s))))
               THEN now() END,
           version = p_version,
           updated_at = now()
     WHERE game_id = game AND version < p_version;
  ELSIF p_effects ? 'op' THEN
    RAISE EXCEPTION USING ERRCODE = '22023', MESSAGE = 'unknown summary op ' || (p_effects->>'op');
  END IF;
  IF p_effects ? 'notes' THEN
    PERFORM api.notify(p_effects->'notes');
  END IF;
END $$;
"""


def upgrade() -> None:
    op.execute(BOT_TO_ACT)
    op.execute(EFFECTS)
    op.execute(TAKE_OWNERSHIP)


def downgrade() -> None:
    op.execute(EFFECTS_BEFORE)
    op.execute("DROP FUNCTION api.bot_to_act(jsonb)")
