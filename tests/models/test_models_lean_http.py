"""The lean HTTP path: keep-alive reuse, chunked and close-delimited answers, a kept
connection the server closed, the SDK's error wording, and tool schemas serialised once.

Real sockets on 127.0.0.1: a small asyncio server answers as told per request.
"""

from __future__ import annotations

import asyncio
import json

import pytest

from conftest import FAST
from trialrun.errors import InfraError
from trialrun.models import CompletionParams, create_model
from trialrun.models._http import JsonCache, request_body
from trialrun.models._plain import PlainPool

ANSWER = {"choices": [{"message": {"role": "assistant", "content": "hi"},
                       "finish_reason": "stop"}],
          "usage": {"prompt_tokens": 7, "completion_tokens": 2,
                    "prompt_tokens_details": {"cached_tokens": 3}}}


async def serve(replies: list[str]) -> tuple[asyncio.Server, list[bytes], list[int]]:
    """A server answering each request with the next of `replies` (the last repeats):
    "length", "chunked", "close" (HTTP/1.0, body until close), "drop-after" (answer,
    then close the connection), "404"."""
    bodies: list[bytes] = []
    connections = [0]

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        connections[0] += 1
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                size = int(head.lower().split(b"content-length:")[1].split(b"\r\n")[0])
                bodies.append(await reader.readexactly(size))
                kind = replies[min(len(bodies) - 1, len(replies) - 1)]
                payload = json.dumps(ANSWER).encode()
                if kind == "chunked":
                    a, b = payload[:10], payload[10:]
                    writer.write(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
                                 + b"%x\r\n%s\r\n%x\r\n%s\r\n0\r\n\r\n" % (len(a), a, len(b), b))
                elif kind == "close":
                    writer.write(b"HTTP/1.0 200 OK\r\n\r\n" + payload)
                    await writer.drain()
                    writer.close()
                    return
                elif kind == "404":
                    err = json.dumps({"error": {"message": "model 'x' not found"}}).encode()
                    writer.write(b"HTTP/1.1 404 Not Found\r\nContent-Length: %d\r\n\r\n%s"
                                 % (len(err), err))
                else:
                    writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%s"
                                 % (len(payload), payload))
                await writer.drain()
                if kind == "drop-after":
                    writer.close()
                    return
        except (asyncio.IncompleteReadError, ConnectionError):
            writer.close()

    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    return server, bodies, connections


def run(coro):
    return asyncio.run(asyncio.wait_for(coro, 30))


@pytest.mark.parametrize("kind", ["length", "chunked", "close"])
def test_each_answer_shape_is_read_whole(kind: str) -> None:
    async def main() -> None:
        server, bodies, _ = await serve([kind])
        port = server.sockets[0].getsockname()[1]
        pool = PlainPool("127.0.0.1", port, {"X": "1"}, 4)
        for _ in range(3):
            response = await pool.post("/v1/chat/completions", b"{}", 5)
            assert response.status_code == 200 and json.loads(response.content) == ANSWER
        assert pool.opened == (3 if kind == "close" else 1)  # keep-alive reuses one
        pool.close()
        server.close()

    run(main())


def test_a_kept_connection_the_server_closed_is_replaced_once() -> None:
    async def main() -> None:
        server, bodies, connections = await serve(["drop-after"])
        port = server.sockets[0].getsockname()[1]
        pool = PlainPool("127.0.0.1", port, {}, 4)
        for _ in range(3):
            await pool.post("/x", b"{}", 5)
            await asyncio.sleep(0.05)  # the server's close arrives while idle
        assert len(bodies) == 3 and connections[0] == 3
        pool.close()
        server.close()

    run(main())


def test_the_model_reads_only_what_it_uses_and_words_errors_as_the_sdk(fast_retries) -> None:
    async def main() -> None:
        server, bodies, _ = await serve(["length", "length", "404"])
        port = server.sockets[0].getsockname()[1]
        model = create_model(f"openai-compat:x@http://127.0.0.1:{port}/v1", settings=FAST)
        tools = [{"type": "function", "function": {"name": "read_file", "parameters": {}}}]
        for _ in range(2):
            done = await model.complete([{"role": "user", "content": "hi"}], tools,
                                        CompletionParams())
            assert done.text == "hi" and done.finish_reason == "stop"
            assert (done.usage.prompt, done.usage.completion, done.usage.cached) == (7, 2, 3)
        sent = json.loads(bodies[0])
        assert sent["tools"] == tools and sent["model"] == "x" and sent["temperature"] == 0.0
        with pytest.raises(InfraError) as info:
            await model.complete([{"role": "user", "content": "hi"}], [], CompletionParams())
        message = str(info.value)
        assert "HTTP 404: Error code: 404 - model 'x' not found" in message
        assert "check the model name 'x'" in message
        await model.aclose()
        server.close()

    run(main())


def test_a_refused_connection_is_the_sdks_connection_error(fast_retries) -> None:
    async def main() -> None:
        model = create_model("openai-compat:x@http://127.0.0.1:9/v1", settings=FAST)
        with pytest.raises(InfraError, match=r"APIConnectionError: Connection error\. after 3"):
            await model.complete([{"role": "user", "content": "hi"}], [], CompletionParams())
        await model.aclose()

    run(main())


def test_tool_schemas_are_serialised_once_per_task() -> None:
    cache = JsonCache()
    params = {"type": "object", "properties": {"path": {"type": "string"}}}

    def trial_list() -> list[dict]:  # each trial builds its list; the schema is the task's
        return [{"type": "function",
                 "function": {"name": "read_file", "description": "ü", "parameters": params}}]

    first = cache.dumps(trial_list())
    assert cache.dumps(trial_list()) is first
    other = trial_list()
    other[0]["function"]["description"] = "changed"
    assert cache.dumps(other) is not first and "changed" in cache.dumps(other)
    body = request_body({"model": "m", "messages": []}, {"tools": first})
    assert json.loads(body) == {"model": "m", "messages": [], "tools": trial_list()}
    assert json.loads(request_body({}, {"tools": "[]"})) == {"tools": []}
