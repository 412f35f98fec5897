"""Claude Code: the Anthropic Messages API (`ANTHROPIC_BASE_URL`), `claude -p`, permissions
skipped (IS_SANDBOX=1 allows that as root: the jail is the sandbox)."""

from __future__ import annotations

from trialrun.agents.presets._registry import AGENT_PRESETS
from trialrun.agents.presets._types import AgentPreset, Launch, LaunchContext

MODEL = "claude-sonnet-4-5"


def launch(ctx: LaunchContext) -> Launch:
    (ctx.home / ".claude").mkdir(parents=True, exist_ok=True)
    return Launch(
        args=["-p", ctx.prompt, "--dangerously-skip-permissions", "--model", MODEL],
        env={
            "ANTHROPIC_BASE_URL": ctx.proxy_root,
            "ANTHROPIC_API_KEY": "trialrun",
            "IS_SANDBOX": "1",
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
            "DISABLE_AUTOUPDATER": "1",
            "DISABLE_TELEMETRY": "1",
            "DISABLE_ERROR_REPORTING": "1",
        },
    )


AGENT_PRESETS.add(
    "claude-code",
    AgentPreset(
        name="claude-code",
        package="@anthropic-ai/claude-code",
        version="2.1.328",
        binary="claude",
        api="anthropic",
        tools=(
            "Write", "Edit", "Read", "Bash", "Agent", "Skill", "ToolSearch", "Workflow",
            "ListAgents", "ReportFindings", "ScheduleWakeup",
        ),  # fmt: skip
        launch=launch,
    ),
)
