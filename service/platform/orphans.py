"""Processes the service starts die with the one that started them."""

from __future__ import annotations

import os
import signal
import sys


def die_with_parent() -> None:
    """Have the kernel end this process when its parent dies (Linux ``PR_SET_PDEATHSIG``): a
    ``kill -9`` of ``preferans serve`` must leave no worker behind, holding the port, the
    parent's output or a database connection."""
    if not sys.platform.startswith("linux"):
        return
    import ctypes

    parent = os.getppid()
    libc = ctypes.CDLL(None, use_errno=True)
    pr_set_pdeathsig = 1
    libc.prctl(pr_set_pdeathsig, signal.SIGKILL)  # as abruptly as its parent went
    if os.getppid() != parent:  # the parent died before the request took effect
        os.kill(os.getpid(), signal.SIGKILL)
