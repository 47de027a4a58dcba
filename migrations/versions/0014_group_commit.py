"""Group commit: ``es.commands`` runs several commands in one statement, so one round trip and
one commit (one WAL flush) serve them all, each command as ``es.command`` runs it alone.

- Every stream's lock is taken first, before any write gives the transaction its id, in the
  order of the locks' keys: one stream's transactions still take their ids in the order of its
  versions (0001), and two batches never wait for each other in a circle over those locks.
- Then each command in the order given, through ``es.command`` (0013), in its own
  subtransaction: a refusal or a conflict (any error) rolls back that command alone, and comes
  back as its error's code, message, detail, constraint and context; the others commit.
- The events of all the commands come flattened, ``p_counts`` of them for each command in turn.

The request path's role may run it, as it may run ``es.command``.

Revision ID: 0014_group_commit
Revises: 0013_lean_command
Create Date: 2026-12-03
"""

from alembic import op

from migrations import APP_ROLE, TAKE_OWNERSHIP

revision = "0014_group_commit"
down_revision = "0013_lean_command"
branch_labels = None
depends_on = None

ARGS = (
    "text[], text[], bigint[], int[], uuid[], text[], smallint[], jsonb[], jsonb[], "
    "text[], text[], bytea[], interval[], jsonb[], jsonb[]"
)

COMMANDS = """
CREATE FUNCTION es.commands(
  p_streams text[], p_stream_types text[], p_expected bigint[], p_counts int[],
  p_ids uuid[], p_types text[], p_sv smallint[], p_data jsonb[], p_meta jsonb[],
  p_principals text[], p_keys text[], p_requests bytea[], p_key_ttls interval[],
  p_decisions jsonb[], p_summaries jsonb[])
RETURNS TABLE (outcome text, new_version bigint, positions bigint[], tx xid8,
               stored_stream text, stored_decision jsonb, error_code text, error_message text,
               error_detail text, error_constraint text, error_context text)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp SET lock_timeout = '2s'
AS $$
-- Commands i = 1 … cardinality(p_streams), each es.command's arguments at index i; command i's
-- events are the next p_counts[i] of p_ids … p_meta. One row per command, in order: es.command's
-- result, or (outcome NULL) the error that rolled that command back.
DECLARE
  m int := coalesce(cardinality(p_streams), 0);
  lo int := 1;
  k int;
  lock_key bigint;
  done record;
  e_code text;
  e_message text;
  e_detail text;
  e_constraint text;
  e_context text;
BEGIN
  IF m <> cardinality(p_stream_types) OR m <> cardinality(p_expected)
     OR m <> cardinality(p_counts) OR m <> cardinality(p_principals)
     OR m <> cardinality(p_keys) OR m <> cardinality(p_requests)
     OR m <> cardinality(p_key_ttls) OR m <> cardinality(p_decisions)
     OR m <> cardinality(p_summaries) THEN
    RAISE EXCEPTION USING ERRCODE = '22023',
      MESSAGE = 'es.commands needs each command''s arguments at the same index';
  END IF;
  -- Every stream's lock before the first write (which fixes the transaction's id), in one
  -- order for every batch. es.command takes each again: a lock held is taken at no wait.
  FOR lock_key IN
    SELECT DISTINCT hashtextextended(s, 0) FROM unnest(p_streams) AS s ORDER BY 1
  LOOP
    PERFORM pg_advisory_xact_lock(lock_key);
  END LOOP;
  FOR i IN 1..m LOOP
    k := p_counts[i];
    BEGIN  -- a subtransaction: an error rolls back this command alone
      SELECT * INTO done
        FROM es.command(p_streams[i], p_stream_types[i], p_expected[i],
                        p_ids[lo:lo + k - 1], p_types[lo:lo + k - 1], p_sv[lo:lo + k - 1],
                        p_data[lo:lo + k - 1], p_meta[lo:lo + k - 1], p_principals[i],
                        p_keys[i], p_requests[i], p_key_ttls[i], p_decisions[i],
                        p_summaries[i]);
      RETURN QUERY SELECT done.outcome, done.new_version, done.positions, done.tx,
        done.stored_stream, done.stored_decision, NULL::text, NULL::text, NULL::text,
        NULL::text, NULL::text;
    EXCEPTION WHEN OTHERS THEN
      GET STACKED DIAGNOSTICS e_code = RETURNED_SQLSTATE, e_message = MESSAGE_TEXT,
        e_detail = PG_EXCEPTION_DETAIL, e_constraint = CONSTRAINT_NAME,
        e_context = PG_EXCEPTION_CONTEXT;
      RETURN QUERY SELECT NULL::text, NULL::bigint, NULL::bigint[], NULL::xid8, NULL::text,
        NULL::jsonb, e_code, e_message, e_detail, e_constraint, e_context;
    END;
    lo := lo + k;
  END LOOP;
END $$;
"""

RIGHTS = f"""
REVOKE ALL ON FUNCTION es.commands({ARGS}) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION es.commands({ARGS}) TO {APP_ROLE};
"""


def upgrade() -> None:
    op.execute(COMMANDS)
    op.execute(RIGHTS)
    op.execute(TAKE_OWNERSHIP)


def downgrade() -> None:
    op.execute(f"DROP FUNCTION es.commands({ARGS})")
