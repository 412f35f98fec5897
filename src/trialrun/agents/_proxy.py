"""A recording OpenAI-compatible proxy on 127.0.0.1 for command-line agents.

`POST /v1/chat/completions` (also without `/v1`) is answered by the run's Model (so a
command agent can use `local`, `scripted` or any provider) and every exchange is
recorded; `GET /v1/models` lists the one model. `stream: true` is answered as one SSE
chunk plus `[DONE]`. A tiny asyncio HTTP/1.1 server: no web framework needed at run time.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
import uuid
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from trialrun.core import Message, model_label
from trialrun.errors import InfraError, ModelTimeout
from trialrun.models import Completion, CompletionParams, assistant_message, redact

if TYPE_CHECKING:
    from trialrun.models import Model

MAX_BODY = 64 * 1024 * 1024
_REASONS = {
    200: "OK", 400: "Bad Request", 404: "Not Found", 413: "Too Large",
    502: "Bad Gateway", 503: "Unavailable", 504: "Timeout",
}  # fmt: skip


@dataclass(slots=True)
class Exchange:
    """One proxied model call: the request messages and tools, and the reply."""

    messages: list[Message]
    tools: list[dict[str, Any]]
    reply: Message | None
    completion: Completion | None
    latency_s: float
    error: str | None = None


@dataclass(slots=True)
class ProxyLog:
    exchanges: list[Exchange] = field(default_factory=list)
    infra_error: str | None = None
    model_timeout: str | None = None


class RecordingProxy:
    """`async with RecordingProxy(model, task_id=…) as proxy:` → `proxy.url`, `proxy.log`."""

    def __init__(
        self,
        model: Model | None,
        *,
        task_id: str | None = None,
        trial: int | None = None,
        timeout_s: float | None = None,
        host: str = "127.0.0.1",
    ) -> None:
        self.model = model
        self.task_id = task_id
        self.trial = trial
        self.timeout_s = timeout_s
        self.host = host
        self.port = 0
        self.log = ProxyLog()
        self._server: asyncio.base_events.Server | None = None
        # its name as the agent sees it: the label, never the base URL or its credentials
        self._model_name = (
            model_label(f"{model.provider}:{model.model_id}") if model is not None else "none"
        )

    @property
    def url(self) -> str:
        """The OpenAI base URL (ends in /v1)."""
        return f"http://{self.host}:{self.port}/v1"

    async def start(self) -> RecordingProxy:
        self._server = await asyncio.start_server(self._serve, self.host, 0)
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    async def stop(self) -> None:
        if self._server is not None:
            self._server.close()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._server.wait_closed(), 2.0)
            self._server = None

    async def __aenter__(self) -> RecordingProxy:
        return await self.start()

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    # -- HTTP ----------------------------------------------------------------------
    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                request_line = await reader.readline()
                if not request_line:
                    break
                parts = request_line.decode("latin-1").split()
                if len(parts) < 2:
                    break
                method, path = parts[0], parts[1].split("?", 1)[0]
                headers: dict[str, str] = {}
                while True:
                    line = await reader.readline()
                    if line in (b"\r\n", b"\n", b""):
                        break
                    name, _, value = line.decode("latin-1").partition(":")
                    headers[name.strip().lower()] = value.strip()
                length = int(headers.get("content-length", "0") or 0)
                if length > MAX_BODY:
                    await self._send(writer, 413, {"error": {"message": "request too large"}})
                    break
                body = await reader.readexactly(length) if length else b""
                keep = headers.get("connection", "").lower() != "close"
                await self._route(writer, method, path, body)
                if not keep:
                    break
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            with contextlib.suppress(Exception):
                writer.close()

    async def _route(
        self, writer: asyncio.StreamWriter, method: str, path: str, body: bytes
    ) -> None:
        if path.rstrip("/").endswith("/models") and method == "GET":
            data = [{"id": self._model_name, "object": "model", "owned_by": "trialrun"}]
            await self._send(writer, 200, {"object": "list", "data": data})
            return
        if not path.rstrip("/").endswith("/chat/completions") or method != "POST":
            await self._send(writer, 404, {"error": {"message": f"no route {method} {path}"}})
            return
        try:
            request = json.loads(body or b"{}")
            if not isinstance(request, dict) or not isinstance(request.get("messages"), list):
                raise ValueError("'messages' must be a list")
        except ValueError as exc:
            await self._send(writer, 400, {"error": {"message": f"bad request: {exc}"}})
            return
        status, payload, completion = await self._complete(request)
        if status == 200 and request.get("stream"):
            await self._send_stream(writer, payload, completion)
        else:
            await self._send(writer, status, payload)

    async def _complete(
        self, request: dict[str, Any]
    ) -> tuple[int, dict[str, Any], Completion | None]:
        messages: list[Message] = request["messages"]
        tools = request.get("tools") or []
        started = time.perf_counter()
        if self.model is None:
            message = "trialrun runs this agent without --model; pass --model to use the proxy"
            self.log.exchanges.append(Exchange(messages, tools, None, None, 0.0, message))
            return 503, {"error": {"message": message, "type": "no_model"}}, None
        params = CompletionParams(
            temperature=request.get("temperature"),
            max_tokens=request.get("max_tokens") or request.get("max_completion_tokens"),
            seed=request.get("seed"),
            task_id=self.task_id,
            trial=self.trial,
            timeout_s=self.timeout_s,
        )
        try:
            completion = await self.model.complete(messages, tools, params)
        except ModelTimeout as exc:
            self.log.model_timeout = str(exc) or "a model call timed out"
            self.log.exchanges.append(
                Exchange(messages, tools, None, None, time.perf_counter() - started, str(exc))
            )
            return 504, {"error": {"message": str(exc), "type": "timeout"}}, None
        except InfraError as exc:
            text = redact(str(exc))
            self.log.infra_error = text
            self.log.exchanges.append(
                Exchange(messages, tools, None, None, time.perf_counter() - started, text)
            )
            return 502, {"error": {"message": text, "type": "upstream"}}, None
        latency = time.perf_counter() - started
        reply = assistant_message(completion)
        self.log.exchanges.append(Exchange(messages, tools, reply, completion, latency))
        finish = "tool_calls" if completion.tool_calls else (completion.finish_reason or "stop")
        if finish not in ("stop", "length", "tool_calls", "content_filter"):
            finish = "stop"
        payload = {
            "id": f"chatcmpl-{uuid.uuid4().hex[:24]}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": request.get("model") or self._model_name,
            "choices": [{"index": 0, "message": reply, "finish_reason": finish}],
            "usage": {
                "prompt_tokens": completion.usage.prompt,
                "completion_tokens": completion.usage.completion,
                "total_tokens": completion.usage.prompt + completion.usage.completion,
                "prompt_tokens_details": {"cached_tokens": completion.usage.cached},
            },
        }
        return 200, payload, completion

    @staticmethod
    async def _send(writer: asyncio.StreamWriter, status: int, payload: dict[str, Any]) -> None:
        body = json.dumps(payload).encode()
        reason = _REASONS.get(status, "Error")
        head = (
            f"HTTP/1.1 {status} {reason}\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\nConnection: keep-alive\r\n\r\n"
        )
        writer.write(head.encode() + body)
        await writer.drain()

    @staticmethod
    async def _send_stream(
        writer: asyncio.StreamWriter, payload: dict[str, Any], completion: Completion | None
    ) -> None:
        choice = payload["choices"][0]
        delta: dict[str, Any] = {"role": "assistant", "content": choice["message"].get("content")}
        if choice["message"].get("tool_calls"):
            delta["tool_calls"] = [
                {"index": i, **call} for i, call in enumerate(choice["message"]["tool_calls"])
            ]
        base = {k: payload[k] for k in ("id", "created", "model")}
        chunks = [
            {**base, "object": "chat.completion.chunk",
             "choices": [{"index": 0, "delta": delta, "finish_reason": None}]},
            {**base, "object": "chat.completion.chunk",
             "choices": [{"index": 0, "delta": {}, "finish_reason": choice["finish_reason"]}],
             "usage": payload["usage"]},
        ]  # fmt: skip
        body = b"".join(f"data: {json.dumps(c)}\n\n".encode() for c in chunks) + b"data: [DONE]\n\n"
        head = (
            "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
            f"Content-Length: {len(body)}\r\nConnection: keep-alive\r\n\r\n"
        )
        writer.write(head.encode() + body)
        await writer.drain()
