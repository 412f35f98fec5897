"""Property tests: valid tasks round-trip through YAML, JSON and TOML; junk never raises."""

from __future__ import annotations

import io
import json
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from ruamel.yaml import YAML

from trialrun.tasks import Task, load_tasks

VAULT = ["read_file", "list_files", "write_file", "delete_file", "move_file"]
METRICS = ["pass^k", "solve^k", "pass@k", "latency_p95", "cost_usd", "tokens", "turns"]

text = st.text(
    alphabet=st.characters(blacklist_categories=("Cs", "Cc"), blacklist_characters="\x7f"),
    min_size=1,
    max_size=25,
)
# a task id never holds `..` (task_id_problem): the loader refuses it, rightly
ident = st.from_regex(r"[A-Za-z0-9][A-Za-z0-9._-]{0,20}", fullmatch=True).filter(
    lambda s: ".." not in s
)
any_of = st.one_of(text, st.lists(text, min_size=1, max_size=3))
grader = st.one_of(
    st.builds(lambda v: {"type": "contains", "value": v}, any_of),
    st.builds(
        lambda v, cs: {
            "type": "fileContains",
            "path": "notes/a.md",
            "value": v,
            "caseSensitive": cs,
        },
        any_of,
        st.booleans(),
    ),
    st.builds(
        lambda t: {"type": "expectedTools", "tools": t},
        st.lists(st.sampled_from(VAULT), max_size=3),
    ),
    st.builds(lambda m: {"type": "toolCallBudget", "max": m}, st.integers(0, 50)),
    st.builds(
        lambda f: {"type": "regex", "value": ["a+b", r"\d{2}"], "flags": f},
        st.sampled_from(["", "i", "ms"]),
    ),
)
task_dict = st.fixed_dictionaries(
    {
        "task_id": ident,
        "suite": st.sampled_from(["golden", "adversarial", "open_ended", "failure_replays"]),
        "description": text,
        "inputs": st.fixed_dictionaries({"prompt": text}),
        "graders": st.lists(grader, min_size=1, max_size=4),
        "tracked_metrics": st.lists(st.sampled_from(METRICS), min_size=1, max_size=3, unique=True),
    },
    optional={
        "tier": st.sampled_from(["T1", "T2", "T3", "T4"]),
        "tags": st.lists(text, max_size=3),
        "trials": st.fixed_dictionaries({"k": st.integers(1, 10)}),
        "environment": st.fixed_dictionaries(
            {"budgets": st.fixed_dictionaries({"max_turns": st.integers(1, 30)})}
        ),
        "gates": st.fixed_dictionaries({"nightly": st.booleans()}),
    },
)


def to_toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, list):
        return "[" + ", ".join(to_toml_value(v) for v in value) + "]"
    return "{" + ", ".join(f"{json.dumps(k)} = {to_toml_value(v)}" for k, v in value.items()) + "}"


def to_toml(data: dict[str, Any]) -> str:
    """A minimal writer: scalars and inline values first, graders as [[graders]] tables."""
    out = [f"{json.dumps(k)} = {to_toml_value(v)}" for k, v in data.items() if k != "graders"]
    for g in data["graders"]:
        out.append("[[graders]]")
        out += [f"{k} = {to_toml_value(v)}" for k, v in g.items()]
    return "\n".join(out) + "\n"


def to_yaml(data: Any) -> str:
    buf = io.StringIO()
    yaml = YAML(typ="safe", pure=True)
    yaml.default_flow_style = False
    yaml.dump(data, buf)
    return buf.getvalue()


def dump(task: Task) -> dict[str, Any]:
    return {
        **task.model_dump(exclude={"graders"}),
        "graders": [g.model_dump() for g in task.graders],
    }


FAST = settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


@FAST
@given(task_dict, st.sampled_from(["yaml", "json", "toml"]))
def test_valid_tasks_round_trip(data: dict[str, Any], fmt: str) -> None:
    expected = Task.model_validate(data)
    body = {"yaml": to_yaml, "json": lambda d: json.dumps(d, indent=2), "toml": to_toml}[fmt](data)
    with tempfile.TemporaryDirectory() as tmp:
        f = Path(tmp) / f"task.{fmt}"
        f.write_text(body, encoding="utf-8")
        report = load_tasks([f])
    assert report.problems == [], [str(p) for p in report.problems]
    [task] = report.tasks
    assert dump(task) == dump(expected)


@FAST
@given(st.lists(task_dict, min_size=1, max_size=3, unique_by=lambda d: d["task_id"]))
def test_lists_of_tasks_round_trip(items: list[dict[str, Any]]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        y = Path(tmp) / "a.yaml"
        y.write_text(to_yaml(items), encoding="utf-8")
        got = load_tasks([y])
    assert got.problems == []
    assert [dump(t) for t in got.tasks] == [dump(Task.model_validate(d)) for d in items]


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | text,
    lambda children: (
        st.lists(children, max_size=4)
        | st.dictionaries(
            st.sampled_from(
                [
                    "task_id",
                    "id",
                    "userMessage",
                    "graders",
                    "type",
                    "value",
                    "tasks",
                    "inputs",
                    "suite",
                    "x",
                ]
            )
            | text,
            children,
            max_size=5,
        )
    ),
    max_leaves=20,
)


def _check_never_raises(name: str, content: bytes) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        f = Path(tmp) / name
        f.write_bytes(content)
        report = load_tasks([f])
    if not report.skipped and not report.tasks:
        assert report.problems, "a file that is neither a task nor skipped must give a problem"
    for p in report.problems:
        assert str(p).startswith(str(f)) and "\n" not in str(p)


@FAST
@given(st.binary(max_size=300), st.sampled_from(["j.json", "y.yaml", "t.toml", "y.yml"]))
def test_junk_bytes_never_raise(content: bytes, name: str) -> None:
    _check_never_raises(name, content)


@FAST
@given(json_values, st.sampled_from(["json", "yaml"]))
def test_junk_structures_never_raise(value: Any, fmt: str) -> None:
    body = json.dumps(value) if fmt == "json" else to_yaml(value)
    _check_never_raises(f"x.{fmt}", body.encode())


@FAST
@given(st.text(alphabet="[]{}=\"'#.,\n abtask_id=123", max_size=120))
def test_junk_toml_never_raises(body: str) -> None:
    _check_never_raises("t.toml", body.encode())
