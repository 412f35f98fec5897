"""Fuzz of results lines and benchmark suite files (issue 32: beside the task-file fuzz).

A results line is arbitrary JSON-ish text, a good line with one field replaced by any
JSON value (a wrong type, an integer of hundreds or thousands of digits, brackets nested
up to 3,000 deep), or a nesting bomb; it goes through the run-folder reader, `summarize`
the library call and `trialrun summarize` the command. A suite file is a good one with a
value replaced by a TOML fragment of the same kinds; it goes through `load_suite` and
`expand`. Either the input is read, or it is refused with one line (a UserError, or a
RecordError the caller turns into one) naming where; never another exception.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from security_readers_support import finished_run

from cli_support import cli
from trialrun.benchmarks import expand, load_suite
from trialrun.errors import UserError
from trialrun.metrics import summarize_rundir
from trialrun.rundir import RunDir

FIELDS = ["task_id", "model", "provider", "trial", "pass", "solve", "error", "verdicts",
          "tool_calls", "turns", "tokens", "cost_usd", "latency_s", "safety_violation",
          "transcript", "repeated_calls", "tool_errors", "recovered", "time_to_first_tool_s",
          "transcript_offset", "final_text", "suite", "k", "tags"]  # fmt: skip


def _digits(n: int, sign: str, tail: str) -> str:
    return sign + "9" * n + tail


def _nested(depth: int, opener: str, value: str) -> str:
    closer = {"[": "]", '{"a":': "}"}[opener]
    return opener * depth + value + closer * depth


# JSON text of one value, hostile or not
huge_numbers = st.builds(_digits, st.integers(300, 6000), st.sampled_from(["", "-"]),
                         st.sampled_from(["", ".5", "e3", "e-400", "e400"]))
deep = st.builds(_nested, st.integers(1, 3000), st.sampled_from(["[", '{"a":']),
                 st.sampled_from(["1", '"x"', "null", "[]", "{}"]))
scalars = (st.none() | st.booleans() | st.integers() | st.floats()
           | st.text(max_size=8)).map(lambda v: json.dumps(v))  # NaN/Infinity included
containers = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=4),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner,
                                                               max_size=3),
    max_leaves=6,
).map(json.dumps)
json_values = huge_numbers | deep | scalars | containers
jsonish_text = st.text(alphabet='[]{}",:0123456789-+.eE truefalsn\\u', max_size=60)


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return finished_run(tmp_path_factory.mktemp("fuzz"))


def _with_field(good: dict, key: str, raw: str) -> str:
    return json.dumps({**good, key: "@RAW@"}).replace('"@RAW@"', raw, 1)


@st.composite
def results_lines(draw, good: dict) -> str:
    kind = draw(st.sampled_from(["field", "field", "text", "whole"]))
    if kind == "field":
        return _with_field(good, draw(st.sampled_from(FIELDS)), draw(json_values))
    if kind == "text":
        return draw(jsonish_text)
    return draw(json_values)


def _one_line_refusal(exc: UserError) -> str:
    message = str(exc)
    assert message and "\n" not in message, message
    return message


@settings(max_examples=300, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture,
                                 HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data())
def test_any_results_line_is_read_or_refused_in_one_line(
    data: st.DataObject, base: dict[str, Path], capsys
) -> None:
    with tempfile.TemporaryDirectory() as work:
        run = Path(work) / "run"
        shutil.copytree(base["run"], run)
        (run / "summary.json").unlink()
        lines = (run / "results.jsonl").read_text().splitlines()
        at = data.draw(st.sampled_from([1, len(lines)]), label="line")  # middle or last
        lines.insert(at, data.draw(results_lines(json.loads(lines[0])), label="results line"))
        (run / "results.jsonl").write_text("\n".join(lines) + "\n")
        try:
            contents = RunDir.open(run).read()
            summary = summarize_rundir(RunDir.open(run))
        except UserError as exc:
            message = _one_line_refusal(exc)
            assert f"results.jsonl:{at + 1}:" in message, message
            read = False
        else:
            assert len(contents.results) in (len(lines) - 1, len(lines))  # torn: skipped
            json.dumps(summary.to_json(), allow_nan=False)
            read = True
        code, _, err = cli(capsys, "summarize", run)
        assert "Traceback" not in err
        assert code == (0 if read else 2), (code, err)


SUITE = """[meta]
name = "fuzz"

[defaults]
temperature = 0.0
max_tokens = 64

[run]
seed = 1
output_dir = "out"
max_workers = 1

[[models]]
name = "m.yaml"
provider = "scripted"

[[benchmarks]]
name = "supergpqa"
backend = "direct"
dataset = "data.jsonl"
max_samples = 3
"""
# the values of SUITE that a fragment may replace
SLOTS = ['"fuzz"', "0.0", "64", "1", '"out"', '"m.yaml"', '"scripted"', '"supergpqa"',
         '"direct"', '"data.jsonl"', "3"]  # fmt: skip


def _toml_nested(depth: int, kind: str) -> str:
    if kind == "array":
        return "[" * depth + "1" + "]" * depth
    return "{a = " * depth + "1" + "}" * depth


toml_values = (
    st.builds(_digits, st.integers(300, 6000), st.sampled_from(["", "-", "+"]),
              st.sampled_from(["", ".5", "e3", "e400"]))
    | st.builds(_toml_nested, st.integers(1, 3000), st.sampled_from(["array", "table"]))
    | st.sampled_from(["inf", "-inf", "nan", "true", "1979-05-27T07:32:00Z", "[]", "{}",
                       '"""x"""', "'x'", '""', "0x_1", "1_000", "[1, 'a']", "{x = 1}"])
    | st.integers().map(str) | st.floats(allow_nan=False, allow_infinity=False).map(repr)
    | st.text(alphabet="[]{}=\"',.0123456789-+ abcdeinftx\n#", max_size=30)
)


@settings(max_examples=300, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture,
                                 HealthCheck.too_slow, HealthCheck.data_too_large])
@given(slot=st.sampled_from(SLOTS), value=toml_values)
def test_any_suite_file_is_loaded_or_refused_in_one_line(slot: str, value: str) -> None:
    with tempfile.TemporaryDirectory() as work:
        path = Path(work) / "suite.toml"
        path.write_text(SUITE.replace(f"= {slot}\n", f"= {value}\n", 1))
        try:
            pairs = expand(load_suite(path))
        except UserError as exc:
            message = _one_line_refusal(exc)
            assert str(path) in message, message
            return
        assert len(pairs) == 1
