"""The model specs to run a test again with (`triage`, promote's verify step).

The history names a model by its label (`openai-compat:M`, no base URL), which cannot
run by itself; the runs that ran it kept the URL in their run.json (`endpoints`). A
label is looked up in the run folders of the test's runs, newest first: a CLI run's
folder, or for a pytest session each eval's own run folder (where its trials are kept).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path

from trialrun.errors import UserError
from trialrun.history._records import history_name
from trialrun.history._store import HistoryStore
from trialrun.rundir import RunDir

NEWEST_RUNS = 20  # how far back a label is looked for


def _folders(store: HistoryStore, test_id: str) -> Iterator[str]:
    runs = store.runs(test_id=test_id, last=NEWEST_RUNS)[::-1]
    pytest_outcomes = [o.pk for run in runs if not run.run_dir for o in run.outcomes]
    trials = store.trials_of(pytest_outcomes)
    for run in runs:
        if run.run_dir:
            yield run.run_dir
            continue
        for outcome in run.outcomes:
            for trial in trials.get(outcome.pk, []):
                if trial.transcript and Path(trial.transcript).is_dir():
                    yield trial.transcript


def rerun_specs(
    store: HistoryStore, test_id: str, labels: Sequence[str], given: Sequence[str] = ()
) -> list[str]:
    """One spec per label: a `given` spec of that model (`-m`), else `label@URL` from the
    newest run folder that ran it, else the label itself (a spec without a URL, such as
    `scripted:…` or `local`). A URL recorded with credentials must be given again."""

    chosen = {history_name(spec): spec for spec in given}
    wanted = [label for label in labels if label not in chosen]
    found: dict[str, str | None] = {}
    for folder in _folders(store, test_id) if wanted else ():
        try:
            manifest = RunDir.open(folder).manifest()
        except UserError:
            continue  # a folder moved or damaged: an older run may still say
        for label in wanted:
            if label not in found and label in manifest.models:
                found[label] = manifest.model_spec(label)
        if all(label in found for label in wanted):
            break
    specs = []
    for label in labels:
        spec = chosen.get(label) or found.get(label, label)
        if spec is None:
            raise UserError(
                f"{test_id}: model '{label}' ran against a base URL with credentials, which "
                f"its run folder does not keep; pass it again: -m '{label}@URL'"
            )
        specs.append(spec)
    return specs
