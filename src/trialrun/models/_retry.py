"""Retries for provider calls: exponential backoff with full jitter.

Retried: HTTP 429, 408, 409, 5xx, timeouts, connection errors and unreadable or malformed
responses (garbage JSON, `message: null`). Any other 4xx (bad key, unknown model) and an
answer over `[limits] max_body_mb` fail at once. Either way the caller gets
`trialrun.errors.InfraError` with a redacted one-line message: the trial's attempt is an
infrastructure error (the runner runs the trial again, `[retries] infra_trials`; the last
one counts as a failed pass, left out of the solve figures).

Each attempt has its own time limit, `request_timeout(task_timeout_s)`: `request_timeout_s`
(120 s), never more than the task's whole `timeout_s` (an answer later than that could not
have fitted the budget anyway). An attempt without an answer by then is retried like a
dropped connection, so a provider that hangs ends as an infra error, not as a failed trial.

Settings, later ones winning: defaults, `[retries]` in trialrun.toml (`max_attempts`,
`base_delay_s`, `max_delay_s`, `request_timeout_s`), env `TRIALRUN_RETRY_MAX_ATTEMPTS`,
`TRIALRUN_RETRY_BASE_DELAY_S`, `TRIALRUN_RETRY_MAX_DELAY_S`,
`TRIALRUN_RETRY_REQUEST_TIMEOUT_S`, then a provider's `options["retries"]` mapping.
The file's part comes from the entry point that loaded trialrun.toml
(`RetryPolicy.from_config(project)`, carried in `ProviderSettings`); nothing here looks
for the file, so a provider made without settings starts from the defaults.
`[retries] infra_trials` (re-running a whole trial that ended in an infra error) is the
runner's, not a request setting: read there, passed over here.
"""

from __future__ import annotations

import asyncio
import json
import math
import os
import random
import time
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, replace
from typing import Any, Literal, TypeVar

from trialrun.config import ProjectConfig
from trialrun.core import redact
from trialrun.errors import InfraError, ModelTimeout, UserError
from trialrun.models._body import ResponseTooLarge

T = TypeVar("T")
Decision = Literal["retry", "fatal"]

_RETRY_STATUS = {408, 409, 429}
_ENV = {
    "max_attempts": "TRIALRUN_RETRY_MAX_ATTEMPTS",
    "base_delay_s": "TRIALRUN_RETRY_BASE_DELAY_S",
    "max_delay_s": "TRIALRUN_RETRY_MAX_DELAY_S",
    "request_timeout_s": "TRIALRUN_RETRY_REQUEST_TIMEOUT_S",
}
DEFAULT_REQUEST_TIMEOUT_S = 120.0
TRIAL_KEYS = ("infra_trials",)  # [retries] keys the runner reads (trialrun.runner)
MAX_SECONDS = 86_400.0  # every delay and time limit: finite, at most a day


class InvalidResponse(Exception):
    """The provider answered with something that is not a completion (garbage JSON)."""


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    max_attempts: int = 4
    base_delay_s: float = 0.5
    max_delay_s: float = 20.0
    request_timeout_s: float = DEFAULT_REQUEST_TIMEOUT_S

    def request_timeout(self, task_timeout_s: float | None = None) -> float:
        """One attempt's time limit: `request_timeout_s`, at most the task's `timeout_s`."""
        if task_timeout_s:
            return min(self.request_timeout_s, task_timeout_s)
        return self.request_timeout_s

    def delay(self, attempt: int, rng: random.Random | None = None) -> float:
        """Full jitter (AWS): uniform(0, min(max_delay, base * 2**attempt)), attempt from 0."""
        cap = min(self.max_delay_s, self.base_delay_s * (2**attempt))
        return (rng or random).uniform(0.0, cap)

    @classmethod
    def from_config(cls, config: ProjectConfig) -> RetryPolicy:
        """Defaults ← `config`'s [retries] (its request keys; UserError naming the key)."""
        where = f"{config.path}: [retries]" if config.path else "[retries]"
        requests = {k: v for k, v in config.section("retries").items() if k not in TRIAL_KEYS}
        return cls()._merge(where, requests)

    def overridden(self, overrides: dict[str, Any] | None = None) -> RetryPolicy:
        """This policy ← environment (`TRIALRUN_RETRY_*`) ← `overrides` (a provider's
        `options["retries"]`): what one provider uses, made when it is made."""
        env = {key: os.environ[var] for key, var in _ENV.items() if os.environ.get(var)}
        return self._merge("environment", env)._merge("options", dict(overrides or {}))

    @classmethod
    def load(
        cls, overrides: dict[str, Any] | None = None, config: ProjectConfig | None = None
    ) -> RetryPolicy:
        """Defaults ← `config`'s [retries] ← environment ← `overrides`; `config` None: no
        file is looked for (the entry point that has one passes it)."""
        base = cls.from_config(config) if config is not None else cls()
        return base.overridden(overrides)

    def _merge(self, where: str, values: dict[str, Any]) -> RetryPolicy:
        changes: dict[str, Any] = {}
        for key, raw in values.items():
            if key not in _ENV:
                raise UserError(
                    f"{where}: unknown key '{key}'; allowed: max_attempts, base_delay_s, "
                    "max_delay_s, request_timeout_s"
                    + (", infra_trials" if where.endswith("[retries]") else "")
                )
            try:
                if isinstance(raw, bool):
                    raise TypeError
                value: float | int = int(raw) if key == "max_attempts" else float(raw)
            except (TypeError, ValueError, OverflowError):
                raise UserError(f"{where}: {key} = {raw!r} is not a finite number") from None
            if not math.isfinite(value) or value > MAX_SECONDS:  # every wait is finite
                raise UserError(f"{where}: {key} = {raw!r} is too large; at most {MAX_SECONDS:g}")
            if key == "request_timeout_s" and not value > 0:
                raise UserError(f"{where}: {key} = {raw!r} is too small; give seconds > 0")
            if value < (1 if key == "max_attempts" else 0):
                raise UserError(f"{where}: {key} = {raw!r} is too small")
            changes[key] = value
        return replace(self, **changes)


def status_of(exc: BaseException) -> int | None:
    """The HTTP status carried by an SDK exception (openai, anthropic, google-genai, httpx)."""
    for attr in ("status_code", "status", "code"):
        value = getattr(exc, attr, None)
        if isinstance(value, int) and 100 <= value < 600:
            return value
    response = getattr(exc, "response", None)
    value = getattr(response, "status_code", None)
    return value if isinstance(value, int) else None


def classify(exc: BaseException) -> Decision:
    """Whether a failed call is worth another attempt."""
    status = status_of(exc)
    if status is not None:
        return "retry" if status in _RETRY_STATUS or status >= 500 else "fatal"
    if isinstance(exc, ResponseTooLarge):  # the same answer again would be as large
        return "fatal"
    if isinstance(
        exc, (InvalidResponse, TimeoutError, ConnectionError, json.JSONDecodeError, EOFError)
    ):
        return "retry"
    names = " ".join(k.__name__ for k in type(exc).__mro__)
    markers = ("Timeout", "Connection", "Transport", "Protocol", "Network", "ResponseValidation")
    return "retry" if any(m in names for m in markers) else "fatal"


def describe(exc: BaseException, secrets: Iterable[str | None] = ()) -> str:
    status = status_of(exc)
    text = " ".join(str(exc).split()) or type(exc).__name__
    if len(text) > 300:
        text = text[:300] + "…"
    head = f"HTTP {status}" if status is not None else type(exc).__name__
    return redact(f"{head}: {text}", secrets)


@dataclass(slots=True)
class AttemptTiming:
    """Filled by `with_retries`: how long the attempt that answered took (seconds).

    Time lost to attempts that failed or timed out, and to backoff, is not in it: the
    runner charges a trial's budget for answers only.
    """

    answered_s: float = 0.0


@dataclass(slots=True)
class RetryStats:
    """Counters a provider keeps, for tests and reports."""

    calls: int = 0
    attempts: int = 0
    retries: int = 0
    failures: int = 0


async def with_retries(
    call: Callable[[], Awaitable[T]],
    *,
    policy: RetryPolicy,
    what: str,
    secrets: Iterable[str | None] = (),
    hint: Callable[[int | None, str], str] | None = None,
    stats: RetryStats | None = None,
    classify_fn: Callable[[BaseException], Decision] = classify,
    sleep: Callable[[float], Awaitable[Any]] = asyncio.sleep,
    timeout_s: float | None = None,
    timing: AttemptTiming | None = None,
) -> T:
    """Run `call` until it succeeds or the policy gives up; then raise InfraError.

    `what` names the endpoint in messages (e.g. "openai-compat:qwen @ http://…");
    `hint(status, message)` may add a fix for fatal errors (e.g. "check OPENAI_API_KEY").
    `timeout_s` bounds each attempt as a whole (an SDK's own timeout is often per read):
    an attempt without an answer by then is retried. `timing` receives the answering
    attempt's duration. ModelTimeout, UserError and cancellation pass through untouched.
    """
    secrets = list(secrets)
    stats = stats if stats is not None else RetryStats()
    stats.calls += 1
    attempt = 0
    while True:
        stats.attempts += 1
        started = time.perf_counter()
        try:
            try:
                async with asyncio.timeout(timeout_s):
                    result = await call()
            except TimeoutError:
                if timeout_s is None:
                    raise
                raise TimeoutError(f"no answer within {timeout_s:g}s") from None
            if timing is not None:
                timing.answered_s = time.perf_counter() - started
            return result
        except (ModelTimeout, UserError, InfraError, asyncio.CancelledError):
            raise
        except Exception as exc:
            decision = classify_fn(exc)
            message = describe(exc, secrets)
            attempt += 1
            if decision == "fatal" or attempt >= policy.max_attempts:
                stats.failures += 1
                status = status_of(exc)
                extra = hint(status, message) if hint else ""
                tries = "" if decision == "fatal" else f" after {attempt} attempt(s)"
                fix = f"; {extra}" if extra else ""
                raise InfraError(redact(f"{what}: {message}{tries}{fix}", secrets)) from None
            stats.retries += 1
            delay = policy.delay(attempt - 1)
            retry_after = _retry_after(exc)
            if retry_after is not None:
                delay = min(policy.max_delay_s, max(delay, retry_after))
            await sleep(delay)


def _retry_after(exc: BaseException) -> float | None:
    response = getattr(exc, "response", None)
    headers = getattr(response, "headers", None)
    if not headers:
        return None
    try:
        value = headers.get("retry-after")
        return float(value) if value is not None else None
    except (TypeError, ValueError):
        return None
