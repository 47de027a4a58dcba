"""Alembic environment: migrate over the connection `service.platform.database.upgrade` hands
in."""

from alembic import context

connection = context.config.attributes.get("connection")
if connection is None or context.is_offline_mode():
    raise RuntimeError(
        "run migrations with `preferans db upgrade` (service.platform.database.upgrade)"
    )

# transactional_ddl: each upgrade is one transaction, so a failed one leaves nothing behind.
context.configure(connection=connection, target_metadata=None, transactional_ddl=True)
# The login roles are the server's, not the database's: two databases migrated at once (tests,
# or two services on one server) would update the same pg_authid rows ("tuple concurrently
# updated"). A superuser takes the catalog's lock for the migration's transaction, so those
# runs queue; logins (which only read it) do not wait. The advisory lock of `upgrade` is per
# database and cannot do this.
_ROLES_QUEUE = """
DO $$
BEGIN
  IF (SELECT rolsuper FROM pg_roles WHERE rolname = current_user) THEN
    LOCK TABLE pg_catalog.pg_authid IN SHARE ROW EXCLUSIVE MODE;
  END IF;
END $$"""

with context.begin_transaction():
    connection.exec_driver_sql(_ROLES_QUEUE)
    context.run_migrations()
