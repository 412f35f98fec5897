"""Issue 29: the CLI prints a user error from its parts, `file:line: place: problem`, as
one line with exit 2 and no traceback: a bad trialrun.toml value names the config file
and its key; a bad task file names the file, the line and the field."""

from __future__ import annotations

from pathlib import Path

import pytest

from cli_support import assert_one_line_error, cli

GOOD = f"scripted:{Path(__file__).resolve().parents[2] / 'examples' / 'scripts' / 'good.yaml'}"
TASK = (
    "task_id: t1\nsuite: golden\ndescription: d\ninputs: {prompt: p}\n"
    "graders: [{type: contains, value: x}]\ntracked_metrics: [pass@k]\n"
)


@pytest.fixture()
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "tasks").mkdir()
    (tmp_path / "tasks" / "t1.yaml").write_text(TASK, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    code, out, err = cli(capsys, "run", "tasks", "-m", GOOD, "--out", "o", *args)
    assert out == ""
    return code, err


@pytest.mark.parametrize(
    ("config", "place_and_problem"),
    [
        ('[run]\nexecutor = "nope"\n', "[run] executor: unknown executor 'nope'"),
        ("[run]\nprocesses = 0\n", "[run] processes: 0 is not a number of processes"),
        ("[run]\nagent = 3\n", "[run] agent: must be a preset name"),
        ("[run]\nexecuter = 1\n", "[run] executer: unknown key; did you mean 'executor'?"),
        ("[run\n", "invalid TOML"),
    ],
)
def test_a_config_error_names_the_file_then_the_key(project, capsys, config, place_and_problem):
    (project / "trialrun.toml").write_text(config, encoding="utf-8")
    code, err = run(capsys)
    assert_one_line_error(code, err, f"trialrun: {project / 'trialrun.toml'}: {place_and_problem}")
    assert not (project / "o").exists()


def test_a_judge_from_the_config_names_the_file_and_key_not_the_model_flag(project, capsys):
    (project / "tasks" / "t1.yaml").write_text(
        TASK.replace("{type: contains, value: x}", "{type: judge, criteria: c}"), encoding="utf-8"
    )
    (project / "trialrun.toml").write_text('[judge]\nmodel = "scripted:gone.yaml"\n')
    code, err = run(capsys)
    assert_one_line_error(
        code, err, f"trialrun: {project / 'trialrun.toml'}: [judge] model scripted:gone.yaml: "
    )
    assert "--model" not in err


def test_a_task_error_is_its_own_line_with_file_line_and_field(project, capsys):
    (project / "tasks" / "t1.yaml").write_text(TASK + "environment: {budgets: 3}\n")
    code, err = run(capsys)
    assert_one_line_error(
        code, err, "trialrun: tasks/t1.yaml:7: environment.budgets: input should be",
        "; nothing was run (fix it, or pass --skip-invalid",
    )


def test_a_task_files_agent_is_named_by_the_file_and_its_key(project, capsys):
    (project / "tasks" / "t1.yaml").write_text(TASK + "agent: nosuch_pkg_xyz.mod:run\n")
    code, err = run(capsys)
    assert_one_line_error(
        code, err, "tasks/t1.yaml: agent: cannot import 'nosuch_pkg_xyz.mod'"
    )
    assert "--agent" not in err
