"""The published table: one row per baseline file (trialrun or Gemini-Scribe), by solve^k."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from trialrun.errors import UserError

TIERS = ("T1", "T2", "T3", "T4")
COLUMNS = ("Model", "Provider", "k", "Tasks", "pass^k", "solve^k", *TIERS, "Date (UTC)", "Commit")


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

    def to_markdown(self) -> str:
        lines = ["| " + " | ".join(COLUMNS) + " |", "|" + "|".join(" --- " for _ in COLUMNS) + "|"]
        for r in self.rows:
            cells = [
                r.model,
                r.provider,
                str(r.k),
                str(r.tasks),
                _pct(r.pass_k),
                _pct(r.solve_k),
                *(f"{r.tiers[t][0]}/{r.tiers[t][1]}" if r.tiers[t][1] else "—" for t in TIERS),
                r.date or "—",
                (r.commit or "—")[:7],
            ]
            lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
        return "\n".join(lines) + "\n"


def _pct(value: float | None) -> str:
    return "—" if value is None else f"{value * 100:.1f}%"


def row_from_baseline(data: dict[str, Any], file: str = "") -> Row:
    """A row from a trialrun baseline dict (Scribe files are converted first)."""
    tasks = data.get("tasks") or []
    total = len(tasks)

    def meets(task: dict[str, Any], key: str) -> bool:
        value = task.get(key)
        return isinstance(value, (int, float)) and value >= 1 - 1e-12

    tiers: dict[str, list[int]] = {t: [0, 0] for t in TIERS}
    for task in tasks:
        tier = task.get("tier")
        if tier in tiers:
            tiers[tier][1] += 1
            tiers[tier][0] += int(meets(task, "solve_k"))
    date = data.get("date")
    if isinstance(date, str) and date:
        from trialrun.tracking._scribe_baseline import parse_utc

        try:
            date = parse_utc(date).date().isoformat()
        except ValueError:
            date = date[:10]
    return Row(
        model=str(data.get("model")),
        provider=str(data.get("provider")),
        k=k if isinstance(k := data.get("k"), int) and not isinstance(k, bool) else 0,
        tasks=total,
        pass_k=sum(meets(t, "pass_k") for t in tasks) / total if total else None,
        solve_k=sum(meets(t, "solve_k") for t in tasks) / total if total else None,
        tiers=tiers,
        date=date if isinstance(date, str) else None,
        commit=data.get("git_sha") if isinstance(data.get("git_sha"), str) else None,
        file=file,
    )


def build_leaderboard(baselines_dir: Path | str) -> Leaderboard:
    """Rows for every *.json baseline in the folder; malformed files are skipped with a
    warning naming the file and field (the table still publishes)."""
    from trialrun.tracking._baseline import load_baseline

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
