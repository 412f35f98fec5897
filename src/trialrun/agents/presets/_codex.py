"""Codex: the OpenAI Responses API through a `model_providers` entry in a private
CODEX_HOME; `codex exec`, approvals and Codex's own sandbox off (the jail is the sandbox)."""

from __future__ import annotations

from trialrun.agents.presets._registry import AGENT_PRESETS
from trialrun.agents.presets._types import AgentPreset, Launch, LaunchContext

MODEL = "gpt-5"


def _config(proxy_root: str) -> str:
    return (
        f'model = "{MODEL}"\n'
        'model_provider = "trialrun"\n'
        "check_for_update_on_startup = false\n"
        "[analytics]\nenabled = false\n"
        # no plugin marketplace sync (git / GitHub at start-up), no apps, no update check
        "[features]\nplugins = false\nremote_plugin = false\napps = false\n"
        "in_app_updates = false\n"
        "[model_providers.trialrun]\n"
        'name = "trialrun"\n'
        f'base_url = "{proxy_root}/v1"\n'
        'env_key = "TRIALRUN_KEY"\n'
        'wire_api = "responses"\n'
        "request_max_retries = 0\n"
        "stream_max_retries = 0\n"
    )


def launch(ctx: LaunchContext) -> Launch:
    codex_home = ctx.home / ".codex"
    codex_home.mkdir(parents=True, exist_ok=True)
    (codex_home / "config.toml").write_text(_config(ctx.proxy_root))
    return Launch(
        args=[
            "exec", "--skip-git-repo-check", "--dangerously-bypass-approvals-and-sandbox",
            ctx.prompt,
        ],  # fmt: skip
        env={"CODEX_HOME": str(codex_home), "TRIALRUN_KEY": "trialrun"},
    )


AGENT_PRESETS.add(
    "codex",
    AgentPreset(
        name="codex",
        package="@openai/codex",
        version="0.169.0",
        binary="codex",
        api="responses",
        tools=(
            "exec_command", "write_stdin", "view_image", "request_user_input",
            "create_goal", "get_goal", "update_goal", "multi_agent_v1",
        ),  # fmt: skip
        launch=launch,
        models=(MODEL,),  # 0.169.0 names no other model with approvals off
    ),
)
