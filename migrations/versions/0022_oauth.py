"""OAuth 2.1 for third-party apps: clients, authorization codes with PKCE, grants, refresh tokens.

A signed-in player registers an app (``api.oauth_clients``: a name, its redirect URIs, a secret's
sha256 for a confidential client, none for a public one). Another player (or he) authorises it
on the consent page: ``api.oauth_issue_code`` keeps the code's sha256 with its PKCE challenge
(S256), redirect URI, scope and five minutes of life. The app exchanges the code once
(``api.oauth_exchange_code``): that makes a *grant* (``api.oauth_grants``, one per exchange: a
refresh token family), an access token and a refresh token. The access token is a row of
``api.tokens`` like any device's, with the grant and an expiry (an hour), so every check the
service and the database make of a token holds for it; its scope is ``read`` or ``play``.

- A refresh token works once (``api.oauth_refresh``): it gives a new access token and a new
  refresh token and revokes the grant's previous access token. A refresh token presented a second
  time (it was stolen, or the app lost an answer) revokes the whole family: the grant, its
  refresh tokens and its access tokens. So does a code exchanged a second time (RFC 6749 §4.1.2).
- ``api.oauth_revoke`` (RFC 7009): an app revokes one of its own tokens; a refresh token takes
  its grant with it.
- ``api.oauth_forget_app``: a player revokes an app he authorised (every grant of his to it);
  ``api.oauth_remove_client``: the app's owner removes it (every grant to it, anyone's).
- ``api.oauth_client_secret_ok``: a confidential client's secret checked where it is kept; the
  request path never reads a secret's hash.
- ``api.oauth_purge``, the purger's: codes and refresh tokens a day past their expiry, and the
  refresh tokens of grants revoked a day ago (a replay of one is then merely unknown).

The functions that make or revoke tokens return the sha256 of each access token they revoked,
for the service to announce on the hint channel (every process drops it from its cache).

An access token's expiry is checked by the request path (it looks tokens up with it); the
database's own checks of a token (``api.command_effects``) know only revocation, which every
rotation and revocation above does.

Revision ID: 0022_oauth
Revises: 0020_accounts
Create Date: 2026-12-02
"""

from alembic import op

from migrations import APP_ROLE, PURGER_ROLE, TAKE_OWNERSHIP

revision = "0022_oauth"
down_revision = "0021_lean_notes"
branch_labels = None
depends_on = None

TABLES = """
CREATE TABLE api.oauth_clients (
  client_id text PRIMARY KEY CHECK (client_id ~ '^[A-Za-z0-9_-]{16,64}$'),
  owner_id uuid NOT NULL REFERENCES api.players (player_id),
  name text NOT NULL CHECK (length(name) BETWEEN 1 AND 64),
  redirect_uris text[] NOT NULL CHECK (cardinality(redirect_uris) BETWEEN 1 AND 10),
  secret_hash bytea CHECK (length(secret_hash) = 32),
  public boolean GENERATED ALWAYS AS (secret_hash IS NULL) STORED,
  scope text NOT NULL CHECK (scope ~ '^(read|play)( (read|play))*$'),
  created_at timestamptz NOT NULL DEFAULT now(),
  removed_at timestamptz
);
CREATE INDEX oauth_clients_owner ON api.oauth_clients (owner_id);

CREATE TABLE api.oauth_grants (
  grant_id uuid PRIMARY KEY,
  client_id text NOT NULL REFERENCES api.oauth_clients (client_id),
  player_id uuid NOT NULL REFERENCES api.players (player_id),
  scope text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  revoked_at timestamptz
);
CREATE INDEX oauth_grants_player ON api.oauth_grants (player_id, client_id);
CREATE INDEX oauth_grants_client ON api.oauth_grants (client_id);

CREATE TABLE api.oauth_codes (
  code_hash bytea PRIMARY KEY CHECK (length(code_hash) = 32),
  client_id text NOT NULL REFERENCES api.oauth_clients (client_id),
  player_id uuid NOT NULL REFERENCES api.players (player_id),
  redirect_uri text NOT NULL,
  scope text NOT NULL,
  challenge text NOT NULL CHECK (challenge ~ '^[A-Za-z0-9_-]{43}$'),
  challenge_method text NOT NULL CHECK (challenge_method = 'S256'),
  expires_at timestamptz NOT NULL,
  used_at timestamptz,
  grant_id uuid REFERENCES api.oauth_grants (grant_id)
);
CREATE INDEX oauth_codes_expiry ON api.oauth_codes (expires_at);

CREATE TABLE api.oauth_refresh_tokens (
  token_hash bytea PRIMARY KEY CHECK (length(token_hash) = 32),
  grant_id uuid NOT NULL REFERENCES api.oauth_grants (grant_id),
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  used_at timestamptz
);
CREATE INDEX oauth_refresh_tokens_grant ON api.oauth_refresh_tokens (grant_id);

ALTER TABLE api.tokens
  ADD COLUMN grant_id uuid REFERENCES api.oauth_grants (grant_id),
  ADD COLUMN expires_at timestamptz,
  ADD CHECK ((grant_id IS NULL) = (expires_at IS NULL));
CREATE INDEX tokens_by_grant ON api.tokens (grant_id) WHERE grant_id IS NOT NULL;
"""

ADD_CLIENT = """
CREATE FUNCTION api.oauth_add_client(p_caller bytea, p_client_id text, p_name text,
                                     p_uris text[], p_secret_hash bytea, p_scope text)
RETURNS timestamptz
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
  holder uuid;
  made timestamptz;
BEGIN
  SELECT t.player_id INTO holder FROM api.tokens t
   WHERE t.token_hash = p_caller AND t.revoked_at IS NULL AND t.scope = 'play'
     AND t.grant_id IS NULL;
  IF NOT FOUND THEN
    RAISE EXCEPTION USING ERRCODE = 'P0403', MESSAGE = 'token_refused';
  END IF;
  INSERT INTO api.oauth_clients (client_id, owner_id, name, redirect_uris, secret_hash, scope)
  SELECT p_client_id, holder, p_name, p_uris, p_secret_hash, p_scope
   WHERE (SELECT count(*) FROM api.oauth_clients c
           WHERE c.owner_id = holder AND c.removed_at IS NULL) < 20
  RETURNING created_at INTO made;
  RETURN made;
END $$;
"""

REVOKE_GRANTS = """
CREATE FUNCTION api.oauth_revoke_grants(p_grants uuid[])
RETURNS bytea[]
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
  hashes bytea[];
BEGIN
  UPDATE api.oauth_grants SET revoked_at = now()
   WHERE grant_id = ANY (p_grants) AND revoked_at IS NULL;
  UPDATE api.oauth_refresh_tokens SET used_at = now()
   WHERE grant_id = ANY (p_grants) AND used_at IS NULL;
  WITH gone AS (
    UPDATE api.tokens SET revoked_at = now()
     WHERE grant_id = ANY (p_grants) AND revoked_at IS NULL
    RETURNING token_hash)
  SELECT coalesce(array_agg(token_hash), ARRAY[]::bytea[]) INTO hashes FROM gone;
  RETURN hashes;
END $$;
"""

REMOVE_CLIENT = """
CREATE FUNCTION api.oauth_remove_client(p_caller bytea, p_client_id text)
RETURNS bytea[]
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
BEGIN
  UPDATE api.oauth_clients c SET removed_at = now()
   WHERE c.client_id = p_client_id AND c.removed_at IS NULL
     AND c.owner_id = (SELECT t.player_id FROM api.tokens t
                        WHERE t.token_hash = p_caller AND t.revoked_at IS NULL
                          AND t.scope = 'play' AND t.grant_id IS NULL);
  IF NOT FOUND THEN
    RETURN NULL;
  END IF;
  RETURN api.oauth_revoke_grants(ARRAY(
    SELECT g.grant_id FROM api.oauth_grants g WHERE g.client_id = p_client_id));
END $$;
"""

SECRET_OK = """
CREATE FUNCTION api.oauth_client_secret_ok(p_client_id text, p_secret bytea)
RETURNS boolean
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
  SELECT coalesce((SELECT c.secret_hash = sha256(p_secret) FROM api.oauth_clients c
                    WHERE c.client_id = p_client_id AND c.removed_at IS NULL), false)
$$;
"""

ISSUE_CODE = """
CREATE FUNCTION api.oauth_issue_code(p_caller bytea, p_code_hash bytea, p_client_id text,
                                     p_redirect_uri text, p_scope text, p_challenge text,
                                     p_method text, p_ttl interval)
RETURNS text
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
  holder uuid;
BEGIN
  SELECT t.player_id INTO holder FROM api.tokens t
   WHERE t.token_hash = p_caller AND t.revoked_at IS NULL AND t.scope = 'play'
     AND t.grant_id IS NULL;
  IF NOT FOUND THEN
    RAISE EXCEPTION USING ERRCODE = 'P0403', MESSAGE = 'token_refused';
  END IF;
  IF NOT EXISTS (SELECT FROM api.oauth_clients c
                  WHERE c.client_id = p_client_id AND c.removed_at IS NULL
                    AND p_redirect_uri = ANY (c.redirect_uris)) THEN
    RETURN 'client_refused';
  END IF;
  INSERT INTO api.oauth_codes (code_hash, client_id, player_id, redirect_uri, scope, challenge,
                               challenge_method, expires_at)
  VALUES (p_code_hash, p_client_id, holder, p_redirect_uri, p_scope, p_challenge, p_method,
          now() + p_ttl);
  RETURN 'ok';
END $$;
"""

EXCHANGE_CODE = """
CREATE FUNCTION api.oauth_exchange_code(p_code_hash bytea, p_client_id text, p_grant uuid,
                                        p_token uuid, p_access bytea, p_access_ttl interval,
                                        p_refresh bytea, p_refresh_ttl interval)
RETURNS TABLE (outcome text, player_id uuid, scope text, revoked bytea[])
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
  code api.oauth_codes;
  app text;
BEGIN
  SELECT * INTO code FROM api.oauth_codes c
   WHERE c.code_hash = p_code_hash AND c.client_id = p_client_id FOR UPDATE;
  SELECT c.name INTO app FROM api.oauth_clients c
   WHERE c.client_id = p_client_id AND c.removed_at IS NULL;
  IF code.code_hash IS NULL OR app IS NULL THEN
    RETURN QUERY SELECT 'invalid', NULL::uuid, NULL::text, ARRAY[]::bytea[];
    RETURN;
  END IF;
  IF code.used_at IS NOT NULL THEN
    -- A code exchanged twice: whatever it gave is revoked (RFC 6749 section 4.1.2).
    RETURN QUERY SELECT 'reused', code.player_id, code.scope,
                        api.oauth_revoke_grants(ARRAY[code.grant_id]);
    RETURN;
  END IF;
  IF code.expires_at <= now() THEN
    RETURN QUERY SELECT 'invalid', NULL::uuid, NULL::text, ARRAY[]::bytea[];
    RETURN;
  END IF;
  INSERT INTO api.oauth_grants (grant_id, client_id, player_id, scope)
  VALUES (p_grant, p_client_id, code.player_id, code.scope);
  UPDATE api.oauth_codes SET used_at = now(), grant_id = p_grant
   WHERE code_hash = p_code_hash;
  INSERT INTO api.tokens (token_id, token_hash, player_id, name, scope, grant_id, expires_at)
  VALUES (p_token, p_access, code.player_id, app,
          CASE WHEN 'play' = ANY (string_to_array(code.scope, ' ')) THEN 'play' ELSE 'read' END,
          p_grant, now() + p_access_ttl);
  IF p_refresh IS NOT NULL THEN
    INSERT INTO api.oauth_refresh_tokens (token_hash, grant_id, expires_at)
    VALUES (p_refresh, p_grant, now() + p_refresh_ttl);
  END IF;
  RETURN QUERY SELECT 'ok', code.player_id, code.scope, ARRAY[]::bytea[];
END $$;
"""

REFRESH = """
CREATE FUNCTION api.oauth_refresh(p_refresh bytea, p_client_id text, p_token uuid,
                                  p_access bytea, p_access_ttl interval, p_new_refresh bytea,
                                  p_refresh_ttl interval)
RETURNS TABLE (outcome text, player_id uuid, scope text, revoked bytea[])
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
  old api.oauth_refresh_tokens;
  held api.oauth_grants;
  app text;
  hashes bytea[];
BEGIN
  SELECT * INTO old FROM api.oauth_refresh_tokens r WHERE r.token_hash = p_refresh FOR UPDATE;
  SELECT * INTO held FROM api.oauth_grants g WHERE g.grant_id = old.grant_id FOR UPDATE;
  SELECT c.name INTO app FROM api.oauth_clients c
   WHERE c.client_id = p_client_id AND c.removed_at IS NULL;
  IF old.token_hash IS NULL OR held.client_id IS DISTINCT FROM p_client_id OR app IS NULL
     OR held.revoked_at IS NOT NULL THEN
    RETURN QUERY SELECT 'invalid', NULL::uuid, NULL::text, ARRAY[]::bytea[];
    RETURN;
  END IF;
  IF old.used_at IS NOT NULL THEN
    -- A rotated refresh token presented again: the family is revoked.
    RETURN QUERY SELECT 'reused', held.player_id, held.scope,
                        api.oauth_revoke_grants(ARRAY[held.grant_id]);
    RETURN;
  END IF;
  IF old.expires_at <= now() THEN
    RETURN QUERY SELECT 'invalid', NULL::uuid, NULL::text, ARRAY[]::bytea[];
    RETURN;
  END IF;
  UPDATE api.oauth_refresh_tokens SET used_at = now() WHERE token_hash = p_refresh;
  WITH gone AS (
    UPDATE api.tokens t SET revoked_at = now()
     WHERE t.grant_id = held.grant_id AND t.revoked_at IS NULL
    RETURNING t.token_hash)
  SELECT coalesce(array_agg(token_hash), ARRAY[]::bytea[]) INTO hashes FROM gone;
  INSERT INTO api.tokens (token_id, token_hash, player_id, name, scope, grant_id, expires_at)
  VALUES (p_token, p_access, held.player_id, app,
          CASE WHEN 'play' = ANY (string_to_array(held.scope, ' ')) THEN 'play' ELSE 'read' END,
          held.grant_id, now() + p_access_ttl);
  INSERT INTO api.oauth_refresh_tokens (token_hash, grant_id, expires_at)
  VALUES (p_new_refresh, held.grant_id, now() + p_refresh_ttl);
  RETURN QUERY SELECT 'ok', held.player_id, held.scope, hashes;
END $$;
"""

REVOKE = """
CREATE FUNCTION api.oauth_revoke(p_client_id text, p_hash bytea)
RETURNS bytea[]
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
  family uuid;
BEGIN
  SELECT r.grant_id INTO family FROM api.oauth_refresh_tokens r
    JOIN api.oauth_grants g USING (grant_id)
   WHERE r.token_hash = p_hash AND g.client_id = p_client_id;
  IF family IS NOT NULL THEN
    RETURN api.oauth_revoke_grants(ARRAY[family]);
  END IF;
  RETURN ARRAY(
    WITH gone AS (
      UPDATE api.tokens t SET revoked_at = now()
        FROM api.oauth_grants g
       WHERE t.token_hash = p_hash AND t.revoked_at IS NULL AND g.grant_id = t.grant_id
         AND g.client_id = p_client_id
      RETURNING t.token_hash)
    SELECT token_hash FROM gone);
END $$;
"""

FORGET_APP = """
CREATE FUNCTION api.oauth_forget_app(p_caller bytea, p_client_id text)
RETURNS bytea[]
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
  holder uuid;
  grants uuid[];
BEGIN
  SELECT t.player_id INTO holder FROM api.tokens t
   WHERE t.token_hash = p_caller AND t.revoked_at IS NULL AND t.scope = 'play'
     AND t.grant_id IS NULL;
  IF NOT FOUND THEN
    RAISE EXCEPTION USING ERRCODE = 'P0403', MESSAGE = 'token_refused';
  END IF;
  grants := ARRAY(SELECT g.grant_id FROM api.oauth_grants g
                   WHERE g.player_id = holder AND g.client_id = p_client_id
                     AND g.revoked_at IS NULL);
  IF cardinality(grants) = 0 THEN
    RETURN NULL;
  END IF;
  RETURN api.oauth_revoke_grants(grants);
END $$;
"""

PURGE = """
CREATE FUNCTION api.oauth_purge(p_older interval)
RETURNS int
LANGUAGE sql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
  WITH codes AS (
    DELETE FROM api.oauth_codes WHERE expires_at < now() - p_older RETURNING 1
  ), refreshes AS (
    DELETE FROM api.oauth_refresh_tokens r
     WHERE r.expires_at < now() - p_older
        OR r.grant_id IN (SELECT g.grant_id FROM api.oauth_grants g
                           WHERE g.revoked_at < now() - p_older)
    RETURNING 1)
  SELECT ((SELECT count(*) FROM codes) + (SELECT count(*) FROM refreshes))::int
$$;
"""

FUNCTIONS = (
    "api.oauth_add_client(bytea, text, text, text[], bytea, text), "
    "api.oauth_remove_client(bytea, text), api.oauth_client_secret_ok(text, bytea), "
    "api.oauth_issue_code(bytea, bytea, text, text, text, text, text, interval), "
    "api.oauth_exchange_code(bytea, text, uuid, uuid, bytea, interval, bytea, interval), "
    "api.oauth_refresh(bytea, text, uuid, bytea, interval, bytea, interval), "
    "api.oauth_revoke(text, bytea), api.oauth_forget_app(bytea, text)"
)

GRANTS = f"""
REVOKE ALL ON api.oauth_clients, api.oauth_grants, api.oauth_codes, api.oauth_refresh_tokens
  FROM PUBLIC;
REVOKE ALL ON FUNCTION {FUNCTIONS}, api.oauth_revoke_grants(uuid[]), api.oauth_purge(interval)
  FROM PUBLIC;
-- What the request path reads: the apps (never a secret's hash), codes, grants and refresh
-- tokens by their hashes (of random values it was shown once), to answer and introspect.
GRANT SELECT (client_id, owner_id, name, redirect_uris, public, scope, created_at, removed_at)
  ON api.oauth_clients TO {APP_ROLE};
GRANT SELECT ON api.oauth_grants, api.oauth_codes, api.oauth_refresh_tokens TO {APP_ROLE};
GRANT SELECT (grant_id, expires_at) ON api.tokens TO {APP_ROLE};
GRANT EXECUTE ON FUNCTION {FUNCTIONS} TO {APP_ROLE};
GRANT EXECUTE ON FUNCTION api.oauth_purge(interval) TO {PURGER_ROLE};
"""


def upgrade() -> None:
    op.execute(TABLES)
    for function in (
        ADD_CLIENT, REVOKE_GRANTS, REMOVE_CLIENT, SECRET_OK, ISSUE_CODE, EXCHANGE_CODE, REFRESH,
        REVOKE, FORGET_APP, PURGE,
    ):  # fmt: skip
        op.execute(function)
    op.execute(TAKE_OWNERSHIP)
    op.execute(GRANTS)


def downgrade() -> None:
    op.execute(
        f"""
DROP FUNCTION {FUNCTIONS}, api.oauth_revoke_grants(uuid[]), api.oauth_purge(interval);
ALTER TABLE api.tokens DROP COLUMN grant_id, DROP COLUMN expires_at;
DROP TABLE api.oauth_refresh_tokens, api.oauth_codes, api.oauth_grants, api.oauth_clients;
"""
    )
