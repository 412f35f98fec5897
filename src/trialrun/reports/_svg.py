"""Plain inline SVG charts, drawn in Python: no JavaScript, no fonts, nothing fetched.

Each function returns one `<svg>` element as text (escaped, with a `<title>` for screen
readers and a `viewBox`, so it scales). Values are fractions 0–1 or plain numbers; the
charts only draw what they are given.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from html import escape

PALETTE = ("#2563eb", "#d97706", "#059669", "#9333ea", "#dc2626", "#0891b2", "#65a30d")
W, H = 560, 260
PAD_L, PAD_R, PAD_T, PAD_B = 44, 16, 28, 36


def _f(x: float) -> str:
    return f"{x:.1f}".rstrip("0").rstrip(".")


def _open(title: str, width: int = W, height: int = H, cls: str = "chart") -> list[str]:
    t = escape(title)
    return [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="{cls}" viewBox="0 0 {width} {height}" '
        f'width="{width}" height="{height}" role="img" aria-label="{t}">',
        f"<title>{t}</title>",
        f'<text x="{PAD_L}" y="16" class="ct">{t}</text>',
    ]


def _empty(title: str, note: str) -> str:
    parts = _open(title, height=80)
    parts.append(f'<text x="{PAD_L}" y="50" class="cn">{escape(note)}</text></svg>')
    return "".join(parts)


def _pct_axis(
    parts: list[str], x0: float, x1: float, y_of: Callable[[float], float]
) -> None:
    for tick in (0.0, 0.25, 0.5, 0.75, 1.0):
        y = y_of(tick)
        parts.append(f'<line x1="{_f(x0)}" x2="{_f(x1)}" y1="{_f(y)}" y2="{_f(y)}" class="gl"/>')
        parts.append(
            f'<text x="{_f(x0 - 6)}" y="{_f(y + 4)}" class="tl" text-anchor="end">'
            f"{int(tick * 100)}%</text>"
        )


@dataclass(slots=True)
class Series:
    """One curve: y over x = 1…n, and optionally a band (lo, hi) at each x."""

    label: str
    ys: list[float]
    lo: list[float] = field(default_factory=list)
    hi: list[float] = field(default_factory=list)
    dashed: bool = False


def curve_chart(title: str, series: Sequence[Series], x_label: str = "k") -> str:
    """Curves over k = 1…n (y in 0–1) with shaded bands; one colour per series."""
    drawn = tuple((s.label, tuple(s.ys), tuple(s.lo), tuple(s.hi), s.dashed)
                  for s in series if s.ys)
    if not drawn:
        return _empty(title, "no task has enough counted trials")
    return "".join(_open(title)) + _curve_body(drawn, x_label)


# (label, ys, lo, hi, dashed) per series
_Drawn = tuple[tuple[str, tuple[float, ...], tuple[float, ...], tuple[float, ...], bool], ...]


@lru_cache(maxsize=1024)
def _curve_body(drawn: _Drawn, x_label: str) -> str:
    """Everything of a curve chart after its title: the same for every task with the
    same counts (a 10,000-task report draws a few dozen distinct curves, not 10,000)."""
    series = [Series(label, list(ys), list(lo), list(hi), dashed)
              for label, ys, lo, hi, dashed in drawn]
    n = max(len(s.ys) for s in series)
    x0, x1, y0, y1 = PAD_L, W - PAD_R - 135, H - PAD_B, PAD_T

    def x_of(k: int) -> float:
        return x0 + (x1 - x0) * ((k - 1) / (n - 1) if n > 1 else 0.5)

    def y_of(v: float) -> float:
        return y0 - (y0 - y1) * max(0.0, min(1.0, v))

    parts: list[str] = []
    _pct_axis(parts, x0, x1, y_of)
    step = max(1, math.ceil(n / 10))
    for k in range(1, n + 1, step):
        parts.append(
            f'<text x="{_f(x_of(k))}" y="{y0 + 16}" class="tl" text-anchor="middle">{k}</text>'
        )
    parts.append(f'<text x="{_f((x0 + x1) / 2)}" y="{H - 4}" class="tl" '
                 f'text-anchor="middle">{escape(x_label)}</text>')
    for i, s in enumerate(series):
        color = PALETTE[i % len(PALETTE)]
        if s.lo and s.hi:
            upper = [f"{_f(x_of(k + 1))},{_f(y_of(v))}" for k, v in enumerate(s.hi)]
            lower = [f"{_f(x_of(k + 1))},{_f(y_of(v))}" for k, v in enumerate(s.lo)]
            if n == 1 or len(s.ys) == 1:
                xm = x_of(1)
                parts.append(f'<line x1="{_f(xm)}" x2="{_f(xm)}" y1="{_f(y_of(s.lo[0]))}" '
                             f'y2="{_f(y_of(s.hi[0]))}" stroke="{color}" stroke-width="8" '
                             'stroke-opacity="0.18"/>')
            else:
                pts = " ".join(upper + lower[::-1])
                parts.append(f'<polygon points="{pts}" fill="{color}" fill-opacity="0.14"/>')
        pts = " ".join(f"{_f(x_of(k + 1))},{_f(y_of(v))}" for k, v in enumerate(s.ys))
        dash = ' stroke-dasharray="5 4"' if s.dashed else ""
        parts.append(f'<polyline points="{pts}" fill="none" stroke="{color}" '
                     f'stroke-width="2"{dash}/>')
        for k, v in enumerate(s.ys):
            parts.append(f'<circle cx="{_f(x_of(k + 1))}" cy="{_f(y_of(v))}" r="2.5" '
                         f'fill="{color}"><title>{escape(s.label)} k={k + 1}: '
                         f'{v * 100:.1f}%</title></circle>')
        ly = PAD_T + 6 + 18 * i
        parts.append(f'<line x1="{x1 + 14}" x2="{x1 + 34}" y1="{ly}" y2="{ly}" stroke="{color}" '
                     f'stroke-width="2"{dash}/>')
        parts.append(f'<text x="{x1 + 38}" y="{ly + 4}" class="tl">{escape(s.label)}</text>')
    parts.append("</svg>")
    return "".join(parts)


def _percent_grid(parts: list[str], x0: float, x1: float, bottom: float) -> None:
    """Gridlines at 0, 50 and 100 % from x0 to x1, each labelled under its foot."""
    for tick in (0.0, 0.5, 1.0):
        x = x0 + (x1 - x0) * tick
        parts.append(f'<line x1="{_f(x)}" x2="{_f(x)}" y1="{PAD_T}" y2="{bottom}" '
                     'class="gl"/>')
        parts.append(f'<text x="{_f(x)}" y="{bottom + 14}" class="tl" text-anchor="middle">'
                     f"{int(tick * 100)}%</text>")


def bar_chart(title: str, bars: Sequence[tuple[str, float | None, str]]) -> str:
    """Horizontal bars of fractions 0–1: (label, value, note shown after the bar)."""
    if not bars:
        return _empty(title, "nothing to show")
    row = 22
    height = PAD_T + row * len(bars) + 24
    label_w = 120
    x0, x1 = PAD_L + label_w, W - PAD_R - 90
    parts = _open(title, height=height)
    _percent_grid(parts, x0, x1, height - 20)
    for i, (label, value, note) in enumerate(bars):
        y = PAD_T + row * i
        parts.append(f'<text x="{x0 - 6}" y="{y + 15}" class="tl" text-anchor="end">'
                     f"{escape(label[:24])}</text>")
        if value is not None:
            width = (x1 - x0) * max(0.0, min(1.0, value))
            parts.append(f'<rect x="{x0}" y="{y + 4}" width="{_f(width)}" height="14" '
                         f'fill="{PALETTE[0]}"><title>{escape(label)}: {value * 100:.1f}% '
                         f"{escape(note)}</title></rect>")
        shown = "—" if value is None else f"{value * 100:.0f}%"
        parts.append(f'<text x="{x1 + 6}" y="{y + 15}" class="tl">{shown} '
                     f"{escape(note)}</text>")
    parts.append("</svg>")
    return "".join(parts)


def _ticks(lo: float, hi: float) -> list[float]:
    span = hi - lo or 1.0
    raw = span / 4
    mag = 10 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 2.5, 5, 10) if m * mag >= raw)
    first = math.floor(lo / step) * step
    return [first + i * step for i in range(int((hi - first) / step) + 2)]


def _num_text(value: float, unit: str) -> str:
    if unit == "$":
        return f"${value:.4g}"
    return f"{value:.3g}{unit}"


def histogram(title: str, values: Sequence[float], unit: str = "", bins: int = 20) -> str:
    """Counts of values in equal bins, with the P50 and P95 marked."""
    values = sorted(v for v in values if isinstance(v, (int, float)) and math.isfinite(v))
    if not values:
        return _empty(title, "no values recorded")
    lo, hi = values[0], values[-1]
    if hi <= lo:
        hi = lo + (abs(lo) or 1.0) * 0.1
    bins = max(1, min(bins, len(values)))
    counts = [0] * bins
    for v in values:
        counts[min(bins - 1, int((v - lo) / (hi - lo) * bins))] += 1
    top = max(counts)
    x0, x1, y0, y1 = PAD_L, W - PAD_R, H - PAD_B, PAD_T + 8

    def x_of(v: float) -> float:
        return x0 + (x1 - x0) * (v - lo) / (hi - lo)

    parts = _open(title)
    width = (x1 - x0) / bins
    for i, c in enumerate(counts):
        h = (y0 - y1) * c / top
        start = lo + (hi - lo) * i / bins
        parts.append(f'<rect x="{_f(x0 + width * i)}" y="{_f(y0 - h)}" width="{_f(width - 1)}" '
                     f'height="{_f(h)}" fill="{PALETTE[0]}" fill-opacity="0.75"><title>'
                     f"{_num_text(start, unit)}–{_num_text(start + (hi - lo) / bins, unit)}: "
                     f"{c}</title></rect>")
    parts.append(f'<line x1="{x0}" x2="{x1}" y1="{y0}" y2="{y0}" class="ax"/>')
    for t in _ticks(lo, hi):
        if lo <= t <= hi:
            parts.append(f'<text x="{_f(x_of(t))}" y="{y0 + 16}" class="tl" '
                         f'text-anchor="middle">{_num_text(t, unit)}</text>')
    parts.append(f'<text x="{x0 - 6}" y="{_f(y1 + 4)}" class="tl" text-anchor="end">{top}</text>')
    for q, name in ((50, "P50"), (95, "P95")):
        pos = (len(values) - 1) * q / 100
        low = math.floor(pos)
        high = min(low + 1, len(values) - 1)
        v = values[low] + (values[high] - values[low]) * (pos - low)
        x = x_of(v)
        parts.append(f'<line x1="{_f(x)}" x2="{_f(x)}" y1="{y1}" y2="{y0}" stroke="{PALETTE[1]}" '
                     'stroke-dasharray="4 3"/>')
        parts.append(f'<text x="{_f(x + 3)}" y="{y1 + 10}" class="tl">{name} '
                     f"{_num_text(v, unit)}</text>")
    parts.append(f'<text x="{x1}" y="16" class="tl" text-anchor="end">n = {len(values)}</text>')
    parts.append("</svg>")
    return "".join(parts)


KIND_COLORS = {
    "regression": "#dc2626",
    "within noise": "#d97706",
    "improved": "#059669",
    "unchanged": "#64748b",
}


def dumbbell(title: str, rows: Sequence[tuple[str, float | None, float | None, str]]) -> str:
    """Before → after per row (fractions 0–1): (label, before, after, kind), kind coloured
    as in `KIND_COLORS` (regression, within noise, improved, unchanged; a kind may add
    " · drift")."""
    if not rows:
        return _empty(title, "no task in common")
    row = 20
    height = PAD_T + row * len(rows) + 40
    label_w = 150
    x0, x1 = PAD_L + label_w, W - PAD_R - 130
    parts = _open(title, height=height)
    _percent_grid(parts, x0, x1, height - 36)
    for i, (label, before, after, kind) in enumerate(rows):
        y = PAD_T + row * i + 10
        color = KIND_COLORS.get(kind.split(" · ")[0], "#64748b")  # "within noise · drift"
        parts.append(f'<text x="{x0 - 8}" y="{y + 4}" class="tl" text-anchor="end">'
                     f"{escape(label[:28])}</text>")
        if before is not None and after is not None:
            xb, xa = x0 + (x1 - x0) * before, x0 + (x1 - x0) * after
            parts.append(f'<line x1="{_f(xb)}" x2="{_f(xa)}" y1="{y}" y2="{y}" stroke="{color}" '
                         'stroke-width="2"/>')
            parts.append(f'<circle cx="{_f(xb)}" cy="{y}" r="4" fill="#fff" stroke="{color}"/>')
            parts.append(f'<circle cx="{_f(xa)}" cy="{y}" r="4" fill="{color}"><title>'
                         f"{escape(label)}: {before * 100:.0f}% → {after * 100:.0f}% "
                         f"({escape(kind)})</title></circle>")
        parts.append(f'<text x="{x1 + 10}" y="{y + 4}" class="tl" style="fill:{color}">'
                     f"{escape(kind)}</text>")
    ly = height - 8
    parts.append(f'<text x="{PAD_L}" y="{ly}" class="tl">○ before  ● after</text>')
    for j, (kind, color) in enumerate(KIND_COLORS.items()):
        parts.append(f'<text x="{PAD_L + 120 + 95 * j}" y="{ly}" class="tl" '
                     f'style="fill:{color}">■ {kind}</text>')
    parts.append("</svg>")
    return "".join(parts)


def heat_color(value: float) -> str:
    """0 → red, 0.5 → amber, 1 → green (HSL hue 0…140)."""
    v = max(0.0, min(1.0, value))
    return f"hsl({v * 140:.0f},70%,{48 - 6 * v:.0f}%)"


Cell = tuple[float | None, str]  # a heat map cell: value (None: no verdict), tooltip
LEGEND_STOPS = (0.0, 0.25, 0.5, 0.75, 1.0)
NO_VERDICT = "#94a3b8"


def _heat_legend(parts: list[str], x: float, y: float) -> None:
    """The colour scale (0 → 100 % solved), the grey of no verdict and the blank cell."""
    parts.append(f'<text x="{_f(x)}" y="{_f(y + 11)}" class="tl">solved:</text>')
    x += 46
    for stop in LEGEND_STOPS:
        parts.append(f'<rect x="{_f(x)}" y="{_f(y)}" width="14" height="14" '
                     f'style="fill:{heat_color(stop)}"/>')
        parts.append(f'<text x="{_f(x + 17)}" y="{_f(y + 11)}" class="tl">'
                     f"{int(stop * 100)}%</text>")
        x += 52
    parts.append(f'<rect x="{_f(x)}" y="{_f(y)}" width="14" height="14" '
                 f'style="fill:{NO_VERDICT}"/>')
    parts.append(f'<text x="{_f(x + 17)}" y="{_f(y + 11)}" class="tl">no verdict</text>')
    x += 86
    parts.append(f'<rect x="{_f(x)}" y="{_f(y)}" width="14" height="14" fill="none" '
                 'stroke="#cbd5e1" stroke-dasharray="2 2"/>')
    parts.append(f'<text x="{_f(x + 17)}" y="{_f(y + 11)}" class="tl">blank: not in that '
                 "run</text>")


def heatmap(
    title: str,
    columns: Sequence[tuple[str, str]],
    rows: Sequence[tuple[str, Sequence[Cell | None]]],
) -> str:
    """A grid of fractions 0–1: one column per run (oldest left), given as (label, run
    id); one row per label, each cell (value, or None for no verdict; tooltip) or None
    where that row was not in the run (left blank). A row without cells is a heading.
    A legend under the grid reads the colours."""
    if not rows or not columns:
        return _empty(title, "no finished run with a summary yet")
    cell, label_w, top = 22, 220, 100
    grid_w = cell * len(columns)
    width = max(W + 60, PAD_L + label_w + grid_w + 20)  # the legend fits
    x0, y0 = PAD_L + label_w, PAD_T + top
    height = y0 + cell * len(rows) + 36
    parts = _open(title, width=width, height=height)
    for j, (label, run_id) in enumerate(columns):
        x = x0 + cell * j + cell / 2
        parts.append(f'<text x="{_f(x)}" y="{y0 - 6}" class="tl" '
                     f'transform="rotate(-55 {_f(x)} {y0 - 6})"><title>{escape(run_id)}'
                     f"</title>{escape(label)}</text>")
    for i, (label, cells) in enumerate(rows):
        y = y0 + cell * i
        if not cells:  # a heading (the model of the rows below)
            parts.append(f'<text x="{PAD_L}" y="{y + 15}" class="ct">{escape(label[:80])}</text>')
            continue
        parts.append(f'<text x="{x0 - 6}" y="{y + 15}" class="tl" text-anchor="end">'
                     f"{escape(label[:40])}</text>")
        for j, found in enumerate(cells):
            if found is None:  # not in that run: no cell
                continue
            value, tip = found
            fill = NO_VERDICT if value is None else heat_color(value)
            parts.append(f'<rect class="hc" x="{x0 + cell * j}" y="{y}" width="{cell - 2}" '
                         f'height="{cell - 2}" style="fill:{fill}"><title>{escape(tip)}'
                         "</title></rect>")
    _heat_legend(parts, PAD_L, height - 24)
    parts.append("</svg>")
    return "".join(parts)
