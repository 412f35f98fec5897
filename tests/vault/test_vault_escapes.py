"""A path-escape attempt for every vault tool: an error result, nothing outside touched."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from trialrun.sandbox import snapshot_dir
from trialrun.tools import ToolResult


def _bad_paths(vault: Path) -> list[str]:
    outside = vault.parent / "outside"
    return [
        "../outside/secret.md",
        "..",
        "notes/../../outside/secret.md",
        str(outside / "secret.md"),  # absolute
        "link_out_file",
        "link_out_dir",
        "link_out_dir/secret.md",
        "link_out_dir/new.md",
        "dangling_out",
        "notes/\x00x.md",
        "n" * 300 + ".md",
        "notes/" + "d/" * 2100 + "x.md",
    ]


BAD_INDEX = range(12)


def _attempts(tool: str, bad: str) -> list[dict]:
    if tool == "read_file":
        return [{"path": bad}]
    if tool == "list_files":
        return [{"path": bad}, {"path": bad, "recursive": True}]
    if tool in ("write_file", "append_content"):
        return [{"path": bad, "content": "pwned"}]
    if tool == "delete_file":
        return [{"path": bad}]
    if tool == "move_file":
        return [
            {"sourcePath": bad, "targetPath": "moved.md"},
            {"sourcePath": "todo.md", "targetPath": bad},
        ]
    if tool == "create_folder":
        return [{"path": bad}, {"path": bad + "/sub"}]
    if tool == "update_frontmatter":
        return [{"path": bad, "key": "k", "value": "v"}]
    raise AssertionError(tool)


PATH_TOOLS = [
    "read_file",
    "list_files",
    "write_file",
    "append_content",
    "delete_file",
    "move_file",
    "create_folder",
    "update_frontmatter",
]


def _world(vault: Path) -> tuple[dict[str, str], list[str], dict[str, str]]:
    top = vault.parent
    return snapshot_dir(top / "outside"), sorted(p.name for p in top.iterdir()), snapshot_dir(vault)


@pytest.mark.parametrize("tool", PATH_TOOLS)
@pytest.mark.parametrize("index", BAD_INDEX)
def test_escape_refused(
    vault: Path, call: Callable[..., ToolResult], tool: str, index: int
) -> None:
    bad = _bad_paths(vault)[index]
    before = _world(vault)
    for args in _attempts(tool, bad):
        result = call(tool, **args)
        assert result.ok is False, (tool, args, result.content)
        assert "TOPSECRET" not in result.content
        assert result.content.startswith(tool)
    assert _world(vault) == before
    assert not (vault.parent / "outside" / "not-yet.md").exists()


def test_refusal_message_is_readable(call: Callable[..., ToolResult]) -> None:
    result = call("read_file", path="../etc/passwd")
    assert result.ok is False
    assert result.content == "read_file: refused: '../etc/passwd' is outside the vault"


@pytest.mark.parametrize(
    ("tool", "args"),
    [
        ("find_files_by_name", {"pattern": "secret"}),
        ("find_files_by_name", {"pattern": "*"}),
        ("find_files_by_name", {"pattern": "../*"}),
        ("find_files_by_content", {"query": "TOPSECRET"}),
        ("find_files_by_content", {"query": ".*", "useRegex": True, "limit": 100}),
        ("list_files", {"path": "", "recursive": True}),
    ],
)
def test_search_never_reads_outside(
    vault: Path, call: Callable[..., ToolResult], tool: str, args: dict
) -> None:
    before = _world(vault)
    result = call(tool, **args)
    assert result.ok is True
    assert "TOPSECRET outside" not in result.content
    assert "secret.md" not in result.content
    assert "link_out" not in result.content
    assert "dangling_out" not in result.content
    assert _world(vault) == before


def test_symlink_inside_is_followed(vault: Path, call: Callable[..., ToolResult]) -> None:
    (vault / "link_in").symlink_to(vault / "notes")
    assert call("read_file", path="link_in/a").content.startswith("---")
    listed = call("list_files", path="", recursive=True).content.splitlines()
    assert "link_in/" in listed  # listed, not descended into (no loops)
    assert "link_in/a.md" not in listed
