"""What a pytest session records in the history: per eval test × model, its trials."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from trialrun.config import ProjectConfig


def utc_now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


@dataclass(slots=True)
class CaseInfo:
    """Who a test item is in the history."""

    test_id: str  # node id without the [model-trial] part
    model: str
    trial: int
    policy: str
    kind: str  # pytest | task
    source: str
    k: int


@dataclass
class SessionRecord:
    started_at: str
    cases: dict[str, CaseInfo] = field(default_factory=dict)  # node id → case
    outcomes: dict[str, tuple[str, str | None]] = field(default_factory=dict)  # id → outcome
    # task items run k trials in one item: node id → [(trial, outcome, error)]
    task_trials: dict[str, list[tuple[int, str, str | None]]] = field(default_factory=dict)
    folders: dict[str, str] = field(default_factory=dict)  # node id → the eval's run folder

    def note(self, nodeid: str, outcome: str, error: str | None = None) -> None:
        if nodeid in self.cases:
            self.outcomes[nodeid] = (outcome, error)

    def record(self, store_url: str | None, trigger: str | None, project: ProjectConfig) -> str:
        """Write the session to `store_url`, else the store `project` names; returns the
        line to show."""
        # the pytest plugin is imported by every pytest session: run machinery loads on use
        from trialrun.history import (
            HistoryStore,
            Outcome,
            RunRecord,
            TrialRecord,
            detect_trigger,
            git_info,
        )
        from trialrun.rundir import new_run_id

        grouped: dict[tuple[str, str], Outcome] = {}
        for nodeid, (outcome, error) in self.outcomes.items():
            case = self.cases[nodeid]
            item = grouped.setdefault((case.test_id, case.model), Outcome(
                case.test_id, case.model, kind=case.kind, source=case.source,
                policy=case.policy, k=case.k))
            if nodeid in self.task_trials:
                item.trials.extend(TrialRecord(t, o, e) for t, o, e in self.task_trials[nodeid])
            else:
                item.trials.append(TrialRecord(case.trial, outcome, error,
                                               self.folders.get(nodeid)))
        sha, branch = git_info()
        models = sorted({o.model for o in grouped.values()})
        run = RunRecord(
            run_id=f"pytest-{new_run_id()}",
            started_at=self.started_at,
            ended_at=utc_now(),
            trigger=detect_trigger(trigger),
            source="pytest",
            git_sha=sha,
            git_branch=branch,
            models=models,
            argv=["pytest"],
            outcomes=sorted(grouped.values(), key=lambda o: (o.test_id, o.model)),
        )
        with HistoryStore.open(store_url, config=project) as store:
            store.record(run)
            where = store.url
        trials = sum(len(o.trials) for o in run.outcomes)
        # the pytest plugin is imported by every pytest session: run machinery loads on use
        from trialrun.history import shown_url

        return (f"trialrun: recorded {len(run.outcomes)} eval(s) × model, {trials} trial(s) "
                f"as {run.run_id} ({run.trigger}) in {shown_url(where)}")


def outcome_of(report: Any) -> tuple[str, str | None] | None:
    """A call-phase (or failed setup) report as a history outcome; None: not recorded."""
    xfail = hasattr(report, "wasxfail")
    if report.when == "call":
        if report.passed:
            return ("solved", None)
        if report.failed:
            return ("failed", _short(report))
        if report.skipped and xfail:
            return ("failed", "xfail")  # USUALLY_FAILS: failed as expected
        if report.skipped:
            return ("skipped", _short(report))
    if report.when == "setup":
        if report.failed:
            return ("infra", _short(report))
        if report.skipped and _is_provider_skip(report):
            return ("infra", _short(report))
    return None


def _is_provider_skip(report: Any) -> bool:
    return "provider error" in _short(report)


def _short(report: Any) -> str:
    text = str(report.longrepr) if report.longrepr is not None else ""
    if isinstance(report.longrepr, tuple) and len(report.longrepr) == 3:
        text = str(report.longrepr[2])
    return text.strip().splitlines()[-1][:500] if text.strip() else ""
