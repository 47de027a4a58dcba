"""Citations of the documents under docs/ name documents and sections that exist.

Code, tests and documents cite the documents by section: ``docs/rules.md §D.2``,
``docs/event-store.md §9.3``, ``docs/bots.md §4.4``, and in older comments ``RULES.md §F.5`` or
``EVENT-STORE.md §9.4`` (the notes the rules and the event-store documents grew from, which
each of them names as its former name). A citation may list several sections and ranges
(``§B, I-1…I-4, §B.3``, ``§9.1–9.4, 9.7 and 9.8``) and may wrap onto the next line of a comment
or docstring. Every section so cited must be a heading of the document (``## §D.2 …``), and
every item of the rules' §I a row of its table (``| I-8b | …``). A document without ``§``
headings has no sections to cite.

Document names must exist too:

- ``docs/<name>.md`` must be a file of the repository;
- a bare name in capitals (``README.md``, ``RULES.md``) must be a former name above or the name
  of a file somewhere in the repository: ``BOTS.md`` alone names nothing here. Bare lower-case
  names (``rules.md``) are read as documents under docs/ when there is one of that name, and are
  otherwise someone else's files (the file names of another project's documentation).

Beyond explicit citations, anywhere in the repository:

- a letter section (``§D.2``, ``§G``) can only mean the rules reference, so it must exist there;
- an item ``I-12`` is always a disputed point of the rules' §I, so it must exist there;
- inside each document, its own section references must resolve: ``§F.5`` in the rules, and
  ``§9.3`` in any document under docs/ whose headings are all numbered (the event store, the
  bots), unless the line cites that very section of another document.

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
DOCS = ROOT / "docs"
RULES = DOCS / "rules.md"
EVENT_STORE = DOCS / "event-store.md"
BOTS = DOCS / "bots.md"
HERE = Path(__file__).resolve()

FORMER_NAMES = {"RULES.md": "rules", "EVENT-STORE.md": "event-store"}
"""Names of the notes a document grew from, still cited by older comments → the document."""

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


def numbered(ids: frozenset[str]) -> bool:
    """Whether every section of a document (its `sections`) is a number (``§9``, ``§4.4``), so
    that a bare ``§4.4`` in it can only mean its own section."""
    return bool(ids) and all(i[0].isdigit() for i in ids)


def documents() -> dict[str, Path]:
    """The documents under docs/, by name without ``.md`` (``"rules"``, ``"bots"`` …)."""
    return {p.stem: p for p in sorted(DOCS.glob("*.md"))}


def _file_names() -> frozenset[str]:
    return frozenset(p.name for p in repository_files())


def document_of(name: str, docs: dict[str, Path], files: frozenset[str]) -> str | None:
    """The document a written name means: a document under docs/ by its name (``"rules"``), any
    other file of the repository by its name (``"README.md"``); None if it names none.

    ``docs/rules.md``, ``rules.md`` and the former name ``RULES.md`` all mean ``"rules"``.
    """
    if name in FORMER_NAMES:
        return FORMER_NAMES[name]
    path = name.removeprefix("docs/")
    stem = path.removesuffix(".md")
    if name.startswith("docs/") or name == path.lower():  # docs/x.md, x.md
        return stem if stem in docs else None
    return name if name in files else None


def must_exist(name: str) -> bool:
    """Whether a name that names no file is an error: a path into docs/, or a bare name in
    capitals (``BOTS.md``). Other bare names may be anyone's files."""
    stem = name.removesuffix(".md")
    return name.startswith("docs/") or (stem == stem.upper() and stem != stem.lower())


# --- what a text cites -----------------------------------------------------------------------

_DOC = re.compile(r"(?<![\w.-])(?P<doc>(?:docs/)?[A-Za-z0-9][\w-]*\.md)\b`?")
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


def named(text: str) -> Iterator[tuple[str, str | None, int]]:
    """``(name as written, document, line)`` for every name of a ``.md`` file in ``text``;
    ``document`` as `document_of` gives it."""
    docs, files = _DOCUMENTS, _FILES
    for name in _DOC.finditer(text):
        line = text.count("\n", 0, name.start()) + 1
        yield name["doc"], document_of(name["doc"], docs, files), line


def citations(text: str) -> Iterator[tuple[str, str, int]]:
    """``(document, section, line)`` for every section cited by a document's name in ``text``.

    ``document`` is the name of a document under docs/ (``"rules"``, ``"event-store"``,
    ``"bots"`` …) whatever the spelling of the name (``RULES.md``, ``docs/rules.md``,
    ``EVENT-STORE.md`` …), another file's name (``"README.md"``), or, for a name that names no
    file of the repository, the name as written.
    """
    for name in _DOC.finditer(text):
        doc = document_of(name["doc"], _DOCUMENTS, _FILES) or name["doc"]
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


_DOCUMENTS = documents()
_FILES = _file_names()


def defined_sections() -> dict[str, frozenset[str]]:
    """The sections of every document that may be cited: those under docs/, and any other file
    of the repository named in capitals (``README.md``, which has none)."""
    out = {name: sections(path) for name, path in _DOCUMENTS.items()}
    for path in repository_files():
        stem = path.name.removesuffix(".md")
        if path.suffix == ".md" and path.parent != DOCS and stem == stem.upper():
            out[path.name] = sections(path)
    return out


def problems(path: Path, text: str, defined: dict[str, frozenset[str]]) -> list[str]:
    """Every citation in ``text`` (the contents of ``path``) that names no existing document or
    section, once per line and section, in line order."""
    where = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
    found: dict[tuple[int, str], str] = {}

    def add(line: int, key: str, message: str) -> None:
        found.setdefault((line, key), f"{where}:{line}: {message}")

    def line_of(index: int) -> int:
        return text.count("\n", 0, index) + 1

    for name, doc, line in named(text):
        if doc is None and must_exist(name):
            add(line, f"{name}:", f"{name} is not a document of this repository")
    cited: set[tuple[str, str, int]] = set()
    for doc, section, line in citations(text):
        cited.add((doc, section, line))
        if doc not in defined:
            continue  # named no document: reported above, or someone else's file
        shown = f"docs/{doc}.md" if doc in _DOCUMENTS else doc
        if section not in defined[doc]:
            if section.startswith("I-"):
                message = f"{section} is not an item of {shown} §I"
            else:
                message = f"§{section} is not a section of {shown}"
            add(line, f"{doc}:{section}", message)
    for m in _LETTER_SECTION.finditer(text):
        if m["id"] not in defined["rules"]:
            line = line_of(m.start())
            add(line, f"rules:{m['id']}", f"§{m['id']} is not a section of docs/rules.md")
    for m in _BARE_ITEM.finditer(text):
        if m["id"] not in defined["rules"]:
            line = line_of(m.start())
            add(line, f"rules:{m['id']}", f"{m['id']} is not an item of docs/rules.md §I")
    own = path.stem if path.parent.resolve() == DOCS.resolve() else None
    if own in _DOCUMENTS and own in defined and numbered(defined[own]):
        for m in _NUMBER_SECTION.finditer(text):
            line = line_of(m.start())
            if m["id"] in defined[own] or any(
                (doc, m["id"], line) in cited for doc in defined if doc != own
            ):
                continue
            add(line, f"{own}:{m['id']}", f"§{m['id']} is not a section of this file")
    if OUTSIDE in text:
        add(line_of(text.index(OUTSIDE)), "outside", f"cites {OUTSIDE}, outside the repository")
    return [found[key] for key in sorted(found)]


@pytest.fixture(scope="module")
def defined() -> dict[str, frozenset[str]]:
    return defined_sections()


# --- the tests ---------------------------------------------------------------------------------


def test_every_cited_section_exists(defined: dict[str, frozenset[str]]) -> None:
    found = []
    for path in repository_files():
        found += problems(path, path.read_text(encoding="utf-8"), defined)
    assert not found, "citations of sections that do not exist:\n" + "\n".join(found)


def test_the_scan_sees_the_code_and_the_documents() -> None:
    files = {p.relative_to(ROOT).as_posix() for p in repository_files()}
    assert {
        "domain/rules.py", "service/eventlog/store.py", "docs/rules.md", "docs/bots.md",
        "README.md",
    } <= files  # fmt: skip
    assert not any(part in SKIP_DIRS for f in files for part in Path(f).parts)


RULES_SECTIONS = (
    "0", "0.1", "0.2", "0.3", "N", "A", "B", "B.1", "B.2", "B.3", "C", "D", "D.1", "D.2", "D.3",
    "E", "E.1", "E.2", "E.3", "E.4", "F", "F.0", "F.1", "F.2", "F.3", "F.4", "F.5", "G",
    "H", "H.1", "H.2", "H.3", "H.4", "H.5", "H.6", "I",
    *(f"I-{n}" for n in range(1, 30)), "I-8b", "I-12b", "I-14b",
)  # fmt: skip
EVENT_STORE_SECTIONS = ("9", *(f"9.{n}" for n in range(1, 11)), "10")
BOTS_SECTIONS = (
    *(str(n) for n in range(1, 11)), "1.1", "1.2", "1.3", "2.1", "2.2", "2.3",
    *(f"3.{n}" for n in range(1, 8)), *(f"4.{n}" for n in range(1, 10)), "9.1", "9.2",
)  # fmt: skip


def test_the_documents_keep_their_section_structure(defined: dict[str, frozenset[str]]) -> None:
    assert set(RULES_SECTIONS) <= defined["rules"], set(RULES_SECTIONS) - defined["rules"]
    assert set(EVENT_STORE_SECTIONS) <= defined["event-store"]
    assert set(BOTS_SECTIONS) <= defined["bots"], set(BOTS_SECTIONS) - defined["bots"]


def test_each_former_name_is_declared_by_its_document() -> None:
    for former, doc in FORMER_NAMES.items():
        text = (DOCS / f"{doc}.md").read_text(encoding="utf-8")
        assert f"`{former} §" in text, f"docs/{doc}.md does not name {former} as its former name"


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
        ("(docs/bots.md §4.4)", [("bots", "4.4")]),
        ("docs/bots.md §3.4–3.6, §9.2", [("bots", s) for s in ("3.4", "3.5", "3.6", "9.2")]),
        ("docs/tables.md §2", [("tables", "2")]),
        ("bots.md §2.2", [("bots", "2.2")]),
        ("BOTS.md §2.2", [("BOTS.md", "2.2")]),
        ("docs/nowhere.md §1", [("docs/nowhere.md", "1")]),
        ("README.md §3", [("README.md", "3")]),
        ("see appending.md", []),
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


def test_a_document_that_does_not_exist_fails(defined: dict[str, frozenset[str]]) -> None:
    path = ROOT / "example.py"
    good = (
        "# docs/bots.md §4.4, §9.2 and docs/event-store.md §9.3\n"
        "# README.md, docs/tables.md, `docs/fairness.md`, rules.md §D\n"
        "# Marten's appending.md and archiving.md\n"
    )
    assert problems(path, good, defined) == []
    bad = (
        "# BOTS.md §2.2\n"
        "# see docs/nowhere.md §1\n"
        "# the notes in SOLVER-NOTES.md\n"
        "# docs/bots.md §12 and §4.99\n"
        "# docs/tables.md §2\n"
        "# README.md §3\n"
    )
    found = problems(path, bad, defined)
    assert [f.split(": ", 1)[0] for f in found] == [
        "example.py:1", "example.py:2", "example.py:3", "example.py:4", "example.py:4",
        "example.py:5", "example.py:6",
    ]  # fmt: skip
    named = (
        "BOTS.md is not a document", "docs/nowhere.md is not a document",
        "SOLVER-NOTES.md is not a document", "§12 is not a section of docs/bots.md",
        "§4.99 is not a section of docs/bots.md", "§2 is not a section of docs/tables.md",
        "§3 is not a section of README.md",
    )  # fmt: skip
    for text, expected in zip(found, named, strict=True):
        assert expected in text


def test_a_numbered_document_s_own_sections_must_exist(defined: dict[str, frozenset[str]]) -> None:
    path = BOTS
    ok = "as §4.4 says; the store's docs/event-store.md §9.8 keeps §4.5 apart\n"
    assert problems(path, ok, defined) == []
    found = problems(path, "see §4.4 and §12.1\nand §4.20\n", defined)
    assert [f.split(": ", 1)[0] for f in found] == ["docs/bots.md:1", "docs/bots.md:2"]
    assert "§12.1 is not a section of this file" in found[0]
    assert "§4.20 is not a section of this file" in found[1]


def test_the_conventions_overcall_misere_without_the_talon_as_the_auction_does() -> None:
    """With `miser_without_talon` alone a ten overcalls `MISERWT`, never a nine without the
    talon (those need `talonless_games`): the option's row said otherwise."""
    from domain.cards import MISER, MISER_WT
    from domain.deal.decider import decide, evolve, initial_state, legal_actions, to_act
    from domain.deal.messages import MakeBid, Pass, StartDeal
    from domain.rules import rules_for

    rules = rules_for("sochi", {"bidding": {"miser_without_talon": True}})
    deck = [f"{r}{s}" for s in "SCDH" for r in "789TJQKA"]
    state = initial_state(rules)
    hands = (tuple(deck[0:10]), tuple(deck[10:20]), tuple(deck[20:30]))
    start = StartDeal(dealer=2, hands=hands, talon=(deck[30], deck[31]))
    for command in (start, MakeBid(seat=0, bid=MISER), MakeBid(seat=1, bid="9S"),
                    Pass(seat=2), MakeBid(seat=0, bid=MISER_WT)):  # fmt: skip
        for event in decide(command, state):
            state = evolve(state, event)
    (seat,) = to_act(state)
    overcalls = {a.bid for a in legal_actions(state, seat) if isinstance(a, MakeBid)}
    assert overcalls == {"10S"}
    row = next(
        line
        for line in (DOCS / "conventions.md").read_text(encoding="utf-8").splitlines()
        if line.startswith("| `miser_without_talon` |")
    )
    assert "a nine without the talon or a ten overcalls" not in row
    assert "`talonless_games`" in row
