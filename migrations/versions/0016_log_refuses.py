"""The log refuses what can never be legal, checked in the database (issue 21, item 3).

- ``es.stream_kinds`` (listed type by type by the view ``es.event_kinds``): the event types
  each kind of stream may hold, the newest schema version of each, and its place: ``first``
  (only as version 1, and version 1 is one), ``any``, ``closing`` (the stream's end: after it
  only an ``after_close`` event) or ``after_close`` (once, after the end; then the stream is
  sealed). The games' kind is filled here from ``domain.game.Event``
  (tests/integration/test_log_refusals.py keeps the two equal). The kernel still knows no
  games: it reads the catalog, and a kind with no row stays open (the event store's own tests
  write such streams); a stream named after a catalogued kind (``game-…``) is of that kind,
  whatever type its writer names.
- ``es.streams.phase``: 0 open, 1 closed (its closing event is written), 2 sealed.
- ``es.admit``: the check, run by ``es.append`` and ``es.command`` under the stream's lock
  before anything is written: every event's type known to its stream's kind, its schema
  version at most the newest, its data an object, nothing after the end (``P0400``).
- ``es.command``: a key is kept at most 7 days; a keyed command goes to the writer even when
  it is refused (no events), so that the writer vouches for the key's principal; the writer is
  called with the principal as a fourth argument.
- ``api.command_effects (…, p_principal)``: the effects only for the stream being written (its
  game's row, notifications of its game to its players), notifications only of the kinds a
  command sends with their typed data (``api.note_fits``), a read-only token writes nothing,
  and a key is the caller's: the token's player; without a token, a bot of the service or a
  principal that is no player (the steward's).

Revision ID: 0016_log_refuses
Revises: 0015_names_and_registrations
Create Date: 2026-12-04
"""

from alembic import op

from migrations import TAKE_OWNERSHIP

revision = "0016_log_refuses"
down_revision = "0015_names_and_registrations"
branch_labels = None
depends_on = None

APPEND_ARGS = "text, text, bigint, uuid[], text[], smallint[], jsonb[], jsonb[]"
ADMIT_ARGS = "text, text, bigint, smallint, text[], smallint[], jsonb[]"

CATALOG = """
-- One row per kind of stream: its event types, each with its newest schema version and its
-- place, as one jsonb object (es.admit reads one row per append); es.event_kinds lists them.
CREATE TABLE es.stream_kinds (
  stream_type  text PRIMARY KEY CHECK (length(stream_type) BETWEEN 1 AND 100),
  events       jsonb NOT NULL CHECK (jsonb_typeof(events) = 'object')
);
REVOKE ALL ON es.stream_kinds FROM PUBLIC;
CREATE VIEW es.event_kinds AS
SELECT k.stream_type, e.key AS event_type, (e.value->>'v')::smallint AS schema_version,
       e.value->>'place' AS place
  FROM es.stream_kinds k, jsonb_each(k.events) AS e;
REVOKE ALL ON es.event_kinds FROM PUBLIC;
INSERT INTO es.stream_kinds (stream_type, events) VALUES ('game', '{
    "game_created": {"v": 3, "place": "first"},
    "player_seated": {"v": 2, "place": "any"},
    "deal_scored": {"v": 1, "place": "any"},
    "last_round_started": {"v": 1, "place": "any"},
    "game_ended": {"v": 1, "place": "closing"},
    "secret_revealed": {"v": 1, "place": "after_close"},
    "turn_clock": {"v": 1, "place": "any"},
    "timed_out": {"v": 1, "place": "any"},
    "played_for": {"v": 1, "place": "any"},
    "player_absent": {"v": 1, "place": "any"},
    "player_returned": {"v": 1, "place": "any"},
    "seat_left": {"v": 1, "place": "any"},
    "seat_abandoned": {"v": 1, "place": "any"},
    "deal_started": {"v": 1, "place": "any"},
    "cards_looked": {"v": 1, "place": "any"},
    "bid_made": {"v": 1, "place": "any"},
    "passed": {"v": 1, "place": "any"},
    "auction_won": {"v": 1, "place": "any"},
    "all_passed": {"v": 1, "place": "any"},
    "talon_set_aside": {"v": 1, "place": "any"},
    "talon_taken": {"v": 1, "place": "any"},
    "discarded": {"v": 1, "place": "any"},
    "contract_declared": {"v": 1, "place": "any"},
    "totus_shown": {"v": 1, "place": "any"},
    "conceded": {"v": 1, "place": "any"},
    "whist_called": {"v": 1, "place": "any"},
    "hand_looked_at": {"v": 1, "place": "any"},
    "play_chosen": {"v": 1, "place": "any"},
    "play_started": {"v": 1, "place": "any"},
    "hands_opened": {"v": 2, "place": "any"},
    "talon_card_turned": {"v": 1, "place": "any"},
    "card_played": {"v": 1, "place": "any"},
    "trick_won": {"v": 1, "place": "any"},
    "claim_made": {"v": 1, "place": "any"},
    "claim_answered": {"v": 1, "place": "any"},
    "deal_ended": {"v": 2, "place": "any"}
}');

ALTER TABLE es.streams ADD COLUMN phase smallint NOT NULL DEFAULT 0 CHECK (phase IN (0, 1, 2));
UPDATE es.streams s
   SET phase = CASE WHEN EXISTS (SELECT 1 FROM es.events e JOIN es.event_kinds k
                                   ON k.stream_type = s.stream_type AND k.event_type = e.event_type
                                  WHERE e.stream_id = s.stream_id AND k.place = 'after_close')
                    THEN 2 ELSE 1 END
 WHERE EXISTS (SELECT 1 FROM es.events e JOIN es.event_kinds k
                 ON k.stream_type = s.stream_type AND k.event_type = e.event_type
                WHERE e.stream_id = s.stream_id AND k.place = 'closing');
"""

ADMIT = """
-- What the events p_types (p_sv, p_data) appended after version p_cur of p_stream may be, by
-- its kind's catalog (es.stream_kinds); the stream's phase after them. Run by es.append and
-- es.command as the owner, under the stream's lock; the request path may not call it.
CREATE FUNCTION es.admit(p_stream text, p_kind text, p_cur bigint, p_phase smallint,
                         p_types text[], p_sv smallint[], p_data jsonb[])
RETURNS smallint
LANGUAGE plpgsql AS $$
DECLARE
  named text := split_part(p_stream, '-', 1);
  at_phase smallint := p_phase;
  catalog jsonb;
  entry jsonb;
  place text;
BEGIN
  SELECT k.events INTO catalog FROM es.stream_kinds k WHERE k.stream_type = p_kind;
  IF catalog IS NULL THEN
    IF named IS DISTINCT FROM p_kind
       AND EXISTS (SELECT 1 FROM es.stream_kinds k WHERE k.stream_type = named) THEN
      RAISE EXCEPTION USING ERRCODE = 'P0400', MESSAGE = 'event_not_allowed',
        DETAIL = format('stream %s is not of kind %s', p_stream, p_kind);
    END IF;
    RETURN at_phase;  -- a kind with no catalog: open
  END IF;
  IF p_kind IS DISTINCT FROM named THEN
    RAISE EXCEPTION USING ERRCODE = 'P0400', MESSAGE = 'event_not_allowed',
      DETAIL = format('stream %s is not of kind %s', p_stream, p_kind);
  END IF;
  FOR i IN 1..cardinality(p_types) LOOP
    entry := catalog -> p_types[i];
    IF entry IS NULL THEN
      RAISE EXCEPTION USING ERRCODE = 'P0400', MESSAGE = 'event_not_allowed',
        DETAIL = format('a %s stream holds no event of type %s', p_kind, p_types[i]);
    END IF;
    place := entry->>'place';
    IF p_sv[i] IS NULL OR p_sv[i] < 1 OR p_sv[i] > (entry->>'v')::int
       OR jsonb_typeof(p_data[i]) IS DISTINCT FROM 'object' THEN
      RAISE EXCEPTION USING ERRCODE = 'P0400', MESSAGE = 'event_not_allowed',
        DETAIL = format('%s: schema version %s or its data does not fit', p_types[i], p_sv[i]);
    END IF;
    IF at_phase = 2 OR (at_phase = 1 AND place <> 'after_close') THEN
      RAISE EXCEPTION USING ERRCODE = 'P0400', MESSAGE = 'event_not_allowed',
        DETAIL = format('%s after the end of %s', p_types[i], p_stream);
    END IF;
    IF place = 'after_close' AND at_phase <> 1 THEN
      RAISE EXCEPTION USING ERRCODE = 'P0400', MESSAGE = 'event_not_allowed',
        DETAIL = format('%s before the end of %s', p_types[i], p_stream);
    END IF;
    IF (place = 'first') <> (p_cur + i = 1) THEN
      RAISE EXCEPTION USING ERRCODE = 'P0400', MESSAGE = 'event_not_allowed',
        DETAIL = format('%s at version %s of %s', p_types[i], p_cur + i, p_stream);
    END IF;
    IF place = 'closing' THEN
      at_phase := 1;
    ELSIF place = 'after_close' THEN
      at_phase := 2;
    END IF;
  END LOOP;
  RETURN at_phase;
END $$;
REVOKE ALL ON FUNCTION es.admit(text, text, bigint, smallint, text[], smallint[], jsonb[])
  FROM PUBLIC;
"""

APPEND = """
-- es.append (0001, 0005, 0007), admitting only what its stream's kind may hold (es.admit):
-- each event's hash from the one before it, computed under the stream's lock, so the chain is
-- exactly the stream's order. An event's salt is the writer's (metadata "salt", hex: so that
-- the service knows the new head before the write), else drawn here; it is stored in its own
-- column, not in the metadata.
CREATE OR REPLACE FUNCTION es.append(
  p_stream text, p_type text, p_expected bigint,
  p_ids uuid[], p_types text[], p_sv smallint[], p_data jsonb[], p_meta jsonb[])
RETURNS TABLE (new_version bigint, positions bigint[], tx xid8)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
  cur bigint;
  head bytea;
  kind text;
  at_phase smallint;
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
  SELECT s.version, s.head_hash, s.stream_type, s.phase INTO cur, head, kind, at_phase
    FROM es.streams s WHERE s.stream_id = p_stream;
  IF NOT FOUND THEN
    IF p_expected IS NOT NULL AND p_expected NOT IN (-1, 0) THEN
      RAISE EXCEPTION USING ERRCODE = 'P0409', MESSAGE = 'wrong_expected_version',
        DETAIL = json_build_object('expected', p_expected, 'actual', NULL)::text;
    END IF;
    INSERT INTO es.streams (stream_id, stream_type) VALUES (p_stream, p_type);
    cur := 0;
    kind := p_type;
    at_phase := 0;
  END IF;
  IF (p_expected = -1 AND cur <> 0) OR (p_expected = -2 AND cur = 0)
     OR (p_expected >= 0 AND cur <> p_expected) THEN
    RAISE EXCEPTION USING ERRCODE = 'P0409', MESSAGE = 'wrong_expected_version',
      DETAIL = json_build_object('expected', p_expected, 'actual', cur)::text;
  END IF;
  at_phase := es.admit(p_stream, kind, cur, at_phase, p_types, p_sv, p_data);

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
    UPDATE es.streams SET version = cur + n, head_hash = head, phase = at_phase,
                        updated_at = now()
     WHERE stream_id = p_stream
  )
  SELECT cur + n, array_agg(ins.global_position ORDER BY ins.version), pg_current_xact_id()
    FROM ins;
END $$;
"""

NOTE_FITS = """
-- Whether a notification's data is what a command sends for its kind (service.games.lobby's
-- notifications): exactly these keys, each of its JSON type ('uuid': a player's id, or null).
CREATE FUNCTION api.note_fits(p_kind text, p_data jsonb)
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

EFFECTS = """
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
CREATE FUNCTION api.command_effects(p_stream text, p_version bigint, p_effects jsonb,
                                    p_principal text)
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
--   p_summary           what else the command writes, handed with the stream, its new
--                       version (null for a refusal) and the key's principal to the writer
--                       es.command_writer names; a keyed command always goes to the writer,
--                       which vouches for the principal (none named: no effects allowed).
-- A key is kept at most 7 days; the events must fit their stream's kind (es.admit).
-- outcome: 'appended', 'refused' (no events, the decision stored), 'replayed' (the key's
-- earlier decision; nothing else done) or 'nothing' (no events, no key).
-- The append is es.append's (0016), written out: one lock, one definer, one stream write.
DECLARE
  n int := coalesce(cardinality(p_ids), 0);
  cur bigint;
  head bytea;
  kind text;
  at_phase smallint;
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
  IF p_key IS NOT NULL AND (p_key_ttl IS NULL OR p_key_ttl <= interval '0'
                            OR p_key_ttl > interval '7 days') THEN
    RAISE EXCEPTION USING ERRCODE = '22023', MESSAGE = 'a key is kept from 0 to 7 days';
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
  SELECT s.version, s.head_hash, s.stream_type, s.phase INTO cur, head, kind, at_phase
    FROM es.streams s WHERE s.stream_id = p_stream;
  known := FOUND;
  cur := coalesce(cur, 0);
  kind := coalesce(kind, p_type);
  at_phase := coalesce(at_phase, 0);
  SELECT w.schema_name, w.function_name INTO writer FROM es.command_writer w;

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
      IF writer.function_name IS NOT NULL THEN  -- the writer vouches for the key's principal
        EXECUTE format('SELECT %I.%I($1, $2, $3, $4)', writer.schema_name, writer.function_name)
          USING p_stream, NULL::bigint, p_summary, p_principal;
      ELSIF p_summary IS NOT NULL THEN
        RAISE EXCEPTION USING ERRCODE = '22023', MESSAGE = 'no writer for a command''s effects';
      END IF;
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
  at_phase := es.admit(p_stream, kind, cur, at_phase, p_types, p_sv, p_data);

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
    UPDATE es.streams SET version = cur + n, head_hash = head, phase = at_phase,
                          updated_at = now()
     WHERE stream_id = p_stream;
  ELSE
    INSERT INTO es.streams (stream_id, stream_type, version, head_hash, phase)
    VALUES (p_stream, p_type, n, head, at_phase);
  END IF;

  IF writer.function_name IS NOT NULL AND (p_summary IS NOT NULL OR p_key IS NOT NULL) THEN
    EXECUTE format('SELECT %I.%I($1, $2, $3, $4)', writer.schema_name, writer.function_name)
      USING p_stream, cur + n, p_summary, p_principal;
  ELSIF p_summary IS NOT NULL THEN
    RAISE EXCEPTION USING ERRCODE = '22023', MESSAGE = 'no writer for a command''s effects';
  END IF;

  RETURN QUERY SELECT 'appended'::text, cur + n, got, pg_current_xact_id(), NULL::text,
    NULL::jsonb;
END $$;
"""

WRITER = """
DROP FUNCTION api.command_effects(text, bigint, jsonb);
REVOKE ALL ON FUNCTION api.command_effects(text, bigint, jsonb, text), api.note_fits(text, jsonb)
  FROM PUBLIC;
"""

# The downgrade's: 0007's es.append, 0013's es.command and writer.
APPEND_BEFORE = """
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

COMMAND_BEFORE = """
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

EFFECTS_BEFORE = """
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


def upgrade() -> None:
    op.execute(CATALOG)
    op.execute(ADMIT)
    op.execute(APPEND)
    op.execute(NOTE_FITS)
    op.execute(EFFECTS)
    op.execute(WRITER)
    op.execute(COMMAND)
    op.execute(TAKE_OWNERSHIP)


def downgrade() -> None:
    op.execute(APPEND_BEFORE)
    op.execute(COMMAND_BEFORE)
    op.execute(EFFECTS_BEFORE)
    op.execute(
        """
REVOKE ALL ON FUNCTION api.command_effects(text, bigint, jsonb) FROM PUBLIC;
DROP FUNCTION api.command_effects(text, bigint, jsonb, text);
DROP FUNCTION api.note_fits(text, jsonb);
DROP FUNCTION es.admit(text, text, bigint, smallint, text[], smallint[], jsonb[]);
ALTER TABLE es.streams DROP COLUMN phase;
DROP VIEW es.event_kinds;
DROP TABLE es.stream_kinds;
"""
    )
    op.execute(TAKE_OWNERSHIP)
