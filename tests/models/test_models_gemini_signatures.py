"""Gemini's thought signatures: kept from an answer, carried in the agent's history,
put back unchanged on their parts, and never sent to a provider that did not make them.

The round trip is the agent loop's own: `from_gemini` (an answer) → `assistant_message`
(the history entry) → `to_gemini` (the next request's `contents`). The two-turn loop
against a loopback Gemini that answers 400 like Gemini 3 is in
test_models_lean_providers.py.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import FAST
from trialrun.models import CompletionParams, assistant_message, create_model
from trialrun.models.anthropic import to_anthropic
from trialrun.models.gemini import from_gemini, to_gemini

SIG_TEXT = "Ck4BjP5mJ0x+/text=="
SIG_CALL = "CiQBVKhc7h+3N/call/AAE="


def answer(*parts: dict[str, Any]) -> dict[str, Any]:
    """A generateContent answer with these parts."""
    content = {"role": "model", "parts": list(parts)}
    return {"candidates": [{"content": content, "finishReason": "STOP"}]}


def replayed(done: Any) -> list[dict[str, Any]]:
    """The model turn's parts in the next request, after the loop kept `done`."""
    history = [{"role": "user", "content": "read a and b"}, assistant_message(done)]
    history += [{"role": "tool", "tool_call_id": c.id, "name": c.name, "content": "x"}
                for c in done.tool_calls]  # fmt: skip
    _, contents = to_gemini(history)
    model = [c for c in contents if c["role"] == "model"]
    assert contents[0]["role"] == "user" and len(model) <= 1
    return model[0]["parts"] if model else []  # an empty answer adds no model turn


def call_part(path: str, signature: str | None = None) -> dict[str, Any]:
    part: dict[str, Any] = {"functionCall": {"name": "read_file", "args": {"path": path}}}
    if signature is not None:
        part["thoughtSignature"] = signature
    return part


def test_a_signed_text_part_and_parallel_calls_only_the_first_signed_round_trip():
    parts = [
        {"text": "planning…", "thought": True},  # a thought: skipped, as before
        {"text": "Reading both.", "thoughtSignature": SIG_TEXT},
        call_part("a.md", SIG_CALL),
        call_part("b.md"),
    ]
    done = from_gemini(answer(*parts))
    assert done.text == "Reading both."
    assert done.extra_content == {"google": {"thought_signature": SIG_TEXT}}
    assert [c.extra_content for c in done.tool_calls] == [
        {"google": {"thought_signature": SIG_CALL}}, None
    ]  # fmt: skip
    message = assistant_message(done)
    assert message["extra_content"] == {"google": {"thought_signature": SIG_TEXT}}
    assert "extra_content" not in message["tool_calls"][1]  # only what came
    assert replayed(done) == parts[1:]  # exactly the parts that came, thought left out
    # the history is plain JSON: a transcript written and read back replays the same
    again = json.loads(json.dumps(message))
    assert to_gemini([{"role": "user", "content": "q"}, again])[1][1]["parts"] == parts[1:3] + [
        call_part("b.md")
    ]


def test_text_in_several_parts_keeps_each_signature_on_its_own_part():
    parts = [{"text": "Hel"}, {"text": "lo", "thoughtSignature": SIG_TEXT},
             {"text": "", "thoughtSignature": "CgAB"}]  # fmt: skip
    done = from_gemini(answer(*parts))
    assert done.text == "Hello" and done.tool_calls == []
    assert replayed(done) == parts  # never merged into one part, the empty signed one kept
    # a history whose text was changed since cannot claim the parts: one plain text part
    message = {**assistant_message(done), "content": "Hi"}
    assert to_gemini([message])[1] == [{"role": "model", "parts": [{"text": "Hi"}]}]


def test_an_empty_signed_text_part_beside_a_call_is_kept():
    done = from_gemini(answer(call_part("a.md", SIG_CALL), {"text": "", "thoughtSignature": "E"}))
    assert done.text is None  # no text for the agent, as before
    assert done.extra_content == {"google": {"thought_signature": "E"}}
    # text parts go first, as this provider always sent them; each signature on its part
    assert replayed(done) == [{"text": "", "thoughtSignature": "E"}, call_part("a.md", SIG_CALL)]


def test_answers_without_signatures_are_unchanged():
    done = from_gemini(answer({"text": "ok"}, call_part("a.md")))
    assert done.extra_content is None and done.tool_calls[0].extra_content is None
    message = assistant_message(done)
    assert "extra_content" not in message and "extra_content" not in message["tool_calls"][0]
    assert replayed(done) == [{"text": "ok"}, call_part("a.md")]
    for bad in (None, "", 7, {"x": 1}):  # not a signature: nothing sent
        assert from_gemini(answer({"text": "ok", "thoughtSignature": bad})).extra_content is None


texts = st.lists(st.tuples(st.text(max_size=8), st.none() | st.text(min_size=1)), max_size=4)
calls = st.lists(
    st.tuples(st.sampled_from(["read_file", "write_file"]),
              st.dictionaries(st.text(max_size=4), st.integers() | st.text(max_size=4),
                              max_size=2),
              st.none() | st.text(min_size=1)),
    max_size=4,
)  # fmt: skip


@settings(max_examples=200, deadline=None)
@given(texts, calls)
def test_every_signature_goes_back_unchanged_on_the_part_it_came_on(texts, calls):
    text_parts = [{"text": t, **({"thoughtSignature": s} if s else {})} for t, s in texts]
    call_parts = [{"functionCall": {"name": n, "args": a}, **({"thoughtSignature": s} if s else {})}
                  for n, a, s in calls]  # fmt: skip
    done = from_gemini(json.loads(json.dumps(answer(*text_parts, *call_parts))))
    sent = replayed(done)
    assert [p for p in sent if "functionCall" in p] == call_parts
    sent_texts = [p for p in sent if "functionCall" not in p]
    kept = [p for p in text_parts if p["text"] or "thoughtSignature" in p]
    if any("thoughtSignature" in p for p in text_parts):
        assert sent_texts == kept
    else:  # no signature: the joined text as one part, as before
        joined = "".join(p["text"] for p in text_parts)
        assert sent_texts == ([{"text": joined}] if joined else [])


SIGNED_HISTORY = [
    {"role": "user", "content": "read a"},
    {"role": "assistant", "content": "Reading.",
     "extra_content": {"google": {"thought_signature": SIG_TEXT}},
     "tool_calls": [{"id": "c1", "type": "function",
                     "function": {"name": "read_file", "arguments": '{"path": "a.md"}'},
                     "extra_content": {"google": {"thought_signature": SIG_CALL}}}]},
    {"role": "tool", "tool_call_id": "c1", "name": "read_file", "content": "A"},
]  # fmt: skip


def test_other_providers_never_send_the_signatures(fault_server, fast_retries):
    """openai-compat over a real loopback server that never sent `extra_content`: the
    body holds none, though the history does (Gemini's OpenAI-compatible endpoint, which
    sends it, gets it back: test_models_gemini_openai_compat.py)."""
    fault_server.script(["ok"])

    async def main() -> None:
        model = create_model(f"openai-compat:test-model@{fault_server.url}", settings=FAST)
        try:
            await model.complete(SIGNED_HISTORY, [], CompletionParams())
        finally:
            await model.aclose()

    asyncio.run(main())
    (request,) = fault_server.requests
    sent = json.dumps(request["body"])
    assert "extra_content" not in sent and SIG_CALL not in sent and SIG_TEXT not in sent
    assert request["body"]["messages"][1]["tool_calls"][0]["function"]["name"] == "read_file"
    translated = json.dumps(to_anthropic(SIGNED_HISTORY))
    assert SIG_CALL not in translated and SIG_TEXT not in translated
