"""Per-record results (`{benchmark}_{model-slug}.jsonl`) and their summary.

A record line is made from the trial's results line (read through `trialrun.rundir`)
and the record: `error` when inference failed, `is_correct` None when the scorer could
not decide, else True/False, with score, latency, tokens, cost and the scorer's
metadata. The summary is recomputed from the record lines alone: accuracy over scored
records with a Wilson 95 % interval (`trialrun.metrics`), errors, mean latency, total
cost, a per-subject breakdown, the category (the seed's chat / reasoning / rag /
agentic), start and end.
"""

from __future__ import annotations

from collections.abc import Iterable
from fractions import Fraction
from pathlib import Path
from typing import Any

from trialrun.errors import UserError
from trialrun.metrics import pass_hat_k_fraction, wilson_interval
from trialrun.rundir import JsonLimitError, ResultLine, loads_limited

RECORD_KEYS = ("record_id", "benchmark", "model", "is_correct")
SCORER_GRADERS = ("benchmark", "benchmarkJudged", "taubench")


def record_line(
    line: ResultLine,
    *,
    benchmark: str,
    model: str,
    backend: str,
    record: dict[str, Any],
    category: str | None = None,
) -> dict[str, Any]:
    """The per-record line for one finished trial."""
    verdict = next((v for v in line.verdicts if v.get("grader") in SCORER_GRADERS), None)
    if verdict is not None:
        details = dict(verdict.get("details") or {})
        score = details.pop("score", None)
        is_correct = verdict.get("passed")
    else:  # a task of a task folder: its graders decide, as in any run
        details = {"verdicts": line.verdicts}
        score = None
        is_correct = line.solve
    error = None
    if line.error is not None:
        error = f"{line.error.get('kind')}: {line.error.get('message')}"
        is_correct = None
    tokens = line.tokens or {}
    return {
        "record_id": record.get("record_id", line.task_id),
        "task_id": line.task_id,
        "trial": line.trial,
        "benchmark": benchmark,
        "category": category or benchmark,
        "model": model,
        "backend": backend,
        "subject": record.get("subject"),
        "problem": record.get("problem"),
        "reference": record.get("reference"),
        "model_answer": line.final_text,
        "is_correct": is_correct,
        "score": score
        if score is not None
        else (None if is_correct is None else float(is_correct)),
        "latency_seconds": line.latency_s,
        "prompt_tokens": tokens.get("prompt"),
        "completion_tokens": tokens.get("completion"),
        "cost_usd": line.cost_usd,
        "error": error,
        "scoring_metadata": details,
        "transcript": line.transcript,
    }


def read_records(path: Path) -> list[dict[str, Any]]:
    """The record lines of a per-record file; a torn last line (a killed run) is skipped."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise UserError(f"{path}: cannot read it ({exc.strerror or exc})") from None
    except UnicodeDecodeError:
        raise UserError(f"{path}: not UTF-8 text; restore the file (or run the suite "
                        "again: it is rewritten from the run folder)") from None
    lines = text.splitlines()
    out = []
    for number, raw in enumerate(lines, 1):
        if not raw.strip():
            continue
        try:
            item = loads_limited(raw)
        except JsonLimitError as exc:
            raise UserError(f"{path}:{number}: {exc}; restore the file") from None
        except ValueError:
            if number == len(lines) and not text.endswith("\n"):
                continue  # torn by a kill mid-write
            raise UserError(f"{path}:{number}: not a JSON line; restore the file") from None
        if not isinstance(item, dict) or any(k not in item for k in RECORD_KEYS):
            raise UserError(
                f"{path}:{number}: not a benchmark record line (needs {', '.join(RECORD_KEYS)})"
            )
        out.append(item)
    return out


def is_records_file(path: Path) -> bool:
    """A per-record benchmark results file (its first line has the record keys)."""
    if not path.is_file() or path.suffix != ".jsonl":
        return False
    try:
        with path.open("rb") as handle:  # the first line alone: what follows may be damaged
            first = handle.readline()
        item = loads_limited(first.decode("utf-8"))
    except (OSError, ValueError, UnicodeDecodeError):
        return False
    return isinstance(item, dict) and all(k in item for k in RECORD_KEYS)


def _accuracy(correct: int, scored: int) -> dict[str, Any]:
    low, high = wilson_interval(correct, scored)
    return {
        "accuracy": correct / scored if scored else None,
        "accuracy_ci95": [low, high] if scored else None,
    }


def hat_k(rows: list[dict[str, Any]], k: int) -> dict[str, Any]:
    """pass^k and solve^k over the records with at least k trial lines: per record
    C(c,k)/C(n,k) exactly, then the mean. pass: the trial completed (no error); solve:
    the scorer said correct. Records with fewer than k lines (a run cut short) are
    counted apart, never in the figures."""
    trials: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        trials.setdefault(str(row.get("task_id") or row.get("record_id")), []).append(row)
    counted = [lines for lines in trials.values() if len(lines) >= k]
    passed = [pass_hat_k_fraction(len(v), sum(not r.get("error") for r in v), k) for v in counted]
    solved = [
        pass_hat_k_fraction(len(v), sum(r.get("is_correct") is True for r in v), k)
        for v in counted
    ]

    def mean(values: list[Fraction]) -> float | None:
        return float(sum(values, Fraction(0)) / len(values)) if values else None

    return {
        "k": k,
        "pass_hat_k": mean(passed),
        "solve_hat_k": mean(solved),
        "records": len(counted),
        "records_short": len(trials) - len(counted),
    }


def _fewest_trials(rows: list[dict[str, Any]]) -> int:
    """k of a per-record file read alone: the fewest trial lines any record has."""
    counts: dict[str, int] = {}
    for row in rows:
        key = str(row.get("task_id") or row.get("record_id"))
        counts[key] = counts.get(key, 0) + 1
    return min(counts.values(), default=1)


def summarize_records(
    records: Iterable[dict[str, Any]], *, trials: int | None = None, **extra: Any
) -> dict[str, Any]:
    """The summary of record lines (accuracy over scored trial lines only; with `trials`
    = k, pass^k and solve^k per record as well)."""
    rows = list(records)
    scored = [r for r in rows if r.get("is_correct") is not None]
    correct = sum(1 for r in scored if r["is_correct"] is True)
    latencies = [
        r["latency_seconds"] for r in rows if isinstance(r.get("latency_seconds"), int | float)
    ]
    costs = [r["cost_usd"] for r in rows if isinstance(r.get("cost_usd"), int | float)]
    subjects: dict[str, dict[str, Any]] = {}
    for r in rows:
        key = str(r.get("subject") or "unknown")
        entry = subjects.setdefault(key, {"total": 0, "scored": 0, "correct": 0})
        entry["total"] += 1
        if r.get("is_correct") is not None:
            entry["scored"] += 1
            entry["correct"] += r["is_correct"] is True
    for entry in subjects.values():
        entry.update(_accuracy(entry["correct"], entry["scored"]))
    first = rows[0] if rows else {}
    categories = {r.get("category") or r.get("benchmark") for r in rows}
    return {
        "benchmark": first.get("benchmark"),
        # as the seed: the records' one category, else the benchmark's name
        "category": categories.pop() if len(categories) == 1 else first.get("benchmark"),
        "model": first.get("model"),
        "backend": first.get("backend"),
        "total_samples": len(rows),
        "scored_samples": len(scored),
        "correct": correct,
        **_accuracy(correct, len(scored)),
        "errors": sum(1 for r in rows if r.get("error")),
        "undetermined": sum(1 for r in rows if r.get("is_correct") is None and not r.get("error")),
        "mean_latency_seconds": sum(latencies) / len(latencies) if latencies else None,
        "total_cost_usd": sum(costs) if costs else 0.0,
        "prompt_tokens": sum(int(r.get("prompt_tokens") or 0) for r in rows),
        "completion_tokens": sum(int(r.get("completion_tokens") or 0) for r in rows),
        "per_subject": dict(sorted(subjects.items())),
        "trials": trials or _fewest_trials(rows),
        "hat_k": hat_k(rows, trials or _fewest_trials(rows)),
        **extra,
    }
