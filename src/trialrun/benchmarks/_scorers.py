"""Custom scorers, as the seed's API takes them: any object with a `score` method,
given to `run_benchmark` or `EvalRunner`, grades the pair's records in place of the
registered benchmark's own scorer.

Either shape works: trialrun's (`async score(record, answer, judge) -> ScoreResult`) or
the seed's (`score(record, model_answer) -> (is_correct, metadata)`, sync), so an
OpenJarvis scorer object runs unchanged. The object is kept in this process under a key
the task's grader names (worker processes and Ray cannot see it).
"""

from __future__ import annotations

import inspect
from typing import Any

from trialrun.benchmarks._types import Record, ScoreResult
from trialrun.core import run_sync
from trialrun.errors import UserError

_LIVE: dict[str, Any] = {}


def keep_scorer(scorer: Any, benchmark: str) -> str:
    """The key the grader finds `scorer` under (kept until the process ends)."""
    if not callable(getattr(scorer, "score", None)):
        raise UserError(
            f"scorer {type(scorer).__name__}: not a scorer (it needs score(record, answer, "
            "judge) or score(record, model_answer))"
        )
    base = f"{benchmark}:{type(scorer).__module__}.{type(scorer).__qualname__}"
    key, number = base, 1
    while key in _LIVE and _LIVE[key] is not scorer:
        number += 1
        key = f"{base}#{number}"
    _LIVE[key] = scorer
    return key


def live_scorer(key: str) -> Any:
    return _LIVE.get(key)


def _takes_judge(method: Any) -> bool:
    """Whether `score` takes a third argument (trialrun's judge)."""
    try:
        params = inspect.signature(method).parameters.values()
    except (TypeError, ValueError):
        return True
    positional = [
        p
        for p in params
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD, p.VAR_POSITIONAL)
    ]
    return any(p.kind is p.VAR_POSITIONAL for p in positional) or len(positional) >= 3


def as_score_result(value: Any) -> ScoreResult:
    """A ScoreResult, or the seed's (is_correct, metadata) pair, as a ScoreResult."""
    if isinstance(value, ScoreResult):
        return value
    if isinstance(value, tuple) and len(value) == 2:
        correct, meta = value
        correct = None if correct is None else bool(correct)
        details = dict(meta) if isinstance(meta, dict) else {"metadata": meta}
        return ScoreResult(correct, None if correct is None else float(correct), details)
    raise TypeError(
        f"a scorer returned {type(value).__name__}; expected a ScoreResult or "
        "(is_correct, metadata)"
    )


async def score_with(scorer: Any, record: Record, answer: str, judge: Any) -> ScoreResult:
    """Call a custom scorer in either shape (sync ones on a worker thread)."""
    method = scorer.score
    args = (record, answer, judge) if _takes_judge(method) else (record, answer)
    if inspect.iscoroutinefunction(method):
        value = await method(*args)
    else:
        value = await run_sync(method, *args)
        if inspect.isawaitable(value):
            value = await value
    return as_score_result(value)
