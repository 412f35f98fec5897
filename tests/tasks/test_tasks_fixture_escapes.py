"""Task files can't reach outside their suite (issue 15 item 5): fixture names, fixture_dest,
setup sources and symlinks that resolve outside the suite folder."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from tasks_support import write

from trialrun.tasks import load_tasks

TASK = """
task_id: t
suite: golden
description: d
inputs: {prompt: hi}
graders: [{type: contains, value: x}]
tracked_metrics: [pass^k]
"""


def _lines(path: Path, **options: object) -> list[str]:
    return [f"{p.field}: {p.message}" for p in load_tasks([path], **options).problems]


@pytest.mark.parametrize("name", ["/etc", "../..", "fx/../../..", "a\\b", "..", "/"])
def test_fixture_must_name_a_folder_under_fixtures(tmp_path: Path, name: str) -> None:
    (tmp_path / "fixtures/fx").mkdir(parents=True)
    f = write(tmp_path / "t.yaml", TASK + f"environment: {{fixture: '{name}'}}\n")
    [line] = _lines(f)
    assert line.startswith("environment.fixture:") and "must be a path under fixtures/" in line


def test_fixture_may_name_a_nested_folder(tmp_path: Path) -> None:
    (tmp_path / "fixtures/group/fx").mkdir(parents=True)
    f = write(tmp_path / "t.yaml", TASK + "environment: {fixture: group/fx}\n")
    assert _lines(f) == []


def test_scribe_fixture_is_held_to_the_same_rule(tmp_path: Path) -> None:
    f = tmp_path / "s.json"
    f.write_text('{"id": "s", "description": "d", "userMessage": "u", "fixture": "/etc",'
                 ' "expectedTools": ["read_file"]}')  # fmt: skip
    [line] = _lines(f)
    assert line.startswith("fixture:")


@pytest.mark.parametrize("dest", ["../../escape", "/abs", "a/../../b", "a\\b", "x\x00y"])
def test_fixture_dest_must_stay_inside_the_workspace(tmp_path: Path, dest: str) -> None:
    f = write(tmp_path / "t.json", "{}")
    f.write_text(
        '{"task_id": "t", "suite": "golden", "description": "d", "inputs": {"prompt": "p"},'
        ' "graders": [{"type": "contains", "value": "x"}], "tracked_metrics": ["pass^k"],'
        f' "environment": {{"fixture_dest": {__import__("json").dumps(dest)}}}}}'
    )
    [line] = _lines(f)
    assert line.startswith("environment.fixture_dest:")


@pytest.mark.parametrize("dest", ["", "eval-scratch", "a/b", "./x"])
def test_fixture_dest_inside_the_workspace_loads(tmp_path: Path, dest: str) -> None:
    f = write(tmp_path / "t.yaml", TASK + f"environment: {{fixture_dest: '{dest}'}}\n")
    assert _lines(f) == []


@pytest.mark.parametrize("source", ["../../../etc/passwd", "/etc/passwd", "a/../../x"])
def test_setup_from_must_stay_under_fixtures(tmp_path: Path, source: str) -> None:
    (tmp_path / "fixtures").mkdir()
    f = write(
        tmp_path / "t.yaml", TASK + f"environment: {{setup: [{{path: s.md, from: '{source}'}}]}}\n"
    )
    [line] = _lines(f)
    assert line.startswith("environment.setup.0.from:") and "fixtures/" in line


def _linked_suite(tmp_path: Path) -> Path:
    write(tmp_path / "outside/secret.md", "secret\n")
    write(tmp_path / "suite/fixtures/fx/own.md", "own\n")
    write(tmp_path / "suite/shared/inside.md", "shared\n")
    return write(tmp_path / "suite/tasks/t.yaml", TASK + "environment: {fixture: fx}\n")


def test_fixture_file_linking_outside_the_suite_is_refused_unless_allowed(tmp_path: Path) -> None:
    f = _linked_suite(tmp_path)
    os.symlink(tmp_path / "outside/secret.md", tmp_path / "suite/fixtures/fx/leak.md")
    [line] = _lines(f)
    assert line.startswith("environment.fixture:")
    assert "leak.md" in line and "outside the suite folder" in line
    assert "allow_external_links" in line and "--allow-external-links" in line
    assert _lines(f, allow_external_links=True) == []


def test_fixture_folder_that_is_itself_an_outside_link_is_refused(tmp_path: Path) -> None:
    f = _linked_suite(tmp_path)
    os.symlink(tmp_path / "outside", tmp_path / "suite/fixtures/ext")
    f.write_text(f.read_text().replace("fixture: fx", "fixture: ext"))
    [line] = _lines(f)
    assert line.startswith("environment.fixture:") and "outside the suite folder" in line


def test_links_inside_the_suite_are_fine_and_followed(tmp_path: Path) -> None:
    f = _linked_suite(tmp_path)
    os.symlink(tmp_path / "suite/shared", tmp_path / "suite/fixtures/fx/shared")
    os.symlink("own.md", tmp_path / "suite/fixtures/fx/alias.md")
    assert _lines(f) == []


def test_inside_link_to_a_folder_holding_an_outside_link_is_refused(tmp_path: Path) -> None:
    f = _linked_suite(tmp_path)
    os.symlink(tmp_path / "outside/secret.md", tmp_path / "suite/shared/leak.md")
    os.symlink(tmp_path / "suite/shared", tmp_path / "suite/fixtures/fx/shared")
    [line] = _lines(f)
    assert "leak.md" in line and "outside the suite folder" in line


def test_link_loops_do_not_hang(tmp_path: Path) -> None:
    f = _linked_suite(tmp_path)
    os.symlink(tmp_path / "suite/fixtures/fx", tmp_path / "suite/fixtures/fx/loop")
    assert _lines(f) == []


def test_setup_seed_linking_outside_is_refused_unless_allowed(tmp_path: Path) -> None:
    write(tmp_path / "outside/secret.md", "secret\n")
    (tmp_path / "suite/fixtures/_seed").mkdir(parents=True)
    os.symlink(tmp_path / "outside/secret.md", tmp_path / "suite/fixtures/_seed/s.md")
    f = write(
        tmp_path / "suite/t.yaml", TASK + "environment: {setup: [{path: s.md, from: _seed/s.md}]}\n"
    )
    [line] = _lines(f)
    assert line.startswith("environment.setup.0.from:") and "outside the suite folder" in line
    assert _lines(f, allow_external_links=True) == []
