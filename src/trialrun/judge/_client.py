"""One judge question: call the model at temperature 0 (unless the settings name another:
a suite's `[judge] temperature`), retry once on a reply outside the
contract, cache determined answers.

With `[judge] constrained = true` (the default) the prompt's reply constraint is sent
along (`CompletionParams.reply`); a provider that rejects it (`ConstraintRejected`) is
asked once more without it, and the details say so. The strict parser always has the
last word.

The retry is sent as [system, user, assistant(<first reply>), user(<retry instruction>)],
so a stateless scripted judge plays its second turn for it.
"""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from trialrun.core import redact
from trialrun.errors import InfraError, ModelTimeout
from trialrun.judge._cache import VerdictCache, cache_for
from trialrun.judge._prompt import Prompt, constrained_text
from trialrun.judge._settings import JudgeModel, JudgeSettings, settings_of
from trialrun.models import CompletionParams, ConstraintRejected, ReplyConstraint

Parser = Callable[[str | None], Any]


@dataclass(slots=True)
class JudgeOutcome:
    """The answer to one judge question. `value` is None when undetermined."""

    judge: str
    prompt_sha256: str
    value: Any = None
    raw_replies: list[str] = field(default_factory=list)
    cached: bool = False
    error: str | None = None  # judge_error: timeout, or no verdict after the retry
    skipped: str | None = None  # judge_skipped: no judge, or judge unavailable
    constrained: bool = False  # the reply constraint was sent (and not rejected)
    constraint_fallback: str | None = None  # why the provider refused the constraint

    def details(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "judge_model": self.judge,
            "prompt_sha256": self.prompt_sha256,
            "raw_replies": list(self.raw_replies),
            "cached": self.cached,
            "constrained": self.constrained,
        }
        if self.constraint_fallback:
            out["constraint_fallback"] = self.constraint_fallback
        if self.error:
            out["judge_error"] = self.error
        if self.skipped:
            out["judge_skipped"] = self.skipped
        return out


def judge_spec(model: Any) -> str:
    """The judge's spec text (`provider:model-id`), as recorded in verdict details and
    the verdict cache: redacted (a base URL's credentials are never written)."""
    if isinstance(model, JudgeModel):
        model = model.model
    provider = str(getattr(model, "provider", "") or type(model).__name__)
    model_id = str(getattr(model, "model_id", "") or "")
    return redact(f"{provider}:{model_id}" if model_id else provider)


def judge_identity(model: Any) -> str:
    """The cache's judge key: the spec, plus the weights' hash when the model exposes a
    `sha256` attribute, or the script file's hash for a scripted judge (editing the
    script must not serve stale verdicts)."""
    spec = judge_spec(model)
    if isinstance(model, JudgeModel):
        model = model.model
    weights = getattr(model, "sha256", None)  # e.g. the embedded GGUF's pinned hash
    if isinstance(weights, str) and weights:
        return f"{spec}#{weights[:16]}"
    if getattr(model, "provider", None) == "scripted":
        path = Path(str(getattr(model, "model_id", "")))
        try:
            digest = hashlib.sha256(path.read_bytes()).hexdigest()[:16]
        except OSError:
            return spec
        return f"{spec}#{digest}"
    return spec


def _cache(settings: JudgeSettings) -> VerdictCache | None:
    return cache_for(settings.resolved_cache_dir()) if settings.cache else None


def cache_identity(model: Any, constrained: bool) -> str:
    """The cache's judge key for one setting: constrained replies are cached apart."""
    identity = judge_identity(model)
    return f"{identity}+constrained" if constrained else identity


async def _complete(
    model: Any,
    messages: list[dict[str, Any]],
    settings: JudgeSettings,
    task_id: str | None,
    reply: ReplyConstraint | None,
) -> str:
    params = CompletionParams(
        temperature=settings.temperature,
        timeout_s=settings.timeout_s,
        max_tokens=settings.max_tokens,
        seed=0,
        task_id=task_id,
        reply=reply,
    )
    try:
        completion = await asyncio.wait_for(
            model.complete(messages, [], params), timeout=settings.timeout_s
        )
    except TimeoutError:
        raise ModelTimeout(f"judge call exceeded {settings.timeout_s:g}s") from None
    return completion.text or ""


async def ask(
    model: Any,
    prompt: Prompt,
    parse: Parser,
    *,
    task_id: str | None = None,
    settings: JudgeSettings | None = None,
) -> JudgeOutcome:
    """Ask `prompt`; `parse(reply)` returns a JSON-able value or None (not a verdict).
    `settings`: given, else the judge's own (`JudgeModel`), else the defaults."""
    settings = settings if settings is not None else settings_of(model)
    constrained = settings.constrained and prompt.reply is not None
    identity = cache_identity(model, constrained)
    if settings.temperature:  # verdicts sampled warm are cached apart from those at 0
        identity = f"{identity}@t={settings.temperature:g}"
    outcome = JudgeOutcome(
        judge=judge_spec(model), prompt_sha256=prompt.sha256, constrained=constrained
    )
    cache = _cache(settings)
    if cache is None:
        await _ask_model(model, prompt, parse, settings, task_id, outcome)
        return outcome
    lock = cache.lock(identity, prompt.sha256)
    async with lock:
        hit = cache.get(identity, prompt.sha256)
        if hit is not None:
            outcome.value = hit.get("value")
            outcome.raw_replies = list(hit.get("raw_replies") or [])
            outcome.cached = True
        else:
            await _ask_model(model, prompt, parse, settings, task_id, outcome)
            if outcome.value is not None:
                cache.put(identity, prompt.sha256, outcome.value, outcome.raw_replies)
    cache.release(identity, prompt.sha256)
    return outcome


async def _ask_model(
    model: Any,
    prompt: Prompt,
    parse: Parser,
    settings: JudgeSettings,
    task_id: str | None,
    outcome: JudgeOutcome,
) -> None:
    messages = prompt.messages()
    reply_constraint = prompt.reply if outcome.constrained else None
    try:
        for attempt in range(2):
            try:
                reply = await _complete(model, messages, settings, task_id, reply_constraint)
            except ConstraintRejected as exc:  # fall back once to the plain prompt
                reply_constraint = None
                outcome.constrained = False
                outcome.constraint_fallback = str(exc) or type(exc).__name__
                reply = await _complete(model, messages, settings, task_id, None)
            outcome.raw_replies.append(reply)
            value = parse(constrained_text(reply) if reply_constraint else reply)
            if value is not None:
                outcome.value = value
                return
            if attempt == 0:
                messages = [
                    *messages,
                    {"role": "assistant", "content": reply},
                    {"role": "user", "content": prompt.retry},
                ]
        shown = [r[:200] for r in outcome.raw_replies]
        outcome.error = f"judge reply is not a verdict after one retry: {shown!r}"
    except InfraError as exc:
        outcome.skipped = f"judge unavailable: {exc}"
    except ModelTimeout as exc:
        outcome.error = f"judge timed out: {exc}"
    except Exception as exc:  # a judge bug must not crash grading
        outcome.error = f"judge call failed: {type(exc).__name__}: {exc}"
