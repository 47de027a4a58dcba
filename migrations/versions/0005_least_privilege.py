"""Least privilege enforced by PostgreSQL, and one round trip per command.

Roles (cluster-wide, made here if missing):

- ``preferans_owner`` (NOLOGIN) owns every schema, table and function of the service. The
  migrations run as an administrator and hand everything to it.
- ``preferans_app`` is the request path's LOGIN role: no superuser, no CREATEDB / CREATEROLE /
  REPLICATION / BYPASSRLS, member of no role, so ``SET ROLE`` can take it nowhere. It reads the
  log and writes it only through ``es.command`` and ``es.append``: functions owned by the owner
  (SECURITY DEFINER, ``search_path`` pinned) that check the expected version and number the
  events gaplessly. It cannot insert an event, change a stream's version, touch an idempotency
  key, or read a game's seed and layouts, which moved to ``api.deal_sources`` and are read
  through ``api.deal_source`` while the game is still being dealt.

``es.command`` is a whole command in one statement: the stream's lock, the idempotency key's
claim (or the stored response of an earlier request with it), the version check, the events,
the response stored under the key, and the lobby's summary of the game (``p_summary``).

Revision ID: 0005_least_privilege
Revises: 0004_guests_and_imports
Create Date: 2026-12-01
"""

from alembic import op

from migrations import APP_ROLE, OWNER_ROLE, TAKE_OWNERSHIP

revision = "0005_least_privilege"
down_revision = "0004_guests_and_imports"
branch_labels = None
depends_on = None

APPEND_ARGS = "text, text, bigint, uuid[], text[], smallint[], jsonb[], jsonb[]"
COMMAND_ARGS = (
    "text, text, bigint, uuid[], text[], smallint[], jsonb[], jsonb[], "
    "text, text, bytea, interval, int, jsonb, bytea, jsonb"
)

ROLES = f"""
DO $$
BEGIN
  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '{OWNER_ROLE}') THEN
    BEGIN
      CREATE ROLE {OWNER_ROLE} NOLOGIN;
    EXCEPTION WHEN duplicate_object OR unique_violation THEN
      NULL;  -- a concurrent migration of another database made it
    END;
  END IF;
END $$;
ALTER ROLE {APP_ROLE} LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS
  NOINHERIT;
-- Member of nothing: SET ROLE from a request-path connection reaches no other role.
DO $$
DECLARE
  granted record;
BEGIN
  FOR granted IN
    SELECT r.rolname FROM pg_auth_members m JOIN pg_roles r ON r.oid = m.roleid
     WHERE m.member = (SELECT oid FROM pg_roles WHERE rolname = '{APP_ROLE}')
  LOOP
    EXECUTE format('REVOKE %I FROM {APP_ROLE}', granted.rolname);
  END LOOP;
END $$;
"""

DEAL_SOURCES = """
CREATE TABLE api.deal_sources (
  game_id  uuid PRIMARY KEY REFERENCES api.games (game_id),
  seats    smallint NOT NULL CHECK (seats IN (3, 4)),
  seed     text,
  layouts  jsonb NOT NULL DEFAULT '[]'::jsonb CHECK (jsonb_typeof(layouts) = 'array')
);
INSERT INTO api.deal_sources (game_id, seats, seed, layouts)
SELECT game_id, seats, seed, layouts FROM api.games;
ALTER TABLE api.games DROP COLUMN seed, DROP COLUMN layouts;

-- What dealing needs, and only while there is dealing to do.
CREATE FUNCTION api.deal_source(p_game uuid)
RETURNS TABLE (seats smallint, seed text, layouts jsonb)
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
  SELECT d.seats, d.seed, d.layouts
    FROM api.deal_sources d JOIN api.games g USING (game_id)
   WHERE d.game_id = p_game AND g.status <> 'finished'
$$;
"""

APPEND = f"""
-- es.append keeps its contract (0001) and now runs as the owner for the request path.
ALTER FUNCTION es.append({APPEND_ARGS}) SECURITY DEFINER SET search_path = pg_catalog, pg_temp;
"""

COMMAND = """
CREATE FUNCTION es.command(
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
--   p_summary           the lobby's row of the game: {"op": "insert", …} or {"op": "update", …}.
-- outcome: 'appended', 'refused' (no events, the response stored), 'replayed' (the key's
-- earlier response; nothing else done) or 'nothing' (no events, no key).
DECLARE
  n int := coalesce(cardinality(p_ids), 0);
  appended record;
  held record;
  claimed boolean;
  waited text;
  game uuid;
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

  IF p_summary IS NOT NULL THEN
    game := (p_summary->>'game_id')::uuid;
    IF p_summary->>'op' = 'insert' THEN
      INSERT INTO api.games (game_id, stream_id, status, preset, seats, players, created_by,
                             version, imported)
      VALUES (game, p_stream, p_summary->>'status', p_summary->>'preset',
              (p_summary->>'seats')::smallint,
              ARRAY(SELECT jsonb_array_elements_text(p_summary->'players'))::uuid[],
              (p_summary->>'created_by')::uuid, appended.new_version,
              coalesce((p_summary->>'imported')::boolean, false));
      INSERT INTO api.deal_sources (game_id, seats, seed, layouts)
      VALUES (game, (p_summary->>'seats')::smallint, p_summary->>'seed',
              coalesce(p_summary->'layouts', '[]'::jsonb));
    ELSIF p_summary->>'op' = 'update' THEN
      -- Guarded by the version: a late write never takes the row back in time.
      UPDATE api.games
         SET status = p_summary->>'status',
             players = ARRAY(SELECT jsonb_array_elements_text(p_summary->'players'))::uuid[],
             version = appended.new_version
       WHERE game_id = game AND version < appended.new_version;
    ELSE
      RAISE EXCEPTION USING ERRCODE = '22023', MESSAGE = 'unknown summary op ' || p_summary->>'op';
    END IF;
  END IF;

  RETURN QUERY SELECT 'appended'::text, appended.new_version, appended.positions, appended.tx,
    NULL::text, NULL::bigint, NULL::int, NULL::jsonb, NULL::bytea;
END $$;

-- Expired keys, a batch at a time (the service's one purger calls it on a schedule).
CREATE FUNCTION es.purge_idempotency_keys(p_limit int)
RETURNS int
LANGUAGE sql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
  WITH gone AS (
    DELETE FROM es.idempotency_keys
     WHERE ctid = ANY (ARRAY(SELECT ctid FROM es.idempotency_keys
                              WHERE expires_at <= now() LIMIT p_limit))
    RETURNING 1)
  SELECT count(*)::int FROM gone
$$;
"""

RATE_LIMITS = """
-- Requests counted per (bucket, window) across every service process; a cache of the last
-- minutes only, so unlogged (a crash forgets them, which is harmless).
CREATE UNLOGGED TABLE api.rate_counts (
  bucket  text NOT NULL CHECK (length(bucket) <= 200),
  win     bigint NOT NULL,  -- the window's number: epoch seconds / its length
  hits    int NOT NULL CHECK (hits >= 0),
  PRIMARY KEY (bucket, win)
);
"""

GRANTS = f"""
REVOKE ALL ON ALL TABLES IN SCHEMA es, api FROM {APP_ROLE};
REVOKE ALL ON ALL FUNCTIONS IN SCHEMA es, api FROM PUBLIC, {APP_ROLE};
GRANT USAGE ON SCHEMA es, api TO {APP_ROLE};
GRANT SELECT ON es.events, es.streams TO {APP_ROLE};
GRANT SELECT, INSERT, UPDATE, DELETE ON es.projection_checkpoints TO {APP_ROLE};
GRANT SELECT, INSERT ON api.players TO {APP_ROLE};
GRANT SELECT ON api.games TO {APP_ROLE};
GRANT SELECT, INSERT, UPDATE, DELETE ON api.rate_counts TO {APP_ROLE};
GRANT EXECUTE ON FUNCTION es.append({APPEND_ARGS}), es.command({COMMAND_ARGS}),
  es.purge_idempotency_keys(int), api.deal_source(uuid) TO {APP_ROLE};
"""


def upgrade() -> None:
    op.execute(ROLES)
    op.execute(DEAL_SOURCES)
    op.execute(APPEND)
    op.execute(COMMAND)
    op.execute(RATE_LIMITS)
    op.execute(TAKE_OWNERSHIP)
    op.execute(GRANTS)


def downgrade() -> None:
    op.execute(
        f"""
DROP FUNCTION es.purge_idempotency_keys(int);
DROP FUNCTION es.command({COMMAND_ARGS});
DROP FUNCTION api.deal_source(uuid);
ALTER FUNCTION es.append({APPEND_ARGS}) SECURITY INVOKER;
ALTER TABLE api.games ADD COLUMN seed text,
  ADD COLUMN layouts jsonb NOT NULL DEFAULT '[]'::jsonb;
UPDATE api.games g SET seed = d.seed, layouts = d.layouts
  FROM api.deal_sources d WHERE d.game_id = g.game_id;
DROP TABLE api.deal_sources;
DROP TABLE api.rate_counts;
GRANT SELECT, INSERT ON es.events TO {APP_ROLE};
GRANT SELECT, INSERT, UPDATE ON es.streams TO {APP_ROLE};
GRANT SELECT, INSERT, UPDATE, DELETE ON es.idempotency_keys TO {APP_ROLE};
GRANT SELECT, INSERT, UPDATE ON api.games TO {APP_ROLE};
"""
    )
