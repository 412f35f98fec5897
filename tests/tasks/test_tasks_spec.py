"""The suite spec's task files load as written (issue 10 item 5).

`data/suite_spec.schema.json` is the spec's schema, reconstructed from its text (see its
`$comment`). Every spec-valid example, and every document the property test draws from
the spec schema's vocabulary, must validate against it, against `trialrun schema`, and
load with no problem.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from ruamel.yaml import YAML
from tasks_support import write

from trialrun.metrics import METRIC_ALIASES, TRACKED_METRICS
from trialrun.tasks import SANDBOXES, load_tasks, task_json_schema

DATA = Path(__file__).parent / "data"
SPEC_SCHEMA = json.loads((DATA / "suite_spec.schema.json").read_text(encoding="utf-8"))
SPEC_EXAMPLES = sorted((DATA / "spec").glob("*.yaml"))

BASE = """
task_id: t
suite: golden
description: d
inputs: {prompt: hi}
tracked_metrics: [pass^k]
"""


def _yaml(path: Path) -> Any:
    return YAML(typ="safe", pure=True).load(path.read_text(encoding="utf-8"))


def _problems(tmp_path: Path, body: str, name: str = "t.yaml") -> list[str]:
    f = write(tmp_path / name, body)
    return [f"{p.field}: {p.message}" for p in load_tasks([f]).problems]


def _one(tmp_path: Path, body: str) -> Any:
    f = write(tmp_path / "t.yaml", body)
    report = load_tasks([f])
    assert report.problems == [], [str(p) for p in report.problems]
    assert report.warnings == [], [str(w) for w in report.warnings]
    [task] = report.tasks
    return task


# --- the spec's own examples ------------------------------------------------------------


def test_spec_schema_is_a_valid_2020_12_schema() -> None:
    jsonschema.Draft202012Validator.check_schema(SPEC_SCHEMA)
    assert "reconstructed" in SPEC_SCHEMA["$comment"].lower()
    assert {p.name for p in SPEC_EXAMPLES} == {"fix-auth-bypass_1.yaml", "minimal_1.yaml"}


@pytest.mark.parametrize("path", SPEC_EXAMPLES, ids=lambda p: p.name)
def test_spec_examples_validate_against_both_schemas_and_load(path: Path) -> None:
    data = _yaml(path)
    assert list(jsonschema.Draft202012Validator(SPEC_SCHEMA).iter_errors(data)) == []
    ours = [
        e.message for e in jsonschema.Draft202012Validator(task_json_schema()).iter_errors(data)
    ]
    assert ours == []
    report = load_tasks([path])
    assert report.problems == [], [str(p) for p in report.problems]
    assert report.warnings == [], [str(w) for w in report.warnings]
    assert [t.task_id for t in report.tasks] == [data["task_id"]]


def test_full_spec_example_maps_every_field() -> None:
    [task] = load_tasks([DATA / "spec/fix-auth-bypass_1.yaml"]).tasks
    assert task.inputs.prompt.startswith("login.py lets anyone in")
    assert task.inputs.extra == {
        "ticket": "SEC-1042",
        "persona": "an impatient on-call engineer",
        "files_of_interest": ["login.py", "check_login.py"],
    }
    env = task.environment
    assert env.fixture == "auth-service"
    assert task.fixture_path == DATA / "spec/fixtures/auth-service"
    assert env.sandbox == "workspace"
    budgets = env.budgets
    assert (budgets.max_turns, budgets.tool_call_budget) == (12, 30)
    assert (budgets.max_cost_usd, budgets.timeout_s) == (0.5, 300)
    assert [g.type for g in task.graders] == [
        "command",
        "command",
        "fileContains",
        "fileUnchanged",
        "expectedTools",
        "forbiddenTools",
        "toolCallBudget",
        "llmRubric",
    ]
    assert task.graders[2].value == "if not password"
    assert task.graders[4].tools == ["read_file", "write_file"]
    assert task.graders[6].max == 30
    assert task.tracked_metrics == [
        "pass^k",
        "solve^k",
        "steps",
        "cost",
        "latency_p95",
        "tool_calls",
    ]


# --- inputs -----------------------------------------------------------------------------


def test_inputs_keep_any_extra_keys(tmp_path: Path) -> None:
    task = _one(
        tmp_path,
        BASE.replace("{prompt: hi}", "{prompt: hi, repo: r, limits: {n: 3}}")
        + "graders: [{type: contains, value: x}]\n",
    )
    assert task.inputs.prompt == "hi"
    assert task.inputs.extra == {"repo": "r", "limits": {"n": 3}}


def test_inputs_without_prompt_is_one_line_saying_what_prompt_is(tmp_path: Path) -> None:
    got = _problems(
        tmp_path,
        BASE.replace("{prompt: hi}", "{repo: r, promt: hi}")
        + "graders: [{type: contains, value: x}]\n",
    )
    [line] = got
    assert line.startswith("inputs.prompt: required key is missing")
    assert "the user message" in line and "did you mean 'prompt'" in line


def test_extra_input_spelt_like_a_known_one_is_a_warning(tmp_path: Path) -> None:
    f = write(
        tmp_path / "t.yaml",
        BASE.replace("{prompt: hi}", "{prompt: hi, context_file: [a.md], repo: r}")
        + "graders: [{type: contains, value: x}]\n",
    )
    report = load_tasks([f])
    assert report.problems == [] and len(report.tasks) == 1
    [warning] = report.warnings
    assert warning.field == "inputs.context_file"
    assert warning.message.endswith("did you mean 'context_files'?")


def test_python_callable_agent_sees_extra_inputs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import asyncio
    import sys

    from trialrun.agents import AgentLimits, make_agent
    from trialrun.tools import Toolbox, ToolContext

    (tmp_path / "spec_inputs_agent.py").write_text(
        "import json\n"
        "def agent(task_input, workspace, tools, model):\n"
        "    return json.dumps([task_input.prompt, task_input.extra], sort_keys=True)\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    [task] = load_tasks([DATA / "spec/fix-auth-bypass_1.yaml"]).tasks
    agent = make_agent("spec_inputs_agent:agent", None)
    box = Toolbox([], ToolContext(tmp_path, task.task_id, {"trial": 0}))
    try:
        result = asyncio.run(agent.run(task, tmp_path, box, None, AgentLimits(5, timeout_s=30)))
    finally:
        sys.modules.pop("spec_inputs_agent", None)
    assert result.failure is None, result.failure_message
    prompt, extra = json.loads(result.final_text)
    assert prompt == task.inputs.prompt
    assert extra == {
        "files_of_interest": ["login.py", "check_login.py"],
        "persona": "an impatient on-call engineer",
        "ticket": "SEC-1042",
    }


# --- environment: reset, sandbox, budgets -----------------------------------------------


def test_reset_object_from_names_the_fixture(tmp_path: Path) -> None:
    (tmp_path / "fixtures/fx").mkdir(parents=True)
    task = _one(
        tmp_path,
        BASE
        + "graders: [{type: contains, value: x}]\n"
        + "environment: {reset: {mode: fresh, from: fx}}\n",
    )
    assert task.environment.fixture == "fx"
    assert task.fixture_path == tmp_path / "fixtures/fx"


def test_reset_from_must_exist_like_a_fixture(tmp_path: Path) -> None:
    [line] = _problems(
        tmp_path,
        BASE + "graders: [{type: contains, value: x}]\nenvironment: {reset: {from: nope}}\n",
    )
    assert line.startswith("environment.reset.from: fixture folder 'nope' not found")


def test_bad_reset_object_is_one_line_about_its_field(tmp_path: Path) -> None:
    got = _problems(
        tmp_path, BASE + "graders: [{type: contains, value: x}]\nenvironment: {reset: {from: 3}}\n"
    )
    assert got == [
        "environment.reset.from: input should be a valid string (got 3) "
        "(see docs/reference/tasks.md#environment-reset-from)"
    ]


def test_reset_true_still_means_fresh(tmp_path: Path) -> None:
    task = _one(
        tmp_path, BASE + "graders: [{type: contains, value: x}]\nenvironment: {reset: true}\n"
    )
    assert task.environment.reset is True


@pytest.mark.parametrize("reset", ["false", "{mode: keep}"])
def test_reset_keep_is_refused_in_one_line(tmp_path: Path, reset: str) -> None:
    [line] = _problems(
        tmp_path,
        BASE + f"graders: [{{type: contains, value: x}}]\nenvironment: {{reset: {reset}}}\n",
    )
    assert line.startswith("environment.reset")
    assert "independent" in line and "fresh" in line


def test_reset_from_and_fixture_must_agree(tmp_path: Path) -> None:
    (tmp_path / "fixtures/a").mkdir(parents=True)
    (tmp_path / "fixtures/b").mkdir(parents=True)
    [line] = _problems(
        tmp_path,
        BASE
        + "graders: [{type: contains, value: x}]\n"
        + "environment: {fixture: a, reset: {mode: fresh, from: b}}\n",
    )
    assert line.startswith("environment.reset: reset.from 'b' and fixture 'a'")
    same = _problems(
        tmp_path,
        BASE
        + "graders: [{type: contains, value: x}]\n"
        + "environment: {fixture: a, reset: {from: a}}\n",
    )
    assert same == []


def test_sandbox_is_a_string_checked_against_one_constant(tmp_path: Path) -> None:
    assert {"workspace", "none"} <= set(SANDBOXES)
    for name in ("workspace", "none"):
        task = _one(
            tmp_path,
            BASE + f"graders: [{{type: contains, value: x}}]\nenvironment: {{sandbox: {name}}}\n",
        )
        assert task.environment.sandbox == name
    [line] = _problems(
        tmp_path, BASE + "graders: [{type: contains, value: x}]\nenvironment: {sandbox: docker}\n"
    )
    assert line.startswith("environment.sandbox: sandbox 'docker' is not supported")
    assert all(name in line for name in SANDBOXES)


def test_spec_budget_names_are_aliases(tmp_path: Path) -> None:
    task = _one(
        tmp_path,
        BASE
        + "graders: [{type: contains, value: x}]\n"
        + "environment: {budgets: {max_steps: 7, max_tool_calls: 4, max_latency_s: 9.5}}\n",
    )
    b = task.environment.budgets
    assert (b.max_turns, b.tool_call_budget, b.timeout_s) == (7, 4, 9.5)
    same = _one(
        tmp_path,
        BASE
        + "graders: [{type: contains, value: x}]\n"
        + "environment: {budgets: {max_steps: 7, max_turns: 7}}\n",
    )
    assert same.environment.budgets.max_turns == 7


def test_both_budget_spellings_with_different_values_is_one_line(tmp_path: Path) -> None:
    [line] = _problems(
        tmp_path,
        BASE
        + "graders: [{type: contains, value: x}]\n"
        + "environment: {budgets: {max_steps: 7, max_turns: 9}}\n",
    )
    assert line.startswith("environment.budgets:")
    assert "max_steps" in line and "max_turns" in line and "7" in line and "9" in line


# --- grader families --------------------------------------------------------------------

FAMILIES = [
    ("{type: deterministic_tests, run: pytest -q}", "command", {"run": "pytest -q"}),
    ("{type: static_analysis, run: [ruff, check]}", "command", {"run": ["ruff", "check"]}),
    ("{type: llm_rubric, rubric: polite}", "llmRubric", {"rubric": "polite"}),
    ("{type: state_check, path: a.md}", "fileExists", {"path": "a.md"}),
    ("{type: state_check, path: a.md, exists: false}", "fileAbsent", {"path": "a.md"}),
    ("{type: state_check, path: a.md, contains: x}", "fileContains", {"value": "x"}),
    ("{type: state_check, path: a.md, lacks: [x, y]}", "fileLacks", {"value": ["x", "y"]}),
    ("{type: state_check, path: a.md, matches: 'x+', flags: i}", "fileMatches", {"flags": "i"}),
    ("{type: state_check, path: a.md, key: k, value: 3}", "frontmatterEquals", {"value": 3}),
    ("{type: trajectory, expected_tools: [read_file]}", "expectedTools", {"tools": ["read_file"]}),
    ("{type: trajectory, forbiddenTools: [delete_file]}", "forbiddenTools", {}),
    ("{type: trajectory, tool_order: [read_file, write_file]}", "toolOrder", {}),
    ("{type: trajectory, tool: read_file, args: {path: a.md}}", "toolArgs", {"tool": "read_file"}),
    ("{type: trajectory, max_tool_calls: 3}", "toolCallBudget", {"max": 3}),
]


@pytest.mark.parametrize(("item", "kind", "fields"), FAMILIES)
def test_grader_families_map_onto_trialrun_graders(
    tmp_path: Path, item: str, kind: str, fields: dict[str, Any]
) -> None:
    task = _one(tmp_path, BASE + f"graders: [{item}]\n")
    [config] = task.graders
    assert config.type == kind
    for key, value in fields.items():
        assert getattr(config, key) == value
    data = _yaml(tmp_path / "t.yaml")
    assert list(jsonschema.Draft202012Validator(task_json_schema()).iter_errors(data)) == []


BAD_FAMILIES = [
    ("{type: state_check, path: a.md, contains: x, fixture: a.md}", "graders.0", "contains"),
    ("{type: state_check, contains: x}", "graders.0.path", "required key is missing"),
    ("{type: trajectory}", "graders.0", "expected_tools"),
    ("{type: trajectory, expected_tools: [a], max_tool_calls: 2}", "graders.0", "one of"),
    (
        "{type: state_check, path: a.md, contians: x}",
        "graders.0.contians",
        "did you mean 'contains'",
    ),
    ("{type: deterministic_tests}", "graders.0.run", "required key is missing"),
    ("{type: state_check, path: a.md, contains: 3}", "graders.0.contains", "string"),
]


@pytest.mark.parametrize(("item", "field", "needle"), BAD_FAMILIES)
def test_unmappable_family_items_are_one_clear_line(
    tmp_path: Path, item: str, field: str, needle: str
) -> None:
    got = _problems(tmp_path, BASE + f"graders: [{item}]\n")
    assert len(got) == 1, got
    assert got[0].startswith(f"{field}:") and needle in got[0], got
    data = _yaml(tmp_path / "t.yaml")
    assert not jsonschema.Draft202012Validator(task_json_schema()).is_valid(data)


def test_family_regex_is_checked_at_load(tmp_path: Path) -> None:
    [line] = _problems(tmp_path, BASE + "graders: [{type: state_check, path: a, matches: '('}]\n")
    assert line.startswith("graders.0.matches: bad regex")


# --- tracked metrics --------------------------------------------------------------------


def test_tracked_metrics_are_canonicalised(tmp_path: Path) -> None:
    task = _one(
        tmp_path,
        BASE.replace("[pass^k]", "[pass_k, cost_usd, steps, cost]")
        + "graders: [{type: contains, value: x}]\n",
    )
    assert task.tracked_metrics == ["pass^k", "cost", "steps"]


def test_unknown_tracked_metric_has_a_did_you_mean(tmp_path: Path) -> None:
    [line] = _problems(
        tmp_path,
        BASE.replace("[pass^k]", "[pass^k, latency_p59]")
        + "graders: [{type: contains, value: x}]\n",
    )
    assert line.startswith("tracked_metrics.1: unknown tracked metric 'latency_p59'")
    assert "did you mean 'latency_p95'" in line or "did you mean 'latency_p50'" in line


def test_schema_lists_the_accepted_metric_names() -> None:
    items = task_json_schema()["properties"]["tracked_metrics"]["items"]
    names = {alt["const"] for alt in items["anyOf"]}
    assert names == set(TRACKED_METRICS) | set(METRIC_ALIASES)


# --- property: spec-valid documents load ------------------------------------------------

_SPEC = SPEC_SCHEMA["properties"]
_ENV = SPEC_SCHEMA["$defs"]["environment"]["properties"]
_FAMILY_NAMES = SPEC_SCHEMA["$defs"]["grader"]["properties"]["type"]["enum"]
_BUDGET_KEYS = sorted(_ENV["budgets"]["properties"])

text = st.text(
    alphabet=st.characters(blacklist_categories=("Cs", "Cc"), blacklist_characters="\x7f"),
    min_size=1,
    max_size=20,
)
ident = st.from_regex(r"[A-Za-z0-9][A-Za-z0-9._-]{0,30}", fullmatch=True).filter(
    lambda s: ".." not in s
)
VAULT = ["read_file", "write_file", "list_files", "delete_file"]
# What each spec family needs in trialrun (the spec's text leaves family keys open).
family_items = {
    "deterministic_tests": st.builds(
        lambda r: {"run": r}, st.sampled_from(["pytest -q", ["make"]])
    ),
    "static_analysis": st.builds(lambda r: {"run": r}, st.sampled_from(["ruff check .", ["mypy"]])),
    "llm_rubric": st.builds(lambda r: {"rubric": r}, text),
    "state_check": st.one_of(
        st.builds(lambda v: {"path": "a.md", "contains": v}, text),
        st.builds(lambda v: {"path": "a.md", "lacks": [v]}, text),
        st.builds(lambda e: {"path": "a.md", "exists": e}, st.booleans()),
        st.just({"path": "notes/b.md"}),
        st.builds(lambda v: {"path": "a.md", "key": "status", "value": v}, text),
    ),
    "trajectory": st.one_of(
        st.builds(lambda t: {"expected_tools": t}, st.lists(st.sampled_from(VAULT), max_size=3)),
        st.builds(lambda t: {"forbidden_tools": t}, st.lists(st.sampled_from(VAULT), max_size=3)),
        st.builds(lambda t: {"tool_order": t}, st.lists(st.sampled_from(VAULT), max_size=3)),
        st.builds(lambda n: {"max_tool_calls": n}, st.integers(0, 100)),
        st.just({"tool": "read_file", "args": {"path": "a.md"}}),
    ),
}
graders = st.sampled_from(_FAMILY_NAMES).flatmap(
    lambda fam: family_items[fam].map(lambda item: {"type": fam, **item})
)
budget_values = {
    "max_steps": st.integers(1, 100),
    "max_tool_calls": st.integers(0, 100),
    "max_cost_usd": st.floats(0, 100, allow_nan=False),
    "max_latency_s": st.floats(0.5, 3600, allow_nan=False),
}
spec_doc = st.fixed_dictionaries(
    {
        "task_id": ident,
        "suite": st.sampled_from(_SPEC["suite"]["enum"]),
        "description": text,
        "inputs": st.builds(
            lambda p, extra: {"prompt": p, **extra},
            text,
            st.dictionaries(
                st.from_regex(r"[a-z_]{1,10}", fullmatch=True).filter(
                    lambda k: k not in ("prompt", "context_files", "messages")
                ),
                st.one_of(text, st.integers(), st.lists(text, max_size=2)),
                max_size=3,
            ),
        ),
        "graders": st.lists(graders, min_size=1, max_size=4),
        "tracked_metrics": st.lists(
            st.sampled_from(sorted(TRACKED_METRICS) + sorted(METRIC_ALIASES)),
            min_size=1,
            max_size=4,
        ),
    },
    optional={
        "tags": st.lists(text, max_size=3),
        "tier": st.sampled_from(_SPEC["tier"]["enum"]),
        "policy": st.sampled_from(_SPEC["policy"]["enum"]),
        "trials": st.fixed_dictionaries(
            {}, optional={"k": st.integers(1, 20), "metric": st.sampled_from(["pass^k", "pass@k"])}
        ),
        "gates": st.fixed_dictionaries(
            {},
            optional={g: st.booleans() for g in ("ci_merge_gate", "nightly", "release_candidate")},
        ),
        "environment": st.fixed_dictionaries(
            {},
            optional={
                "sandbox": st.sampled_from(["workspace", "none"]),
                # `keep` is spec-valid but refused by trialrun (trials must be independent)
                "reset": st.fixed_dictionaries({}, optional={"mode": st.just("fresh")}),
                "budgets": st.fixed_dictionaries(
                    {}, optional={k: budget_values[k] for k in _BUDGET_KEYS}
                ),
            },
        ),
    },
)


def _block_yaml() -> YAML:
    """A YAML writer in block style, as people write task files. Its flow style would
    write the tag `?0` as `[?0]`, which every YAML reader (ruamel's own, PyYAML) reads
    back as a mapping: a fault of that writer, not of the loader under test."""
    writer = YAML(typ="safe", pure=True)
    writer.default_flow_style = False
    return writer


def test_a_question_mark_tag_reads_back_as_written(tmp_path: Path) -> None:
    f = tmp_path / "task.yaml"
    doc = {"task_id": "q", "suite": "golden", "description": "d", "inputs": {"prompt": "hi"},
           "tags": ["?0", "-a", ":b"], "tracked_metrics": ["cost"],
           "graders": [{"type": "deterministic_tests", "run": "pytest -q"}]}  # fmt: skip
    _block_yaml().dump(doc, f)
    report = load_tasks([f])
    assert report.problems == [], [str(p) for p in report.problems]
    assert report.tasks[0].tags == ["?0", "-a", ":b"]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(spec_doc, st.sampled_from(["yaml", "json"]))
def test_spec_valid_documents_load(doc: dict[str, Any], fmt: str) -> None:
    assert list(jsonschema.Draft202012Validator(SPEC_SCHEMA).iter_errors(doc)) == []
    ours = [e.message for e in jsonschema.Draft202012Validator(task_json_schema()).iter_errors(doc)]
    assert ours == []
    with tempfile.TemporaryDirectory() as tmp:
        f = Path(tmp) / f"task.{fmt}"
        if fmt == "json":
            f.write_text(json.dumps(doc), encoding="utf-8")
        else:
            _block_yaml().dump(doc, f)
        report = load_tasks([f])
    assert report.problems == [], [str(p) for p in report.problems]
    [task] = report.tasks
    assert task.task_id == doc["task_id"]
    assert len(task.graders) == len(doc["graders"])
