"""Tracking settings of a project's trialrun.toml: `[compare] alpha`, `[compare] method`
and `[baselines] dir`. The caller's entry point loaded the file; these only read it."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from trialrun.config import ProjectConfig
from trialrun.errors import UserError

DEFAULT_ALPHA = 0.05
DEFAULT_METHOD = "exact"


def configured_alpha(config: ProjectConfig) -> float:
    """`[compare] alpha` (default 0.05)."""
    value = config.section("compare").get("alpha", DEFAULT_ALPHA)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value < 1:
        where = config.path or "trialrun.toml"
        raise UserError(f"{where}: [compare] alpha must be a number in (0, 1), got {value!r}")
    return float(value)


def configured_method(config: ProjectConfig) -> str:
    """`[compare] method`: "exact" (default) or "mid-p"."""
    value = config.section("compare").get("method", DEFAULT_METHOD)
    if value not in ("exact", "mid-p"):
        where = config.path or "trialrun.toml"
        raise UserError(f'{where}: [compare] method must be "exact" or "mid-p", got {value!r}')
    return str(value)


def default_baselines_dir(config: ProjectConfig) -> Path:
    """`[baselines] dir` (relative to the trialrun.toml), else ./baselines."""
    value = config.section("baselines").get("dir")
    if isinstance(value, str) and value:
        return config.root / value
    return Path("baselines")


@dataclass(frozen=True, slots=True)
class CompareSettings:
    """How a comparison tells a drop from noise: the project's `[compare]` table."""

    alpha: float = DEFAULT_ALPHA
    method: str = DEFAULT_METHOD

    @classmethod
    def of(cls, config: ProjectConfig) -> CompareSettings:
        return cls(configured_alpha(config), configured_method(config))
