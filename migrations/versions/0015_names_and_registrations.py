"""Names that look alike are one name; a registration's key expires and hands out no credential.

- ``api.player_names``: the TR39 skeleton of each registered player's name (humans, programs
  and the service's bots; `service.players.names.skeleton`), unique: two players whose names
  look alike (a Cyrillic «а» in "Anna", full-width letters, another case) cannot both hold
  one, however their registrations interleave. Existing players are entered by the service
  (`service.players.accounts.Players.claim_names`, oldest first; a later look-alike of an
  older name keeps its name and claims none). Guests of imported games claim no name.
- ``api.registrations``: the Idempotency-Key of a registration (its sha256), the request's
  fingerprint, the player and the token handed out last, until ``expires_at`` (the key's TTL,
  like every other key). It replaces ``api.players.registration``, which was kept for ever: a
  repeat of a key and body, by anybody, got the player with a new token, a credential for
  good. The keys there move over, expiring a day after their player's registration, with no
  token to hand out again.
- ``api.register_player`` registers in one call: the key taken first (a concurrent repeat waits
  for it, then replays), the player, his name's skeleton and his first token. A repeat of a
  live key with the same request gets the player, and a new token only while the token handed
  out last was never used (the answer may have been lost): that token is revoked (and
  announced, so no process keeps it cached) and the new one takes its place. Once the token was
  used, the answer had arrived: a repeat gets the player and no token. The same key with
  another request is ``P0422`` (IdempotencyKeyReused). A key past its TTL is a new request.
- ``api.purge_registrations``: expired registration keys, a batch at a time (the key purger).

The request path may read ``api.player_names`` and enter names in it (the bots' own), and run
the two functions; it writes ``api.registrations`` only through them.

Revision ID: 0015_names_and_registrations
Revises: 0014_group_commit
Create Date: 2026-12-05
"""

from alembic import op

from migrations import APP_ROLE, TAKE_OWNERSHIP

revision = "0015_names_and_registrations"
down_revision = "0014_group_commit"
branch_labels = None
depends_on = None

REGISTER_ARGS = "uuid, text, text, text, bytea, bytea, interval, uuid, bytea, text, text"

TABLES = """
CREATE TABLE api.player_names (
  skeleton   text PRIMARY KEY CHECK (length(skeleton) BETWEEN 1 AND 2048),
  player_id  uuid NOT NULL UNIQUE REFERENCES api.players (player_id)
);

CREATE TABLE api.registrations (
  key_hash    bytea PRIMARY KEY CHECK (length(key_hash) = 32),  -- sha256 of the key
  request     bytea NOT NULL,
  player_id   uuid NOT NULL REFERENCES api.players (player_id) DEFERRABLE INITIALLY DEFERRED,
  token_id    uuid REFERENCES api.tokens (token_id) DEFERRABLE INITIALLY DEFERRED,
  created_at  timestamptz NOT NULL DEFAULT now(),
  expires_at  timestamptz NOT NULL
);
CREATE INDEX registrations_expiry ON api.registrations (expires_at);

INSERT INTO api.registrations (key_hash, request, player_id, created_at, expires_at)
SELECT registration, coalesce(registration_request, ''::bytea), player_id, created_at,
       created_at + interval '1 day'
  FROM api.players WHERE registration IS NOT NULL;
ALTER TABLE api.players DROP COLUMN registration, DROP COLUMN registration_request;
"""

FUNCTIONS = """
-- A registration in one call (see the migration's docstring). Returns the player and when the
-- token p_token was stored (NULL: a repeat after the answer arrived, no token handed out).
CREATE FUNCTION api.register_player(
  p_player uuid, p_name text, p_skeleton text, p_kind text, p_key bytea, p_request bytea,
  p_ttl interval, p_token uuid, p_token_hash bytea, p_device text, p_channel text)
RETURNS TABLE (player_id uuid, name text, kind text, token_created_at timestamptz)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
  fresh boolean := true;
  held record;
  last record;
BEGIN
  IF p_key IS NOT NULL THEN
    INSERT INTO api.registrations AS r (key_hash, request, player_id, token_id, expires_at)
    VALUES (p_key, p_request, p_player, p_token, now() + p_ttl)
    ON CONFLICT (key_hash) DO UPDATE
       SET request = EXCLUDED.request, player_id = EXCLUDED.player_id,
           token_id = EXCLUDED.token_id, created_at = now(), expires_at = EXCLUDED.expires_at
     WHERE r.expires_at <= now()  -- an expired key is a new request
    RETURNING true INTO fresh;
    fresh := coalesce(fresh, false);
  END IF;
  IF fresh THEN
    INSERT INTO api.players (player_id, name, kind) VALUES (p_player, p_name, p_kind);
    INSERT INTO api.player_names (skeleton, player_id) VALUES (p_skeleton, p_player);
    INSERT INTO api.tokens (token_id, token_hash, player_id, name, scope)
    VALUES (p_token, p_token_hash, p_player, p_device, 'play');
    RETURN QUERY SELECT p_player, p_name, p_kind, now();
    RETURN;
  END IF;
  SELECT r.request, r.player_id, r.token_id INTO held
    FROM api.registrations r WHERE r.key_hash = p_key FOR UPDATE;
  IF held.request <> p_request THEN
    RAISE EXCEPTION USING ERRCODE = 'P0422',
      MESSAGE = 'the idempotency key was used before with another request';
  END IF;
  SELECT t.token_id, t.token_hash INTO last
    FROM api.tokens t
   WHERE t.token_id = held.token_id AND t.last_used_at IS NULL AND t.revoked_at IS NULL;
  IF last.token_id IS NULL THEN  -- the answer arrived (its token was used): no other token
    RETURN QUERY SELECT p.player_id, p.name, p.kind, NULL::timestamptz
      FROM api.players p WHERE p.player_id = held.player_id;
    RETURN;
  END IF;
  UPDATE api.tokens SET revoked_at = now() WHERE token_id = last.token_id;
  PERFORM pg_notify(p_channel, 'revoked-token:' || encode(last.token_hash, 'hex'));
  INSERT INTO api.tokens (token_id, token_hash, player_id, name, scope)
  VALUES (p_token, p_token_hash, held.player_id, p_device, 'play');
  UPDATE api.registrations SET token_id = p_token WHERE key_hash = p_key;
  RETURN QUERY SELECT p.player_id, p.name, p.kind, now()
    FROM api.players p WHERE p.player_id = held.player_id;
END $$;

-- Expired registration keys, a batch at a time (the service's one purger calls it).
CREATE FUNCTION api.purge_registrations(p_limit int)
RETURNS int
LANGUAGE sql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
  WITH gone AS (
    DELETE FROM api.registrations
     WHERE key_hash = ANY (ARRAY(SELECT key_hash FROM api.registrations
                                  WHERE expires_at <= now() LIMIT p_limit))
    RETURNING 1)
  SELECT count(*)::int FROM gone
$$;
"""

GRANTS = f"""
REVOKE ALL ON FUNCTION api.register_player({REGISTER_ARGS}), api.purge_registrations(int)
  FROM PUBLIC;
GRANT SELECT, INSERT ON api.player_names TO {APP_ROLE};
GRANT EXECUTE ON FUNCTION api.register_player({REGISTER_ARGS}), api.purge_registrations(int)
  TO {APP_ROLE};
"""


def upgrade() -> None:
    op.execute(TABLES)
    op.execute(FUNCTIONS)
    op.execute(TAKE_OWNERSHIP)
    op.execute(GRANTS)


def downgrade() -> None:
    op.execute(
        f"""
DROP FUNCTION api.purge_registrations(int);
DROP FUNCTION api.register_player({REGISTER_ARGS});
ALTER TABLE api.players
  ADD COLUMN registration bytea UNIQUE CHECK (length(registration) = 32),
  ADD COLUMN registration_request bytea;
UPDATE api.players p SET registration = r.key_hash, registration_request = r.request
  FROM api.registrations r WHERE r.player_id = p.player_id AND r.expires_at > now();
DROP TABLE api.registrations;
DROP TABLE api.player_names;
"""
    )
