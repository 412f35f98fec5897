"""Tool pack `taubench`: a domain's tools over the trial's own database.

    environment:
      tools:
        - taubench: {checkout: /path/to/tau-bench, domain: airline, split: test}

The first call of a trial makes that trial's fresh copy of the database (kept in the
trial's ToolContext), so trials never see each other's changes. A refused call is an
error result with τ-bench's `Error: …` text; the database is unchanged. A successful
`transfer_to_human_agents` ends the conversation (`Tool.ends_chat`), as in τ-bench.
"""

from __future__ import annotations

from typing import Any

from trialrun.benchmarks.taubench._domain import TauDomain, load_domain
from trialrun.benchmarks.taubench._layout import DOMAINS
from trialrun.benchmarks.taubench._state import TauState
from trialrun.benchmarks.taubench._tooling import DomainTool
from trialrun.benchmarks.taubench._types import TERMINATING_TOOL
from trialrun.errors import UserError
from trialrun.tools import Tool, ToolContext, ToolError, tool_pack

STATE_KEY = "taubench_state"
OPTIONS = ("checkout", "domain", "split")


def _check_options(options: dict[str, Any]) -> None:
    unknown = sorted(set(options) - set(OPTIONS))
    if unknown:
        raise UserError(
            f"tool pack taubench: unknown option(s) {unknown}; allowed: {', '.join(OPTIONS)}"
        )
    if not isinstance(options.get("checkout"), str) or not options["checkout"]:
        raise UserError("tool pack taubench: give checkout: PATH (a τ-bench checkout)")
    if options.get("domain") not in DOMAINS:
        raise UserError(f"tool pack taubench: domain must be one of {', '.join(DOMAINS)}")
    if not isinstance(options.get("split", "test"), str):
        raise UserError("tool pack taubench: split must be a name, e.g. test")


def trial_state(ctx: ToolContext, domain: TauDomain) -> TauState:
    """The trial's database, made on first use."""
    state = ctx.extra.get(STATE_KEY)
    if not isinstance(state, TauState):
        state = ctx.extra[STATE_KEY] = domain.fresh_state()
    return state


def _as_tool(domain: TauDomain, spec: DomainTool) -> Tool:
    async def call(ctx: ToolContext, **arguments: Any) -> str:
        outcome = trial_state(ctx, domain).invoke(spec.name, arguments)
        if not outcome.ok:
            raise ToolError(outcome.text)
        return outcome.text

    # τ-bench ends the episode at a hand-off to a human agent
    ends = spec.name == TERMINATING_TOOL
    return Tool(spec.name, spec.description, spec.parameters, call, ends_chat=ends)


@tool_pack("taubench", _check_options)
def taubench_pack(options: dict[str, Any]) -> list[Tool]:
    _check_options(options)
    domain = load_domain(options["checkout"], options["domain"], options.get("split", "test"))
    return [_as_tool(domain, spec) for spec in domain.tools]
