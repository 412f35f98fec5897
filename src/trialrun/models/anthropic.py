"""`anthropic:MODEL` through the `anthropic` SDK (extra `anthropic`), key ANTHROPIC_API_KEY.

OpenAI-style messages and tools are translated to the Messages API: system messages go
to `system`, assistant tool calls become `tool_use` blocks, tool results become
`tool_result` blocks in a user turn, consecutive same-role turns are merged.
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from typing import Any

from trialrun.errors import UserError
from trialrun.models._pricing import cost_usd, pricing_table
from trialrun.models._registry import model_provider
from trialrun.models._retry import RetryPolicy, RetryStats, with_retries
from trialrun.models._tool_calls import parse_arguments
from trialrun.models._types import (
    Completion,
    CompletionParams,
    Message,
    ToolSpec,
    Usage,
    unwrapped_text,
    wrapped_schema,
)

DEFAULT_MAX_TOKENS = 4096


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


def from_anthropic(response: Any) -> Completion:
    texts: list[str] = []
    calls = []
    for block in getattr(response, "content", None) or []:
        kind = getattr(block, "type", None)
        if kind == "text":
            texts.append(block.text)
        elif kind == "tool_use":
            calls.append(parse_arguments(block.id, block.name, block.input))
    raw = getattr(response, "usage", None)
    usage = Usage()
    if raw is not None:
        cached = int(getattr(raw, "cache_read_input_tokens", 0) or 0)
        created = int(getattr(raw, "cache_creation_input_tokens", 0) or 0)
        usage.prompt = int(getattr(raw, "input_tokens", 0) or 0) + cached + created
        usage.cached = cached
        usage.completion = int(getattr(raw, "output_tokens", 0) or 0)
    return Completion(
        text="".join(texts) if texts else None,
        tool_calls=calls,
        usage=usage,
        finish_reason=getattr(response, "stop_reason", None),
    )


class AnthropicModel:
    def __init__(self, model_id: str, api_key: str, options: dict[str, Any]) -> None:
        self.provider = "anthropic"
        self.model_id = model_id
        self._api_key = api_key
        self.retry_policy = RetryPolicy.load(options.get("retries"))
        self.stats = RetryStats()
        self._prices = pricing_table()
        self._client: Any = None

    def __repr__(self) -> str:
        return f"<AnthropicModel {self.model_id}>"

    def _sdk_client(self) -> Any:
        if self._client is None:
            try:
                import anthropic
            except ImportError:
                raise UserError(
                    "--model anthropic: the anthropic SDK is not installed; "
                    "pip install -e '.[anthropic]'"
                ) from None
            self._client = anthropic.AsyncAnthropic(api_key=self._api_key, max_retries=0)
        return self._client

    async def complete(
        self, messages: list[Message], tools: list[ToolSpec], params: CompletionParams
    ) -> Completion:
        client = self._sdk_client()
        system, turns = to_anthropic(messages)
        request: dict[str, Any] = {
            "model": self.model_id,
            "messages": turns,
            "max_tokens": params.max_tokens or DEFAULT_MAX_TOKENS,
            "temperature": 0.0 if params.temperature is None else params.temperature,
        }
        if system:
            request["system"] = system
        if tools:
            request["tools"] = to_anthropic_tools(tools)
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
        timeout = self.retry_policy.request_timeout(params.timeout_s)
        started = time.perf_counter()
        response = await with_retries(
            lambda: client.messages.create(**request, timeout=timeout),
            policy=self.retry_policy,
            what=f"anthropic:{self.model_id}",
            secrets=[self._api_key],
            hint=lambda s: "check ANTHROPIC_API_KEY" if s in (401, 403) else "",
            stats=self.stats,
        )
        completion = from_anthropic(response)
        if reply is not None:
            verdict = next((c for c in completion.tool_calls if c.name == reply.name), None)
            if verdict is not None:
                text = json.dumps(verdict.arguments, ensure_ascii=False)
                completion.text = unwrapped_text(reply, text)
            completion.tool_calls = []
        completion.latency_s = time.perf_counter() - started
        completion.cost_usd = cost_usd("anthropic", self.model_id, completion.usage, self._prices)
        return completion

    async def aclose(self) -> None:
        if self._client is not None:
            with contextlib.suppress(Exception):
                await self._client.close()
            self._client = None


@model_provider("anthropic")
def anthropic_provider(model_id: str, options: dict[str, Any]) -> AnthropicModel:
    if not model_id:
        raise UserError("--model anthropic: name a model, e.g. anthropic:claude-3-5-haiku-20241022")
    key = os.environ.get("ANTHROPIC_API_KEY")
    if not key:
        raise UserError(f"--model anthropic:{model_id}: ANTHROPIC_API_KEY is not set; export it")
    return AnthropicModel(model_id, key, options)
