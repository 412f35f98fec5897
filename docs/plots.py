"""The concept pages' plots, as plain SVG computed with trialrun's own estimators.

    PYTHONPATH=src python docs/plots.py        # rewrites docs/concepts/plots/*.svg

tests/docs/test_plots.py checks the committed files are what this script writes, so a
change to an estimator shows up as a changed plot.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from html import escape
from pathlib import Path

from trialrun.metrics import k_curve
from trialrun.tracking import fisher_power

OUT = Path(__file__).resolve().parent / "concepts" / "plots"
W, H = 560, 300
LEFT, RIGHT, TOP, BOTTOM = 52, 170, 34, 42
COLORS = ("#2563eb", "#dc2626", "#16a34a", "#9333ea")
FONT = 'font-family="system-ui, sans-serif" font-size="12"'


@dataclass(frozen=True, slots=True)
class Line:
    label: str
    xs: list[float]
    ys: list[float]
    lo: list[float] = field(default_factory=list)
    hi: list[float] = field(default_factory=list)
    dashed: bool = False


def _n(x: float) -> str:
    return f"{x:.1f}".rstrip("0").rstrip(".")


def chart(title: str, lines: Sequence[Line], x_label: str, x_ticks: Sequence[float],
          y_label: str) -> str:
    """Curves with optional bands over a 0-100 % y axis; legend on the right."""
    x_min, x_max = min(x_ticks), max(x_ticks)
    x0, x1, y0, y1 = LEFT, W - RIGHT, H - BOTTOM, TOP

    def x_of(x: float) -> float:
        return x0 + (x1 - x0) * (x - x_min) / (x_max - x_min)

    def y_of(y: float) -> float:
        return y0 - (y0 - y1) * y

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {W} {H}" width="{W}" '
           f'height="{H}" role="img" aria-label="{escape(title)}" {FONT}>',
           f"<title>{escape(title)}</title>",
           f'<rect width="{W}" height="{H}" fill="#ffffff"/>',
           f'<text x="{LEFT}" y="18" font-weight="600">{escape(title)}</text>']
    for tick in (0.0, 0.25, 0.5, 0.75, 1.0):
        y = y_of(tick)
        out.append(f'<line x1="{x0}" x2="{x1}" y1="{_n(y)}" y2="{_n(y)}" stroke="#e5e7eb"/>')
        out.append(f'<text x="{x0 - 6}" y="{_n(y + 4)}" text-anchor="end" fill="#374151">'
                   f"{int(tick * 100)}%</text>")
    for tick in x_ticks:
        out.append(f'<text x="{_n(x_of(tick))}" y="{y0 + 16}" text-anchor="middle" '
                   f'fill="#374151">{_n(tick)}</text>')
    out.append(f'<text x="{_n((x0 + x1) / 2)}" y="{H - 6}" text-anchor="middle" '
               f'fill="#374151">{escape(x_label)}</text>')
    out.append(f'<text x="14" y="{_n((y0 + y1) / 2)}" text-anchor="middle" fill="#374151" '
               f'transform="rotate(-90 14 {_n((y0 + y1) / 2)})">{escape(y_label)}</text>')
    for i, line in enumerate(lines):
        color = COLORS[i % len(COLORS)]
        if line.lo and line.hi:
            upper = [f"{_n(x_of(x))},{_n(y_of(y))}" for x, y in zip(line.xs, line.hi, strict=True)]
            lower = [f"{_n(x_of(x))},{_n(y_of(y))}" for x, y in zip(line.xs, line.lo, strict=True)]
            out.append(f'<polygon points="{" ".join(upper + lower[::-1])}" fill="{color}" '
                       'fill-opacity="0.13"/>')
        dash = ' stroke-dasharray="5 4"' if line.dashed else ""
        pairs = zip(line.xs, line.ys, strict=True)
        points = " ".join(f"{_n(x_of(x))},{_n(y_of(y))}" for x, y in pairs)
        out.append(f'<polyline points="{points}" fill="none" stroke="{color}" '
                   f'stroke-width="2"{dash}/>')
        ly = TOP + 8 + 20 * i
        out.append(f'<line x1="{x1 + 12}" x2="{x1 + 34}" y1="{ly}" y2="{ly}" stroke="{color}" '
                   f'stroke-width="2"{dash}/>')
        out.append(f'<text x="{x1 + 40}" y="{ly + 4}">{escape(line.label)}</text>')
    out.append("</svg>\n")
    return "\n".join(out)


def estimators() -> str:
    """One task, 8 of 10 trials solved: solve^k and pass@k over k with their 95 % bands."""
    points = k_curve(10, 8)
    ks = [float(p.k) for p in points]
    return chart(
        "One task, 8 of 10 trials solved",
        [Line("solve^k", ks, [p.pass_hat for p in points],
              [p.pass_hat_lo for p in points], [p.pass_hat_hi for p in points]),
         Line("pass@k", ks, [p.pass_at for p in points],
              [p.pass_at_lo for p in points], [p.pass_at_hi for p in points], dashed=True)],
        "k (trials that must all succeed / at least one)", range(1, 11), "estimate",
    )


def reliability() -> str:
    """p^k: how a task solved most of the time fares when every one of k tries counts."""
    ks = [float(k) for k in range(1, 21)]
    return chart(
        "Every one of k tries: p^k",
        [Line(f"p = {p:.2f}", ks, [p**k for k in range(1, 21)]) for p in (0.99, 0.95, 0.9, 0.8)],
        "k", (1, 5, 10, 15, 20), "chance all k succeed",
    )


def power() -> str:
    """Exact power of the one-sided Fisher test (α = 0.05) for a 20-point drop, k per side."""
    ks = list(range(3, 61, 3))
    drops: list[tuple[str, float, float]] = [
        ("100% → 80%", 1.0, 0.8), ("95% → 75%", 0.95, 0.75), ("80% → 60%", 0.8, 0.6),
        ("50% → 30%", 0.5, 0.3),
    ]
    return chart(
        "Power to flag a 20-point drop on one task",
        [Line(label, [float(k) for k in ks], [fisher_power(a, b, k) for k in ks])
         for label, a, b in drops],
        "trials per side (k)", (3, 15, 30, 45, 60), "power (α = 0.05)",
    )


PLOTS: dict[str, Callable[[], str]] = {
    "estimators.svg": estimators,
    "reliability.svg": reliability,
    "power.svg": power,
}


def main() -> int:
    OUT.mkdir(parents=True, exist_ok=True)
    for name, make in PLOTS.items():
        (OUT / name).write_text(make(), encoding="utf-8")
        print(f"wrote {OUT / name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
