"""The interactive API documentation at ``/schema``: Swagger UI served from this package.

The Swagger UI files come with the ``swagger-ui-bundle-v2`` package (Swagger UI 5, which reads
OpenAPI 3.1) and the page's own script and style from ``service/docs/``; all of them are served
under ``/schema/assets/``, so the page loads nothing from another host and works offline. The
page runs under a Content-Security-Policy as strict as the web client's: no inline script or
style (the page's start is ``init.js``), nothing from another origin.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any
from xml.sax.saxutils import quoteattr

from litestar import Request, Router
from litestar.datastructures import ResponseHeader
from litestar.enums import ScopeType
from litestar.exceptions import NotFoundException
from litestar.file_system import BaseLocalFileSystem
from litestar.handlers import asgi
from litestar.openapi.plugins import OpenAPIRenderPlugin
from litestar.static_files.base import StaticFiles
from litestar.types import Message, Receive, Scope, Send
from swagger_ui_bundle import swagger_ui_path

DOCS_DIR = Path(__file__).resolve().parents[1] / "docs"
SWAGGER_DIR = Path(str(swagger_ui_path))
DOCS_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'none'; script-src 'self'; style-src 'self'; "
        "img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'self'; "
        "frame-ancestors 'none'"
    ),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}
_ASSETS = ("swagger-ui.css", "swagger-ui-bundle.js", "favicon-32x32.png", "init.js", "docs.css")


class OfflineSwagger(OpenAPIRenderPlugin):
    """Swagger UI at ``/schema`` (and ``/schema/swagger``), its files under ``assets/``."""

    def __init__(self) -> None:
        super().__init__(path=["/", "/swagger"])

    def render(self, request: Request[Any, Any, Any], openapi_schema: dict[str, Any]) -> bytes:
        base = request.app.route_reverse("docs-assets")
        spec = self.get_openapi_json_route(request)
        title = str(openapi_schema["info"]["title"])
        return (
            '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
            f"<title>{title} API</title>"
            '<meta name="viewport" content="width=device-width, initial-scale=1">'
            f'<link rel="icon" type="image/png" href="{base}/favicon-32x32.png">'
            f'<link rel="stylesheet" href="{base}/swagger-ui.css">'
            f'<link rel="stylesheet" href="{base}/docs.css">'
            f'</head><body><div id="swagger-ui" data-spec={quoteattr(spec)}></div>'
            f'<script src="{base}/swagger-ui-bundle.js"></script>'
            f'<script src="{base}/init.js"></script>'
            "</body></html>\n"
        ).encode()

    def receive_router(self, router: Router) -> None:
        router.register(docs_assets())


def docs_router() -> Router:
    """The router of ``/schema``, its pages under the documentation's headers."""
    return Router(
        "/schema",
        route_handlers=[],
        include_in_schema=False,
        response_headers=[ResponseHeader(name=k, value=v) for k, v in DOCS_HEADERS.items()],
    )


def docs_assets() -> Any:
    """``/schema/assets/…``: the few files the page loads, and nothing else of the bundle."""
    files = StaticFiles(
        is_html_mode=False, directories=[SWAGGER_DIR, DOCS_DIR], file_system=BaseLocalFileSystem()
    )
    extra = [(k.lower().encode(), v.encode()) for k, v in DOCS_HEADERS.items()]
    extra.append((b"cache-control", b"public, max-age=86400"))

    @asgi("/assets", is_mount=True, copy_scope=True, name="docs-assets")
    async def assets(scope: Scope, receive: Receive, send: Send) -> None:
        name = scope["path"].strip("/")
        if scope["type"] != ScopeType.HTTP or scope["method"] not in ("GET", "HEAD"):
            raise NotFoundException()
        if name not in _ASSETS:
            raise NotFoundException()

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", ()), *extra]
            await send(message)

        response = await files.handle(path=name, is_head_response=scope["method"] == "HEAD")
        await response(scope, receive, send_with_headers)

    return assets
