"""Fuzzing task files (issue 15): valid tasks mutated by type, size, depth and encoding never
give a traceback, never hang, and are never accepted when they are invalid.

The many cases go through `load_tasks` in-process; a few go through `trialrun validate FILE`
in a subprocess, the CLI's own path. Bounds are pytest-timeout's, never wall-clock asserts.
"""

from __future__ import annotations

import copy
import io
import json
import math
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from ruamel.yaml import YAML

from trialrun.tasks import MAX_DEPTH, MAX_K, MAX_LIST_ITEMS, load_tasks

SRC = Path(__file__).resolve().parents[2] / "src"

VALID: dict[str, Any] = {
    "task_id": "fuzz-1",
    "suite": "golden",
    "description": "A valid task the fuzzer mutates.",
    "tier": "T2",
    "tags": ["a", "b"],
    "inputs": {"prompt": "Read notes/a.md", "repo": "r"},
    "environment": {
        "sandbox": "workspace",
        "reset": {"mode": "fresh"},
        "budgets": {"max_steps": 5, "max_tool_calls": 9, "timeout_s": 30, "max_cost_usd": 1.5},
        "fixture_dest": "",
    },
    "graders": [
        {"type": "contains", "value": "x"},
        {"type": "state_check", "path": "a.md", "contains": "y"},
        {"type": "trajectory", "expected_tools": ["read_file"]},
    ],
    "tracked_metrics": ["pass^k", "steps"],
    "trials": {"k": 3},
}

# The same task in trialrun's own vocabulary only.
NATIVE: dict[str, Any] = {
    "task_id": "fuzz-2",
    "suite": "adversarial",
    "description": "d",
    "tags": ["a"],
    "inputs": {"prompt": "p"},
    "environment": {"budgets": {"max_turns": 5, "timeout_s": 30}},
    "graders": [{"type": "contains", "value": "x"}, {"type": "fileExists", "path": "a.md"}],
    "tracked_metrics": ["pass^k"],
    "trials": {"k": 3},
}
BASES = {"spec": VALID, "native": NATIVE}

# (path, values that make the task invalid wherever they are put)
INVALID_AT: list[tuple[tuple[str | int, ...], list[Any]]] = [
    (("trials", "k"), [True, False, 0, -1, 10**40, MAX_K + 1, 1.5, "3", float("nan")]),
    (("environment", "budgets", "max_steps"), [True, 0, 10**30, "x", 2.5, []]),
    (("environment", "budgets", "timeout_s"), [float("nan"), float("inf"), -1, True, 1e300]),
    (("environment", "budgets", "max_tool_calls"), [False, -1, 10**20, {}]),
    (("task_id",), ["../x", "a/b", "", 5, "x" * 200, None, "..", "/abs"]),
    (("suite",), ["gold", 3, None, True]),
    (("inputs",), ["text", [], {"repo": 1}, None]),
    (("inputs", "prompt"), ["", 3, None, ["p"]]),
    (("graders",), [[], {}, "x", [{"type": "nope"}], [1], [{"type": "trajectory"}]]),
    (("graders", 1), [{"type": "state_check", "contains": "y"}, {"type": "state_check"}]),
    (("tracked_metrics",), [[], ["speed"], "pass^k", [1]]),
    (("environment", "fixture"), ["/etc", "../x", 3]),
    (("environment", "fixture_dest"), ["../../x", "/abs", 7]),
    (("environment", "sandbox"), ["docker", 1, None]),
    (("environment", "reset"), [False, {"mode": "keep"}, "fresh"]),
    (("tags",), ["x", [1], [None], ["a"] * (MAX_LIST_ITEMS + 1)]),
    (("tier",), ["T5", 1]),
]


def _set(data: dict[str, Any], path: tuple[str | int, ...], value: Any) -> dict[str, Any]:
    out = copy.deepcopy(data)
    node: Any = out
    for part in path[:-1]:
        node = node[part]
    node[path[-1]] = value
    return out


def _nested(depth: int) -> Any:
    value: Any = "leaf"
    for i in range(depth):
        value = {"n": value} if i % 2 else [value]
    return value


def _yaml(data: Any) -> bytes:
    buf = io.StringIO()
    YAML(typ="safe", pure=True).dump(data, buf)
    return buf.getvalue().encode("utf-8")


def _json(data: Any) -> bytes:
    return json.dumps(data).encode("utf-8")  # NaN/Infinity written as JSON5-ish tokens


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return "nan" if math.isnan(value) else ("inf" if math.isinf(value) else repr(value))
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    return "{" + ", ".join(f"{json.dumps(k)} = {_toml_value(v)}" for k, v in value.items()) + "}"


def _toml(data: dict[str, Any]) -> bytes:
    return "\n".join(f"{json.dumps(k)} = {_toml_value(v)}" for k, v in data.items()).encode()


def _has_none(value: Any) -> bool:
    if value is None:
        return True
    if isinstance(value, dict):
        return any(_has_none(v) for v in value.values())
    if isinstance(value, list):
        return any(_has_none(v) for v in value)
    return False


WRITERS = {"json": _json, "yaml": _yaml, "toml": _toml}


def _load(name: str, body: bytes, **options: Any) -> Any:
    with tempfile.TemporaryDirectory() as tmp:
        f = Path(tmp) / name
        f.write_bytes(body)
        report = load_tasks([f], **options)
        for problem in report.problems + report.warnings:
            text = str(problem)
            assert text.startswith(str(f)) and "\n" not in text and "\r" not in text, text
            text.encode("utf-8")  # printable on a UTF-8 terminal
    return report


FAST = settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


def test_the_unmutated_tasks_are_valid_in_every_format() -> None:
    for base in BASES.values():
        for fmt, writer in WRITERS.items():
            report = _load(f"t.{fmt}", writer(base))
            assert report.problems == [], (fmt, [str(p) for p in report.problems])
            assert [t.task_id for t in report.tasks] == [base["task_id"]]


invalid_case = st.sampled_from(INVALID_AT).flatmap(
    lambda entry: st.tuples(st.just(entry[0]), st.sampled_from(entry[1]))
)


@pytest.mark.timeout(120)
@FAST
@given(invalid_case, st.sampled_from(sorted(WRITERS)), st.sampled_from(sorted(BASES)))
def test_invalid_mutations_are_always_refused(case: tuple[Any, Any], fmt: str, base: str) -> None:
    path, value = case
    data = _set(BASES[base], path, value)
    if fmt == "toml" and _has_none(data):
        fmt = "json"  # TOML has no null
    report = _load(f"t.{fmt}", WRITERS[fmt](data))
    assert report.problems, (path, value, fmt)
    assert report.tasks == []


@pytest.mark.timeout(120)
@FAST
@given(
    st.sampled_from(sorted(WRITERS)),
    st.one_of(
        st.tuples(st.just("nest"), st.integers(MAX_DEPTH + 1, MAX_DEPTH + 400)),
        st.tuples(st.just("list"), st.integers(MAX_LIST_ITEMS + 1, MAX_LIST_ITEMS + 50)),
        st.tuples(st.just("digits"), st.integers(4301, 6000)),
    ),
)
def test_depth_size_and_huge_numbers_are_refused(fmt: str, case: tuple[str, int]) -> None:
    kind, n = case
    if kind == "nest":
        data = _set(VALID, ("inputs", "deep"), _nested(n))
        body = WRITERS[fmt](data)
    elif kind == "list":
        body = WRITERS[fmt](_set(VALID, ("inputs", "rows"), list(range(n))))
    else:
        body = WRITERS[fmt](_set(VALID, ("trials", "k"), 7)).replace(b"7", b"7" * n, 1)
    report = _load(f"t.{fmt}", body)
    assert report.problems and report.tasks == []


@pytest.mark.timeout(120)
@FAST
@given(
    st.sampled_from(sorted(WRITERS)),
    st.sampled_from(["bad-utf8", "utf16", "nul", "truncate", "oversize"]),
    st.integers(0, 10_000),
)
def test_encoding_damage_is_refused(fmt: str, damage: str, seed: int) -> None:
    body = WRITERS[fmt](VALID)
    at = seed % len(body)
    options: dict[str, Any] = {}
    if damage == "bad-utf8":
        body = body[:at] + b"\xff\xfe\xc3" + body[at:]
    elif damage == "utf16":
        body = body.decode().encode("utf-16")
    elif damage == "nul":
        body = body[:at] + b"\x00" + body[at:]
    elif damage == "truncate":
        body = body[: min(at, len(body) // 3)]
    else:
        options["max_file_bytes"] = len(body) - 1
    report = _load(f"t.{fmt}", body, **options)
    assert report.problems and report.tasks == [], (damage, fmt, at)


@pytest.mark.timeout(120)
@FAST
@given(st.sampled_from(sorted(WRITERS)), st.binary(max_size=40), st.integers(0, 10_000))
def test_random_splices_never_raise(fmt: str, junk: bytes, seed: int) -> None:
    body = WRITERS[fmt](VALID)
    at = seed % len(body)
    report = _load(f"t.{fmt}", body[:at] + junk + body[at + len(junk) // 2 :])
    for task in report.tasks:  # whatever loads keeps the invariants
        assert 1 <= task.k <= MAX_K and "/" not in task.task_id and ".." not in task.task_id


def test_bom_is_fine() -> None:
    for fmt, writer in WRITERS.items():
        report = _load(f"t.{fmt}", b"\xef\xbb\xbf" + writer(VALID))
        assert report.problems == [], fmt


# --- through the CLI, in a subprocess ---------------------------------------------------

CLI_CASES = [
    ("valid.json", _json(VALID), 0),
    ("bom.yaml", b"\xef\xbb\xbf" + _yaml(VALID), 0),
    ("bad-utf8.yaml", _yaml(VALID).replace(b"fuzz-1", b"fuzz-\xff1"), 2),
    ("digits.json", _json(_set(VALID, ("trials", "k"), 7)).replace(b"7", b"7" * 5000, 1), 2),
    ("deep.json", b'{"task_id": "x", "inputs": ' + b"[" * 100_000 + b"]" * 100_000 + b"}", 2),
    ("deep.yaml", b"task_id: x\ninputs: " + b"[" * 5_000 + b"]" * 5_000 + b"\n", 2),
    ("nan.json", _json(_set(VALID, ("environment", "budgets", "timeout_s"), float("nan"))), 2),
    ("bool.toml", _toml(_set(VALID, ("trials", "k"), True)), 2),
    ("huge.yaml", _yaml(_set(VALID, ("trials", "k"), 10**40)), 2),
    ("id.json", _json(_set(VALID, ("task_id",), "../../etc/passwd")), 2),
    ("fixture.json", _json(_set(VALID, ("environment", "fixture"), "/etc")), 2),
    ("surrogate.json", _json(VALID).replace(b'"repo"', b'"re\\ud800po\\n"'), 2),
    ("control-key.json", _json(VALID).replace(b'"tier"', b'"ti\\u001b[31mer\\n"'), 2),
]


@pytest.mark.timeout(120)
@pytest.mark.parametrize(("name", "body", "code"), CLI_CASES, ids=[c[0] for c in CLI_CASES])
def test_validate_cli_never_tracebacks(tmp_path: Path, name: str, body: bytes, code: int) -> None:
    f = tmp_path / name
    f.write_bytes(body)
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(SRC), os.environ.get("PYTHONPATH", "")]),
    }
    env["PYTHONIOENCODING"] = "utf-8"
    proc = subprocess.run(
        [sys.executable, "-m", "trialrun", "validate", str(f)],
        capture_output=True,
        check=False,
        timeout=100,
        cwd=tmp_path,
        env=env,
    )
    err = proc.stderr.decode("utf-8")
    assert "Traceback" not in err, err
    assert proc.returncode == code, err
    if code:
        assert err.strip() and all(line.startswith(str(f)) for line in err.splitlines()), err
