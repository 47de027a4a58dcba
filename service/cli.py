"""The ``preferans`` command.

    preferans db upgrade      migrate the database (DATABASE_URL, or the embedded server)
    preferans serve           run the HTTP API (migrates first); --host, --port
    preferans openapi         write openapi/openapi.json from the app; --check only compares
    preferans projections     read models: status | rebuild [NAME…] | resume NAME
    preferans games import F  append an exported game (NDJSON, `-` for stdin) as a new game

Each subcommand is a ``_cmd_*`` function registered in `build_parser`; add new ones there.
"""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Callable, Sequence

import msgspec

from service.database import resolve_dsn, upgrade
from service.settings import Settings

Command = Callable[[argparse.Namespace, Settings], int]


def _cmd_db_upgrade(args: argparse.Namespace, settings: Settings) -> int:
    dsn = resolve_dsn(settings)
    upgrade(dsn, args.revision)
    print(f"database at {args.revision}")
    return 0


def _cmd_serve(args: argparse.Namespace, settings: Settings) -> int:
    try:
        from service.app import run
    except ModuleNotFoundError as exc:
        if exc.name != "service.app":
            raise
        print("preferans serve: the HTTP API (service/app.py) is not built yet", file=sys.stderr)
        return 2
    listen = {k: v for k, v in (("host", args.host), ("port", args.port)) if v is not None}
    run(msgspec.structs.replace(settings, **listen))
    return 0


def _cmd_openapi(args: argparse.Namespace, settings: Settings) -> int:
    from service.app import OPENAPI_PATH, openapi_document, write_openapi

    if args.check:
        current = OPENAPI_PATH.read_bytes() if OPENAPI_PATH.exists() else b""
        if current != openapi_document():
            print(f"{OPENAPI_PATH} is stale: run `preferans openapi`", file=sys.stderr)
            return 1
        return 0
    print(f"{OPENAPI_PATH} {'written' if write_openapi() else 'unchanged'}")
    return 0


def _cmd_games_import(args: argparse.Namespace, settings: Settings) -> int:
    import asyncio

    from service.database import pool_from_settings
    from service.event_store import EventStore
    from service.game_export import InvalidExport, import_game

    dsn = resolve_dsn(settings)
    with sys.stdin.buffer if args.file == "-" else open(args.file, "rb") as source:
        lines = source.read().splitlines()

    async def main() -> int:
        pool = await pool_from_settings(settings, dsn)
        try:
            imported = await import_game(EventStore(pool, notify=False), lines)
        except InvalidExport as exc:
            print(f"preferans games import: {exc}", file=sys.stderr)
            return 1
        finally:
            await pool.close()
        print(f"imported game {imported.game_id}: {imported.version} events")
        return 0

    return asyncio.run(main())


def build_parser() -> argparse.ArgumentParser:
    """The argument parser; each leaf subcommand sets ``handler`` to a `Command`."""
    parser = argparse.ArgumentParser(prog="preferans", description="The Preferans service.")
    parser.add_argument("-v", "--verbose", action="store_true", help="log at INFO level")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    db = commands.add_parser("db", help="database schema").add_subparsers(
        dest="db_command", required=True, metavar="ACTION"
    )
    up = db.add_parser("upgrade", help="run the migrations (idempotent)")
    up.add_argument("revision", nargs="?", default="head", help="target revision (head)")
    up.set_defaults(handler=_cmd_db_upgrade)

    serve = commands.add_parser("serve", help="run the HTTP API")
    serve.add_argument("--host", help="listen address (PREFERANS_HOST, default 127.0.0.1)")
    serve.add_argument("--port", type=int, help="listen port (PREFERANS_PORT, default 8000)")
    serve.set_defaults(handler=_cmd_serve)

    spec = commands.add_parser("openapi", help="write the committed OpenAPI document")
    spec.add_argument("--check", action="store_true", help="fail if the committed one is stale")
    spec.set_defaults(handler=_cmd_openapi)

    games = commands.add_parser("games", help="whole games").add_subparsers(
        dest="games_command", required=True, metavar="ACTION"
    )
    load = games.add_parser("import", help="append an exported game (NDJSON) as a new game")
    load.add_argument("file", help="the export file, or - for standard input")
    load.set_defaults(handler=_cmd_games_import)

    # `projections …` subcommands go here, as a subparser group like `db`.
    from service.projections import register_cli  # read models (issue 6)

    register_cli(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``preferans`` console script."""
    args = build_parser().parse_args(argv)
    logging.basicConfig(
        level=logging.INFO if args.verbose else logging.WARNING,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    handler: Command = args.handler
    return handler(args, Settings.from_env())


if __name__ == "__main__":
    sys.exit(main())
