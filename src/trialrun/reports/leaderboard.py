"""The published table as Markdown: one row per baseline, best solve^k first."""

from __future__ import annotations

from trialrun.reports._format import DASH, md_cell, pct
from trialrun.tracking import TIERS, Leaderboard

COLUMNS = (
    "Model", "Provider", "k", "Tasks", "solve^k", "pass^k (completed)", *TIERS,
    "Date (UTC)", "Commit",
)
LEGEND = (
    "solve^k: every trial got the right outcome; pass^k (completed): every trial finished "
    "without a harness error or timeout."
)


def leaderboard_markdown(board: Leaderboard) -> str:
    """A Markdown table; per tier "met/total" tasks meeting solve^k, the commit cut to 7."""
    lines = ["| " + " | ".join(COLUMNS) + " |", "|" + "|".join(" --- " for _ in COLUMNS) + "|"]
    for r in board.rows:
        cells = [
            r.model,
            r.provider,
            str(r.k),
            str(r.tasks),
            pct(r.solve_k),
            pct(r.pass_k),
            *(f"{r.tiers[t][0]}/{r.tiers[t][1]}" if r.tiers[t][1] else DASH for t in TIERS),
            r.date or DASH,
            (r.commit or DASH)[:7],
        ]
        lines.append("| " + " | ".join(md_cell(c) for c in cells) + " |")
    lines.append("\n" + LEGEND)
    return "\n".join(lines) + "\n"
