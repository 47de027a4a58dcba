"""Each migration stands on its own text: it imports no other migration and patches no SQL.

A migration that rebuilt a function by ``str.replace`` on an older migration's string changed
whenever that string was edited, silently and at every revision after it. So a migration imports
only alembic and the ``migrations`` package's shared names (roles, ``TAKE_OWNERSHIP``), and
writes each function it creates out whole (tests/integration/test_function_definitions.py checks
that the database holds exactly those texts).
"""

from __future__ import annotations

import ast
from pathlib import Path

import migrations

VERSIONS = Path(migrations.__file__).parent / "versions"
ALLOWED_IMPORTS = {"__future__", "alembic", "migrations"}


def migration_files() -> list[Path]:
    files = sorted(VERSIONS.glob("*.py"))
    assert files, f"no migrations under {VERSIONS}"
    return files


def problems(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    found = []
    for node in ast.walk(tree):
        where = f"{path.name}:{getattr(node, 'lineno', '?')}"
        if isinstance(node, ast.Import):
            found += [
                f"{where} imports {a.name}" for a in node.names if a.name not in ALLOWED_IMPORTS
            ]
        elif isinstance(node, ast.ImportFrom):
            if node.level or node.module not in ALLOWED_IMPORTS:
                found.append(f"{where} imports from {'.' * node.level}{node.module or ''}")
        elif isinstance(node, ast.Call):
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            if name == "replace":
                found.append(f"{where} calls .replace(): write the SQL out instead")
            elif name in {"__import__", "import_module", "load_python_file", "exec_module"}:
                found.append(f"{where} loads a module with {name}()")
    return found


def test_no_migration_imports_another_or_patches_sql() -> None:
    found = [p for path in migration_files() for p in problems(path)]
    assert found == [], "\n".join(found)


def test_the_check_sees_what_it_looks_for(tmp_path: Path) -> None:
    sample = tmp_path / "0099_sample.py"
    sample.write_text(
        "import importlib\n"
        "from migrations.versions import x\n"
        "from . import y\n"
        "OLD = importlib.import_module('migrations.versions.0001_event_store').APPEND\n"
        "NEW = OLD.replace('a', 'b')\n",
        encoding="utf-8",
    )
    assert len(problems(sample)) == 5
