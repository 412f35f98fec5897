"""Judge-vs-human agreement: confusion matrix, Cohen's κ, P/R/F1, majority baseline.

YES is the positive class: tp = judge YES & human YES, fp = judge YES & human NO,
tn = judge NO & human NO, fn = judge NO & human YES. Only labelled tuples count; tuples
the judge could not decide (verdict None) are counted apart as `judge_failed`, never as
agreement or disagreement.

κ = (p_o − p_e) / (1 − p_e), p_e = P(judge YES)·P(human YES) + P(judge NO)·P(human NO);
null when p_e = 1 (both always give the same single label: κ is undefined).
The majority baseline is the agreement of a judge that always answers the humans' most
common label over the same n tuples. A judge is flagged when its agreement is not above
that baseline by more than `MARGIN` (0.05).
"""

from __future__ import annotations

import asyncio
from dataclasses import asdict, dataclass, field, replace
from typing import Any

from trialrun.config import ProjectConfig, load_config
from trialrun.judge import (
    JudgeSettings,
    ask,
    create_judge,
    parse_yes_no,
    split_judge_variant,
    yes_no_prompt,
)
from trialrun.models import ProviderSettings

MARGIN = 0.05


@dataclass(slots=True)
class Confusion:
    tp: int = 0
    fp: int = 0
    tn: int = 0
    fn: int = 0

    @property
    def n(self) -> int:
        return self.tp + self.fp + self.tn + self.fn


def _div(a: float, b: float) -> float | None:
    return a / b if b else None


def _f1(p: float | None, r: float | None) -> float | None:
    if p is None or r is None:
        return None
    return 2 * p * r / (p + r) if p + r else 0.0


@dataclass(slots=True)
class JudgeScore:
    judge: str
    n: int
    agreement: float | None
    kappa: float | None
    majority_baseline: float | None
    confusion: dict[str, int]
    precision_yes: float | None
    recall_yes: float | None
    f1_yes: float | None
    precision_no: float | None
    recall_no: float | None
    f1_no: float | None
    skipped_unlabelled: int = 0
    judge_failed: int = 0
    # labelled tuples whose reply was decoded under the reply constraint, and those asked
    # plainly (constrained = false, or the provider refused it); None for recorded verdicts
    constrained: int | None = None
    unconstrained: int | None = None
    warnings: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out.pop("warnings")
        for key in ("constrained", "unconstrained"):
            if out[key] is None:
                out.pop(key)
        return out


def score_judge(
    judge: str,
    pairs: list[tuple[bool | None, bool]],
    *,
    skipped_unlabelled: int = 0,
) -> JudgeScore:
    """Score (judge verdict, human label) pairs; a None verdict counts as judge_failed."""
    c = Confusion()
    failed = 0
    for verdict, human in pairs:
        if verdict is None:
            failed += 1
        elif verdict and human:
            c.tp += 1
        elif verdict and not human:
            c.fp += 1
        elif not verdict and not human:
            c.tn += 1
        else:
            c.fn += 1
    n = c.n
    agreement = _div(c.tp + c.tn, n)
    kappa = None
    majority = None
    if n:
        judge_yes, human_yes = (c.tp + c.fp) / n, (c.tp + c.fn) / n
        p_e = judge_yes * human_yes + (1 - judge_yes) * (1 - human_yes)
        kappa = None if abs(1 - p_e) < 1e-12 else ((c.tp + c.tn) / n - p_e) / (1 - p_e)
        majority = max(c.tp + c.fn, c.fp + c.tn) / n
    p_yes, r_yes = _div(c.tp, c.tp + c.fp), _div(c.tp, c.tp + c.fn)
    p_no, r_no = _div(c.tn, c.tn + c.fn), _div(c.tn, c.tn + c.fp)
    score = JudgeScore(
        judge=judge,
        n=n,
        agreement=agreement,
        kappa=kappa,
        majority_baseline=majority,
        confusion={"tp": c.tp, "fp": c.fp, "tn": c.tn, "fn": c.fn},
        precision_yes=p_yes,
        recall_yes=r_yes,
        f1_yes=_f1(p_yes, r_yes),
        precision_no=p_no,
        recall_no=r_no,
        f1_no=_f1(p_no, r_no),
        skipped_unlabelled=skipped_unlabelled,
        judge_failed=failed,
    )
    if n == 0:
        score.warnings.append(f"{judge}: no labelled tuple with a judge verdict; nothing to score")
    elif agreement is not None and majority is not None and agreement <= majority + MARGIN:
        score.warnings.append(
            f"{judge}: agreement {agreement:.3f} does not clearly beat the always-majority "
            f"baseline {majority:.3f} (needs > +{MARGIN:.2f}); do not trust this judge yet"
        )
    if failed:
        score.warnings.append(f"{judge}: no verdict on {failed} labelled tuple(s)")
    return score


def _label(value: str | None) -> bool | None:
    return None if value is None else value == "YES"


def calibrate_recorded(gold: Any) -> JudgeScore:
    """Score the gold file's stored `automated_verdict`s (no model involved)."""
    labelled = [t for t in gold.tuples if t.human_label is not None]
    pairs = [(t.automated_verdict, bool(_label(t.human_label))) for t in labelled]
    return score_judge("recorded", pairs, skipped_unlabelled=len(gold.tuples) - len(labelled))


async def calibrate_model(
    gold: Any, spec: str, *, concurrency: int = 4, config: ProjectConfig | None = None
) -> JudgeScore:
    """Run judge `spec` over the labelled tuples (the `judge` grader's prompt) and score it.

    `spec` may end in `?constrained=false|true` to override `[judge] constrained`;
    `config`: the trialrun.toml whose `[judge]` applies (default: found from the cwd)."""

    base, constrained = split_judge_variant(spec)
    project = config if config is not None else load_config()
    settings = JudgeSettings.from_config(project)
    if constrained is not None:
        settings = replace(settings, constrained=constrained)
    model = create_judge(base, settings, ProviderSettings.from_config(project))
    labelled = [t for t in gold.tuples if t.human_label is not None]
    gate = asyncio.Semaphore(concurrency)

    async def one(t: Any) -> Any:
        async with gate:
            prompt = yes_no_prompt(t.user_message, t.response, t.criteria)
            return await ask(
                model, prompt, parse_yes_no, task_id=t.task_id or None, settings=settings
            )

    try:
        outcomes = await asyncio.gather(*(one(t) for t in labelled))
    finally:
        close = getattr(model, "aclose", None)
        if close is not None:
            await close()
    pairs = [
        (o.value, bool(_label(t.human_label))) for o, t in zip(outcomes, labelled, strict=True)
    ]
    score = score_judge(spec, pairs, skipped_unlabelled=len(gold.tuples) - len(labelled))
    score.constrained = sum(1 for o in outcomes if o.constrained)
    score.unconstrained = len(outcomes) - score.constrained
    return score
