"""Claude Code: the Anthropic Messages API (`ANTHROPIC_BASE_URL`), `claude -p`, permissions
skipped (IS_SANDBOX=1 allows that as root: the jail is the sandbox)."""

from __future__ import annotations

from trialrun.agents.presets._registry import AGENT_PRESETS
from trialrun.agents.presets._types import AgentPreset, Launch, LaunchContext

MODEL = "claude-sonnet-4-5"
# the variables naming the models of its side requests (the small/fast model, subagents,
# each family's default): all pinned to MODEL, so every request names the one model
SIDE_MODEL_ENV = (
    "ANTHROPIC_MODEL", "ANTHROPIC_SMALL_FAST_MODEL", "ANTHROPIC_DEFAULT_HAIKU_MODEL",
    "ANTHROPIC_DEFAULT_SONNET_MODEL", "ANTHROPIC_DEFAULT_OPUS_MODEL", "CLAUDE_CODE_SUBAGENT_MODEL",
)  # fmt: skip
# what 2.1.328 names when those are not honoured: its small/fast (Haiku) defaults
SIDE_MODELS = ("claude-haiku-4-5", "claude-haiku-4-5-20251001")


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
            **dict.fromkeys(SIDE_MODEL_ENV, MODEL),
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
        models=(MODEL, *SIDE_MODELS),
    ),
)
