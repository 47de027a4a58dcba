"""The service's own refusals, free of any web framework (`service.api.errors` maps them to HTTP).

The domain's refusals are in `domain.errors`, the event store's in `service.eventlog.store`::

    ServiceError             base
    ├── Unauthenticated      no bearer token where one is needed, or one we never issued
    ├── NotSeated            the caller has no seat at this game, so cannot act in it
    ├── Forbidden            the token may not do this (a read-only token writing, a private
    │                        table without its invite)
    ├── NotFound
    │   ├── GameNotFound
    │   ├── PlayerNotFound
    │   ├── TokenNotFound
    │   ├── InviteNotFound
    │   ├── PuzzleNotFound   no such puzzle, or not served (its duplicate event is open)
    │   └── StudyNotFound    no such study, or one its owner has not shared
    ├── InviteExpired        an invite code whose time is over
    ├── NameTaken            a registered player's name, or one that looks like it
    ├── LoginTaken           another player's account has this login
    ├── SignInFailed         a login and password that do not match (or no such login)
    ├── SignInLocked         too many failed sign-ins for the login or the address
    ├── PasskeyRefused       a passkey's registration that does not verify
    ├── AuthorizationRefused an app's authorization request the server refuses (OAuth)
    ├── BadRequest           a malformed header, query parameter or body field (names it)
    │   ├── InvalidCursor    a page cursor this list did not hand out
    │   └── TooDeep          a JSON body nested deeper than any request of this API
    ├── RangeNotSatisfiable  a download's Range that lies outside the file
    ├── HeadersTooLarge      header fields larger than any request of this API needs
    ├── BadBody              what the edge refuses before reading a body into the API
    │   ├── RequestTimeout       the body did not arrive in time
    │   ├── PayloadTooLarge      larger than any request of this API
    │   └── UnsupportedMediaType not JSON
    ├── RateLimited          too many requests from this token or address
    ├── ChatRefused          a chat message the table does not take (too long, phrases only)
    ├── RematchRefused       a rematch that cannot be offered or answered now
    ├── PuzzleRefused        an attempt a puzzle does not take (a second one, a card not legal)
    ├── NotYet               the game's information is not public yet
    │   ├── GameNotOver      an export waits for the game's end
    │   ├── DealStillInPlay  nobody replays a deal still being played
    │   └── StudyOfLiveGame  a study is forked from a finished game only
    ├── ImportRefused        an export that cannot be imported (malformed, or already here)
    │   └── AlreadyImported  the game (or one of its events) is already on this server
    └── Unavailable          the database is unreachable or its schema is behind
"""

from __future__ import annotations


class ServiceError(Exception):
    """Base of the service's own refusals."""

    def __init__(self, message: str) -> None:
        super().__init__(message)

    @property
    def message(self) -> str:
        return str(self.args[0])


class Unauthenticated(ServiceError):
    """No bearer token where one is needed, or a token this service never issued."""


class NotSeated(ServiceError):
    """The caller has no seat at this game: a player acts only for his own seat."""


class Forbidden(ServiceError):
    """Authenticated, but this token may not do this."""

    def __init__(self, message: str, *, code: str) -> None:
        super().__init__(message)
        self.code = code


class NotFound(ServiceError):
    """No such resource."""


class TokenNotFound(NotFound):
    """None of the caller's tokens has this id."""


class InviteNotFound(NotFound):
    """No invite has this code."""


class InviteExpired(ServiceError):
    """The invite code was valid once; its time is over."""


class GameNotFound(NotFound):
    """No game with this id."""


class PlayerNotFound(NotFound):
    """No player with this id."""


class PuzzleNotFound(NotFound):
    """No puzzle has this id, or its game's cards are not public yet."""


class StudyNotFound(NotFound):
    """No study has this id, or its owner has not shared it with the caller."""


class NameTaken(ServiceError):
    """A player holds this name, or one that looks like it (`service.players.names`)."""


class LoginTaken(ServiceError):
    """Another player's account has this login."""


class SignInFailed(ServiceError):
    """The login and the password do not match, or no account has the login: the same
    refusal for both, so that it tells nobody which logins exist."""


class SignInLocked(ServiceError):
    """Too many failed sign-ins for this login or from this address within the window; the
    next attempt is heard after ``retry_after`` seconds."""

    def __init__(self, message: str, *, retry_after: int) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class PasskeyRefused(ServiceError):
    """A passkey's registration that does not verify (its attestation, origin, challenge), or
    one already registered."""


class BadRequest(ServiceError, ValueError):
    """A malformed header, query parameter or body field."""

    def __init__(self, message: str, *, where: str | None = None) -> None:
        super().__init__(message)
        self.where = where
        """The parameter at fault: ``header.If-Match``, ``query.cursor`` …"""


class InvalidCursor(BadRequest):
    """A page cursor this list did not hand out."""

    def __init__(self, message: str, *, where: str | None = "query.cursor") -> None:
        super().__init__(message, where=where)


class TooDeep(BadRequest):
    """A JSON body nested deeper than any request of this API needs."""

    def __init__(self, message: str, *, where: str | None = "body") -> None:
        super().__init__(message, where=where)


class RangeNotSatisfiable(ServiceError):
    """A Range header none of whose ranges lies within the file of ``size`` bytes."""

    def __init__(self, message: str, *, size: int) -> None:
        super().__init__(message)
        self.size = size


class HeadersTooLarge(ServiceError):
    """Header fields larger in all than any request of this API needs."""


class BadBody(ServiceError):
    """A request body refused at the edge, before the API reads it."""


class RequestTimeout(BadBody):
    """The body did not arrive within the time allowed."""


class PayloadTooLarge(BadBody):
    """A body larger than any request of this API."""


class UnsupportedMediaType(BadBody):
    """A body that is not ``application/json``."""


class RateLimited(ServiceError):
    """Too many requests under a policy; ``retry_after`` seconds until its window ends."""

    def __init__(self, message: str, *, retry_after: int) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class ChatRefused(ServiceError):
    """A chat message (or a mute) the table does not take; ``code`` says why
    (``chat.too_long``, ``chat.phrases_only``, ``chat.empty`` …)."""

    def __init__(self, message: str, *, code: str) -> None:
        super().__init__(message)
        self.code = code


class RematchRefused(ServiceError):
    """A rematch that cannot be offered or answered now; ``code`` says why
    (``rematch.game_not_over``, ``rematch.no_offer``, ``rematch.not_open`` …)."""

    def __init__(self, message: str, *, code: str) -> None:
        super().__init__(message)
        self.code = code


class PuzzleRefused(ServiceError):
    """An attempt the puzzle does not take; ``code`` says why (``puzzle.attempted``: a puzzle
    is rated once per player; ``puzzle.not_a_choice``: a card the hand may not play)."""

    def __init__(self, message: str, *, code: str) -> None:
        super().__init__(message)
        self.code = code


class NotYet(ServiceError):
    """What was asked for is not public yet: it would show what a seat may not see."""

    code: str = "not_yet"


class GameNotOver(NotYet):
    """The game is still being played (an export waits for its end)."""

    code = "export.game_not_finished"


class DealStillInPlay(NotYet):
    """Nobody replays a deal still being played."""

    code = "replay.deal_in_progress"


class StudyOfLiveGame(NotYet):
    """A study is forked from a finished game only: a game in play hides its cards."""

    code = "study.game_in_play"


class ImportRefused(ServiceError):
    """An export that cannot be imported: the message names the line or the reason."""


class AlreadyImported(ImportRefused):
    """The game, or one of its events, is already on this server: importing it again would
    count it twice."""

    def __init__(self, message: str, *, game_id: str | None = None) -> None:
        super().__init__(message)
        self.game_id = game_id
        """The game already here, when known."""


class Unavailable(ServiceError):
    """The service cannot serve: the database is unreachable or its schema is not current."""

    def __init__(self, message: str, *, dependency: str | None = None) -> None:
        super().__init__(message)
        self.dependency = dependency
        """What is down: ``database``, ``database schema`` …"""


class AuthorizationRefused(ServiceError):
    """An app's authorization request the server refuses (RFC 6749 §4.1.2.1): ``error`` is the
    RFC's code; ``redirect_to`` is where the player's browser goes with it, when the app and its
    redirect URI are known good (otherwise the page says so and goes nowhere)."""

    def __init__(self, error: str, message: str, redirect_to: str | None) -> None:
        super().__init__(message)
        self.error = error
        self.redirect_to = redirect_to
