"""A trial's time budget (`timeout_s`), charged for answers, tools and agent work only.

The clock stops while a model request is outstanding and, when the request returns, is
charged only the duration of the attempt that answered (`Completion.latency_s`). Time
lost to a provider that hung, failed and was retried is not the agent's: a provider that
never answers ends as an infra error (the retry policy's per-request limit), and a trial
fails on time only for its own answers, tool calls and overhead. A simulated user's
replies (`off_clock`) are not the agent's time either: nothing is charged for them.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable
from dataclasses import replace
from typing import TYPE_CHECKING, Any, TypeVar

from trialrun.errors import InfraError
from trialrun.models import CompletionParams, RetryPolicy

if TYPE_CHECKING:
    from trialrun.models import Completion, Message, Model, ToolSpec

T = TypeVar("T")
BACKSTOP_GRACE_S = 30.0


class BudgetClock:
    """Runs an agent under `timeout_s` of charged time; model requests pause it."""

    def __init__(self, timeout_s: float) -> None:
        self.timeout_s = timeout_s
        self._spent = 0.0  # charged seconds, up to `_since`
        self._since: float | None = None  # when the clock last started running
        self._outstanding = 0
        self._timeout: asyncio.Timeout | None = None
        self._free = 0  # > 0 inside `off_clock`: requests are not charged

    def spent_s(self) -> float:
        running = time.monotonic() - self._since if self._since is not None else 0.0
        return self._spent + running

    async def within(self, work: Awaitable[T]) -> T:
        """Await `work`; TimeoutError once the charged time passes `timeout_s`."""
        if self._outstanding == 0:
            self._since = time.monotonic()
        try:
            async with asyncio.timeout(None) as timeout:
                self._timeout = timeout
                self._reschedule()
                result = await work
        finally:
            self._timeout = None
            self._stop()
        if self._spent > self.timeout_s:  # over budget on a last step that awaited nothing
            raise TimeoutError
        return result

    async def off_clock(self, work: Awaitable[T]) -> T:
        """Await `work` with the clock stopped and nothing charged for it, requests made
        through a `MeteredModel` inside it included (a simulated user's reply)."""
        self.pause()
        self._free += 1
        try:
            return await work
        finally:
            self._free -= 1
            self.resume(0.0)

    def pause(self) -> None:
        """A model request starts: the clock stops until every outstanding one returns."""
        if self._outstanding == 0:
            self._stop()
        self._outstanding += 1
        self._reschedule()

    def resume(self, charge_s: float) -> None:
        """A model request ended; `charge_s`: its answering attempt's time (0: no answer)."""
        self._outstanding = max(0, self._outstanding - 1)
        if not self._free:
            self._spent += max(0.0, charge_s)
        if self._outstanding == 0 and self._timeout is not None:
            self._since = time.monotonic()
        self._reschedule()

    def _stop(self) -> None:
        if self._since is not None:
            self._spent += time.monotonic() - self._since
            self._since = None

    def _reschedule(self) -> None:
        timeout = self._timeout
        if timeout is None or timeout.expired():
            return
        remaining = self.timeout_s - self.spent_s()
        if self._outstanding and remaining > 0:
            timeout.reschedule(None)
        else:  # a spent budget is never paused: the next request is cut at once
            timeout.reschedule(asyncio.get_running_loop().time() + max(0.0, remaining))


class MeteredModel:
    """A model whose requests pause a trial's BudgetClock (one per trial)."""

    def __init__(self, inner: Model, clock: BudgetClock) -> None:
        self._inner = inner
        self._clock = clock
        self.provider = inner.provider
        self.model_id = inner.model_id

    def __getattr__(self, name: str) -> Any:  # stats, retry_policy, … of the wrapped model
        return getattr(self._inner, name)

    async def complete(
        self, messages: list[Message], tools: list[ToolSpec], params: CompletionParams | None
    ) -> Completion:
        params = params or CompletionParams()
        if params.timeout_s is None:  # bound each request by the task's budget
            params = replace(params, timeout_s=self._clock.timeout_s)
        self._clock.pause()
        started = time.monotonic()
        charge = 0.0
        backstop = self._backstop_s(params.timeout_s)
        try:
            try:
                completion = await asyncio.wait_for(
                    self._inner.complete(messages, tools, params), backstop
                )
            except TimeoutError:
                raise InfraError(
                    f"model {self.provider}:{self.model_id}: no answer within {backstop:.0f} s, "
                    "past every attempt's limit (a provider that ignores its request timeout)"
                ) from None
            elapsed = time.monotonic() - started
            charge = min(completion.latency_s, elapsed) if completion.latency_s > 0 else elapsed
            return completion
        finally:
            self._clock.resume(charge)

    def _backstop_s(self, timeout_s: float | None) -> float:
        """While the clock is paused only this wall-clock limit bounds a request: every
        attempt's limit and backoff, plus a grace, so a provider that ignores its own request
        timeout still cannot hang the trial."""
        policy = getattr(self._inner, "retry_policy", None)
        if not isinstance(policy, RetryPolicy):
            policy = RetryPolicy.load()
        attempt = policy.request_timeout(timeout_s) + policy.max_delay_s
        return policy.max_attempts * attempt + BACKSTOP_GRACE_S

    async def aclose(self) -> None:
        await self._inner.aclose()
