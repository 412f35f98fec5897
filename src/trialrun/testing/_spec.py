"""`eval_test(...)`: what one behavioural eval is, attached to its test as a marker."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

import pytest

from trialrun.errors import UserError

POLICIES = ("ALWAYS_PASSES", "USUALLY_PASSES", "USUALLY_FAILS")
MARKER = "trialrun_eval"
DEFAULT_TOOL_CALL_BUDGET = 50

F = TypeVar("F", bound=Callable[..., Any])


def default_model() -> str:
    """The model of an eval without one: $TRIALRUN_EVAL_MODEL, else `local`."""
    return os.environ.get("TRIALRUN_EVAL_MODEL") or "local"


@dataclass(frozen=True, slots=True)
class EvalSpec:
    policy: str
    prompt: str
    files: Mapping[str, str | bytes] = field(default_factory=dict)
    model: str | None = None
    k: int = 1
    timeout_s: float = 60
    tools: Sequence[str] = ("vault",)
    max_turns: int = 20
    tool_call_budget: int = DEFAULT_TOOL_CALL_BUDGET
    agent: str | None = None  # an agent preset (gemini-cli, …) or package.module:function


def eval_test(
    policy: str,
    *,
    prompt: str,
    files: Mapping[str, str | bytes] | None = None,
    model: str | None = None,
    k: int = 1,
    timeout_s: float = 60,
    tools: Sequence[str] = ("vault",),
    max_turns: int = 20,
    tool_call_budget: int = DEFAULT_TOOL_CALL_BUDGET,
    agent: str | None = None,
) -> Callable[[F], F]:
    """Make a pytest test a behavioural eval: the agent gets `prompt` in a workspace
    seeded with `files`; the test reads the outcome through the `rig` and `result`
    fixtures. `policy` (required): ALWAYS_PASSES (always runs), USUALLY_PASSES (runs
    with RUN_EVALS=1 or --run-evals), USUALLY_FAILS (runs with them, reported as
    xfail/xpass, never blocks). `model`: a model spec (default: --eval-model, else
    $TRIALRUN_EVAL_MODEL, else `local`); `k` trials, each its own test item;
    `tool_call_budget`: more tool calls than this fails the eval. `agent`: the agent
    instead of trialrun's loop: a preset (`gemini-cli`, `claude-code`, `codex`: the real
    CLI, its tool calls read from the wire) or `package.module:function`.
    """
    if policy not in POLICIES:
        raise UserError(
            f"@eval_test({policy!r}, …): unknown policy; use one of {', '.join(POLICIES)}"
        )
    if not isinstance(prompt, str) or not prompt.strip():
        raise UserError("@eval_test(…, prompt=…): give the agent a non-empty prompt")
    if not isinstance(k, int) or isinstance(k, bool) or k < 1:
        raise UserError(f"@eval_test(…, k={k!r}): k must be a whole number ≥ 1")
    for name in files or {}:
        if name.startswith("/") or ".." in name.split("/") or "\\" in name:
            raise UserError(f"@eval_test(…, files={{{name!r}: …}}): use a relative path "
                            "inside the workspace")
    if agent is not None and (not isinstance(agent, str) or not agent.strip()):
        raise UserError(f"@eval_test(…, agent={agent!r}): give a preset name, e.g. "
                        '"gemini-cli", or package.module:function')
    spec = EvalSpec(policy, prompt, dict(files or {}), model, k, timeout_s, tuple(tools),
                    max_turns, tool_call_budget, agent)

    def decorate(func: F) -> F:
        func = pytest.mark.usefixtures("rig")(func)
        marked: F = getattr(pytest.mark, MARKER)(spec)(func)
        return marked

    return decorate
