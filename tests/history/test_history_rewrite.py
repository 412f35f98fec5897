"""Policy rewrites change one token and nothing else, in every file kind."""

from __future__ import annotations

from pathlib import Path

import pytest

import trialrun
from trialrun.errors import UserError
from trialrun.history import read_policy, set_policy

YAML_LIST = """\
# two tasks in one file
- task_id: first
  suite: golden
  description: d
  inputs: {prompt: p}
  graders: [{type: contains, value: x}]
  tracked_metrics: [pass^k]
- task_id: second   # no policy yet
  suite: open_ended
  description: d
  inputs: {prompt: p}
  graders: [{type: contains, value: x}]
  tracked_metrics: [pass^k]
"""

JSON_TASK = """{
  "task_id": "j",
  "description": "d",
  "suite": "golden",
  "policy": "USUALLY_PASSES",
  "inputs": {"prompt": "p"},
  "graders": [{"type": "contains", "value": "x"}],
  "tracked_metrics": ["pass^k"]
}
"""

TOML_TASKS = """\
[[tasks]]
task_id = "a"
suite = "golden"
policy = "USUALLY_FAILS"  # known gap
description = "d"
inputs = { prompt = "p" }
graders = [{ type = "contains", value = "x" }]
tracked_metrics = ["pass^k"]

[[tasks]]
task_id = "b"
suite = "open_ended"
description = "d"
inputs = { prompt = "p" }
graders = [{ type = "contains", value = "x" }]
tracked_metrics = ["pass^k"]
"""

PY = '''\
import trialrun.testing as tt


class TestGroup:
    @tt.eval_test('USUALLY_FAILS', prompt="é?")  # quotes and non-ASCII before it
    def test_inner(self, result):
        pass
'''


def _policies(path: Path) -> dict[str, str]:
    return {t.task_id: str(t.policy) for t in trialrun.load_tasks([path]).tasks}


def test_yaml_list_inserts_a_policy_beside_suite(tmp_path: Path) -> None:
    path = tmp_path / "t.yaml"
    path.write_text(YAML_LIST)
    assert read_policy("task", str(path), "second") is None
    set_policy("task", str(path), "second", "ALWAYS_PASSES")
    assert path.read_text() == YAML_LIST.replace(
        "  suite: open_ended", "  policy: ALWAYS_PASSES\n  suite: open_ended")
    assert _policies(path) == {"first": "ALWAYS_PASSES", "second": "ALWAYS_PASSES"}


def test_json_keeps_its_layout(tmp_path: Path) -> None:
    path = tmp_path / "j.json"
    path.write_text(JSON_TASK)
    assert read_policy("task", str(path), "j") == "USUALLY_PASSES"
    set_policy("task", str(path), "j", "ALWAYS_PASSES")
    assert path.read_text() == JSON_TASK.replace('"USUALLY_PASSES"', '"ALWAYS_PASSES"')
    no_policy = JSON_TASK.replace('  "policy": "USUALLY_PASSES",\n', "")
    path.write_text(no_policy)
    set_policy("task", str(path), "j", "ALWAYS_PASSES")
    assert _policies(path) == {"j": "ALWAYS_PASSES"}
    assert path.read_text() == no_policy.replace(
        '  "suite"', '  "policy": "ALWAYS_PASSES",\n  "suite"')


def test_toml_array_of_tasks(tmp_path: Path) -> None:
    path = tmp_path / "t.toml"
    path.write_text(TOML_TASKS)
    assert read_policy("task", str(path), "a") == "USUALLY_FAILS"
    set_policy("task", str(path), "a", "USUALLY_PASSES")
    set_policy("task", str(path), "b", "ALWAYS_PASSES")
    assert path.read_text() == TOML_TASKS.replace(
        '"USUALLY_FAILS"  # known gap', '"USUALLY_PASSES"  # known gap').replace(
        'task_id = "b"\n', 'task_id = "b"\npolicy = "ALWAYS_PASSES"\n')
    assert _policies(path) == {"a": "USUALLY_PASSES", "b": "ALWAYS_PASSES"}


def test_pytest_method_in_a_class_keeps_quotes(tmp_path: Path) -> None:
    path = tmp_path / "test_x.py"
    path.write_text(PY, encoding="utf-8")
    test_id = "test_x.py::TestGroup::test_inner"
    assert read_policy("pytest", str(path), test_id) == "USUALLY_FAILS"
    set_policy("pytest", str(path), test_id, "USUALLY_PASSES")
    assert path.read_text(encoding="utf-8") == PY.replace("'USUALLY_FAILS'", "'USUALLY_PASSES'")


@pytest.mark.parametrize(("kind", "name", "text", "test_id", "message"), [
    ("task", "t.yaml", YAML_LIST, "third", "no task 'third' in it; was it renamed?"),
    ("task", "f.yaml", "{task_id: f, suite: golden}\n", "f", "is written inline"),
    ("pytest", "test_y.py", "def test_a():\n    pass\n", "test_y.py::test_a",
     "has no @eval_test"),
    ("pytest", "test_z.py", "def test_a(:\n", "test_z.py::test_a", "not valid Python"),
])
def test_what_cannot_be_rewritten_is_one_line(
    tmp_path: Path, kind: str, name: str, text: str, test_id: str, message: str
) -> None:
    path = tmp_path / name
    path.write_text(text)
    with pytest.raises(UserError, match=message):
        set_policy(kind, str(path), test_id, "ALWAYS_PASSES")
    assert path.read_text() == text
