"""A lean ``es.command``: the same rows in the same transaction, for some two thirds of the
PostgreSQL CPU (bench/bench_api.py, a keyed card played; the figures are in docs/event-store.md).

What a card played cost in 0012, and what is left of it:

- Five nested ``SECURITY DEFINER`` calls (``es.command``, ``es.append``, the writer
  ``api.command_effects``, ``api.bot_to_act``, ``api.notify``), each saving and restoring
  ``search_path`` around its body. Now ``es.command`` is the one definer: the append is
  written out in it (``es.append`` stays, unchanged, for plain appends), and the writer
  ``api.command_effects`` is an invoker's function (run as the owner, under ``es.command``'s
  pinned ``search_path``: the request path may not call it, as before) with the bot test and
  the notifications written out in it.
- The stream's advisory lock, taken twice (``es.command``, then ``es.append``): now once.
- ``set_config('lock_timeout')`` twice and a subtransaction (``BEGIN … EXCEPTION``) around the
  key's claim, to wait at most 2 s for a concurrent first request with the key: now the
  function's own setting ``lock_timeout = 2s``; the service tells a timed-out claim of the key
  (`IdempotencyKeyInFlight`) by the statement the timeout names.
- The key's row, inserted bare and then updated with its decision: now inserted once, whole
  (the stream's version after the command is known under the lock before anything is
  written; a refusal of the append rolls the row back with everything else).
- A new stream's row, inserted and then updated: now inserted once.
- The token's row read ``FOR SHARE`` (a row lock, so a write to its page, every command): now
  a plain read. A revocation that committed before the command is still refused; one racing
  the command (committed while it runs) lets that one command through, as the API's own check
  of the token, a moment before, would anyway.
- Hot rows updated in place (HOT: no new index entries) when their page has room: the
  lobby's rows, the streams' heads, the tokens and the notification heads now leave 30 % of
  each page free (fillfactor 70; pages written before keep theirs).

Arguments, results and errors are 0012's, but for a claim of a key held past 2 s by a
concurrent request, now a ``lock_not_available`` error naming ``es.idempotency_keys``.

Revision ID: 0013_lean_command
Revises: 0012_keys_keep_decisions
Create Date: 2026-12-03
"""

from alembic import op

from migrations import TAKE_OWNERSHIP

revision = "0013_lean_command"
down_revision = "0012_keys_keep_decisions"
branch_labels = None
depends_on = None

HOT_TABLES = ("es.streams", "api.games", "api.tokens", "api.notification_heads")

FILLFACTOR = "\n".join(f"ALTER TABLE {t} SET (fillfactor = 70);" for t in HOT_TABLES)
FILLFACTOR_BEFORE = "\n".join(f"ALTER TABLE {t} RESET (fillfactor);" for t in HOT_TABLES)

COMMAND = """
CREATE OR REPLACE FUNCTION es.command(
  p_stream text, p_type text, p_expected bigint,
  p_ids uuid[], p_types text[], p_sv smallint[], p_data jsonb[], p_meta jsonb[],
  p_principal text, p_key text, p_request bytea, p_key_ttl interval, p_decision jsonb,
  p_summary jsonb)
RETURNS TABLE (outcome text, new_version bigint, positions bigint[], tx xid8,
               stored_stream text, stored_decision jsonb)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp SET lock_timeout = '2s'
AS $$
-- One command in one statement (so one round trip and one commit):
--   p_ids … p_meta      the events to append at exactly p_expected (none for a refusal);
--   p_principal, p_key  the Idempotency-Key, with p_request the hash of its request, kept
--                       p_key_ttl; p_decision what the command decided, stored under it;
--   p_summary           what else the command writes, handed with the stream and its new
--                       version to the writer es.command_writer names (none: nothing else).
-- outcome: 'appended', 'refused' (no events, the decision stored), 'replayed' (the key's
-- earlier decision; nothing else done) or 'nothing' (no events, no key).
-- The append is es.append's (0007), written out: one lock, one definer, one stream write.
DECLARE
  n int := coalesce(cardinality(p_ids), 0);
  cur bigint;
  head bytea;
  known boolean;
  claimed boolean;
  held record;
  writer record;
  got bigint[];
  prevs bytea[] := '{}';
  hashes bytea[] := '{}';
  salts bytea[] := '{}';
  metas jsonb[] := '{}';
BEGIN
  IF n > 0 AND (n <> cardinality(p_types) OR n <> cardinality(p_sv)
                OR n <> cardinality(p_data) OR n <> cardinality(p_meta)) THEN
    RAISE EXCEPTION USING ERRCODE = '22023',
      MESSAGE = 'es.command needs each event with id, type, version, data, metadata';
  END IF;
  IF p_expected < -2 THEN
    RAISE EXCEPTION USING ERRCODE = '22023', MESSAGE = 'invalid expected version ' || p_expected;
  END IF;
  IF n = 0 AND p_key IS NULL THEN
    RETURN QUERY SELECT 'nothing'::text, NULL::bigint, NULL::bigint[], NULL::xid8, NULL::text,
      NULL::jsonb;
    RETURN;
  END IF;

  -- The stream's lock before any write: it assigns no xid, so one stream's transactions take
  -- their ids in the order of its versions (0001). Every writer of the stream holds it, so a
  -- plain read sees the stream's head.
  PERFORM pg_advisory_xact_lock(hashtextextended(p_stream, 0));
  SELECT s.version, s.head_hash INTO cur, head FROM es.streams s WHERE s.stream_id = p_stream;
  known := FOUND;
  cur := coalesce(cur, 0);

  IF p_key IS NOT NULL THEN
    -- The key's row, whole, as the first write. A concurrent first request with this key
    -- holds its row until it commits: the insert waits for it (then replays its decision), at
    -- most the function's lock_timeout.
    INSERT INTO es.idempotency_keys AS k (principal_id, idem_key, request_hash, stream_id,
                                          version, decision, expires_at)
    VALUES (p_principal, p_key, p_request, p_stream, CASE WHEN n > 0 THEN cur + n END,
            p_decision, now() + p_key_ttl)
    ON CONFLICT (principal_id, idem_key) DO UPDATE
       SET request_hash = EXCLUDED.request_hash, stream_id = EXCLUDED.stream_id,
           version = EXCLUDED.version, decision = EXCLUDED.decision, created_at = now(),
           expires_at = EXCLUDED.expires_at
     WHERE k.expires_at <= now()  -- an expired key is a new request
    RETURNING true INTO claimed;
    IF claimed IS NULL THEN
      SELECT k.request_hash, k.stream_id, k.decision INTO held FROM es.idempotency_keys k
       WHERE k.principal_id = p_principal AND k.idem_key = p_key;
      IF held.request_hash <> p_request THEN
        RAISE EXCEPTION USING ERRCODE = 'P0422', MESSAGE = 'idempotency_key_reused';
      END IF;
      RETURN QUERY SELECT 'replayed'::text, NULL::bigint, NULL::bigint[], NULL::xid8,
        held.stream_id, held.decision;
      RETURN;
    END IF;
    IF n = 0 THEN
      RETURN QUERY SELECT 'refused'::text, NULL::bigint, NULL::bigint[], NULL::xid8,
        NULL::text, NULL::jsonb;
      RETURN;
    END IF;
  END IF;

  -- A stale version raises before any position is allocated (so a conflict burns none), and
  -- rolls back the key's row with it.
  IF NOT known AND p_expected IS NOT NULL AND p_expected NOT IN (-1, 0) THEN
    RAISE EXCEPTION USING ERRCODE = 'P0409', MESSAGE = 'wrong_expected_version',
      DETAIL = json_build_object('expected', p_expected, 'actual', NULL)::text;
  END IF;
  IF (p_expected = -1 AND cur <> 0) OR (p_expected = -2 AND cur = 0)
     OR (p_expected >= 0 AND cur <> p_expected) THEN
    RAISE EXCEPTION USING ERRCODE = 'P0409', MESSAGE = 'wrong_expected_version',
      DETAIL = json_build_object('expected', p_expected, 'actual', cur)::text;
  END IF;

  -- The chain (0007): each event's hash from the one before it, under the stream's lock.
  head := coalesce(head, '\\x0000000000000000000000000000000000000000000000000000000000000000');
  FOR i IN 1..n LOOP
    salts[i] := coalesce(decode(p_meta[i]->>'salt', 'hex'), uuid_send(gen_random_uuid()));
    metas[i] := p_meta[i] - 'salt';
    prevs[i] := head;
    head := sha256(convert_to(
      encode(head, 'hex') || E'\\n' || p_stream || E'\\n' || (cur + i)::text || E'\\n'
      || p_ids[i]::text || E'\\n' || p_types[i] || E'\\n' || p_sv[i]::text || E'\\n'
      || encode(salts[i], 'hex') || E'\\n' || p_data[i]::text,
      'UTF8'));
    hashes[i] := head;
  END LOOP;

  WITH ins AS (
    INSERT INTO es.events (stream_id, version, event_id, event_type, schema_version, data,
                           metadata, salt, prev_hash, hash)
    SELECT p_stream, cur + e.ord, e.id, e.t, e.sv, e.d, e.m, e.s, e.p, e.h
      FROM unnest(p_ids, p_types, p_sv, p_data, metas, salts, prevs, hashes)
           WITH ORDINALITY AS e(id, t, sv, d, m, s, p, h, ord)
     ORDER BY e.ord  -- positions follow versions, so a feed reader sees a stream in order
    RETURNING es.events.version, es.events.global_position
  )
  SELECT array_agg(ins.global_position ORDER BY ins.version) INTO got FROM ins;
  IF known THEN
    UPDATE es.streams SET version = cur + n, head_hash = head, updated_at = now()
     WHERE stream_id = p_stream;
  ELSE
    INSERT INTO es.streams (stream_id, stream_type, version, head_hash)
    VALUES (p_stream, p_type, n, head);
  END IF;

  IF p_summary IS NOT NULL THEN
    SELECT w.schema_name, w.function_name INTO writer FROM es.command_writer w;
    IF NOT FOUND THEN
      RAISE EXCEPTION USING ERRCODE = '22023', MESSAGE = 'no writer for a command''s effects';
    END IF;
    EXECUTE format('SELECT %I.%I($1, $2, $3)', writer.schema_name, writer.function_name)
      USING p_stream, cur + n, p_summary;
  END IF;

  RETURN QUERY SELECT 'appended'::text, cur + n, got, pg_current_xact_id(), NULL::text,
    NULL::jsonb;
END $$;
"""

EFFECTS = """
-- What a command writes beside its events (0006, 0007, 0010), called by es.command as the
-- owner and under its pinned search_path; not a definer, so no settings of its own to save
-- and restore, and the request path may not call it (its EXECUTE is revoked from PUBLIC):
--   token    the writing token's sha256 (hex): refused (P0401) once revoked; its last use,
--            at most once a minute;
--   op       the lobby's row: 'insert' (a new game, with its deal source) or 'update';
--   notes    notifications, numbered per player as api.notify numbers them.
CREATE OR REPLACE FUNCTION api.command_effects(p_stream text, p_version bigint, p_effects jsonb)
RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  game uuid;
  token bytea;
  used timestamptz;
  revoked timestamptz;
  bot_due timestamptz;
  note jsonb;
  seq bigint;
BEGIN
  IF p_effects IS NULL THEN
    RETURN;
  END IF;
  IF p_effects ? 'token' THEN
    token := decode(p_effects->>'token', 'hex');
    SELECT t.last_used_at, t.revoked_at INTO used, revoked
      FROM api.tokens t WHERE t.token_hash = token;
    IF NOT FOUND OR revoked IS NOT NULL THEN
      RAISE EXCEPTION USING ERRCODE = 'P0401', MESSAGE = 'token_revoked';
    END IF;
    IF used IS NULL OR used < now() - interval '1 minute' THEN
      UPDATE api.tokens SET last_used_at = now() WHERE token_hash = token;
    END IF;
  END IF;
  IF p_effects ? 'op' THEN
    game := (p_effects->>'game_id')::uuid;
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

# The downgrade's: 0012's es.command, 0010's writer.
COMMAND_BEFORE = """
CREATE OR REPLACE FUNCTION es.command(
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

EFFECTS_BEFORE = """
-- api.command_effects as 0010 wrote it: the downgrade's.
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


def upgrade() -> None:
    op.execute(FILLFACTOR)
    op.execute(EFFECTS)
    op.execute(COMMAND)
    op.execute(TAKE_OWNERSHIP)


def downgrade() -> None:
    op.execute(COMMAND_BEFORE)
    op.execute(EFFECTS_BEFORE)
    op.execute(FILLFACTOR_BEFORE)
    op.execute(TAKE_OWNERSHIP)
