"""The event store: streams, append-only events, es.append, checkpoints and idempotency keys.

Follows docs/event-store.md §9.1–9.4, 9.7 and 9.8. Positions come from an identity column and the
feed orders by (tx_id, global_position) below the xid horizon, so writers to different streams
never wait for each other and readers never skip a late commit. One addition: es.append takes a
per-stream advisory lock before its transaction gets an xid, so that the feed order keeps each
stream's versions in order (a transaction that took its xid first could otherwise append after a
later one and surface before it). And one omission: no foreign key from es.events to es.streams
(see es.events); a trigger keeps streams from being deleted instead.

Revision ID: 0001_event_store
Revises:
Create Date: 2025-01-01
"""

from alembic import op

from migrations import APP_ROLE

revision = "0001_event_store"
down_revision = None
branch_labels = None
depends_on = None

APPEND_ARGS = "text, text, bigint, uuid[], text[], smallint[], jsonb[], jsonb[]"

SCHEMA = """
CREATE SCHEMA es;

CREATE TABLE es.streams (
  stream_id    text PRIMARY KEY CHECK (length(stream_id) BETWEEN 1 AND 200),
  stream_type  text NOT NULL,
  version      bigint NOT NULL DEFAULT 0 CHECK (version >= 0),
  created_at   timestamptz NOT NULL DEFAULT now(),
  updated_at   timestamptz NOT NULL DEFAULT now(),
  archived_at  timestamptz
);

CREATE TABLE es.events (
  global_position bigint GENERATED ALWAYS AS IDENTITY,  -- ordering token; gaps are fine
  tx_id           xid8   NOT NULL DEFAULT pg_current_xact_id(),
  -- No foreign key to es.streams: es.append creates the stream row first, under the stream's
  -- lock, and streams are never deleted (trigger below). A foreign key re-checked that with a
  -- row lock and a lookup per event: about a tenth of an append's CPU.
  stream_id       text   NOT NULL,
  version         bigint NOT NULL CHECK (version >= 1),  -- gapless per stream
  event_id        uuid   NOT NULL,
  event_type      text   NOT NULL CHECK (event_type <> ''),  -- stable alias, never a class path
  schema_version  smallint NOT NULL DEFAULT 1 CHECK (schema_version >= 1),
  data            jsonb  NOT NULL CHECK (jsonb_typeof(data) = 'object'),
  metadata        jsonb  NOT NULL DEFAULT '{}'::jsonb CHECK (jsonb_typeof(metadata) = 'object'),
  recorded_at     timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (stream_id, version),
  UNIQUE (event_id),
  UNIQUE (global_position)
);
CREATE INDEX events_feed ON es.events (tx_id, global_position);

CREATE TABLE es.projection_checkpoints (
  projection  text PRIMARY KEY,  -- 'lobby@3': the suffix is the projection's code version
  tx_id       xid8   NOT NULL DEFAULT '0',
  position    bigint NOT NULL DEFAULT 0,
  status      text   NOT NULL DEFAULT 'running'
              CHECK (status IN ('running', 'rebuilding', 'paused', 'failed')),
  last_error  text,
  updated_at  timestamptz NOT NULL DEFAULT now()
);

-- Written in the same transaction as the events a request appends (docs/event-store.md §9.8).
CREATE TABLE es.idempotency_keys (
  principal_id     text NOT NULL CHECK (length(principal_id) BETWEEN 1 AND 255),
  idem_key         text NOT NULL CHECK (length(idem_key) BETWEEN 1 AND 255),
  request_hash     bytea NOT NULL,
  stream_id        text,
  version          bigint,
  response_status  int CHECK (response_status BETWEEN 100 AND 599),
  response_headers jsonb,
  response_body    bytea,
  created_at       timestamptz NOT NULL DEFAULT now(),
  expires_at       timestamptz NOT NULL DEFAULT now() + interval '24 hours',
  PRIMARY KEY (principal_id, idem_key)
);
CREATE INDEX idempotency_keys_expiry ON es.idempotency_keys (expires_at);
"""

APPEND = """
-- One round trip per command. p_expected: NULL = any, -1 = no stream, -2 = stream exists,
-- n >= 0 = exactly version n. A stale version raises P0409 before any position is allocated,
-- so a conflict burns no global positions (marten#4749).
CREATE FUNCTION es.append(
  p_stream text, p_type text, p_expected bigint,
  p_ids uuid[], p_types text[], p_sv smallint[], p_data jsonb[], p_meta jsonb[])
RETURNS TABLE (new_version bigint, positions bigint[], tx xid8)
LANGUAGE plpgsql AS $$
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

IMMUTABILITY = f"""
CREATE FUNCTION es.reject_mutation() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION '% is append-only (%)', TG_TABLE_SCHEMA || '.' || TG_TABLE_NAME, TG_OP
    USING ERRCODE = 'P0403';
END $$;
CREATE TRIGGER events_no_update_delete BEFORE UPDATE OR DELETE ON es.events
  FOR EACH STATEMENT EXECUTE FUNCTION es.reject_mutation();
-- TRUNCATE fires no DELETE trigger, so it needs its own.
CREATE TRIGGER events_no_truncate BEFORE TRUNCATE ON es.events
  FOR EACH STATEMENT EXECUTE FUNCTION es.reject_mutation();
-- A stream is never deleted either (it is archived): no event can lose its stream.
CREATE TRIGGER streams_no_delete BEFORE DELETE OR TRUNCATE ON es.streams
  FOR EACH STATEMENT EXECUTE FUNCTION es.reject_mutation();

-- Roles are cluster-wide: another database, or a concurrent migration, may have made it first.
DO $$
BEGIN
  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '{APP_ROLE}') THEN
    BEGIN
      CREATE ROLE {APP_ROLE} NOLOGIN;
    EXCEPTION WHEN duplicate_object OR unique_violation THEN
      NULL;
    END;
  END IF;
END $$;

REVOKE ALL ON ALL TABLES IN SCHEMA es FROM PUBLIC;
GRANT USAGE ON SCHEMA es TO {APP_ROLE};
GRANT SELECT, INSERT ON es.events TO {APP_ROLE};
GRANT SELECT, INSERT, UPDATE ON es.streams TO {APP_ROLE};
GRANT SELECT, INSERT, UPDATE, DELETE ON es.projection_checkpoints, es.idempotency_keys
  TO {APP_ROLE};
REVOKE ALL ON FUNCTION es.append({APPEND_ARGS}) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION es.append({APPEND_ARGS}) TO {APP_ROLE};
"""


def upgrade() -> None:
    op.execute(SCHEMA)
    op.execute(APPEND)
    op.execute(IMMUTABILITY)


def downgrade() -> None:
    # The role stays: it is shared by every database of the cluster.
    op.execute("DROP SCHEMA es CASCADE")
