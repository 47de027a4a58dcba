"""Provably fair deals: a hash chain over every stream, and each game's secret kept for dealing.

- ``es.events`` gains ``prev_hash`` and ``hash``: SHA-256 of the event's canonical bytes
  (`es.event_hash`, docs/fairness.md), which include the previous event's hash (32 zero
  bytes before version 1). ``es.streams.head_hash`` is the last one. ``es.append`` computes them
  under the stream's lock, so no writer, ``es.command`` included, can append without them; the
  columns are NOT NULL. Existing events are chained here, stream by stream.
- ``api.deal_sources`` gains ``secret``: what the decks of a game are derived from (the service
  draws it; a seeded game's is its seed). ``api.deal_source`` returns it, as before only while
  the game is still being dealt. A game created earlier has none, and deals as it always did.
- ``api.games`` gains ``dealing``: ``random``, ``seeded``, ``fixed``, or ``legacy`` for a game
  created before commitments (existing rows: ``fixed`` or ``seeded`` from their deal source).

Revision ID: 0007_fair_deals
Revises: 0006_live_tables
Create Date: 2026-12-01
"""

from alembic import op

from migrations import APP_ROLE, TAKE_OWNERSHIP

revision = "0007_fair_deals"
down_revision = "0006_live_tables"
branch_labels = None
depends_on = None

APPEND_ARGS = "text, text, bigint, uuid[], text[], smallint[], jsonb[], jsonb[]"
HASH_ARGS = "bytea, text, bigint, uuid, text, smallint, bytea, jsonb"

EVENT_HASH = """
-- The chain's one definition (docs/fairness.md): SHA-256 of the UTF-8 lines of the previous
-- hash (hex), the stream, the version, the event id, its type, its schema version, its salt
-- (hex) and its data as jsonb prints it (keys by length, then bytewise; ", " and ": ").
CREATE FUNCTION es.event_hash(p_prev bytea, p_stream text, p_version bigint, p_id uuid,
                              p_type text, p_sv smallint, p_salt bytea, p_data jsonb)
RETURNS bytea
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE SET search_path = pg_catalog, pg_temp AS $$
  SELECT sha256(convert_to(
    encode(p_prev, 'hex') || E'\\n' || p_stream || E'\\n' || p_version::text || E'\\n'
    || p_id::text || E'\\n' || p_type || E'\\n' || p_sv::text || E'\\n'
    || encode(p_salt, 'hex') || E'\\n' || p_data::text,
    'UTF8'))
$$;
"""

COLUMNS = """
-- The salt keeps a hash from telling hidden cards: without it a seat that knows its own hand
-- could try every way of dealing the others (some 10^8) against a deal's hash.
ALTER TABLE es.events ADD COLUMN salt bytea CHECK (length(salt) = 16),
  ADD COLUMN prev_hash bytea CHECK (length(prev_hash) = 32),
  ADD COLUMN hash bytea CHECK (length(hash) = 32);
ALTER TABLE es.streams ADD COLUMN head_hash bytea CHECK (length(head_hash) = 32);

-- Chain what is there. The log is append-only; the migration alone may write these columns.
ALTER TABLE es.events DISABLE TRIGGER events_no_update_delete;
DO $$
DECLARE
  r record;
  prev bytea;
  stream text;
  fresh bytea;
BEGIN
  FOR r IN SELECT e.stream_id, e.version, e.event_id, e.event_type, e.schema_version, e.data
             FROM es.events e ORDER BY e.stream_id, e.version
  LOOP
    IF stream IS DISTINCT FROM r.stream_id THEN
      stream := r.stream_id;
      prev := '\\x0000000000000000000000000000000000000000000000000000000000000000'::bytea;
    END IF;
    fresh := uuid_send(gen_random_uuid());
    UPDATE es.events
       SET salt = fresh, prev_hash = prev,
           hash = es.event_hash(prev, r.stream_id, r.version, r.event_id, r.event_type,
                                r.schema_version, fresh, r.data)
     WHERE stream_id = r.stream_id AND version = r.version
    RETURNING hash INTO prev;
  END LOOP;
END $$;
ALTER TABLE es.events ENABLE TRIGGER events_no_update_delete;
UPDATE es.streams s SET head_hash = e.hash
  FROM es.events e WHERE e.stream_id = s.stream_id AND e.version = s.version;
ALTER TABLE es.events ALTER COLUMN salt SET NOT NULL, ALTER COLUMN prev_hash SET NOT NULL,
  ALTER COLUMN hash SET NOT NULL;
"""

APPEND = """
-- es.append (0001, 0005) with the chain: each event's hash from the one before it, computed
-- under the stream's lock, so the chain is exactly the stream's order. An event's salt is the
-- writer's (metadata "salt", hex: so that the service knows the new head before the write),
-- else drawn here; it is stored in its own column, not in the metadata.
CREATE OR REPLACE FUNCTION es.append(
  p_stream text, p_type text, p_expected bigint,
  p_ids uuid[], p_types text[], p_sv smallint[], p_data jsonb[], p_meta jsonb[])
RETURNS TABLE (new_version bigint, positions bigint[], tx xid8)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
  cur bigint;
  head bytea;
  n int := coalesce(cardinality(p_ids), 0);
  prevs bytea[] := '{}';
  hashes bytea[] := '{}';
  salts bytea[] := '{}';
  metas jsonb[] := '{}';
BEGIN
  IF n = 0 OR n <> cardinality(p_types) OR n <> cardinality(p_sv)
     OR n <> cardinality(p_data) OR n <> cardinality(p_meta) THEN
    RAISE EXCEPTION USING ERRCODE = '22023',
      MESSAGE = 'es.append needs one or more events, each with id, type, version, data, metadata';
  END IF;
  IF p_expected < -2 THEN
    RAISE EXCEPTION USING ERRCODE = '22023', MESSAGE = 'invalid expected version ' || p_expected;
  END IF;

  -- Serialize the writers of this stream only (see 0001: no xid before the lock).
  PERFORM pg_advisory_xact_lock(hashtextextended(p_stream, 0));
  SELECT s.version, s.head_hash INTO cur, head FROM es.streams s WHERE s.stream_id = p_stream;
  IF NOT FOUND THEN
    IF p_expected IS NOT NULL AND p_expected NOT IN (-1, 0) THEN
      RAISE EXCEPTION USING ERRCODE = 'P0409', MESSAGE = 'wrong_expected_version',
        DETAIL = json_build_object('expected', p_expected, 'actual', NULL)::text;
    END IF;
    INSERT INTO es.streams (stream_id, stream_type) VALUES (p_stream, p_type);
    cur := 0;
  END IF;
  IF (p_expected = -1 AND cur <> 0) OR (p_expected = -2 AND cur = 0)
     OR (p_expected >= 0 AND cur <> p_expected) THEN
    RAISE EXCEPTION USING ERRCODE = 'P0409', MESSAGE = 'wrong_expected_version',
      DETAIL = json_build_object('expected', p_expected, 'actual', cur)::text;
  END IF;

  head := coalesce(head, '\\x0000000000000000000000000000000000000000000000000000000000000000');
  FOR i IN 1..n LOOP
    salts[i] := coalesce(decode(p_meta[i]->>'salt', 'hex'), uuid_send(gen_random_uuid()));
    metas[i] := p_meta[i] - 'salt';
    prevs[i] := head;
    -- es.event_hash, written out: a SQL function called from PL/pgSQL costs more than the hash
    head := sha256(convert_to(
      encode(head, 'hex') || E'\\n' || p_stream || E'\\n' || (cur + i)::text || E'\\n'
      || p_ids[i]::text || E'\\n' || p_types[i] || E'\\n' || p_sv[i]::text || E'\\n'
      || encode(salts[i], 'hex') || E'\\n' || p_data[i]::text,
      'UTF8'));
    hashes[i] := head;
  END LOOP;

  RETURN QUERY
  WITH ins AS (
    INSERT INTO es.events (stream_id, version, event_id, event_type, schema_version, data,
                           metadata, salt, prev_hash, hash)
    SELECT p_stream, cur + e.ord, e.id, e.t, e.sv, e.d, e.m, e.s, e.p, e.h
      FROM unnest(p_ids, p_types, p_sv, p_data, metas, salts, prevs, hashes)
           WITH ORDINALITY AS e(id, t, sv, d, m, s, p, h, ord)
     ORDER BY e.ord  -- positions follow versions, so a feed reader sees a stream in order
    RETURNING es.events.version, es.events.global_position
  ), upd AS (
    UPDATE es.streams SET version = cur + n, head_hash = head, updated_at = now()
     WHERE stream_id = p_stream
  )
  SELECT cur + n, array_agg(ins.global_position ORDER BY ins.version), pg_current_xact_id()
    FROM ins;
END $$;
"""

APPEND_BEFORE = """
-- es.append as it was before the chain (0001, made SECURITY DEFINER by 0005): the downgrade's.
-- One round trip per command. p_expected: NULL = any, -1 = no stream, -2 = stream exists,
-- n >= 0 = exactly version n. A stale version raises P0409 before any position is allocated,
-- so a conflict burns no global positions (marten#4749).
CREATE OR REPLACE FUNCTION es.append(
  p_stream text, p_type text, p_expected bigint,
  p_ids uuid[], p_types text[], p_sv smallint[], p_data jsonb[], p_meta jsonb[])
RETURNS TABLE (new_version bigint, positions bigint[], tx xid8)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
  cur bigint;
  n int := coalesce(cardinality(p_ids), 0);
BEGIN
  IF n = 0 OR n <> cardinality(p_types) OR n <> cardinality(p_sv)
     OR n <> cardinality(p_data) OR n <> cardinality(p_meta) THEN
    RAISE EXCEPTION USING ERRCODE = '22023',
      MESSAGE = 'es.append needs one or more events, each with id, type, version, data, metadata';
  END IF;
  IF p_expected < -2 THEN
    RAISE EXCEPTION USING ERRCODE = '22023', MESSAGE = 'invalid expected version ' || p_expected;
  END IF;

  -- Serialize the writers of this stream only; other streams append in parallel. An advisory
  -- lock rather than the stream row's lock, because it needs no xid: the transaction ids of one
  -- stream's appends then follow its versions, so the feed's (tx_id, position) order keeps each
  -- stream in order. (Locking a row or inserting one takes an xid before waiting.)
  PERFORM pg_advisory_xact_lock(hashtextextended(p_stream, 0));
  -- Every writer of the stream holds that lock, so a plain read sees the current version.
  SELECT s.version INTO cur FROM es.streams s WHERE s.stream_id = p_stream;
  IF NOT FOUND THEN
    IF p_expected IS NOT NULL AND p_expected NOT IN (-1, 0) THEN
      RAISE EXCEPTION USING ERRCODE = 'P0409', MESSAGE = 'wrong_expected_version',
        DETAIL = json_build_object('expected', p_expected, 'actual', NULL)::text;
    END IF;
    INSERT INTO es.streams (stream_id, stream_type) VALUES (p_stream, p_type);
    cur := 0;
  END IF;
  IF (p_expected = -1 AND cur <> 0) OR (p_expected = -2 AND cur = 0)
     OR (p_expected >= 0 AND cur <> p_expected) THEN
    RAISE EXCEPTION USING ERRCODE = 'P0409', MESSAGE = 'wrong_expected_version',
      DETAIL = json_build_object('expected', p_expected, 'actual', cur)::text;
  END IF;

  RETURN QUERY
  WITH ins AS (
    INSERT INTO es.events (stream_id, version, event_id, event_type, schema_version, data, metadata)
    SELECT p_stream, cur + e.ord, e.id, e.t, e.sv, e.d, e.m
      FROM unnest(p_ids, p_types, p_sv, p_data, p_meta) WITH ORDINALITY AS e(id, t, sv, d, m, ord)
     ORDER BY e.ord  -- positions follow versions, so a feed reader sees a stream in order
    RETURNING es.events.version, es.events.global_position
  ), upd AS (
    UPDATE es.streams SET version = cur + n, updated_at = now() WHERE stream_id = p_stream
  )
  SELECT cur + n, array_agg(ins.global_position ORDER BY ins.version), pg_current_xact_id()
    FROM ins;
END $$;
"""

DEALING = """
ALTER TABLE api.deal_sources ADD COLUMN secret bytea CHECK (length(secret) BETWEEN 1 AND 512);
ALTER TABLE api.games ADD COLUMN dealing text NOT NULL DEFAULT 'legacy'
  CHECK (dealing IN ('random', 'seeded', 'fixed', 'legacy'));
UPDATE api.games g
   SET dealing = CASE WHEN jsonb_array_length(d.layouts) > 0 THEN 'fixed' ELSE 'seeded' END
  FROM api.deal_sources d
 WHERE d.game_id = g.game_id AND (d.seed IS NOT NULL OR jsonb_array_length(d.layouts) > 0);

DROP FUNCTION api.deal_source(uuid);
-- What dealing needs, and only while there is dealing to do (0005), now with the secret.
CREATE FUNCTION api.deal_source(p_game uuid)
RETURNS TABLE (seats smallint, seed text, layouts jsonb, secret bytea)
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
  SELECT d.seats, d.seed, d.layouts, d.secret
    FROM api.deal_sources d JOIN api.games g USING (game_id)
   WHERE d.game_id = p_game AND g.status <> 'finished'
$$;
"""

DEALING_DOWN = """
DROP FUNCTION api.deal_source(uuid);
CREATE FUNCTION api.deal_source(p_game uuid)
RETURNS TABLE (seats smallint, seed text, layouts jsonb)
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
  SELECT d.seats, d.seed, d.layouts
    FROM api.deal_sources d JOIN api.games g USING (game_id)
   WHERE d.game_id = p_game AND g.status <> 'finished'
$$;
ALTER TABLE api.deal_sources DROP COLUMN secret;
ALTER TABLE api.games DROP COLUMN dealing;
"""

EFFECTS_BEFORE = """
-- api.command_effects as 0006 wrote it: the downgrade's.
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
"""

EFFECTS = """
-- api.command_effects (0006) with the game's dealing and its deal source's secret.
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

GRANTS = f"""
REVOKE ALL ON FUNCTION api.deal_source(uuid), es.event_hash({HASH_ARGS}) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION api.deal_source(uuid), es.event_hash({HASH_ARGS}) TO {APP_ROLE};
"""


def upgrade() -> None:
    op.execute(EVENT_HASH)
    op.execute(COLUMNS)
    op.execute(APPEND)
    op.execute(DEALING)
    op.execute(EFFECTS)
    op.execute(TAKE_OWNERSHIP)
    op.execute(GRANTS)


def downgrade() -> None:
    op.execute(EFFECTS_BEFORE)
    op.execute(DEALING_DOWN)
    op.execute(APPEND_BEFORE)
    op.execute(
        f"""
ALTER TABLE es.events DROP COLUMN salt, DROP COLUMN prev_hash, DROP COLUMN hash;
ALTER TABLE es.streams DROP COLUMN head_hash;
DROP FUNCTION es.event_hash({HASH_ARGS});
"""
    )
    op.execute(TAKE_OWNERSHIP)
    op.execute(f"GRANT EXECUTE ON FUNCTION api.deal_source(uuid) TO {APP_ROLE};")
