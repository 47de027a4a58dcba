"""The edge: what every request meets before the API reads it, in one ASGI middleware.

- **The request id and the request metrics** (`service.api.observability`): the id is set for
  the request's logs and events and echoed as ``X-Request-ID``; the request is counted and
  timed per route template, and logged once.
- **Rate limits** per token and per client address, reads and writes apart
  (`service.api.rate_limits`): over the limit is 429 with ``Retry-After``; every limited response
  carries the ``RateLimit`` and ``RateLimit-Policy`` fields of the IETF draft.
- **Conditional reads answered from memory**: a GET route whose handler's ``opt`` names an
  ``unchanged`` function (the game's view, `service.api.games.views.unchanged_game`) has its 304
  sent from here when that function knows the answer, before any of Litestar's per-request
  work (the request object, dependencies, the handler, the response object); otherwise the
  request goes the full way, which answers the same.
- **Strict requests**: the headers stay within ``max_headers`` bytes in all (431; granian's own
  buffer refuses far larger ones before the app), an id in the path is a UUID in its one
  canonical spelling, 8-4-4-4-12 hex digits (Python's ``uuid.UUID`` that Litestar parses with
  also reads ``{…}``, ``urn:uuid:…`` and bare hex: 404, as for any path the API does not
  have), and no query parameter comes twice (400: every parameter of this API has one value,
  and which one counted would be the framework's choice).
- **Bodies**: a request with a body must say ``application/json`` (415; not even another
  ``+json`` type, which would claim a meaning the body does not have; the OAuth endpoints,
  whose RFCs send forms, take ``application/x-www-form-urlencoded``: route opt ``form``), send
  it whole within ``body_timeout`` seconds (408; a client that announces ``Content-Length: 10``
  and sends nothing no longer holds a connection open), stay under ``max_body`` bytes (413)
  and nest no deeper than ``max_depth`` (400: msgspec would recurse as deep as the JSON goes).

One middleware rather than three: each layer of Litestar's stack costs a call, a wrapped
``send`` and a pass over the headers per request; here the headers are read once and ``send``
is wrapped once.

The server in front (granian) bounds the rest: headers within a time, idle keep-alive
connections, and how many requests a process serves at once. Refusals are problem+json, mapped
in `service.api.errors` like every other.
"""

from __future__ import annotations

import asyncio
import hashlib
import re
import time
import uuid
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any
from urllib.parse import unquote_plus

from service.api.errors import raw_problem
from service.api.observability import METRICS_PATH, log_access, request_id_of, request_metrics
from service.api.rate_limits import RateLimiter, Verdict
from service.exceptions import (
    BadRequest,
    HeadersTooLarge,
    NotFound,
    PayloadTooLarge,
    RateLimited,
    RequestTimeout,
    TooDeep,
    UnsupportedMediaType,
)
from service.platform.telemetry import request_id

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

_BODY_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
_READS = frozenset({"GET", "HEAD"})
_LIMITED = "/v1/"
_CANONICAL_UUID = re.compile(
    r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
)


class Edge:
    """The ASGI middleware (see the module docstring). ``limiter`` gives the app's rate
    limiter, or None while limits are off; ``metrics`` says whether requests are counted."""

    def __init__(
        self,
        app: ASGIApp,
        *,
        limiter: Callable[[Scope], RateLimiter | None],
        body_timeout: float = 10.0,
        max_body: int = 64 * 1024,
        max_depth: int = 32,
        max_headers: int = 16 * 1024,
        metrics: bool = True,
    ) -> None:
        self.app = app
        self.max_headers = max_headers
        self.limiter = limiter
        self.body_timeout = body_timeout
        self.max_body = max_body
        self.max_depth = max_depth
        self.metrics = request_metrics() if metrics else None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        path: str = scope["path"]
        method: str = scope["method"]
        headers = _Headers(scope["headers"])
        rid = request_id_of(headers.request_id)
        token = request_id.set(rid)
        metrics = self.metrics if path != METRICS_PATH else None
        route: str = scope.get("path_template", path)
        if metrics is not None:
            metrics.started(method, route)
        verdict: Verdict | None = None
        status = 500
        extra = [(b"x-request-id", rid.encode())]

        async def sending(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                message["headers"] = [*message.get("headers", ()), *extra]
            await send(message)

        try:
            refusal = _strictly(scope, headers, self.max_headers)
            if refusal is not None:
                await _refuse(sending, refusal, path)
                return
            limiter = self.limiter(scope) if path.startswith(_LIMITED) else None
            if limiter is not None and method != "OPTIONS":
                verdict = limiter.hit(
                    "reads" if method in _READS else "writes", _subjects(scope, headers)
                )
                extra += _rate_headers(verdict)
                if not verdict.allowed:
                    refusal = RateLimited(
                        f"over {verdict.policy.limit} {verdict.policy.name} per "
                        f"{verdict.policy.window} s",
                        retry_after=verdict.reset,
                    )
                    await _refuse(sending, refusal, path)
                    return
            if headers.if_none_match is not None and method == "GET":
                unchanged = scope["route_handler"].opt.get("unchanged")
                if unchanged is not None and not scope["query_string"]:
                    found = unchanged(scope, headers.authorization, headers.if_none_match)
                    if found is not None:
                        await sending({"type": "http.response.start", "status": 304,
                                       "headers": found})  # fmt: skip
                        await sending({"type": "http.response.body", "body": b""})
                        return
            if method in _BODY_METHODS and headers.has_body:
                try:
                    form = bool(scope["route_handler"].opt.get("form"))
                    body = await self._body(headers, receive, form)
                except (RequestTimeout, PayloadTooLarge, UnsupportedMediaType, TooDeep) as exc:
                    await _refuse(sending, exc, path)
                    return
                receive = _replay(body, receive)
            await self.app(scope, receive, sending)
        finally:
            if metrics is not None:
                metrics.ended(method, route, status, time.perf_counter() - started)
            log_access(method, path, status, started)
            request_id.reset(token)

    async def _body(self, headers: _Headers, receive: Receive, form: bool = False) -> bytes:
        content_type = headers.content_type.split(b";", 1)[0].strip().lower()
        if form and content_type == _FORM:
            pass
        elif form:
            raise UnsupportedMediaType("this request's body is application/x-www-form-urlencoded")
        elif content_type != b"application/json":
            raise UnsupportedMediaType("request bodies are application/json")
        length = headers.content_length
        if length.isdigit() and int(length) > self.max_body:
            raise PayloadTooLarge(f"request bodies are at most {self.max_body} bytes")
        chunks: list[bytes] = []
        size = 0
        try:
            async with asyncio.timeout(self.body_timeout):
                while True:
                    message = await receive()
                    if message["type"] == "http.disconnect":
                        break
                    chunk = message.get("body", b"")
                    size += len(chunk)
                    if size > self.max_body:
                        raise PayloadTooLarge(f"request bodies are at most {self.max_body} bytes")
                    chunks.append(chunk)
                    if not message.get("more_body", False):
                        break
        except TimeoutError:
            raise RequestTimeout(
                f"the request body did not arrive within {self.body_timeout:g} s"
            ) from None
        body = b"".join(chunks)
        if not form and _too_deep(body, self.max_depth):
            raise TooDeep(f"JSON nested deeper than {self.max_depth} levels")
        return body


_FORM = b"application/x-www-form-urlencoded"


class _Headers:
    """The few request headers the edge reads, found in one pass."""

    __slots__ = (
        "authorization", "chunked", "content_length", "content_type", "if_none_match",
        "request_id", "size",
    )  # fmt: skip

    def __init__(self, raw: list[tuple[bytes, bytes]]) -> None:
        self.authorization = self.content_length = self.content_type = b""
        self.request_id: bytes | None = None
        self.if_none_match: bytes | None = None
        self.chunked = False
        self.size = 0
        """The bytes of every field, names and values (what a client made the server hold)."""
        for key, value in raw:
            self.size += len(key) + len(value) + 4  # ": " and CRLF
            if key == b"authorization":
                self.authorization = bytes(value)
            elif key == b"content-length":
                self.content_length = bytes(value)
            elif key == b"content-type":
                self.content_type = bytes(value)
            elif key == b"x-request-id":
                self.request_id = bytes(value)
            elif key == b"if-none-match":
                self.if_none_match = bytes(value)
            elif key == b"transfer-encoding":
                self.chunked = bool(value)

    @property
    def has_body(self) -> bool:
        length = self.content_length
        return (length != b"" and length != b"0") or self.chunked


def _strictly(scope: Scope, headers: _Headers, max_headers: int) -> Exception | None:
    """What the edge refuses of a request's head (see the module docstring), or None."""
    if headers.size > max_headers:
        return HeadersTooLarge(f"the request's header fields are at most {max_headers} bytes")
    params = scope.get("path_params")
    if params and any(isinstance(v, uuid.UUID) for v in params.values()):
        template: str = scope.get("path_template", "")
        for part, raw in zip(template.split("/"), scope["path"].split("/"), strict=False):
            named = part[:1] == "{" and isinstance(params.get(part[1:-1]), uuid.UUID)
            if named and _CANONICAL_UUID.fullmatch(raw) is None:
                return NotFound("an id in the path is written 8-4-4-4-12 hex digits")
    query: bytes = scope.get("query_string", b"")
    if b"&" in query:
        seen: set[bytes] = set()
        for pair in query.split(b"&"):
            name = pair.split(b"=", 1)[0]
            if name in seen:
                text = unquote_plus(name.decode("latin-1"))
                return BadRequest(f"query parameter {text!r} comes twice", where=f"query.{text}")
            seen.add(name)
    return None


def _subjects(scope: Scope, headers: _Headers) -> list[str]:
    """Whom a request counts against: its client address and, if it sends one, its token."""
    client = scope.get("client")
    subjects = [f"addr:{client[0] if client else 'unknown'}"]
    if headers.authorization:
        subjects.append("token:" + hashlib.sha256(headers.authorization).hexdigest()[:24])
    return subjects


def _too_deep(body: bytes, limit: int) -> bool:
    """Whether the JSON in ``body`` nests deeper than ``limit`` (brackets outside strings).
    Cheap for the bodies of this API: only one with more brackets than that is scanned."""
    if body.count(b"[") + body.count(b"{") <= limit:
        return False
    depth = 0
    in_string = escaped = False
    for byte in body:
        if in_string:
            if escaped:
                escaped = False
            elif byte == 0x5C:  # backslash
                escaped = True
            elif byte == 0x22:  # quote
                in_string = False
        elif byte == 0x22:
            in_string = True
        elif byte in (0x5B, 0x7B):  # [ {
            depth += 1
            if depth > limit:
                return True
        elif byte in (0x5D, 0x7D):  # ] }
            depth -= 1
    return False


def _replay(body: bytes, receive: Receive) -> Receive:
    """A ``receive`` that gives the body read already, then waits for the disconnect."""
    sent = False

    async def replayed() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replayed


def _rate_headers(verdict: Verdict) -> list[tuple[bytes, bytes]]:
    policy = verdict.policy
    return [
        (b"ratelimit-policy", f'"{policy.name}";q={policy.limit};w={policy.window}'.encode()),
        (b"ratelimit", f'"{policy.name}";r={verdict.remaining};t={verdict.reset}'.encode()),
    ]


async def _refuse(send: Send, exc: Exception, path: str) -> None:
    problem = raw_problem(exc, instance=path)
    headers = [(k.lower().encode(), v.encode()) for k, v in problem.headers]
    await send({"type": "http.response.start", "status": problem.status, "headers": headers})
    await send({"type": "http.response.body", "body": problem.body})
