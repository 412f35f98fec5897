"""What every wire API shares: a failing model answers in the API's own error shape (also
for a streamed request, so no client waits on a stream that never ends), chunked request
bodies are read, and a request no API serves is told what is served."""

from __future__ import annotations

import dataclasses

import httpx
import pytest
from wire_support import behind_proxy

# (API, path, body, where its error message is)
REQUESTS = {
    "chat": (
        "/v1/chat/completions",
        {"messages": [{"role": "user", "content": "hi"}]},
        ("error", "message"),
    ),
    "responses": ("/v1/responses", {"input": "hi"}, ("error", "message")),
    "anthropic": (
        "/v1/messages?beta=true",
        {"messages": [{"role": "user", "content": "hi"}], "max_tokens": 5},
        ("error", "message"),
    ),
    "gemini": (
        "/v1beta/models/g:streamGenerateContent?alt=sse",
        {"contents": [{"role": "user", "parts": [{"text": "hi"}]}]},
        ("error", "message"),
    ),
}


@pytest.mark.parametrize("api", sorted(REQUESTS))
@pytest.mark.parametrize("failure, status", [("infra", 502), ("timeout", 504)])
def test_a_failing_model_is_an_api_shaped_error_even_when_streaming(tmp_path, api, failure, status):
    path, body, (outer, inner) = REQUESTS[api]

    async def ask(proxy):
        async with httpx.AsyncClient(base_url=proxy.root_url) as http:
            return await http.post(path, json={**body, "stream": True, "model": "m"})

    answer, proxy = behind_proxy(tmp_path, [{"error": failure}], ask)
    assert answer.status_code == status
    assert answer.headers["content-type"] == "application/json"
    assert (
        f"scripted {'infra error' if failure == 'infra' else 'model timeout'}"
        in (answer.json()[outer][inner])
    )
    if api == "anthropic":
        assert answer.json()["type"] == "error"
    if api == "gemini":
        assert answer.json()["error"]["code"] == status
    (exchange,) = proxy.log.exchanges
    assert exchange.api == api and exchange.reply is None and exchange.error
    assert (proxy.log.infra_error is not None) == (failure == "infra")


def test_a_chunked_request_body_is_read(tmp_path):
    async def ask(proxy):
        chunks = [b'{"contents": [{"role": "user", ', b'"parts": [{"text": "hi"}]}]}']

        async def body():
            for chunk in chunks:
                yield chunk

        async with httpx.AsyncClient(base_url=proxy.root_url) as http:
            return await http.post("/v1beta/models/g:generateContent", content=body())

    answer, proxy = behind_proxy(tmp_path, [{"content": "hello"}], ask)
    assert answer.json()["candidates"][0]["content"]["parts"] == [{"text": "hello"}]
    assert proxy.log.exchanges[0].messages == [{"role": "user", "content": "hi"}]


@pytest.mark.parametrize(
    "path, headers, shape",
    [
        ("/v1/audio/speech", {}, lambda e: e["error"]["type"] == "not_found_error"),
        (
            "/v1/messages/batches",
            {"anthropic-version": "2023-06-01"},
            lambda e: e["type"] == "error" and e["error"]["type"] == "not_found_error",
        ),
        ("/v1beta/cachedContents", {}, lambda e: e["error"]["status"] == "NOT_FOUND"),
    ],
)
def test_an_unknown_endpoint_is_told_what_is_served_in_its_apis_shape(
    tmp_path, path, headers, shape
):
    async def ask(proxy):
        async with httpx.AsyncClient(base_url=proxy.root_url, headers=headers) as http:
            return await http.post(path, json={})

    answer, proxy = behind_proxy(tmp_path, [{"content": "x"}], ask)
    assert answer.status_code == 404 and shape(answer.json())
    text = answer.text
    for served in ("/v1/chat/completions", "/v1/responses", "/v1/messages", ":generateContent"):
        assert served in text
    assert proxy.log.exchanges == []


def test_a_proxy_failure_is_infra_and_answered_at_once(tmp_path, monkeypatch):
    """Fault injection: the Anthropic answer cannot be rendered."""
    from trialrun.agents import _proxy
    from trialrun.agents.wire import wire_api

    def broken(completion, request):
        raise RuntimeError("cannot render")

    anthropic = dataclasses.replace(wire_api("anthropic"), reply=broken)
    real = _proxy.resolve
    monkeypatch.setattr(_proxy, "resolve", lambda t: (anthropic, real(t)[1]))
    path, body, _ = REQUESTS["anthropic"]

    async def ask(proxy):
        async with httpx.AsyncClient(base_url=proxy.root_url) as http:
            return await http.post(path, json=body)

    answer, proxy = behind_proxy(tmp_path, [{"content": "x"}], ask)
    assert answer.status_code == 500 and answer.json()["error"]["type"] == "api_error"
    assert "RuntimeError: cannot render" in proxy.log.infra_error
