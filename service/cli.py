"""The ``preferans`` command.

    preferans db upgrade [REV]           migrate the database (DATABASE_URL, or the embedded one)
    preferans serve                      the HTTP API (migrates first); --host, --port, --workers
    preferans bots                       move the service's bots (serve starts one of these)
    preferans background                 projections, analyst, purger, snapshots (serve starts one)
    preferans openapi [--check]          write openapi/openapi.json from the app, or compare
    preferans projections status         each read model's position, lag and status [--json]
    preferans projections rebuild [N…]   rebuild read models from position zero (blue/green)
    preferans projections resume NAME    let a failed projection retry from its checkpoint
    preferans games export GAME|--from FILE  a finished game as NDJSON or PPN [--format ppn]
                                         [--analysis] [-o OUT]; --from converts a file offline
    preferans games import FILE          import an exported game (NDJSON or PPN, `-` for stdin)
    preferans games verify FILE          check an export's hash chain, commitment and decks
    preferans moderators grant|revoke P  the moderator role (the administrator's DSN); list

Each subcommand is a ``_cmd_*`` function registered in `build_parser`. Commands that need the
database resolve it through `service.platform.preflight` (a bad configuration is one line on
stderr and its own exit code, `EXIT_CODES`) and build the event log once, in `_with_log`,
through `service.bootstrap` as every process does. SIGTERM ends the command as SIGINT does, so
the embedded PostgreSQL it started is stopped either way.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import signal
import sys
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Any, Literal

import msgspec

from service.eventlog.log import EventLog
from service.exceptions import ImportRefused
from service.platform import preflight
from service.platform.database import upgrade
from service.platform.settings import Settings
from service.platform.settings import __doc__ as _SETTINGS_DOC
from service.platform.telemetry import configure_logging

if TYPE_CHECKING:  # imported where used: the read models pull in the bots and numpy, which
    # every other command (``serve``'s parent process first) would pay for at start-up
    from service.read_models.runner import Projections, ProjectionStatus

Command = Callable[[argparse.Namespace, Settings], int]

EXIT_CODES = {
    0: "Done",
    1: "The command failed (a stale OpenAPI document, a failed projection, a refused import)",
    2: "Bad usage: an unknown command or option",
    **{c.exit_code: (c.__doc__ or "").strip().rstrip(".") for c in (
        preflight.BadSetting, preflight.MalformedDatabaseUrl, preflight.DatabaseUnreachable,
        preflight.DatabaseLoginRefused, preflight.DataDirNotWritable,
        preflight.EmbeddedServerFailed, preflight.ListenAddressTaken,
    )},
    130: "Stopped by SIGINT (Ctrl-C) before it was serving",
    143: "Stopped by SIGTERM before it was serving",
}  # fmt: skip
"""What ``preferans`` exits with (``preferans --help`` lists them; a served API stopped by
either signal exits 0)."""


def _with_log(
    settings: Settings,
    action: Callable[[EventLog[Any]], Awaitable[int]],
    role: Literal["cli", "projections"] = "cli",
) -> int:
    """Run ``action`` with the games' event log on the configured database (the ``cli`` role
    of `service.bootstrap.open_services`, or ``projections`` for the read models' commands)."""
    from service.bootstrap import open_services

    dsn = preflight.database_dsn(settings)

    async def main() -> int:
        async with open_services(settings, role, dsn=dsn) as services:
            return await action(services.event_log)

    return asyncio.run(main())


def _cmd_db_upgrade(args: argparse.Namespace, settings: Settings) -> int:
    dsn = preflight.database_dsn(settings)
    upgrade(dsn, args.revision, app_password=settings.app_password)
    print(f"database at {args.revision}")
    return 0


def _cmd_serve(args: argparse.Namespace, settings: Settings) -> int:
    from service.server import run

    given = (("host", args.host), ("port", args.port), ("workers", args.workers))
    settings = msgspec.structs.replace(settings, **{k: v for k, v in given if v is not None})
    # The port first: a second service on it must not start (nor start a database).
    with preflight.claim_listen_address(settings.host, settings.port):
        # Checked and migrated here, once: a bad database is one line, not a crash in each worker.
        dsn = preflight.database_dsn(settings)
        upgrade(dsn, app_password=settings.app_password)
        run(msgspec.structs.replace(settings, database_url=dsn), where=_where(settings, dsn))
    return 0


def _where(settings: Settings, dsn: str) -> str:
    """The one line ``preferans serve`` prints once it is about to serve."""
    host = f"[{settings.host}]" if ":" in settings.host else settings.host
    base = f"http://{host}:{settings.port}"
    data = (
        f"database {preflight.redacted(dsn)}"
        if settings.database_url
        else f"data in {settings.embedded_pg_dir.parent.resolve()}"
    )
    return f"preferans: web client {base}/ · API docs {base}/schema · {data}"


def _number_from(low: int, high: int) -> Callable[[str], int]:
    """An argparse type: a whole number from ``low`` to ``high`` (the setting's range)."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = low - 1
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number from {low} to {high}")
        return value

    return parse


def _cmd_bots(args: argparse.Namespace, settings: Settings) -> int:
    return _worker(settings, "bots")


def _cmd_background(args: argparse.Namespace, settings: Settings) -> int:
    return _worker(settings, "background")


def _worker(settings: Settings, role: Literal["bots", "background"]) -> int:
    from service.bootstrap import worker_main

    logging.getLogger().setLevel(logging.INFO)
    return worker_main(
        msgspec.structs.replace(settings, database_url=preflight.database_dsn(settings)), role
    )


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
    from service.games.export import import_file

    with sys.stdin.buffer if args.file == "-" else open(args.file, "rb") as source:
        data = source.read()

    async def action(event_log: EventLog[Any]) -> int:
        try:
            imported = await import_file(event_log, data)
        except ImportRefused as exc:
            print(f"preferans games import: {exc}", file=sys.stderr)
            return 1
        guests = f", {len(imported.guests)} guest players added" if imported.guests else ""
        print(f"imported game {imported.game_id}: {imported.version} events{guests}")
        return 0

    return _with_log(settings, action)


def _write_out(out: str | None, data: bytes) -> None:
    if out is None or out == "-":
        sys.stdout.buffer.write(data)
        sys.stdout.flush()
    else:
        with open(out, "wb") as target:
            target.write(data)


def _cmd_games_export(args: argparse.Namespace, settings: Settings) -> int:
    """A finished game from the database (or a file, ``--from``) as NDJSON or PPN."""
    import uuid

    from service.eventlog.codec import domain_codec
    from service.games.export import from_ppn, is_ppn, load_export, to_ppn

    if args.source is not None:  # offline: one format into the other
        with sys.stdin.buffer if args.source == "-" else open(args.source, "rb") as source:
            data = source.read()
        try:
            if is_ppn(data):
                out = data if args.format == "ppn" else b"".join(from_ppn(data.decode()))
            else:
                lines = data.splitlines()
                out = b"".join(line + b"\n" for line in lines if line.strip())
                if args.format == "ppn":
                    out = to_ppn(lines, domain_codec()).encode()
        except (ImportRefused, UnicodeDecodeError) as exc:
            print(f"preferans games export: {exc}", file=sys.stderr)
            return 1
        _write_out(args.out, out)
        return 0
    if args.game is None:
        print("preferans games export: name a game, or --from FILE", file=sys.stderr)
        return 1
    try:
        game_id = uuid.UUID(args.game)
    except ValueError:
        print(f"preferans games export: {args.game!r} is not a game id", file=sys.stderr)
        return 1

    async def action(event_log: EventLog[Any]) -> int:
        from service.exceptions import NotFound, NotYet
        from service.games.tournaments import Embargo
        from service.players.accounts import Players
        from service.read_models.storage import read_deal_analysis

        try:
            await Embargo(event_log.pool).may_disclose(game_id)
            found = await load_export(event_log, Players(event_log.pool), game_id)
        except (NotFound, NotYet) as exc:
            print(f"preferans games export: {exc}", file=sys.stderr)
            return 1
        analyses: dict[int, str] = {}
        if args.analysis:
            deals = sum(1 for e in found.events if type(e).__name__ == "DealStarted")
            for n in range(1, deals + 1):
                deal = await read_deal_analysis(event_log.pool, str(game_id), n)
                if deal is not None:
                    analyses[n] = msgspec.json.encode(deal).decode()
        if args.format == "ppn":
            data = found.ppn(analyses).encode()
        else:
            data = b"".join(found.ndjson())
            for n, text in sorted(analyses.items()):
                data += b'{"analysis": ' + text.encode() + b', "deal_no": %d}\n' % n
        _write_out(args.out, data)
        return 0

    return _with_log(settings, action)


def _cmd_games_verify(args: argparse.Namespace, settings: Settings) -> int:
    """Check an export offline; exit 0 if nothing failed, 1 if something did, 2 if unreadable."""
    from service.eventlog.codec import domain_codec
    from service.games.export import from_ppn, is_ppn
    from service.games.proof import ExportUnreadable, from_export, prove

    with sys.stdin.buffer if args.file == "-" else open(args.file, "rb") as source:
        data = source.read()
    try:
        lines = from_ppn(data.decode()) if is_ppn(data) else data.splitlines()
        stream_id, head, links = from_export(lines)
    except (ExportUnreadable, ImportRefused, UnicodeDecodeError) as exc:
        print(f"preferans games verify: {exc}", file=sys.stderr)
        return 2
    proof = prove(stream_id, links, domain_codec())
    problems = list(proof.problems)
    pinned = args.head or head
    if pinned is not None and proof.head != pinned:
        problems.append(f"the chain ends at {proof.head}, not at the head {pinned}")
    if args.json:
        print(msgspec.json.encode(proof).decode())
    else:
        print(format_proof(proof, problems))
    return 1 if problems else 0


def format_proof(proof: Any, problems: Sequence[str]) -> str:
    """A proof for people: what was checked, and the first failures."""
    lines = [f"{proof.stream_id}: {proof.events} events, head {proof.head}"]
    lines.append(f"chain: {'ok' if proof.chain_ok else f'broken at event {proof.first_bad_event}'}")
    lines.append(f"dealing: {proof.dealing or 'legacy (before commitments)'}")
    if proof.commitment:
        opened = {None: "not revealed yet", True: "opened", False: "NOT opened"}
        lines.append(f"commitment {proof.commitment}: {opened[proof.commitment_opened]}")
    counts: dict[str, int] = {}
    for deal in proof.deals:
        counts[deal.status] = counts.get(deal.status, 0) + 1
    summary = ", ".join(f"{n} {status}" for status, n in sorted(counts.items())) or "none dealt"
    lines.append(f"deals: {summary}")
    if proof.first_bad_deal is not None:
        lines.append(f"first deal that differs: {proof.first_bad_deal}")
    bad = proof.first_illegal_event
    if bad is None:
        lines.append("rules: every event legal")
    else:
        lines.append(f"rules: first illegal event {bad.version} ({bad.type}): {bad.reason}")
    lines += [f"FAILED: {problem}" for problem in problems]
    verdict = "failed" if problems else proof.verdict.replace("_", " ")
    lines.append(f"verdict: {verdict}")
    return "\n".join(lines)


# --- projections ----------------------------------------------------------------------------------


def _with_projections(settings: Settings, action: Callable[[Projections], Awaitable[int]]) -> int:
    from service.read_models.runner import ProjectionError, Projections

    async def run(event_log: EventLog[Any]) -> int:
        return await action(Projections(event_log))

    try:
        return _with_log(settings, run, "projections")
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
    from service.read_models.runner import FAILED

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


# --- moderators -----------------------------------------------------------------------------------

_FIND_PLAYER = """
SELECT player_id::text, name FROM api.players
 WHERE player_id::text = $1 OR lower(name) = lower($1) ORDER BY player_id::text = $1 DESC LIMIT 1"""


def _with_admin(settings: Settings, action: Callable[[Any], Awaitable[int]]) -> int:
    """Run ``action`` on a connection as the administrator (the migrations' DSN): only he may
    grant or revoke a role; the service's own database roles may not write api.moderators."""
    import asyncpg

    dsn = preflight.database_dsn(settings)

    async def main() -> int:
        conn = await asyncpg.connect(dsn)
        try:
            return await action(conn)
        finally:
            await conn.close()

    return asyncio.run(main())


def _cmd_moderators_grant(args: argparse.Namespace, settings: Settings) -> int:
    async def action(conn: Any) -> int:
        row = await conn.fetchrow(_FIND_PLAYER, args.player)
        if row is None:
            print(f"no player {args.player!r}", file=sys.stderr)
            return 1
        await conn.execute(
            "INSERT INTO api.moderators (player_id, note) VALUES ($1::uuid, $2)"
            " ON CONFLICT (player_id) DO UPDATE SET note = EXCLUDED.note",
            row[0], args.note,
        )  # fmt: skip
        print(f"{row[1]} ({row[0]}) is a moderator")
        return 0

    return _with_admin(settings, action)


def _cmd_moderators_revoke(args: argparse.Namespace, settings: Settings) -> int:
    async def action(conn: Any) -> int:
        row = await conn.fetchrow(_FIND_PLAYER, args.player)
        done = row is not None and await conn.execute(
            "DELETE FROM api.moderators WHERE player_id = $1::uuid", row[0]
        )
        if done != "DELETE 1":
            print(f"{args.player!r} is not a moderator", file=sys.stderr)
            return 1
        print(f"{row[1]} ({row[0]}) is no longer a moderator")
        return 0

    return _with_admin(settings, action)


def _cmd_moderators_list(args: argparse.Namespace, settings: Settings) -> int:
    async def action(conn: Any) -> int:
        rows = await conn.fetch(
            "SELECT m.player_id::text, coalesce(p.name, '?'), m.granted_at, m.note"
            " FROM api.moderators m LEFT JOIN api.players p USING (player_id)"
            " ORDER BY m.granted_at"
        )
        for r in rows:
            print(f"{r[0]}  {r[1]}  since {r[2]:%Y-%m-%d}  {r[3]}".rstrip())
        return 0

    return _with_admin(settings, action)


# --- puzzles ----------------------------------------------------------------------------------


def _cmd_puzzles_ratings(args: argparse.Namespace, settings: Settings) -> int:
    """Fold the puzzle attempts into ratings and compare with the kept ones (1 when any
    differs); ``--rebuild`` writes the folded ones over them."""
    from service.read_models.puzzles import check_ratings

    async def action(conn: Any) -> int:
        checked = await check_ratings(conn, rebuild=args.rebuild)
        print(
            f"{checked.attempts} attempts, {checked.players} players, {checked.puzzles} puzzles:"
            f" {len(checked.differing)} ratings differ from the attempts' fold"
            + (", rewritten" if checked.rewritten else "")
        )
        for one in checked.differing[:20]:
            print(f"  {one}")
        return 1 if checked.differing and not checked.rewritten else 0

    return _with_admin(settings, action)


# --- the parser -----------------------------------------------------------------------------------


def build_parser() -> argparse.ArgumentParser:
    """The argument parser; each leaf subcommand sets ``handler`` to a `Command`."""
    parser = argparse.ArgumentParser(
        prog="preferans",
        description="The Preferans service.\n\ncommands:\n" + _commands_help(),
        epilog=_environment_help(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("-v", "--verbose", action="store_true", help="log at INFO level")
    parser.add_argument("--version", action="version", version=f"preferans {_version()}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    db = commands.add_parser("db", help="database schema").add_subparsers(
        dest="db_command", required=True, metavar="ACTION"
    )
    up = db.add_parser("upgrade", help="run the migrations (idempotent)")
    up.add_argument("revision", nargs="?", default="head", help="target revision (head)")
    up.set_defaults(handler=_cmd_db_upgrade)

    serve = commands.add_parser("serve", help="run the HTTP API")
    serve.add_argument("--host", help="listen address (PREFERANS_HOST, default 127.0.0.1)")
    serve.add_argument(
        "--port", type=_number_from(1, 65535), help="listen port (PREFERANS_PORT, default 8000)"
    )
    serve.add_argument(
        "--workers", type=_number_from(1, 1024),
        help="server processes on the port (PREFERANS_WORKERS, default 1)",
    )  # fmt: skip
    serve.set_defaults(handler=_cmd_serve)

    bots = commands.add_parser("bots", help="move the service's bots (a worker process)")
    bots.set_defaults(handler=_cmd_bots)

    background = commands.add_parser(
        "background",
        help="the projections, analyst, purger and snapshots' writer (a worker process)",
    )
    background.set_defaults(handler=_cmd_background)

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

    moderators = commands.add_parser(
        "moderators", help="the moderator role: who may read the fair-play report"
    ).add_subparsers(dest="moderators_command", required=True, metavar="ACTION")
    grant = moderators.add_parser("grant", help="make a player a moderator")
    grant.add_argument("player", metavar="PLAYER", help="the player's id or name")
    grant.add_argument("--note", default="", help="why, for the record (200 characters)")
    grant.set_defaults(handler=_cmd_moderators_grant)
    revoke = moderators.add_parser("revoke", help="take the role back")
    revoke.add_argument("player", metavar="PLAYER", help="the player's id or name")
    revoke.set_defaults(handler=_cmd_moderators_revoke)
    listed = moderators.add_parser("list", help="the moderators")
    listed.set_defaults(handler=_cmd_moderators_list)

    puzzles = commands.add_parser("puzzles", help="puzzle ratings").add_subparsers(
        dest="puzzles_command", required=True, metavar="ACTION"
    )
    ratings = puzzles.add_parser(
        "ratings", help="check the puzzle ratings against a fold of the attempts (or rebuild)"
    )
    ratings.add_argument(
        "--rebuild", action="store_true", help="write the folded ratings over those that differ"
    )
    ratings.set_defaults(handler=_cmd_puzzles_ratings)

    games = commands.add_parser("games", help="whole games").add_subparsers(
        dest="games_command", required=True, metavar="ACTION"
    )
    export = games.add_parser(
        "export", help="a finished game as NDJSON or PPN (from the database, or --from a file)"
    )
    export.add_argument("game", nargs="?", help="the game's id")
    export.add_argument("--from", dest="source", help="convert this export file instead (- stdin)")
    export.add_argument("--format", choices=("ndjson", "ppn"), default="ndjson")
    export.add_argument(
        "--analysis", action="store_true", help="attach each deal's analysis (once analysed)"
    )
    export.add_argument("-o", "--out", help="write here (default: standard output)")
    export.set_defaults(handler=_cmd_games_export)
    load = games.add_parser(
        "import", help="import an exported game (NDJSON or PPN) as the same game"
    )
    load.add_argument("file", help="the export file, or - for standard input")
    load.set_defaults(handler=_cmd_games_import)
    verify = games.add_parser(
        "verify", help="check an export's hash chain, commitment and every deck (no database)"
    )
    verify.add_argument("file", help="the export (NDJSON), `-` for stdin")
    verify.add_argument("--head", help="the head hash you pinned during play")
    verify.add_argument("--json", action="store_true", help="print the whole proof as JSON")
    verify.set_defaults(handler=_cmd_games_verify)
    return parser


def _commands_help() -> str:
    """Every leaf command, as this module's docstring lists them."""
    lines = (__doc__ or "").splitlines()
    return "\n".join(line for line in lines if line.startswith("    preferans "))


def _environment_help() -> str:
    """Every setting's variable (`service.platform.settings`' docstring) and the exit codes."""
    lines = (_SETTINGS_DOC or "").splitlines()
    table = [line for line in lines if line.startswith("    ")]
    codes = [f"    {code:<3} {meaning}" for code, meaning in EXIT_CODES.items()]
    return "\n".join(["environment:", *table, "", "exit codes:", *codes])


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("preferans")
    except PackageNotFoundError:  # run from a source tree that was never installed
        return "unknown"


def _terminate(signum: int, frame: object) -> None:
    """SIGTERM as SIGINT: unwind, so that exit handlers (the embedded server's) run."""
    raise SystemExit(128 + signum)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``preferans`` console script."""
    args = build_parser().parse_args(argv)
    # The server installs its own handlers while it serves; this covers the rest of the run,
    # and only the run: whoever called main (a test, a script) gets its own handler back.
    previous = signal.signal(signal.SIGTERM, _terminate)
    handler: Command = args.handler
    try:
        settings = preflight.load_settings()
        if args.verbose:  # the server's workers read it from the environment
            os.environ["PREFERANS_LOG_LEVEL"] = "info"
            settings = msgspec.structs.replace(settings, log_level="info")
        configure_logging(settings)
        return handler(args, settings)
    except preflight.ConfigurationError as exc:
        print(f"preferans: {exc}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        return 130
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_DFL if previous is None else previous)


if __name__ == "__main__":
    sys.exit(main())
