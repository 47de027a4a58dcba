"""The key keeps what a command decided, not a rendered response: ``es.idempotency_keys`` loses
``response_status``, ``response_headers`` and ``response_body`` (some 3.2 KB a command, moved out
of line by TOAST) for ``decision``, a few dozen bytes of jsonb: the stream's version after the
command, how many events it appended, its time, and its refusal (the error's type, message and
code) if it was refused. The API renders the response from it and from the log, on a replay
too; the event store keeps nothing of HTTP.

- ``es.command`` takes ``p_decision jsonb`` where it took ``p_status, p_headers, p_body``, and
  gives back ``stored_decision`` where it gave ``stored_version, stored_status, stored_headers,
  stored_body``; the rest (the lock, the key's claim, the wait for a concurrent first request,
  the append, the writer of the effects) is 0011's. A new signature, so the function is dropped
  and created, and its rights given again: the request path's role only may run it.
- Keys used before this migration stay readable: each row's response is turned into the
  decision it rendered. A game's answer (``events`` in its body) gives the version, the count of
  its events and its ``server_time``; a problem the six refusals a key can hold (the domain's
  four kinds, ``not-seated``, ``game-not-found``) give the refusal by the error it was rendered
  from; the steward's bare answers (no headers) give the version, or a refusal with their text.
  A row that is none of these (none is expected) is deleted, as if its key had expired.
- The downgrade deletes every key (a decision is not turned back into a response; keys last a
  day) and brings 0011's columns and ``es.command`` back.

Revision ID: 0012_keys_keep_decisions
Revises: 0011_kernel_knows_no_lobby
Create Date: 2026-12-02
"""

from alembic import op

from migrations import APP_ROLE, TAKE_OWNERSHIP

revision = "0012_keys_keep_decisions"
down_revision = "0011_kernel_knows_no_lobby"
branch_labels = None
depends_on = None

OLD_ARGS = (
    "text, text, bigint, uuid[], text[], smallint[], jsonb[], jsonb[], "
    "text, text, bytea, interval, int, jsonb, bytea, jsonb"
)
NEW_ARGS = (
    "text, text, bigint, uuid[], text[], smallint[], jsonb[], jsonb[], "
    "text, text, bytea, interval, jsonb, jsonb"
)

DECISIONS = """
ALTER TABLE es.idempotency_keys ADD COLUMN decision jsonb;

-- Each stored response as the decision it was rendered from (see the docstring).
DO $$
DECLARE
  k record;
  body jsonb;
  kept jsonb;
BEGIN
  FOR k IN SELECT principal_id, idem_key, version, response_status, response_headers,
                  response_body
             FROM es.idempotency_keys
  LOOP
    kept := NULL;
    BEGIN
      body := convert_from(k.response_body, 'UTF8')::jsonb;
    EXCEPTION WHEN others THEN
      body := NULL;  -- not JSON: a steward's text
    END;
    IF jsonb_typeof(body) = 'object' AND k.response_status < 300
       AND jsonb_typeof(body->'events') = 'array' THEN
      kept := jsonb_strip_nulls(jsonb_build_object(
        'version', (body->>'version')::bigint,
        'appended', jsonb_array_length(body->'events'),
        'at', (body->>'server_time')::bigint));
    ELSIF jsonb_typeof(body) = 'object' AND body->>'type' IN (
        '/problems/illegal-action', '/problems/bad-notation', '/problems/invalid-rules',
        '/problems/invalid-layout', '/problems/not-seated', '/problems/game-not-found') THEN
      kept := jsonb_build_object(
        'version', coalesce(k.version, 0),
        'refusal', jsonb_strip_nulls(jsonb_build_object(
          'error', CASE body->>'type'
                     WHEN '/problems/illegal-action' THEN 'IllegalAction'
                     WHEN '/problems/bad-notation' THEN 'NotationError'
                     WHEN '/problems/invalid-rules' THEN 'InvalidRules'
                     WHEN '/problems/invalid-layout' THEN 'InvalidLayout'
                     WHEN '/problems/not-seated' THEN 'NotSeated'
                     ELSE 'GameNotFound' END,
          'message', body->>'detail',
          'code', body->>'code')));
    ELSIF k.response_headers = '[]'::jsonb AND k.response_status < 300 THEN
      kept := jsonb_build_object('version', coalesce(k.version, 0));
    ELSIF k.response_headers = '[]'::jsonb AND k.response_status IS NOT NULL THEN
      kept := jsonb_build_object(
        'version', coalesce(k.version, 0),
        'refusal', jsonb_build_object(
          'error', 'PreferansError',
          'message', convert_from(k.response_body, 'UTF8')));
    END IF;
    IF kept IS NULL THEN
      DELETE FROM es.idempotency_keys
       WHERE principal_id = k.principal_id AND idem_key = k.idem_key;
    ELSE
      UPDATE es.idempotency_keys SET decision = kept
       WHERE principal_id = k.principal_id AND idem_key = k.idem_key;
    END IF;
  END LOOP;
END $$;

ALTER TABLE es.idempotency_keys
  DROP COLUMN response_status, DROP COLUMN response_headers, DROP COLUMN response_body;
"""

COMMAND = """
CREATE FUNCTION es.command(
  p_stream text, p_type text, p_expected bigint,
  p_ids uuid[], p_types text[], p_sv smallint[], p_data jsonb[], p_meta jsonb[],
  p_principal text, p_key text, p_request bytea, p_key_ttl interval, p_decision jsonb,
  p_summary jsonb)
RETURNS TABLE (outcome text, new_version bigint, positions bigint[], tx xid8,
               stored_stream text, stored_decision jsonb)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
-- One command in one statement (so one round trip and one commit):
--   p_ids … p_meta      the events to append at exactly p_expected (none for a refusal);
--   p_principal, p_key  the Idempotency-Key, with p_request the hash of its request, kept
--                       p_key_ttl; p_decision what the command decided, stored under it
--                       (a few dozen bytes of jsonb: no response, no transport);
--   p_summary           what else the command writes, handed with the stream and its new
--                       version to the writer es.command_writer names (none: nothing else).
-- outcome: 'appended', 'refused' (no events, the decision stored), 'replayed' (the key's
-- earlier decision; nothing else done) or 'nothing' (no events, no key).
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
    -- (then replay its decision) at most 2 s, and say so distinctly.
    waited := current_setting('lock_timeout');
    PERFORM set_config('lock_timeout', '2s', true);
    BEGIN
      INSERT INTO es.idempotency_keys AS k (principal_id, idem_key, request_hash, expires_at)
      VALUES (p_principal, p_key, p_request, now() + p_key_ttl)
      ON CONFLICT (principal_id, idem_key) DO UPDATE
         SET request_hash = EXCLUDED.request_hash, stream_id = NULL, version = NULL,
             decision = NULL, created_at = now(), expires_at = EXCLUDED.expires_at
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
        held.stream_id, held.decision;
      RETURN;
    END IF;
  END IF;

  IF n = 0 THEN
    IF p_key IS NOT NULL THEN
      UPDATE es.idempotency_keys SET stream_id = p_stream, decision = p_decision
       WHERE principal_id = p_principal AND idem_key = p_key;
    END IF;
    RETURN QUERY SELECT CASE WHEN p_key IS NULL THEN 'nothing' ELSE 'refused' END,
      NULL::bigint, NULL::bigint[], NULL::xid8, NULL::text, NULL::jsonb;
    RETURN;
  END IF;

  SELECT * INTO appended
    FROM es.append(p_stream, p_type, p_expected, p_ids, p_types, p_sv, p_data, p_meta);

  IF p_key IS NOT NULL THEN
    UPDATE es.idempotency_keys
       SET stream_id = p_stream, version = appended.new_version, decision = p_decision
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
    NULL::text, NULL::jsonb;
END $$;
"""

# The downgrade's es.command: 0011's.
COMMAND_BEFORE = """
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

RIGHTS = f"""
REVOKE ALL ON FUNCTION es.command({NEW_ARGS}) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION es.command({NEW_ARGS}) TO {APP_ROLE};
"""

RIGHTS_BEFORE = f"""
REVOKE ALL ON FUNCTION es.command({OLD_ARGS}) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION es.command({OLD_ARGS}) TO {APP_ROLE};
"""

RESPONSES = """
DELETE FROM es.idempotency_keys;
ALTER TABLE es.idempotency_keys
  DROP COLUMN decision,
  ADD COLUMN response_status int CHECK (response_status BETWEEN 100 AND 599),
  ADD COLUMN response_headers jsonb,
  ADD COLUMN response_body bytea;
"""


def upgrade() -> None:
    op.execute(DECISIONS)
    op.execute(f"DROP FUNCTION es.command({OLD_ARGS})")
    op.execute(COMMAND)
    op.execute(RIGHTS)
    op.execute(TAKE_OWNERSHIP)


def downgrade() -> None:
    op.execute(f"DROP FUNCTION es.command({NEW_ARGS})")
    op.execute(RESPONSES)
    op.execute(COMMAND_BEFORE)
    op.execute(RIGHTS_BEFORE)
    op.execute(TAKE_OWNERSHIP)
