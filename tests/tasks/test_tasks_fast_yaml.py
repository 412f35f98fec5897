"""The fast YAML reader (libyaml) answers exactly as the round trip does, or not at all.

`fast_yaml` either returns the data `parse_yaml_round_trip` returns for the same text
or raises `Unsure` (and the loader takes the round trip, with its messages and lines).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from trialrun.tasks import load_tasks
from trialrun.tasks._fast_yaml import Unsure, fast_yaml
from trialrun.tasks._sources import parse_yaml, parse_yaml_round_trip

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
# plain scalars where YAML 1.1 and 1.2 (or libyaml and ruamel) could part ways
TRICKY = [
    "yes", "no", "on", "off", "y", "n", "True", "FALSE", "null", "Null", "~", "", "0", "-0",
    "+12", "012", "0o17", "0x1F", "0b101", "1_000", "1:20", "1e3", "1E-3", "1.", ".5", "-.5e+2",
    ".inf", "-.Inf", ".NaN", "1.2.3", "2026-11-24", "2026-11-24T10:00:00Z", "<<", "=", "-",
    "a: b", "x#y", "12abc", "0.1.", "+", "inf", "nan", "NULL",
]


def same(a: Any, b: Any) -> bool:
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


def agrees(text: str) -> bool:
    """True when the fast reader answered (and agreed); False when it was unsure."""
    try:
        fast = fast_yaml(text)
    except Unsure:
        return False
    slow = parse_yaml_round_trip(text)[0]
    assert same(fast, slow), (text, fast, slow)
    return True


@pytest.mark.parametrize("value", TRICKY)
def test_every_tricky_plain_scalar_is_read_as_the_round_trip_reads_it(value: str) -> None:
    for text in (f"key: {value}\n", f"- {value}\n", f"key: [{value}]\n", f"key: '{value}'\n"):
        try:
            agrees(text)
        except Exception as exc:  # the round trip refuses it too: nothing to compare
            assert not isinstance(exc, AssertionError), exc
            with pytest.raises(Unsure):
                fast_yaml(text)


def test_the_example_suites_are_read_fast_and_the_same() -> None:
    files = sorted(EXAMPLES.rglob("*.yaml")) + sorted(EXAMPLES.rglob("*.yml"))
    assert files
    answered = [f for f in files if agrees(f.read_text(encoding="utf-8"))]
    assert len(answered) >= len(files) - 1  # a file with a date or a tag may go the long way


@pytest.mark.parametrize(
    "text",
    [
        "a: 1\na: 2\n",  # a duplicate key: the round trip's message
        "<<: {a: 1}\nb: 2\n",  # a merge key
        "%YAML 1.1\n---\na: yes\n",  # YAML 1.1 rules
        "a: !custom x\n",  # a tag
        "a: &x [*x]\n",  # a recursive alias
        "a: 1\n---\nb: 2\n",  # two documents
        "a: [\n",  # a syntax error
        "a: 2026-01-02\n",  # a date
        "? [a, b]\n: 1\n",  # a complex key
        "a: !!float 3\n",  # an explicit tag the fast reader does not promise
    ],
)
def test_what_the_fast_reader_is_unsure_of_goes_the_long_way(text: str) -> None:
    with pytest.raises(Unsure):
        fast_yaml(text)


def test_a_duplicate_id_still_names_both_lines(tmp_path: Path) -> None:
    body = (
        "task_id: {id}\nsuite: golden\ndescription: d\ntracked_metrics: [pass^k]\n"
        "inputs:\n  prompt: hi\ngraders:\n  - type: contains\n    value: x\n"
    )
    (tmp_path / "a.yaml").write_text("# first\n" + body.format(id="same"))
    (tmp_path / "b.yaml").write_text(body.format(id="same"))
    report = load_tasks([tmp_path])
    (problem,) = report.problems
    assert problem.line == 1
    assert f"duplicate task id 'same' (also in {tmp_path / 'a.yaml'}:2)" in problem.message


def test_lines_are_found_only_when_asked() -> None:
    data, lines, issues = parse_yaml("a: 1\nb:\n  - x\n  - y\n")
    assert data == {"a": 1, "b": ["x", "y"]} and issues == []
    assert type(lines).__name__ == "LazyLines"
    assert lines.get(("b", 1)) == 4 and lines.get(("a",)) == 1 and lines.get(("zz",)) is None


SCALARS = st.one_of(
    st.sampled_from(TRICKY),
    st.integers(-(10**20), 10**20).map(str),
    st.floats(allow_nan=False, allow_infinity=False).map(repr),
    st.text(alphabet="ab01.-+_:eE ", min_size=1, max_size=8),
)
KEYS = st.text(alphabet="abcxyz_", min_size=1, max_size=6)


@st.composite
def documents(draw: Any, depth: int = 0) -> str:
    """Block-style YAML text with plain scalars drawn from SCALARS."""
    pad = "  " * depth
    n = draw(st.integers(1, 4))
    if depth < 2 and draw(st.booleans()):
        return "".join(
            f"{pad}- {draw(SCALARS).strip() or 'x'}\n" for _ in range(n)
        )
    out = []
    for key in draw(st.lists(KEYS, min_size=1, max_size=n, unique=True)):
        if depth < 2 and draw(st.booleans()):
            out.append(f"{pad}{key}:\n{draw(documents(depth + 1))}")
        else:
            out.append(f"{pad}{key}: {draw(SCALARS).strip()}\n")
    return "".join(out)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(documents())
def test_generated_documents_agree_or_go_the_long_way(text: str) -> None:
    try:
        parse_yaml_round_trip(text)
    except Exception:  # the round trip refuses it: the fast reader must too
        with pytest.raises(Unsure):
            fast_yaml(text)
        return
    agrees(text)
