"""`gemini:MODEL` (or `gemini:MODEL@BASE_URL`): the Gemini API, key GEMINI_API_KEY or
GOOGLE_API_KEY.

OpenAI-style messages and tools are translated to `contents` with `functionCall` /
`functionResponse` parts and `functionDeclarations`; JSON-schema keywords Gemini does
not accept are dropped from parameter schemas.

Thought signatures (Gemini 2.5 / 3 `thoughtSignature` on a part) are kept as they came,
as Gemini's OpenAI-compatible API carries them: `extra_content: {"google":
{"thought_signature": "…"}}` on the tool call (only the calls that had one, so of
parallel calls only the first), and on the assistant message for its text part (text
that came in several parts with a signature keeps them as `{"google": {"text_parts":
[…]}}`). Building `contents` puts each back, unchanged, on its part: Gemini 3 answers
400 for a function call of the current turn replayed without its signature.

Requests take the lean path (`_http`, no SDK): `POST {base}/v1beta/models/MODEL:
generateContent` with `x-goog-api-key`, the body built as JSON directly (a task's tools
translated and serialised once), only the first candidate's parts, `finishReason` and
`usageMetadata` read back. The base is `https://generativelanguage.googleapis.com`, or
GOOGLE_GEMINI_BASE_URL (the variable Google's own clients read) or GEMINI_BASE_URL, or
the spec's `@BASE_URL`. Errors are worded as on the `openai` path ("Error code: 429 -
<the API's message>") and retried as before (429, 408, 409, 5xx, dropped connections).
"""

from __future__ import annotations

import json
import os
from typing import Any
from urllib.parse import quote

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
    ToolSpec,
    Usage,
    unwrapped_text,
    wrapped_schema,
)

_SCHEMA_KEYS = {
    "type", "description", "properties", "required", "items", "enum", "nullable",
    "format", "anyOf", "minimum", "maximum", "minItems", "maxItems", "title",
}  # fmt: skip
DEFAULT_BASE_URL = "https://generativelanguage.googleapis.com"
BASE_URL_VARIABLES = ("GOOGLE_GEMINI_BASE_URL", "GEMINI_BASE_URL")
# the transport's own timeout stays a backstop behind with_retries' bound on the attempt
_TRANSPORT_MARGIN_S = 1.0


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

    schema: dict[str, Any] = clean_schema(convert(wrapped_schema(reply)))
    return schema


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
            parts = text_parts(content, _google(message))
            for call in message.get("tool_calls") or []:
                function = call.get("function") or {}
                args = function.get("arguments")
                try:
                    parsed = json.loads(args) if isinstance(args, str) else (args or {})
                except json.JSONDecodeError:
                    parsed = {}
                names[call.get("id") or ""] = function.get("name", "")
                part = {"functionCall": {"name": function.get("name", ""), "args": parsed}}
                signed(part, _google(call).get("thought_signature"))
                parts.append(part)
            if parts:
                push("model", parts)
        elif role == "tool":
            name = message.get("name") or names.get(message.get("tool_call_id") or "", "tool")
            push(
                "user",
                [{"functionResponse": {"name": name, "response": {"result": str(content or "")}}}],
            )
        else:
            push("user", [{"text": str(content or "")}])
    return "\n\n".join(system), contents


def _google(holder: Any) -> dict[str, Any]:
    """`extra_content["google"]` of a message or tool call ({} when absent)."""
    extra = holder.get("extra_content") if isinstance(holder, dict) else None
    google = extra.get("google") if isinstance(extra, dict) else None
    return google if isinstance(google, dict) else {}


def _signature(value: Any) -> str | None:
    """A thought signature: a non-empty string, never altered; anything else is none."""
    return value if isinstance(value, str) and value else None


def signed(part: dict[str, Any], signature: Any) -> dict[str, Any]:
    """`part` with its thought signature when there is one."""
    if _signature(signature) is not None:
        part["thoughtSignature"] = signature
    return part


def text_parts(content: Any, google: dict[str, Any]) -> list[dict[str, Any]]:
    """An assistant message's text as `parts`, each signature back on its own part: the
    parts as they came when they still spell the message's text, else one text part."""
    text = str(content or "")
    kept = google.get("text_parts")
    if not isinstance(kept, list) or not all(
        isinstance(p, dict) and isinstance(p.get("text"), str) for p in kept
    ):
        kept = None
    if kept and "".join(p["text"] for p in kept) == text:
        return [signed({"text": p["text"]}, p.get("thoughtSignature")) for p in kept]
    signature = _signature(google.get("thought_signature"))
    return [signed({"text": text}, signature)] if text or signature else []


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
    return [{"functionDeclarations": declarations}]


def from_gemini(response: dict[str, Any]) -> Completion:
    """Only the fields used of a generateContent answer (its JSON), each checked for its
    type (`MalformedReply` naming the first one that is not): the first candidate's text
    and `functionCall` parts (thoughts skipped), its `finishReason`, and
    `usageMetadata`'s token counts."""
    texts: list[dict[str, Any]] = []  # text parts: text and thoughtSignature, as they came
    calls = []
    reply = Field(response)
    candidates = reply["candidates"].items()
    if candidates:
        candidate = candidates[0]
        candidate.object()
        finish = candidate["finishReason"].text() or None
        content = candidate["content"]
        content.optional_object()
        for index, part in enumerate(content["parts"].items()):
            part.object()
            if part["thought"].value is True:
                continue
            signature = _signature(part["thoughtSignature"].value)
            call = part["functionCall"]
            text = part["text"].text()
            if call.optional_object() is not None:
                args = call["args"]
                args.optional_object()
                tool_call = parse_arguments(
                    call["id"].text() or f"call_{index}",
                    call["name"].text(required=True) or "",
                    args.value if args.given else {},
                )
                if signature is not None:
                    tool_call.extra_content = {"google": {"thought_signature": signature}}
                calls.append(tool_call)
            elif text is not None and (text or signature):
                texts.append(signed({"text": text}, signature))
    else:  # a blocked prompt has no candidate, only the reason
        feedback = reply["promptFeedback"]
        feedback.optional_object()
        finish = feedback["blockReason"].text() or None
    usage = reply["usageMetadata"]
    usage.optional_object()
    counts = Usage(
        prompt=usage["promptTokenCount"].count(),
        cached=usage["cachedContentTokenCount"].count(),
        completion=usage["candidatesTokenCount"].count(),
    )
    text = "".join(p["text"] for p in texts)
    return Completion(
        text=text or None,
        tool_calls=calls,
        usage=counts,
        finish_reason=finish,
        extra_content=_text_signatures(texts),
    )


def _text_signatures(texts: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The message's `extra_content` for its signed text parts (None when none is)."""
    if not any("thoughtSignature" in p for p in texts):
        return None
    if len(texts) == 1:
        return {"google": {"thought_signature": texts[0]["thoughtSignature"]}}
    return {"google": {"text_parts": texts}}


class GeminiModel:
    """A generateContent client; one instance serves all trials of a run."""

    def __init__(
        self,
        model_id: str,
        api_key: str,
        variable: str,
        options: dict[str, Any],
        *,
        base_url: str | None = None,
    ) -> None:
        self.provider = "gemini"
        self.model_id = model_id
        self.model_name = split_base_url(model_id)[0]
        self.base_url = (base_url or DEFAULT_BASE_URL).rstrip("/")
        self._api_key = api_key
        self._variable = variable
        settings = ProviderSettings.of(options)  # the project's, from create_model
        self.retry_policy = settings.retry_policy(options)
        self.stats = RetryStats()
        self._prices = settings.prices
        model = self.model_name.removeprefix("models/")
        self._url = f"{self.base_url}/v1beta/models/{quote(model, safe='-._~')}:generateContent"
        self._http = LeanClient(
            {
                "x-goog-api-key": api_key,
                "content-type": "application/json",
                "accept": "application/json",
                "user-agent": "trialrun",
            },
            max_body=settings.limits.max_body_bytes,
        )
        self._schemas = JsonCache(convert=to_gemini_tools)  # a task's tools, once

    def __repr__(self) -> str:  # never show the key
        return f"<GeminiModel {self.model_id}>"

    def _hint(self, status: int | None, message: str) -> str:
        """Gemini answers a bad key with 400 ("API key not valid"): name the variable then,
        not for every 400 (a malformed request, a missing thought signature)."""
        if status in (401, 403) or (status == 400 and "api key" in message.lower()):
            return f"check {self._variable}"
        return ""

    def size_pool(self, in_flight: int) -> None:
        """Keep up to `in_flight` connections open (the runner's concurrency)."""
        self._http.size(in_flight)

    def _body(
        self, messages: list[Message], tools: list[ToolSpec], params: CompletionParams
    ) -> bytes:
        system, contents = to_gemini(messages)
        request: dict[str, Any] = {"contents": contents}
        if system:
            request["systemInstruction"] = {"parts": [{"text": system}]}
        config: dict[str, Any] = {
            "temperature": 0.0 if params.temperature is None else params.temperature,
        }
        if params.max_tokens:
            config["maxOutputTokens"] = params.max_tokens
        if params.seed is not None:
            config["seed"] = params.seed
        reply = params.reply if not tools else None
        if reply is not None:
            config["responseMimeType"] = "application/json"
            config["responseSchema"] = response_schema(reply)
        request["generationConfig"] = config
        if tools:
            return request_body(request, {"tools": self._schemas.dumps(tools)})
        return request_body(request, {})

    async def complete(
        self, messages: list[Message], tools: list[ToolSpec], params: CompletionParams
    ) -> Completion:
        body = self._body(messages, tools, params)
        timeout = self.retry_policy.request_timeout(params.timeout_s)
        timing = AttemptTiming()

        async def attempt() -> Completion:
            response = await self._http.post_json(
                self._url, body, timeout + _TRANSPORT_MARGIN_S
            )
            if not isinstance(response, dict):
                raise InvalidResponse(f"not a generateContent answer: {str(response)[:200]!r}")
            return from_gemini(response)  # MalformedReply: retried, then infra

        completion = await with_retries(
            attempt,
            policy=self.retry_policy,
            what=f"gemini:{self.model_id}",
            secrets=[self._api_key],
            hint=self._hint,
            stats=self.stats,
            timeout_s=timeout,
            timing=timing,
        )
        reply = params.reply if not tools else None
        if reply is not None:
            completion.text = unwrapped_text(reply, completion.text)
        completion.latency_s = timing.answered_s
        completion.cost_usd = cost_usd("gemini", self.model_id, completion.usage, self._prices)
        return completion

    async def aclose(self) -> None:
        await self._http.aclose()


@model_provider("gemini")
def gemini_provider(model_id: str, options: dict[str, Any]) -> GeminiModel:
    if not model_id:
        raise UserError(
            "name a model, e.g. gemini:gemini-2.5-flash", place="--model", value="gemini"
        )
    variable = next((v for v in ("GEMINI_API_KEY", "GOOGLE_API_KEY") if os.environ.get(v)), None)
    if variable is None:
        raise UserError(
            "GEMINI_API_KEY is not set; export it", place="--model", value=f"gemini:{model_id}"
        )
    base_url = split_base_url(model_id)[1] or next(
        (os.environ[v] for v in BASE_URL_VARIABLES if os.environ.get(v)), None
    )
    return GeminiModel(model_id, os.environ[variable], variable, options, base_url=base_url)
