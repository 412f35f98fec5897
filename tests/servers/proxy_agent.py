"""A command-line agent for tests: talks to OPENAI_BASE_URL (trialrun's recording proxy)
with the openai SDK, runs the read_file tool itself in the working directory, prints the
model's final answer. Usage: python proxy_agent.py PROMPT
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from openai import OpenAI

MODEL = os.environ.get("TRIALRUN_MODEL", "any")  # the run's model: the name the proxy serves
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "read_file",
            "description": "Read a file.",
            "parameters": {
                "type": "object",
                "properties": {"path": {"type": "string"}},
                "required": ["path"],
            },
        },
    }
]


def read_file(path: str) -> str:
    target = Path(path)
    if not target.is_file():
        return f"error: {path} not found"
    return target.read_text(encoding="utf-8")


def main() -> int:
    client = OpenAI()  # OPENAI_BASE_URL and OPENAI_API_KEY come from trialrun
    messages = [{"role": "user", "content": sys.argv[1]}]
    for _ in range(5):
        reply = client.chat.completions.create(model=MODEL, messages=messages, tools=TOOLS)
        message = reply.choices[0].message
        if not message.tool_calls:
            print(message.content or "")
            return 0
        messages.append(message.model_dump(exclude_none=True))
        for call in message.tool_calls:
            args = json.loads(call.function.arguments)
            result = read_file(**args)
            messages.append({"role": "tool", "tool_call_id": call.id, "content": result})
    print("gave up", file=sys.stderr)
    return 3


if __name__ == "__main__":
    sys.exit(main())
