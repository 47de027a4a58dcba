"""The shape of the code: every service module on the map, and imports that point inward.

The map is the drawing at the top of ``service/__init__.py`` (docs/architecture.md explains it);
a module missing from it, or named there and gone, fails here. The import rules, read from every
``import`` statement (those inside functions and under ``TYPE_CHECKING`` too):

- ``domain`` imports the standard library, msgspec and itself;
- ``bots`` and ``projections`` import ``domain`` (and themselves), never ``service``, a web
  framework or a database driver; ``projections`` may also import ``bots`` (the analysis of
  decisions reads a seat's view and samples its layouts as the bots do), never the reverse;
- Litestar is imported only under ``service/api/`` and by ``service/app.py``, the app assembly;
- inside ``service/api/``, the shared modules and the resources' ``schemas`` take only a
  resource's ``schemas`` from it, never its controllers;
- the service's rooms are floors: a module imports only its own room and the rooms below it
  (`FLOORS`), so nothing points upward.
"""

from __future__ import annotations

import ast
import re
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SERVICE = ROOT / "service"

FLOORS: tuple[frozenset[str], ...] = (
    frozenset({"exceptions"}),
    frozenset({"platform"}),
    frozenset({"eventlog"}),
    frozenset({"players"}),
    frozenset({"games"}),
    frozenset({"read_models"}),
    frozenset({"workers"}),
    frozenset({"api"}),
    frozenset({"bootstrap", "app", "server", "cli"}),
)
"""The service's rooms from the ground up; a room may import those on its floor or below."""

THIRD_PARTY_OF_THE_SHELL = frozenset({"litestar", "asyncpg", "granian", "uvicorn", "sqlalchemy",
                                      "alembic", "psycopg2", "prometheus_client", "opentelemetry",
                                      "httpx", "pgserver", "uvloop"})  # fmt: skip


def _imports(path: Path) -> Iterator[tuple[int, str]]:
    """Every module ``path`` imports, absolute, with its line."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom):
            assert node.level == 0, f"{path}:{node.lineno}: relative import"
            assert node.module is not None
            yield node.lineno, node.module
            for alias in node.names:  # `from service import chain` imports service.chain
                yield node.lineno, f"{node.module}.{alias.name}"


def _modules(package: str) -> list[Path]:
    return sorted((ROOT / package).rglob("*.py"))


def _room(module: str) -> str | None:
    """The room of a dotted service module (``service.games.lobby`` -> ``games``)."""
    parts = module.split(".")
    if parts[0] != "service" or len(parts) < 2:
        return None
    return parts[1]


def _floor(room: str) -> int:
    for level, rooms in enumerate(FLOORS):
        if room in rooms:
            return level
    raise AssertionError(f"service/{room} is on no floor of FLOORS")


def _stdlib(name: str) -> bool:
    return name.split(".")[0] in sys.stdlib_module_names


# --- the map ---------------------------------------------------------------------------------

_ROOM_LINE = re.compile(r"^    (?P<room>[a-z_]+)/\s")
_PACKAGE_LINE = re.compile(r"^        (?P<package>[a-z_]+)/\s")  # a package inside a room
_MODULE_LINE = re.compile(
    r"^(?P<indent> {4}| {8}| {12})(?P<names>[a-z_]+(?:, [a-z_]+)*)(?:\s{2,}|$)"
)


def mapped_modules(docstring: str) -> set[str]:
    """The modules the drawing names, as paths under service/ (``games/lobby``, ``app``)."""
    found: set[str] = set()
    room: str | None = None
    package: str | None = None
    for line in docstring.splitlines():
        if m := _ROOM_LINE.match(line):
            room, package = m["room"], None
            found.add(f"{room}/__init__")
            continue
        if room is not None and (m := _PACKAGE_LINE.match(line)):
            package = f"{room}/{m['package']}"
            found.add(f"{package}/__init__")
            continue
        if m := _MODULE_LINE.match(line):
            names = m["names"].split(", ")
            if len(m["indent"]) == 4:
                room = package = None
                found.update(names)
            elif len(m["indent"]) == 8 and room is not None:
                package = None
                found.update(f"{room}/{name}" for name in names)
            elif package is not None:
                found.update(f"{package}/{name}" for name in names)
    return found


def test_every_service_module_is_on_the_map_and_the_map_names_only_modules() -> None:
    import service

    assert service.__doc__ is not None
    on_map = mapped_modules(service.__doc__)
    on_disk = {
        str(p.relative_to(SERVICE).with_suffix(""))
        for p in SERVICE.rglob("*.py")
        if p != SERVICE / "__init__.py"
    }
    assert sorted(on_disk - on_map) == [], "modules missing from the map in service/__init__.py"
    assert sorted(on_map - on_disk) == [], "the map names modules that do not exist"


def test_the_map_reader_sees_rooms_and_lists() -> None:
    drawing = (
        "    exceptions   x\n\n    games/   y\n        lobby   z\n        a, b\n"
        "                        continued text, not a module\n    app   w\n"
    )
    assert mapped_modules(drawing) == {
        "exceptions", "games/__init__", "games/lobby", "games/a", "games/b", "app",
    }  # fmt: skip


def test_the_map_reader_sees_packages_inside_rooms() -> None:
    drawing = (
        "    api/   y\n        errors   z\n        games/   g\n            controllers, schemas\n"
        "                        continued\n        common   c\n        chat/   t\n"
        "            schemas   s\n    app   w\n"
    )
    assert mapped_modules(drawing) == {
        "api/__init__", "api/errors", "api/games/__init__", "api/games/controllers",
        "api/games/schemas", "api/common", "api/chat/__init__", "api/chat/schemas", "app",
    }  # fmt: skip


# --- the import rules ------------------------------------------------------------------------


def _violations(package: str, allowed: frozenset[str], third_party_ok: bool) -> list[str]:
    found = []
    for path in _modules(package):
        for line, name in _imports(path):
            top = name.split(".")[0]
            if top in allowed or _stdlib(name):
                continue
            if third_party_ok and top not in THIRD_PARTY_OF_THE_SHELL | {
                "service", "domain", "bots", "projections", "migrations",
            }:  # fmt: skip
                continue
            found.append(f"{path.relative_to(ROOT)}:{line} imports {name}")
    return found


def test_the_domain_imports_only_itself_the_standard_library_and_msgspec() -> None:
    assert _violations("domain", frozenset({"domain", "msgspec"}), third_party_ok=False) == []


@pytest.mark.parametrize(
    ("package", "also"), [("bots", frozenset()), ("projections", frozenset({"bots"}))]
)
def test_bots_and_projections_import_only_the_domain(package: str, also: frozenset[str]) -> None:
    """The bots import the domain alone; the projections the domain and the bots (never the
    other way round)."""
    allowed = frozenset({package, "domain", "msgspec"}) | also
    assert _violations(package, allowed, third_party_ok=True) == []


def test_litestar_only_in_the_api_and_the_app_assembly() -> None:
    found = []
    for path in _modules("service"):
        rel = path.relative_to(SERVICE)
        if rel.parts[0] == "api" or rel == Path("app.py"):
            continue
        found += [
            f"service/{rel}:{line} imports {name}"
            for line, name in _imports(path)
            if name.split(".")[0] == "litestar"
        ]
    assert found == []


def test_the_api_shares_only_its_resources_wire_types() -> None:
    """Inside api/, the shared modules at its top and every resource's ``schemas`` take nothing
    from a resource but its ``schemas``: controllers are mounted by the app assembly alone."""
    api = SERVICE / "api"
    resources = {p.name for p in api.iterdir() if (p / "__init__.py").is_file()}
    found = []
    for path in _modules("service/api"):
        rel = path.relative_to(api)
        if len(rel.parts) > 1 and rel.name != "schemas.py":
            continue  # a resource's controllers may use what they need
        for line, name in _imports(path):
            parts = name.split(".")
            resource = parts[:2] == ["service", "api"] and len(parts) > 3 and parts[2] in resources
            if resource and parts[3] != "schemas":
                found.append(f"service/api/{rel}:{line} imports {name}")
    assert resources >= {"games", "actions", "players", "accounts", "chat", "read_models"}
    assert found == []


def test_no_room_of_the_service_imports_a_room_above_it() -> None:
    found = []
    for path in _modules("service"):
        rel = path.relative_to(SERVICE)
        if rel == Path("__init__.py"):
            continue
        room = rel.parts[0].removesuffix(".py")
        for line, name in _imports(path):
            target = _room(name)
            if target is None or target == room:
                continue
            if not (SERVICE / target).is_dir() and not (SERVICE / f"{target}.py").exists():
                continue  # `from service import x` also yields `service.x`; x may be a name
            if _floor(target) > _floor(room):
                found.append(f"service/{rel}:{line} ({room}) imports {name} ({target})")
    assert found == []


def test_nothing_outside_the_service_imports_it() -> None:
    found = []
    for package in ("domain", "bots", "projections"):
        for path in _modules(package):
            found += [
                f"{path.relative_to(ROOT)}:{line} imports {name}"
                for line, name in _imports(path)
                if name.split(".")[0] == "service"
            ]
    assert found == []


def test_nothing_outside_the_event_log_reaches_the_store_or_its_tables() -> None:
    """The event log object is the one door: no ``.store`` of it, no `EventStore` built, and
    no SQL naming the log's tables or functions, outside ``service/eventlog/``."""
    log_sql = re.compile(r"\bes\.(events|streams|command|append|idempotency_keys|snapshots)\b")
    found = []
    for path in _modules("service"):
        rel = path.relative_to(SERVICE)
        if rel.parts[0] == "eventlog":
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docstrings = {
            id(node.body[0].value)
            for node in ast.walk(tree)
            if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
            and node.body
            and isinstance(node.body[0], ast.Expr)
            and isinstance(node.body[0].value, ast.Constant)
        }
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and node.attr == "store":
                found.append(f"service/{rel}:{node.lineno} reads .store")
            elif isinstance(node, ast.Call) and getattr(node.func, "id", "") == "EventStore":
                found.append(f"service/{rel}:{node.lineno} builds an EventStore")
            elif (
                isinstance(node, ast.Constant)
                and isinstance(node.value, str)
                and id(node) not in docstrings
                and log_sql.search(node.value)
            ):
                found.append(f"service/{rel}:{node.lineno} has SQL on the log's tables")
    assert found == []
