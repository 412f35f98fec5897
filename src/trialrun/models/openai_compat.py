"""OpenAI and OpenAI-compatible servers (vLLM, Ollama's /v1, llama.cpp's server, LM Studio).

Specs: `openai:MODEL` (key OPENAI_API_KEY, optional OPENAI_BASE_URL) and
`openai-compat:MODEL@BASE_URL` (key TRIALRUN_API_KEY or OPENAI_API_KEY, else "none").
Native tool calling; the SDK's own retries are off so `_retry` is the only retry layer.
Each attempt is bounded by the retry policy's `request_timeout(task timeout)`; an attempt
without an answer is retried, and `Completion.latency_s` is the answering attempt's time.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from dataclasses import replace
from typing import Any

from trialrun.core import redact, split_base_url
from trialrun.errors import UserError
from trialrun.models._pricing import cost_usd, pricing_table
from trialrun.models._registry import model_provider
from trialrun.models._retry import (
    AttemptTiming,
    InvalidResponse,
    RetryPolicy,
    RetryStats,
    with_retries,
)
from trialrun.models._tool_calls import clean_messages, parse_arguments
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

# the SDK's own timeout stays a backstop behind with_retries' bound on the whole attempt
_SDK_TIMEOUT_MARGIN_S = 1.0


def _import_openai() -> Any:
    try:
        import openai
    except ImportError:
        raise UserError(
            "the openai SDK is not installed; pip install openai (a core dependency of trialrun)"
        ) from None
    return openai


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
        self.retry_policy = RetryPolicy.load(options.get("retries"))
        if options.get("timeout_s") is not None:  # the programmatic per-request limit
            self.retry_policy = replace(
                self.retry_policy, request_timeout_s=float(options["timeout_s"])
            )
        self.stats = RetryStats()
        self._prices = pricing_table()
        self._clients: dict[int, Any] = {}
        # reply-constraint forms this server has refused (see `_response_format`)
        self._refused_forms: set[str] = set()
        self._refusal: str | None = None

    def __repr__(self) -> str:  # never show the key
        return f"<{type(self).__name__} {self.provider}:{self.model_id}>"

    @property
    def where(self) -> str:
        return f"{self.provider}:{self.model_name}" + (
            f" @ {self.base_url}" if self.base_url else ""
        )

    def _client(self) -> Any:
        # httpx clients are bound to the event loop that first used them
        loop_id = id(asyncio.get_running_loop())
        client = self._clients.get(loop_id)
        if client is None:
            openai = _import_openai()
            kwargs: dict[str, Any] = {"api_key": self._api_key, "max_retries": 0}
            if self.base_url:
                kwargs["base_url"] = self.base_url
            client = openai.AsyncOpenAI(**kwargs)
            self._clients = {loop_id: client}
        return client

    def _hint(self, status: int | None) -> str:
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
            "messages": clean_messages(messages),
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
        client = self._client()  # made (and the SDK imported) outside the attempts' limit

        status_error = _import_openai().APIStatusError

        async def attempt() -> Any:
            try:
                response = await client.chat.completions.create(
                    **request, timeout=timeout + _SDK_TIMEOUT_MARGIN_S
                )
            except status_error as exc:
                if "response_format" not in request or not _refuses_format(exc):
                    raise
                message = redact(str(exc), [self._api_key])[:200]
                raise ConstraintRejected(
                    f"{self.where}: response_format rejected: {message}"
                ) from None
            if isinstance(response, (str, bytes)) or not getattr(response, "choices", None):
                raise InvalidResponse(f"not a chat completion: {str(response)[:200]!r}")
            return response

        response = await with_retries(
            attempt,
            policy=self.retry_policy,
            what=self.where,
            secrets=[self._api_key],
            hint=self._hint,
            stats=self.stats,
            timeout_s=timeout,
            timing=timing,
        )
        completion = self._completion(response)
        if params.reply is not None and response_format is not None:
            completion.text = unwrapped_text(params.reply, completion.text)
        completion.latency_s = timing.answered_s
        completion.cost_usd = cost_usd(self.provider, self.model_id, completion.usage, self._prices)
        return completion

    @staticmethod
    def _completion(response: Any) -> Completion:
        choice = response.choices[0]
        message = choice.message
        calls = []
        for index, call in enumerate(getattr(message, "tool_calls", None) or []):
            function = getattr(call, "function", None)
            name = getattr(function, "name", "") or ""
            call_id = getattr(call, "id", None) or f"call_{index}"
            calls.append(parse_arguments(call_id, name, getattr(function, "arguments", None)))
        usage = Usage()
        raw_usage = getattr(response, "usage", None)
        if raw_usage is not None:
            usage.prompt = int(getattr(raw_usage, "prompt_tokens", 0) or 0)
            usage.completion = int(getattr(raw_usage, "completion_tokens", 0) or 0)
            details = getattr(raw_usage, "prompt_tokens_details", None)
            usage.cached = int(getattr(details, "cached_tokens", 0) or 0) if details else 0
        return Completion(
            text=getattr(message, "content", None),
            tool_calls=calls,
            usage=usage,
            finish_reason=getattr(choice, "finish_reason", None),
        )

    async def aclose(self) -> None:
        clients, self._clients = self._clients, {}
        for client in clients.values():
            with contextlib.suppress(Exception):  # a client bound to a finished loop
                await client.close()


def split_compat_id(model_id: str) -> tuple[str, str]:
    """`MODEL@BASE_URL` → (MODEL, BASE_URL); the URL starts at the last '@http'."""
    name, base_url = split_base_url(model_id)
    if base_url is None:
        raise UserError(
            f"--model openai-compat:{model_id}: expected openai-compat:MODEL@BASE_URL, "
            "e.g. openai-compat:qwen2.5@http://127.0.0.1:8000/v1"
        )
    return name, base_url


@model_provider("openai")
def openai_provider(model_id: str, options: dict[str, Any]) -> OpenAICompatModel:
    if not model_id:
        raise UserError("--model openai: name a model, e.g. openai:gpt-4o-mini")
    key = os.environ.get("OPENAI_API_KEY")
    if not key:
        raise UserError(
            f"--model openai:{model_id}: OPENAI_API_KEY is not set; export it (keys are read "
            "from the environment only)"
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
