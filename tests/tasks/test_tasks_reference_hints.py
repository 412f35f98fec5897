"""Validation errors point into the docs: each names the reference section of its key, and
a key given one level too high names the place it belongs (derived from the schema)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tasks_support import BASE_YAML, write

from trialrun.tasks import load_tasks
from trialrun.tasks._reference import (
    TASKS_REFERENCE,
    grader_anchor,
    grader_schemas,
    key_anchor,
    reference_anchor,
    task_keys,
)

SEE = re.compile(r"\(see docs/reference/tasks\.md#([a-z0-9_-]+)\)$")


def messages(path: Path) -> list[str]:
    return [p.message for p in load_tasks([path]).problems]


def the_message(path: Path) -> str:
    found = messages(path)
    assert len(found) == 1, found
    return found[0]


def page_anchors() -> set[str]:
    """The anchors the generator writes: one per schema key, one per grader kind, the table."""
    return {
        "task-keys",
        *(key.anchor for key in task_keys()),
        *(grader_anchor(kind) for kind in grader_schemas()),
    }


def test_budgets_at_the_top_names_environment_budgets(tmp_path: Path) -> None:
    f = write(tmp_path / "t.yaml", BASE_YAML + "budgets: {max_turns: 3}\n")
    message = the_message(f)
    assert "unknown key 'budgets' here" in message
    assert "write it as environment.budgets" in message
    assert message.endswith(f"(see {TASKS_REFERENCE}#environment-budgets)")
    assert str(load_tasks([f]).problems[0]).startswith(f"{f}:10: budgets: unknown key")


def test_prompt_at_the_top_names_inputs_prompt(tmp_path: Path) -> None:
    text = BASE_YAML.replace("inputs:\n  prompt: hello\n", "inputs: {}\nprompt: hello\n")
    found = messages(write(tmp_path / "t.yaml", text))
    assert any(
        "write it as inputs.prompt" in m and m.endswith("#inputs-prompt)") for m in found
    ), found


ONE_LEVEL_DOWN = sorted(
    key.path
    for key in task_keys()
    if len(key.path) == 2
    and key.path[0] != "graders"
    and not any(k.path == (key.path[1],) for k in task_keys())
    and sum(1 for k in task_keys() if len(k.path) == 2 and k.path[1] == key.path[1]) == 1
)


def test_the_schema_gives_keys_to_move() -> None:
    assert ("environment", "budgets") in ONE_LEVEL_DOWN
    assert ("inputs", "prompt") in ONE_LEVEL_DOWN
    assert ("trials", "k") in ONE_LEVEL_DOWN


@pytest.mark.parametrize("place", ONE_LEVEL_DOWN, ids=".".join)
def test_any_key_one_level_too_high_names_its_place(tmp_path: Path, place: tuple[str, str]) -> None:
    f = write(tmp_path / "t.yaml", BASE_YAML + f"{place[1]}: null\n")
    message = the_message(f)
    assert f"write it as {'.'.join(place)}" in message
    assert message.endswith(f"#{key_anchor(place)})")


def test_a_typo_deep_down_names_its_own_section(tmp_path: Path) -> None:
    f = write(tmp_path / "t.yaml", BASE_YAML + "environment:\n  budgets:\n    max_turn: 3\n")
    message = the_message(f)
    assert "did you mean 'max_turns'?" in message
    assert message.endswith("(see docs/reference/tasks.md#environment-budgets-max_turns)")


def test_a_grader_problem_names_the_grader_kind_section(tmp_path: Path) -> None:
    f = write(tmp_path / "t.yaml", BASE_YAML.replace("    value: hi\n", "    valu: hi\n"))
    found = messages(f)
    assert found and all(m.endswith("#grader-contains)") for m in found), found


def test_every_message_names_an_anchor_the_page_has(tmp_path: Path) -> None:
    bad = BASE_YAML.replace("suite: golden", "suite: goldn") + (
        "trials: {k: 0, metrc: pass^k}\nenvironment: {sandbox: jail, fixtur: x}\n"
        "gates: {nightly: 'yes'}\ntier: T9\n"
    )
    found = messages(write(tmp_path / "t.yaml", bad))
    assert len(found) >= 6, found
    for message in found:
        match = SEE.search(message)
        assert match, message
        assert match.group(1) in page_anchors(), message


paths = st.lists(
    st.one_of(
        st.sampled_from(sorted({part for key in task_keys() for part in key.path})),
        st.text(max_size=8),
        st.integers(min_value=0, max_value=3),
    ),
    max_size=5,
)


@settings(deadline=None)  # the first call builds the schema
@given(paths)
def test_any_path_maps_to_an_anchor_the_page_has(path: list[str | int]) -> None:
    assert reference_anchor(tuple(path)) in page_anchors()


def test_a_scribe_problem_names_its_row_of_the_scribe_format(tmp_path: Path) -> None:
    f = tmp_path / "s1.json"
    f.write_text(
        '{"id": "s1", "description": "d", "userMessage": "hi", "maxTurn": 3,'
        ' "outputMatchers": [{"type": "contains", "value": "x"}]}',
        encoding="utf-8",
    )
    message = the_message(f)
    assert "did you mean 'maxTurns'?" in message
    assert message.endswith("(see docs/reference/tasks.md#scribe-maxturns)")
