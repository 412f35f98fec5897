"""`trialrun schema`: the JSON Schema agrees with the pydantic model the loader uses."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from ruamel.yaml import YAML
from typer.testing import CliRunner

from trialrun.cli import app
from trialrun.graders import GRADERS
from trialrun.tasks import FAMILIES, load_tasks, task_json_schema


def read_any(path: Path) -> Any:
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".json":
        return json.loads(text)
    if path.suffix == ".toml":
        return tomllib.loads(text)
    return YAML(typ="safe", pure=True).load(text)


def native_items(path: Path) -> list[dict[str, Any]]:
    data = read_any(path)
    if isinstance(data, list):
        return data
    if isinstance(data, dict) and set(data) == {"tasks"}:
        return data["tasks"]
    return [data]


@pytest.fixture(scope="module")
def schema() -> dict[str, Any]:
    result = CliRunner().invoke(app, ["schema"])
    assert result.exit_code == 0
    return json.loads(result.stdout)


def test_schema_header_and_grader_one_of(schema: dict[str, Any]) -> None:
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    jsonschema.Draft202012Validator.check_schema(schema)
    refs = schema["properties"]["graders"]["items"]["oneOf"]
    consts = {
        schema["$defs"][r["$ref"].split("/")[-1]]["properties"]["type"]["const"] for r in refs
    }
    assert consts == set(GRADERS.names()) | set(FAMILIES)  # families: one const per route
    assert schema["properties"]["graders"]["minItems"] == 1
    assert set(schema["required"]) == {
        "task_id",
        "suite",
        "description",
        "inputs",
        "graders",
        "tracked_metrics",
    }
    assert schema == task_json_schema()


def test_every_example_native_task_validates_against_the_schema(
    schema: dict[str, Any], examples: Path
) -> None:
    report = load_tasks([examples])
    files = {t.source for t in report.tasks if t.source_format == "native"}
    assert files
    validator = jsonschema.Draft202012Validator(schema)
    for f in sorted(files):
        for item in native_items(f):
            errors = [e.message for e in validator.iter_errors(item)]
            assert errors == [], (f, errors)


CORRUPTIONS = [
    ("suite", "gold"),
    ("trials", {"k": 0}),
    ("trails", {"k": 1}),
    ("graders", []),
    ("graders", [{"type": "contains", "value": 3}]),
    ("graders", [{"type": "contains", "value": "x", "caseSensitve": True}]),
    ("graders", [{"type": "nope"}]),
    ("graders", [{"type": "fileExists"}]),
    ("tracked_metrics", ["speed"]),
    ("inputs", {"prompt": ""}),  # other inputs keys are allowed (the suite spec's rule)
    ("inputs", {"repo": "r"}),
    ("environment", {"sandbox": "docker"}),
    ("environment", {"reset": False}),
    ("environment", {"reset": {"mode": "keep"}}),
    ("environment", {"budgets": {"max_turns": True}}),
    ("environment", {"fixture_dest": "../out"}),
    ("environment", {"fixture": "/etc"}),
    ("environment", {"fixture": "a/../.."}),
    ("trials", {"k": 10**6}),
    ("trials", {"k": True}),
    ("task_id", "a/b"),
    ("task_id", "a..b"),
    ("tracked_metrics", ["pass^k", "latency_p59"]),
    ("graders", [{"type": "state_check", "path": "a", "contains": "x", "lacks": "y"}]),
    ("graders", [{"type": "trajectory"}]),
    ("tier", "T5"),
]


@pytest.mark.parametrize(("key", "value"), CORRUPTIONS)
def test_schema_and_loader_agree_on_corrupted_examples(
    schema: dict[str, Any], examples: Path, tmp_path: Path, key: str, value: Any
) -> None:
    data = read_any(examples / "tasks/golden/create_todo.json")
    data[key] = value
    validator = jsonschema.Draft202012Validator(schema)
    assert list(validator.iter_errors(data)), "the schema should reject it"
    f = tmp_path / "t.json"
    f.write_text(json.dumps(data, indent=2))
    assert load_tasks([f]).problems, "the loader should reject it"


def test_missing_required_key_rejected_by_both(
    schema: dict[str, Any], examples: Path, tmp_path: Path
) -> None:
    for key in schema["required"]:
        data = read_any(examples / "tasks/golden/create_todo.json")
        del data[key]
        assert not jsonschema.Draft202012Validator(schema).is_valid(data)
        f = tmp_path / f"{key}.json"
        f.write_text(json.dumps(data))
        assert [p.field for p in load_tasks([f]).problems] == [key]
