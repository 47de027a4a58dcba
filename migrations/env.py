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
with context.begin_transaction():
    context.run_migrations()
