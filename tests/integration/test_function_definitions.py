"""Every function of the service's schemas is, at head, exactly the text of the newest migration
that creates it: what a reader finds in that migration is what runs.

How the two are compared. Each migration's ``upgrade()`` is run against a recorder in place of
``alembic.op``, so the SQL taken is the very SQL the migration executes (strings built at import
or in the function alike). Its ``CREATE [OR REPLACE] FUNCTION schema.name(`` statements are cut
out whole (up to the end of the dollar-quoted body and the ``;``), and the last statement for a
signature, in revision order, is that signature's expected text. Each of those statements,
the downgrade's too, must stand whole in one string literal of that migration's file: none is
pieced together or patched from another migration's text. Rather than comparing SQL
texts, with some normalisation of whitespace and comments that would be either too lax (a
changed body) or too strict (a comment before ``CREATE``), the statement is created under a
scratch schema in a transaction that is rolled back, and PostgreSQL's own
``pg_get_functiondef`` of that copy, its schema name put back, must equal the live function's:
the same server prints both, so they are equal exactly when arguments, result, language,
volatility, security, settings and the body (byte for byte) are. Function bodies are not
checked there (``check_function_bodies``), so an old migration's text need not fit today's
tables. An ``ALTER FUNCTION`` after the last ``CREATE`` (a changed setting the text does not
show) fails the test too, as it should.
"""

from __future__ import annotations

import ast
import difflib
import re
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import asyncpg
import pytest
from alembic.script import ScriptDirectory

from service.platform.database import alembic_config, upgrade_async

pytestmark = pytest.mark.integration

SCHEMAS = ("es", "api", "rm")
SCRATCH = "fn_definitions_scratch"

CREATE = re.compile(
    r"^[ \t]*CREATE\s+(?:OR\s+REPLACE\s+)?FUNCTION\s+(\w+)\.(\w+)\s*\(", re.IGNORECASE | re.M
)
DOLLAR = re.compile(r"\$(\w*)\$")


class Recorder:
    """Stands in for ``alembic.op``: keeps what ``execute`` is given, refuses anything else."""

    def __init__(self) -> None:
        self.statements: list[str] = []

    def execute(self, sql: Any, *args: Any, **kwargs: Any) -> None:
        assert isinstance(sql, str), f"op.execute given {type(sql).__name__}, not SQL text"
        self.statements.append(sql)

    def __getattr__(self, name: str) -> Any:
        raise AssertionError(f"a migration uses op.{name}: teach this test to read it")


def migrations_in_order() -> list[ModuleType]:
    scripts = ScriptDirectory.from_config(alembic_config())
    return [script.module for script in reversed(list(scripts.walk_revisions()))]


def executed_sql(
    module: ModuleType, monkeypatch: pytest.MonkeyPatch, step: str = "upgrade"
) -> list[str]:
    recorder = Recorder()
    with monkeypatch.context() as patch:
        patch.setattr(module, "op", recorder)
        getattr(module, step)()
    return recorder.statements


def literals(module: ModuleType) -> list[str]:
    """The string literals written in the migration's file (the pieces of f-strings too)."""
    assert module.__file__
    tree = ast.parse(Path(module.__file__).read_text(encoding="utf-8"))
    return [
        n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)
    ]


def function_statements(sql: str) -> Iterator[tuple[str, str, str]]:
    """(schema, name, statement) of each CREATE FUNCTION in ``sql``, in order."""
    at = 0
    while match := CREATE.search(sql, at):
        opening = DOLLAR.search(sql, match.end())
        assert opening, f"{match.group(0).strip()!r}: write the body dollar-quoted"
        closing = sql.find(opening.group(0), opening.end())
        assert closing >= 0, f"unterminated body of {match.group(1)}.{match.group(2)}"
        end = sql.find(";", closing + len(opening.group(0)))
        end = len(sql) if end < 0 else end + 1
        yield match.group(1), match.group(2), sql[match.start() : end]
        at = end


async def scratch_copy(
    conn: asyncpg.Connection, revision: str, schema: str, name: str, statement: str
) -> tuple[str, str]:
    """The signature and pg_get_functiondef of ``statement``, created under the scratch schema
    (in a savepoint, rolled back) and printed as if under ``schema``."""
    one = conn.transaction()
    await one.start()
    try:
        try:
            await conn.execute(CREATE.sub(f"CREATE FUNCTION {SCRATCH}.{name}(", statement, 1))
        except asyncpg.PostgresError as error:
            pytest.fail(f"{revision}: {schema}.{name} does not parse: {error}\n{statement}")
        row = await conn.fetchrow(
            "SELECT p.oid::regprocedure::text AS signature,"
            "       pg_get_functiondef(p.oid) AS definition"
            "  FROM pg_proc p WHERE p.pronamespace = $1::regnamespace",
            SCRATCH,
        )
    finally:
        await one.rollback()
    signature = f"{schema}." + row["signature"].split(".", 1)[1]
    definition = row["definition"].replace(
        f"FUNCTION {SCRATCH}.{name}(", f"FUNCTION {schema}.{name}(", 1
    )
    return signature, definition


async def expected_definitions(
    conn: asyncpg.Connection, monkeypatch: pytest.MonkeyPatch
) -> dict[str, tuple[str, str]]:
    """signature -> (revision, pg_get_functiondef of its newest migration's text)."""
    expected: dict[str, tuple[str, str]] = {}
    everything = conn.transaction()  # rolled back: the scratch schema never commits
    await everything.start()
    try:
        await conn.execute(f"CREATE SCHEMA {SCRATCH}; SET LOCAL check_function_bodies = off")
        for module in migrations_in_order():
            written = literals(module)
            for sql in executed_sql(module, monkeypatch, "downgrade"):
                for schema, name, statement in function_statements(sql):
                    assert any(statement in text for text in written), (
                        f"{module.revision}'s downgrade creates {schema}.{name} from text"
                        " not written out in the migration"
                    )
            for sql in executed_sql(module, monkeypatch):
                for schema, name, statement in function_statements(sql):
                    assert any(statement in text for text in written), (
                        f"{module.revision} creates {schema}.{name} from text not written out"
                        " in the migration"
                    )
                    if schema in SCHEMAS:
                        signature, definition = await scratch_copy(
                            conn, module.revision, schema, name, statement
                        )
                        expected[signature] = (module.revision, definition)
    finally:
        await everything.rollback()
    return expected


async def test_every_function_is_the_text_of_the_newest_migration_defining_it(
    empty_database_dsn: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    await upgrade_async(empty_database_dsn)
    conn = await asyncpg.connect(empty_database_dsn)
    try:
        live = {
            r["signature"]: r["definition"]
            for r in await conn.fetch(
                "SELECT p.oid::regprocedure::text AS signature,"
                "       pg_get_functiondef(p.oid) AS definition"
                "  FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace"
                " WHERE n.nspname = ANY ($1::text[])",
                list(SCHEMAS),
            )
        }
        expected = await expected_definitions(conn, monkeypatch)
        left = await conn.fetchval("SELECT count(*) FROM pg_namespace WHERE nspname = $1", SCRATCH)
    finally:
        await conn.close()
    assert left == 0
    assert live, "no functions found: the schemas moved?"
    undefined = sorted(set(live) - set(expected))
    assert not undefined, f"functions no migration creates: {undefined}"
    differing = []
    for signature, definition in sorted(live.items()):
        revision, text = expected[signature]
        if definition != text:
            diff = "\n".join(
                difflib.unified_diff(
                    text.splitlines(), definition.splitlines(), revision, "database", lineterm=""
                )
            )
            differing.append(f"{signature} differs from {revision}'s text:\n{diff}")
    assert not differing, "\n\n".join(differing)
