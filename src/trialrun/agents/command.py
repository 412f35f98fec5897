"""A command-line agent: `--agent-cmd "my-agent --prompt {prompt}"`, run in the workspace.

Placeholders `{prompt}`, `{workspace}` and `{task_id}` are replaced by shell-quoted
values (other braces are left alone). The command runs through the shell with the
workspace as its working directory, contained by `trialrun.sandbox.run_contained`: when
it ends or times out, every process it started is killed, however it detached, and a
background child holding stdout can't hang the trial. In the bwrap jail when the trial
asks for it (`jail` in the ToolContext's extra, or `CommandAgent(jail=True)`); the jail
keeps the network, since the recording proxy listens on the host's loopback. Its stdout
is the final answer; a non-zero exit is the agent's failure ("agent_error"). Of its stdout
and its stderr only the first and the last half of `[limits] max_agent_output_mb` (2 MiB)
are kept; when more came, the answer says where bytes were left out and the trial's
`notes` how many, and the trial goes on.

A recording proxy for the run's `--model` is started for each trial (it speaks Chat
Completions, Responses, Anthropic Messages and Gemini: `trialrun.agents.wire`); each
API's base URL and a throwaway key are exported (`API_ENV`: OPENAI_BASE_URL,
ANTHROPIC_BASE_URL, GOOGLE_GEMINI_BASE_URL…), only the one API's with `--agent-api`. The
model calls and tool calls read from that traffic go into the trial like the built-in
agent's: turns, tokens, cost, and tool calls the graders check (a result the agent's API
marked as an error, `is_error` on the tool message, is a failed call). The command's
environment is an allowlist with a private HOME, never trialrun's own (`_env`): no real
provider key reaches it.
"""

from __future__ import annotations

import json
import re
import shlex
import shutil
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

from trialrun.agents._env import JAILED_HOME, agent_environment
from trialrun.agents._proxy import ProxyLog, RecordingProxy
from trialrun.agents._settings import AgentSettings
from trialrun.agents._types import AgentLimits, AgentRun
from trialrun.agents.loop import user_message
from trialrun.core import ToolCallRecord
from trialrun.models import mib
from trialrun.sandbox import CommandOutcome, jail_available, run_contained

if TYPE_CHECKING:
    from trialrun.models import Model
    from trialrun.tasks import Task
    from trialrun.tools import Toolbox

DEFAULT_TIMEOUT_S = 300.0
_PLACEHOLDER = re.compile(r"\{(prompt|workspace|task_id)\}")
_STDERR_TAIL = 600


# the variables that point each wire API's clients at the proxy (root: its URL, no /v1)
API_ENV: dict[str, dict[str, str]] = {
    "chat": {"OPENAI_BASE_URL": "{root}/v1", "OPENAI_API_KEY": "trialrun"},
    "responses": {"OPENAI_BASE_URL": "{root}/v1", "OPENAI_API_KEY": "trialrun"},
    "anthropic": {"ANTHROPIC_BASE_URL": "{root}", "ANTHROPIC_API_KEY": "trialrun"},
    "gemini": {
        "GOOGLE_GEMINI_BASE_URL": "{root}",
        "GEMINI_API_KEY": "trialrun",
        "GOOGLE_API_KEY": "trialrun",
    },
}


def api_env(api: str | None, root: str) -> dict[str, str]:
    """The environment for an agent speaking `api`, and TRIALRUN_PROXY_URL: the base URL
    that API's clients take. None (not said): every API's base URL, and only OpenAI's key
    name (no other provider's key name appears unasked)."""
    env: dict[str, str] = {}
    for name in [api] if api else list(API_ENV):
        for key, value in API_ENV[name].items():
            if api or key.endswith("_URL") or name == "chat":
                env[key] = value.replace("{root}", root)
    env["TRIALRUN_PROXY_URL"] = f"{root}/v1" if api in (None, "chat", "responses") else root
    return env


def with_api_env(env: dict[str, str], api: str | None, root: str) -> dict[str, str]:
    """`env` with every API's variables replaced by those of `api` (None: all four)."""
    kept = {k: v for k, v in env.items() if not any(k in names for names in API_ENV.values())}
    return kept | api_env(api, root)


def render_command(template: str, values: dict[str, str]) -> str:
    return _PLACEHOLDER.sub(lambda m: shlex.quote(values[m.group(1)]), template)


def _tool_failed(content: Any) -> bool:
    text = content if isinstance(content, str) else json.dumps(content)
    stripped = text.strip()
    if re.match(r"(?i)^(error|failed|exception)\b", stripped):
        return True
    if stripped.startswith("{"):
        try:
            data = json.loads(stripped)
        except ValueError:
            return False
        return isinstance(data, dict) and (bool(data.get("error")) or bool(data.get("is_error")))
    return False


def _parse_args(raw: Any) -> dict[str, Any]:
    if isinstance(raw, dict):
        return raw
    try:
        value = json.loads(raw) if isinstance(raw, str) and raw.strip() else {}
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def run_from_traffic(log: ProxyLog, final_text: str, prompt: str) -> AgentRun:
    """An AgentRun from the recorded exchanges: turns, usage, cost, tool calls, transcript."""
    run = AgentRun(final_text=final_text)
    results: dict[str, Any] = {}
    failed: set[str] = set()  # results the agent's API marked as errors (is_error)
    for exchange in log.exchanges:
        for message in exchange.messages:
            if message.get("role") == "tool" and message.get("tool_call_id"):
                results[str(message["tool_call_id"])] = message.get("content")
                if message.get("is_error") is True:
                    failed.add(str(message["tool_call_id"]))
    seen: set[str] = set()
    cost: float | None = None
    for exchange in log.exchanges:
        completion = exchange.completion
        if completion is None:
            continue
        run.turns += 1
        run.usage.add(completion.usage)
        if completion.cost_usd is not None:
            cost = (cost or 0.0) + completion.cost_usd
        run.turn_meta.append(
            {
                "turn": run.turns - 1,
                "latency_s": exchange.latency_s,
                "tokens": completion.usage.as_dict(),
                "cost_usd": completion.cost_usd,
            }
        )
        for call in (exchange.reply or {}).get("tool_calls") or []:
            call_id = str(call.get("id") or "")
            if call_id and call_id in seen:
                continue
            seen.add(call_id)
            function = call.get("function") or {}
            result = results.get(call_id)
            run.tool_calls.append(
                ToolCallRecord(
                    name=str(function.get("name", "")),
                    arguments=_parse_args(function.get("arguments")),
                    ok=call_id not in failed and (result is None or not _tool_failed(result)),
                    result="" if result is None else str(result),
                )
            )
    run.cost_usd = cost
    answered = [e for e in log.exchanges if e.completion is not None]
    if answered:
        last = answered[-1]
        run.messages = [dict(m) for m in last.messages]
        if last.reply is not None:
            run.messages.append(dict(last.reply))
    else:
        run.messages = [{"role": "user", "content": prompt}]
    last_text = run.messages[-1].get("content") if run.messages else None
    if final_text and (run.messages[-1].get("role") != "assistant" or last_text != final_text):
        run.messages.append({"role": "assistant", "content": final_text})
    return run


def output_notes(outcome: CommandOutcome, keep: int) -> list[str]:
    """One note per stream cut to its first and last bytes."""
    notes = []
    for name, dropped in (("stdout", outcome.stdout_dropped), ("stderr", outcome.stderr_dropped)):
        if dropped:
            notes.append(
                f"agent {name} cut: {dropped} bytes left out between its first and last "
                f"{mib(keep // 2)} (limit [limits] max_agent_output_mb = {mib(keep)})"
            )
    return notes


class CommandAgent:
    """Runs a shell command per trial (see the module docstring)."""

    def __init__(
        self,
        template: str,
        timeout_s: float | None = None,
        jail: bool | None = False,
        api: str | None = None,
        settings: AgentSettings | None = None,
    ) -> None:
        self.template = template
        self.api = api  # the wire API it speaks (API_ENV); None: every API's variables
        self.timeout_s = timeout_s
        self.jail = jail  # the default; a trial's ToolContext extra["jail"] overrides it
        self.name = f"command:{template}"
        settings = settings or AgentSettings()  # the project's; None: the defaults
        self.read_limits = settings.limits  # trialrun.toml [limits]
        self.passed_env = settings.passed_env  # trialrun.toml [agent] env
        self.model_aliases = settings.model_aliases  # trialrun.toml [agent] models

    async def run(
        self,
        task: Task,
        workspace: Path | None,
        toolbox: Toolbox,
        model: Model | None,
        limits: AgentLimits,
    ) -> AgentRun:
        prompt = user_message(task, workspace)
        cwd = workspace if workspace is not None else Path.cwd()
        timeout = limits.timeout_s or self.timeout_s or DEFAULT_TIMEOUT_S
        command = render_command(
            self.template,
            {"prompt": prompt, "workspace": str(cwd), "task_id": task.task_id},
        )
        extra = toolbox.ctx.extra if toolbox is not None else {}
        jail = extra.get("jail", self.jail)
        jailed = jail_available() if jail is None else bool(jail)
        home = None if jailed else tempfile.mkdtemp(prefix="trialrun-home-")
        try:
            async with RecordingProxy(
                model,
                task_id=task.task_id,
                trial=extra.get("trial"),
                max_body=self.read_limits.max_body_bytes,
                aliases=self.model_aliases,
            ) as proxy:
                env = agent_environment(
                    proxy_url=proxy.url,
                    home=home or JAILED_HOME,
                    task_id=task.task_id,
                    workspace=str(cwd),
                    model=proxy._model_name,
                    passed=self.passed_env,
                )
                env = with_api_env(env, self.api, proxy.root_url)
                keep = self.read_limits.max_agent_output_bytes
                outcome = await run_contained(
                    command,
                    str(cwd),
                    timeout,
                    env=env,
                    jail=jail,
                    network=True,
                    head_bytes=keep // 2,
                    tail_bytes=keep - keep // 2,
                )
        finally:
            if home is not None:
                shutil.rmtree(home, ignore_errors=True)
        return finish_run(proxy, outcome, prompt, timeout, keep)


def finish_run(
    proxy: RecordingProxy, outcome: CommandOutcome, prompt: str, timeout: float, keep: int
) -> AgentRun:
    """The trial's AgentRun from the proxy's traffic and how the command ended (`keep`:
    the output bytes kept, for the notes on a cut stream)."""
    stdout = outcome.stdout.decode("utf-8", errors="replace")
    stderr = outcome.stderr.decode("utf-8", errors="replace")
    run = run_from_traffic(proxy.log, stdout.strip(), prompt)
    run.notes.extend(output_notes(outcome, keep))
    if proxy.log.infra_error:
        run.infra_error = f"model behind the proxy failed: {proxy.log.infra_error}"
    if proxy.log.model_refused:  # the run's set-up is wrong, whatever the agent did next
        run.infra_error = proxy.log.model_refused
    if outcome.timed_out:
        run.failure = "timeout"
        run.failure_message = f"agent command timed out after {timeout:g}s"
    elif outcome.exit_code != 0:
        tail = " ".join(stderr.strip().splitlines()[-3:])[-_STDERR_TAIL:]
        run.failure = "model_timeout" if proxy.log.model_timeout else "agent_error"
        run.failure_message = (
            f"agent command exited with {outcome.exit_code}: {tail or 'no stderr'}"
        )
    if proxy.log.context_overflow and not outcome.timed_out:  # why it answered nothing
        run.failure = "context_overflow"
        run.failure_message = proxy.log.context_overflow
    return run
