"""gemini-cli: the Gemini API (`GOOGLE_GEMINI_BASE_URL`), headless with `-p`, `--yolo`."""

from __future__ import annotations

import json

from trialrun.agents.presets._registry import AGENT_PRESETS
from trialrun.agents.presets._types import AgentPreset, Launch, LaunchContext

MODEL = "gemini-2.5-pro"
# its side requests' models with a 2.5 main model (0.61.0's model configs): web search,
# loop detection and the next-speaker check on flash, summaries, edit correction,
# compression and prompt completion on flash-lite
SIDE_MODELS = ("gemini-2.5-flash", "gemini-2.5-flash-lite")
# an API key, not a Google login; no folder-trust prompt; nothing phoned home
SETTINGS = {
    "security": {"auth": {"selectedType": "gemini-api-key"}, "folderTrust": {"enabled": False}},
    "privacy": {"usageStatisticsEnabled": False},
    "telemetry": {"enabled": False},
    "general": {"disableAutoUpdate": True, "disableUpdateNag": True},
}


def launch(ctx: LaunchContext) -> Launch:
    settings = ctx.home / ".gemini" / "settings.json"
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text(json.dumps(SETTINGS, indent=2))
    return Launch(
        args=["-p", ctx.prompt, "--yolo", "-m", MODEL],
        env={
            "GOOGLE_GEMINI_BASE_URL": ctx.proxy_root,
            "GEMINI_API_KEY": "trialrun",
            "GEMINI_CLI_NO_RELAUNCH": "1",  # one process: no re-exec with a bigger heap
        },
    )


AGENT_PRESETS.add(
    "gemini-cli",
    AgentPreset(
        name="gemini-cli",
        package="@google/gemini-cli",
        version="0.61.0",
        binary="gemini",
        api="gemini",
        tools=(
            "write_file", "replace", "read_file", "run_shell_command", "list_directory",
            "glob", "grep_search", "web_fetch", "google_web_search", "write_todos",
            "activate_skill", "enter_plan_mode", "invoke_agent", "list_background_processes",
            "read_background_output", "update_topic",
        ),  # fmt: skip
        launch=launch,
        models=(MODEL, *SIDE_MODELS),
    ),
)
