"""The grader contract: (config, trial view) → Verdict.

A grader kind is a pydantic config model (its `type` is the camelCase name used in task
files) plus a function. Register one with::

    class ContainsConfig(GraderConfig):
        value: str | list[str]

    @grader("contains", ContainsConfig)
    def contains(config: ContainsConfig, trial: TrialView) -> Verdict: ...

The function may return a `Verdict`, a bool/None, or `(passed, details)`; it may be
async (judges). A grader that raises yields passed=None with the error in details.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict

from trialrun.core import Message, Registry
from trialrun.core import ToolCallRecord as ToolCallRecord  # re-exported
from trialrun.core import Verdict as Verdict  # re-exported: what a grader returns
from trialrun.models import Model


class GraderConfig(BaseModel):
    """Base of every grader's config. Unknown keys are errors (with did-you-mean)."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    type: str
    # An optional label for reports; defaults to the type.
    name: str | None = None

    @property
    def label(self) -> str:
        return self.name or self.type


@dataclass(slots=True)
class TrialView:
    """Everything a grader may look at. Graders never call the agent."""

    task_id: str
    # the prompt the agent was given (the task's `inputs.prompt`), what judges see
    user_message: str
    final_text: str
    tool_calls: list[ToolCallRecord]
    messages: list[Message]
    workspace: Path | None
    # relative posix path → sha256 hex of the content, before and after the agent ran
    before: dict[str, str] = field(default_factory=dict)
    after: dict[str, str] = field(default_factory=dict)
    fixture_dir: Path | None = None
    turns: int = 0
    judge: Model | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    # with a simulated user: the whole chat ("User: …" / "Assistant: …"), which judges read
    # as the response instead of the last answer alone; "" otherwise
    conversation: str = ""
    # the task's `timeout_s` (None: none): no grader's own time limit runs longer
    task_timeout_s: float | None = None


GraderFunction = Callable[[Any, TrialView], Any]


@dataclass(slots=True)
class GraderKind:
    name: str
    config_model: type[GraderConfig]
    fn: GraderFunction
    # Kinds that need a judge model (the runner supplies one when any task uses them).
    needs_judge: bool = False


GRADERS: Registry[GraderKind] = Registry(
    "grader", "trialrun.graders", builtin_modules=("trialrun.graders.builtin",)
)


def grader(
    name: str, config: type[GraderConfig], *, needs_judge: bool = False
) -> Callable[[GraderFunction], GraderFunction]:
    """Register a grader kind: `name` is its camelCase `type` in task files."""

    def decorate(fn: GraderFunction) -> GraderFunction:
        GRADERS.add(name, GraderKind(name, config, fn, needs_judge))
        return fn

    return decorate


def parse_grader(data: dict[str, Any]) -> GraderConfig:
    """Validate one grader dict against its kind's config model.

    Raises KeyError-free `ValueError` for an unknown type (with did-you-mean) and
    pydantic's `ValidationError` (locations relative to the grader) for bad fields.
    """
    if isinstance(data, GraderConfig):
        return data
    if not isinstance(data, dict) or "type" not in data:
        raise ValueError("a grader must be a mapping with a 'type' key")
    kind = GRADERS.get(str(data["type"]))
    if kind is None:
        hint = GRADERS.suggest(str(data["type"]))
        did = f"; did you mean '{hint}'?" if hint else ""
        raise ValueError(f"unknown grader type '{data['type']}'{did}")
    return kind.config_model.model_validate(data)


def _normalize(label: str, out: Any) -> Verdict:
    if isinstance(out, Verdict):
        return out
    if isinstance(out, tuple):
        passed, details = out
        return Verdict(label, passed, dict(details))
    if out is None or isinstance(out, bool):
        return Verdict(label, out, {})
    raise TypeError(f"grader returned {type(out).__name__}, expected Verdict/bool/None")


async def run_grader(config: GraderConfig, trial: TrialView) -> Verdict:
    """Apply one grader; an exception becomes an undetermined verdict, never a crash."""
    kind = GRADERS.get(config.type)
    if kind is None:
        return Verdict(config.label, None, {"error": f"unknown grader type '{config.type}'"})
    try:
        out = kind.fn(config, trial)
        if inspect.isawaitable(out):
            out = await out
        verdict = _normalize(config.label, out)
    except Exception as exc:
        return Verdict(config.label, None, {"error": f"{type(exc).__name__}: {exc}"})
    if verdict.grader != config.label:
        verdict.grader = config.label
    return verdict


async def grade_all(configs: list[GraderConfig], trial: TrialView) -> list[Verdict]:
    return [await run_grader(c, trial) for c in configs]


def solve_from(verdicts: list[Verdict]) -> bool | None:
    """False if any grader is False; otherwise None if any is None; otherwise True."""
    if any(v.passed is False for v in verdicts):
        return False
    if any(v.passed is None for v in verdicts):
        return None
    return True
