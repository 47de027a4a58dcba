"""Live tables: tokens per device, bot players, whose turn it is and until when, private tables
with invites, and each player's notifications.

- ``api.tokens``: a player's bearer tokens (sha256 only), each with a name, a scope (``play`` or
  ``read``), its creation, last use and revocation. The one token of each existing player moves
  here; ``api.players.token_hash`` goes.
- ``api.players.kind`` gains ``bot`` (the service's own players: no token, nobody logs in as
  one) and ``program`` (a program playing through the API: tokens like a human, shown and rated
  as a bot). ``registration`` keeps the hash of the Idempotency-Key a player registered with.
- ``api.games`` gains ``to_act`` (the seats to act), ``deadline`` (the earliest of their
  clocks), ``due_at`` (when the service itself must act at the table: a deadline, an absent or
  abandoned seat to play for), ``bot_due_at`` (a bot of the service is to move: from then on)
  and ``private``.
- ``api.invites``: codes (sha256 only) that seat a player at a private table until they expire.
- ``api.notifications``: each player's numbered notifications (his turn, a game started or
  ended, an invitation, an opponent gone or back, a claim to answer), gapless per player: the
  number comes from ``api.notification_heads``, whose row lock orders one player's writers.
- ``api.command_effects``: what ``es.command`` writes beside the events (the lobby's row, the
  notifications, the check that the writing token is not revoked), in the same statement;
  ``es.command`` now calls it instead of writing the lobby itself.

Revision ID: 0006_live_tables
Revises: 0005_least_privilege
Create Date: 2026-12-01
"""

from alembic import op

from migrations import APP_ROLE, TAKE_OWNERSHIP

revision = "0006_live_tables"
down_revision = "0005_least_privilege"
branch_labels = None
depends_on = None

COMMAND_ARGS = (
    "text, text, bigint, uuid[], text[], smallint[], jsonb[], jsonb[], "
    "text, text, bytea, interval, int, jsonb, bytea, jsonb"
)

TABLES = """
CREATE TABLE api.tokens (
  token_id      uuid PRIMARY KEY,
  token_hash    bytea NOT NULL UNIQUE CHECK (length(token_hash) = 32),  -- sha256 of the token
  player_id     uuid NOT NULL REFERENCES api.players (player_id),
  name          text NOT NULL CHECK (length(name) BETWEEN 1 AND 64),
  scope         text NOT NULL CHECK (scope IN ('play', 'read')),
  created_at    timestamptz NOT NULL DEFAULT now(),
  last_used_at  timestamptz,
  revoked_at    timestamptz
);
CREATE INDEX tokens_by_player ON api.tokens (player_id, created_at);
INSERT INTO api.tokens (token_id, token_hash, player_id, name, scope, created_at)
SELECT gen_random_uuid(), token_hash, player_id, 'first device', 'play', created_at
  FROM api.players WHERE token_hash IS NOT NULL;

ALTER TABLE api.players DROP CONSTRAINT players_humans_have_tokens,
  DROP COLUMN token_hash,
  DROP CONSTRAINT players_kind_check,
  ADD CONSTRAINT players_kind_check CHECK (kind IN ('human', 'guest', 'bot', 'program')),
  ADD COLUMN registration bytea UNIQUE CHECK (length(registration) = 32),
  ADD COLUMN registration_request bytea;

ALTER TABLE api.games
  ADD COLUMN to_act smallint[] NOT NULL DEFAULT '{}',
  ADD COLUMN deadline timestamptz,
  ADD COLUMN due_at timestamptz,
  ADD COLUMN bot_due_at timestamptz,
  ADD COLUMN private boolean NOT NULL DEFAULT false,
  ADD COLUMN updated_at timestamptz NOT NULL DEFAULT now();
CREATE INDEX games_due ON api.games (due_at) WHERE due_at IS NOT NULL;
CREATE INDEX games_bot_due ON api.games (bot_due_at) WHERE bot_due_at IS NOT NULL;
CREATE INDEX games_by_player ON api.games USING gin (players);

CREATE TABLE api.invites (
  code_hash   bytea PRIMARY KEY CHECK (length(code_hash) = 32),
  game_id     uuid NOT NULL REFERENCES api.games (game_id),
  created_by  uuid NOT NULL REFERENCES api.players (player_id),
  invitee     uuid REFERENCES api.players (player_id),
  created_at  timestamptz NOT NULL DEFAULT now(),
  expires_at  timestamptz NOT NULL
);
CREATE INDEX invites_by_game ON api.invites (game_id);

CREATE TABLE api.notification_heads (
  player_id  uuid PRIMARY KEY,
  seq        bigint NOT NULL CHECK (seq > 0)
);
CREATE TABLE api.notifications (
  player_id   uuid NOT NULL,
  seq         bigint NOT NULL CHECK (seq > 0),
  kind        text NOT NULL CHECK (length(kind) <= 40),
  game_id     uuid,
  data        jsonb NOT NULL DEFAULT '{}'::jsonb CHECK (jsonb_typeof(data) = 'object'),
  created_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (player_id, seq)
);
CREATE INDEX notifications_by_age ON api.notifications (created_at);
"""

FUNCTIONS = """
-- Notifications for players, numbered 1, 2, 3 … per player without gaps. The head's row lock
-- is held to the commit, so one player's numbers commit in order: a reader after seq n never
-- misses a later-committed n - 1. Players are taken in id order, so two writers never deadlock.
CREATE FUNCTION api.notify(p_notes jsonb)
RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
  note jsonb;
  n bigint;
BEGIN
  FOR note IN
    SELECT value FROM jsonb_array_elements(coalesce(p_notes, '[]'::jsonb)) AS e(value)
     ORDER BY value->>'player', (value->>'order')::int NULLS FIRST
  LOOP
    INSERT INTO api.notification_heads AS h (player_id, seq)
    VALUES ((note->>'player')::uuid, 1)
    ON CONFLICT (player_id) DO UPDATE SET seq = h.seq + 1
    RETURNING seq INTO n;
    INSERT INTO api.notifications (player_id, seq, kind, game_id, data)
    VALUES ((note->>'player')::uuid, n, note->>'kind', (note->>'game_id')::uuid,
            coalesce(note->'data', '{}'::jsonb));
  END LOOP;
END $$;

-- What a command writes beside its events, in the same statement (so both or neither commit):
--   token    the writing token's sha256 (hex): refused (P0401) once revoked; its last use;
--   op       the lobby's row: 'insert' (a new game, with its deal source) or 'update';
--   notes    notifications (api.notify).
CREATE FUNCTION api.command_effects(p_stream text, p_version bigint, p_effects jsonb)
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
                           version, imported, private, to_act)
    VALUES (game, p_stream, p_effects->>'status', p_effects->>'preset',
            (p_effects->>'seats')::smallint,
            ARRAY(SELECT jsonb_array_elements_text(p_effects->'players'))::uuid[],
            (p_effects->>'created_by')::uuid, p_version,
            coalesce((p_effects->>'imported')::boolean, false),
            coalesce((p_effects->>'private')::boolean, false),
            ARRAY(SELECT jsonb_array_elements_text(
                    coalesce(p_effects->'to_act', '[]')))::smallint[]);
    INSERT INTO api.deal_sources (game_id, seats, seed, layouts)
    VALUES (game, (p_effects->>'seats')::smallint, p_effects->>'seed',
            coalesce(p_effects->'layouts', '[]'::jsonb));
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

-- Seat a player with an invite: the game of a valid code (null if unknown or expired).
CREATE FUNCTION api.invite_game(p_code bytea)
RETURNS TABLE (game_id uuid, expired boolean, invitee uuid)
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
  SELECT game_id, expires_at <= now(), invitee FROM api.invites WHERE code_hash = p_code
$$;

CREATE FUNCTION api.create_invite(p_code bytea, p_game uuid, p_by uuid, p_invitee uuid,
                                  p_ttl interval)
RETURNS timestamptz
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
  expires timestamptz := now() + p_ttl;
BEGIN
  INSERT INTO api.invites (code_hash, game_id, created_by, invitee, expires_at)
  VALUES (p_code, p_game, p_by, p_invitee, expires);
  IF p_invitee IS NOT NULL THEN
    PERFORM api.notify(jsonb_build_array(jsonb_build_object(
      'player', p_invitee, 'kind', 'invited', 'game_id', p_game,
      'data', jsonb_build_object('by', p_by, 'expires_at', expires))));
  END IF;
  RETURN expires;
END $$;

-- Old notifications and invites, a batch at a time (the service's purger calls it).
CREATE FUNCTION api.purge_notifications(p_keep interval, p_limit int)
RETURNS int
LANGUAGE sql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
  WITH gone AS (
    DELETE FROM api.notifications
     WHERE ctid = ANY (ARRAY(SELECT ctid FROM api.notifications
                              WHERE created_at < now() - p_keep LIMIT p_limit))
    RETURNING 1),
  invites AS (
    DELETE FROM api.invites WHERE expires_at < now() - p_keep RETURNING 1)
  SELECT (SELECT count(*) FROM gone)::int
$$;
"""

COMMAND = """
CREATE OR REPLACE FUNCTION es.command(
  p_stream text, p_type text, p_expected bigint,
  p_ids uuid[], p_types text[], p_sv smallint[], p_data jsonb[], p_meta jsonb[],
  p_principal text, p_key text, p_request bytea, p_key_ttl interval,
  p_status int, p_headers jsonb, p_body bytea,
  p_summary jsonb)
RETURNS TABLE (outcome text, new_version bigint, positions bigint[], tx xid8,
               stored_stream text, stored_version bigint, stored_status int,
               stored_headers jsonb, stored_body bytea)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
-- One command in one statement (so one round trip and one commit):
--   p_ids … p_meta      the events to append at exactly p_expected (none for a refusal);
--   p_principal, p_key  the Idempotency-Key, with p_request the hash of its request, kept
--                       p_key_ttl; p_status, p_headers, p_body the response to store under it;
--   p_summary           what the API writes beside the events (api.command_effects).
-- outcome: 'appended', 'refused' (no events, the response stored), 'replayed' (the key's
-- earlier response; nothing else done) or 'nothing' (no events, no key).
DECLARE
  n int := coalesce(cardinality(p_ids), 0);
  appended record;
  held record;
  claimed boolean;
  waited text;
BEGIN
  IF p_key IS NOT NULL THEN
    -- The stream's lock first: it assigns no xid, so one stream's transactions take their
    -- ids in the order of its versions (0001); the key's insert is the first write.
    PERFORM pg_advisory_xact_lock(hashtextextended(p_stream, 0));
    -- A concurrent first request with this key holds its row until it commits: wait for it
    -- (then replay its response) at most 2 s, and say so distinctly.
    waited := current_setting('lock_timeout');
    PERFORM set_config('lock_timeout', '2s', true);
    BEGIN
      INSERT INTO es.idempotency_keys AS k (principal_id, idem_key, request_hash, expires_at)
      VALUES (p_principal, p_key, p_request, now() + p_key_ttl)
      ON CONFLICT (principal_id, idem_key) DO UPDATE
         SET request_hash = EXCLUDED.request_hash, stream_id = NULL, version = NULL,
             response_status = NULL, response_headers = NULL, response_body = NULL,
             created_at = now(), expires_at = EXCLUDED.expires_at
       WHERE k.expires_at <= now()  -- an expired key is a new request
      RETURNING true INTO claimed;
    EXCEPTION WHEN lock_not_available THEN
      RAISE EXCEPTION USING ERRCODE = 'P0423', MESSAGE = 'idempotency_key_in_flight';
    END;
    PERFORM set_config('lock_timeout', waited, true);
    IF claimed IS NULL THEN
      SELECT * INTO held FROM es.idempotency_keys
       WHERE principal_id = p_principal AND idem_key = p_key;
      IF held.request_hash <> p_request THEN
        RAISE EXCEPTION USING ERRCODE = 'P0422', MESSAGE = 'idempotency_key_reused';
      END IF;
      RETURN QUERY SELECT 'replayed'::text, NULL::bigint, NULL::bigint[], NULL::xid8,
        held.stream_id, held.version, held.response_status, held.response_headers,
        held.response_body;
      RETURN;
    END IF;
  END IF;

  IF n = 0 THEN
    IF p_key IS NOT NULL THEN
      UPDATE es.idempotency_keys
         SET stream_id = p_stream, response_status = p_status, response_headers = p_headers,
             response_body = p_body
       WHERE principal_id = p_principal AND idem_key = p_key;
    END IF;
    RETURN QUERY SELECT CASE WHEN p_key IS NULL THEN 'nothing' ELSE 'refused' END,
      NULL::bigint, NULL::bigint[], NULL::xid8,
      NULL::text, NULL::bigint, NULL::int, NULL::jsonb, NULL::bytea;
    RETURN;
  END IF;

  SELECT * INTO appended
    FROM es.append(p_stream, p_type, p_expected, p_ids, p_types, p_sv, p_data, p_meta);

  IF p_key IS NOT NULL THEN
    UPDATE es.idempotency_keys
       SET stream_id = p_stream, version = appended.new_version, response_status = p_status,
           response_headers = p_headers, response_body = p_body
     WHERE principal_id = p_principal AND idem_key = p_key;
  END IF;

  PERFORM api.command_effects(p_stream, appended.new_version, p_summary);

  RETURN QUERY SELECT 'appended'::text, appended.new_version, appended.positions, appended.tx,
    NULL::text, NULL::bigint, NULL::int, NULL::jsonb, NULL::bytea;
END $$;
"""

GRANTS = f"""
REVOKE ALL ON api.tokens, api.invites, api.notifications, api.notification_heads
  FROM PUBLIC, {APP_ROLE};
REVOKE ALL ON FUNCTION api.notify(jsonb), api.command_effects(text, bigint, jsonb),
  api.invite_game(bytea), api.create_invite(bytea, uuid, uuid, uuid, interval),
  api.purge_notifications(interval, int) FROM PUBLIC;
GRANT SELECT, INSERT, UPDATE ON api.tokens TO {APP_ROLE};
-- The stewards' leases on a due game (service.workers.steward), nothing else of the lobby's row.
GRANT UPDATE (due_at, bot_due_at) ON api.games TO {APP_ROLE};
GRANT SELECT ON api.notifications, api.notification_heads TO {APP_ROLE};
GRANT EXECUTE ON FUNCTION api.invite_game(bytea),
  api.create_invite(bytea, uuid, uuid, uuid, interval),
  api.purge_notifications(interval, int) TO {APP_ROLE};
"""


def upgrade() -> None:
    op.execute(TABLES)
    op.execute(FUNCTIONS)
    op.execute(COMMAND)
    op.execute(TAKE_OWNERSHIP)
    op.execute(GRANTS)


def downgrade() -> None:
    op.execute(
        """
DROP FUNCTION api.purge_notifications(interval, int);
DROP FUNCTION api.create_invite(bytea, uuid, uuid, uuid, interval);
DROP FUNCTION api.invite_game(bytea);
DROP TABLE api.notifications, api.notification_heads, api.invites;
ALTER TABLE api.games DROP COLUMN to_act, DROP COLUMN deadline, DROP COLUMN due_at,
  DROP COLUMN bot_due_at, DROP COLUMN private, DROP COLUMN updated_at;
ALTER TABLE api.players ADD COLUMN token_hash bytea UNIQUE CHECK (length(token_hash) = 32);
UPDATE api.players p SET token_hash = (
  SELECT t.token_hash FROM api.tokens t WHERE t.player_id = p.player_id AND t.revoked_at IS NULL
   ORDER BY t.created_at LIMIT 1);
DELETE FROM api.players WHERE kind IN ('bot', 'program') AND token_hash IS NULL;
UPDATE api.players SET kind = 'human' WHERE kind = 'program';
ALTER TABLE api.players DROP CONSTRAINT players_kind_check, DROP COLUMN registration,
  DROP COLUMN registration_request,
  ADD CONSTRAINT players_kind_check CHECK (kind IN ('human', 'guest')),
  ADD CONSTRAINT players_humans_have_tokens CHECK (kind <> 'human' OR token_hash IS NOT NULL);
DROP TABLE api.tokens;
"""
    )
    op.execute(COMMAND_DOWN)
    op.execute(
        "DROP FUNCTION api.command_effects(text, bigint, jsonb); DROP FUNCTION api.notify(jsonb);"
    )


COMMAND_DOWN = """
-- The downgrade's es.command: the lobby's row written in the command itself again, as before
-- this migration (not quite 0005's text: an unknown op is ignored).
CREATE OR REPLACE FUNCTION es.command(
  p_stream text, p_type text, p_expected bigint,
  p_ids uuid[], p_types text[], p_sv smallint[], p_data jsonb[], p_meta jsonb[],
  p_principal text, p_key text, p_request bytea, p_key_ttl interval,
  p_status int, p_headers jsonb, p_body bytea,
  p_summary jsonb)
RETURNS TABLE (outcome text, new_version bigint, positions bigint[], tx xid8,
               stored_stream text, stored_version bigint, stored_status int,
               stored_headers jsonb, stored_body bytea)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
-- One command in one statement (so one round trip and one commit):
--   p_ids … p_meta      the events to append at exactly p_expected (none for a refusal);
--   p_principal, p_key  the Idempotency-Key, with p_request the hash of its request, kept
--                       p_key_ttl; p_status, p_headers, p_body the response to store under it;
--   p_summary           what the API writes beside the events (api.command_effects).
-- outcome: 'appended', 'refused' (no events, the response stored), 'replayed' (the key's
-- earlier response; nothing else done) or 'nothing' (no events, no key).
DECLARE
  n int := coalesce(cardinality(p_ids), 0);
  appended record;
  held record;
  claimed boolean;
  waited text;
BEGIN
  IF p_key IS NOT NULL THEN
    -- The stream's lock first: it assigns no xid, so one stream's transactions take their
    -- ids in the order of its versions (0001); the key's insert is the first write.
    PERFORM pg_advisory_xact_lock(hashtextextended(p_stream, 0));
    -- A concurrent first request with this key holds its row until it commits: wait for it
    -- (then replay its response) at most 2 s, and say so distinctly.
    waited := current_setting('lock_timeout');
    PERFORM set_config('lock_timeout', '2s', true);
    BEGIN
      INSERT INTO es.idempotency_keys AS k (principal_id, idem_key, request_hash, expires_at)
      VALUES (p_principal, p_key, p_request, now() + p_key_ttl)
      ON CONFLICT (principal_id, idem_key) DO UPDATE
         SET request_hash = EXCLUDED.request_hash, stream_id = NULL, version = NULL,
             response_status = NULL, response_headers = NULL, response_body = NULL,
             created_at = now(), expires_at = EXCLUDED.expires_at
       WHERE k.expires_at <= now()  -- an expired key is a new request
      RETURNING true INTO claimed;
    EXCEPTION WHEN lock_not_available THEN
      RAISE EXCEPTION USING ERRCODE = 'P0423', MESSAGE = 'idempotency_key_in_flight';
    END;
    PERFORM set_config('lock_timeout', waited, true);
    IF claimed IS NULL THEN
      SELECT * INTO held FROM es.idempotency_keys
       WHERE principal_id = p_principal AND idem_key = p_key;
      IF held.request_hash <> p_request THEN
        RAISE EXCEPTION USING ERRCODE = 'P0422', MESSAGE = 'idempotency_key_reused';
      END IF;
      RETURN QUERY SELECT 'replayed'::text, NULL::bigint, NULL::bigint[], NULL::xid8,
        held.stream_id, held.version, held.response_status, held.response_headers,
        held.response_body;
      RETURN;
    END IF;
  END IF;

  IF n = 0 THEN
    IF p_key IS NOT NULL THEN
      UPDATE es.idempotency_keys
         SET stream_id = p_stream, response_status = p_status, response_headers = p_headers,
             response_body = p_body
       WHERE principal_id = p_principal AND idem_key = p_key;
    END IF;
    RETURN QUERY SELECT CASE WHEN p_key IS NULL THEN 'nothing' ELSE 'refused' END,
      NULL::bigint, NULL::bigint[], NULL::xid8,
      NULL::text, NULL::bigint, NULL::int, NULL::jsonb, NULL::bytea;
    RETURN;
  END IF;

  SELECT * INTO appended
    FROM es.append(p_stream, p_type, p_expected, p_ids, p_types, p_sv, p_data, p_meta);

  IF p_key IS NOT NULL THEN
    UPDATE es.idempotency_keys
       SET stream_id = p_stream, version = appended.new_version, response_status = p_status,
           response_headers = p_headers, response_body = p_body
     WHERE principal_id = p_principal AND idem_key = p_key;
  END IF;

  
  IF p_summary ? 'op' THEN
    IF p_summary->>'op' = 'insert' THEN
      INSERT INTO api.games (game_id, stream_id, status, preset, seats, players, created_by,
                             version, imported)
      VALUES ((p_summary->>'game_id')::uuid, p_stream, p_summary->>'status',
              p_summary->>'preset', (p_summary->>'seats')::smallint,
              ARRAY(SELECT jsonb_array_elements_text(p_summary->'players'))::uuid[],
              (p_summary->>'created_by')::uuid, appended.new_version,
              coalesce((p_summary->>'imported')::boolean, false));
      INSERT INTO api.deal_sources (game_id, seats, seed, layouts)
      VALUES ((p_summary->>'game_id')::uuid, (p_summary->>'seats')::smallint,
              p_summary->>'seed', coalesce(p_summary->'layouts', '[]'::jsonb));
    ELSE
      UPDATE api.games
         SET status = p_summary->>'status',
             players = ARRAY(SELECT jsonb_array_elements_text(p_summary->'players'))::uuid[],
             version = appended.new_version
       WHERE game_id = (p_summary->>'game_id')::uuid AND version < appended.new_version;
    END IF;
  END IF;


  RETURN QUERY SELECT 'appended'::text, appended.new_version, appended.positions, appended.tx,
    NULL::text, NULL::bigint, NULL::int, NULL::jsonb, NULL::bytea;
END $$;
"""  # noqa: W293 (a blank line with spaces: the text as it always was)
