"""Promotion and demotion by the record (data only; the CLI verifies and rewrites).

Promote: a USUALLY_PASSES test with at least `min_runs` nightly runs on every enabled
model, and 100 % of its trials solved in each of the last `window` of them on all of
them, moves up to ALWAYS_PASSES; a USUALLY_FAILS test whose last `window` nightly runs
reach 2/3 of trials solved (pooled, per model) moves up to USUALLY_PASSES the same way.
Demote: an ALWAYS_PASSES test that failed a trial in any of its last `window` CI runs
moves down to USUALLY_PASSES. Both read one branch's runs (the main branch by default,
see `_branch`; None: every branch), so a feature branch's nightlies and CI failures
move nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from trialrun.history._records import StoredOutcome, StoredRun, history_name
from trialrun.history._store import HistoryStore

UP = {"USUALLY_PASSES": "ALWAYS_PASSES", "USUALLY_FAILS": "USUALLY_PASSES"}
DOWN = {"ALWAYS_PASSES": "USUALLY_PASSES"}


@dataclass(slots=True)
class Candidate:
    action: str  # promote | demote
    test_id: str
    kind: str  # task | pytest
    source: str | None
    from_policy: str
    to_policy: str
    models: list[str]
    reason: str
    evidence: dict[str, Any] = field(default_factory=dict)  # model → [solved, trials] per run


@dataclass(slots=True)
class _Series:
    kind: str = "task"
    source: str | None = None
    policy: str | None = None
    by_model: dict[str, list[StoredOutcome]] = field(default_factory=dict)


def _series(runs: list[StoredRun]) -> dict[str, _Series]:
    out: dict[str, _Series] = {}
    for run in runs:  # oldest first, so the newest policy and source win
        for o in run.outcomes:
            s = out.setdefault(o.test_id, _Series())
            s.kind, s.source = o.kind, o.source or s.source
            s.policy = o.policy or s.policy
            s.by_model.setdefault(o.model, []).append(o)
    return out


def _on(branch: str | None) -> str:
    return f" on branch {branch}" if branch is not None else ""


def _other_branches(store: HistoryStore, trigger: str, branch: str | None) -> list[str]:
    """A note when `trigger` runs exist only on other branches (a `master` project
    reading `main`, say)."""
    if branch is None:
        return []
    counts = store.branches(trigger=trigger)
    if counts.get(branch) or counts.get(None):
        return []
    others = ", ".join(f"{name} ({n})" for name, n in sorted(
        (name, n) for name, n in counts.items() if name is not None))
    if not others:
        return []
    return [f"no {trigger} runs on branch {branch}; runs on: {others} (set [history] branch "
            "in trialrun.toml, or pass --branch NAME / --all-branches)"]


def _rate_ok(window: list[StoredOutcome], target: str) -> bool:
    if any(o.trials == 0 for o in window):
        return False
    if target == "ALWAYS_PASSES":
        return all(o.solved == o.trials for o in window)
    solved, trials = sum(o.solved for o in window), sum(o.trials for o in window)
    return 3 * solved >= 2 * trials  # at least 66 % (2 of 3), in exact integers


def promotion_candidates(
    store: HistoryStore,
    *,
    min_runs: int = 10,
    window: int = 7,
    models: Sequence[str] | None = None,
    branch: str | None = None,
) -> tuple[list[Candidate], list[str]]:
    """(tests to promote, one line per test that does not qualify yet, saying why)."""
    found: list[Candidate] = []
    notes: list[str] = _other_branches(store, "nightly", branch)
    for test_id, s in sorted(_series(store.runs(trigger="nightly", branch=branch)).items()):
        target = UP.get(s.policy or "")
        if target is None:
            continue
        enabled = [history_name(m) for m in models] if models else sorted(s.by_model)
        why: list[str] = []
        evidence: dict[str, Any] = {}
        for model in enabled:
            history = s.by_model.get(model, [])
            recent = history[-window:]
            evidence[model] = [[o.solved, o.trials] for o in recent]
            if len(history) < min_runs:
                why.append(f"{model}: {len(history)} of {min_runs} nightly runs")
            elif not _rate_ok(recent, target):
                need = "100 %" if target == "ALWAYS_PASSES" else "66 %"
                why.append(f"{model}: below {need} in the last {len(recent)} runs")
        if why:
            notes.append(f"{test_id}: stays {s.policy} ({'; '.join(why)})")
            continue
        rule = "100 % of trials" if target == "ALWAYS_PASSES" else "at least 66 % of trials"
        found.append(Candidate(
            action="promote",
            test_id=test_id,
            kind=s.kind,
            source=s.source,
            from_policy=str(s.policy),
            to_policy=target,
            models=enabled,
            reason=f"≥ {min_runs} nightly runs per model{_on(branch)}, {rule} in the last "
            f"{window}",
            evidence=evidence,
        ))
    return found, notes


def demotion_candidates(
    store: HistoryStore,
    *,
    window: int = 7,
    models: Sequence[str] | None = None,
    branch: str | None = None,
) -> list[Candidate]:
    """ALWAYS_PASSES tests with a failed trial in one of their last `window` CI runs."""
    found: list[Candidate] = []
    models = [history_name(m) for m in models] if models else None
    for test_id, s in sorted(_series(store.runs(trigger="ci", branch=branch)).items()):
        target = DOWN.get(s.policy or "")
        if target is None:
            continue
        failing: dict[str, Any] = {}
        for model, history in sorted(s.by_model.items()):
            if models and model not in models:
                continue
            bad = [o for o in history[-window:] if o.solved < o.trials]
            if bad:
                failing[model] = [[o.solved, o.trials] for o in history[-window:]]
        if failing:
            found.append(Candidate(
                action="demote",
                test_id=test_id,
                kind=s.kind,
                source=s.source,
                from_policy=str(s.policy),
                to_policy=target,
                models=sorted(failing),
                reason=f"failed in CI within its last {window} CI runs{_on(branch)} on "
                + ", ".join(sorted(failing)),
                evidence=failing,
            ))
    return found
