"""OpenAI Chat Completions through the recording proxy (the API it always spoke), with
the real `openai` SDK, streamed and not."""

from __future__ import annotations

import json
from typing import Any

import openai
import pytest
from wire_support import WRITE, behind_proxy, write_then_answer

from trialrun.agents.command import run_from_traffic

TOOLS = [{"type": "function", "function": {"name": "write_file", "parameters": {"type": "object"}}}]


async def _round_trip(proxy: Any, stream: bool) -> list[Any]:
    client = openai.AsyncOpenAI(base_url=proxy.url, api_key="trialrun", max_retries=0)
    messages: list[Any] = [{"role": "user", "content": "Do it"}]
    answers = []
    for _ in range(2):
        if stream:
            chunks = [
                c
                async for c in await client.chat.completions.create(
                    model="m", messages=messages, tools=TOOLS, stream=True
                )
            ]
            delta = chunks[0].choices[0].delta
            message = {"role": "assistant", "content": delta.content}
            if delta.tool_calls:
                message["tool_calls"] = [
                    {
                        "id": c.id,
                        "type": "function",
                        "function": {"name": c.function.name, "arguments": c.function.arguments},
                    }
                    for c in delta.tool_calls
                ]
            answers.append((message, chunks[-1].choices[0].finish_reason))
        else:
            reply = await client.chat.completions.create(model="m", messages=messages, tools=TOOLS)
            message = reply.choices[0].message.model_dump(exclude_none=True)
            answers.append((message, reply.choices[0].finish_reason))
        messages.append(message)
        for call in message.get("tool_calls", []):
            messages.append({"role": "tool", "tool_call_id": call["id"], "content": "written"})
    await client.close()
    return answers


@pytest.mark.parametrize("stream", [False, True])
def test_tool_call_round_trip(tmp_path, stream):
    answers, proxy = behind_proxy(tmp_path, write_then_answer(), lambda p: _round_trip(p, stream))
    (first, why), (second, end) = answers
    call = first["tool_calls"][0]
    assert (call["function"]["name"], json.loads(call["function"]["arguments"])) == (
        "write_file",
        WRITE["arguments"],
    )
    assert (why, second["content"], end) == ("tool_calls", "Wrote todo.md.", "stop")
    assert [e.api for e in proxy.log.exchanges] == ["chat", "chat"]
    run = run_from_traffic(proxy.log, "Wrote todo.md.", "Do it")
    assert [(c.name, c.result, c.ok) for c in run.tool_calls] == [("write_file", "written", True)]
