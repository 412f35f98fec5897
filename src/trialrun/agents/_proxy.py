"""A recording model proxy on 127.0.0.1 for command-line agents.

It speaks four wire APIs (`trialrun.agents.wire`): OpenAI Chat Completions, OpenAI
Responses, Anthropic Messages and Gemini, each with and without streaming. Every model
request is answered by the run's Model (so an agent can use `local`, `scripted` or any
provider) and recorded as an `Exchange` in trialrun's own messages, the same for every
API: that log becomes the trial's transcript. A request no API serves gets 404 in the
error shape of the API it looks like, naming what is served. A tiny asyncio HTTP/1.1
server: no web framework needed at run time.

What an agent sends is read within bounds: request line and headers up to `MAX_HEAD`
bytes (else 431), a body up to `[limits] max_body_mb` (else 413 naming the limit; a
declared length over it is not read, a chunked body stops at it), and JSON no more
complex than `parse_json` allows (else 400). A refusal ends the connection, after what
the client is still sending is drained (within bounds) so it reads the answer.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
import uuid
from collections.abc import Collection
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qsl

from trialrun.agents._served import COMMAND_FIX, ServedModels
from trialrun.agents.wire import (
    SERVED,
    Target,
    WireRequest,
    api_for_unknown,
    arguments_object,
    resolve,
    sse_body,
)
from trialrun.core import Message, model_label, model_name
from trialrun.errors import InfraError, ModelTimeout
from trialrun.models import (
    Completion,
    CompletionParams,
    ReadLimits,
    assistant_message,
    mib,
    parse_json,
    redact,
)

if TYPE_CHECKING:
    from trialrun.models import Model

MAX_HEAD = 64 * 1024  # request line and headers, bytes
# after refusing a request: what the client is still sending is read and dropped, up to
# this much for this long, so it gets to read the refusal (not a connection reset)
DISCARD_BYTES = 64 * 1024 * 1024
DISCARD_S = 5.0
_REASONS = {
    200: "OK", 400: "Bad Request", 404: "Not Found", 413: "Too Large",
    431: "Headers Too Large", 502: "Bad Gateway", 503: "Unavailable", 504: "Timeout",
}  # fmt: skip


class _Refused(Exception):
    """A request the proxy will not read: answered with `status` and the connection ended."""

    def __init__(self, status: int, message: str, target: Target | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.target = target


@dataclass(slots=True)
class Exchange:
    """One proxied model call: the request messages and tools, and the reply, in
    trialrun's messages whatever the wire API (`api`: chat, responses, anthropic, gemini)."""

    messages: list[Message]
    tools: list[dict[str, Any]]
    reply: Message | None
    completion: Completion | None
    latency_s: float
    error: str | None = None
    api: str = "chat"


@dataclass(slots=True)
class ProxyLog:
    exchanges: list[Exchange] = field(default_factory=list)
    infra_error: str | None = None
    model_timeout: str | None = None
    # a request for a model the run does not serve (`_served`): the trial is infra
    model_refused: str | None = None
    # the first answer the model could not give (a local model's prompt over its context),
    # in words: the trial fails saying so, not with a silent empty answer
    context_overflow: str | None = None


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
        max_body: int | None = None,
        aliases: Collection[str] | None = None,
        fix: str = COMMAND_FIX,
    ) -> None:
        self.model = model
        self.task_id = task_id
        self.trial = trial
        self.timeout_s = timeout_s
        self.host = host
        self.port = 0
        self.log = ProxyLog()
        # the largest request body read (bytes): the agent's [limits]; the default if not given
        self.max_body = max_body if max_body is not None else ReadLimits().max_body_bytes
        self._server: asyncio.base_events.Server | None = None
        # its name as the agent sees it: the label, never the base URL or its credentials
        self._model_name = (
            model_label(f"{model.provider}:{model.model_id}") if model is not None else "none"
        )
        # the model names answered besides the run's own; None: any name (no check)
        self.served = (
            ServedModels.of(self._model_name, model_name(model.model_id), aliases, fix)
            if model is not None and aliases is not None
            else None
        )
        self._call_ids: set[str] = set()  # every tool call id given to the agent
        self._issued: dict[str, list[str]] = {}  # (name, arguments) → ids given, in order

    @property
    def url(self) -> str:
        """The OpenAI base URL (ends in /v1)."""
        return f"http://{self.host}:{self.port}/v1"

    @property
    def root_url(self) -> str:
        """The server's root: the base URL Anthropic and Gemini clients take."""
        return f"http://{self.host}:{self.port}"

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
                try:
                    request = await self._read_request(reader, writer)
                except _Refused as exc:
                    api = api_for_unknown(exc.target or Target("POST", "/", {}, {}))
                    await _send(writer, exc.status, api.error(exc.status, str(exc)))
                    await _discard(reader)  # so the client reads the answer, not a reset
                    break
                if request is None:
                    break
                target, body, keep = request
                await self._route(writer, target, body)
                if not keep:
                    break
        except (asyncio.IncompleteReadError, ConnectionError, ValueError):
            pass
        finally:
            with contextlib.suppress(Exception):
                writer.close()

    async def _read_request(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> tuple[Target, bytes, bool] | None:
        """(target, body, keep-alive) of the next request; None when the client is done;
        `_Refused` for one that is not read (module docstring)."""
        lines: list[str] = []
        size = 0
        while True:
            try:
                line = await reader.readline()
            except ValueError:  # one line over the stream's buffer limit
                raise _Refused(431, f"request headers over {MAX_HEAD} bytes") from None
            if not line:
                return None
            size += len(line)
            if size > MAX_HEAD:
                raise _Refused(431, f"request headers over {MAX_HEAD} bytes")
            if line in (b"\r\n", b"\n"):
                if lines:
                    break
                continue  # blank lines before a request line are passed over
            lines.append(line.decode("latin-1").rstrip("\r\n"))
        parts = lines[0].split()
        if len(parts) < 2:
            return None
        headers: dict[str, str] = {}
        for header in lines[1:]:
            name, _, value = header.partition(":")
            headers[name.strip().lower()] = value.strip()
        path, _, query = parts[1].partition("?")
        target = Target(parts[0], path, dict(parse_qsl(query)), headers)
        too_large = (
            f"request body over {mib(self.max_body)} (limit [limits] max_body_mb in trialrun.toml)"
        )
        chunked = "chunked" in headers.get("transfer-encoding", "").lower()
        declared = headers.get("content-length", "0") or "0"
        if not chunked:
            if not (declared.isascii() and declared.isdigit()):
                raise _Refused(400, f"bad Content-Length {declared[:40]!r}", target)
            if int(declared) > self.max_body:
                raise _Refused(413, too_large, target)
        if headers.get("expect", "").lower() == "100-continue":
            writer.write(b"HTTP/1.1 100 Continue\r\n\r\n")
        if chunked:
            body = await _read_chunked(reader, self.max_body)
            if body is None:
                raise _Refused(413, too_large, target)
        else:
            body = await reader.readexactly(int(declared)) if int(declared) else b""
        keep = headers.get("connection", "").lower() != "close"
        return target, body, keep

    async def _route(self, writer: asyncio.StreamWriter, target: Target, body: bytes) -> None:
        try:
            await self._answer(writer, target, body)
        except (ConnectionError, asyncio.IncompleteReadError):
            raise
        except Exception as exc:  # a proxy bug is infra, and the agent hears of it at once
            text = f"trialrun's recording proxy failed: {type(exc).__name__}: {exc}"
            self.log.infra_error = redact(text)
            await _send(writer, 500, api_for_unknown(target).error(500, self.log.infra_error))

    async def _answer(self, writer: asyncio.StreamWriter, target: Target, body: bytes) -> None:
        found = resolve(target)
        if found is None:
            api = api_for_unknown(target)
            message = (
                f"trialrun's recording proxy does not serve {target.method} {target.path}; "
                f"it serves {SERVED}"
            )
            await _send(writer, 404, api.error(404, message))
            return
        api, endpoint = found
        if endpoint.action == "models":
            await _send(writer, 200, api.models(self._model_name))
            return
        try:
            data = parse_json(body or b"{}")
            # the model asked for, checked before the rest: a request for a model the run
            # does not serve is refused whatever else it holds
            named = data.get("model") if isinstance(data, dict) else None
            asked = endpoint.model or (named if isinstance(named, str) else None)
            refused = self.served.refusal(asked) if self.served is not None else None
            if refused is None:
                request = api.parse(data)
        except (ValueError, RecursionError) as exc:  # WireError and bad JSON
            await _send(writer, 400, api.error(400, f"bad {api.name} request: {exc}"))
            return
        if refused is not None:
            self.log.model_refused = self.log.model_refused or refused
            self.log.exchanges.append(Exchange([], [], None, None, 0.0, refused, api.name))
            await _send(writer, 404, api.error(404, refused))
            return
        request.model = endpoint.model or request.model or self._model_name
        if endpoint.stream is not None:
            request.stream = endpoint.stream
        if endpoint.action == "count":
            await _send(writer, 200, api.count(request))
            return
        status, completion, message = await self._complete(api.name, request)
        if completion is None:
            await _send(writer, status, api.error(status, message))
        elif not request.stream:
            await _send(writer, 200, api.reply(completion, request))
        elif endpoint.sse:
            await _send_bytes(
                writer, 200, "text/event-stream", sse_body(api.events(completion, request))
            )
        else:  # Gemini's streamGenerateContent without alt=sse: a JSON array of chunks
            chunks = [data for _, data in api.events(completion, request)]
            await _send_bytes(writer, 200, "application/json", json.dumps(chunks).encode())

    async def _complete(self, api: str, request: WireRequest) -> tuple[int, Completion | None, str]:
        """Ask the model and record the exchange: (status, completion or None, error)."""
        messages, tools = request.messages, request.tools
        self._restore_ids(messages)
        started = time.perf_counter()
        if self.model is None:
            message = "trialrun runs this agent without --model; pass --model to use the proxy"
            self.log.exchanges.append(Exchange(messages, tools, None, None, 0.0, message, api))
            return 503, None, message
        params = CompletionParams(
            temperature=request.temperature,
            max_tokens=request.max_tokens,
            seed=request.seed,
            task_id=self.task_id,
            trial=self.trial,
            timeout_s=self.timeout_s,
        )
        try:
            completion = await self.model.complete(messages, tools, params)
        except ModelTimeout as exc:
            self.log.model_timeout = str(exc) or "a model call timed out"
            elapsed = time.perf_counter() - started
            self.log.exchanges.append(Exchange(messages, tools, None, None, elapsed, str(exc), api))
            return 504, None, str(exc) or "the model call timed out"
        except InfraError as exc:
            text = redact(str(exc))
            self.log.infra_error = text
            elapsed = time.perf_counter() - started
            self.log.exchanges.append(Exchange(messages, tools, None, None, elapsed, text, api))
            return 502, None, text
        latency = time.perf_counter() - started
        if completion.finish_reason == "context_overflow" and self.log.context_overflow is None:
            self.log.context_overflow = completion.note or "the prompt exceeds the model's context"
        self._name_calls(completion)
        reply = assistant_message(completion)
        self.log.exchanges.append(Exchange(messages, tools, reply, completion, latency, None, api))
        return 200, completion, ""

    def _name_calls(self, completion: Completion) -> None:
        """Give every tool call an id no earlier call of this trial has: the agent sends
        the results back by id, and the transcript pairs them that way."""
        for call in completion.tool_calls:
            if not call.id or call.id in self._call_ids:
                call.id = f"call_{uuid.uuid4().hex[:16]}"
            self._call_ids.add(call.id)
            self._issued.setdefault(_call_key(call.name, call.arguments), []).append(call.id)

    def _restore_ids(self, messages: list[Message]) -> None:
        """Put back the ids this proxy gave the calls in the agent's history when its API
        dropped them (a Gemini client may send a functionCall without its id): the call
        with the same name and arguments, oldest first; its results follow the new id."""
        renamed: dict[str, str] = {}
        taken: set[str] = set()
        for message in messages:
            calls = message.get("tool_calls") if message.get("role") == "assistant" else None
            for call in calls or []:
                old = call.get("id")
                if old in self._call_ids:
                    taken.add(old)
                    continue
                function = call.get("function") or {}
                key = _call_key(function.get("name"), arguments_object(function.get("arguments")))
                new = next((i for i in self._issued.get(key, []) if i not in taken), None)
                if new is not None:
                    taken.add(new)
                    renamed[str(old)] = new
                    call["id"] = new
            if message.get("role") == "tool" and message.get("tool_call_id") in renamed:
                message["tool_call_id"] = renamed[message["tool_call_id"]]


def _call_key(name: Any, arguments: Any) -> str:
    return json.dumps([name, arguments], sort_keys=True, default=str)


async def _read_chunked(reader: asyncio.StreamReader, limit: int) -> bytes | None:
    """A chunked body; None once it grows past `limit` bytes (the rest is not read)."""
    body = bytearray()
    while True:
        size = int((await reader.readline()).split(b";")[0].strip() or b"0", 16)
        if size == 0:
            while (await reader.readline()) not in (b"\r\n", b"\n", b""):
                pass  # trailers
            return bytes(body)
        if len(body) + size > limit:
            return None
        body += await reader.readexactly(size)
        await reader.readline()


async def _discard(reader: asyncio.StreamReader) -> None:
    """Read and drop what the client is still sending, within bounds (`DISCARD_*`)."""
    left = DISCARD_BYTES
    with contextlib.suppress(TimeoutError, ConnectionError):
        async with asyncio.timeout(DISCARD_S):
            while left > 0:
                data = await reader.read(min(left, 65536))
                if not data:
                    return
                left -= len(data)


async def _send(writer: asyncio.StreamWriter, status: int, payload: dict[str, Any]) -> None:
    await _send_bytes(writer, status, "application/json", json.dumps(payload).encode())


async def _send_bytes(
    writer: asyncio.StreamWriter, status: int, content_type: str, body: bytes
) -> None:
    """One whole answer with its length: a streamed answer's events all at once, so a
    client reading SSE sees the end of the stream and never waits for more."""
    reason = _REASONS.get(status, "Error")
    head = (
        f"HTTP/1.1 {status} {reason}\r\nContent-Type: {content_type}\r\n"
        f"Content-Length: {len(body)}\r\nConnection: keep-alive\r\n\r\n"
    )
    writer.write(head.encode() + body)
    await writer.drain()
