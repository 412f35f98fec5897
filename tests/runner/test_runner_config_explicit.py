"""Configuration arrives explicitly: the `ProjectConfig` and judge settings a caller passes
are the ones a run uses, whatever trialrun.toml the working directory holds, and two runs
in one process never share judge settings."""

import asyncio
import json

from trialrun import run as run_eval
from trialrun.config import load_config
from trialrun.judge import JudgeSettings
from trialrun.runner import RunConfig, run_async
from trialrun.tasks import Task

JUDGED = {"type": "judge", "criteria": "says hello"}


def task_data(task_id: str) -> dict:
    return {
        "task_id": task_id,
        "suite": "golden",
        "description": "d",
        "inputs": {"prompt": "p"},
        "graders": [JUDGED],
        "tracked_metrics": ["pass^k"],
    }


def make_task(task_id: str) -> Task:
    return Task.model_validate(task_data(task_id))


def script(folder, text, name):
    path = folder / name
    path.write_text(text)
    return f"scripted:{path}"


def _judge_details(outcome):
    [line] = outcome.results
    [verdict] = line.verdicts
    return verdict["details"]


def test_two_runs_in_one_process_keep_their_own_judge_settings(tmp_path, monkeypatch):
    monkeypatch.delenv("TRIALRUN_JUDGE_CACHE_DIR", raising=False)
    model = script(tmp_path, "default: [{content: hello}]", "model.yaml")
    judge = script(tmp_path, "default: [{content: 'YES'}]", "judge.yaml")

    def config(name: str, settings: JudgeSettings) -> RunConfig:
        return RunConfig(tasks=[make_task(name)], models=[model], k=1, judge=judge,
                         out=tmp_path / name, handle_sigint=False,
                         judge_settings=settings)  # fmt: skip

    plain = JudgeSettings(cache=False, constrained=False)
    strict = JudgeSettings(cache_dir=tmp_path / "strict-cache", constrained=True)

    async def both():
        return await asyncio.gather(
            run_async(config("plain", plain)), run_async(config("strict", strict))
        )

    first, second = asyncio.run(both())
    assert _judge_details(first)["constrained"] is False
    assert _judge_details(second)["constrained"] is True
    assert not (tmp_path / "plain-cache").exists()
    assert any((tmp_path / "strict-cache").rglob("*"))  # only the strict run caches


def test_the_config_passed_in_wins_over_the_working_directory(tmp_path, monkeypatch):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    # read from the cwd, each of these would stop the run with a one-line error
    (elsewhere / "trialrun.toml").write_text(
        '[run]\nexecutor = "bogus"\nagent = ""\n[retries]\ninfra_trials = 99\n'
        '[judge]\nmodel = "openai:gpt-4o-latest"\n[tasks]\nmax_file_bytes = 1\n'
    )
    project_dir = tmp_path / "project"
    project_dir.mkdir()
    judge = script(project_dir, "default: [{content: 'YES'}]", "judge.yaml")
    (project_dir / "trialrun.toml").write_text(
        f'[judge]\nmodel = "{judge}"\ncache = false\nconstrained = false\n'
    )
    project = load_config(start=project_dir)
    model = script(tmp_path, "default: [{content: hello}]", "model.yaml")
    monkeypatch.chdir(elsewhere)
    task_file = project_dir / "t.yaml"  # bigger than the cwd's [tasks] max_file_bytes
    task_file.write_text(json.dumps(task_data("t")))
    outcome = run_eval([task_file], [model], k=1, out=tmp_path / "o",
                       handle_sigint=False, project=project)  # fmt: skip
    details = _judge_details(outcome)
    assert details["verdict"] == "YES" and details["constrained"] is False
    assert details["judge_model"].endswith("judge.yaml")
    assert outcome.summary.tasks[0].solved == 1
