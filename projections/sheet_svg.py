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
(`projections.sheet.running_sums`). After the game the settlement is written under the sheet.

The renderer is pure string building. Every text goes through `escape`; the texts that carry
numbers have ``class`` (``pool``, ``mountain``, ``whists``, ``result``) and ``data-seat`` (and
``data-on`` for whists) attributes, so a program can read the sheet back.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Literal
from xml.sax.saxutils import escape as _escape
from xml.sax.saxutils import quoteattr

from projections.sheet import GameSheet, running_sums, written

Side = Literal["bottom", "left", "top", "right", "top-lr"]

WIDTH, HEIGHT = 900, 840
X0, Y0, X1, Y1 = 70.0, 84.0, 830.0, 690.0
"""The sheet's outer rectangle."""
CX, CY = (X0 + X1) / 2, (Y0 + Y1) / 2
RADIUS = 42.0
WHIST_BAND, POOL_BAND, MOUNTAIN_BAND = 96.0, 64.0, 84.0
"""Band widths, from the edge inwards; the mountain is written in the space between the pool's
inner line and the circle."""
FONT, MIN_FONT = 15.0, 9.0
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


def _text(
    value: str,
    side: Side,
    inset: float,
    f0: float,
    f1: float,
    attrs: dict[str, str],
    band: float,
) -> str:
    """A column written along ``side`` in a band ``band`` wide centred ``inset`` in.

    Long columns wrap onto more lines and the writing gets smaller, down to a minimum size;
    past it the lines are squeezed to fit.
    """
    x, y, rotation = _point(side, inset, (f0 + f1) / 2)
    room = _side_length(side, inset) * (f1 - f0) * 0.92
    size = FONT
    while True:
        per_line = max(4, int(room / (size * 0.6)))
        lines = _lines(value, per_line)
        if len(lines) * size * 1.15 <= band * 0.9 or size <= MIN_FONT:
            break
        size -= 1
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


def render_svg(
    model: GameSheet, *, title: str = "", names: Sequence[str | None] | None = None
) -> str:
    """The sheet of ``model`` as a standalone SVG document (3 or 4 players).

    ``names`` are shown for the players (default: their ids, or ``seat N`` for a free seat).
    """
    n = len(model.players)
    shown = [
        (names[i] if names and i < len(names) and names[i] else None)
        or model.players[i]
        or f"seat {i}"
        for i in range(n)
    ]
    if n not in _SECTORS:
        raise ValueError(f"a sheet is drawn for 3 or 4 players, not {n}")
    columns = running_sums(model)
    target = model.rules.pool.target if model.rules else 0
    out = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}"'
        f' viewBox="0 0 {WIDTH} {HEIGHT}" font-family="{FONT_FAMILY}">',
        f"<title>{escape(title or 'Pool sheet')}</title>",
        f'<rect width="{WIDTH}" height="{HEIGHT}" fill="#fdfcf5"/>',
        f'<g stroke="{PENCIL}" stroke-width="1.6" stroke-linecap="round" fill="none">',
        *_frame(n),
        f'<circle cx="{_fmt(CX)}" cy="{_fmt(CY)}" r="{_fmt(RADIUS)}"/>',
        "</g>",
        f'<g fill="{INK}" text-anchor="middle" dominant-baseline="middle">',
        f'<text class="target" x="{_fmt(CX)}" y="{_fmt(CY)}" font-size="26">{target}</text>',
    ]
    if title:
        out.append(
            f'<text class="title" x="{_fmt(CX)}" y="24" font-size="16">{escape(title)}</text>'
        )
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
                _text(written(col.pool), side, pool_at, 0.06, 0.94,
                      {"class": "pool", "data-seat": ident}, POOL_BAND)
            )  # fmt: skip
        if col.mountain:
            out.append(
                _text(written(col.mountain), side, mountain_at, 0.12, 0.88,
                      {"class": "mountain", "data-seat": ident}, MOUNTAIN_BAND)
            )  # fmt: skip
        for whist_side, f0, f1, on in whist_columns:
            if col.whists[on]:
                out.append(
                    _text(written(col.whists[on]), whist_side, WHIST_BAND / 2, f0 + 0.03,
                          f1 - 0.03, {"class": "whists", "data-seat": ident, "data-on": str(on)},
                          WHIST_BAND)
                )  # fmt: skip
    out.append("</g>")
    if model.settlement is not None:
        top = Y1 + 58
        out.append(
            f'<g fill="{INK}" font-size="15"><text class="settlement-title" x="{_fmt(X0)}"'
            f' y="{_fmt(top)}">{escape("Расчёт (settlement), whists:")}</text>'
        )
        for seat, value in enumerate(model.settlement.result):
            y = top + 20 * (seat + 1)
            out.append(
                f'<text class="result" data-seat="{seat}" x="{_fmt(X0 + 24)}" y="{_fmt(y)}">'
                f"{escape(f'{shown[seat]}: {value:+d}')}</text>"
            )
        out.append("</g>")
    out.append("</svg>")
    return "\n".join(out)
