"""Tracking settings read from trialrun.toml: `[compare] alpha`, `[compare] method` and
`[baselines] dir`."""

from __future__ import annotations

from pathlib import Path

from trialrun.config import ProjectConfig, load_config
from trialrun.errors import UserError

DEFAULT_ALPHA = 0.05


def configured_alpha(config: ProjectConfig | None = None) -> float:
    """`[compare] alpha` from trialrun.toml (default 0.05)."""
    cfg = config or load_config()
    value = cfg.section("compare").get("alpha", DEFAULT_ALPHA)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value < 1:
        where = cfg.path or "trialrun.toml"
        raise UserError(f"{where}: [compare] alpha must be a number in (0, 1), got {value!r}")
    return float(value)


def configured_method(config: ProjectConfig | None = None) -> str:
    """`[compare] method` from trialrun.toml: "exact" (default) or "mid-p"."""
    cfg = config or load_config()
    value = cfg.section("compare").get("method", "exact")
    if value not in ("exact", "mid-p"):
        where = cfg.path or "trialrun.toml"
        raise UserError(f'{where}: [compare] method must be "exact" or "mid-p", got {value!r}')
    return str(value)


def default_baselines_dir(project: ProjectConfig | None = None) -> Path:
    """`[baselines] dir` from trialrun.toml (relative to it), else ./baselines."""
    project = project or load_config()
    value = project.section("baselines").get("dir")
    if isinstance(value, str) and value:
        return project.root / value
    return Path("baselines")
