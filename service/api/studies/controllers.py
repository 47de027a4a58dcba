"""What-if studies of finished deals (docs/puzzles-and-studies.md).

Routes (under /v1):

    POST /studies                        fork a finished game's deal at a step
    GET  /studies/{id}?at=K              the study at step K (its end by default)
    POST /studies/{id}/moves             the owner's move for a seat of his hand
    POST /studies/{id}/notes             a note on a step
    PUT  /studies/{id}/sharing           shared (anyone with the link reads it) or not
    PUT  /studies/{id}/seats/{seat}      a seat to a bot, or back to the owner's hand
    GET  /studies/{id}/comparison        the study beside the real line, judged double-dummy
    GET  /players/me/studies             the caller's studies
"""

from __future__ import annotations

import uuid
from typing import Annotated

from litestar import Controller, Response, get, post, put
from litestar.di import NamedDependency
from litestar.params import FromPath, JSONBody, QueryParameter

from domain import study as st
from projections.replay import replay_state, state_at
from projections.study import StudyComparison
from service.api.actions.schemas import canonical, from_command, to_command
from service.api.auth import SECURITY
from service.api.common import PRIVATE, IfMatchHeader, expected_version
from service.api.errors import etag, problem_responses
from service.api.studies.schemas import (
    NewStudy,
    NoteBody,
    NoteView,
    SeatActions,
    SeatBody,
    SharingBody,
    StudyListItem,
    StudyMove,
    StudyPage,
    StudySeat,
    StudyView,
)
from service.api.text import SeatNumber
from service.exceptions import NotFound
from service.games.studies import StudyService
from service.players.accounts import Caller

_READ = ("validation", "study-not-found", "not-found")
_WRITE = ("validation", "unauthenticated", "forbidden", "study-not-found", "illegal-action")


def study_view(study_id: uuid.UUID, version: int, state: st.Study, viewer: str | None,
               at: int | None = None) -> StudyView:  # fmt: skip
    """The study as ``viewer`` sees it at step ``at`` (its last by default)."""
    steps = state.steps
    at = steps if at is None else at
    if not 1 <= at <= steps:  # as a replay answers a step the deal does not have
        raise NotFound(f"the study's steps are 1 … {steps}, not {at}")
    mine = viewer == state.owner
    to_act = st.to_act(state)
    legal = tuple(
        SeatActions(seat=s, actions=tuple(from_command(c) for c in st.legal_moves(state, s)))
        for s in to_act
        if mine and state.bots[s] is None
    )
    return StudyView(
        id=study_id, owner=state.owner, mine=mine, game_id=uuid.UUID(state.game_id),
        deal_no=state.deal_no, fork_step=state.fork_step, version=version, shared=state.shared,
        over=state.over, steps=steps, at=at,
        seats=tuple(StudySeat(seat=s, player=p, bot=state.bots[s])
                    for s, p in enumerate(state.players)),
        events=state.events,
        state=replay_state(state_at(state.rules, state.events, at), "full", None),
        to_act=to_act, legal=legal,
        notes=tuple(NoteView(step=n.step, text=n.text, at=n.at) for n in state.notes),
    )  # fmt: skip


def _sent(study_id: uuid.UUID, version: int, state: st.State, caller: str,
          status: int = 200) -> Response[StudyView]:  # fmt: skip
    assert isinstance(state, st.Study)
    headers = {**PRIVATE, "ETag": etag(version)}
    if status == 201:
        headers["Location"] = f"/v1/studies/{study_id}"
    return Response(study_view(study_id, version, state, caller), status_code=status,
                    headers=headers)  # fmt: skip


class StudiesController(Controller):
    path = "/studies"
    tags = ["studies"]  # noqa: RUF012

    @post(
        "",
        status_code=201,
        operation_id="forkStudy",
        summary="Fork a deal into a study",
        description=(
            "A new study of deal `deal_no` of a finished game: it holds the deal's first "
            "`step` events (a replay's step numbers: 1 is the cards just dealt) and is played "
            "on from there, by you for every seat or by the bots you name for some. A study is "
            "never rated, scored on a sheet or counted in statistics. 409 `not-public-yet` "
            "(`study.game_in_play`) for a game still being played, "
            "(`tournament.duplicate_embargo`) for a duplicate table whose event is open."
        ),
        security=SECURITY,
        responses=problem_responses(
            "validation",
            "unauthenticated",
            "forbidden",
            "game-not-found",
            "not-found",
            "not-public-yet",
            "illegal-action",
            "game-quarantined",
        ),
    )
    async def fork(
        self,
        caller: NamedDependency[Caller],
        studies: NamedDependency[StudyService],
        data: JSONBody[NewStudy],
    ) -> Response[StudyView]:
        caller.may_play()
        study_id, result = await studies.fork(
            caller.id, data.game_id, data.deal_no, data.step, data.bots
        )
        assert result.state is not None
        return _sent(study_id, result.version, result.state, caller.id, status=201)

    @get(
        "/{study_id:uuid}",
        operation_id="readStudy",
        summary="A study",
        description=(
            "The study at step `at` (its last by default): every hand, the talon and the "
            "discard (its source game is over), its events, who moves each seat, its notes; "
            "for its owner, the actions of each seat of his hand to move now. Read by its "
            "owner, and by anyone once he shares it."
        ),
        responses=problem_responses(*_READ, "unauthenticated"),
    )
    async def read(
        self,
        study_id: FromPath[uuid.UUID],
        viewer: NamedDependency[Caller | None],
        studies: NamedDependency[StudyService],
        at: Annotated[int | None, QueryParameter(ge=1, le=1_000)] = None,
    ) -> Response[StudyView]:
        who = viewer.id if viewer else None
        version, state = await studies.read(study_id, who)
        view = study_view(study_id, version, state, who, at)
        return Response(view, headers={**PRIVATE, "ETag": etag(version)})

    @post(
        "/{study_id:uuid}/moves",
        status_code=200,
        operation_id="moveInStudy",
        summary="Move a seat of the study",
        description=(
            "The owner's move for `seat`, one of its `legal` actions (the bodies of "
            "`POST /v1/games/{id}/actions`); the bots whose turn follows move at once. "
            "`If-Match` pins the study's version (412 if it moved on)."
        ),
        security=SECURITY,
        responses=problem_responses(*_WRITE, "bad-notation", "version-mismatch"),
    )
    async def move(
        self,
        study_id: FromPath[uuid.UUID],
        caller: NamedDependency[Caller],
        studies: NamedDependency[StudyService],
        data: JSONBody[StudyMove],
        if_match: IfMatchHeader = None,
    ) -> Response[StudyView]:
        caller.may_play()
        command = to_command(canonical(data.action), data.seat)
        result = await studies.move(study_id, caller.id, command, expected_version(if_match))
        assert result.state is not None
        return _sent(study_id, result.version, result.state, caller.id)

    @post(
        "/{study_id:uuid}/notes",
        status_code=201,
        operation_id="annotateStudy",
        summary="Annotate a step of the study",
        description="A text note (at most 500 characters) on step `step` of the study.",
        security=SECURITY,
        responses=problem_responses(*_WRITE),
    )
    async def annotate(
        self,
        study_id: FromPath[uuid.UUID],
        caller: NamedDependency[Caller],
        studies: NamedDependency[StudyService],
        data: JSONBody[NoteBody],
    ) -> Response[StudyView]:
        caller.may_play()
        result = await studies.annotate(study_id, caller.id, data.step, data.text)
        assert result.state is not None
        return _sent(study_id, result.version, result.state, caller.id, status=201)

    @put(
        "/{study_id:uuid}/sharing",
        operation_id="shareStudy",
        summary="Share the study, or stop",
        description=(
            "`shared`: anyone with the study's link (`/v1/studies/{id}`, or the web client's "
            "`#/study/{id}`) reads it; only you ever change it. Not shared: you alone."
        ),
        security=SECURITY,
        responses=problem_responses(*_WRITE),
    )
    async def share(
        self,
        study_id: FromPath[uuid.UUID],
        caller: NamedDependency[Caller],
        studies: NamedDependency[StudyService],
        data: JSONBody[SharingBody],
    ) -> Response[StudyView]:
        caller.may_play()
        result = await studies.share(study_id, caller.id, data.shared)
        version, state = result.version, result.state
        if state is None:  # no change (already so): the study as it stands
            version, state = await studies.state(study_id)
        return _sent(study_id, version, state, caller.id)

    @put(
        "/{study_id:uuid}/seats/{seat:int}",
        operation_id="setStudySeat",
        summary="Give a seat to a bot, or take it back",
        description=(
            "From now on `bot` moves the seat (it moves at once if it is its turn), or, null, "
            "you do."
        ),
        security=SECURITY,
        responses=problem_responses(*_WRITE),
    )
    async def set_seat(
        self,
        study_id: FromPath[uuid.UUID],
        seat: FromPath[SeatNumber],
        caller: NamedDependency[Caller],
        studies: NamedDependency[StudyService],
        data: JSONBody[SeatBody],
    ) -> Response[StudyView]:
        caller.may_play()
        result = await studies.set_bot(study_id, caller.id, seat, data.bot)
        version, state = result.version, result.state
        if state is None:
            version, state = await studies.state(study_id)
        return _sent(study_id, version, state, caller.id)

    @get(
        "/{study_id:uuid}/comparison",
        operation_id="compareStudy",
        summary="The study beside the real line",
        description=(
            "Both lines of the deal (the source's and the study's) with every card judged "
            "double-dummy: the par before it (the declarer's total tricks with perfect play by "
            "all, or an all-pass player's own), what it cost, the cards that kept par; where "
            "the study left the real line; how each line ended and what each seat's cards gave "
            "away; and the par of the study's position now with the cards that keep it."
        ),
        responses=problem_responses(*_READ, "unauthenticated"),
    )
    async def compare(
        self,
        study_id: FromPath[uuid.UUID],
        viewer: NamedDependency[Caller | None],
        studies: NamedDependency[StudyService],
    ) -> Response[StudyComparison]:
        found = await studies.comparison(study_id, viewer.id if viewer else None)
        return Response(found, headers=PRIVATE)


class MyStudiesController(Controller):
    path = "/players/me/studies"
    tags = ["studies"]  # noqa: RUF012

    @get(
        "",
        operation_id="listMyStudies",
        summary="Your studies",
        description="Your studies, newest first; `next_cursor` pages on.",
        security=SECURITY,
        responses=problem_responses("validation", "unauthenticated", "forbidden"),
    )
    async def mine(
        self,
        caller: NamedDependency[Caller],
        studies: NamedDependency[StudyService],
        cursor: Annotated[str | None, QueryParameter(max_length=256)] = None,
        limit: Annotated[int, QueryParameter(ge=1, le=100)] = 20,
    ) -> Response[StudyPage]:
        items, following = await studies.mine(caller.id, cursor, limit)
        page = StudyPage(
            items=tuple(
                StudyListItem(id=i.id, game_id=i.game_id, deal_no=i.deal_no, step=i.step,
                              created_at=i.created_at)
                for i in items
            ),
            next_cursor=following,
        )  # fmt: skip
        return Response(page, headers=PRIVATE)


ROUTE_HANDLERS = [StudiesController, MyStudiesController]
"""Mounted under /v1 by `service.app`."""
