"""`gemini:MODEL` through `google-genai` (extra `gemini`), key GEMINI_API_KEY or GOOGLE_API_KEY.

OpenAI-style messages and tools are translated to `contents` with `function_call` /
`function_response` parts and `function_declarations`; JSON-schema keywords Gemini does
not accept are dropped from parameter schemas.
"""

from __future__ import annotations

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
    ReplyConstraint,
    ToolSpec,
    Usage,
    unwrapped_text,
    wrapped_schema,
)

_SCHEMA_KEYS = {
    "type", "description", "properties", "required", "items", "enum", "nullable",
    "format", "anyOf", "minimum", "maximum", "minItems", "maxItems", "title",
}  # fmt: skip


def clean_schema(schema: Any) -> Any:
    """The subset of JSON Schema Gemini's function declarations accept."""
    if isinstance(schema, list):
        return [clean_schema(s) for s in schema]
    if not isinstance(schema, dict):
        return schema
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key not in _SCHEMA_KEYS:
            continue
        if key == "properties" and isinstance(value, dict):
            out[key] = {name: clean_schema(sub) for name, sub in value.items()}
        else:
            out[key] = clean_schema(value)
    return out


def response_schema(reply: ReplyConstraint) -> dict[str, Any]:
    """The reply constraint as Gemini's `response_schema`: an object at the root; enums of
    strings typed "string", enums of integers as an integer range (Gemini enums are text)."""

    def convert(schema: Any) -> Any:
        if not isinstance(schema, dict):
            return schema
        out = dict(schema)
        enum = out.get("enum")
        if isinstance(enum, list) and enum and all(isinstance(v, str) for v in enum):
            out["type"] = "string"
        elif isinstance(enum, list) and enum and all(isinstance(v, int) for v in enum):
            out.pop("enum")
            out.update(type="integer", minimum=min(enum), maximum=max(enum))
        if isinstance(out.get("properties"), dict):
            out["properties"] = {k: convert(v) for k, v in out["properties"].items()}
        return out

    return clean_schema(convert(wrapped_schema(reply)))


def to_gemini(messages: list[Message]) -> tuple[str, list[dict[str, Any]]]:
    """(system instruction, contents) from OpenAI chat messages."""
    system: list[str] = []
    contents: list[dict[str, Any]] = []
    names: dict[str, str] = {}

    def push(role: str, parts: list[dict[str, Any]]) -> None:
        if contents and contents[-1]["role"] == role:
            contents[-1]["parts"].extend(parts)
        else:
            contents.append({"role": role, "parts": list(parts)})

    for message in messages:
        role = message.get("role")
        content = message.get("content")
        if role == "system":
            if content:
                system.append(str(content))
        elif role == "assistant":
            parts: list[dict[str, Any]] = []
            if content:
                parts.append({"text": str(content)})
            for call in message.get("tool_calls") or []:
                function = call.get("function") or {}
                args = function.get("arguments")
                try:
                    parsed = json.loads(args) if isinstance(args, str) else (args or {})
                except json.JSONDecodeError:
                    parsed = {}
                names[call.get("id") or ""] = function.get("name", "")
                parts.append({"function_call": {"name": function.get("name", ""), "args": parsed}})
            if parts:
                push("model", parts)
        elif role == "tool":
            name = message.get("name") or names.get(message.get("tool_call_id") or "", "tool")
            push(
                "user",
                [{"function_response": {"name": name, "response": {"result": str(content or "")}}}],
            )
        else:
            push("user", [{"text": str(content or "")}])
    return "\n\n".join(system), contents


def to_gemini_tools(tools: list[ToolSpec]) -> list[dict[str, Any]]:
    if not tools:
        return []
    declarations = []
    for spec in tools:
        function = spec.get("function", spec)
        declaration = {"name": function["name"], "description": function.get("description", "")}
        params = clean_schema(function.get("parameters") or {})
        if params.get("properties"):
            declaration["parameters"] = params
        declarations.append(declaration)
    return [{"function_declarations": declarations}]


def from_gemini(response: Any) -> Completion:
    texts: list[str] = []
    calls = []
    candidates = getattr(response, "candidates", None) or []
    finish = None
    if candidates:
        candidate = candidates[0]
        finish = str(getattr(candidate, "finish_reason", "") or "") or None
        content = getattr(candidate, "content", None)
        for index, part in enumerate(getattr(content, "parts", None) or []):
            call = getattr(part, "function_call", None)
            if call is not None:
                call_id = getattr(call, "id", None) or f"call_{index}"
                calls.append(parse_arguments(call_id, call.name, dict(call.args or {})))
            elif getattr(part, "text", None):
                texts.append(part.text)
    raw = getattr(response, "usage_metadata", None)
    usage = Usage()
    if raw is not None:
        usage.prompt = int(getattr(raw, "prompt_token_count", 0) or 0)
        usage.cached = int(getattr(raw, "cached_content_token_count", 0) or 0)
        usage.completion = int(getattr(raw, "candidates_token_count", 0) or 0)
    return Completion(
        text="".join(texts) if texts else None, tool_calls=calls, usage=usage, finish_reason=finish
    )


class GeminiModel:
    def __init__(self, model_id: str, api_key: str, variable: str, options: dict[str, Any]) -> None:
        self.provider = "gemini"
        self.model_id = model_id
        self._api_key = api_key
        self._variable = variable
        self.retry_policy = RetryPolicy.load(options.get("retries"))
        self.stats = RetryStats()
        self._prices = pricing_table()
        self._client: Any = None

    def __repr__(self) -> str:
        return f"<GeminiModel {self.model_id}>"

    def _sdk_client(self) -> Any:
        if self._client is None:
            try:
                from google import genai
            except ImportError:
                raise UserError(
                    "--model gemini: google-genai is not installed; pip install -e '.[gemini]'"
                ) from None
            self._client = genai.Client(api_key=self._api_key)
        return self._client

    async def complete(
        self, messages: list[Message], tools: list[ToolSpec], params: CompletionParams
    ) -> Completion:
        client = self._sdk_client()
        system, contents = to_gemini(messages)
        config: dict[str, Any] = {
            "temperature": 0.0 if params.temperature is None else params.temperature,
            "automatic_function_calling": {"disable": True},
        }
        if system:
            config["system_instruction"] = system
        if tools:
            config["tools"] = to_gemini_tools(tools)
        if params.max_tokens:
            config["max_output_tokens"] = params.max_tokens
        if params.seed is not None:
            config["seed"] = params.seed
        reply = params.reply if not tools else None
        if reply is not None:
            config["response_mime_type"] = "application/json"
            config["response_schema"] = response_schema(reply)
        timeout = self.retry_policy.request_timeout(params.timeout_s)
        config["http_options"] = {"timeout": int(timeout * 1000)}
        started = time.perf_counter()
        response = await with_retries(
            lambda: client.aio.models.generate_content(
                model=self.model_id, contents=contents, config=config
            ),
            policy=self.retry_policy,
            what=f"gemini:{self.model_id}",
            secrets=[self._api_key],
            hint=lambda s: f"check {self._variable}" if s in (400, 401, 403) else "",
            stats=self.stats,
        )
        completion = from_gemini(response)
        if reply is not None:
            completion.text = unwrapped_text(reply, completion.text)
        completion.latency_s = time.perf_counter() - started
        completion.cost_usd = cost_usd("gemini", self.model_id, completion.usage, self._prices)
        return completion

    async def aclose(self) -> None:
        self._client = None


@model_provider("gemini")
def gemini_provider(model_id: str, options: dict[str, Any]) -> GeminiModel:
    if not model_id:
        raise UserError("--model gemini: name a model, e.g. gemini:gemini-2.5-flash")
    variable = next((v for v in ("GEMINI_API_KEY", "GOOGLE_API_KEY") if os.environ.get(v)), None)
    if variable is None:
        raise UserError(f"--model gemini:{model_id}: GEMINI_API_KEY is not set; export it")
    return GeminiModel(model_id, os.environ[variable], variable, options)
