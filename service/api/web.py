"""The reference web client over HTTP: its page at ``/`` and its files under ``/web/``, served
as they are (``service/web/``: ES modules and a stylesheet, no build step) under a strict
Content-Security-Policy."""

from __future__ import annotations

from pathlib import Path

from litestar.enums import ScopeType
from litestar.exceptions import NotFoundException
from litestar.file_system import BaseLocalFileSystem
from litestar.handlers import ASGIRouteHandler, asgi
from litestar.static_files.base import StaticFiles
from litestar.types import Message, Receive, Scope, Send

WEB_DIR = Path(__file__).resolve().parents[1] / "web"
"""The reference web client's files, served as they are at ``/``."""
WEB_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; "
        "connect-src 'self'; manifest-src 'self'; base-uri 'none'; form-action 'self'; "
        "frame-ancestors 'none'"
    ),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}
"""The client runs under a strict policy: no inline script or style, nothing from elsewhere.
Images may be ``blob:`` URLs the client made itself: the pool sheet's drawing is fetched with the
player's token (a duplicate table's is shown to its own players only) and shown from a Blob."""


def web_client() -> list[ASGIRouteHandler]:
    """The reference web client: its page at ``/``, its modules and styles under ``/web/``.

    ASGI handlers, so they stay out of the API's OpenAPI document; whatever they do not hold is
    the API's own 404 (problem+json). Revalidated on every load (``no-cache``), so a new
    release is picked up at once.
    """
    files = StaticFiles(is_html_mode=True, directories=[WEB_DIR], file_system=BaseLocalFileSystem())
    # Added as the response starts: StaticFiles would share (and mutate) one headers dict.
    extra = [(k.lower().encode(), v.encode()) for k, v in WEB_HEADERS.items()]
    extra.append((b"cache-control", b"no-cache"))

    async def serve(path: str, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != ScopeType.HTTP or scope["method"] not in ("GET", "HEAD"):
            raise NotFoundException()  # as it was before the client: the path names nothing

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", ()), *extra]
            await send(message)

        response = await files.handle(path=path, is_head_response=scope["method"] == "HEAD")
        await response(scope, receive, send_with_headers)

    @asgi("/", copy_scope=True, name="web-page")
    async def page(scope: Scope, receive: Receive, send: Send) -> None:
        await serve("index.html", scope, receive, send)

    @asgi("/web", is_mount=True, copy_scope=True, name="web-files")
    async def assets(scope: Scope, receive: Receive, send: Send) -> None:
        # The mount hands on "/web/js/main.js" as "js/main.js/": the file is what lies between.
        await serve(scope["path"].strip("/") or ".", scope, receive, send)

    return [page, assets]
