"""`anthropic:MODEL` (or `anthropic:MODEL@BASE_URL`): the Messages API, key ANTHROPIC_API_KEY.

OpenAI-style messages and tools are translated to the Messages API: system messages go
to `system`, assistant tool calls become `tool_use` blocks, tool results become
`tool_result` blocks in a user turn, consecutive same-role turns are merged.

Requests take the lean path (`_http`, no SDK): `POST {base}/v1/messages` with
`x-api-key` and `anthropic-version`, the body built as JSON directly (a task's tools
translated and serialised once), only `content`, `stop_reason` and `usage` read back.
The base is `https://api.anthropic.com`, or ANTHROPIC_BASE_URL (as the SDK reads it),
or the spec's `@BASE_URL`. Errors are worded as on the `openai` path ("Error code: 429
- <the API's message>") and retried as before (429, 408, 409, 5xx incl. 529, dropped
connections).
"""

from __future__ import annotations

import json
import os
from typing import Any

from trialrun.core import split_base_url
from trialrun.errors import UserError
from trialrun.models._http import JsonCache, LeanClient, request_body
from trialrun.models._pricing import cost_usd
from trialrun.models._registry import model_provider
from trialrun.models._reply import Field
from trialrun.models._retry import (
    AttemptTiming,
    InvalidResponse,
    RetryStats,
    with_retries,
)
from trialrun.models._settings import ProviderSettings
from trialrun.models._tool_calls import parse_arguments
from trialrun.models._types import (
    Completion,
    CompletionParams,
    Message,
    ReplyConstraint,
    ToolCall,
    ToolSpec,
    Usage,
    unwrapped_text,
    wrapped_schema,
)

DEFAULT_MAX_TOKENS = 4096
DEFAULT_BASE_URL = "https://api.anthropic.com"
API_VERSION = "2023-06-01"
# the transport's own timeout stays a backstop behind with_retries' bound on the attempt
_TRANSPORT_MARGIN_S = 1.0


def to_anthropic(messages: list[Message]) -> tuple[str, list[dict[str, Any]]]:
    """(system text, Messages-API turns) from OpenAI chat messages."""
    system: list[str] = []
    turns: list[dict[str, Any]] = []

    def push(role: str, blocks: list[dict[str, Any]]) -> None:
        if turns and turns[-1]["role"] == role:
            turns[-1]["content"].extend(blocks)
        else:
            turns.append({"role": role, "content": list(blocks)})

    for message in messages:
        role = message.get("role")
        content = message.get("content")
        if role == "system":
            if content:
                system.append(str(content))
        elif role == "tool":
            push(
                "user",
                [
                    {
                        "type": "tool_result",
                        "tool_use_id": message.get("tool_call_id") or "",
                        "content": str(content or ""),
                    }
                ],
            )
        elif role == "assistant":
            blocks: list[dict[str, Any]] = []
            if content:
                blocks.append({"type": "text", "text": str(content)})
            for call in message.get("tool_calls") or []:
                function = call.get("function") or {}
                args = function.get("arguments")
                try:
                    parsed = json.loads(args) if isinstance(args, str) else (args or {})
                except json.JSONDecodeError:
                    parsed = {}
                blocks.append(
                    {
                        "type": "tool_use",
                        "id": call.get("id") or "",
                        "name": function.get("name", ""),
                        "input": parsed if isinstance(parsed, dict) else {},
                    }
                )
            if blocks:
                push("assistant", blocks)
        else:
            push("user", [{"type": "text", "text": str(content or "")}])
    return "\n\n".join(system), turns


def to_anthropic_tools(tools: list[ToolSpec]) -> list[dict[str, Any]]:
    out = []
    for spec in tools:
        function = spec.get("function", spec)
        out.append(
            {
                "name": function["name"],
                "description": function.get("description", ""),
                "input_schema": function.get("parameters") or {"type": "object", "properties": {}},
            }
        )
    return out


def from_anthropic(response: dict[str, Any]) -> Completion:
    """Only the fields used of a Messages-API answer (its JSON), each checked for its type
    (`MalformedReply` naming the first one that is not): text and `tool_use` blocks,
    `stop_reason`, and the token counts (cache reads and writes are prompt). Blocks of
    other types (thinking, …) are passed over."""
    texts: list[str] = []
    calls: list[ToolCall] = []
    reply = Field(response)
    for block in reply["content"].items(required=True):
        block.object()
        kind = block["type"].text(required=True)
        if kind == "text":
            texts.append(block["text"].text(required=True) or "")
        elif kind == "tool_use":
            arguments = block["input"]
            arguments.optional_object()
            calls.append(
                parse_arguments(
                    block["id"].text() or f"call_{len(calls)}",
                    block["name"].text(required=True) or "",
                    arguments.value if arguments.given else None,
                )
            )
    usage = reply["usage"]
    usage.optional_object()
    cached = usage["cache_read_input_tokens"].count()
    created = usage["cache_creation_input_tokens"].count()
    counts = Usage(
        prompt=usage["input_tokens"].count() + cached + created,
        cached=cached,
        completion=usage["output_tokens"].count(),
    )
    return Completion(
        text="".join(texts) if texts else None,
        tool_calls=calls,
        usage=counts,
        finish_reason=reply["stop_reason"].text(),
    )


class AnthropicModel:
    """A Messages-API client; one instance serves all trials of a run."""

    def __init__(
        self,
        model_id: str,
        api_key: str,
        options: dict[str, Any],
        *,
        base_url: str | None = None,
    ) -> None:
        self.provider = "anthropic"
        self.model_id = model_id
        self.model_name = split_base_url(model_id)[0]
        self.base_url = (base_url or DEFAULT_BASE_URL).rstrip("/")
        self._api_key = api_key
        settings = ProviderSettings.of(options)  # the project's, from create_model
        self.retry_policy = settings.retry_policy(options)
        self.stats = RetryStats()
        self._prices = settings.prices
        self._url = f"{self.base_url}/v1/messages"
        self._http = LeanClient(
            {
                "x-api-key": api_key,
                "anthropic-version": API_VERSION,
                "content-type": "application/json",
                "accept": "application/json",
                "user-agent": "trialrun",
            },
            max_body=settings.limits.max_body_bytes,
        )
        self._schemas = JsonCache(convert=to_anthropic_tools)  # a task's tools, once

    def __repr__(self) -> str:  # never show the key
        return f"<AnthropicModel {self.model_id}>"

    def size_pool(self, in_flight: int) -> None:
        """Keep up to `in_flight` connections open (the runner's concurrency)."""
        self._http.size(in_flight)

    def _body(
        self, messages: list[Message], tools: list[ToolSpec], params: CompletionParams
    ) -> tuple[bytes, ReplyConstraint | None]:
        """The request's JSON bytes, and the reply constraint it forces as a tool call."""
        system, turns = to_anthropic(messages)
        request: dict[str, Any] = {
            "model": self.model_name,
            "messages": turns,
            "max_tokens": params.max_tokens or DEFAULT_MAX_TOKENS,
            "temperature": 0.0 if params.temperature is None else params.temperature,
        }
        if system:
            request["system"] = system
        reply = params.reply if not tools else None
        if reply is not None:  # a forced tool call carries the verdict
            request["tools"] = [
                {
                    "name": reply.name,
                    "description": "Record your verdict.",
                    "input_schema": wrapped_schema(reply),
                }
            ]
            request["tool_choice"] = {"type": "tool", "name": reply.name}
        if tools:
            return request_body(request, {"tools": self._schemas.dumps(tools)}), None
        return request_body(request, {}), reply

    async def complete(
        self, messages: list[Message], tools: list[ToolSpec], params: CompletionParams
    ) -> Completion:
        body, reply = self._body(messages, tools, params)
        timeout = self.retry_policy.request_timeout(params.timeout_s)
        timing = AttemptTiming()

        async def attempt() -> Completion:
            response = await self._http.post_json(
                self._url, body, timeout + _TRANSPORT_MARGIN_S
            )
            if not isinstance(response, dict):
                raise InvalidResponse(f"not a Messages-API answer: {str(response)[:200]!r}")
            return from_anthropic(response)  # MalformedReply: retried, then infra

        completion = await with_retries(
            attempt,
            policy=self.retry_policy,
            what=f"anthropic:{self.model_id}",
            secrets=[self._api_key],
            hint=lambda s, _message: "check ANTHROPIC_API_KEY" if s in (401, 403) else "",
            stats=self.stats,
            timeout_s=timeout,
            timing=timing,
        )
        if reply is not None:
            verdict = next((c for c in completion.tool_calls if c.name == reply.name), None)
            if verdict is not None:
                text = json.dumps(verdict.arguments, ensure_ascii=False)
                completion.text = unwrapped_text(reply, text)
            completion.tool_calls = []
        completion.latency_s = timing.answered_s
        completion.cost_usd = cost_usd("anthropic", self.model_id, completion.usage, self._prices)
        return completion

    async def aclose(self) -> None:
        await self._http.aclose()


@model_provider("anthropic")
def anthropic_provider(model_id: str, options: dict[str, Any]) -> AnthropicModel:
    if not model_id:
        raise UserError(
            "name a model, e.g. anthropic:claude-3-5-haiku-20241022",
            place="--model", value="anthropic",
        )
    key = os.environ.get("ANTHROPIC_API_KEY")
    if not key:
        raise UserError(
            "ANTHROPIC_API_KEY is not set; export it",
            place="--model", value=f"anthropic:{model_id}",
        )
    base_url = split_base_url(model_id)[1] or os.environ.get("ANTHROPIC_BASE_URL") or None
    return AnthropicModel(model_id, key, options, base_url=base_url)
