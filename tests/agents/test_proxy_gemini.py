"""Gemini through the recording proxy, talked to with plain httpx as gemini-cli talks:
`models/M:generateContent`, `:streamGenerateContent?alt=sse`, `:countTokens`."""

from __future__ import annotations

import json
from typing import Any

import httpx
from hypothesis import given, settings
from hypothesis import strategies as st
from wire_support import WRITE, behind_proxy, sse_events, write_then_answer

from trialrun.agents.command import run_from_traffic
from trialrun.agents.wire import WireRequest, wire_api
from trialrun.models import Completion, ToolCall, Usage
from trialrun.models.gemini import from_gemini, to_gemini

GEMINI = wire_api("gemini")
HEADERS = {"x-goog-api-key": "trialrun"}
TOOLS = [
    {
        "functionDeclarations": [
            {
                "name": "write_file",
                "description": "Write a file.",
                "parametersJsonSchema": {
                    "type": "object",
                    "properties": {"path": {"type": "string"}},
                },
            }
        ]
    }
]
BASE = "/v1beta/models/gemini-2.5-pro"


async def _round_trip(proxy: Any, stream: bool) -> list[dict[str, Any]]:
    """gemini-cli's loop: ask, run the functionCall, send its functionResponse, ask again."""
    contents: list[dict[str, Any]] = [{"role": "user", "parts": [{"text": "Do it"}]}]
    answers = []
    async with httpx.AsyncClient(base_url=proxy.root_url, headers=HEADERS) as http:
        for _ in range(2):
            body = {
                "contents": contents,
                "tools": TOOLS,
                "systemInstruction": {"parts": [{"text": "Be brief."}]},
            }
            if stream:
                answer = await http.post(f"{BASE}:streamGenerateContent?alt=sse", json=body)
                assert answer.headers["content-type"] == "text/event-stream"
                chunks = [data for _, data in sse_events(answer.text)]
                assert len(chunks) == 1
                reply = chunks[0]
            else:
                reply = (await http.post(f"{BASE}:generateContent", json=body)).json()
            answers.append(reply)
            content = reply["candidates"][0]["content"]
            contents.append(content)
            calls = [p["functionCall"] for p in content["parts"] if "functionCall" in p]
            if calls:
                contents.append(
                    {
                        "role": "user",
                        "parts": [
                            {
                                "functionResponse": {
                                    "id": c["id"],
                                    "name": c["name"],
                                    "response": {"output": "written"},
                                }
                            }
                            for c in calls
                        ],
                    }
                )
    return answers


def _check(answers: list[dict[str, Any]], proxy: Any) -> None:
    first, second = (a["candidates"][0] for a in answers)
    assert first["content"] == {
        "role": "model",
        "parts": [
            {"functionCall": {"id": "call_0_0", "name": "write_file", "args": WRITE["arguments"]}}
        ],
    }
    assert first["finishReason"] == "STOP"
    assert answers[0]["usageMetadata"]["promptTokenCount"] == 30
    assert second["content"]["parts"] == [{"text": "Wrote todo.md."}]
    assert answers[1]["modelVersion"] == "gemini-2.5-pro"
    exchanges = proxy.log.exchanges
    assert [e.api for e in exchanges] == ["gemini", "gemini"]
    assert exchanges[0].messages[0] == {"role": "system", "content": "Be brief."}
    assert exchanges[0].tools[0]["function"]["parameters"]["properties"] == {
        "path": {"type": "string"}
    }
    run = run_from_traffic(proxy.log, "Wrote todo.md.", "Do it")
    assert [(c.name, c.arguments, c.result, c.ok) for c in run.tool_calls] == [
        ("write_file", WRITE["arguments"], "written", True)
    ]
    assert run.turns == 2


def test_function_call_round_trip_without_streaming(tmp_path):
    answers, proxy = behind_proxy(tmp_path, write_then_answer(), lambda p: _round_trip(p, False))
    _check(answers, proxy)


def test_function_call_round_trip_streamed_as_sse(tmp_path):
    answers, proxy = behind_proxy(tmp_path, write_then_answer(), lambda p: _round_trip(p, True))
    _check(answers, proxy)


def test_stream_without_alt_sse_is_a_json_array_and_errors_are_gemini_shaped(tmp_path):
    async def calls(proxy):
        async with httpx.AsyncClient(base_url=proxy.root_url, headers=HEADERS) as http:
            body = {"contents": [{"role": "user", "parts": [{"text": "hi"}]}]}
            return (
                await http.post(f"{BASE}:streamGenerateContent", json=body),
                await http.post(f"{BASE}:countTokens", json=body),
                await http.get("/v1beta/models"),
                await http.post(f"{BASE}:embedContent", json=body),
                await http.post(f"{BASE}:generateContent", json={"contents": [{"parts": "x"}]}),
            )

    (array, count, models, unknown, bad), proxy = behind_proxy(
        tmp_path, [{"content": "hello"}], calls
    )
    assert array.json()[0]["candidates"][0]["content"]["parts"] == [{"text": "hello"}]
    assert count.json()["totalTokens"] > 0
    assert models.json()["models"][0]["name"] == "models/scripted:" + proxy.model.model_id
    assert unknown.status_code == 404
    assert (
        unknown.json()["error"]["status"] == "NOT_FOUND" and unknown.json()["error"]["code"] == 404
    )
    assert ":embedContent" in unknown.json()["error"]["message"]
    assert ":generateContent" in unknown.json()["error"]["message"]
    assert bad.status_code == 400 and bad.json()["error"]["status"] == "INVALID_ARGUMENT"
    assert "contents[0].parts" in bad.json()["error"]["message"]
    assert len(proxy.log.exchanges) == 1


def test_an_error_response_is_a_failed_call_and_ids_pair_by_name_when_absent(tmp_path):
    async def failing(proxy):
        async with httpx.AsyncClient(base_url=proxy.root_url, headers=HEADERS) as http:
            contents = [{"role": "user", "parts": [{"text": "Do it"}]}]
            first = (await http.post(f"{BASE}:generateContent", json={"contents": contents})).json()
            call = first["candidates"][0]["content"]["parts"][0]["functionCall"]
            del call["id"]  # a client that drops the id: paired by name
            contents += [
                first["candidates"][0]["content"],
                {
                    "role": "user",
                    "parts": [
                        {
                            "functionResponse": {
                                "name": "write_file",
                                "response": {"error": "denied"},
                            }
                        }
                    ],
                },
            ]
            await http.post(f"{BASE}:generateContent", json={"contents": contents})

    _, proxy = behind_proxy(tmp_path, write_then_answer(), failing)
    run = run_from_traffic(proxy.log, "", "Do it")
    assert [(c.name, c.result, c.ok) for c in run.tool_calls] == [("write_file", "denied", False)]


def test_thought_signatures_pass_through_unchanged():
    text_sig, call_sig = "c2lnLXRleHQ=", "c2lnLWNhbGw="
    body = {
        "contents": [
            {"role": "user", "parts": [{"text": "Do it"}]},
            {
                "role": "model",
                "parts": [
                    {"text": "ok", "thoughtSignature": text_sig},
                    {"functionCall": {"name": "f", "args": {}}, "thoughtSignature": call_sig},
                ],
            },
            {
                "role": "user",
                "parts": [{"functionResponse": {"name": "f", "response": {"output": "1"}}}],
            },
        ]
    }
    assistant = GEMINI.parse(body).messages[1]
    assert assistant["extra_content"] == {"google": {"thought_signature": text_sig}}
    assert assistant["tool_calls"][0]["extra_content"] == {
        "google": {"thought_signature": call_sig}
    }
    completion = Completion(
        "ok",
        [ToolCall("c1", "f", {}, None, "{}", {"google": {"thought_signature": call_sig}})],
        extra_content={"google": {"thought_signature": text_sig}},
    )
    parts = GEMINI.reply(completion, WireRequest([], model="g"))["candidates"][0]["content"][
        "parts"
    ]
    assert parts == [
        {"text": "ok", "thoughtSignature": text_sig},
        {"functionCall": {"id": "c1", "name": "f", "args": {}}, "thoughtSignature": call_sig},
    ]


# -- translation round trips, against trialrun's own Gemini client ---------------------------

_text = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), min_size=1, max_size=20)
_name = st.from_regex(r"[a-z_]{1,10}", fullmatch=True)
_args = st.dictionaries(_name, st.one_of(_text, st.integers(), st.booleans()), max_size=3)
_signature = st.one_of(st.none(), st.from_regex(r"[A-Za-z0-9+/]{4,16}=", fullmatch=True))


def _google(signature: str | None) -> dict[str, Any]:
    return {"extra_content": {"google": {"thought_signature": signature}}} if signature else {}


@st.composite
def _conversations(draw: Any) -> list[dict[str, Any]]:
    """Valid trialrun conversations alternating user and model turns, with signatures."""
    messages: list[dict[str, Any]] = []
    if draw(st.booleans()):
        messages.append({"role": "system", "content": draw(_text)})
    messages.append({"role": "user", "content": draw(_text)})
    for turn in range(draw(st.integers(0, 3))):
        calls = []
        for i in range(draw(st.integers(1, 2))):
            arguments = json.dumps(draw(_args))
            calls.append(
                {
                    "id": f"c{turn}_{i}",
                    "type": "function",
                    "function": {"name": draw(_name), "arguments": arguments},
                    **_google(draw(_signature)),
                }
            )
        text = draw(st.one_of(st.none(), _text))
        signature = draw(_signature) if text else None
        messages.append(
            {"role": "assistant", "content": text, **_google(signature), "tool_calls": calls}
        )
        messages += [
            {
                "role": "tool",
                "tool_call_id": c["id"],
                "name": c["function"]["name"],
                "content": draw(_text),
            }
            for c in calls
        ]
        if draw(st.booleans()):
            messages.append({"role": "user", "content": draw(_text)})
    return messages


def _comparable(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Messages with call ids replaced by the call's place (trialrun's Gemini client sends
    none, so the proxy makes its own) and arguments parsed."""
    ids: dict[str, str] = {}
    out = []
    for message in messages:
        message = dict(message)
        if message.get("tool_calls"):
            calls = []
            for call in message["tool_calls"]:
                ids[call["id"]] = f"#{len(ids)}"
                function = {
                    **call["function"],
                    "arguments": json.loads(call["function"]["arguments"]),
                }
                calls.append({**call, "id": ids[call["id"]], "function": function})
            message["tool_calls"] = calls
        if message["role"] == "tool":
            message["tool_call_id"] = ids[message["tool_call_id"]]
        out.append(message)
    return out


@settings(max_examples=60, deadline=None)
@given(_conversations())
def test_any_conversation_survives_the_gemini_request_translation(messages):
    system, contents = to_gemini(messages)
    body: dict[str, Any] = {"contents": contents}
    if system:
        body["systemInstruction"] = {"parts": [{"text": system}]}
    assert _comparable(GEMINI.parse(body).messages) == _comparable(messages)


@settings(max_examples=60, deadline=None)
@given(
    st.one_of(st.none(), _text),
    st.lists(st.tuples(_name, _args, _signature), max_size=3),
    _signature,
    st.booleans(),
)
def test_any_completion_survives_the_gemini_answer(text, calls, text_signature, stream):
    google = {"google": {"thought_signature": text_signature}} if text and text_signature else None
    completion = Completion(
        text,
        [
            ToolCall(f"c{i}", n, a, None, json.dumps(a), _google(s).get("extra_content"))
            for i, (n, a, s) in enumerate(calls)
        ],
        Usage(9, 3, 5),
        extra_content=google,
    )
    request = WireRequest(messages=[], model="g")
    answer = (
        GEMINI.events(completion, request)[0][1] if stream else GEMINI.reply(completion, request)
    )
    back = from_gemini(answer)
    assert back.text == text and back.extra_content == google
    assert [(c.id, c.name, c.arguments, c.extra_content) for c in back.tool_calls] == [
        (f"c{i}", n, a, _google(s).get("extra_content")) for i, (n, a, s) in enumerate(calls)
    ]
    assert (back.usage.prompt, back.usage.cached, back.usage.completion) == (9, 3, 5)
