"""Alembic migrations of the service's schema, shipped as a package.

Run them with ``preferans db upgrade`` or `service.platform.database.upgrade`; both build the
alembic configuration in code, so no ``alembic.ini`` is needed. The migrations run as an
administrator (a superuser, or a role with CREATEROLE that owns the database), hand every object to
the ``preferans_owner`` role (`TAKE_OWNERSHIP`, at the end of each migration that creates one) and
grant each login role of `SERVICE_ROLES` only what its process needs (0017_roles_per_process).
"""

APP_ROLE = "preferans_app"
"""The request path's login role: reads the log, appends only through the owner's functions."""

BOTS_ROLE = "preferans_bots"
"""The bot worker's login role: reads the log and the lobby, commands through es.command."""

PROJECTIONS_ROLE = "preferans_projections"
"""The projections' and the analyst's login role: the only writer of the read models, their
checkpoints and the snapshots (migration 0017)."""

PURGER_ROLE = "preferans_purger"
"""The purger's login role: deletes expired keys and old notifications, nothing else."""

SERVICE_ROLES = (APP_ROLE, BOTS_ROLE, PROJECTIONS_ROLE, PURGER_ROLE)
"""Every login role of the service: one per process kind, each with only what it needs."""

OWNER_ROLE = "preferans_owner"
"""Owns every schema, table and function of the service; nobody logs in as it."""

TAKE_OWNERSHIP = f"""
DO $$
DECLARE
  item record;
BEGIN
  FOR item IN SELECT nspname FROM pg_namespace WHERE nspname IN ('es', 'api', 'rm') LOOP
    EXECUTE format('ALTER SCHEMA %I OWNER TO {OWNER_ROLE}', item.nspname);
  END LOOP;
  FOR item IN
    SELECT n.nspname, c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE n.nspname IN ('es', 'api', 'rm') AND c.relkind IN ('r', 'p', 'v', 'm')
  LOOP
    EXECUTE format('ALTER TABLE %I.%I OWNER TO {OWNER_ROLE}', item.nspname, item.relname);
  END LOOP;
  FOR item IN
    SELECT p.oid::regprocedure AS fn FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
     WHERE n.nspname IN ('es', 'api', 'rm')
  LOOP
    EXECUTE format('ALTER FUNCTION %s OWNER TO {OWNER_ROLE}', item.fn);
  END LOOP;
END $$;
"""
"""Hand every schema, table and function of the service to `OWNER_ROLE` (idempotent)."""
