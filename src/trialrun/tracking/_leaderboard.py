"""The published table's data: one row per baseline file (trialrun or Gemini-Scribe).

Rows are sorted by solve^k, then pass^k; `trialrun.reports.leaderboard_markdown` renders them.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from trialrun.errors import UserError
from trialrun.rundir import Baseline
from trialrun.tracking._aggregate import counts_of_entry
from trialrun.tracking._baseline import load_baseline
from trialrun.tracking._scribe_baseline import parse_utc

TIERS = ("T1", "T2", "T3", "T4")


@dataclass(slots=True)
class Row:
    model: str
    provider: str
    k: int
    tasks: int
    pass_k: float | None  # fraction of tasks meeting pass^k
    solve_k: float | None  # fraction of tasks meeting solve^k
    tiers: dict[str, list[int]]  # {"T1": [meeting solve^k, total]}
    date: str | None
    commit: str | None
    file: str = ""


@dataclass(slots=True)
class Leaderboard:
    rows: list[Row]
    warnings: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"rows": [asdict(r) for r in self.rows], "warnings": self.warnings}

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2)


def _meets(task: Mapping[str, Any], key: str) -> bool:
    value = task.get(key)
    return isinstance(value, (int, float)) and value >= 1 - 1e-12


def _meets_pass_k(task: Mapping[str, Any]) -> bool:
    """pass^k under today's rule (an older entry with infra errors is reread)."""
    return _meets({"pass_k": counts_of_entry(task).pass_k}, "pass_k")


def _day(date: Any) -> str | None:
    """The UTC day of a baseline's date (its first 10 characters when it does not parse)."""
    if not isinstance(date, str):
        return None
    try:
        return parse_utc(date).date().isoformat() if date else date
    except ValueError:
        return date[:10]


def row_from_baseline(baseline: Baseline, file: str = "") -> Row:
    """A row from a baseline (Scribe files are converted when loaded)."""
    tasks = baseline.tasks
    total = len(tasks)
    tiers: dict[str, list[int]] = {t: [0, 0] for t in TIERS}
    for task in tasks:
        tier = task.get("tier")
        if tier in tiers:
            tiers[tier][1] += 1
            tiers[tier][0] += int(_meets(task, "solve_k"))
    return Row(
        model=str(baseline.model),
        provider=str(baseline.provider),
        k=baseline.k if baseline.k is not None else 0,
        tasks=total,
        pass_k=sum(_meets_pass_k(t) for t in tasks) / total if total else None,
        solve_k=sum(_meets(t, "solve_k") for t in tasks) / total if total else None,
        tiers=tiers,
        date=_day(baseline.date),
        commit=baseline.git_sha if isinstance(baseline.git_sha, str) else None,
        file=file,
    )


def build_leaderboard(baselines_dir: Path | str) -> Leaderboard:
    """Rows for every *.json baseline in the folder; malformed files are skipped with a
    warning naming the file and field (the table still publishes)."""
    folder = Path(baselines_dir)
    if not folder.is_dir():
        raise UserError(f"{folder}: not a folder; pass the folder holding the baseline files")
    files = sorted(p for p in folder.glob("*.json") if p.is_file())
    if not files:
        raise UserError(
            f"{folder}: no baseline files (*.json); bless a run (`trialrun bless RUN_DIR "
            f"--baselines {folder}`) or import one (`trialrun import scribe-baseline FILE "
            f"-o {folder}`)"
        )
    board = Leaderboard(rows=[])
    for path in files:
        try:
            board.rows.append(row_from_baseline(load_baseline(path), path.name))
        except UserError as exc:
            board.warnings.append(f"skipped {exc}")
    board.rows.sort(key=lambda r: (-(r.solve_k or 0.0), -(r.pass_k or 0.0), r.provider, r.model))
    return board
