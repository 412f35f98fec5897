"""Task files can't exhaust the machine (issue 15 items 3, 4 and 6): counts are capped and
strictly typed, files and lists have a maximum size, task ids are safe file names."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tasks_support import write

import trialrun
from trialrun.errors import UserError
from trialrun.tasks import (
    MAX_FILE_BYTES,
    MAX_K,
    MAX_LIST_ITEMS,
    MAX_TURNS,
    load_tasks,
    task_json_schema,
)

BASE = {
    "task_id": "t",
    "suite": "golden",
    "description": "d",
    "inputs": {"prompt": "hi"},
    "graders": [{"type": "contains", "value": "x"}],
    "tracked_metrics": ["pass^k"],
}


def _json(tmp_path: Path, name: str = "t.json", **changes: object) -> Path:
    f = tmp_path / name
    f.write_text(json.dumps({**BASE, **changes}), encoding="utf-8")
    return f


def _lines(path: Path, **options: object) -> list[str]:
    return [f"{p.field}: {p.message}" for p in load_tasks([path], **options).problems]


# --- item 3: counts ---------------------------------------------------------------------


def test_k_beyond_the_maximum_is_refused_in_yaml(tmp_path: Path) -> None:
    f = write(
        tmp_path / "t.yaml",
        "task_id: t\nsuite: golden\ndescription: d\ninputs: {prompt: hi}\n"
        "graders: [{type: contains, value: x}]\ntracked_metrics: [pass^k]\n"
        "trials: {k: 10000000000000000000000000000000000000000}\n",
    )
    [line] = _lines(f)
    assert line.startswith("trials.k:") and str(MAX_K) in line


def test_k_beyond_the_maximum_is_refused_in_toml(tmp_path: Path) -> None:
    f = write(
        tmp_path / "t.toml",
        'task_id = "t"\nsuite = "golden"\ndescription = "d"\ntracked_metrics = ["pass^k"]\n'
        'inputs = {prompt = "hi"}\ngraders = [{type = "contains", value = "x"}]\n'
        "trials = {k = 100000000000000000000}\n",
    )
    [line] = _lines(f)
    assert line.startswith("trials.k:") and str(MAX_K) in line


def test_k_with_thousands_of_digits_is_one_line_not_a_traceback(tmp_path: Path) -> None:
    f = tmp_path / "t.json"
    f.write_text(json.dumps({**BASE, "trials": {"k": 0}}).replace('"k": 0', '"k": ' + "9" * 5000))
    report = load_tasks([f])
    [problem] = report.problems
    assert "digits" in problem.message and "\n" not in str(problem)
    assert report.tasks == []


@pytest.mark.parametrize(
    ("place", "value"),
    [
        ({"trials": {"k": True}}, "trials.k"),
        ({"environment": {"budgets": {"max_turns": True}}}, "environment.budgets.max_turns"),
        (
            {"environment": {"budgets": {"tool_call_budget": False}}},
            "environment.budgets.tool_call_budget",
        ),
        ({"environment": {"budgets": {"timeout_s": True}}}, "environment.budgets.timeout_s"),
        ({"environment": {"budgets": {"max_tokens": True}}}, "environment.budgets.max_tokens"),
        ({"trials": {"k": 2.0}}, "trials.k"),
    ],
)
def test_counts_must_be_numbers_not_booleans(tmp_path: Path, place: dict, value: str) -> None:
    [line] = _lines(_json(tmp_path, **place))
    assert line.startswith(f"{value}: input should be a valid")


@pytest.mark.parametrize(
    ("place", "field"),
    [
        (
            {"environment": {"budgets": {"max_turns": MAX_TURNS + 1}}},
            "environment.budgets.max_turns",
        ),
        ({"environment": {"budgets": {"max_steps": 10**30}}}, "environment.budgets.max_steps"),
        (
            {"environment": {"budgets": {"tool_call_budget": 10**12}}},
            "environment.budgets.tool_call_budget",
        ),
        ({"environment": {"budgets": {"timeout_s": 1e300}}}, "environment.budgets.timeout_s"),
        ({"environment": {"budgets": {"max_tokens": 10**15}}}, "environment.budgets.max_tokens"),
        ({"environment": {"budgets": {"max_cost_usd": 1e300}}}, "environment.budgets.max_cost_usd"),
        (
            {"environment": {"faults": [{"tool": "read_file", "on_call": 10**20}]}},
            "environment.faults.0.on_call",
        ),
    ],
)
def test_every_count_has_a_maximum(tmp_path: Path, place: dict, field: str) -> None:
    [line] = _lines(_json(tmp_path, **place))
    assert line.startswith(f"{field}: input should be less than or equal to")


def test_nan_budgets_are_refused(tmp_path: Path) -> None:
    f = tmp_path / "t.json"
    f.write_text(json.dumps({**BASE, "environment": {"budgets": {"timeout_s": float("nan")}}}))
    [line] = _lines(f)
    assert line.startswith("environment.budgets.timeout_s:")


def test_schema_shows_the_maxima() -> None:
    schema = task_json_schema()
    k = json.dumps(schema["$defs"]["Trials"]["properties"]["k"])
    assert f'"maximum": {MAX_K}' in k


@pytest.mark.parametrize("k", [10**20, MAX_K + 1, True, 0, "3"])
def test_run_config_refuses_a_bad_k(k: object) -> None:
    with pytest.raises(UserError) as err:
        trialrun.RunConfig(tasks=["x"], k=k)  # type: ignore[arg-type]
    assert "\n" not in str(err.value) and "k" in str(err.value)


def test_run_refuses_a_huge_k_before_running(tmp_path: Path) -> None:
    with pytest.raises(UserError, match=str(MAX_K)):
        trialrun.run([str(_json(tmp_path))], ["scripted:x.yaml"], k=10**20, out=tmp_path / "o")
    assert not (tmp_path / "o").exists()


def test_run_config_keeps_good_ks() -> None:
    assert trialrun.RunConfig(k=MAX_K).k == MAX_K
    assert trialrun.RunConfig(k=None).k is None
    assert trialrun.RunConfig().allow_external_links is False


# --- item 4: sizes ----------------------------------------------------------------------


def test_file_over_the_size_limit_is_refused_before_parsing(tmp_path: Path) -> None:
    f = tmp_path / "big.yaml"
    f.write_bytes(b"task_id: t\n" + b"# padding\n" * 200 + b"tags: [unclosed\n")
    [problem] = load_tasks([f], max_file_bytes=1000).problems
    assert "over" in problem.message and "1000" in problem.message
    assert "syntax" not in problem.message  # it was never parsed
    assert "max_file_bytes" in problem.message
    assert MAX_FILE_BYTES == 10 * 1024 * 1024


def test_size_limit_comes_from_trialrun_toml(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    f = _json(tmp_path)
    (tmp_path / "trialrun.toml").write_text("[tasks]\nmax_file_bytes = 50\n")
    monkeypatch.chdir(tmp_path)
    [problem] = load_tasks([f]).problems
    assert "50" in problem.message
    (tmp_path / "trialrun.toml").write_text("[tasks]\nmax_file_bytes = true\n")
    with pytest.raises(UserError, match=r"\[tasks\] max_file_bytes"):
        load_tasks([f])


def test_lists_over_the_maximum_length_are_one_line_each(tmp_path: Path) -> None:
    n = MAX_LIST_ITEMS + 1
    f = _json(
        tmp_path,
        tags=["a"] * n,
        graders=[{"type": "contains", "value": "x"}] * n,
        inputs={"prompt": "hi", "data": list(range(n))},
    )
    got = _lines(f)
    assert sorted(line.split(":")[0] for line in got) == ["graders", "inputs.data", "tags"]
    assert all(f"{n} items" in line and str(MAX_LIST_ITEMS) in line for line in got)


def test_a_file_of_too_many_tasks_is_refused(tmp_path: Path) -> None:
    f = tmp_path / "many.json"
    f.write_text(json.dumps([{**BASE, "task_id": f"t{i}"} for i in range(MAX_LIST_ITEMS + 1)]))
    report = load_tasks([f])
    assert report.tasks == [] and len(report.problems) == 1
    assert str(MAX_LIST_ITEMS) in report.problems[0].message


def test_many_values_are_refused(tmp_path: Path) -> None:
    f = tmp_path / "t.json"
    data = {**BASE, "inputs": {"prompt": "hi", **{f"k{i}": [1] * 900 for i in range(300)}}}
    f.write_text(json.dumps(data))
    [problem] = load_tasks([f]).problems
    assert "too many values" in problem.message


def test_deep_nesting_is_refused(tmp_path: Path) -> None:
    deep: object = "x"
    for _ in range(200):
        deep = {"a": deep}
    f = _json(tmp_path, inputs={"prompt": "hi", "deep": deep})
    [problem] = load_tasks([f]).problems
    assert "nest" in problem.message


# --- item 6: task ids -------------------------------------------------------------------


@pytest.mark.parametrize(
    "task_id",
    ["a/b", "..", "a..b", "/etc/passwd", "-x", ".hidden", "a b", "x" * 129, "a\\b", "é"],
)
def test_unsafe_task_ids_are_refused(tmp_path: Path, task_id: str) -> None:
    [line] = _lines(_json(tmp_path, task_id=task_id))
    assert line.startswith("task_id:") and "letters, digits" in line


@pytest.mark.parametrize("task_id", ["a", "fix-auth-bypass_1", "v1.2", "x" * 128, "A_9-z.q"])
def test_safe_task_ids_load(tmp_path: Path, task_id: str) -> None:
    assert _lines(_json(tmp_path, task_id=task_id)) == []


def test_scribe_ids_are_held_to_the_same_pattern(tmp_path: Path) -> None:
    f = tmp_path / "a b.json"
    f.write_text(json.dumps({"id": "a b", "description": "d", "userMessage": "u",
                             "expectedTools": ["read_file"]}))  # fmt: skip
    [line] = _lines(f)
    assert line.startswith("id:") and "letters, digits" in line
