"""`openai-compat` pointed at Gemini's OpenAI-compatible endpoint: thought signatures
(`extra_content` on a tool call or message) are kept from the answer and sent back
unchanged on the same call, and only to a server that sends them.

The server (tests/servers/gemini_openai_server.py) is a real loopback HTTP server that
answers 400, in Gemini's own error shape, for a call of the current turn replayed
without its exact `extra_content` (or with one it never gave).
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from gemini_openai_server import GeminiOpenAIServer, signature, signed

from conftest import ANSWER, FAST, WRITTEN
from trialrun import run as run_eval
from trialrun.errors import InfraError
from trialrun.models import CompletionParams, assistant_message, create_model
from trialrun.rundir import RunDir

pytestmark = pytest.mark.timeout(60)

WRITE = {"path": "answer.txt", "content": WRITTEN}
OTHER = {"path": "other.txt", "content": "more"}
READ = {"path": "a.md"}
TOOL = {"type": "function", "function": {
    "name": "read_file", "description": "Read a file.",
    "parameters": {"type": "object", "properties": {"path": {"type": "string"}},
                   "required": ["path"]}}}  # fmt: skip
ASK = [{"role": "user", "content": "read a.md"}]


@pytest.fixture
def gemini(fast_retries):
    servers: list[GeminiOpenAIServer] = []

    def start(steps: list, answer: str = ANSWER, *, signed: bool = True) -> GeminiOpenAIServer:
        servers.append(GeminiOpenAIServer(steps, answer, signed=signed))
        return servers[-1]

    yield start
    for server in servers:
        server.close()


def spec(server: GeminiOpenAIServer) -> str:
    return f"openai-compat:gemini-3-test@{server.url}"


def tool_step(message: dict[str, Any]) -> list[dict[str, Any]]:
    return message["tool_calls"]


def test_a_tool_loop_trial_sends_each_signature_back_on_its_call(gemini, tmp_path, write_file_task):
    server = gemini([[("write_file", WRITE), ("write_file", OTHER)]])  # parallel: first signed
    outcome = run_eval(
        [write_file_task], [spec(server)], k=1, out=tmp_path / "out", handle_sigint=False
    )
    (line,) = outcome.results
    assert line.error is None, line.error
    assert line.passed is True and line.final_text == ANSWER and line.turns == 2
    assert server.rejected == 0 and len(server.requests) == 2  # no 400 on the way
    first, second = server.requests
    assert b"extra_content" not in first["raw"]  # nothing to send back yet
    (assistant,) = [m for m in second["body"]["messages"] if m["role"] == "assistant"]
    assert assistant == {"role": "assistant", "content": None, "tool_calls": [
        {"id": "function-call-0-0", "type": "function",
         "function": {"name": "write_file", "arguments": json.dumps(WRITE)},
         "extra_content": signed("write_file", WRITE)},
        {"id": "function-call-0-1", "type": "function",
         "function": {"name": "write_file", "arguments": json.dumps(OTHER)}},
    ]}  # fmt: skip
    assert signature("write_file", WRITE).encode() in second["raw"]  # byte for byte
    # the transcript keeps the history as the loop held it, the answer's signature too
    messages = RunDir.open(outcome.path).transcript(line).messages
    calls = [m for m in messages if m["role"] == "assistant" and m.get("tool_calls")]
    assert [c.get("extra_content") for c in tool_step(calls[0])] == [
        signed("write_file", WRITE), None
    ]  # fmt: skip
    assert messages[-1]["content"] == ANSWER
    assert messages[-1]["extra_content"] == signed("text", ANSWER)


def test_a_call_replayed_without_its_exact_signature_is_answered_400(gemini):
    server = gemini([[("read_file", READ)]])

    async def main() -> list[str]:
        model = create_model(spec(server), settings=FAST)
        try:
            done = await model.complete(ASK, [TOOL], CompletionParams())
            (call,) = done.tool_calls
            assert call.extra_content == signed("read_file", READ)
            kept = assistant_message(done)
            result = {"role": "tool", "tool_call_id": call.id, "content": "text of a"}
            errors = []
            cut = signature("read_file", READ)[:-1]  # one character short
            for extra in (None, {"google": {"thought_signature": cut}}):
                changed = json.loads(json.dumps(kept))
                changed["tool_calls"][0].pop("extra_content")
                if extra is not None:
                    changed["tool_calls"][0]["extra_content"] = extra
                with pytest.raises(InfraError) as caught:
                    await model.complete([*ASK, changed, result], [TOOL], CompletionParams())
                errors.append(str(caught.value))
            final = await model.complete([*ASK, kept, result], [TOOL], CompletionParams())
            assert final.text == ANSWER and final.extra_content == signed("text", ANSWER)
            return errors
        finally:
            await model.aclose()

    missing, corrupted = asyncio.run(main())
    # Gemini's error comes in a list of one: its message still reaches the user
    assert "HTTP 400: Error code: 400 - Function call is missing a thought_signature" in missing
    assert "HTTP 400: Error code: 400 - Corrupted thought signature." in corrupted
    assert server.rejected == 2 and len(server.requests) == 4  # a 400 is not retried
    sent = server.requests[-1]["body"]["messages"][1]["tool_calls"][0]
    assert sent["extra_content"] == {"google": {"thought_signature": signature("read_file", READ)}}


def test_a_signed_text_answer_goes_back_on_its_message(gemini):
    server = gemini([], answer="Hello.")

    async def main() -> None:
        model = create_model(spec(server), settings=FAST)
        try:
            done = await model.complete(ASK, [], CompletionParams())
            assert done.text == "Hello." and done.extra_content == signed("text", "Hello.")
            history = [*ASK, assistant_message(done), {"role": "user", "content": "and?"}]
            await model.complete(history, [], CompletionParams())
        finally:
            await model.aclose()

    asyncio.run(main())
    assert server.rejected == 0
    assert server.requests[1]["body"]["messages"][1] == {
        "role": "assistant", "content": "Hello.", "extra_content": signed("text", "Hello.")
    }  # fmt: skip


def test_a_server_that_never_sends_it_sees_the_same_bytes(gemini, tmp_path, write_file_task):
    """Nothing is sent that the server did not send: a plain server is never sent
    `extra_content`, and a history without any goes out byte for byte the same after
    the server has sent one."""
    plain = gemini([[("write_file", WRITE)]], signed=False)
    outcome = run_eval(
        [write_file_task], [spec(plain)], k=1, out=tmp_path / "out", handle_sigint=False
    )
    (line,) = outcome.results
    assert line.error is None and line.passed is True, line.error
    assert plain.rejected == 0 and len(plain.requests) == 2
    assert all(b"extra_content" not in r["raw"] for r in plain.requests)
    (assistant,) = [m for m in plain.requests[1]["body"]["messages"] if m["role"] == "assistant"]
    assert [sorted(c) for c in assistant["tool_calls"]] == [["function", "id", "type"]]

    history = [*ASK, {"role": "assistant", "content": None, "tool_calls": [
        {"id": "c1", "type": "function", "function": {"name": "read_file",
                                                       "arguments": json.dumps(READ)}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "text of a"},
        {"role": "user", "content": "and b.md?"}]  # fmt: skip
    server = gemini([[("read_file", READ)]])

    async def main() -> None:
        model = create_model(spec(server), settings=FAST)
        try:
            await model.complete(history, [TOOL], CompletionParams())  # before any signature
            done = await model.complete(ASK, [TOOL], CompletionParams())  # a signed call
            assert done.tool_calls[0].extra_content is not None
            await model.complete(history, [TOOL], CompletionParams())  # after
        finally:
            await model.aclose()

    asyncio.run(main())
    before, _, after = (r["raw"] for r in server.requests)
    assert before == after and b"extra_content" not in before


class JunkExtra(GeminiOpenAIServer):
    """Fault injection: a server whose `extra_content` is not a JSON object (and which,
    unsigned, answers 400 to any request holding one)."""

    def respond(self, path: str, raw: bytes, body: dict[str, Any]) -> tuple[int, Any]:
        status, answer = super().respond(path, raw, body)
        if status == 200:
            message = answer["choices"][0]["message"]
            message["extra_content"] = "junk"
            for call in message.get("tool_calls") or []:
                call["extra_content"] = ["junk"]
        return status, answer


def test_extra_content_that_is_not_an_object_is_not_kept(fast_retries):
    """Only a JSON object counts, kept as it came; anything else is as if absent, and the
    model does not start sending the history's `extra_content`."""
    with JunkExtra([[("read_file", READ)]], ANSWER, signed=False) as server:

        async def main() -> Any:
            model = create_model(spec(server), settings=FAST)
            try:
                done = await model.complete(ASK, [TOOL], CompletionParams())
                result = {"role": "tool", "tool_call_id": done.tool_calls[0].id, "content": "a"}
                kept = {**assistant_message(done), "extra_content": signed("text", "x")}
                final = await model.complete([*ASK, kept, result], [TOOL], CompletionParams())
                return done, final
            finally:
                await model.aclose()

        done, final = asyncio.run(main())
    assert done.extra_content is None and done.tool_calls[0].extra_content is None
    assert final.text == ANSWER and final.extra_content is None
    assert server.rejected == 0 and b"extra_content" not in server.requests[1]["raw"]
