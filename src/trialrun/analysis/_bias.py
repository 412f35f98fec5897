"""Judge blind spots visible in a run: position flips, length preference, same family.

- Position: for every pairwise verdict decided in both orders, did swapping the two
  answers change the outcome for the response (win / tie / loss)? Also how often the
  judge preferred whichever answer sat in position A (ties left out).
- Length: the YES rate of `judge` verdicts by response length (characters) bucket.
- Family: a warning when a judge's provider equals the system under test's provider
  (a model grading its own family tends to favour it).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from trialrun.analysis._stored import open_run, response_of, verdict_kind

BUCKETS = ("<200", "200-1000", ">1000")


def _bucket(length: int) -> str:
    """<200, 200-1000 (both ends included), >1000 characters."""
    return "<200" if length < 200 else "200-1000" if length <= 1000 else ">1000"


def _provider(spec: Any) -> str | None:
    return str(spec).partition(":")[0] if spec else None


def bias_report(run_dir: Path) -> dict[str, Any]:
    run_dir = Path(run_dir)
    run, _, lines = open_run(run_dir)
    pair_n = flips = first_pos = decisive = 0
    buckets: dict[str, dict[str, Any]] = {
        name: {"n": 0, "yes": 0, "yes_rate": None} for name in BUCKETS
    }
    families: dict[tuple[str, str], int] = {}
    for line in lines:
        sut = str(line.provider or _provider(line.model) or "")
        for verdict in line.verdicts:
            kind = verdict_kind(verdict)
            if kind not in ("judge", "llmRubric", "pairwise"):
                continue
            details = verdict.get("details") or {}
            judge_provider = _provider(details.get("judge_model"))
            if judge_provider and judge_provider == sut:
                key = (str(details.get("judge_model")), line.model)
                families[key] = families.get(key, 0) + 1
            if kind == "pairwise":
                outcomes = details.get("outcomes")
                outcomes = outcomes if isinstance(outcomes, dict) else {}
                a, b = outcomes.get("response_first"), outcomes.get("reference_first")
                if a and b:
                    pair_n += 1
                    flips += a != b
                for order, outcome in (("response_first", a), ("reference_first", b)):
                    if outcome in ("win", "loss"):
                        decisive += 1
                        # the response sits in A in the response_first order
                        in_a = order == "response_first"
                        first_pos += (outcome == "win") == in_a
            elif kind == "judge" and isinstance(verdict.get("passed"), bool):
                entry = buckets[_bucket(len(response_of(run, line)))]
                entry["n"] += 1
                entry["yes"] += bool(verdict["passed"])
    for entry in buckets.values():
        entry["yes_rate"] = entry["yes"] / entry["n"] if entry["n"] else None
    warnings = [
        f"same-family judge: {judge} grades {model} ({count} verdict(s)); prefer a judge "
        "from another provider"
        for (judge, model), count in sorted(families.items())
    ]
    flip_rate = flips / pair_n if pair_n else None
    if flip_rate is not None and flip_rate > 0.2:
        warnings.append(
            f"position bias: swapping positions flips {flip_rate:.0%} of pairwise outcomes"
        )
    return {
        "run_dir": str(run_dir),
        "pairwise": {
            "n": pair_n,
            "flips": flips,
            "flip_rate": flip_rate,
            "decisive_verdicts": decisive,
            "position_a_preferred_rate": first_pos / decisive if decisive else None,
        },
        "length_buckets": [{"bucket": name, **buckets[name]} for name in BUCKETS],
        "same_family": [
            {"judge": judge, "model": model, "verdicts": count}
            for (judge, model), count in sorted(families.items())
        ],
        "warnings": warnings,
    }
