"""JSON past what Python's json reads, in every file of a run folder (issue 32, item 10).

A results line of 10^5 nested brackets, or with a 5,000-digit number, made every reader of
a run folder die with a traceback (RecursionError from json, ValueError from int parsing),
and a 4,000-digit latency or token count (read as an int) with an OverflowError when a
figure was computed. Each reader now refuses the line as one stderr line naming the file,
the line and the fix, exit 2 (the view answers 422 with that line); readers that already
read a file leniently (regrade and judge extract read transcripts as evidence, the lock is
"no lock" when unreadable, triage notes a trial it cannot show) keep doing so, without a
traceback.
"""

from __future__ import annotations

import http.client
import json
import shutil
import threading
from collections.abc import Callable
from pathlib import Path

import pytest
from security_readers_support import finished_run, one_line

from cli_support import cli
from trialrun.reports import make_server

DEPTH = 100_000  # nested brackets: far past the interpreter's recursion limit
DIGITS = 5_000  # past the 4,300 digits Python turns into an int
BIG = 4_000  # under that limit: an int, but no float holds it


def _bomb(depth: int = DEPTH) -> str:
    return "[" * depth + "]" * depth


def _with_raw(item: dict, key: str, raw: str) -> bytes:
    return json.dumps({**item, key: "@RAW@"}).replace('"@RAW@"', raw).encode()


def _tokens(item: dict, raw: str) -> bytes:
    text = json.dumps({**item, "tokens": {"prompt": "@RAW@", "cached": 0, "completion": 1}})
    return text.replace('"@RAW@"', raw).encode()


# damage of line 2 of results.jsonl -> (the new line from the old one, what the error says)
LINE_DAMAGES: dict[str, tuple[Callable[[dict], bytes], str]] = {
    "10^5 nested brackets": (lambda item: _bomb().encode(), "nested too deep"),
    "10^5 nested in a key": (lambda item: _with_raw(item, "verdicts", _bomb()), "nested too deep"),
    "5,000-digit trial": (
        lambda item: _with_raw(item, "trial", "7" * DIGITS), "a 5000-digit number"
    ),
    "5,000-digit extra key": (
        lambda item: _with_raw(item, "k", "-" + "1" * DIGITS), "a 5000-digit number"
    ),
    "4,000-digit latency": (
        lambda item: _with_raw(item, "latency_s", "9" * BIG), "latency_s must be a number"
    ),
    "4,000-digit token count": (
        lambda item: _tokens(item, "9" * BIG), "tokens.prompt must be a number"
    ),
}


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return finished_run(tmp_path_factory.mktemp("readers"))


def _damage_line(run: Path, index: int, edit: Callable[[dict], bytes]) -> None:
    path = run / "results.jsonl"
    lines = path.read_bytes().splitlines()
    lines[index] = edit(json.loads(lines[index]))
    path.write_bytes(b"".join(line + b"\n" for line in lines))


def _commands(run: Path, base: dict[str, Path], work: Path) -> dict[str, list[str | Path]]:
    """Every command that reads a run folder's results (the view: `_view_error`)."""
    return {
        "summarize": ["summarize", run],
        "show": ["show", run, "read-a", "0"],
        "compare": ["compare", run, "--baseline", base["baseline"]],
        "gate merge": ["gate", "merge", run, "--baseline", base["baseline"]],
        "bless": ["bless", run, "--baselines", work / "blessed"],
        "report": ["report", run, "--markdown", work / "report.md"],
        "regrade": ["regrade", run],
        "judge extract": ["judge", "extract", run, "-o", work / "gold.json"],
        "judge bias": ["judge", "bias", run],
        "history import": ["history", "import", run, "--store", work / "history.db"],
        "replay import": ["replay", "import", run, "--task", "read-a", "-o", work / "r.yaml"],
        "run --resume": ["run", "--resume", run],
    }


COMMANDS = list(_commands(Path("RUN"), {"baseline": Path("B")}, Path("W")))


def _copy(base: dict[str, Path], work: Path) -> Path:
    run = work / "run"
    shutil.copytree(base["run"], run)
    return run


def _view_error(root: Path, page: str) -> tuple[int, str]:
    """(HTTP status, body) of one page of `trialrun view ROOT`, served in-process."""
    server = make_server(root, port=0)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05})
    thread.start()
    try:
        conn = http.client.HTTPConnection(*server.server_address[:2], timeout=30)
        conn.request("GET", page)
        response = conn.getresponse()
        status, body = response.status, response.read().decode()
        conn.close()
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)
    return status, body


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize("damage", list(LINE_DAMAGES))
def test_a_results_line_past_json_limits_is_one_line_in_every_reader(
    damage: str, command: str, base: dict[str, Path], tmp_path: Path, capsys, monkeypatch
) -> None:
    monkeypatch.chdir(tmp_path)  # no trialrun.toml of the repository
    run = _copy(base, tmp_path)
    (run / "summary.json").unlink()  # every reader reads the lines themselves
    edit, needle = LINE_DAMAGES[damage]
    _damage_line(run, 1, edit)
    code, _, err = cli(capsys, *_commands(run, base, tmp_path)[command])
    line = one_line(code, err)
    assert f"results.jsonl:2: {needle}" in line, line
    assert "delete that line" in line
    for made in ("blessed", "report.md", "gold.json", "history.db", "r.yaml"):
        assert not (tmp_path / made).exists(), made


@pytest.mark.parametrize("damage", list(LINE_DAMAGES))
def test_the_view_answers_a_damaged_line_with_its_one_line(
    damage: str, base: dict[str, Path], tmp_path: Path
) -> None:
    run = _copy(base, tmp_path)
    edit, needle = LINE_DAMAGES[damage]
    _damage_line(run, 1, edit)
    status, body = _view_error(tmp_path, f"/api/run/{run.name}")
    assert status == 422, body
    error = json.loads(body)["error"]
    assert "\n" not in error and f"results.jsonl:2: {needle}" in error


def test_unclosed_nesting_as_the_last_line_is_refused_not_taken_for_a_torn_write(
    base: dict[str, Path], tmp_path: Path, capsys
) -> None:
    """A killed write leaves a cut line the reader skips; 10^5 open brackets are no cut
    line the writer could have left (it writes nothing that deep)."""
    run = _copy(base, tmp_path)
    with open(run / "results.jsonl", "ab") as handle:
        handle.write(b"[" * DEPTH)
    (run / "summary.json").unlink()
    line = one_line(*cli(capsys, "summarize", run)[::2])
    assert "results.jsonl:7: nested too deep" in line


def test_a_manifest_past_json_limits_names_its_line(
    base: dict[str, Path], tmp_path: Path, capsys, monkeypatch
) -> None:
    monkeypatch.chdir(tmp_path)
    for name, raw, needle in (
        ("nested", _bomb(), "run.json:5: nested too deep"),
        ("long", "1" * DIGITS, "run.json:5: a 5000-digit number"),
    ):
        work = tmp_path / name
        run = _copy(base, work)
        manifest = json.loads((run / "run.json").read_text())
        text = json.dumps({"run_id": manifest["run_id"], "started_at": "x", "argv": ["a"],
                           "models": manifest["models"]}, indent=2)
        text = text.replace('"a"', raw)  # argv: the 5th line
        (run / "run.json").write_text(text)
        for command in ("summarize", "show", "compare", "bless", "report", "history import",
                        "run --resume"):
            code, _, err = cli(capsys, *_commands(run, base, work)[command])
            line = one_line(code, err)
            assert needle in line and "restore the file" in line, (command, line)


def test_a_summary_past_json_limits_is_one_line(
    base: dict[str, Path], tmp_path: Path, capsys, monkeypatch
) -> None:
    monkeypatch.chdir(tmp_path)
    run = _copy(base, tmp_path)
    summary = json.loads((run / "summary.json").read_text())
    text = json.dumps({**summary, "finished_trials": "@RAW@"}, indent=1)
    (run / "summary.json").write_text(text.replace('"@RAW@"', "8" * DIGITS))
    for command in ("compare", "gate merge", "report"):
        code, _, err = cli(capsys, *_commands(run, base, tmp_path)[command])
        line = one_line(code, err)
        assert "summary.json:" in line and "a 5000-digit number" in line, (command, line)
        assert "delete it to have it recomputed" in line


def _bomb_transcripts(run: Path) -> None:
    """Every transcript file starts with 10^5 nested brackets: each trial's offset (within
    the old bytes) now lands inside them."""
    for path in (run / "transcripts").rglob("*.jsonl"):
        path.write_bytes(_bomb().encode() + b"\n" + path.read_bytes())


def test_a_transcript_past_json_limits_is_one_line_where_it_is_shown(
    base: dict[str, Path], tmp_path: Path, capsys
) -> None:
    run = _copy(base, tmp_path)
    _bomb_transcripts(run)
    for args in (["show", run, "read-a", "0"],
                 ["replay", "import", run, "--task", "read-a", "--trial", "0",
                  "-o", tmp_path / "r.yaml"]):
        line = one_line(*cli(capsys, *args)[::2])
        assert "transcripts/" in line and "cannot read the transcript (nested too deep" in line
    assert not (tmp_path / "r.yaml").exists()


def test_readers_of_transcripts_as_evidence_go_on_without_them(
    base: dict[str, Path], tmp_path: Path, capsys, monkeypatch
) -> None:
    monkeypatch.chdir(tmp_path)
    run = _copy(base, tmp_path)
    _bomb_transcripts(run)
    code, _, err = cli(capsys, "judge", "extract", run, "-o", tmp_path / "gold.json")
    assert code == 0 and "Traceback" not in err, err
    code, _, err = cli(capsys, "regrade", run, "--out", tmp_path / "regraded")
    assert code == 0 and "Traceback" not in err, err
    warnings = [line for line in err.splitlines() if line.startswith("warning: ")]
    assert len(warnings) == 6, err  # one per trial, naming its file and what is wrong
    assert all("cannot read the transcript (nested too deep" in w for w in warnings)
    assert all("regraded from its results line alone" in w for w in warnings)


def test_a_chat_log_with_deep_tool_arguments_imports_them_as_raw_text(
    tmp_path: Path, capsys
) -> None:
    log = tmp_path / "chat.json"
    call = {"id": "c1", "type": "function",
            "function": {"name": "read_file", "arguments": _bomb()}}
    log.write_text(json.dumps({"messages": [
        {"role": "user", "content": "read it"},
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "c1", "content": "error: no such file"},
        {"role": "assistant", "content": "done"},
    ]}))
    code, out, err = cli(capsys, "replay", "import", log, "-o", tmp_path / "r.yaml",
                         "--expect", "found it")
    assert code == 0 and "Traceback" not in err, err
    assert (tmp_path / "r.yaml").is_file()


def test_a_run_lock_past_json_limits_is_no_lock(
    base: dict[str, Path], tmp_path: Path, capsys
) -> None:
    """An unreadable lock already counts as none (a process died writing it)."""
    results = tmp_path / "results"
    run = results / base["run"].name
    shutil.copytree(base["run"], run)
    (run / ".lock").write_text(json.dumps({"pid": "@", "host": "h"}).replace('"@"', _bomb()))
    status, body = _view_error(results, "/api/runs")
    assert status == 200 and json.loads(body)["runs"][0]["run_id"] == run.name
    code, _, err = cli(capsys, "clean", results)
    assert code == 0 and "Traceback" not in err, err
    assert not (run / ".lock").exists()


def test_triage_notes_a_trial_it_cannot_show_and_goes_on(
    base: dict[str, Path], tmp_path: Path, capsys, monkeypatch
) -> None:
    monkeypatch.setenv("COLUMNS", "2000")  # the note on one line of the console
    run = _copy(base, tmp_path)
    store = tmp_path / "history.db"
    code, _, err = cli(capsys, "history", "import", run, "--store", store)
    assert code == 0, err
    _damage_line(run, 1, LINE_DAMAGES["10^5 nested brackets"][0])
    code, out, err = cli(capsys, "triage", "read-a", "--store", store, "--no-rerun")
    assert code == 0 and "Traceback" not in err, err
    notes = [line for line in out.splitlines() if "cannot show trial" in line]
    assert len(notes) == 3 and all("results.jsonl:2: nested too deep" in n for n in notes)


def test_a_gold_file_past_json_limits_is_one_line(tmp_path: Path, capsys) -> None:
    gold = tmp_path / "gold.json"
    gold.write_text('{"version": 1,\n "tuples": ' + _bomb() + "}")
    line = one_line(*cli(capsys, "judge", "calibrate", gold, "--recorded")[::2])
    assert "gold.json:2: nested too deep" in line, line


def test_a_judge_cache_line_past_json_limits_is_a_miss(tmp_path: Path) -> None:
    """A damaged cache line is a miss, never a crash: nesting bombs included."""
    from trialrun.judge import VerdictCache

    cache = VerdictCache(tmp_path)
    cache.put("j", "sha-1", True, ["YES"])
    with open(cache.path, "a") as handle:
        handle.write(_bomb() + "\n")
        handle.write('{"judge": "j", "prompt_sha256": ' + "9" * DIGITS + "}\n")
    fresh = VerdictCache(tmp_path)
    assert fresh.get("j", "sha-2") is None
    assert fresh.get("j", "sha-1") is not None


@pytest.mark.parametrize(("text", "needle"), [
    ("[compare]\nalpha = " + "[" * DEPTH + "]" * DEPTH + "\n", "nested too deep"),
    ("[compare]\nalpha = " + "1" * DIGITS + "\n", "a number of more than"),
])
def test_a_project_config_past_toml_limits_is_one_line(
    text: str, needle: str, base: dict[str, Path], tmp_path: Path, capsys, monkeypatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "trialrun.toml").write_text(text)
    line = one_line(*cli(capsys, "compare", base["run"], "--baseline", base["baseline"])[::2])
    assert "trialrun.toml: " in line and needle in line, line
