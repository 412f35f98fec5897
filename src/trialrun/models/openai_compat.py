"""OpenAI and OpenAI-compatible servers (vLLM, Ollama's /v1, llama.cpp's server, LM Studio).

Specs: `openai:MODEL` (key OPENAI_API_KEY, optional OPENAI_BASE_URL) and
`openai-compat:MODEL@BASE_URL` (key TRIALRUN_API_KEY or OPENAI_API_KEY, else "none").
Native tool calling; `_retry` is the only retry layer. Each attempt is bounded by the
retry policy's `request_timeout(task timeout)`; an attempt without an answer is retried,
and `Completion.latency_s` is the answering attempt's time.

The request path is lean (`_http`): the body is built as JSON directly, a task's tool
schemas serialised once, sent over one pooled httpx client sized to the trials in
flight, and only the fields used are read from the answer. Errors keep the openai SDK's
wording, so messages and retry decisions are as they were with the SDK.

Gemini's OpenAI-compatible endpoint (https://generativelanguage.googleapis.com/v1beta/
openai/) carries thought signatures as `extra_content: {"google": {"thought_signature":
…}}` on a tool call (and on the message) and wants each back, unchanged, on the same
call (Gemini 3 answers 400 without it). An answer's `extra_content` is kept on its
`ToolCall` / `Completion`, so the history holds it (`assistant_message`); once this
server has sent one, the history's `extra_content` goes back with the messages. A server
that never sends it is sent exactly the body it was before.
"""

from __future__ import annotations

import os
from typing import Any

from trialrun.core import redact, split_base_url
from trialrun.errors import UserError
from trialrun.models._http import JsonCache, LeanClient, StatusError, request_body
from trialrun.models._pricing import cost_usd
from trialrun.models._registry import model_provider
from trialrun.models._reply import Field, MalformedReply, shown
from trialrun.models._retry import (
    AttemptTiming,
    InvalidResponse,
    RetryStats,
    with_retries,
)
from trialrun.models._settings import ProviderSettings
from trialrun.models._tool_calls import clean_messages, extra_content, parse_arguments
from trialrun.models._types import (
    Completion,
    CompletionParams,
    ConstraintRejected,
    Message,
    ReplyConstraint,
    ToolSpec,
    Usage,
    unwrapped_text,
    wrapped_schema,
)

# the transport's own timeout stays a backstop behind with_retries' bound on the attempt
_SDK_TIMEOUT_MARGIN_S = 1.0
OPENAI_BASE_URL = "https://api.openai.com/v1"


def _refuses_format(exc: Any) -> bool:
    """HTTP 400/422 to a request with `response_format`, or a server that reports its
    validation error on the field as a 500 (llama-cpp-python's server does)."""
    status = getattr(exc, "status_code", None)
    return status in (400, 422) or (status == 500 and "response_format" in str(exc))


class OpenAICompatModel:
    """A chat-completions client; one instance serves all trials of a run."""

    def __init__(
        self,
        provider: str,
        model_id: str,
        *,
        model_name: str,
        base_url: str | None,
        api_key: str,
        key_variable: str | None = None,
        options: dict[str, Any] | None = None,
    ) -> None:
        options = options or {}
        self.provider = provider
        self.model_id = model_id
        self.model_name = model_name
        self.base_url = base_url
        self._api_key = api_key
        self._key_variable = key_variable
        settings = ProviderSettings.of(options)  # the project's, from create_model
        self.retry_policy = settings.retry_policy(options)
        self.stats = RetryStats()
        self._prices = settings.prices
        self._url = (base_url or OPENAI_BASE_URL).rstrip("/") + "/chat/completions"
        self._http = LeanClient(
            {
                "Authorization": f"Bearer {api_key}",
                "Content-Type": "application/json",
                "Accept": "application/json",
                "User-Agent": "trialrun",
            },
            max_body=settings.limits.max_body_bytes,
        )
        self._schemas = JsonCache()  # a task's tool list, serialised once
        # reply-constraint forms this server has refused (see `_response_format`)
        self._refused_forms: set[str] = set()
        self._refusal: str | None = None
        # whether this server has sent `extra_content` (then the history's goes back)
        self._sends_extra = False

    def __repr__(self) -> str:  # never show the key
        return f"<{type(self).__name__} {self.provider}:{self.model_id}>"

    @property
    def where(self) -> str:
        return f"{self.provider}:{self.model_name}" + (
            f" @ {self.base_url}" if self.base_url else ""
        )

    def size_pool(self, in_flight: int) -> None:
        """Keep up to `in_flight` connections open (the runner's concurrency)."""
        self._http.size(in_flight)

    def _hint(self, status: int | None, message: str = "") -> str:
        if status in (401, 403):
            var = self._key_variable or "the API key variable"
            return f"check {var}"
        if status == 404:
            return f"check the model name '{self.model_name}' and the base URL"
        return ""

    def _request(
        self, messages: list[Message], tools: list[ToolSpec], params: CompletionParams
    ) -> dict[str, Any]:
        request: dict[str, Any] = {
            "model": self.model_name,
            "messages": clean_messages(messages, keep_extra=self._sends_extra),
            "temperature": 0.0 if params.temperature is None else params.temperature,
        }
        if tools:
            request["tools"] = tools
        if params.max_tokens is not None:
            key = "max_completion_tokens" if self.provider == "openai" else "max_tokens"
            request[key] = params.max_tokens
        if params.seed is not None:
            request["seed"] = params.seed
        request.update(params.extra.get("openai", {}))
        return request

    def _body(self, request: dict[str, Any]) -> bytes:
        """The request as JSON bytes; the tool list is spliced in from `_schemas`."""
        tools = request.get("tools")
        if not isinstance(tools, list) or not tools:
            return request_body(request, {})
        rest = {k: v for k, v in request.items() if k != "tools"}
        return request_body(rest, {"tools": self._schemas.dumps(tools)})

    def _response_format(self, reply: ReplyConstraint) -> tuple[str, dict[str, Any]] | None:
        """The next form of `response_format` to try: OpenAI's `json_schema` (OpenAI, vLLM,
        llama.cpp's llama-server), then for openai-compat `json_object` with a `schema`
        (llama-cpp-python's server); None once the server has refused every form."""
        schema = wrapped_schema(reply)
        forms = [
            (
                "json_schema",
                {
                    "type": "json_schema",
                    "json_schema": {"name": reply.name, "schema": schema, "strict": True},
                },
            )
        ]
        if self.provider != "openai":
            forms.append(("json_object", {"type": "json_object", "schema": schema}))
        return next((f for f in forms if f[0] not in self._refused_forms), None)

    async def complete(
        self, messages: list[Message], tools: list[ToolSpec], params: CompletionParams
    ) -> Completion:
        reply = params.reply if not tools else None
        while reply is not None:
            form = self._response_format(reply)
            if form is None:
                raise ConstraintRejected(self._refusal or f"{self.where}: no response_format")
            try:
                return await self._complete(messages, tools, params, form[1])
            except ConstraintRejected as exc:
                self._refused_forms.add(form[0])
                self._refusal = str(exc)
        return await self._complete(messages, tools, params, None)

    async def _complete(
        self,
        messages: list[Message],
        tools: list[ToolSpec],
        params: CompletionParams,
        response_format: dict[str, Any] | None,
    ) -> Completion:
        request = self._request(messages, tools, params)
        if response_format is not None:
            request["response_format"] = response_format
        timeout = self.retry_policy.request_timeout(params.timeout_s)
        timing = AttemptTiming()
        body = self._body(request)

        async def attempt() -> Completion:
            try:
                response = await self._http.post_json(
                    self._url, body, timeout + _SDK_TIMEOUT_MARGIN_S
                )
            except StatusError as exc:
                if "response_format" not in request or not _refuses_format(exc):
                    raise
                message = redact(str(exc), [self._api_key])[:200]
                raise ConstraintRejected(
                    f"{self.where}: response_format rejected: {message}"
                ) from None
            if not isinstance(response, dict):
                raise InvalidResponse(f"not a chat completion: {str(response)[:200]!r}")
            return self._completion(response)  # MalformedReply: retried, then infra

        completion = await with_retries(
            attempt,
            policy=self.retry_policy,
            what=self.where,
            secrets=[self._api_key],
            hint=self._hint,
            stats=self.stats,
            timeout_s=timeout,
            timing=timing,
        )
        if params.reply is not None and response_format is not None:
            completion.text = unwrapped_text(params.reply, completion.text)
        completion.latency_s = timing.answered_s
        completion.cost_usd = cost_usd(self.provider, self.model_id, completion.usage, self._prices)
        return completion

    def _completion(self, response: dict[str, Any]) -> Completion:
        """Only the fields used, each checked for its type (`MalformedReply` naming the
        first one that is not): the first choice's text, tool calls (with their
        `extra_content`), finish reason and `extra_content`, and the token counts."""
        reply = Field(response)
        choice = reply["choices"].items(required=True, non_empty=True)[0]
        choice.object()
        message = choice["message"]
        message.object()
        calls = []
        for index, call in enumerate(message["tool_calls"].items()):
            call.object()
            function = call["function"]
            function.object()
            name = function["name"].text(required=True) or ""
            call_id = call["id"].text() or f"call_{index}"
            arguments = function["arguments"].check(str, dict, expected="text or an object")
            tool_call = parse_arguments(call_id, name, arguments)
            extra = extra_content(call.object())
            if extra is not None:  # e.g. Gemini's thought signature: it goes back
                tool_call.extra_content = extra
                self._sends_extra = True
            calls.append(tool_call)
        usage = reply["usage"]
        usage.optional_object()
        details = usage["prompt_tokens_details"]
        details.optional_object()
        counts = Usage(
            prompt=usage["prompt_tokens"].count(),
            cached=details["cached_tokens"].count(),
            completion=usage["completion_tokens"].count(),
        )
        reason = choice["finish_reason"].text()
        extra = extra_content(message.object())
        if extra is not None:
            self._sends_extra = True
        return Completion(
            text=_content_text(message["content"]),
            tool_calls=calls,
            usage=counts,
            finish_reason=reason,
            extra_content=extra,
        )

    async def aclose(self) -> None:
        await self._http.aclose()


def _content_text(content: Field) -> str | None:
    """A message's text: a string, or a list of parts whose `text` parts are joined
    (as some OpenAI-compatible servers send it); None when absent or null."""
    if not content.given or isinstance(content.value, str):
        return content.text()
    if not isinstance(content.value, list):
        raise MalformedReply(f"{content.where} is {shown(content.value)} (expected text)")
    texts = []
    for part in content.items():
        part.object()
        if part["type"].text() == "text":
            texts.append(part["text"].text(required=True) or "")
    return "".join(texts) if texts else None


def split_compat_id(model_id: str) -> tuple[str, str]:
    """`MODEL@BASE_URL` → (MODEL, BASE_URL); the URL starts at the last '@http'."""
    name, base_url = split_base_url(model_id)
    if base_url is None:
        raise UserError(
            "expected openai-compat:MODEL@BASE_URL, "
            "e.g. openai-compat:qwen2.5@http://127.0.0.1:8000/v1",
            place="--model", value=f"openai-compat:{model_id}",
        )
    return name, base_url


@model_provider("openai")
def openai_provider(model_id: str, options: dict[str, Any]) -> OpenAICompatModel:
    if not model_id:
        raise UserError("name a model, e.g. openai:gpt-4o-mini", place="--model", value="openai")
    key = os.environ.get("OPENAI_API_KEY")
    if not key:
        raise UserError(
            "OPENAI_API_KEY is not set; export it (keys are read "
            "from the environment only)",
            place="--model", value=f"openai:{model_id}",
        )
    return OpenAICompatModel(
        "openai",
        model_id,
        model_name=model_id,
        base_url=os.environ.get("OPENAI_BASE_URL") or None,
        api_key=key,
        key_variable="OPENAI_API_KEY",
        options=options,
    )


@model_provider("openai-compat")
def openai_compat_provider(model_id: str, options: dict[str, Any]) -> OpenAICompatModel:
    name, base_url = split_compat_id(model_id)
    variable = next((v for v in ("TRIALRUN_API_KEY", "OPENAI_API_KEY") if os.environ.get(v)), None)
    key = os.environ[variable] if variable else "none"
    return OpenAICompatModel(
        "openai-compat",
        model_id,
        model_name=name,
        base_url=base_url,
        api_key=key,
        key_variable=variable or "TRIALRUN_API_KEY",
        options=options,
    )
