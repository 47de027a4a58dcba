"""Snapshots: a cache of folded game states, so that a cold load reads a state and a short tail
instead of folding the whole stream (docs/event-store.md §9.5).

- ``es.snapshots``: one row per stream, the state folded up to ``version`` by the code whose
  ``fold_version`` it names, and the ``event_id`` of the event at that version. It is a cache:
  any row may be deleted at any time, a row of another fold version is ignored, and a reader
  checks the event id against the log before trusting it.
- ``es.save_snapshots``: the only way in. It stores a snapshot only if the log holds that very
  event at that version of that stream, and never replaces a newer snapshot of the same fold
  version with an older one, unless the newer one names an event the log does not hold (a
  snapshot at the same version replaces it: one found unreadable is written again). Nothing
  reads snapshots but the command handler's load: no trigger, key or function ties them to
  ``es.events``, so they cannot change the log.

The request path's role may read snapshots and save them through the function; it may not
write the table directly, delete or truncate it (0005_least_privilege's model).

Revision ID: 0008_snapshots
Revises: 0007_fair_deals
Create Date: 2026-12-01
"""

from alembic import op

from migrations import APP_ROLE, TAKE_OWNERSHIP

revision = "0008_snapshots"
down_revision = "0007_fair_deals"
branch_labels = None
depends_on = None

TABLES = """
CREATE TABLE es.snapshots (
  stream_id    text PRIMARY KEY CHECK (length(stream_id) BETWEEN 1 AND 200),
  fold_version text NOT NULL CHECK (length(fold_version) BETWEEN 1 AND 100),
  version      bigint NOT NULL CHECK (version >= 1),
  event_id     uuid NOT NULL,
  state        bytea NOT NULL CHECK (length(state) <= 1048576),
  taken_at     timestamptz NOT NULL DEFAULT now()
);
"""

FUNCTIONS = """
CREATE FUNCTION es.save_snapshots(
  p_streams text[], p_fold_version text, p_versions bigint[], p_event_ids uuid[],
  p_states bytea[])
RETURNS int
LANGUAGE sql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
  WITH offered AS (
    SELECT s.stream_id, s.version, s.event_id, s.state
      FROM unnest(p_streams, p_versions, p_event_ids, p_states)
           AS s(stream_id, version, event_id, state)
      JOIN es.events e
        ON e.stream_id = s.stream_id AND e.version = s.version AND e.event_id = s.event_id
  ), saved AS (
    INSERT INTO es.snapshots AS old (stream_id, fold_version, version, event_id, state)
    SELECT stream_id, p_fold_version, version, event_id, state FROM offered
    ON CONFLICT (stream_id) DO UPDATE
       SET fold_version = excluded.fold_version, version = excluded.version,
           event_id = excluded.event_id, state = excluded.state, taken_at = now()
     WHERE old.fold_version <> excluded.fold_version OR old.version <= excluded.version
        OR NOT EXISTS (SELECT 1 FROM es.events e WHERE e.stream_id = old.stream_id
                          AND e.version = old.version AND e.event_id = old.event_id)
    RETURNING 1
  )
  SELECT count(*)::int FROM saved
$$;
"""

GRANTS = f"""
REVOKE ALL ON es.snapshots FROM PUBLIC;
REVOKE ALL ON FUNCTION es.save_snapshots(text[], text, bigint[], uuid[], bytea[]) FROM PUBLIC;
GRANT SELECT ON es.snapshots TO {APP_ROLE};
GRANT EXECUTE ON FUNCTION es.save_snapshots(text[], text, bigint[], uuid[], bytea[])
  TO {APP_ROLE};
"""


def upgrade() -> None:
    op.execute(TABLES)
    op.execute(FUNCTIONS)
    op.execute(TAKE_OWNERSHIP)
    op.execute(GRANTS)


def downgrade() -> None:
    op.execute(
        """
DROP FUNCTION es.save_snapshots(text[], text, bigint[], uuid[], bytea[]);
DROP TABLE es.snapshots;
"""
    )
