"""Roles per process kind, each with only what it needs (issue 21, item 1).

Four login roles, made here if missing (cluster-wide), none a member of any role, none with a
privilege beyond those granted below (docs/operations.md has the table):

- ``preferans_app``, the API: reads the log, the lobby, the players, the read models; writes
  the log only through ``es.command`` / ``es.append`` (0005, 0016); registers players; changes
  tokens only through the functions below; leases due tables (the steward); counts requests.
  It no longer writes a read model, a checkpoint or a snapshot, nor purges anything.
- ``preferans_bots``, the bot worker: reads the log and the lobby, commands through
  ``es.command``, registers the service's bots, leases the bots' tables. No tokens, no
  notifications, no read models.
- ``preferans_projections``, the projections, the analyst and the snapshots' writer: reads the
  log, writes the read models (``rm.*``), their checkpoints and the snapshots (through
  ``es.save_snapshots``; deletes the ones its audit finds wrong). Nobody else writes them.
- ``preferans_purger``: runs ``es.purge_idempotency_keys`` and ``api.purge_notifications``.

Tokens change only through functions, all owned by the owner (SECURITY DEFINER):

- ``api.register_player`` (0015): a new player and his first token, in one call.
- ``api.add_token``: a new token for the player whose unrevoked token calls; ``play`` only
  from a ``play`` token; at most 50 unrevoked per player.
- ``api.touch_token``: a token's last use, moved forward at most once a minute.
- ``api.revoke_token``: one of the calling token's player's tokens revoked (once; never
  un-revoked).

A token's scope, player and revocation are never updated otherwise: no role may UPDATE or
INSERT ``api.tokens``.

Revision ID: 0017_roles_per_process
Revises: 0016_log_refuses
Create Date: 2026-12-04
"""

from alembic import op

from migrations import (
    APP_ROLE,
    BOTS_ROLE,
    PROJECTIONS_ROLE,
    PURGER_ROLE,
    SERVICE_ROLES,
    TAKE_OWNERSHIP,
)

revision = "0017_roles_per_process"
down_revision = "0016_log_refuses"
branch_labels = None
depends_on = None

APPEND_ARGS = "text, text, bigint, uuid[], text[], smallint[], jsonb[], jsonb[]"
COMMAND_ARGS = (
    "text, text, bigint, uuid[], text[], smallint[], jsonb[], jsonb[], text, text, bytea, "
    "interval, jsonb, jsonb"
)
COMMANDS_ARGS = (
    "text[], text[], bigint[], int[], uuid[], text[], smallint[], jsonb[], jsonb[], "
    "text[], text[], bytea[], interval[], jsonb[], jsonb[]"
)
HASH_ARGS = "bytea, text, bigint, uuid, text, smallint, bytea, jsonb"
SNAPSHOT_ARGS = "text[], text, bigint[], uuid[], bytea[]"
TOKEN_FUNCTIONS = (
    "api.add_token(bytea, uuid, bytea, text, text), api.touch_token(bytea), "
    "api.revoke_token(bytea, uuid)"
)
REGISTER_ARGS = "uuid, text, text, text, bytea, bytea, interval, uuid, bytea, text, text"

ROLES = "\n".join(
    f"""
DO $$
BEGIN
  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '{role}') THEN
    BEGIN
      CREATE ROLE {role} NOLOGIN;
    EXCEPTION WHEN duplicate_object OR unique_violation THEN
      NULL;  -- a concurrent migration of another database made it
    END;
  END IF;
END $$;
ALTER ROLE {role} LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS NOINHERIT;
"""
    for role in (BOTS_ROLE, PROJECTIONS_ROLE, PURGER_ROLE)
)

TOKENS = """
-- Another token for the player of the calling token (p_caller, its sha256). A read token makes
-- only read tokens. Null when he holds 50 unrevoked tokens.
CREATE FUNCTION api.add_token(p_caller bytea, p_id uuid, p_hash bytea, p_name text,
                              p_scope text)
RETURNS timestamptz
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
  holder uuid;
  held text;
  created timestamptz;
BEGIN
  SELECT t.player_id, t.scope INTO holder, held
    FROM api.tokens t WHERE t.token_hash = p_caller AND t.revoked_at IS NULL;
  IF NOT FOUND THEN
    RAISE EXCEPTION USING ERRCODE = 'P0401', MESSAGE = 'token_revoked';
  END IF;
  IF p_scope <> 'read' AND held <> 'play' THEN
    RAISE EXCEPTION USING ERRCODE = 'P0403', MESSAGE = 'token_scope_above_the_callers';
  END IF;
  INSERT INTO api.tokens (token_id, token_hash, player_id, name, scope)
  SELECT p_id, p_hash, holder, p_name, p_scope
   WHERE (SELECT count(*) FROM api.tokens WHERE player_id = holder AND revoked_at IS NULL) < 50
  RETURNING created_at INTO created;
  RETURN created;
END $$;

-- A token's last use: now, at most once a minute.
CREATE FUNCTION api.touch_token(p_hash bytea)
RETURNS void
LANGUAGE sql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
  UPDATE api.tokens SET last_used_at = now()
   WHERE token_hash = p_hash
     AND (last_used_at IS NULL OR last_used_at < now() - interval '1 minute')
$$;

-- One of the calling token's player's tokens revoked, once (its sha256); null if he has no
-- such unrevoked token (or the calling token is revoked).
CREATE FUNCTION api.revoke_token(p_caller bytea, p_token uuid)
RETURNS bytea
LANGUAGE sql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
  UPDATE api.tokens t SET revoked_at = now()
   WHERE t.token_id = p_token AND t.revoked_at IS NULL
     AND t.player_id = (SELECT c.player_id FROM api.tokens c
                         WHERE c.token_hash = p_caller AND c.revoked_at IS NULL)
  RETURNING t.token_hash
$$;
"""

RM_TABLES = """
DO $$
DECLARE
  item record;
BEGIN
  FOR item IN SELECT c.relname FROM pg_class c
               WHERE c.relnamespace = 'rm'::regnamespace AND c.relkind = 'r' LOOP
    EXECUTE format('GRANT SELECT ON rm.%I TO {app}', item.relname);
    EXECUTE format('GRANT SELECT, INSERT, UPDATE, DELETE, TRUNCATE ON rm.%I TO {projections}',
                   item.relname);
  END LOOP;
END $$;
"""

GRANTS = f"""
-- Everything of every service role taken back first: then each gets exactly its list.
REVOKE ALL ON ALL TABLES IN SCHEMA es, api, rm FROM PUBLIC, {", ".join(SERVICE_ROLES)};
REVOKE ALL ON ALL FUNCTIONS IN SCHEMA es, api, rm FROM PUBLIC, {", ".join(SERVICE_ROLES)};
REVOKE ALL ON SCHEMA es, api, rm FROM PUBLIC, {", ".join(SERVICE_ROLES)};
REVOKE ALL ON public.alembic_version FROM PUBLIC, {", ".join(SERVICE_ROLES)};

-- The API.
GRANT USAGE ON SCHEMA es, api, rm TO {APP_ROLE};
GRANT SELECT ON public.alembic_version TO {APP_ROLE};
GRANT SELECT ON es.events, es.streams, es.snapshots, es.projection_checkpoints TO {APP_ROLE};
GRANT SELECT ON api.games, api.players, api.tokens, api.notifications, api.notification_heads
  TO {APP_ROLE};
GRANT INSERT ON api.players TO {APP_ROLE};
GRANT SELECT, INSERT ON api.player_names TO {APP_ROLE};
GRANT UPDATE (due_at, bot_due_at) ON api.games TO {APP_ROLE};
GRANT SELECT, INSERT, UPDATE, DELETE ON api.rate_counts TO {APP_ROLE};
GRANT EXECUTE ON FUNCTION es.append({APPEND_ARGS}), es.command({COMMAND_ARGS}),
  es.commands({COMMANDS_ARGS}), es.event_hash({HASH_ARGS}), api.deal_source(uuid),
  api.invite_game(bytea), api.create_invite(bytea, uuid, uuid, uuid, interval),
  api.register_player({REGISTER_ARGS}), {TOKEN_FUNCTIONS} TO {APP_ROLE};

-- The bot worker.
GRANT USAGE ON SCHEMA es, api TO {BOTS_ROLE};
GRANT SELECT ON public.alembic_version TO {BOTS_ROLE};
GRANT SELECT ON es.events, es.streams, es.snapshots TO {BOTS_ROLE};
GRANT SELECT ON api.games, api.players TO {BOTS_ROLE};
GRANT INSERT ON api.players TO {BOTS_ROLE};
GRANT SELECT, INSERT ON api.player_names TO {BOTS_ROLE};  -- the bots' names, at their registration
GRANT UPDATE (due_at, bot_due_at) ON api.games TO {BOTS_ROLE};
GRANT EXECUTE ON FUNCTION es.command({COMMAND_ARGS}), es.commands({COMMANDS_ARGS}),
  es.event_hash({HASH_ARGS}), api.deal_source(uuid) TO {BOTS_ROLE};

-- The projections, the analyst and the snapshots' writer.
GRANT USAGE ON SCHEMA es, api, rm TO {PROJECTIONS_ROLE};
GRANT SELECT ON public.alembic_version TO {PROJECTIONS_ROLE};
GRANT SELECT ON es.events, es.streams TO {PROJECTIONS_ROLE};
GRANT SELECT, INSERT, UPDATE, DELETE ON es.projection_checkpoints TO {PROJECTIONS_ROLE};
GRANT SELECT, DELETE ON es.snapshots TO {PROJECTIONS_ROLE};
GRANT EXECUTE ON FUNCTION es.save_snapshots({SNAPSHOT_ARGS}) TO {PROJECTIONS_ROLE};
{RM_TABLES.format(app=APP_ROLE, projections=PROJECTIONS_ROLE)}
-- The purger.
GRANT USAGE ON SCHEMA es, api TO {PURGER_ROLE};
GRANT EXECUTE ON FUNCTION es.purge_idempotency_keys(int), api.purge_notifications(interval, int),
  api.purge_registrations(int) TO {PURGER_ROLE};
"""

# The grants of 0016's head, for the downgrade.
GRANTS_BEFORE = f"""
REVOKE ALL ON ALL TABLES IN SCHEMA es, api, rm FROM {BOTS_ROLE}, {PROJECTIONS_ROLE}, {PURGER_ROLE};
REVOKE ALL ON ALL FUNCTIONS IN SCHEMA es, api, rm
  FROM {BOTS_ROLE}, {PROJECTIONS_ROLE}, {PURGER_ROLE};
REVOKE ALL ON SCHEMA es, api, rm FROM {BOTS_ROLE}, {PROJECTIONS_ROLE}, {PURGER_ROLE};
REVOKE ALL ON public.alembic_version FROM {BOTS_ROLE}, {PROJECTIONS_ROLE}, {PURGER_ROLE};
GRANT SELECT, INSERT, UPDATE ON api.tokens TO {APP_ROLE};
GRANT SELECT, INSERT, UPDATE, DELETE ON es.projection_checkpoints TO {APP_ROLE};
GRANT EXECUTE ON FUNCTION es.save_snapshots({SNAPSHOT_ARGS}), es.purge_idempotency_keys(int),
  api.purge_notifications(interval, int), api.purge_registrations(int) TO {APP_ROLE};
DO $$
DECLARE
  item record;
BEGIN
  FOR item IN SELECT c.relname FROM pg_class c
               WHERE c.relnamespace = 'rm'::regnamespace AND c.relkind = 'r' LOOP
    IF item.relname = 'projections' THEN
      EXECUTE format('GRANT SELECT, INSERT, UPDATE ON rm.%I TO {APP_ROLE}', item.relname);
    ELSE
      EXECUTE format('GRANT SELECT, INSERT, UPDATE, DELETE, TRUNCATE ON rm.%I TO {APP_ROLE}',
                     item.relname);
    END IF;
  END LOOP;
END $$;
"""


def upgrade() -> None:
    op.execute(ROLES)
    op.execute(TOKENS)
    op.execute(TAKE_OWNERSHIP)
    op.execute(GRANTS)


def downgrade() -> None:
    op.execute(GRANTS_BEFORE)
    op.execute(f"DROP FUNCTION {TOKEN_FUNCTIONS}")
