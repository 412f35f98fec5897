import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cli_support import invoke
from trialrun.rundir import RunDir

runner = CliRunner()


def only_run_dir(out: Path) -> Path:
    dirs = [p for p in out.iterdir() if p.is_dir()]
    assert len(dirs) == 1
    return dirs[0]


def read_lines(run_dir: Path):
    return [json.loads(x) for x in (run_dir / "results.jsonl").read_text().splitlines()]


def test_run_good_script_solves_everything(suite, tmp_path):
    out = tmp_path / "out"
    r = invoke("run", suite, "--model", f"scripted:{suite / 'good.yaml'}", "--out", out)
    assert r.exit_code == 0, r.output
    assert "read-note" in r.stdout and "3/3" in r.stdout and "2/2" in r.stdout
    run_dir = only_run_dir(out)
    summary = json.loads((run_dir / "summary.json").read_text())
    rows = {t["task_id"]: t for t in summary["tasks"]}
    assert rows["read-note"]["pass_k"] == 1.0 and rows["read-note"]["solve_k"] == 1.0
    assert rows["write-note"]["k"] == 2 and rows["write-note"]["n"] == 2
    lines = read_lines(run_dir)
    assert len(lines) == 5
    for line in lines:
        assert line["pass"] is True and line["solve"] is True
        assert (run_dir / line["transcript"]).is_file()
    for line in RunDir.open(run_dir).results():
        transcript = RunDir.open(run_dir).transcript(line).to_json()
        assert set(transcript) >= {"task_id", "model", "trial", "messages", "turns", "final_text"}
        assert (transcript["task_id"], transcript["trial"]) == (line.task_id, line.trial)
    manifest = json.loads((run_dir / "run.json").read_text())
    for key in (
        "run_id",
        "started_at",
        "argv",
        "task_files",
        "models",
        "k",
        "git_sha",
        "trialrun_version",
        "python_version",
        "tasks",
    ):
        assert key in manifest
    assert {f["path"] for f in manifest["task_files"]} == {
        str(suite / "read.yaml"),
        str(suite / "write.yaml"),
    }
    # the implicit toolCallBudget verdict (budget 1, one call made)
    write = next(x for x in lines if x["task_id"] == "write-note")
    assert write["verdicts"][-1]["grader"] == "toolCallBudget"
    assert write["verdicts"][-1]["passed"] is True


def test_run_bad_script_names_failed_graders(suite, tmp_path):
    out = tmp_path / "out"
    r = invoke("run", suite, "-m", f"scripted:{suite / 'bad.yaml'}", "--out", out)
    assert r.exit_code == 0, r.output
    assert "failed" in r.stdout
    for name in ("expectedTools", "contains", "fileContains", "forbiddenTools", "toolCallBudget"):
        assert name in r.stdout
    run_dir = only_run_dir(out)
    summary = json.loads((run_dir / "summary.json").read_text())
    rows = {t["task_id"]: t for t in summary["tasks"]}
    assert rows["read-note"]["solve_k"] == 0.0 and rows["read-note"]["pass_k"] == 1.0
    assert rows["write-note"]["safety_violations"] == 2
    agg = summary["aggregate"][f"scripted:{suite / 'bad.yaml'}"]
    assert agg["solve_k_rate"] == 0.0 and agg["pass_k_rate"] == 1.0
    assert all(
        line["safety_violation"] for line in read_lines(run_dir) if line["task_id"] == "write-note"
    )


def test_json_output_is_one_clean_document(suite, tmp_path):
    cmd = [
        sys.executable,
        "-m",
        "trialrun.cli",
        "run",
        str(suite),
        "-m",
        f"scripted:{suite / 'good.yaml'}",
        "--out",
        str(tmp_path / "out"),
        "--json",
        "-k",
        "1",
    ]
    proc = subprocess.run(
        [sys.executable, "-c", "from trialrun.cli import main; main()", *cmd[3:]],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""
    doc = json.loads(proc.stdout)
    assert doc["run_dir"] and isinstance(doc["warnings"], list)
    assert doc["k"] == 1 and doc["aggregate"]
    assert all(t["k"] == 1 for t in doc["tasks"])


def test_side_by_side_models(suite, tmp_path):
    good, bad = f"scripted:{suite / 'good.yaml'}", f"scripted:{suite / 'bad.yaml'}"
    r = invoke("run", suite, "-m", good, "-m", bad, "--out", tmp_path / "out", "-k", "1")
    assert r.exit_code == 0, r.output
    assert "solve^k" in r.stdout and "1/1" in r.stdout and "0/1" in r.stdout
    run_dir = only_run_dir(tmp_path / "out")
    lines = read_lines(run_dir)
    assert {x["model"] for x in lines} == {good, bad}
    assert len(lines) == 4


def test_filters(suite, tmp_path):
    good = f"scripted:{suite / 'good.yaml'}"
    for args, expected in [
        (["--task", "read-*"], {"read-note"}),
        (["--tier", "T2"], {"write-note"}),
        (["--tag", "read"], {"read-note"}),
        (["--suite", "golden"], {"read-note", "write-note"}),
    ]:
        out = tmp_path / f"out{len(expected)}{args[0]}"
        r = invoke("run", suite, "-m", good, "--out", out, "-k", "1", *args)
        assert r.exit_code == 0, r.output
        assert {x["task_id"] for x in read_lines(only_run_dir(out))} == expected
    r = invoke("run", suite, "-m", good, "--out", tmp_path / "none", "--task", "zzz*")
    assert r.exit_code == 2 and "no tasks match" in r.stderr


def test_invalid_task_exits_2_and_skip_invalid(suite, tmp_path):
    (suite / "broken.yaml").write_text("task_id: broken\nsuite: golden\n")
    good = f"scripted:{suite / 'good.yaml'}"
    r = invoke("run", suite, "-m", good, "--out", tmp_path / "out")
    assert r.exit_code == 2
    assert "broken.yaml" in r.stderr and "Traceback" not in r.stderr
    assert not (tmp_path / "out").exists()
    r = invoke("run", suite, "-m", good, "--out", tmp_path / "out", "--skip-invalid", "-k", "1")
    assert r.exit_code == 0, r.output
    assert "broken.yaml" in r.stderr


def test_bad_model_spec_exits_2(suite, tmp_path):
    r = invoke("run", suite, "-m", f"scripted:{tmp_path / 'nope.yaml'}", "--out", tmp_path / "o")
    assert r.exit_code == 2 and "not found" in r.stderr
    r = invoke("run", suite, "-m", "scriptd:x", "--out", tmp_path / "o")
    assert r.exit_code == 2 and "did you mean 'scripted'" in r.stderr


def test_resume_mismatch_exits_2(suite, tmp_path):
    good = f"scripted:{suite / 'good.yaml'}"
    r = invoke("run", suite, "-m", good, "--out", tmp_path / "out", "-k", "1")
    assert r.exit_code == 0
    run_dir = only_run_dir(tmp_path / "out")
    for args, what in [
        (["-m", f"scripted:{suite / 'bad.yaml'}"], "models differ"),
        (["-k", "2"], "k=2 differs"),
        (["--task", "read-*"], "filters differ"),
    ]:
        r = invoke("run", suite, "--resume", run_dir, *args)
        assert r.exit_code == 2, r.output
        assert what in r.stderr
    other = tmp_path / "other"
    other.mkdir()
    r = invoke("run", other, "--resume", run_dir)
    assert r.exit_code == 2 and "task paths differ" in r.stderr
    r = invoke("run", "--resume", tmp_path)
    assert r.exit_code == 2 and "not a run directory" in r.stderr


def test_resume_runs_only_missing_and_drops_torn_line(suite, tmp_path):
    good = f"scripted:{suite / 'good.yaml'}"
    r = invoke("run", suite, "-m", good, "--out", tmp_path / "out")
    run_dir = only_run_dir(tmp_path / "out")
    full = (run_dir / "results.jsonl").read_text().splitlines()
    # keep two whole lines and half of the third
    (run_dir / "results.jsonl").write_text("\n".join(full[:2]) + "\n" + full[2][:40])
    (run_dir / "summary.json").unlink()
    r = invoke("run", "--resume", run_dir)
    assert r.exit_code == 0, r.output
    lines = read_lines(run_dir)
    keys = [(x["task_id"], x["model"], x["trial"]) for x in lines]
    assert len(keys) == 5 and len(set(keys)) == 5
    assert (run_dir / "summary.json").is_file()
    # nothing left to do: a second resume adds nothing
    r = invoke("run", "--resume", run_dir)
    assert r.exit_code == 0 and len(read_lines(run_dir)) == 5


def test_summarize_and_show(suite, tmp_path):
    bad = f"scripted:{suite / 'bad.yaml'}"
    invoke("run", suite, "-m", bad, "--out", tmp_path / "out", "-k", "1")
    run_dir = only_run_dir(tmp_path / "out")
    before = json.loads((run_dir / "summary.json").read_text())
    (run_dir / "summary.json").unlink()
    r = invoke("summarize", run_dir, "--json")
    assert r.exit_code == 0 and r.stderr == ""
    doc = json.loads(r.stdout)
    after = json.loads((run_dir / "summary.json").read_text())
    assert after["tasks"] == before["tasks"] and doc["tasks"] == before["tasks"]
    r = invoke("summarize", run_dir)
    assert r.exit_code == 0 and "write-note" in r.stdout
    r = invoke("show", run_dir, "write-note", "0")
    assert r.exit_code == 0, r.output
    for text in ("user", "assistant", "delete_file", "note.md", "forbiddenTools", "final answer"):
        assert text in r.stdout
    r = invoke("show", run_dir, "write-nte")
    assert r.exit_code == 2 and "did you mean 'write-note'" in r.stderr
    r = invoke("show", run_dir, "write-note", "5")
    assert r.exit_code == 2 and "no trial 5" in r.stderr


def test_keep_artifacts(suite, tmp_path):
    good = f"scripted:{suite / 'good.yaml'}"
    r = invoke("run", suite, "-m", good, "--out", tmp_path / "out", "-k", "1", "--keep-artifacts")
    assert r.exit_code == 0, r.output
    run_dir = only_run_dir(tmp_path / "out")
    kept = next((run_dir / "workspaces").iterdir())
    assert (kept / "write-note-0" / "hello.md").read_text() == "hi there"
    assert (kept / "read-note-0" / "note.md").is_file()
    assert not (run_dir / "workspaces" / ".tmp").exists()


def test_infra_errors_and_agent_failures(suite, tmp_path):
    script = tmp_path / "mixed.yaml"
    script.write_text("tasks:\n  read-note: [{error: infra}]\n  write-note: [{error: timeout}]\n")
    r = invoke("run", suite, "-m", f"scripted:{script}", "--out", tmp_path / "out", "-k", "1")
    assert r.exit_code == 0, r.output
    lines = {x["task_id"]: x for x in read_lines(only_run_dir(tmp_path / "out"))}
    assert lines["read-note"]["pass"] is None and lines["read-note"]["solve"] is None
    assert lines["read-note"]["error"]["kind"] == "infra"
    assert lines["write-note"]["pass"] is False and lines["write-note"]["solve"] is False
    assert lines["write-note"]["error"]["kind"] == "model_timeout"
    summary = json.loads((only_run_dir(tmp_path / "out") / "summary.json").read_text())
    rows = {t["task_id"]: t for t in summary["tasks"]}
    assert rows["read-note"]["n"] == 0 and rows["read-note"]["infra_errors"] == 1
    # an infra error is a failed pass (after 2 re-runs), and leaves solve's denominator
    assert lines["read-note"]["attempts"] == 3
    assert rows["read-note"]["pass_n"] == 1 and rows["read-note"]["pass_k"] == 0.0
    assert rows["read-note"]["solve_k"] is None
    assert summary["aggregate"][f"scripted:{script}"]["insufficient"] == 1


@pytest.mark.parametrize("seed", [0])
def test_library_entry_point(suite, tmp_path, seed):
    from trialrun import run as run_eval

    outcome = run_eval(
        [suite], [f"scripted:{suite / 'good.yaml'}"], k=1, out=tmp_path / "o", handle_sigint=False
    )
    assert outcome.path.is_dir() and not outcome.interrupted
    assert outcome.summary.finished_trials == 2
    assert os.path.isfile(outcome.path / "summary.json")


def test_bring_your_own_agent(suite, tmp_path, monkeypatch):
    import trialrun.agents.factory  # noqa: F401  (an import error must fail, not skip)
    (tmp_path / "my_agent_h3.py").write_text(
        "def run(task_input, workspace, tools, model):\n"
        "    tools.read_file(path='note.md')\n"
        "    return 'The secret word is pineapple.'\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    r = invoke(
        "run",
        suite,
        "--agent",
        "my_agent_h3:run",
        "--out",
        tmp_path / "out",
        "-k",
        "1",
        "--task",
        "read-note",
    )
    assert r.exit_code == 0, r.output
    (line,) = read_lines(only_run_dir(tmp_path / "out"))
    assert line["model"] == "agent:my_agent_h3:run"
    assert line["solve"] is True and line["tool_calls"][0]["name"] == "read_file"
