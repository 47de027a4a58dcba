"""Alembic migrations of the service's schema, shipped as a package.

Run them with ``preferans db upgrade`` or `service.database.upgrade`; both build the alembic
configuration in code, so no ``alembic.ini`` is needed. Every migration runs as the schema owner
and grants what the service needs to the ``preferans_app`` role, which never owns anything.
"""

APP_ROLE = "preferans_app"
"""The role the service runs as: it may read and append events, never change them."""
