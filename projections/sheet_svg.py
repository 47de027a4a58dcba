"""The pool sheet (пулька) drawn as players draw it on paper, as an SVG document.

The classic sheet is a rectangle with the pool target written in a circle at the centre. Lines
from the circle cut it into one sector per player: for three players a line up to the middle of
the top edge and two down to the bottom corners (the writer's own sector at the bottom, the
others on the left and right); for four, a line to each corner. Nested rectangles cut every
sector into bands, from the edge inwards:

- whists (висты): one column against each other player, the column nearest a neighbour's sector
  being the whists on him;
- pool (пуля);
- mountain (гора), nearest the circle.

Every column holds the running totals joined by dots, ``2.6.10``, as a player writes them
(`projections.sheet.running_sums`). A mountain written off (pool over the target that nobody
could take) is written with the move, ``14.−6→8``, never as a silent decrease; it and every
other transfer (help into another's pool, the overflow onto the others' mountains) is listed
under the sheet with its reason. A column too long for its band at a legible size
(`LEGIBLE_FONT`) is rewritten as a player rewrites a full column: the earlier numbers carried
as one total, ``…→48.52.60`` (``data-carried`` says how many). After the game the settlement
is written under the sheet, with the amnesty (the smallest mountain taken off every mountain).
The heading names the players, the convention and the day the game was created.

Every word is written in the reader's language (``lang``: English or Russian, `WORDS`); a free
seat is named by its number from 1, never by an index.

The renderer is pure string building. Every text goes through `escape`; the texts that carry
numbers have ``class`` (``pool``, ``mountain``, ``whists``, ``result``) and ``data-seat`` (and
``data-on`` for whists) attributes, so a program can read the sheet back.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Sequence
from typing import Literal
from xml.sax.saxutils import escape as _escape
from xml.sax.saxutils import quoteattr

import msgspec

from domain.sheet import Entry
from projections.sheet import GameSheet

Side = Literal["bottom", "left", "top", "right", "top-lr"]
Lang = Literal["en", "ru"]
LANGS: tuple[Lang, ...] = ("en", "ru")

WORDS: dict[Lang, dict[str, str]] = {
    "en": {
        "sheet": "Pool sheet",
        "seat": "seat {n}",
        "pool.to": "pool to {n}",
        "bands": "From the edge in: whists, pool, mountain",
        "settlement": "Settlement, in whists:",
        "amnesty": "Amnesty: {n} off every mountain",
        "transfers": "Transfers and write-offs (−n→ in a column):",
        "note": "Deal {deal}: {name}'s {column} {amount}, {reason}",
        "pool": "pool",
        "mountain": "mountain",
        "written_off": "written off: pool over the target that nobody could take",
        "help": "help{by}: pool over the target given into this pool",
        "help.by": " from {name}",
        "overflow": "the overflow of a pool over the target onto the other mountains",
    },
    "ru": {
        "sheet": "Пулька",
        "seat": "место {n}",
        "pool.to": "пуля до {n}",
        "bands": "От края к центру: висты, пуля, гора",
        "settlement": "Расчёт, в вистах:",
        "amnesty": "Амнистия: с каждой горы снято {n}",
        "transfers": "Переносы и списания (−n→ в столбце):",
        "note": "Сдача {deal}: {name}, {column} {amount}, {reason}",
        "pool": "пуля",
        "mountain": "гора",
        "written_off": "списано: пуля сверх цели, которую некому было закрыть",
        "help": "помощь{by}: пуля сверх цели отдана в эту пулю",
        "help.by": " от {name}",
        "overflow": "пуля сверх цели записана на горы остальных",
    },
}
"""The sheet's words per language (the numbers and the players' names are the same in both)."""
CONVENTIONS: dict[Lang, dict[str, str]] = {
    "en": {"sochi": "Sochi", "leningrad": "Leningrad", "rostov": "Rostov", "classic": "Classic"},
    "ru": {
        "sochi": "Сочинка",
        "leningrad": "Ленинградка",
        "rostov": "Ростов",
        "classic": "Классика",
    },
}

WIDTH, HEIGHT = 900, 840
X0, Y0, X1, Y1 = 70.0, 84.0, 830.0, 690.0
"""The sheet's outer rectangle."""
CX, CY = (X0 + X1) / 2, (Y0 + Y1) / 2
RADIUS = 42.0
WHIST_BAND, POOL_BAND, MOUNTAIN_BAND = 96.0, 64.0, 84.0
"""Band widths, from the edge inwards; the mountain is written in the space between the pool's
inner line and the circle."""
FONT, LEGIBLE_FONT = 15.0, 11.0
"""The writing's size, and the smallest it gets before a column is folded."""
MAX_LINES = 4
"""Lines a column takes in its band at most before it is folded (more is a wall of digits)."""
FONT_FAMILY = "'Segoe Print', 'Comic Sans MS', 'Bradley Hand', cursive"
INK, PENCIL = "#1d3a8a", "#444"

# Per player count, each seat's side (its pool and mountain are written along it) and its whist
# columns: (side, from, to, on seat), ``from``/``to`` as fractions of the side in its writing
# direction. The column nearest a neighbour's sector is the whists on that neighbour.
_SECTORS: dict[int, dict[int, tuple[Side, tuple[tuple[Side, float, float, int], ...]]]] = {
    3: {
        0: ("bottom", (("bottom", 0.0, 0.5, 1), ("bottom", 0.5, 1.0, 2))),
        1: ("left", (("left", 0.0, 1.0, 0), ("top-lr", 0.0, 0.5, 2))),
        2: ("right", (("right", 0.0, 1.0, 0), ("top-lr", 0.5, 1.0, 1))),
    },
    4: {
        0: ("bottom", tuple(("bottom", i / 3, (i + 1) / 3, s) for i, s in enumerate((1, 2, 3)))),
        1: ("left", tuple(("left", i / 3, (i + 1) / 3, s) for i, s in enumerate((0, 3, 2)))),
        2: ("top", tuple(("top", i / 3, (i + 1) / 3, s) for i, s in enumerate((3, 0, 1)))),
        3: ("right", tuple(("right", i / 3, (i + 1) / 3, s) for i, s in enumerate((2, 1, 0)))),
    },
}


def escape(text: str) -> str:
    """``text`` safe inside an XML element (``&``, ``<``, ``>`` and quotes escaped)."""
    return _escape(text, {'"': "&quot;", "'": "&apos;"})


def _fmt(value: float) -> str:
    return f"{value:.1f}".rstrip("0").rstrip(".")


def _point(side: Side, inset: float, f: float) -> tuple[float, float, int]:
    """A point ``inset`` in from ``side``, at fraction ``f`` along it, and the text rotation."""
    w, h = X1 - X0 - 2 * inset, Y1 - Y0 - 2 * inset
    match side:
        case "bottom":
            return X0 + inset + f * w, Y1 - inset, 0
        case "top-lr":
            return X0 + inset + f * w, Y0 + inset, 0
        case "top":
            return X1 - inset - f * w, Y0 + inset, 180
        case "left":
            return X0 + inset, Y1 - inset - f * h, -90
        case "right":
            return X1 - inset, Y0 + inset + f * h, 90
    raise AssertionError(side)


def _side_length(side: Side, inset: float) -> float:
    horizontal = side in ("bottom", "top", "top-lr")
    return (X1 - X0 if horizontal else Y1 - Y0) - 2 * inset


def _lines(value: str, per_line: int) -> list[str]:
    """``value`` broken after dots into lines of at most ``per_line`` characters, as one goes on
    writing a long column on the next line of its band."""
    lines, current = [], ""
    for part in value.split("."):
        piece = part if not current else "." + part
        if current and len(current) + len(piece) > per_line:
            lines.append(current + ".")
            current = part
        else:
            current += piece
    return [*lines, current]


TRANSFERS = frozenset({"mountain_written_off", "overflow_to_mountain", "help"})
"""Rules whose entries move points rather than score play: listed under the sheet."""
WRITE_OFFS = frozenset({"mountain_written_off"})
"""Rules that take points off a column: written in it with the move."""


class Step(msgspec.Struct, frozen=True):
    """One number written in a column: the running total after a deal, and the move itself
    when the deal took points off by a write-off (`WRITE_OFFS`)."""

    total: int
    moved: int | None = None

    def written(self) -> str:
        if self.moved is None:
            return str(self.total)
        return f"{self.moved:+d}→{self.total}".replace("-", "−")


class ColumnSteps(msgspec.Struct, frozen=True, kw_only=True):
    """A player's columns as `Step` s, oldest first (``whists[j]``: on seat ``j``)."""

    pool: tuple[Step, ...] = ()
    mountain: tuple[Step, ...] = ()
    whists: tuple[tuple[Step, ...], ...] = ()


def column_steps(model: GameSheet) -> tuple[ColumnSteps, ...]:
    """Every column's steps, one per deal that changed it: `projections.sheet.running_sums`
    with the write-offs marked."""
    n = len(model.players)
    totals: dict[tuple[str, int, int], int] = {}
    steps: dict[tuple[str, int, int], list[Step]] = {}
    for deal in model.deals:
        moved: dict[tuple[str, int, int], int] = {}
        marked: set[tuple[str, int, int]] = set()
        for e in deal.entries:
            key: tuple[str, int, int] = (e.kind, e.seat, e.on if e.on is not None else -1)
            moved[key] = moved.get(key, 0) + e.amount
            if e.rule in WRITE_OFFS:
                marked.add(key)
        for key in sorted(moved):
            totals[key] = totals.get(key, 0) + moved[key]
            step = Step(totals[key], moved[key] if key in marked else None)
            steps.setdefault(key, []).append(step)
    return tuple(
        ColumnSteps(
            pool=tuple(steps.get(("pool", i, -1), ())),
            mountain=tuple(steps.get(("mountain", i, -1), ())),
            whists=tuple(tuple(steps.get(("whists", i, j), ())) for j in range(n)),
        )
        for i in range(n)
    )


def _folded(column: Sequence[Step], carried: int) -> str:
    """The column with its first ``carried`` steps carried as their last total."""
    kept = ".".join(step.written() for step in column[carried:])
    return f"…→{column[carried - 1].total}.{kept}" if carried else kept


def _text(
    column: Sequence[Step],
    side: Side,
    inset: float,
    f0: float,
    f1: float,
    attrs: dict[str, str],
    band: float,
) -> str:
    """A column written along ``side`` in a band ``band`` wide centred ``inset`` in.

    A long column wraps onto more lines and the writing gets smaller, down to `LEGIBLE_FONT`;
    past that its earliest numbers are carried as one total (`_folded`), the most recent kept.
    """
    x, y, rotation = _point(side, inset, (f0 + f1) / 2)
    room = _side_length(side, inset) * (f1 - f0) * 0.92

    def fits(value: str, size: float) -> list[str] | None:
        lines = _lines(value, max(4, int(room / (size * 0.6))))
        tall = len(lines) > MAX_LINES or len(lines) * size * 1.15 > band * 0.9
        wide = any(len(line) * size * 0.6 > room for line in lines)
        return None if tall or wide else lines

    chosen: tuple[str, float, list[str], int] | None = None
    for carried in range(len(column)):
        value = _folded(column, carried)
        size = FONT
        while size >= LEGIBLE_FONT and (lines := fits(value, size)) is None:
            size -= 1
        if size >= LEGIBLE_FONT and lines is not None:
            chosen = (value, size, lines, carried)
            break
    if chosen is None:  # not even the last number fits: write it squeezed, still legible
        last = len(column) - 1
        value = _folded(column, last)
        chosen = (value, LEGIBLE_FONT, [value], last)
    value, size, lines, carried = chosen
    if carried:
        attrs = {**attrs, "data-carried": str(carried)}
    extra = "".join(f" {k}={quoteattr(v)}" for k, v in attrs.items())
    spans = []
    for k, line in enumerate(lines):
        dy = (k - (len(lines) - 1) / 2) * size * 1.15
        fit = ""
        if len(line) * size * 0.6 > room:
            fit = f' textLength="{_fmt(room)}" lengthAdjust="spacingAndGlyphs"'
        spans.append(f'<tspan x="0" y="{_fmt(dy)}"{fit}>{escape(line)}</tspan>')
    return (
        f'<text transform="translate({_fmt(x)} {_fmt(y)}) rotate({rotation})"'
        f' font-size="{_fmt(size)}"{extra}>{"".join(spans)}</text>'
    )


def _rect(inset: float) -> str:
    return (
        f'<rect x="{_fmt(X0 + inset)}" y="{_fmt(Y0 + inset)}" width="{_fmt(X1 - X0 - 2 * inset)}"'
        f' height="{_fmt(Y1 - Y0 - 2 * inset)}" fill="none"/>'
    )


def _line(a: tuple[float, float], b: tuple[float, float]) -> str:
    return f'<line x1="{_fmt(a[0])}" y1="{_fmt(a[1])}" x2="{_fmt(b[0])}" y2="{_fmt(b[1])}"/>'


def _toward_circle(corner: tuple[float, float]) -> tuple[float, float]:
    dx, dy = corner[0] - CX, corner[1] - CY
    norm = (dx * dx + dy * dy) ** 0.5
    return CX + dx / norm * RADIUS, CY + dy / norm * RADIUS


def _frame(players: int) -> list[str]:
    """The rectangles, the circle and the lines between the sectors and the whist columns."""
    insets = (0.0, WHIST_BAND, WHIST_BAND + POOL_BAND)
    parts = [_rect(i) for i in insets]
    corners = {
        "bl": lambda i: (X0 + i, Y1 - i),
        "br": lambda i: (X1 - i, Y1 - i),
        "tl": lambda i: (X0 + i, Y0 + i),
        "tr": lambda i: (X1 - i, Y0 + i),
    }
    cut = ("bl", "br") if players == 3 else ("bl", "br", "tl", "tr")
    for name in cut:  # a sector line runs through the corners of the nested rectangles
        points = [corners[name](i) for i in insets]
        points.append(_toward_circle(points[-1]))
        parts += [_line(a, b) for a, b in itertools.pairwise(points)]
    if players == 3:
        parts.append(_line((CX, Y0), (CX, CY - RADIUS)))  # between the left and right sectors
        for name in ("tl", "tr"):  # the corner between a side player's two whist columns
            parts.append(_line(corners[name](0), corners[name](WHIST_BAND)))
        parts.append(_line((CX, Y1), (CX, Y1 - WHIST_BAND)))
    else:
        for side in ("bottom", "left", "top", "right"):
            for f in (1 / 3, 2 / 3):
                a, b = _point(side, 0, f), _point(side, WHIST_BAND, f)
                parts.append(_line(a[:2], b[:2]))
    return parts


def _name_position(side: Side) -> tuple[float, float, int]:
    gap = 26.0
    match side:
        case "bottom":
            return CX, Y1 + gap, 0
        case "left":
            return X0 - gap, CY, -90
        case "right":
            return X1 + gap, CY, 90
        case _:
            return CX, Y0 - gap * 0.6, 0


_MONTHS: dict[Lang, tuple[str, ...]] = {
    "en": ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"),
    "ru": ("янв", "фев", "мар", "апр", "мая", "июн", "июл", "авг", "сен", "окт", "ноя", "дек"),
}


def sheet_title(model: GameSheet, shown: Sequence[str], lang: Lang = "en") -> tuple[str, str]:
    """The heading's two lines: the players, then the convention, the pool and the date."""
    about = []
    if model.rules is not None:
        rules = model.rules
        convention = CONVENTIONS[lang].get(rules.convention, rules.convention.capitalize())
        about.append(f"{convention}, {WORDS[lang]['pool.to'].format(n=rules.pool.target)}")
    if model.created_at is not None:
        day = time.gmtime(model.created_at / 1000)
        about.append(f"{day.tm_mday} {_MONTHS[lang][day.tm_mon - 1]} {day.tm_year}")
    return " · ".join(shown), " · ".join(about)


def _transfer_notes(model: GameSheet, shown: Sequence[str], lang: Lang = "en") -> list[str]:
    """Each transfer and write-off in words, deal by deal (what a column's ``±n→`` means)."""
    words = WORDS[lang]
    notes = []
    for deal in model.deals:
        for e in deal.entries:
            if e.rule not in TRANSFERS:
                continue
            column = words["pool" if e.kind == "pool" else "mountain"]
            amount = f"{e.amount:+d}".replace("-", "−")
            reason = _reason(e, deal.entries, shown, words)
            name = shown[e.seat]
            notes.append(
                words["note"].format(
                    deal=deal.deal_no, name=name, column=column, amount=amount, reason=reason
                )
            )
    return notes


def _reason(e: Entry, entries: Sequence[Entry], shown: Sequence[str], words: dict[str, str]) -> str:
    if e.rule == "mountain_written_off":
        return words["written_off"]
    if e.rule == "help":
        givers = [x.seat for x in entries if x.rule == "help_whists" and x.on == e.seat]
        by = words["help.by"].format(name=shown[givers[0]]) if givers else ""
        return words["help"].format(by=by)
    return words["overflow"]


def render_svg(
    model: GameSheet,
    *,
    title: str = "",
    names: Sequence[str | None] | None = None,
    lang: Lang = "en",
) -> str:
    """The sheet of ``model`` as a standalone SVG document (3 or 4 players), worded in ``lang``.

    ``names`` are shown for the players (default: their ids, or ``seat N`` from 1 for a free
    seat); ``title`` replaces the heading's first line (default: the names, `sheet_title`).
    """
    n = len(model.players)
    words = WORDS[lang]
    shown = [
        (names[i] if names and i < len(names) and names[i] else None)
        or model.players[i]
        or words["seat"].format(n=i + 1)
        for i in range(n)
    ]
    if n not in _SECTORS:
        raise ValueError(f"a sheet is drawn for 3 or 4 players, not {n}")
    columns = column_steps(model)
    target = model.rules.pool.target if model.rules else 0
    heading, about = sheet_title(model, shown, lang)
    heading = title or heading
    below: list[tuple[str, str, str]] = []  # (class, text, extra attributes) under the sheet
    below.append(("bands-title", words["bands"], ""))
    if model.settlement is not None:
        below.append(("settlement-title", words["settlement"], ""))
        for seat, value in enumerate(model.settlement.result):
            below.append(("result", f"{shown[seat]}: {value:+d}", f' data-seat="{seat}"'))
        if model.settlement.mountain_amnesty:
            amnesty = model.settlement.mountain_amnesty
            below.append(("amnesty", words["amnesty"].format(n=amnesty), ""))
    notes = _transfer_notes(model, shown, lang)
    if notes:
        below.append(("transfers-title", words["transfers"], ""))
        below += [("transfer", note, "") for note in notes]
    height = max(HEIGHT, int(Y1 + 58 + 20 * len(below)))
    out = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}"'
        f' viewBox="0 0 {WIDTH} {height}" font-family="{FONT_FAMILY}" xml:lang="{lang}">',
        f"<title>{escape(' — '.join(t for t in (heading, about) if t) or words['sheet'])}</title>",
        f'<rect width="{WIDTH}" height="{height}" fill="#fdfcf5"/>',
        f'<g stroke="{PENCIL}" stroke-width="1.6" stroke-linecap="round" fill="none">',
        *_frame(n),
        f'<circle cx="{_fmt(CX)}" cy="{_fmt(CY)}" r="{_fmt(RADIUS)}"/>',
        "</g>",
        f'<g fill="{INK}" text-anchor="middle" dominant-baseline="middle">',
        f'<text class="target" x="{_fmt(CX)}" y="{_fmt(CY)}" font-size="26">{target}</text>',
        _heading("title", heading, 20, 16),
    ]
    if about:
        out.append(_heading("subtitle", about, 42, 13))
    pool_at = WHIST_BAND + POOL_BAND / 2
    mountain_at = WHIST_BAND + POOL_BAND + MOUNTAIN_BAND / 2
    for seat, (side, whist_columns) in _SECTORS[n].items():
        col = columns[seat]
        ident = str(seat)
        name = shown[seat]
        x, y, rotation = _name_position(side)
        out.append(
            f'<text class="player" data-seat="{seat}" x="{_fmt(x)}" y="{_fmt(y)}"'
            f' transform="rotate({rotation} {_fmt(x)} {_fmt(y)})" font-size="14"'
            f' fill="#222">{escape(name)}</text>'
        )
        if col.pool:
            out.append(
                _text(col.pool, side, pool_at, 0.06, 0.94,
                      {"class": "pool", "data-seat": ident}, POOL_BAND)
            )  # fmt: skip
        if col.mountain:
            out.append(
                _text(col.mountain, side, mountain_at, 0.12, 0.88,
                      {"class": "mountain", "data-seat": ident}, MOUNTAIN_BAND)
            )  # fmt: skip
        for whist_side, f0, f1, on in whist_columns:
            if col.whists[on]:
                out.append(
                    _text(col.whists[on], whist_side, WHIST_BAND / 2, f0 + 0.03,
                          f1 - 0.03, {"class": "whists", "data-seat": ident, "data-on": str(on)},
                          WHIST_BAND)
                )  # fmt: skip
    out.append("</g>")
    if below:
        out.append(f'<g fill="{INK}" font-size="15">')
        for k, (cls, text, extra) in enumerate(below):
            indent = 0 if cls.endswith("-title") else 24
            size = ' font-size="13"' if cls == "transfer" else ""
            out.append(
                f'<text class="{cls}"{extra} x="{_fmt(X0 + indent)}" y="{_fmt(Y1 + 58 + 20 * k)}"'
                f"{size}{_squeezed(text, 13 if size else 15, WIDTH - X0 - indent - 20)}>"
                f"{escape(text)}</text>"
            )
        out.append("</g>")
    out.append("</svg>")
    return "\n".join(out)


def _heading(cls: str, text: str, y: float, size: float) -> str:
    return (
        f'<text class="{cls}" x="{_fmt(CX)}" y="{_fmt(y)}" font-size="{_fmt(size)}"'
        f"{_squeezed(text, size, WIDTH - 40)}>{escape(text)}</text>"
    )


def _squeezed(text: str, size: float, room: float) -> str:
    """A ``textLength`` for a line that would run past ``room`` pixels (names can be long)."""
    if len(text) * size * 0.6 <= room:
        return ""
    return f' textLength="{_fmt(room)}" lengthAdjust="spacingAndGlyphs"'
