"""Puzzles mined from finished deals (docs/puzzles-and-studies.md).

Routes (under /v1):

    GET  /puzzles/next               the untried puzzle nearest the caller's puzzle rating
    GET  /puzzles/{id}               a puzzle's position and rating, never its answer
    POST /puzzles/{id}/attempts      the caller's one rated attempt: the answer revealed
    GET  /players/me/puzzles         the caller's attempts, newest first, and his rating
"""

from __future__ import annotations

import uuid
from typing import Annotated

from litestar import Controller, Response, get, post
from litestar.di import NamedDependency
from litestar.params import FromPath, JSONBody, QueryParameter

from service.api.auth import SECURITY
from service.api.common import NO_STORE, PRIVATE
from service.api.errors import problem_responses
from service.api.puzzles.schemas import AttemptBody
from service.players.accounts import Caller
from service.read_models.puzzles import AttemptView, PuzzleHistory, Puzzles, PuzzleView

_SHOWN = (
    "A puzzle is a position of a finished deal where exactly one legal card keeps the "
    "double-dummy par and every other one is a decisive mistake. It shows what its solver "
    "knew at that moment (`position.seen`: his own hand, the hands lying open, the trick, the "
    "auction) and, as double-dummy problems do, the full layout (`position.hands`, `talon`, "
    "`discard`). Its answer, the value of every card and the card played at the table are "
    "revealed by an attempt. Puzzles of a duplicate table whose event is still open are not "
    "served until it ends."
)


class PuzzlesController(Controller):
    path = "/puzzles"
    tags = ["puzzles"]  # noqa: RUF012

    @get(
        "/next",
        operation_id="nextPuzzle",
        summary="The next puzzle for you",
        description=(
            "The puzzle you have not attempted whose rating is nearest your puzzle rating (an "
            "unattempted puzzle stands at the starting rating). 404 `puzzle-not-found` when "
            "you have attempted every puzzle served so far. " + _SHOWN
        ),
        security=SECURITY,
        responses=problem_responses("unauthenticated", "forbidden", "puzzle-not-found"),
    )
    async def next_puzzle(
        self, caller: NamedDependency[Caller], puzzles: NamedDependency[Puzzles]
    ) -> Response[PuzzleView]:
        return Response(await puzzles.next_for(caller.id), headers=NO_STORE)

    @get(
        "/{puzzle_id:uuid}",
        operation_id="readPuzzle",
        summary="A puzzle",
        description=_SHOWN,
        responses=problem_responses("validation", "puzzle-not-found"),
    )
    async def read_puzzle(
        self, puzzle_id: FromPath[uuid.UUID], puzzles: NamedDependency[Puzzles]
    ) -> Response[PuzzleView]:
        return Response(await puzzles.get(puzzle_id), headers=PRIVATE)

    @post(
        "/{puzzle_id:uuid}/attempts",
        status_code=201,
        operation_id="attemptPuzzle",
        summary="Attempt a puzzle",
        description=(
            "Your card for the hand to play. Your first attempt at a puzzle is the only one: it "
            "is kept, rates you and the puzzle (openskill, the game ratings' model: solved, you "
            "win the duel; missed, the puzzle does), and reveals the answer, every legal card's "
            "value (the judged seat's total tricks after it, with perfect play), the card "
            "played at the table and the game. 409 `puzzle-refused` with `puzzle.attempted` "
            "for a second attempt, `puzzle.not_a_choice` for a card the hand may not play."
        ),
        security=SECURITY,
        responses=problem_responses(
            "validation",
            "bad-notation",
            "unauthenticated",
            "forbidden",
            "puzzle-not-found",
            "puzzle-refused",
        ),
    )
    async def attempt(
        self,
        puzzle_id: FromPath[uuid.UUID],
        caller: NamedDependency[Caller],
        puzzles: NamedDependency[Puzzles],
        data: JSONBody[AttemptBody],
    ) -> Response[AttemptView]:
        caller.may_play()
        found = await puzzles.attempt(caller.id, puzzle_id, data.card)
        return Response(found, status_code=201, headers=NO_STORE)


class MyPuzzlesController(Controller):
    path = "/players/me/puzzles"
    tags = ["puzzles"]  # noqa: RUF012

    @get(
        "",
        operation_id="listMyPuzzles",
        summary="Your puzzle attempts and rating",
        description=(
            "Your rated attempts, newest first (`next_cursor` pages on), each with what it "
            "revealed and how it moved your rating and the puzzle's, and your puzzle rating "
            "now (the starting one, mu 25 and sigma 25/3, before your first attempt)."
        ),
        security=SECURITY,
        responses=problem_responses("validation", "unauthenticated", "forbidden"),
    )
    async def history(
        self,
        caller: NamedDependency[Caller],
        puzzles: NamedDependency[Puzzles],
        cursor: Annotated[str | None, QueryParameter(max_length=256)] = None,
        limit: Annotated[int, QueryParameter(ge=1, le=100)] = 20,
    ) -> Response[PuzzleHistory]:
        return Response(await puzzles.history(caller.id, cursor, limit), headers=PRIVATE)


ROUTE_HANDLERS = [PuzzlesController, MyPuzzlesController]
"""Mounted under /v1 by `service.app`."""
