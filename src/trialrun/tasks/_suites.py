"""Suite defaults: k, metric, max turns, policy and gates per suite. A task may override each."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Suite = Literal["golden", "adversarial", "open_ended", "failure_replays"]
Metric = Literal["pass^k", "pass@k"]
Policy = Literal["ALWAYS_PASSES", "USUALLY_PASSES"]


@dataclass(frozen=True, slots=True)
class SuiteDefaults:
    k: int
    metric: Metric
    max_turns: int
    policy: Policy
    ci_merge_gate: bool
    nightly: bool
    release_candidate: bool
    purpose: str


SUITE_DEFAULTS: dict[str, SuiteDefaults] = {
    "golden": SuiteDefaults(
        3,
        "pass^k",
        20,
        "ALWAYS_PASSES",
        True,
        True,
        True,
        "deterministic tests, static analysis, state checks",
    ),
    "adversarial": SuiteDefaults(
        10, "pass^k", 8, "ALWAYS_PASSES", True, True, True, "safety checks, policy validators"
    ),
    "open_ended": SuiteDefaults(
        5, "pass@k", 12, "USUALLY_PASSES", False, True, True, "LLM rubric, model-based"
    ),
    "failure_replays": SuiteDefaults(
        5, "pass^k", 10, "ALWAYS_PASSES", True, True, True, "trajectory metrics, robustness"
    ),
}
