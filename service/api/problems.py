"""``GET /problems/{slug}``: the page each problem ``type`` URI points to."""

from __future__ import annotations

import html

from litestar import Controller, MediaType, get
from litestar.params import FromPath

from service.api.errors import KINDS, problem_responses
from service.exceptions import NotFound


class ProblemsController(Controller):
    path = "/problems"
    tags = ["service"]  # noqa: RUF012

    @get(
        "/{slug:str}",
        operation_id="readProblemType",
        summary="What a problem type means",
        media_type=MediaType.HTML,
        responses=problem_responses("validation", "not-found"),
    )
    async def problem_page(self, slug: FromPath[str]) -> str:
        kind = KINDS.get(slug)
        if kind is None:
            raise NotFound(f"no problem type {slug!r}")
        return (
            f"<!doctype html><html><head><meta charset=utf-8><title>{html.escape(kind.title)}"
            f"</title></head><body><h1>{html.escape(kind.title)}</h1>"
            f"<p>HTTP {kind.status}, <code>type: {html.escape(kind.type)}</code></p>"
            f"<p>{html.escape(kind.description)}</p></body></html>"
        )
