"""The database deals: a game's secret never leaves it before the reveal (issue 21, item 2).

Every game created from here on is dealt with the second derivation (``fairness`` 2 in its
``game_created``, schema 4): the same input lines as the first, named ``preferans-deal-v2``, read
as SHA-256 in counter mode (block k = sha256(input || k as 4 bytes big-endian)), which PostgreSQL
computes (it has no SHAKE-256). Then no service role needs the secret:

- ``api.deal_secrets``: a v2 game's secret, drawn here by ``api.draw_secret`` (three
  ``gen_random_uuid``, from the server's strong random source, hashed to 32 bytes) before the
  game is created; the caller gets only the commitment. No service role may read the table.
- ``api.deck_v2(secret, seeds, n)``: the derivation, in PL/pgSQL (domain/fairness.py is the
  reference; tests/integration/test_deals_in_db.py compares the two).
- ``api.due_deal(game, n)``: deal ``n``'s cards, only if ``n`` is the due deal: one more than the
  ``deal_started`` events in the log, once each of those deals has its ``deal_ended`` (so asked
  again before its ``deal_started`` is written, the same deal; while a deal is played, none).
  The deck (or the creator's layout within ``fixed_deals``), never the secret. It reads the log
  itself: the seeds of every ``player_seated`` in log order (none for a seeded game, whose
  secret is its seed's bytes). Refused (``P0409``) for a game that ended, for a v1 game, while
  a deal is played, and for any other deal number.
- ``api.game_secret(game)``: the secret, only once the log holds the game's ``game_ended``: the
  service appends ``secret_revealed`` with it after the command that ended the game.
- ``api.deal_source(game)`` answers nothing for a v2 game: its secret is not in
  ``api.deal_sources``, and its seed and layouts are the database's to deal. A v1 game still in
  progress keeps getting its source (secret included) until it ends, so that it can finish.

Granted to the roles that deal: ``preferans_app`` and ``preferans_bots``.

Revision ID: 0018_deals_dealt_in_db
Revises: 0017_roles_per_process
Create Date: 2026-12-05
"""

from alembic import op

from migrations import APP_ROLE, BOTS_ROLE, TAKE_OWNERSHIP

revision = "0018_deals_dealt_in_db"
down_revision = "0017_roles_per_process"
branch_labels = None
depends_on = None

SECRETS = """
-- A v2 game's secret: drawn here, read only by the owner's functions below.
CREATE TABLE api.deal_secrets (
  game_id   uuid PRIMARY KEY,
  secret    bytea NOT NULL CHECK (length(secret) = 32),
  drawn_at  timestamptz NOT NULL DEFAULT now()
);
REVOKE ALL ON api.deal_secrets FROM PUBLIC;
-- Upgraded again after a downgrade: the v2 games' secrets go back where only the owner reads.
INSERT INTO api.deal_secrets (game_id, secret)
SELECT d.game_id, d.secret FROM api.deal_sources d
 WHERE d.secret IS NOT NULL AND d.seed IS NULL
   AND EXISTS (SELECT 1 FROM es.events e
                WHERE e.stream_id = 'game-' || d.game_id::text AND e.version = 1
                  AND e.data->>'fairness' = '2');
UPDATE api.deal_sources d SET secret = NULL FROM api.deal_secrets s WHERE s.game_id = d.game_id;

UPDATE es.stream_kinds
   SET events = jsonb_set(events, '{game_created,v}', '4')
 WHERE stream_type = 'game';
"""

FUNCTIONS = """
-- A new secret for game p_game (once: asked again, the same), and its commitment (hex). Three
-- v4 uuids are 366 bits of pg_strong_random; their SHA-256 is the 32-byte secret.
CREATE FUNCTION api.draw_secret(p_game uuid)
RETURNS text
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
  drawn bytea;
BEGIN
  IF EXISTS (SELECT 1 FROM es.streams s WHERE s.stream_id = 'game-' || p_game::text) THEN
    RAISE EXCEPTION USING ERRCODE = 'P0409', MESSAGE = 'game_exists',
      DETAIL = 'a game''s secret is drawn before the game is created';
  END IF;
  INSERT INTO api.deal_secrets (game_id, secret)
  VALUES (p_game, sha256(uuid_send(gen_random_uuid()) || uuid_send(gen_random_uuid())
                         || uuid_send(gen_random_uuid())))
  ON CONFLICT (game_id) DO NOTHING;
  SELECT d.secret INTO drawn FROM api.deal_secrets d WHERE d.game_id = p_game;
  RETURN encode(sha256(drawn), 'hex');
END $$;

-- The deck of deal p_deal by the second derivation (docs/fairness.md; domain/fairness.py):
-- Fisher-Yates with rejection sampling over SHA-256 in counter mode.
CREATE FUNCTION api.deck_v2(p_secret bytea, p_seeds text[], p_deal integer)
RETURNS text[]
LANGUAGE plpgsql IMMUTABLE STRICT SET search_path = pg_catalog, pg_temp AS $$
DECLARE
  input bytea;
  cards text[] := ARRAY['7S', '8S', '9S', 'TS', 'JS', 'QS', 'KS', 'AS',
                        '7C', '8C', '9C', 'TC', 'JC', 'QC', 'KC', 'AC',
                        '7D', '8D', '9D', 'TD', 'JD', 'QD', 'KD', 'AD',
                        '7H', '8H', '9H', 'TH', 'JH', 'QH', 'KH', 'AH'];
  block bytea := ''::bytea;
  counter integer := 0;
  at_byte integer := 0;
  byte integer;
  bound integer;
  j integer;
  swap text;
BEGIN
  input := convert_to(array_to_string(
    ARRAY['preferans-deal-v2', encode(p_secret, 'hex'), p_deal::text]
      || ARRAY(SELECT encode(sha256(convert_to(s.seed, 'UTF8')), 'hex')
                 FROM unnest(p_seeds) WITH ORDINALITY AS s(seed, place) ORDER BY s.place),
    E'\\n'), 'UTF8');
  FOR i IN REVERSE 31..1 LOOP
    bound := 256 - 256 % (i + 1);
    LOOP
      IF at_byte >= length(block) THEN
        block := sha256(input || int4send(counter));
        counter := counter + 1;
        at_byte := 0;
      END IF;
      byte := get_byte(block, at_byte);
      at_byte := at_byte + 1;
      EXIT WHEN byte < bound;
    END LOOP;
    j := byte % (i + 1);
    swap := cards[i + 1];
    cards[i + 1] := cards[j + 1];
    cards[j + 1] := swap;
  END LOOP;
  RETURN cards;
END $$;
REVOKE ALL ON FUNCTION api.deck_v2(bytea, text[], integer) FROM PUBLIC;

-- Deal p_deal of a v2 game, if it is the due one: one more than the deals the log has started,
-- once every one of them has ended (so never a deal ahead of the table). The deck, or the
-- creator's layout for a deal within fixed_deals; never the secret.
CREATE FUNCTION api.due_deal(p_game uuid, p_deal integer)
RETURNS TABLE (deal_no integer, deck text[], layout jsonb)
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
  stream text := 'game-' || p_game::text;
  created jsonb;
  due integer;
  ended integer;
  source record;
  seeds text[];
  drawn bytea;
BEGIN
  SELECT e.data INTO created FROM es.events e WHERE e.stream_id = stream AND e.version = 1;
  IF created IS NULL OR (created->>'fairness') IS DISTINCT FROM '2' THEN
    RAISE EXCEPTION USING ERRCODE = 'P0409', MESSAGE = 'not_dealt_here',
      DETAIL = format('game %s is not dealt by the database', p_game);
  END IF;
  IF EXISTS (SELECT 1 FROM es.events e
              WHERE e.stream_id = stream AND e.event_type = 'game_ended') THEN
    RAISE EXCEPTION USING ERRCODE = 'P0409', MESSAGE = 'game_over',
      DETAIL = format('game %s is over: nothing is left to deal', p_game);
  END IF;
  SELECT count(*) FILTER (WHERE e.event_type = 'deal_started') + 1,
         count(*) FILTER (WHERE e.event_type = 'deal_ended')
    INTO due, ended FROM es.events e WHERE e.stream_id = stream;
  IF ended < due - 1 THEN
    RAISE EXCEPTION USING ERRCODE = 'P0409', MESSAGE = 'deal_in_progress',
      DETAIL = format('deal %s of game %s is being played: the next is dealt once it ends',
                      due - 1, p_game);
  END IF;
  IF p_deal IS DISTINCT FROM due THEN
    RAISE EXCEPTION USING ERRCODE = 'P0409', MESSAGE = 'deal_not_due',
      DETAIL = format('deal %s of game %s is due, not %s', due, p_game, p_deal);
  END IF;
  SELECT d.seed, d.layouts INTO source FROM api.deal_sources d WHERE d.game_id = p_game;
  IF due <= coalesce((created->>'fixed_deals')::integer, 0) THEN
    RETURN QUERY SELECT due, NULL::text[], source.layouts -> (due - 1);
    RETURN;
  END IF;
  IF created->>'dealing' = 'seeded' THEN
    seeds := ARRAY[]::text[];
    drawn := convert_to(source.seed, 'UTF8');
  ELSE
    SELECT coalesce(array_agg(e.data->>'client_seed' ORDER BY e.version), ARRAY[]::text[])
      INTO seeds FROM es.events e
     WHERE e.stream_id = stream AND e.event_type = 'player_seated'
       AND e.data->>'client_seed' IS NOT NULL;
    SELECT d.secret INTO drawn FROM api.deal_secrets d WHERE d.game_id = p_game;
  END IF;
  IF drawn IS NULL THEN
    RAISE EXCEPTION USING ERRCODE = 'P0409', MESSAGE = 'no_secret',
      DETAIL = format('game %s has no secret to deal from', p_game);
  END IF;
  RETURN QUERY SELECT due, api.deck_v2(drawn, seeds, due), NULL::jsonb;
END $$;

-- A v2 game's secret, once its log holds game_ended (for secret_revealed); refused before.
CREATE FUNCTION api.game_secret(p_game uuid)
RETURNS bytea
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
  stream text := 'game-' || p_game::text;
  created jsonb;
  drawn bytea;
BEGIN
  SELECT e.data INTO created FROM es.events e WHERE e.stream_id = stream AND e.version = 1;
  IF created IS NULL OR (created->>'fairness') IS DISTINCT FROM '2' THEN
    RAISE EXCEPTION USING ERRCODE = 'P0409', MESSAGE = 'not_dealt_here',
      DETAIL = format('game %s is not dealt by the database', p_game);
  END IF;
  IF NOT EXISTS (SELECT 1 FROM es.events e
                  WHERE e.stream_id = stream AND e.event_type = 'game_ended') THEN
    RAISE EXCEPTION USING ERRCODE = 'P0409', MESSAGE = 'game_not_over',
      DETAIL = format('the secret of game %s is revealed when the game is over', p_game);
  END IF;
  IF created->>'dealing' = 'seeded' THEN
    SELECT convert_to(d.seed, 'UTF8') INTO drawn FROM api.deal_sources d WHERE d.game_id = p_game;
  ELSE
    SELECT d.secret INTO drawn FROM api.deal_secrets d WHERE d.game_id = p_game;
  END IF;
  RETURN drawn;
END $$;

DROP FUNCTION api.deal_source(uuid);
-- What a v1 game's dealing needs, only while it is dealt (0005, 0007); nothing for a v2 game,
-- which the database deals (api.due_deal).
CREATE FUNCTION api.deal_source(p_game uuid)
RETURNS TABLE (seats smallint, seed text, layouts jsonb, secret bytea)
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
  SELECT d.seats, d.seed, d.layouts, d.secret
    FROM api.deal_sources d JOIN api.games g USING (game_id)
   WHERE d.game_id = p_game AND g.status <> 'finished'
     AND NOT EXISTS (SELECT 1 FROM es.events e
                      WHERE e.stream_id = 'game-' || p_game::text AND e.version = 1
                        AND e.data->>'fairness' = '2')
$$;
"""

GRANTS = f"""
REVOKE ALL ON FUNCTION api.draw_secret(uuid), api.due_deal(uuid, integer),
  api.game_secret(uuid), api.deal_source(uuid) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION api.draw_secret(uuid), api.due_deal(uuid, integer),
  api.game_secret(uuid), api.deal_source(uuid) TO {APP_ROLE}, {BOTS_ROLE};
"""

DOWN = f"""
DROP FUNCTION api.deal_source(uuid);
-- api.deal_source as 0007 wrote it.
CREATE FUNCTION api.deal_source(p_game uuid)
RETURNS TABLE (seats smallint, seed text, layouts jsonb, secret bytea)
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
  SELECT d.seats, d.seed, d.layouts, d.secret
    FROM api.deal_sources d JOIN api.games g USING (game_id)
   WHERE d.game_id = p_game AND g.status <> 'finished'
$$;
REVOKE ALL ON FUNCTION api.deal_source(uuid) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION api.deal_source(uuid) TO {APP_ROLE}, {BOTS_ROLE};
DROP FUNCTION api.game_secret(uuid);
DROP FUNCTION api.due_deal(uuid, integer);
DROP FUNCTION api.deck_v2(bytea, text[], integer);
DROP FUNCTION api.draw_secret(uuid);
-- A v2 game's secret goes back to api.deal_sources, where the service read it before.
UPDATE api.deal_sources d SET secret = s.secret FROM api.deal_secrets s
 WHERE s.game_id = d.game_id AND d.secret IS NULL;
DROP TABLE api.deal_secrets;
UPDATE es.stream_kinds
   SET events = jsonb_set(events, '{{game_created,v}}', '3')
 WHERE stream_type = 'game';
"""


def upgrade() -> None:
    op.execute(SECRETS)
    op.execute(FUNCTIONS)
    op.execute(TAKE_OWNERSHIP)
    op.execute(GRANTS)


def downgrade() -> None:
    op.execute(DOWN)
