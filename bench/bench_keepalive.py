"""Small requests one after another on one keep-alive connection: no ~40 ms stalls (Nagle's
algorithm meeting a delayed ACK), beside the same requests on a new connection each.

    PREFERANS_TEST_DATABASE_URL=postgresql://… python bench/bench_keepalive.py \
        [--requests 300] [--smoke]

Starts ``preferans serve`` on a scratch database (dropped at the end) and sends, over a raw
socket, ``GET /health`` and a small ``POST /v1/players`` whose headers and body go out in two
writes (the pattern that stalls when either side delays small segments). Prints p50, p99 and the
worst, and the count of requests slower than 30 ms. The last row leaves Nagle's algorithm on
in the client: its body waits for the ACK of its headers, which the server delays (~40 ms on
Linux); a client that writes a request in pieces must set TCP_NODELAY (browsers, httpx and
curl do). The server's own writes show no such stall (the keep-alive rows).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import socket
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
from _kit import add_smoke, database_server, free_port, preferans, scratch_database, served


def exchange(sock: socket.socket, parts: list[bytes]) -> None:
    for part in parts:
        sock.sendall(part)
    data = b""
    while b"\r\n\r\n" not in data:
        data += sock.recv(65536)
    head, _, body = data.partition(b"\r\n\r\n")
    length = int(next(line.split(b":")[1] for line in head.split(b"\r\n")
                      if line.lower().startswith(b"content-length")))  # fmt: skip
    while len(body) < length:
        body += sock.recv(65536)


def connect(port: int, nodelay: bool) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", port))
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, int(nodelay))
    return sock


def measure(
    port: int, parts: list[bytes], count: int, keep_alive: bool, nodelay: bool
) -> list[float]:
    times = []
    sock = connect(port, nodelay)
    try:
        for _ in range(count):
            if not keep_alive:
                sock.close()
                sock = connect(port, nodelay)
            start = time.perf_counter()
            exchange(sock, parts)
            times.append(time.perf_counter() - start)
    finally:
        sock.close()
    return times


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=300)
    add_smoke(parser)
    args = parser.parse_args()
    if args.smoke:
        args.requests = 20
    async with scratch_database(database_server(), migrated=True) as dsn:
        await bench(dsn, args.requests)


async def bench(dsn: str, requests: int) -> None:
    port = free_port()
    env = {"DATABASE_URL": dsn, "PREFERANS_RATE_LIMITS": "false", "PREFERANS_BOT_WORKER": "off"}
    health = [b"GET /health HTTP/1.1\r\nHost: bench\r\n\r\n"]
    body = b'{"name": "bench"}'
    register = [
        b"POST /v1/players HTTP/1.1\r\nHost: bench\r\nContent-Type: application/json\r\n"
        b"Content-Length: %d\r\n\r\n" % len(body),
        body,
    ]
    async with served([*preferans(), "serve", "--port", str(port)], env, port):
        print(f"{'':36}{'p50 ms':>8}{'p99 ms':>8}{'max ms':>8}{'>30 ms':>8}")
        for label, parts, keep, nodelay in (
            ("baseline: GET /health, new conn.", health, False, True),
            ("GET /health, keep-alive", health, True, True),
            ("POST, two writes, client NODELAY", register, True, True),
            ("POST, two writes, client Nagle", register, True, False),
        ):
            times = await asyncio.to_thread(measure, port, parts, requests, keep, nodelay)
            times.sort()
            slow = sum(t > 0.030 for t in times)
            print(f"{label:36}{statistics.median(times) * 1000:8.2f}"
                  f"{times[int(len(times) * 0.99)] * 1000:8.2f}{times[-1] * 1000:8.2f}"
                  f"{slow:8}")  # fmt: skip


if __name__ == "__main__":
    asyncio.run(main())
