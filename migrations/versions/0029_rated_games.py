"""A game's weight in the ratings on its lobby row: friendlies left out of "rated" exports.

``api.games.rating_weight`` is the table's ``table.rating_weight`` (0028: percent of an ordinary
game, 0 for a friendly), written with the row by ``api.command_effects`` and filled in for the
games already there from their ``game_created`` (a game created before 0028 counts 100). The
bulk export's ``rated`` filter and the dumps choose by it as the ratings do: a game is rated
when its deals were not chosen and its weight is above 0 (`projections.ratings.is_rated`).

Revision ID: 0029_rated_games
Revises: 0028_rating_weight
Create Date: 2026-12-07
"""

from alembic import op

from migrations import TAKE_OWNERSHIP

revision = "0029_rated_games"
down_revision = "0028_rating_weight"
branch_labels = None
depends_on = None

COLUMN = """
ALTER TABLE api.games ADD COLUMN rating_weight smallint NOT NULL DEFAULT 100
  CHECK (rating_weight BETWEEN 0 AND 300);
UPDATE api.games g
   SET rating_weight = (e.data->'rules'->'table'->>'rating_weight')::smallint
  FROM es.events e
 WHERE e.stream_id = g.stream_id AND e.version = 1 AND e.event_type = 'game_created'
   AND e.data->'rules'->'table' ? 'rating_weight';
"""

EFFECTS = """
-- What a command writes beside its events (0006, 0007, 0010, 0013, 0029), called by es.command as
-- the owner and under its pinned search_path; not a definer, so no settings of its own to save
-- and restore, and the request path may not call it (its EXECUTE is revoked from PUBLIC).
-- p_version is the stream's version after the command, null for a refusal (no events: then
-- only the token may be given); p_principal is the owner of the command's idempotency key.
--   token    the writing token's sha256 (hex): refused (P0401) once revoked or when it may
--            only read; its last use, at most once a minute;
--   op       the lobby's row of this stream's game: 'insert' (a new game, with its deal
--            source and its weight in the ratings) or 'update';
--   notes    notifications to this game's players, of the kinds a command sends and with
--            their typed data (api.note_fits), numbered per player as api.notify numbers them.
-- A key's principal is the caller: the token's player; without a token, a bot of the service
-- or a principal that is no player (the steward's own); never another player.
CREATE OR REPLACE FUNCTION api.command_effects(p_stream text, p_version bigint,
                                               p_effects jsonb, p_principal text)
RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  game uuid;
  own uuid;
  holder uuid;
  scope text;
  caller uuid;
  token bytea;
  used timestamptz;
  revoked timestamptz;
  bot_due timestamptz;
  note jsonb;
  seq bigint;
BEGIN
  IF p_effects ? 'token' THEN
    token := decode(p_effects->>'token', 'hex');
    SELECT t.last_used_at, t.revoked_at, t.player_id, t.scope INTO used, revoked, holder, scope
      FROM api.tokens t WHERE t.token_hash = token;
    IF NOT FOUND OR revoked IS NOT NULL THEN
      RAISE EXCEPTION USING ERRCODE = 'P0401', MESSAGE = 'token_revoked';
    END IF;
    IF scope <> 'play' THEN
      RAISE EXCEPTION USING ERRCODE = 'P0401', MESSAGE = 'token_read_only';
    END IF;
    IF used IS NULL OR used < now() - interval '1 minute' THEN
      UPDATE api.tokens SET last_used_at = now() WHERE token_hash = token;
    END IF;
  END IF;
  IF p_principal ~ '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' THEN
    caller := p_principal::uuid;
  END IF;
  IF holder IS NOT NULL AND p_principal IS NOT NULL AND caller IS DISTINCT FROM holder THEN
    RAISE EXCEPTION USING ERRCODE = 'P0403', MESSAGE = 'key_not_the_callers';
  END IF;
  IF holder IS NULL AND caller IS NOT NULL AND EXISTS (
       SELECT 1 FROM api.players p WHERE p.player_id = caller AND p.kind <> 'bot') THEN
    RAISE EXCEPTION USING ERRCODE = 'P0403', MESSAGE = 'key_not_the_callers';
  END IF;
  IF p_effects IS NULL OR p_effects - 'token' = '{}'::jsonb THEN
    RETURN;
  END IF;
  -- Beside the events of this stream's game only.
  IF p_version IS NULL THEN
    RAISE EXCEPTION USING ERRCODE = 'P0400', MESSAGE = 'effects_without_events';
  END IF;
  IF p_stream ~ '^game-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' THEN
    own := substr(p_stream, 6)::uuid;
  END IF;
  IF own IS NULL OR (p_effects ? 'op' AND (p_effects->>'game_id') IS DISTINCT FROM own::text) THEN
    RAISE EXCEPTION USING ERRCODE = 'P0400', MESSAGE = 'effects_of_another_stream';
  END IF;
  IF p_effects->>'op' = 'insert' AND holder IS NOT NULL
     AND (p_effects->>'created_by') IS DISTINCT FROM holder::text THEN
    RAISE EXCEPTION USING ERRCODE = 'P0400', MESSAGE = 'game_created_for_another';
  END IF;
  IF p_effects ? 'op' THEN
    game := own;
    -- A bot of the service among the seats to act is due at once (api.bot_to_act, 0010).
    IF EXISTS (SELECT 1 FROM api.players p
                WHERE p.kind = 'bot' AND p.player_id = ANY (ARRAY(
                  SELECT (p_effects->'players'->>(s::int))::uuid
                    FROM jsonb_array_elements_text(coalesce(p_effects->'to_act', '[]')) AS t(s)
                   WHERE p_effects->'players'->>(s::int) IS NOT NULL))) THEN
      bot_due := now();
    END IF;
  END IF;
  IF p_effects->>'op' = 'insert' THEN
    INSERT INTO api.games (game_id, stream_id, status, preset, seats, players, created_by,
                           version, imported, private, to_act, dealing, rating_weight,
                           deadline, due_at, bot_due_at)
    VALUES (game, p_stream, p_effects->>'status', p_effects->>'preset',
            (p_effects->>'seats')::smallint,
            ARRAY(SELECT jsonb_array_elements_text(p_effects->'players'))::uuid[],
            (p_effects->>'created_by')::uuid, p_version,
            coalesce((p_effects->>'imported')::boolean, false),
            coalesce((p_effects->>'private')::boolean, false),
            ARRAY(SELECT jsonb_array_elements_text(
                    coalesce(p_effects->'to_act', '[]')))::smallint[],
            coalesce(p_effects->>'dealing', 'legacy'),
            coalesce((p_effects->>'rating_weight')::smallint, 100),
            to_timestamp((p_effects->>'deadline_ms')::double precision / 1000),
            to_timestamp((p_effects->>'due_ms')::double precision / 1000),
            bot_due);
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
           bot_due_at = bot_due,
           version = p_version,
           updated_at = now()
     WHERE game_id = game AND version < p_version;
  ELSIF p_effects ? 'op' THEN
    RAISE EXCEPTION USING ERRCODE = '22023', MESSAGE = 'unknown summary op ' || (p_effects->>'op');
  END IF;
  -- api.notify (0006), written out: each player's numbers without gaps, the heads' row locks
  -- held to the commit and taken in player order, so two writers never deadlock.
  FOR note IN
    SELECT value FROM jsonb_array_elements(coalesce(p_effects->'notes', '[]'::jsonb)) AS e(value)
     ORDER BY value->>'player', (value->>'order')::int NULLS FIRST
  LOOP
    IF (note->>'game_id') IS DISTINCT FROM own::text
       OR NOT api.note_fits(note->>'kind', note->'data')
       OR NOT EXISTS (SELECT 1 FROM api.games g
                       WHERE g.game_id = own AND (note->>'player')::uuid = ANY (g.players)) THEN
      RAISE EXCEPTION USING ERRCODE = 'P0400', MESSAGE = 'notification_not_allowed',
        DETAIL = left(note::text, 200);
    END IF;
    INSERT INTO api.notification_heads AS h (player_id, seq)
    VALUES ((note->>'player')::uuid, 1)
    ON CONFLICT (player_id) DO UPDATE SET seq = h.seq + 1
    RETURNING h.seq INTO seq;
    INSERT INTO api.notifications (player_id, seq, kind, game_id, data)
    VALUES ((note->>'player')::uuid, seq, note->>'kind', (note->>'game_id')::uuid,
            coalesce(note->'data', '{}'::jsonb));
  END LOOP;
END $$;

"""

# The downgrade's: 0016's function, as it was.
EFFECTS_BEFORE = """
-- What a command writes beside its events (0006, 0007, 0010, 0013), called by es.command as
-- the owner and under its pinned search_path; not a definer, so no settings of its own to save
-- and restore, and the request path may not call it (its EXECUTE is revoked from PUBLIC).
-- p_version is the stream's version after the command, null for a refusal (no events: then
-- only the token may be given); p_principal is the owner of the command's idempotency key.
--   token    the writing token's sha256 (hex): refused (P0401) once revoked or when it may
--            only read; its last use, at most once a minute;
--   op       the lobby's row of this stream's game: 'insert' (a new game, with its deal
--            source) or 'update';
--   notes    notifications to this game's players, of the kinds a command sends and with
--            their typed data (api.note_fits), numbered per player as api.notify numbers them.
-- A key's principal is the caller: the token's player; without a token, a bot of the service
-- or a principal that is no player (the steward's own); never another player.
CREATE OR REPLACE FUNCTION api.command_effects(p_stream text, p_version bigint,
                                               p_effects jsonb, p_principal text)
RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  game uuid;
  own uuid;
  holder uuid;
  scope text;
  caller uuid;
  token bytea;
  used timestamptz;
  revoked timestamptz;
  bot_due timestamptz;
  note jsonb;
  seq bigint;
BEGIN
  IF p_effects ? 'token' THEN
    token := decode(p_effects->>'token', 'hex');
    SELECT t.last_used_at, t.revoked_at, t.player_id, t.scope INTO used, revoked, holder, scope
      FROM api.tokens t WHERE t.token_hash = token;
    IF NOT FOUND OR revoked IS NOT NULL THEN
      RAISE EXCEPTION USING ERRCODE = 'P0401', MESSAGE = 'token_revoked';
    END IF;
    IF scope <> 'play' THEN
      RAISE EXCEPTION USING ERRCODE = 'P0401', MESSAGE = 'token_read_only';
    END IF;
    IF used IS NULL OR used < now() - interval '1 minute' THEN
      UPDATE api.tokens SET last_used_at = now() WHERE token_hash = token;
    END IF;
  END IF;
  IF p_principal ~ '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' THEN
    caller := p_principal::uuid;
  END IF;
  IF holder IS NOT NULL AND p_principal IS NOT NULL AND caller IS DISTINCT FROM holder THEN
    RAISE EXCEPTION USING ERRCODE = 'P0403', MESSAGE = 'key_not_the_callers';
  END IF;
  IF holder IS NULL AND caller IS NOT NULL AND EXISTS (
       SELECT 1 FROM api.players p WHERE p.player_id = caller AND p.kind <> 'bot') THEN
    RAISE EXCEPTION USING ERRCODE = 'P0403', MESSAGE = 'key_not_the_callers';
  END IF;
  IF p_effects IS NULL OR p_effects - 'token' = '{}'::jsonb THEN
    RETURN;
  END IF;
  -- Beside the events of this stream's game only.
  IF p_version IS NULL THEN
    RAISE EXCEPTION USING ERRCODE = 'P0400', MESSAGE = 'effects_without_events';
  END IF;
  IF p_stream ~ '^game-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' THEN
    own := substr(p_stream, 6)::uuid;
  END IF;
  IF own IS NULL OR (p_effects ? 'op' AND (p_effects->>'game_id') IS DISTINCT FROM own::text) THEN
    RAISE EXCEPTION USING ERRCODE = 'P0400', MESSAGE = 'effects_of_another_stream';
  END IF;
  IF p_effects->>'op' = 'insert' AND holder IS NOT NULL
     AND (p_effects->>'created_by') IS DISTINCT FROM holder::text THEN
    RAISE EXCEPTION USING ERRCODE = 'P0400', MESSAGE = 'game_created_for_another';
  END IF;
  IF p_effects ? 'op' THEN
    game := own;
    -- A bot of the service among the seats to act is due at once (api.bot_to_act, 0010).
    IF EXISTS (SELECT 1 FROM api.players p
                WHERE p.kind = 'bot' AND p.player_id = ANY (ARRAY(
                  SELECT (p_effects->'players'->>(s::int))::uuid
                    FROM jsonb_array_elements_text(coalesce(p_effects->'to_act', '[]')) AS t(s)
                   WHERE p_effects->'players'->>(s::int) IS NOT NULL))) THEN
      bot_due := now();
    END IF;
  END IF;
  IF p_effects->>'op' = 'insert' THEN
    INSERT INTO api.games (game_id, stream_id, status, preset, seats, players, created_by,
                           version, imported, private, to_act, dealing, deadline, due_at,
                           bot_due_at)
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
            bot_due);
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
           bot_due_at = bot_due,
           version = p_version,
           updated_at = now()
     WHERE game_id = game AND version < p_version;
  ELSIF p_effects ? 'op' THEN
    RAISE EXCEPTION USING ERRCODE = '22023', MESSAGE = 'unknown summary op ' || (p_effects->>'op');
  END IF;
  -- api.notify (0006), written out: each player's numbers without gaps, the heads' row locks
  -- held to the commit and taken in player order, so two writers never deadlock.
  FOR note IN
    SELECT value FROM jsonb_array_elements(coalesce(p_effects->'notes', '[]'::jsonb)) AS e(value)
     ORDER BY value->>'player', (value->>'order')::int NULLS FIRST
  LOOP
    IF (note->>'game_id') IS DISTINCT FROM own::text
       OR NOT api.note_fits(note->>'kind', note->'data')
       OR NOT EXISTS (SELECT 1 FROM api.games g
                       WHERE g.game_id = own AND (note->>'player')::uuid = ANY (g.players)) THEN
      RAISE EXCEPTION USING ERRCODE = 'P0400', MESSAGE = 'notification_not_allowed',
        DETAIL = left(note::text, 200);
    END IF;
    INSERT INTO api.notification_heads AS h (player_id, seq)
    VALUES ((note->>'player')::uuid, 1)
    ON CONFLICT (player_id) DO UPDATE SET seq = h.seq + 1
    RETURNING h.seq INTO seq;
    INSERT INTO api.notifications (player_id, seq, kind, game_id, data)
    VALUES ((note->>'player')::uuid, seq, note->>'kind', (note->>'game_id')::uuid,
            coalesce(note->'data', '{}'::jsonb));
  END LOOP;
END $$;

"""


def upgrade() -> None:
    op.execute(COLUMN)
    op.execute(EFFECTS)
    op.execute(TAKE_OWNERSHIP)


def downgrade() -> None:
    op.execute(EFFECTS_BEFORE)
    op.execute("ALTER TABLE api.games DROP COLUMN rating_weight;")
    op.execute(TAKE_OWNERSHIP)
