"""Citations of the two reference documents name sections that exist.

Code, tests and documents cite the rules reference and the event-store design by section:
``docs/rules.md §D.2``, ``docs/event-store.md §9.3``, and in older comments ``RULES.md §F.5`` or
``EVENT-STORE.md §9.4`` (the notes the documents grew from). A citation may list several
sections and ranges (``§B, I-1…I-4, §B.3``, ``§9.1–9.4, 9.7 and 9.8``) and may wrap onto the next
line of a comment or docstring. Every section so cited must be a heading of the document
(``## §D.2 …``), and every item of the rules' §I a row of its table (``| I-8b | …``).

Beyond explicit citations, anywhere in the repository:

- a letter section (``§D.2``, ``§G``) can only mean the rules reference, so it must exist there;
- an item ``I-12`` is always a disputed point of the rules' §I, so it must exist there;
- inside each document, its own section references (``§F.5`` in the rules, ``§9.3`` in the
  event store) must resolve.

Nothing may cite material outside the repository by a relative path into ``../shared/``.

The scan covers every ``.py`` and ``.md`` file under the repository root except virtual
environments, VCS and tool caches, build output and the embedded database's ``data/`` folder.
This file itself is not scanned: its tests feed the checker citations that must fail.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path

import msgspec
import pytest

from domain.rules import Rules

ROOT = Path(__file__).resolve().parents[2]
RULES = ROOT / "docs" / "rules.md"
EVENT_STORE = ROOT / "docs" / "event-store.md"
HERE = Path(__file__).resolve()

SKIP_DIRS = frozenset({
    ".git", ".hg", ".svn", ".venv", "venv", "env", ".env", "node_modules", "site-packages",
    "__pycache__", ".mypy_cache", ".ruff_cache", ".pytest_cache", ".hypothesis", ".tox", ".nox",
    ".eggs", "build", "dist", ".ci",
})  # fmt: skip
"""Folders that hold no project text: environments, third-party code, caches, build output."""

OUTSIDE = ".." + "/shared/"  # spelt in two parts, so that this file never contains it whole

# --- what the documents define ----------------------------------------------------------------

_HEADING = re.compile(r"^#{1,6}[ \t]+§(?P<id>(?:\d+|[A-Z])(?:\.\d+)*)(?=[ \t]|$)", re.M)
_ITEM = re.compile(r"^(?:\|[ \t]*|#{1,6}[ \t]+)(?P<id>I-\d+[a-z]?)(?=[ \t]*\||[ \t]|$)", re.M)


def sections(path: Path) -> frozenset[str]:
    """The section ids a document defines: its ``§`` headings, and §I's items (``I-8b``)."""
    text = path.read_text(encoding="utf-8")
    return frozenset(m["id"] for m in _HEADING.finditer(text)) | frozenset(
        m["id"] for m in _ITEM.finditer(text)
    )


# --- what a text cites -----------------------------------------------------------------------

_DOC = re.compile(r"(?<![\w-])(?:docs/)?(?P<doc>rules|event-store)\.md\b`?", re.I)
_SEC = r"(?:\d+|[A-Z])(?:\.\d+)*"
_ITEM_ID = r"I-\d+[a-z]?"
_DOTTED = r"(?:\d+|[A-Z])(?:\.\d+)+"
_CITED = rf"(?:§[ \t]?)?(?P<item>{_ITEM_ID})\b|§[ \t]?(?P<sec>{_SEC})\b"
_FIRST = re.compile(rf"[ \t]*(?:{_CITED})")
_RANGE = re.compile(
    rf"(?:[ \t]*(?:–|—|…|\.\.\.?)[ \t]*|-)(?:{_CITED}|(?P<bare>{_DOTTED}|\d+)\b)"
)  # a hyphen only between two ids, as in §9.1-9.4: "§9.3 - 2 s" is prose
_NEXT = re.compile(rf"(?:[ \t]*(?:,|;|&|/|\band\b))+[ \t]*(?:{_CITED}|(?P<bare>{_DOTTED})\b)")
_WRAP = re.compile(r"[ \t]*\r?\n[ \t]*(?:#+|//|\*|>)?[ \t]*")
_PARAGRAPH_END = re.compile(r"\n[ \t]*(?:#+|//|\*|>)?[ \t]*\r?\n")
_WINDOW = 400

_LETTER_SECTION = re.compile(r"(?<![\w§])§(?P<id>[A-IN](?:\.\d+)*)\b")
_NUMBER_SECTION = re.compile(r"(?<![\w§])§(?P<id>\d+(?:\.\d+)*)\b")
_BARE_ITEM = re.compile(rf"(?<![\w-])(?P<id>{_ITEM_ID})\b")


def _ref(m: re.Match[str]) -> str:
    return m["sec"] or m["item"] or m["bare"]


def _expand(start: str, end: str) -> list[str]:
    """The ids of a range: ``E.1``–``E.3`` → E.1, E.2, E.3; ``I-1``…``I-4`` → I-1 … I-4;
    ``9.2``–``3`` → 9.2, 9.3.

    Ranges that cannot be counted through (letters, lettered items) give their two ends.
    """
    if end.isdigit() and "." in start:
        end = f"{start.rpartition('.')[0]}.{end}"
    for pattern in (r"I-(\d+)", r"((?:(?:\d+|[A-Z])\.)*?)(\d+)"):
        a, b = re.fullmatch(pattern, start), re.fullmatch(pattern, end)
        if a and b:
            if pattern.startswith("I"):
                lo, hi, prefix = int(a[1]), int(b[1]), "I-"
            elif a[1] == b[1]:
                lo, hi, prefix = int(a[2]), int(b[2]), a[1]
            else:
                break
            if lo < hi <= lo + 40:
                return [f"{prefix}{n}" for n in range(lo, hi + 1)]
            break
    return [start, end]


def citations(text: str) -> Iterator[tuple[str, str, int]]:
    """``(document, section, line)`` for every section cited by a document's name in ``text``.

    ``document`` is ``"rules"`` or ``"event-store"``, whatever the spelling of the name
    (``RULES.md``, ``docs/rules.md``, ``EVENT-STORE.md`` …).
    """
    for name in _DOC.finditer(text):
        doc = name["doc"].lower()
        line = text.count("\n", 0, name.start()) + 1
        window = text[name.end() : name.end() + _WINDOW]
        window = _WRAP.sub(" ", _PARAGRAPH_END.split(window, maxsplit=1)[0])
        m = _FIRST.match(window)
        if m is None:
            continue
        last = _ref(m)
        found = [last]
        pos = m.end()
        while True:
            r = _RANGE.match(window, pos)
            if r is not None:
                span = _expand(last, _ref(r))
                found += span[1:]
                last, pos = span[-1], r.end()
                continue
            n = _NEXT.match(window, pos)
            if n is None:
                break
            last, pos = _ref(n), n.end()
            found.append(last)
        for section in found:
            yield doc, section, line


# --- the repository ----------------------------------------------------------------------------


def repository_files() -> list[Path]:
    """Every .py and .md file of the repository, third-party and generated folders left out."""
    out = []
    for folder, dirs, files in os.walk(ROOT):
        here = Path(folder)
        dirs[:] = sorted(
            d
            for d in dirs
            if d not in SKIP_DIRS
            and not d.endswith(".egg-info")
            and not (here == ROOT and d == "data")  # the embedded PostgreSQL cluster
            and not (here / d / "pyvenv.cfg").exists()  # any virtual environment
        )
        out += [here / f for f in sorted(files) if f.endswith((".py", ".md"))]
    return [p for p in out if p.resolve() != HERE]


def problems(path: Path, text: str, defined: dict[str, frozenset[str]]) -> list[str]:
    """Every citation in ``text`` (the contents of ``path``) that names no existing section,
    once per line and section, in line order."""
    where = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
    found: dict[tuple[int, str], str] = {}

    def add(line: int, key: str, message: str) -> None:
        found.setdefault((line, key), f"{where}:{line}: {message}")

    def line_of(index: int) -> int:
        return text.count("\n", 0, index) + 1

    for doc, section, line in citations(text):
        if section not in defined[doc]:
            if section.startswith("I-"):
                message = f"{section} is not an item of docs/{doc}.md §I"
            else:
                message = f"§{section} is not a section of docs/{doc}.md"
            add(line, f"{doc}:{section}", message)
    for m in _LETTER_SECTION.finditer(text):
        if m["id"] not in defined["rules"]:
            line = line_of(m.start())
            add(line, f"rules:{m['id']}", f"§{m['id']} is not a section of docs/rules.md")
    for m in _BARE_ITEM.finditer(text):
        if m["id"] not in defined["rules"]:
            line = line_of(m.start())
            add(line, f"rules:{m['id']}", f"{m['id']} is not an item of docs/rules.md §I")
    if path.resolve() == EVENT_STORE.resolve():
        for m in _NUMBER_SECTION.finditer(text):
            if m["id"] not in defined["event-store"]:
                line = line_of(m.start())
                add(line, f"event-store:{m['id']}", f"§{m['id']} is not a section of this file")
    if OUTSIDE in text:
        add(line_of(text.index(OUTSIDE)), "outside", f"cites {OUTSIDE}, outside the repository")
    return [found[key] for key in sorted(found)]


@pytest.fixture(scope="module")
def defined() -> dict[str, frozenset[str]]:
    return {"rules": sections(RULES), "event-store": sections(EVENT_STORE)}


# --- the tests ---------------------------------------------------------------------------------


def test_every_cited_section_exists(defined: dict[str, frozenset[str]]) -> None:
    found = []
    for path in repository_files():
        found += problems(path, path.read_text(encoding="utf-8"), defined)
    assert not found, "citations of sections that do not exist:\n" + "\n".join(found)


def test_the_scan_sees_the_code_and_the_documents() -> None:
    files = {p.relative_to(ROOT).as_posix() for p in repository_files()}
    assert {"domain/rules.py", "service/eventlog/store.py", "docs/rules.md", "README.md"} <= files
    assert not any(part in SKIP_DIRS for f in files for part in Path(f).parts)


RULES_SECTIONS = (
    "0", "0.1", "0.2", "0.3", "N", "A", "B", "B.1", "B.2", "B.3", "C", "D", "D.1", "D.2", "D.3",
    "E", "E.1", "E.2", "E.3", "E.4", "F", "F.0", "F.1", "F.2", "F.3", "F.4", "F.5", "G",
    "H", "H.1", "H.2", "H.3", "H.4", "H.5", "H.6", "I",
    *(f"I-{n}" for n in range(1, 30)), "I-8b", "I-12b", "I-14b",
)  # fmt: skip
EVENT_STORE_SECTIONS = ("9", *(f"9.{n}" for n in range(1, 11)), "10")


def test_the_documents_keep_their_section_structure(defined: dict[str, frozenset[str]]) -> None:
    assert set(RULES_SECTIONS) <= defined["rules"], set(RULES_SECTIONS) - defined["rules"]
    assert set(EVENT_STORE_SECTIONS) <= defined["event-store"]


def _options(struct: type[msgspec.Struct], prefix: str = "") -> Iterator[str]:
    for field in msgspec.structs.fields(struct):
        kind = field.type
        if isinstance(kind, type) and issubclass(kind, msgspec.Struct):
            yield from _options(kind, f"{prefix}{field.name}.")
        elif prefix:
            yield prefix + field.name


def test_every_rules_option_is_described_in_the_rules_reference() -> None:
    text = RULES.read_text(encoding="utf-8")
    missing = [name for name in _options(Rules) if f"`{name}" not in text]
    assert not missing, f"options of domain.rules.Rules that docs/rules.md never names: {missing}"


# --- the checker itself ------------------------------------------------------------------------


def _cited(text: str) -> list[tuple[str, str]]:
    return [(doc, section) for doc, section, _ in citations(text)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("(RULES.md §D.2)", [("rules", "D.2")]),
        ("see docs/rules.md §F.5, Sochi", [("rules", "F.5")]),
        ("RULES.md §B, I-1…I-4, §B.3", [
            ("rules", "B"), ("rules", "I-1"), ("rules", "I-2"), ("rules", "I-3"),
            ("rules", "I-4"), ("rules", "B.3"),
        ]),
        ("RULES.md §E.1–E.3, I-15", [
            ("rules", "E.1"), ("rules", "E.2"), ("rules", "E.3"), ("rules", "I-15"),
        ]),
        ("RULES.md §F, I-12b, I-13", [("rules", "F"), ("rules", "I-12b"), ("rules", "I-13")]),
        ("RULES.md §F: ``P`` the price", [("rules", "F")]),
        ("RULES.md §I is a field", [("rules", "I")]),
        ("RULES.md §D\n    and I-7, I-8.", [("rules", "D"), ("rules", "I-7"), ("rules", "I-8")]),
        ("# RULES.md §F.5,\n# and §H.5: cases", [("rules", "F.5"), ("rules", "H.5")]),
        ("EVENT-STORE.md §9.1–9.4, 9.7 and 9.8", [
            ("event-store", s) for s in ("9.1", "9.2", "9.3", "9.4", "9.7", "9.8")
        ]),
        ("(docs/event-store.md §9.3)", [("event-store", "9.3")]),
        ("`docs/rules.md` §N.", [("rules", "N")]),
        ("EVENT-STORE.md §9.1-9.3", [("event-store", s) for s in ("9.1", "9.2", "9.3")]),
        ("EVENT-STORE.md §9.3 - 10 ms", [("event-store", "9.3")]),
        ("refer to `RULES.md`.", []),
        ("RULES.md per test", []),
    ],
)  # fmt: skip
def test_citations_are_read_as_written(text: str, expected: list[tuple[str, str]]) -> None:
    assert _cited(text) == expected


def test_a_section_that_does_not_exist_fails(defined: dict[str, frozenset[str]]) -> None:
    path = ROOT / "example.py"
    assert problems(path, "# RULES.md §D.2 and docs/rules.md §F.5, I-8b\n", defined) == []
    bad = (
        "# RULES.md §D.9\n"
        "# docs/event-store.md §9.11\n"
        "# EVENT-STORE.md §9.2, 9.12\n"
        "# the rules: I-30 and §G.7\n"
        "# see " + OUTSIDE + "RULES.md\n"
    )
    found = problems(path, bad, defined)
    assert [f.split(": ", 1)[0] for f in found] == [
        "example.py:1", "example.py:2", "example.py:3", "example.py:4", "example.py:4",
        "example.py:5",
    ]  # fmt: skip
    named = ("§D.9", "§9.11", "§9.12", "§G.7", "I-30", OUTSIDE)
    for text, expected in zip(found, named, strict=True):
        assert expected in text
