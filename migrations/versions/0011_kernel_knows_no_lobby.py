"""The event store's kernel knows no lobby: ``es.command`` hands what a command writes beside
its events to a writer named in ``es.command_writer``, and the games' migration names theirs.

- ``es.command_writer``: at most one row, the schema and name of a function ``(stream text,
  version bigint, effects jsonb)`` that ``es.command`` calls, in its own statement and so in
  the command's transaction, after the events and the idempotency key's response, with the
  stream, its new version and the command's ``p_summary``. Only the owner writes it.
- ``es.command`` calls that writer when ``p_summary`` is given (refusing the command when none
  is named), and nothing else of the ``api`` schema; its arguments and result are unchanged.
- The games' ``api.command_effects`` (0006, 0007, 0010) is that writer: the same rows as before
  (the lobby's row, the deal source, the notifications, the token's check and last use), in
  the same transaction, run as the owner as before.

Revision ID: 0011_kernel_knows_no_lobby
Revises: 0010_bots_at_creation
Create Date: 2026-12-01
"""

from alembic import op

from migrations import TAKE_OWNERSHIP

revision = "0011_kernel_knows_no_lobby"
down_revision = "0010_bots_at_creation"
branch_labels = None
depends_on = None

WRITER = """
CREATE TABLE es.command_writer (
  one            boolean PRIMARY KEY DEFAULT true CHECK (one),
  schema_name    text NOT NULL CHECK (length(schema_name) BETWEEN 1 AND 63),
  function_name  text NOT NULL CHECK (length(function_name) BETWEEN 1 AND 63)
);
REVOKE ALL ON es.command_writer FROM PUBLIC;
INSERT INTO es.command_writer (schema_name, function_name) VALUES ('api', 'command_effects');
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
--   p_summary           what else the command writes, handed with the stream and its new
--                       version to the writer es.command_writer names (none: nothing else).
-- outcome: 'appended', 'refused' (no events, the response stored), 'replayed' (the key's
-- earlier response; nothing else done) or 'nothing' (no events, no key).
DECLARE
  n int := coalesce(cardinality(p_ids), 0);
  appended record;
  held record;
  claimed boolean;
  waited text;
  writer record;
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
    SELECT w.schema_name, w.function_name INTO writer FROM es.command_writer w;
    IF NOT FOUND THEN
      RAISE EXCEPTION USING ERRCODE = '22023', MESSAGE = 'no writer for a command''s effects';
    END IF;
    EXECUTE format('SELECT %I.%I($1, $2, $3)', writer.schema_name, writer.function_name)
      USING p_stream, appended.new_version, p_summary;
  END IF;

  RETURN QUERY SELECT 'appended'::text, appended.new_version, appended.positions, appended.tx,
    NULL::text, NULL::bigint, NULL::int, NULL::jsonb, NULL::bytea;
END $$;
"""

# The downgrade's es.command: 0006's, which calls api.command_effects itself.
COMMAND_BEFORE = """
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


def upgrade() -> None:
    op.execute(WRITER)
    op.execute(COMMAND)
    op.execute(TAKE_OWNERSHIP)


def downgrade() -> None:
    op.execute(COMMAND_BEFORE)
    op.execute("DROP TABLE es.command_writer")
