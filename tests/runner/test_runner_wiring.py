"""run_suite wiring: judge model, k override, concurrency, Task objects as input."""

import json

import pytest

from trialrun.graders import GRADERS, GraderConfig, grader
from trialrun.runner import default_concurrency, run_suite
from trialrun.tasks import Task


class _SeesJudgeConfig(GraderConfig):
    pass


SEEN: list[object] = []


def _sees_judge(config, trial):
    SEEN.append(trial.judge)
    if trial.judge is None:
        return None
    return True, {"judge": trial.judge.provider}


@pytest.fixture(autouse=True)
def _judge_grader():
    """A grader kind that needs a judge, registered only while these tests run."""
    grader("testSeesJudge", _SeesJudgeConfig, needs_judge=True)(_sees_judge)
    yield
    GRADERS._items.pop("testSeesJudge", None)


def make_task(task_id, graders, **extra):
    return Task.model_validate(
        {
            "task_id": task_id,
            "suite": "golden",
            "description": "d",
            "inputs": {"prompt": "p"},
            "graders": graders,
            "tracked_metrics": ["pass^k"],
            **extra,
        }
    )


def script(tmp_path, text="default: [{content: hello}]"):
    p = tmp_path / "s.yaml"
    p.write_text(text)
    return f"scripted:{p}"


def test_judge_model_reaches_graders(tmp_path):
    task = make_task("j", [{"type": "testSeesJudge"}])
    model = script(tmp_path)
    SEEN.clear()
    outcome = run_suite([task], [model], k=1, out=tmp_path / "o", judge=model, handle_sigint=False)
    assert SEEN and SEEN[0] is not None
    assert outcome.summary["tasks"][0]["solved"] == 1
    manifest = json.loads((outcome.run_dir / "run.json").read_text())
    assert manifest["judge"] == model


def test_no_judge_configured_is_undetermined_with_warning(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # no trialrun.toml above
    task = make_task("j", [{"type": "testSeesJudge"}])
    outcome = run_suite([task], [script(tmp_path)], k=2, out=tmp_path / "o", handle_sigint=False)
    row = outcome.summary["tasks"][0]
    assert row["undetermined"] == 2 and row["solved"] == 0 and row["solve_k"] is None
    assert any("judge" in w for w in outcome.warnings)


def test_k_override_and_task_k(tmp_path):
    a = make_task("a", [{"type": "contains", "value": "hello"}], trials={"k": 4})
    b = make_task("b", [{"type": "contains", "value": "nope"}])
    outcome = run_suite([a, b], [script(tmp_path)], out=tmp_path / "o", handle_sigint=False)
    rows = {r["task_id"]: r for r in outcome.summary["tasks"]}
    assert (rows["a"]["k"], rows["a"]["n"], rows["a"]["solve_k"]) == (4, 4, 1.0)
    assert (rows["b"]["k"], rows["b"]["n"], rows["b"]["solve_k"]) == (3, 3, 0.0)
    outcome = run_suite([a, b], [script(tmp_path)], k=1, out=tmp_path / "o2", handle_sigint=False)
    assert {r["n"] for r in outcome.summary["tasks"]} == {1}


def test_sandbox_none_and_concurrency(tmp_path):
    task = make_task("n", [{"type": "contains", "value": "hello"}], environment={"sandbox": "none"})
    outcome = run_suite(
        [task], [script(tmp_path)], k=5, concurrency=3, out=tmp_path / "o", handle_sigint=False
    )
    assert outcome.summary["tasks"][0]["solved"] == 5
    assert default_concurrency(["local"]) == 1
    assert default_concurrency(["scripted:x", "openai:gpt-4o"]) == 4
