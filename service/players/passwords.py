"""Passwords, logins and recovery codes: what is derived from them, never what is stored of them.

The database never sees a password. The service derives its **proof**, argon2id of the
password with the account's 16-byte salt and cost (argon2-cffi, the reference implementation's
binding; OWASP's minimum for argon2id: 19 MiB, two passes, one lane), and the database keeps
only the proof's sha256 (migration 0020). A request path that reads the salt and the cost still
needs the password to sign anyone in. A recovery code is 80 random bits, shown once; its
sha256 is stored.

argon2id takes tens of milliseconds of CPU by design: `proof` runs it in a thread (the binding
releases the GIL), off the event loop.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import re
import secrets
import unicodedata

import msgspec
from argon2.low_level import Type, hash_secret_raw

from service.exceptions import BadRequest

SALT_BYTES = 16
PROOF_BYTES = 32
RECOVERY_CODES = 10
LOGIN = re.compile(r"[a-z0-9][a-z0-9_.-]{2,31}")
MIN_PASSWORD, MAX_PASSWORD = 10, 256


class Cost(msgspec.Struct, frozen=True):
    """argon2id's cost: ``t`` passes over ``m`` KiB with ``p`` lanes."""

    t: int = 2
    m: int = 19_456
    p: int = 1


DEFAULT_COST = Cost()
"""What a new password is derived with (stored with it, so it can be raised later)."""


def clean_login(login: str, where: str = "body.login") -> str:
    """A login as stored: lower case, 3 to 32 of ``a-z 0-9 _ . -``, starting with a letter or
    a digit; `BadRequest` naming ``where`` otherwise."""
    login = unicodedata.normalize("NFKC", login).strip().lower()
    if not LOGIN.fullmatch(login):
        raise BadRequest(
            "a login is 3 to 32 letters a-z, digits, '_', '.' or '-', starting with a letter or "
            "a digit",
            where=where,
        )
    return login


def check_password(password: str, login: str | None, where: str = "body.password") -> bytes:
    """The password's bytes (NFKC, so that the same text typed on two keyboards is one
    password), if it is acceptable: 10 to 256 characters, not the login. `BadRequest`
    otherwise."""
    text = unicodedata.normalize("NFKC", password)
    if not MIN_PASSWORD <= len(text) <= MAX_PASSWORD:
        raise BadRequest(
            f"a password is {MIN_PASSWORD} to {MAX_PASSWORD} characters long", where=where
        )
    if login is not None and text.strip().lower() == login:
        raise BadRequest("the password may not be the login", where=where)
    return text.encode()


def new_salt() -> bytes:
    return secrets.token_bytes(SALT_BYTES)


async def proof(password: bytes, salt: bytes, cost: Cost) -> bytes:
    """argon2id of ``password`` (in a thread: it is meant to be slow)."""
    return await asyncio.to_thread(
        hash_secret_raw, password, salt, time_cost=cost.t, memory_cost=cost.m,
        parallelism=cost.p, hash_len=PROOF_BYTES, type=Type.ID,
    )  # fmt: skip


def verifier(proof_: bytes) -> bytes:
    """What the database keeps of a proof, and compares a proof with."""
    return hashlib.sha256(proof_).digest()


def recovery_codes(count: int = RECOVERY_CODES) -> list[str]:
    """Fresh recovery codes, ``XXXX-XXXX-XXXX-XXXX`` in base32 (80 bits each)."""
    codes = []
    for _ in range(count):
        text = base64.b32encode(secrets.token_bytes(10)).decode()
        codes.append("-".join(text[i : i + 4] for i in range(0, 16, 4)))
    return codes


def code_bytes(code: str) -> bytes:
    """A recovery code as typed (any case, with or without the dashes or spaces) in the form
    whose sha256 is stored."""
    return re.sub(r"[\s-]", "", code).upper().encode()
