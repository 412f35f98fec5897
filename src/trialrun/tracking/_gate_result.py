"""What a gate returns: one `RuleResult` per rule, per model; `to_dict` is `gate --json`."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from trialrun.tracking._comparison import Comparison


@dataclass(slots=True)
class RuleResult:
    rule: str
    status: str  # "passed" | "failed" | "skipped" | "warned" (allowed by the config)
    message: str = ""
    tasks: list[str] = field(default_factory=list)
    judged: int | None = None  # how many tasks the rule was judged over
    of: int | None = None  # out of how many it applies to (None: all of them)
    left_out: str = ""  # why `of - judged` were left out, e.g. "4 insufficient"


@dataclass(slots=True)
class ModelGate:
    model: str
    baseline: str | None
    covered: int
    blocking: int
    rules: list[RuleResult]
    notes: list[str]
    comparison: Comparison | None = None

    @property
    def passed(self) -> bool:
        return not any(r.status == "failed" for r in self.rules)


@dataclass(slots=True)
class GateResult:
    gate: str
    run_dir: str
    models: list[ModelGate]

    @property
    def passed(self) -> bool:
        return all(m.passed for m in self.models)

    @property
    def exit_code(self) -> int:
        return 0 if self.passed else 1

    @property
    def failures(self) -> list[tuple[str, RuleResult]]:
        return [(m.model, r) for m in self.models for r in m.rules if r.status == "failed"]

    def to_dict(self) -> dict[str, Any]:
        return {
            "gate": self.gate,
            "run_dir": self.run_dir,
            "passed": self.passed,
            "exit_code": self.exit_code,
            "models": [
                {
                    "model": m.model,
                    "baseline": m.baseline,
                    "passed": m.passed,
                    "covered_tasks": m.covered,
                    "blocking_tasks": m.blocking,
                    "rules": [asdict(r) for r in m.rules],
                    "notes": m.notes,
                    "comparison": m.comparison.to_dict() if m.comparison else None,
                }
                for m in self.models
            ],
            "warnings": [],
        }
