"""What the history stores, as plain dataclasses: a run, its outcomes, their trials."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import UTC, datetime

from trialrun.core import model_label, redact, redact_argv

# a trial's outcome; "solved" is the only success (undetermined is never counted as solved)
OUTCOMES = ("solved", "failed", "undetermined", "infra", "skipped")
TRIGGERS = ("ci", "nightly", "local")
POLICIES = ("ALWAYS_PASSES", "USUALLY_PASSES", "USUALLY_FAILS")


def utc_now() -> str:
    """Now, as the store writes times: UTC ISO-8601 to the second, `Z`-suffixed."""
    return iso(datetime.now(UTC))


def iso(moment: datetime) -> str:
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


@dataclass(slots=True)
class TrialRecord:
    trial: int
    outcome: str  # one of OUTCOMES
    error: str | None = None
    transcript: str | None = None


@dataclass(slots=True)
class Outcome:
    """One test (task id or pytest node id) × model in one run."""

    test_id: str
    model: str
    kind: str = "task"  # task | pytest
    source: str | None = None
    policy: str | None = None
    k: int | None = None
    trials: list[TrialRecord] = field(default_factory=list)

    def count(self, outcome: str) -> int:
        return sum(1 for t in self.trials if t.outcome == outcome)

    @property
    def counted(self) -> int:
        """Trials with a result: infra errors and skips leave the denominator."""
        return sum(1 for t in self.trials if t.outcome in ("solved", "failed", "undetermined"))


@dataclass(slots=True)
class RunRecord:
    run_id: str
    started_at: str
    trigger: str
    source: str = "cli"  # cli | pytest | import
    ended_at: str | None = None
    git_sha: str | None = None
    git_branch: str | None = None
    models: list[str] = field(default_factory=list)
    run_dir: str | None = None
    argv: list[str] = field(default_factory=list)
    outcomes: list[Outcome] = field(default_factory=list)


def history_name(model: str) -> str:
    """A model as the history names it: its label, without base URL or secret, so one
    model served from two URLs (`openai-compat:M@http://a/v1`, `…@http://b/v1`) is one."""
    return model_label(model)


def with_history_names(run: RunRecord) -> RunRecord:
    """`run` as the store keeps it: every model by its history name (outcomes of one test
    whose models share a name, one session against two URLs, become one, their trials
    together), and its command line, test ids and trial errors redacted."""
    merged: dict[tuple[str, str], Outcome] = {}
    for item in run.outcomes:
        key = (redact(item.test_id), history_name(item.model))
        trials = [replace(t, error=redact(t.error) if t.error else t.error) for t in item.trials]
        if key in merged:
            merged[key].trials.extend(trials)
        else:
            merged[key] = replace(item, test_id=key[0], model=key[1], trials=trials)
    models = list(dict.fromkeys(history_name(m) for m in run.models))
    return replace(run, models=models, argv=redact_argv(run.argv),
                   outcomes=list(merged.values()))


@dataclass(slots=True)
class StoredRun:
    """A run as read back: its columns and outcomes (counts only; trials on request)."""

    pk: int
    run_id: str
    started_at: str
    trigger: str
    source: str
    git_sha: str | None
    git_branch: str | None
    models: list[str]
    run_dir: str | None
    outcomes: list[StoredOutcome] = field(default_factory=list)


@dataclass(slots=True)
class StoredOutcome:
    pk: int
    test_id: str
    model: str
    kind: str
    source: str | None
    policy: str | None
    trials: int
    solved: int
    undetermined: int
    infra: int


@dataclass(slots=True, frozen=True)
class RecentOutcome:
    """One test × model in one of the last runs it was in (counts only)."""

    run_id: str
    started_at: str
    test_id: str
    model: str
    trials: int  # counted trials: infra errors and skips left out
    solved: int
    undetermined: int
    infra: int
