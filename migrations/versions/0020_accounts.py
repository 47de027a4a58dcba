"""Accounts: a login and a password, so that a player can sign in from any device (issue 23).

A player (a name and his tokens, 0002) may add an account: a unique ``login`` and a password.
The password itself never reaches the database. The service derives a *proof* from it
(argon2id with the account's salt and cost, `service.players.passwords`), and the database
keeps only the proof's sha256, the *verifier*, in ``api.accounts``, which no service role may
read. Signing in is one call of ``api.sign_in``: it compares the proof with the verifier and,
only if they match, makes the new device's token. So the request path cannot make a token for
anyone without his password, even compromised: it may read an account's salt and cost
(``api.password_salt``), never its verifier.

- ``api.password_salt(login)``: the salt and cost to derive the proof with; for a login no
  account holds, a salt derived from the login and a secret of the database's own
  (``api.account_secret``), so that whether a login exists cannot be told from it.
- ``api.set_account(caller, login, current, salt, cost, verifier, codes)``: the calling
  token's player sets or changes his login and password (the current one's proof is required
  once he has one) and, with ``codes``, replaces his recovery codes (their sha256).
- ``api.sign_in(login, proof, address, token …)``: a new token on a matching proof; failures are
  counted per login and per address (``api.sign_in_failures``) and, past a limit within a
  window, lock that login or address out for a while: ``locked`` with the seconds left. A
  wrong password and an unknown login fail the same way.
- ``api.recover(login, code, address, salt, cost, verifier, token …)``: a recovery code, once,
  sets a new password and signs in.

Passkeys (WebAuthn): ``api.passkeys`` holds each credential's public key and signature count,
``api.webauthn_challenges`` the challenges handed out (five minutes, each used once). The
signature of an assertion is checked by the service (py_webauthn): PostgreSQL cannot verify an
ECDSA or EdDSA signature. So the database checks all it can — the challenge is its own, fresh,
unused and of that purpose; the credential exists; the signature count moved forward — and
``api.passkey_sign_in`` makes the token; a compromised request path could sign in as a passkey's
holder, which it cannot do with a password (docs/accounts.md says so).

Revision ID: 0020_accounts
Revises: 0019_table_chat
Create Date: 2026-12-02
"""

from alembic import op

from migrations import APP_ROLE, PURGER_ROLE, TAKE_OWNERSHIP

revision = "0020_accounts"
down_revision = "0019_table_chat"
branch_labels = None
depends_on = None

TABLES = """
CREATE TABLE api.accounts (
  player_id uuid PRIMARY KEY REFERENCES api.players (player_id),
  login text NOT NULL UNIQUE CHECK (login ~ '^[a-z0-9][a-z0-9_.-]{2,31}$'),
  salt bytea CHECK (length(salt) = 16),
  cost jsonb CHECK (cost IS NULL OR jsonb_typeof(cost) = 'object'),
  verifier bytea CHECK (length(verifier) = 32),
  created_at timestamptz NOT NULL DEFAULT now(),
  password_set_at timestamptz,
  CHECK ((salt IS NULL) = (verifier IS NULL) AND (salt IS NULL) = (cost IS NULL))
);

CREATE TABLE api.recovery_codes (
  code_hash bytea PRIMARY KEY CHECK (length(code_hash) = 32),
  player_id uuid NOT NULL REFERENCES api.accounts (player_id),
  used_at timestamptz
);
CREATE INDEX recovery_codes_player ON api.recovery_codes (player_id);

-- Failed sign-ins by subject ('login:<login>' or 'address:<address>'), within a window.
CREATE TABLE api.sign_in_failures (
  subject text PRIMARY KEY,
  failures int NOT NULL,
  since timestamptz NOT NULL,
  locked_until timestamptz
);

-- The database's own secret: the salts of logins no account holds are derived from it.
CREATE TABLE api.account_secret (
  only_one boolean PRIMARY KEY DEFAULT true CHECK (only_one),
  secret bytea NOT NULL
);
INSERT INTO api.account_secret (secret)
VALUES (sha256(convert_to(gen_random_uuid()::text || gen_random_uuid()::text, 'UTF8')));

CREATE TABLE api.passkeys (
  credential_id bytea PRIMARY KEY CHECK (length(credential_id) BETWEEN 16 AND 1023),
  player_id uuid NOT NULL REFERENCES api.players (player_id),
  public_key bytea NOT NULL CHECK (length(public_key) <= 2048),
  sign_count bigint NOT NULL CHECK (sign_count >= 0),
  name text NOT NULL CHECK (length(name) BETWEEN 1 AND 64),
  created_at timestamptz NOT NULL DEFAULT now(),
  last_used_at timestamptz
);
CREATE INDEX passkeys_player ON api.passkeys (player_id);

CREATE TABLE api.webauthn_challenges (
  challenge_id uuid PRIMARY KEY,
  challenge bytea NOT NULL CHECK (length(challenge) = 32),
  purpose text NOT NULL CHECK (purpose IN ('register', 'sign_in')),
  player_id uuid REFERENCES api.players (player_id),
  expires_at timestamptz NOT NULL,
  used_at timestamptz,
  CHECK ((purpose = 'register') = (player_id IS NOT NULL))
);
CREATE INDEX webauthn_challenges_expiry ON api.webauthn_challenges (expires_at);
"""

PASSWORD_SALT = """
CREATE FUNCTION api.password_salt(p_login text)
RETURNS TABLE (salt bytea, cost jsonb)
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
  SELECT coalesce(a.salt, substr(sha256(s.secret || convert_to(p_login, 'UTF8')), 1, 16)),
         coalesce(a.cost, '{"t": 2, "m": 19456, "p": 1}'::jsonb)
    FROM api.account_secret s
    LEFT JOIN api.accounts a ON a.login = p_login AND a.verifier IS NOT NULL
$$;
"""

SET_ACCOUNT = """
CREATE FUNCTION api.set_account(p_caller bytea, p_login text, p_current bytea, p_salt bytea,
                                p_cost jsonb, p_verifier bytea, p_codes bytea[])
RETURNS text
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
  holder uuid;
  held text;
  had bytea;
  found_account boolean;
BEGIN
  SELECT t.player_id, t.scope INTO holder, held
    FROM api.tokens t WHERE t.token_hash = p_caller AND t.revoked_at IS NULL;
  IF NOT FOUND THEN
    RAISE EXCEPTION USING ERRCODE = 'P0401', MESSAGE = 'token_revoked';
  END IF;
  IF held <> 'play' THEN
    RAISE EXCEPTION USING ERRCODE = 'P0403', MESSAGE = 'insufficient_scope';
  END IF;
  SELECT a.verifier, true INTO had, found_account FROM api.accounts a WHERE a.player_id = holder
     FOR UPDATE;
  IF had IS NOT NULL AND (p_current IS NULL OR sha256(p_current) <> had) THEN
    RETURN 'wrong_password';
  END IF;
  IF found_account THEN
    UPDATE api.accounts SET
      login = coalesce(p_login, login),
      salt = CASE WHEN p_verifier IS NULL THEN salt ELSE p_salt END,
      cost = CASE WHEN p_verifier IS NULL THEN cost ELSE p_cost END,
      verifier = coalesce(p_verifier, verifier),
      password_set_at = CASE WHEN p_verifier IS NULL THEN password_set_at ELSE now() END
     WHERE player_id = holder;
  ELSIF p_login IS NULL THEN
    RETURN 'login_needed';
  ELSE
    INSERT INTO api.accounts (player_id, login, salt, cost, verifier, password_set_at)
    VALUES (holder, p_login, p_salt, p_cost, p_verifier,
            CASE WHEN p_verifier IS NULL THEN NULL ELSE now() END);
  END IF;
  IF p_codes IS NOT NULL THEN
    DELETE FROM api.recovery_codes WHERE player_id = holder;
    INSERT INTO api.recovery_codes (code_hash, player_id)
    SELECT c, holder FROM unnest(p_codes) AS c;
  END IF;
  RETURN 'ok';
END $$;
"""

FAILED = """
CREATE FUNCTION api.sign_in_failed(p_subjects text[], p_limits int[], p_window interval,
                                   p_lockout interval)
RETURNS void
LANGUAGE sql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
  INSERT INTO api.sign_in_failures AS f (subject, failures, since, locked_until)
  SELECT s, 1, now(), CASE WHEN l <= 1 THEN now() + p_lockout END
    FROM unnest(p_subjects, p_limits) AS u(s, l)
  ON CONFLICT (subject) DO UPDATE SET
    failures = CASE WHEN f.since < now() - p_window THEN 1 ELSE f.failures + 1 END,
    since = CASE WHEN f.since < now() - p_window THEN now() ELSE f.since END,
    locked_until = CASE
      WHEN (CASE WHEN f.since < now() - p_window THEN 1 ELSE f.failures + 1 END)
           >= (SELECT l FROM unnest(p_subjects, p_limits) AS u(s, l) WHERE s = f.subject)
      THEN now() + p_lockout
      ELSE f.locked_until END
$$;
"""

SIGN_IN = """
CREATE FUNCTION api.sign_in(p_login text, p_proof bytea, p_address text, p_limits int[],
                            p_window interval, p_lockout interval, p_token uuid,
                            p_hash bytea, p_device text)
RETURNS TABLE (outcome text, player_id uuid, created_at timestamptz, retry_after int)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
  subjects text[] := ARRAY['login:' || p_login, 'address:' || p_address];
  locked timestamptz;
  holder uuid;
  made timestamptz;
BEGIN
  SELECT max(f.locked_until) INTO locked FROM api.sign_in_failures f
   WHERE f.subject = ANY (subjects) AND f.locked_until > now();
  IF locked IS NOT NULL THEN
    RETURN QUERY SELECT 'locked', NULL::uuid, NULL::timestamptz,
                        greatest(1, ceil(extract(epoch FROM locked - now())))::int;
    RETURN;
  END IF;
  SELECT a.player_id INTO holder FROM api.accounts a
   WHERE a.login = p_login AND a.verifier = sha256(p_proof);
  IF holder IS NULL THEN
    PERFORM api.sign_in_failed(subjects, p_limits, p_window, p_lockout);
    RETURN QUERY SELECT 'failed', NULL::uuid, NULL::timestamptz, NULL::int;
    RETURN;
  END IF;
  DELETE FROM api.sign_in_failures f WHERE f.subject = subjects[1];
  INSERT INTO api.tokens (token_id, token_hash, player_id, name, scope)
  SELECT p_token, p_hash, holder, p_device, 'play'
   WHERE (SELECT count(*) FROM api.tokens t
           WHERE t.player_id = holder AND t.revoked_at IS NULL) < 50
  RETURNING tokens.created_at INTO made;
  IF made IS NULL THEN
    RETURN QUERY SELECT 'too_many_tokens', holder, NULL::timestamptz, NULL::int;
    RETURN;
  END IF;
  RETURN QUERY SELECT 'ok', holder, made, NULL::int;
END $$;
"""

RECOVER = """
CREATE FUNCTION api.recover(p_login text, p_code bytea, p_address text, p_limits int[],
                            p_window interval, p_lockout interval, p_salt bytea, p_cost jsonb,
                            p_verifier bytea, p_token uuid, p_hash bytea, p_device text)
RETURNS TABLE (outcome text, player_id uuid, created_at timestamptz, retry_after int,
               codes_left int)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
  subjects text[] := ARRAY['login:' || p_login, 'address:' || p_address];
  locked timestamptz;
  holder uuid;
  made timestamptz;
BEGIN
  SELECT max(f.locked_until) INTO locked FROM api.sign_in_failures f
   WHERE f.subject = ANY (subjects) AND f.locked_until > now();
  IF locked IS NOT NULL THEN
    RETURN QUERY SELECT 'locked', NULL::uuid, NULL::timestamptz,
                        greatest(1, ceil(extract(epoch FROM locked - now())))::int, NULL::int;
    RETURN;
  END IF;
  UPDATE api.recovery_codes r SET used_at = now()
    FROM api.accounts a
   WHERE r.code_hash = sha256(p_code) AND r.used_at IS NULL
     AND a.player_id = r.player_id AND a.login = p_login
  RETURNING r.player_id INTO holder;
  IF holder IS NULL THEN
    PERFORM api.sign_in_failed(subjects, p_limits, p_window, p_lockout);
    RETURN QUERY SELECT 'failed', NULL::uuid, NULL::timestamptz, NULL::int, NULL::int;
    RETURN;
  END IF;
  DELETE FROM api.sign_in_failures f WHERE f.subject = subjects[1];
  UPDATE api.accounts SET salt = p_salt, cost = p_cost, verifier = p_verifier,
                          password_set_at = now()
   WHERE accounts.player_id = holder;
  INSERT INTO api.tokens (token_id, token_hash, player_id, name, scope)
  SELECT p_token, p_hash, holder, p_device, 'play'
   WHERE (SELECT count(*) FROM api.tokens t
           WHERE t.player_id = holder AND t.revoked_at IS NULL) < 50
  RETURNING tokens.created_at INTO made;
  RETURN QUERY SELECT CASE WHEN made IS NULL THEN 'too_many_tokens' ELSE 'ok' END, holder, made,
                      NULL::int,
                      (SELECT count(*)::int FROM api.recovery_codes r
                        WHERE r.player_id = holder AND r.used_at IS NULL);
END $$;
"""

PURGE = """
CREATE FUNCTION api.purge_sign_in_failures(p_older interval)
RETURNS int
LANGUAGE sql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
  WITH gone AS (
    DELETE FROM api.sign_in_failures
     WHERE since < now() - p_older AND (locked_until IS NULL OR locked_until < now())
    RETURNING 1)
  SELECT count(*)::int FROM gone
$$;
"""

CHALLENGE = """
CREATE FUNCTION api.webauthn_challenge(p_caller bytea, p_purpose text, p_id uuid,
                                       p_challenge bytea)
RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
  holder uuid;
BEGIN
  IF p_purpose = 'register' THEN
    SELECT t.player_id INTO holder FROM api.tokens t
     WHERE t.token_hash = p_caller AND t.revoked_at IS NULL AND t.scope = 'play';
    IF NOT FOUND THEN
      RAISE EXCEPTION USING ERRCODE = 'P0401', MESSAGE = 'token_refused';
    END IF;
  END IF;
  INSERT INTO api.webauthn_challenges (challenge_id, challenge, purpose, player_id, expires_at)
  VALUES (p_id, p_challenge, p_purpose, holder, now() + interval '5 minutes');
END $$;
"""

ADD_PASSKEY = """
CREATE FUNCTION api.add_passkey(p_caller bytea, p_challenge uuid, p_credential bytea,
                                p_public_key bytea, p_sign_count bigint, p_name text)
RETURNS text
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
  holder uuid;
BEGIN
  SELECT t.player_id INTO holder FROM api.tokens t
   WHERE t.token_hash = p_caller AND t.revoked_at IS NULL AND t.scope = 'play';
  IF NOT FOUND THEN
    RAISE EXCEPTION USING ERRCODE = 'P0401', MESSAGE = 'token_refused';
  END IF;
  UPDATE api.webauthn_challenges c SET used_at = now()
   WHERE c.challenge_id = p_challenge AND c.purpose = 'register' AND c.player_id = holder
     AND c.used_at IS NULL AND c.expires_at > now();
  IF NOT FOUND THEN
    RETURN 'challenge_refused';
  END IF;
  IF (SELECT count(*) FROM api.passkeys WHERE player_id = holder) >= 20 THEN
    RETURN 'too_many_passkeys';
  END IF;
  INSERT INTO api.passkeys (credential_id, player_id, public_key, sign_count, name)
  VALUES (p_credential, holder, p_public_key, p_sign_count, p_name)
  ON CONFLICT (credential_id) DO NOTHING;
  RETURN CASE WHEN FOUND THEN 'ok' ELSE 'credential_known' END;
END $$;
"""

REMOVE_PASSKEY = """
CREATE FUNCTION api.remove_passkey(p_caller bytea, p_credential bytea)
RETURNS boolean
LANGUAGE sql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
  WITH gone AS (
    DELETE FROM api.passkeys k
     WHERE k.credential_id = p_credential
       AND k.player_id = (SELECT t.player_id FROM api.tokens t
                           WHERE t.token_hash = p_caller AND t.revoked_at IS NULL
                             AND t.scope = 'play')
    RETURNING 1)
  SELECT EXISTS (SELECT FROM gone)
$$;
"""

PASSKEY_SIGN_IN = """
CREATE FUNCTION api.passkey_sign_in(p_challenge uuid, p_credential bytea, p_sign_count bigint,
                                    p_token uuid, p_hash bytea, p_device text)
RETURNS TABLE (outcome text, player_id uuid, created_at timestamptz)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
  holder uuid;
  counted bigint;
  made timestamptz;
BEGIN
  UPDATE api.webauthn_challenges c SET used_at = now()
   WHERE c.challenge_id = p_challenge AND c.purpose = 'sign_in' AND c.used_at IS NULL
     AND c.expires_at > now();
  IF NOT FOUND THEN
    RETURN QUERY SELECT 'challenge_refused', NULL::uuid, NULL::timestamptz;
    RETURN;
  END IF;
  SELECT k.player_id, k.sign_count INTO holder, counted FROM api.passkeys k
   WHERE k.credential_id = p_credential FOR UPDATE;
  -- A counter that did not move forward (both zero: an authenticator that keeps none) is a
  -- cloned authenticator's sign.
  IF holder IS NULL OR (p_sign_count <= counted AND NOT (p_sign_count = 0 AND counted = 0)) THEN
    RETURN QUERY SELECT 'failed', NULL::uuid, NULL::timestamptz;
    RETURN;
  END IF;
  UPDATE api.passkeys SET sign_count = p_sign_count, last_used_at = now()
   WHERE credential_id = p_credential;
  INSERT INTO api.tokens (token_id, token_hash, player_id, name, scope)
  SELECT p_token, p_hash, holder, p_device, 'play'
   WHERE (SELECT count(*) FROM api.tokens t
           WHERE t.player_id = holder AND t.revoked_at IS NULL) < 50
  RETURNING tokens.created_at INTO made;
  RETURN QUERY SELECT CASE WHEN made IS NULL THEN 'too_many_tokens' ELSE 'ok' END, holder, made;
END $$;
"""

PURGE_CHALLENGES = """
CREATE FUNCTION api.purge_webauthn_challenges()
RETURNS int
LANGUAGE sql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
  WITH gone AS (
    DELETE FROM api.webauthn_challenges WHERE expires_at < now() - interval '1 hour'
    RETURNING 1)
  SELECT count(*)::int FROM gone
$$;
"""

SIGN_IN_ARGS = "text, bytea, text, int[], interval, interval, uuid, bytea, text"
RECOVER_ARGS = (
    "text, bytea, text, int[], interval, interval, bytea, jsonb, bytea, uuid, bytea, text"
)
SET_ACCOUNT_ARGS = "bytea, text, bytea, bytea, jsonb, bytea, bytea[]"
PASSKEY_FUNCTIONS = (
    "api.webauthn_challenge(bytea, text, uuid, bytea), "
    "api.add_passkey(bytea, uuid, bytea, bytea, bigint, text), "
    "api.remove_passkey(bytea, bytea), "
    "api.passkey_sign_in(uuid, bytea, bigint, uuid, bytea, text)"
)

GRANTS = f"""
REVOKE ALL ON api.accounts, api.recovery_codes, api.sign_in_failures, api.account_secret,
  api.passkeys, api.webauthn_challenges FROM PUBLIC;
REVOKE ALL ON FUNCTION {PASSKEY_FUNCTIONS}, api.purge_webauthn_challenges() FROM PUBLIC;
REVOKE ALL ON FUNCTION api.password_salt(text), api.set_account({SET_ACCOUNT_ARGS}),
  api.sign_in_failed(text[], int[], interval, interval), api.sign_in({SIGN_IN_ARGS}),
  api.recover({RECOVER_ARGS}), api.purge_sign_in_failures(interval) FROM PUBLIC;
-- What the request path may know of an account: its login, whether a password is set, when,
-- and how many recovery codes are left; never a verifier, a code's hash or the secret.
GRANT SELECT (player_id, login, created_at, password_set_at) ON api.accounts TO {APP_ROLE};
GRANT SELECT (player_id, used_at) ON api.recovery_codes TO {APP_ROLE};
GRANT EXECUTE ON FUNCTION api.password_salt(text), api.set_account({SET_ACCOUNT_ARGS}),
  api.sign_in({SIGN_IN_ARGS}), api.recover({RECOVER_ARGS}) TO {APP_ROLE};
-- A passkey's public key and counter (to check an assertion) and the challenges' bytes.
GRANT SELECT (credential_id, player_id, public_key, sign_count, name, created_at, last_used_at)
  ON api.passkeys TO {APP_ROLE};
GRANT SELECT (challenge_id, challenge, purpose, player_id, expires_at, used_at)
  ON api.webauthn_challenges TO {APP_ROLE};
GRANT EXECUTE ON FUNCTION {PASSKEY_FUNCTIONS} TO {APP_ROLE};
GRANT EXECUTE ON FUNCTION api.purge_sign_in_failures(interval), api.purge_webauthn_challenges()
  TO {PURGER_ROLE};
"""


def upgrade() -> None:
    op.execute(TABLES)
    for function in (
        PASSWORD_SALT, SET_ACCOUNT, FAILED, SIGN_IN, RECOVER, PURGE, CHALLENGE, ADD_PASSKEY,
        REMOVE_PASSKEY, PASSKEY_SIGN_IN, PURGE_CHALLENGES,
    ):  # fmt: skip
        op.execute(function)
    op.execute(TAKE_OWNERSHIP)
    op.execute(GRANTS)


def downgrade() -> None:
    op.execute(
        f"""
DROP FUNCTION {PASSKEY_FUNCTIONS}, api.purge_webauthn_challenges();
DROP TABLE api.webauthn_challenges, api.passkeys;
DROP FUNCTION api.purge_sign_in_failures(interval), api.recover({RECOVER_ARGS}),
  api.sign_in({SIGN_IN_ARGS}), api.sign_in_failed(text[], int[], interval, interval),
  api.set_account({SET_ACCOUNT_ARGS}), api.password_salt(text);
DROP TABLE api.account_secret, api.sign_in_failures, api.recovery_codes, api.accounts;
"""
    )
