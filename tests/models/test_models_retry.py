"""Retries, backoff and accounting against a real loopback server that misbehaves."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conftest import FAST
from trialrun.config import ProjectConfig
from trialrun.errors import InfraError, UserError
from trialrun.models import CompletionParams, ProviderSettings, create_model
from trialrun.models._retry import RetryPolicy, classify, with_retries

MESSAGES = [{"role": "user", "content": "hi"}]
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "read_file",
            "description": "Read a file.",
            "parameters": {"type": "object", "properties": {"path": {"type": "string"}}},
        },
    }
]


def complete(model, timeout_s=None, tools=()):
    return asyncio.run(model.complete(MESSAGES, list(tools), CompletionParams(timeout_s=timeout_s)))


def compat(server):
    return create_model(f"openai-compat:test-model@{server.url}", settings=FAST)


def test_429_and_500_are_retried_then_tokens_and_cost_are_accounted(fault_server, fast_retries):
    fault_server.script(["429", "500", "ok"])
    model = compat(fault_server)
    completion = complete(model)
    assert completion.text == "hello from the test server"
    assert len(fault_server.requests) == 3
    assert (model.stats.attempts, model.stats.retries, model.stats.failures) == (3, 2, 0)
    assert completion.usage.as_dict() == {"prompt": 100, "cached": 40, "completion": 20}
    # 60 fresh × $1 + 40 cached × $0.5 + 20 out × $2, per million tokens
    assert completion.cost_usd == pytest.approx((60 * 1.0 + 40 * 0.5 + 20 * 2.0) / 1e6)


def test_persistent_5xx_is_an_infra_error_after_max_attempts(fault_server, fast_retries):
    fault_server.script(["500", "503", "500", "ok"])
    model = compat(fault_server)
    with pytest.raises(InfraError, match=r"HTTP 500.*after 3 attempt\(s\)"):
        complete(model)
    assert len(fault_server.requests) == 3
    assert model.stats.failures == 1


@pytest.mark.parametrize("fault", ["garbage", "drop", "slow:1.5"])
def test_garbage_dropped_and_slow_replies_are_retried(fault_server, fast_retries, fault):
    fault_server.script([fault, "ok"])
    model = compat(fault_server)
    completion = complete(model, timeout_s=0.5)
    assert completion.text == "hello from the test server"
    assert len(fault_server.requests) == 2
    assert model.stats.retries == 1


def test_slow_every_time_ends_as_infra_error(fault_server, fast_retries):
    fault_server.script(["slow:2", "slow:2", "slow:2"])
    with pytest.raises(InfraError, match="after 3 attempt"):
        complete(compat(fault_server), timeout_s=0.3)
    assert len(fault_server.requests) == 3


def test_401_fails_at_once_with_a_fix_and_no_key(fault_server, fast_retries, monkeypatch):
    secret = "sk-test-0123456789abcdefSECRET"
    monkeypatch.setenv("TRIALRUN_API_KEY", secret)
    fault_server.script(["401"])
    model = compat(fault_server)
    with pytest.raises(InfraError) as info:
        complete(model)
    message = str(info.value)
    assert len(fault_server.requests) == 1  # not retried
    assert fault_server.requests[0]["headers"]["authorization"] == f"Bearer {secret}"
    assert "HTTP 401" in message and "check TRIALRUN_API_KEY" in message
    assert secret not in message and "SECRET" not in message
    assert secret not in repr(model)


def test_malformed_tool_arguments_are_the_agents_mistake_not_a_retry(fault_server, fast_retries):
    fault_server.script(["badargs"])
    completion = complete(compat(fault_server), tools=TOOLS)
    assert len(fault_server.requests) == 1
    (call,) = completion.tool_calls
    assert call.name == "read_file" and call.arguments == {}
    assert "not valid JSON" in call.arguments_error
    assert call.raw_arguments == '{"path": "notes/a.md"'


def test_tool_calls_and_native_tools_reach_the_server(fault_server, fast_retries):
    fault_server.script(["tool"])
    completion = complete(compat(fault_server), tools=TOOLS)
    (call,) = completion.tool_calls
    assert (call.name, call.arguments, call.arguments_error) == (
        "read_file",
        {"path": "notes/a.md"},
        None,
    )
    body = fault_server.requests[0]["body"]
    assert body["tools"] == TOOLS and body["model"] == "test-model"
    assert body["temperature"] == 0.0


def test_unknown_price_is_none_not_zero(fault_server, monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    fault_server.script(["ok"])
    # no settings: the built-in prices, which do not know this model
    completion = complete(create_model(f"openai-compat:test-model@{fault_server.url}"))
    assert completion.cost_usd is None
    assert completion.usage.prompt == 100


def test_a_model_made_without_settings_reads_no_trialrun_toml(fault_server, fast_retries):
    """A direct library caller gets the defaults, not the working directory's file."""
    (fast_retries / "trialrun.toml").write_text(
        "[retries]\nmax_attempts = 1\n[limits]\nmax_body_mb = 0.0001\n"
        '[pricing."openai-compat:test-model"]\ninput_per_mtok = 1.0\noutput_per_mtok = 1.0\n'
    )
    model = create_model(f"openai-compat:test-model@{fault_server.url}")
    assert model.retry_policy == RetryPolicy()
    fault_server.script(["ok"])
    completion = complete(model)  # a ~400-byte answer: over the file's limit, not 32 MiB
    assert completion.text == "hello from the test server" and completion.cost_usd is None
    given = create_model(f"openai-compat:test-model@{fault_server.url}", settings=FAST)
    assert given.retry_policy == RetryPolicy(3, 0.001, 0.01)


def test_retry_settings_from_toml_env_and_options(fast_retries, monkeypatch):
    project = ProjectConfig(
        Path("/p/trialrun.toml"),
        {"retries": {"max_attempts": 3, "base_delay_s": 0.001, "max_delay_s": 0.01}},
    )
    assert RetryPolicy.load(config=project) == RetryPolicy(3, 0.001, 0.01)
    assert RetryPolicy.load() == RetryPolicy()  # no config: no file looked for
    monkeypatch.setenv("TRIALRUN_RETRY_MAX_ATTEMPTS", "7")
    assert RetryPolicy.load(config=project).max_attempts == 7
    assert RetryPolicy.load({"max_attempts": 2}, project).max_attempts == 2
    assert FAST.retry_policy({"retries": {"max_attempts": 2}}).max_attempts == 2
    assert FAST.retry_policy({"timeout_s": 5}).request_timeout_s == 5.0
    with pytest.raises(UserError, match="unknown key 'tries'"):
        RetryPolicy.load({"tries": 2})
    bad = ProjectConfig(Path("/p/trialrun.toml"), {"retries": {"max_attempts": "x"}})
    monkeypatch.delenv("TRIALRUN_RETRY_MAX_ATTEMPTS")
    with pytest.raises(UserError, match=r"trialrun.toml: \[retries\]: max_attempts"):
        ProviderSettings.from_config(bad)


@given(
    base=st.floats(0.0, 5.0),
    cap=st.floats(0.0, 60.0),
    attempt=st.integers(0, 30),
    seed=st.integers(0, 2**32),
)
def test_full_jitter_delay_stays_within_the_exponential_cap(base, cap, attempt, seed):
    policy = RetryPolicy(max_attempts=5, base_delay_s=base, max_delay_s=cap)
    delay = policy.delay(attempt, random.Random(seed))
    assert 0.0 <= delay <= min(cap, base * 2**attempt)


def test_with_retries_sleeps_between_attempts_only():
    sleeps: list[float] = []
    calls = {"n": 0}

    async def flaky():
        calls["n"] += 1
        if calls["n"] < 3:
            raise ConnectionError("reset by peer")
        return "ok"

    async def fake_sleep(seconds: float) -> None:
        sleeps.append(seconds)

    policy = RetryPolicy(max_attempts=5, base_delay_s=1.0, max_delay_s=4.0)
    result = asyncio.run(with_retries(flaky, policy=policy, what="x", sleep=fake_sleep))
    assert result == "ok" and calls["n"] == 3 and len(sleeps) == 2
    assert 0 <= sleeps[0] <= 1.0 and 0 <= sleeps[1] <= 2.0


def test_classify_statuses_and_transport_errors():
    class Status(Exception):
        def __init__(self, code: int) -> None:
            self.status_code = code

    assert classify(Status(429)) == "retry"
    assert classify(Status(502)) == "retry"
    assert classify(Status(400)) == "fatal"
    assert classify(Status(404)) == "fatal"
    assert classify(TimeoutError()) == "retry"
    assert classify(ConnectionResetError()) == "retry"
    assert classify(ValueError("bug")) == "fatal"
