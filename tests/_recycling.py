"""A test's database made as new again, rather than dropped and copied from the template.

Dropping a database makes PostgreSQL 15 checkpoint the whole cluster (every other test's dirty
pages written and synced), and a copy writes the template's 10 MB to the WAL: five hundred tests
with a database of their own paid that five hundred times, and the run waited on the disk. A
database a test gave back is instead checked and emptied:

- its schema must be the template's exactly (functions, their settings and grants, tables and
  columns, constraints, triggers and whether they fire, policies, grants on schemas, types),
  compared by a fingerprint; a test that changed any of it gets its database dropped;
- every table the template left empty and the test wrote to is emptied, and every table the
  template filled (the stream kinds, the database's own secret) is put back row for row if it
  changed, with the cleaner's triggers off (the log refuses a DELETE or a TRUNCATE from anyone
  else, and the foreign keys' checks are triggers too); a table of a few rows is emptied by a
  DELETE, a big one (`BIG`) by a TRUNCATE with every table whose foreign keys reach it;
- every sequence is set back to where the template left it;
- nobody else may still be connected, nor hold a prepared transaction.

Anything unexpected drops the database, as before. What is left is, to every query a test can
make, the template's copy: the same schema, the same rows, the same sequences.
"""

from __future__ import annotations

from dataclasses import dataclass

import asyncpg

_TABLES = """
SELECT format('%I.%I', n.nspname, c.relname)
  FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
 WHERE c.relkind IN ('r', 'p') AND NOT c.relispartition
   AND n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg_toast%'
 ORDER BY 1"""

_SEQUENCES = """
SELECT format('%I.%I', schemaname, sequencename) AS name, start_value, last_value
  FROM pg_sequences WHERE schemaname NOT IN ('pg_catalog', 'information_schema') ORDER BY 1"""

_REFERENCES = """
SELECT DISTINCT format('%I.%I', rn.nspname, r.relname), format('%I.%I', n.nspname, c.relname)
  FROM pg_constraint k
  JOIN pg_class c ON c.oid = k.conrelid JOIN pg_namespace n ON n.oid = c.relnamespace
  JOIN pg_class r ON r.oid = k.confrelid JOIN pg_namespace rn ON rn.oid = r.relnamespace
 WHERE k.contype = 'f'"""

_OURS = "n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg_toast%'"

_FINGERPRINT = f"""
SELECT md5(string_agg(item, E'\\n' ORDER BY item)) FROM (
  SELECT format('proc %s.%s(%s) %s %s %s %s %s', n.nspname, p.proname,
                pg_get_function_identity_arguments(p.oid), md5(p.prosrc), p.proconfig, p.proacl,
                p.prosecdef, pg_get_userbyid(p.proowner)) AS item
    FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE {_OURS}
  UNION ALL
  SELECT format('rel %s.%s %s %s %s %s', n.nspname, c.relname, c.relkind, c.relacl, c.reloptions,
                pg_get_userbyid(c.relowner))
    FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE {_OURS}
  UNION ALL
  SELECT format('col %s %s %s %s %s %s', a.attrelid::regclass, a.attname,
                format_type(a.atttypid, a.atttypmod), a.attnotnull,
                pg_get_expr(d.adbin, d.adrelid), a.attacl)
    FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
    JOIN pg_namespace n ON n.oid = c.relnamespace
    LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
   WHERE {_OURS} AND a.attnum > 0 AND NOT a.attisdropped
  UNION ALL
  SELECT format('trigger %s %s %s %s', t.tgrelid::regclass, t.tgname, t.tgenabled,
                pg_get_triggerdef(t.oid))
    FROM pg_trigger t WHERE NOT t.tgisinternal
  UNION ALL
  SELECT format('constraint %s %s %s', conrelid::regclass, conname, pg_get_constraintdef(c.oid))
    FROM pg_constraint c JOIN pg_namespace n ON n.oid = c.connamespace WHERE {_OURS}
  UNION ALL
  SELECT format('index %s', pg_get_indexdef(i.indexrelid))
    FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
    JOIN pg_namespace n ON n.oid = c.relnamespace WHERE {_OURS}
  UNION ALL
  SELECT format('policy %s %s %s %s', polrelid::regclass, polname, polroles,
                pg_get_expr(polqual, polrelid))
    FROM pg_policy
  UNION ALL
  SELECT format('rule %s', definition) FROM pg_rules WHERE schemaname NOT IN ('pg_catalog')
  UNION ALL
  SELECT format('schema %s %s %s', nspname, nspacl, pg_get_userbyid(nspowner)) FROM pg_namespace
  UNION ALL
  SELECT format('default acl %s %s %s', defaclrole, defaclobjtype, defaclacl) FROM pg_default_acl
  UNION ALL
  SELECT format('event trigger %s %s', evtname, evtenabled) FROM pg_event_trigger
  UNION ALL
  SELECT format('type %s.%s', n.nspname, t.typname)
    FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace WHERE {_OURS}
  UNION ALL
  SELECT format('extension %s %s', extname, extversion) FROM pg_extension
  UNION ALL
  SELECT format('database %s %s', datallowconn, datconnlimit)
    FROM pg_database WHERE datname = current_database()
  UNION ALL
  SELECT format('settings %s', setconfig) FROM pg_db_role_setting s
    JOIN pg_database d ON d.oid = s.setdatabase WHERE d.datname = current_database()
) AS everything"""


def _digest(table: str) -> str:
    return f"SELECT md5(coalesce(string_agg(t::text, E'\\n' ORDER BY t::text), '')) FROM {table} t"


def _quoted(text: str) -> str:
    """``text`` as an SQL string literal (dollar-quoted: no escape in it is read)."""
    assert "$pristine$" not in text
    return f"$pristine${text}$pristine$"


BIG = 1000
"""Rows from which a table is emptied by a TRUNCATE rather than a DELETE. A TRUNCATE makes new
files for the table and its indexes and drops the old ones at commit: after a test that seated
one game (31 tables to empty) it cost the server 0.045 CPU-s of the 0.086 the cleaning took,
where deleting those few rows cost under 0.002. A DELETE leaves its rows dead until the server
vacuums them, and past a few thousand it costs more than the TRUNCATE."""


@dataclass(frozen=True)
class Pristine:
    """The template as a test's database must be found: its schema's fingerprint, the tables it
    leaves empty, the rows of those it fills (and their digests) and its sequences."""

    fingerprint: str
    empty: tuple[str, ...]
    filled: dict[str, tuple[str, str]]
    """Each table the template fills: the digest of its rows, and the rows as a JSON array."""
    sequences: dict[str, tuple[int, int | None]]
    referenced_by: dict[str, list[str]]
    """Each table a foreign key references, and the tables whose keys do: a TRUNCATE takes
    them along, or PostgreSQL refuses it."""

    @classmethod
    async def read(cls, dsn: str) -> Pristine:
        conn = await asyncpg.connect(dsn)
        try:
            empty: list[str] = []
            filled: dict[str, tuple[str, str]] = {}
            for (table,) in await conn.fetch(_TABLES):
                if await conn.fetchval(f"SELECT EXISTS (SELECT FROM {table})"):
                    rows = await conn.fetchval(f"SELECT jsonb_agg(t)::text FROM {table} t")
                    filled[table] = (await conn.fetchval(_digest(table)), rows)
                else:
                    empty.append(table)
            sequences = {
                r["name"]: (r["start_value"], r["last_value"]) for r in await conn.fetch(_SEQUENCES)
            }
            fingerprint = await conn.fetchval(_FINGERPRINT)
            referenced_by: dict[str, list[str]] = {}
            for referenced, referencing in await conn.fetch(_REFERENCES):
                referenced_by.setdefault(referenced, []).append(referencing)
        finally:
            await conn.close()
        return cls(fingerprint, tuple(empty), filled, sequences, referenced_by)

    def cleared_with(self, tables: list[str]) -> list[str]:
        """``tables`` and every table whose foreign keys reach them, in the order of names."""
        cleared, todo = set(tables), list(tables)
        while todo:
            for referencing in self.referenced_by.get(todo.pop(), ()):
                if referencing not in cleared:
                    cleared.add(referencing)
                    todo.append(referencing)
        return sorted(cleared)

    async def restore(self, dsn: str) -> bool:
        """Make the database at ``dsn`` the template's copy again; False when it cannot be
        (then it must be dropped)."""
        conn = await asyncpg.connect(dsn)
        try:
            await conn.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                " WHERE datname = current_database() AND pid <> pg_backend_pid()"
            )
            if await conn.fetchval(
                "SELECT EXISTS (SELECT FROM pg_prepared_xacts WHERE database = current_database())"
            ):
                return False
            if await conn.fetchval(_FINGERPRINT) != self.fingerprint:
                return False
            # Each written table with how many rows it has, counted up to BIG + 1.
            probe = " UNION ALL ".join(
                f"SELECT {i}, (SELECT count(*) FROM (SELECT FROM {table} LIMIT {BIG + 1}) AS r)"
                f" WHERE EXISTS (SELECT FROM {table})"
                for i, table in enumerate(self.empty)
            )
            written = {self.empty[i]: rows for i, rows in await conn.fetch(probe)} if probe else {}
            changed = [
                table
                for table, (digest, _) in self.filled.items()
                if await conn.fetchval(_digest(table)) != digest
            ]
            truncated = self.cleared_with([t for t, rows in written.items() if rows > BIG])
            deleted = sorted({*written, *changed} - set(truncated))
            # The cleaner's own triggers off (session_replication_role): the log's refusals and
            # the foreign keys' checks, so that the tables are emptied in any order.
            script = ["BEGIN", "SET LOCAL session_replication_role = replica"]
            if truncated:
                script.append(f"TRUNCATE {', '.join(truncated)}")
            script.extend(f"DELETE FROM {table}" for table in deleted)
            for table in (t for t in [*truncated, *deleted] if t in self.filled):
                script.append(
                    f"INSERT INTO {table} OVERRIDING SYSTEM VALUE SELECT * FROM"
                    f" jsonb_populate_recordset(NULL::{table}, {_quoted(self.filled[table][1])})"
                )
            for row in await conn.fetch(_SEQUENCES):
                start, last = self.sequences.get(row["name"], (None, None))
                if start is None:
                    return False
                if row["last_value"] != last:
                    script.append(
                        f"SELECT setval({_quoted(row['name'])}::regclass,"
                        f" {last if last is not None else start}, {last is not None})"
                    )
            # One message, run through by the server: the transaction holds its xid (and with
            # it the cluster's feed horizon) for milliseconds, never while this process's loop
            # is busy with a test that does not yield to the task that cleans.
            await conn.execute(";\n".join([*script, "COMMIT"]))
            return True
        finally:
            await conn.close()
