"""The ``preferans`` command.

    preferans db upgrade [REV]           migrate the database (DATABASE_URL, or the embedded one)
    preferans serve                      the HTTP API (migrates first); --host, --port, --workers
    preferans bots                       move the service's bots (serve starts one of these)
    preferans openapi [--check]          write openapi/openapi.json from the app, or compare
    preferans projections status         each read model's position, lag and status [--json]
    preferans projections rebuild [N…]   rebuild read models from position zero (blue/green)
    preferans projections resume NAME    let a failed projection retry from its checkpoint
    preferans games import FILE          import an exported game (NDJSON, `-` for stdin)

Each subcommand is a ``_cmd_*`` function registered in `build_parser`. Commands that need the
database build the event log once, in `_with_log`, as the app does in `service.app`.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

import msgspec

from service.database import app_dsn, pool_from_settings, resolve_dsn, upgrade
from service.event_log import EventLog, game_log
from service.exceptions import ImportRefused
from service.projection_runner import FAILED, ProjectionError, Projections, ProjectionStatus
from service.settings import Settings

Command = Callable[[argparse.Namespace, Settings], int]


def _with_log(settings: Settings, action: Callable[[EventLog[Any]], Awaitable[int]]) -> int:
    """Run ``action`` with the games' event log on the configured database."""
    dsn = app_dsn(resolve_dsn(settings), settings)

    async def main() -> int:
        pool = await pool_from_settings(settings, dsn)
        events = game_log(pool)
        try:
            return await action(events)
        finally:
            await events.close()
            await pool.close()

    return asyncio.run(main())


def _cmd_db_upgrade(args: argparse.Namespace, settings: Settings) -> int:
    dsn = resolve_dsn(settings)
    upgrade(dsn, args.revision, app_password=settings.app_password)
    print(f"database at {args.revision}")
    return 0


def _cmd_serve(args: argparse.Namespace, settings: Settings) -> int:
    from service.app import run

    given = (("host", args.host), ("port", args.port), ("workers", args.workers))
    listen = {k: v for k, v in given if v is not None}
    run(msgspec.structs.replace(settings, **listen))
    return 0


def _cmd_bots(args: argparse.Namespace, settings: Settings) -> int:
    from service.bot_worker import main as bot_worker

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    return bot_worker(settings)


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
    from service.game_export import import_game

    with sys.stdin.buffer if args.file == "-" else open(args.file, "rb") as source:
        lines = source.read().splitlines()

    async def action(events: EventLog[Any]) -> int:
        try:
            imported = await import_game(events, lines)
        except ImportRefused as exc:
            print(f"preferans games import: {exc}", file=sys.stderr)
            return 1
        guests = f", {len(imported.guests)} guest players added" if imported.guests else ""
        print(f"imported game {imported.game_id}: {imported.version} events{guests}")
        return 0

    return _with_log(settings, action)


# --- projections ----------------------------------------------------------------------------------


def _with_projections(settings: Settings, action: Callable[[Projections], Awaitable[int]]) -> int:
    async def run(events: EventLog[Any]) -> int:
        return await action(Projections(events))

    try:
        return _with_log(settings, run)
    except ProjectionError as exc:
        print(f"preferans projections: {exc}", file=sys.stderr)
        return 1


def format_status(rows: Sequence[ProjectionStatus]) -> str:
    """The status table printed by ``preferans projections status``."""
    header = ("PROJECTION", "ROLE", "STATUS", "POSITION", "HEAD", "LAG", "LAG_S", "CODE", "ERROR")
    lines = [header]
    for r in rows:
        code = f"{r.code_version}" + (
            "" if r.code_version == r.current_code_version else f"→{r.current_code_version}"
        )
        lines.append((
            r.checkpoint, r.role, r.status, str(r.position), str(r.head), str(r.lag),
            f"{r.lag_seconds:.1f}", code, (r.last_error or "")[:80],
        ))  # fmt: skip
    widths = [max(len(line[i]) for line in lines) for i in range(len(header))]
    return "\n".join(
        "  ".join(c.ljust(w) for c, w in zip(line, widths, strict=True)).rstrip() for line in lines
    )


def _cmd_projections_status(args: argparse.Namespace, settings: Settings) -> int:
    async def action(p: Projections) -> int:
        await p.ensure()
        rows = await p.status()
        if args.json:
            print(msgspec.json.encode(rows).decode())
        else:
            print(format_status(rows))
        return 1 if any(r.status == FAILED for r in rows) else 0

    return _with_projections(settings, action)


def _cmd_projections_rebuild(args: argparse.Namespace, settings: Settings) -> int:
    started = time.perf_counter()

    def progress(done: int, total: int) -> None:
        width = 30
        filled = int(width * done / total) if total else width
        rate = done / max(time.perf_counter() - started, 1e-9)
        bar = "#" * filled + "-" * (width - filled)
        print(f"\r[{bar}] {done:,}/{total:,} events  {rate:,.0f} events/s", end="", file=sys.stderr)

    async def action(p: Projections) -> int:
        report = await p.rebuild(args.names or None, batch_size=args.batch_size, progress=progress)
        print(file=sys.stderr)
        gens = ", ".join(f"{n}@{g}" for n, g in report.generations.items())
        rate = report.events / report.seconds if report.seconds else 0.0
        print(
            f"rebuilt {gens} from position zero: {report.events:,} events in "
            f"{report.seconds:.1f} s ({rate:,.0f} events/s)"
        )
        return 0

    return _with_projections(settings, action)


def _cmd_projections_resume(args: argparse.Namespace, settings: Settings) -> int:
    async def action(p: Projections) -> int:
        resumed = await p.resume(args.name)
        print(f"{args.name}: {'resumed' if resumed else 'was not failed'}")
        return 0

    return _with_projections(settings, action)


# --- the parser -----------------------------------------------------------------------------------


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
    serve.add_argument(
        "--workers", type=int, help="server processes on the port (PREFERANS_WORKERS, default 1)"
    )
    serve.set_defaults(handler=_cmd_serve)

    bots = commands.add_parser("bots", help="move the service's bots (a worker process)")
    bots.set_defaults(handler=_cmd_bots)

    spec = commands.add_parser("openapi", help="write the committed OpenAPI document")
    spec.add_argument("--check", action="store_true", help="fail if the committed one is stale")
    spec.set_defaults(handler=_cmd_openapi)

    projections = commands.add_parser("projections", help="read models: status, rebuild, resume")
    group = projections.add_subparsers(dest="projections_command", required=True, metavar="ACTION")
    status = group.add_parser("status", help="each projection's position, lag and status")
    status.add_argument("--json", action="store_true", help="print JSON")
    status.set_defaults(handler=_cmd_projections_status)
    rebuild = group.add_parser("rebuild", help="rebuild from position zero (blue/green)")
    rebuild.add_argument("names", nargs="*", metavar="NAME", help="projections (default: all)")
    rebuild.add_argument("--batch-size", type=int, default=5000)
    rebuild.set_defaults(handler=_cmd_projections_rebuild)
    resume = group.add_parser("resume", help="let a failed projection retry from its checkpoint")
    resume.add_argument("name", metavar="NAME")
    resume.set_defaults(handler=_cmd_projections_resume)

    games = commands.add_parser("games", help="whole games").add_subparsers(
        dest="games_command", required=True, metavar="ACTION"
    )
    load = games.add_parser("import", help="import an exported game (NDJSON) as the same game")
    load.add_argument("file", help="the export file, or - for standard input")
    load.set_defaults(handler=_cmd_games_import)
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
