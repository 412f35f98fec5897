"""House rule for run/summarize/show: a user-caused error is ONE line naming the flag or file,
the place and the fix, exit 2, no traceback — and nothing is written."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cli_support import cli


def one_line(code: int, out: str, err: str, *needles: str) -> str:
    assert code == 2, err
    assert "Traceback" not in err and out == ""
    lines = err.splitlines()
    assert len(lines) == 1, err  # no stray blank lines from a progress bar either
    for needle in needles:
        assert needle in lines[0], (needle, lines[0])
    return lines[0]


@pytest.fixture()
def good(suite: Path) -> str:
    return f"scripted:{suite / 'good.yaml'}"


@pytest.fixture()
def finished(suite: Path, good: str, tmp_path: Path, capsys) -> Path:
    code, _, err = cli(capsys, "run", suite, "-m", good, "--out", tmp_path / "out", "-k", "2")
    assert code == 0, err
    (run_dir,) = (tmp_path / "out").iterdir()
    return run_dir


def test_bad_run_flags_are_one_line_and_write_nothing(suite, good, tmp_path, capsys):
    out = tmp_path / "out"
    (tmp_path / "bad.yaml").write_text("tasks:\n  x: [\n")
    (tmp_path / "list.yaml").write_text("tasks:\n  x: 5\n")
    (tmp_path / "afile").write_text("")
    cases = [
        (["-m", "bogus:x"], ["--model bogus:x", "unknown provider", "known:"]),
        (["-m", f"scripted:{tmp_path / 'missing.yaml'}"], ["missing.yaml", "not found"]),
        (["-m", f"scripted:{tmp_path / 'bad.yaml'}"], ["bad.yaml:3", "invalid YAML"]),
        (["-m", f"scripted:{tmp_path / 'list.yaml'}"], ["list.yaml", "tasks.x", "list of turns"]),
        (["-m", good, "-k", "0"], ["-k 0", "at least 1"]),
        (["-m", good, "--concurrency", "0"], ["--concurrency 0", "at least 1"]),
        (["-m", good, "--agent", "bad.ref"], ["--agent bad.ref", "package.module:function"]),
        (["--agent-cmd", "no-such-program-qa3 {prompt}"], ["--agent-cmd", "not found on PATH"]),
        (["-m", good, "--judge", "bogus:x"], ["--judge bogus:x", "unknown provider"]),
        (["-m", good, "--junit", tmp_path], ["--junit", "is a folder"]),
    ]
    for args, needles in cases:
        code, stdout, err = cli(capsys, "run", suite, *args, "--out", out)
        one_line(code, stdout, err, *needles)
        assert not out.exists(), args
    code, stdout, err = cli(capsys, "run", suite, "-m", good, "--out", tmp_path / "afile")
    one_line(code, stdout, err, "--out", "afile", "not a folder")
    code, stdout, err = cli(capsys, "run", suite, "-m", good, "--out", tmp_path / "afile" / "x")
    one_line(code, stdout, err, "--out", "cannot create")


def test_judge_errors_name_the_judge_flag_not_model(suite, good, tmp_path, capsys):
    (suite / "judged.yaml").write_text(
        "task_id: judged\nsuite: open_ended\ndescription: d\ninputs: {prompt: p}\n"
        "graders: [{type: judge, criteria: c}]\ntracked_metrics: [pass@k]\n"
    )
    missing = f"scripted:{tmp_path / 'missing.yaml'}"
    code, out, err = cli(capsys, "run", suite, "-m", good, "--judge", missing, "--out", tmp_path)
    line = one_line(code, out, err, "--judge scripted:", "missing.yaml: scripted model file")
    assert "--model" not in line
    # the model under test never grades its own answers
    code, out, err = cli(capsys, "run", suite, "-m", good, "--judge", good, "--out", tmp_path)
    one_line(code, out, err, "--judge", "also a model under test")
    # the same from trialrun.toml: the message names the config key
    (tmp_path / "trialrun.toml").write_text(f'[judge]\nmodel = "{missing}"\n')
    monkey_cwd = Path.cwd()
    try:
        import os

        os.chdir(tmp_path)
        code, out, err = cli(capsys, "run", suite, "-m", good, "--out", tmp_path / "o")
    finally:
        os.chdir(monkey_cwd)
    line = one_line(code, out, err, "[judge] model", "missing.yaml")
    assert "--model" not in line


def test_create_model_flag_keyword():
    from trialrun.errors import UserError
    from trialrun.models import create_model

    with pytest.raises(UserError, match=r"^--judge scriptd:x: unknown provider"):
        create_model("scriptd:x", flag="--judge")
    with pytest.raises(UserError, match=r"^--model scriptd:x"):
        create_model("scriptd:x")
    with pytest.raises(UserError, match=r"^--judge scripted: needs a script file"):
        create_model("scripted:", flag="--judge")


def damage(run_dir: Path, number: int, text: str) -> None:
    path = run_dir / "results.jsonl"
    lines = path.read_text().splitlines()
    lines[number - 1] = text
    path.write_text("\n".join(lines) + "\n")


def retyped(run_dir: Path, number: int, **changes) -> str:
    line = json.loads((run_dir / "results.jsonl").read_text().splitlines()[number - 1])
    return json.dumps({**line, **changes})


@pytest.mark.parametrize(
    ("make", "needles"),
    [
        (lambda d: damage(d, 2, "garbage{"), ["results.jsonl:2", "not a JSON line", "delete"]),
        (lambda d: damage(d, 2, retyped(d, 2, tokens=5)), ["results.jsonl:2", "tokens"]),
        (lambda d: damage(d, 3, retyped(d, 3, trial="x")), ["results.jsonl:3", "trial"]),
        (lambda d: damage(d, 2, "[1, 2]"), ["results.jsonl:2", "JSON object"]),
        (lambda d: (d / "run.json").write_text("{"), ["run.json:1", "invalid JSON", "restore"]),
        (lambda d: (d / "run.json").write_text("[]"), ["run.json", "JSON object", "restore"]),
        (lambda d: (d / "run.json").unlink(), ["run.json", "not found", "restore"]),
    ],
)
def test_damaged_run_folder_is_one_line_for_summarize_and_resume(finished, capsys, make, needles):
    meta = json.loads((finished / "run.json").read_text())
    make(finished)
    for args in (["summarize", finished], ["summarize", finished, "--json"],
                 ["run", "--resume", finished]):  # fmt: skip
        code, out, err = cli(capsys, *args)
        one_line(code, out, err, *needles)
    del meta


@pytest.mark.parametrize(
    ("change", "needle"),
    [
        ({"k": "x"}, "k must be an integer"),
        ({"models": "x"}, "models must be a list"),
        ({"tasks": [{"task_id": "read-note", "k": "x"}]}, "tasks[0].k"),
        ({"filters": {"task": "x"}}, "filters"),
        ({"models": []}, "no models"),
    ],
)
def test_wrongly_typed_manifest(finished, capsys, change, needle):
    meta = json.loads((finished / "run.json").read_text())
    (finished / "run.json").write_text(json.dumps({**meta, **change}))
    code, out, err = cli(capsys, "run", "--resume", finished)
    one_line(code, out, err, "run.json" if needle != "no models" else "--resume", needle)
    if needle != "no models":
        code, out, err = cli(capsys, "summarize", finished)
        one_line(code, out, err, "run.json", needle)


def test_summarize_json_is_exactly_one_document(finished, capsys):
    code, out, err = cli(capsys, "summarize", finished, "--json")
    assert code == 0 and err == ""
    doc = json.loads(out)
    assert doc["finished_trials"] == 4 and doc["run_dir"] == str(finished)


def test_show_wrong_task_trial_model_and_paths(finished, capsys):
    code, out, err = cli(capsys, "show", finished, "zzz-nothing-like-it")
    one_line(code, out, err, "no trial of task", "tasks in this run: read-note, write-note")
    code, out, err = cli(capsys, "show", finished, "read-note", "9")
    one_line(code, out, err, "no trial 9", "finished trials: [0, 1]")
    code, out, err = cli(capsys, "show", finished, "read-note", "0", "--model", "x")
    one_line(code, out, err, "--model x", "ran: scripted:")
    code, out, err = cli(capsys, "show", finished / "results.jsonl", "read-note")
    one_line(code, out, err, "is a file", f"pass its folder {finished}")
    line = json.loads((finished / "results.jsonl").read_text().splitlines()[0])
    (finished / line["transcript"]).write_text("{torn")
    code, out, err = cli(capsys, "show", finished, line["task_id"], str(line["trial"]))
    one_line(code, out, err, "cannot read the transcript", "rerun")


def test_show_prints_model_specs_with_brackets_verbatim(suite, tmp_path, capsys):
    script = tmp_path / "[v2].yaml"
    script.write_text((suite / "good.yaml").read_text())
    model = f"scripted:{script}"
    code, out, err = cli(capsys, "run", suite, "-m", model, "--out", tmp_path / "o", "-k", "1")
    assert code == 0, err
    # the end table's title is not read as rich markup (long tmp paths may wrap)
    assert "[v2].yaml" in out.replace("\n", "")
    (run_dir,) = (tmp_path / "o").iterdir()
    code, out, err = cli(capsys, "show", run_dir, "read-note")
    assert code == 0, err
    assert "[v2].yaml" in out.replace("\n", "")


def test_damaged_baseline_after_a_completed_run_is_a_warning(suite, good, tmp_path, capsys):
    from trialrun.models import slugify

    baselines = tmp_path / "baselines"
    baselines.mkdir()
    (baselines / f"{slugify(good)}.json").write_text("{bad")
    args = ["run", suite, "-m", good, "--out", tmp_path / "o", "-k", "1", "--baselines", baselines]
    code, out, err = cli(capsys, *args)
    assert code == 0, err  # the run completed: exit 0 whatever else happens
    assert "baseline comparison skipped" in err and "Traceback" not in err
    assert "read-note" in out
    code, out, err = cli(capsys, *args[:-4], "--out", tmp_path / "o2", "-k", "1",
                         "--baselines", baselines, "--json")  # fmt: skip
    assert code == 0 and err == ""
    assert any("baseline comparison skipped" in w for w in json.loads(out)["warnings"])
