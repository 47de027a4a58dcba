"""``preferans serve`` as processes: granian serving the app in its workers, and the bot and
background workers beside them, each dying with the process that started it.

Apart from the app assembly (`service.app`) on purpose: the process that starts them checks
the database, migrates and waits, and importing the app (Litestar, every controller, the bots)
there cost each start a second of CPU for nothing; the workers import what their role needs.
"""

from __future__ import annotations

import logging
import os
import subprocess
import sys
from typing import Literal

from service.platform.database import resolve_dsn
from service.platform.metrics import forget_process, prepare_multiprocess
from service.platform.orphans import die_with_parent
from service.platform.settings import Settings
from service.platform.telemetry import configure_logging

log = logging.getLogger(__name__)

WORKER_STOP_TIMEOUT = 5.0
"""Seconds a bot or background worker has to stop after ``serve`` ends, before it is killed."""


def run(settings: Settings, *, where: str | None = None) -> None:
    """Serve the API on ``settings.host:settings.port`` with ``settings.workers`` processes
    (``preferans serve``), printing ``where`` (one line: the web client, the API docs, the
    data) once all but the server has started.

    granian (hyper and tokio underneath, uvloop for the app) rather than uvicorn: its header
    read timeout closes slowloris and silent connections and idle keep-alive ones (HTTP/1.1
    only: its HTTP/2 sniffing would wait for a first byte with no timeout), it caps the
    requests a process serves at once (backpressure) and the pending connections (backlog), it
    runs several worker processes on one port, and it serves a request in about the same time
    as uvicorn with httptools. The body read timeout and the size limit are the app's own
    (`service.api.edge`).
    """
    import multiprocessing

    from granian import Granian
    from granian.constants import HTTPModes, Interfaces, Loops
    from granian.http import HTTP1Settings

    # The embedded server starts here, once, before any worker; the workers find it by URL.
    os.environ["DATABASE_URL"] = resolve_dsn(settings)
    # Every process writes its metrics to one folder, which each worker's /metrics adds up.
    # The workers are spawned, not forked, so that each builds its metrics for that folder
    # (this process built its own before the variable was set).
    prepare_multiprocess()
    multiprocessing.set_start_method("spawn", force=True)
    placed = {"bots": settings.bot_worker, "background": settings.background_worker}
    workers = [_start_worker(role) for role, where in placed.items() if where == "process"]
    log.info("serving on http://%s:%d with %d worker(s)", settings.host, settings.port,
             settings.workers)  # fmt: skip
    if where is not None:
        print(where, flush=True)
    Granian(
        "service.app:serve_app",
        factory=True,
        address=settings.host,
        port=settings.port,
        interface=Interfaces.ASGI,
        http=HTTPModes.http1,
        loop=Loops.uvloop,
        workers=settings.workers,
        backlog=settings.max_connections,
        backpressure=settings.max_concurrency,
        http1_settings=HTTP1Settings(
            header_read_timeout=int(settings.header_timeout * 1000),
            keep_alive=True,
            max_buffer_size=64 * 1024,  # headers beyond: 431 before the app (the edge: 16 KiB)
        ),
        log_access=False,
        # granian's own lines go to the root logger, in PREFERANS_LOG_FORMAT like the app's.
        log_dictconfig={"loggers": {"_granian": {"handlers": [], "propagate": True}}},
        respawn_failed_workers=True,
        workers_kill_timeout=5,  # open SSE streams end; their clients resume elsewhere
    ).serve()
    for worker in workers:
        worker.terminate()
    for worker in workers:
        try:
            worker.wait(timeout=WORKER_STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            worker.kill()
        forget_process(worker.pid)


def _start_worker(role: str) -> subprocess.Popen[bytes]:
    """``preferans bots`` or ``preferans background`` beside the API workers, in a process of
    its own that dies with this one (`worker_entry`): the bots think off the API's event loop,
    and the roles' logins of the projections and the purger stay out of the API's process."""
    return subprocess.Popen(
        [sys.executable, "-c", f"from service.server import worker_entry; worker_entry({role!r})"],
        stdin=subprocess.DEVNULL,
    )


def worker_entry(role: Literal["bots", "background"]) -> None:
    """A worker's process, ended by the kernel if ``preferans serve`` goes, and niced: on a
    busy machine the API's requests come before a bot's thinking or a projection's round."""
    from service.bootstrap import worker_main

    die_with_parent()
    os.nice(10)
    settings = Settings.from_env()
    configure_logging(settings, level=logging.INFO)
    sys.exit(worker_main(settings, role))


__all__ = ["run", "worker_entry"]
