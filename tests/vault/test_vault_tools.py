"""Vault tools: behaviour and agent-facing messages."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from trialrun.tools import ToolResult, load_pack
from trialrun.tools.vault import VAULT_TOOL_NAMES

Call = Callable[..., ToolResult]


def test_pack_has_exactly_the_pinned_tools_and_parameters() -> None:
    params = {t.name: t.parameters for t in load_pack("vault")}
    assert list(params) == list(VAULT_TOOL_NAMES)
    expected = {
        "read_file": (["path"], []),
        "list_files": (["path"], ["recursive"]),
        "write_file": (["path", "content"], ["summary"]),
        "append_content": (["path", "content"], []),
        "delete_file": (["path"], []),
        "move_file": (["sourcePath", "targetPath"], []),
        "create_folder": (["path"], []),
        "update_frontmatter": (["path", "key", "value"], []),
        "find_files_by_name": (["pattern"], ["limit"]),
        "find_files_by_content": (
            ["query"],
            ["caseSensitive", "useRegex", "limit", "contextLines"],
        ),
        "update_memory": (["content"], []),
        "read_memory": ([], []),
        "recall_sessions": ([], ["query", "filePath", "project", "limit"]),
        "activate_skill": (["name"], ["resource_path"]),
        "generate_image": (["prompt"], ["output_path", "background"]),
    }
    assert sorted(expected) == sorted(params)
    for name, (required, optional) in expected.items():
        assert params[name]["required"] == required, name
        assert sorted(params[name]["properties"]) == sorted(required + optional), name
        for prop in params[name]["properties"].values():
            assert prop.get("description"), name
    assert load_pack("vault", {"only": ["read_file"]})[0].name == "read_file"
    assert "delete_file" not in [t.name for t in load_pack("vault", {"exclude": ["delete_file"]})]


def test_read_file(call: Call) -> None:
    assert call("read_file", path="todo.md").content == "- [ ] buy milk\n"
    assert call("read_file", path="todo").content == "- [ ] buy milk\n"
    missing = call("read_file", path="x.md")
    assert (missing.ok, missing.content) == (False, "read_file: path 'x.md' not found")
    folder = call("read_file", path="notes")
    assert not folder.ok and "folder" in folder.content
    assert not call("read_file", path="").ok


def test_read_file_binary_and_empty(vault: Path, call: Call) -> None:
    (vault / "img.png").write_bytes(b"\x89PNG\x00\x01")
    (vault / "empty.md").write_text("")
    binary = call("read_file", path="img.png")
    assert not binary.ok and "binary" in binary.content
    assert call("read_file", path="empty").content == "(empty file: empty.md)"


def test_list_files(call: Call, vault: Path) -> None:
    top = call("list_files", path="/").content.splitlines()
    assert top == ["notes/", "todo.md"]
    assert call("list_files", path="").content.splitlines() == top
    deep = call("list_files", path="notes", recursive=True).content.splitlines()
    assert deep == ["notes/a.md", "notes/deep/", "notes/deep/b.md"]
    (vault / "empty").mkdir()
    assert "empty folder" in call("list_files", path="empty").content
    assert not call("list_files", path="nope").ok
    assert "is a file" in call("list_files", path="todo.md").content


def test_write_file(call: Call, vault: Path) -> None:
    result = call("write_file", path="new/dir/n.md", content="héllo", summary="s")
    assert result.ok and result.content == "Wrote 6 bytes to new/dir/n.md"
    assert (vault / "new" / "dir" / "n.md").read_text() == "héllo"
    again = call("write_file", path="todo", content="x")
    assert again.ok and "todo.md" in again.content and "replaced" in again.content
    assert (vault / "todo.md").read_text() == "x"
    assert call("write_file", path="ideas/first", content="x").content == (
        "Wrote 1 bytes to ideas/first.md"
    )
    assert (
        call("write_file", path="data.json", content="{}").content == "Wrote 2 bytes to data.json"
    )
    (vault / "Makefile").write_text("all:\n")
    assert call("write_file", path="Makefile", content="x").content.startswith(
        "Wrote 1 bytes to Makefile"
    )
    assert not call("write_file", path="notes", content="x").ok
    assert not call("write_file", path="todo.md/sub.md", content="x").ok
    bad_type = call("write_file", path="a.md", content=3)
    assert not bad_type.ok and "must be of type string" in bad_type.content


def test_append_content(call: Call, vault: Path) -> None:
    (vault / "nonl.md").write_text("line")
    assert call("append_content", path="nonl", content="more\n").ok
    assert (vault / "nonl.md").read_text() == "line\nmore\n"
    assert call("append_content", path="todo.md", content="- [ ] eggs\n").ok
    assert (vault / "todo.md").read_text() == "- [ ] buy milk\n- [ ] eggs\n"
    created = call("append_content", path="fresh.md", content="hi")
    assert created.ok and "Created" in created.content
    assert (vault / "fresh.md").read_text() == "hi"


def test_delete_file(call: Call, vault: Path) -> None:
    assert call("delete_file", path="todo").content == "Deleted todo.md"
    assert not (vault / "todo.md").exists()
    folder = call("delete_file", path="notes")
    assert folder.ok and "2 files" in folder.content
    assert not (vault / "notes").exists()
    assert call("delete_file", path="todo.md").content == "delete_file: path 'todo.md' not found"
    assert not call("delete_file", path="/").ok
    assert not call("delete_file", path="").ok
    assert (vault.parent / "outside" / "secret.md").exists()


def test_delete_symlink_inside_removes_only_the_link(call: Call, vault: Path) -> None:
    (vault / "link_in").symlink_to(vault / "notes")
    assert call("delete_file", path="link_in").ok
    assert (vault / "notes" / "a.md").exists()


def test_move_file(call: Call, vault: Path) -> None:
    assert call("move_file", sourcePath="todo", targetPath="archive/old").content == (
        "Moved todo.md to archive/old.md"
    )
    assert (vault / "archive" / "old.md").is_file()
    into = call("move_file", sourcePath="archive/old.md", targetPath="notes")
    assert into.ok and (vault / "notes" / "old.md").is_file()
    clash = call("move_file", sourcePath="notes/old.md", targetPath="notes/a.md")
    assert not clash.ok and "already exists" in clash.content
    assert (vault / "notes" / "old.md").is_file()
    loop = call("move_file", sourcePath="notes", targetPath="notes/deep/x")
    assert not loop.ok and "into itself" in loop.content
    assert call("move_file", sourcePath="notes", targetPath="Notes2").ok
    assert (vault / "Notes2" / "deep" / "b.md").is_file()
    assert not call("move_file", sourcePath="missing.md", targetPath="x.md").ok


def test_create_folder(call: Call, vault: Path) -> None:
    assert call("create_folder", path="Projects/2025").content == "Created folder Projects/2025/"
    assert (vault / "Projects" / "2025").is_dir()
    assert "already exists" in call("create_folder", path="Projects").content
    assert not call("create_folder", path="todo.md").ok
    assert not call("create_folder", path="todo.md/inner").ok
    assert not call("create_folder", path="/").ok


def test_find_files_by_name(call: Call, vault: Path) -> None:
    assert call("find_files_by_name", pattern="B.MD").content == "notes/deep/b.md"
    assert call("find_files_by_name", pattern="*.md").content.splitlines() == [
        "notes/a.md",
        "notes/deep/b.md",
        "todo.md",
    ]
    assert call("find_files_by_name", pattern="notes/*").content.count("\n") == 1
    limited = call("find_files_by_name", pattern="md", limit=1).content.splitlines()
    assert limited[0] == "notes/a.md" and "2 more" in limited[1]
    assert call("find_files_by_name", pattern="zzz").content == "No files match 'zzz'"
    assert not call("find_files_by_name", pattern="").ok
    assert not call("find_files_by_name", pattern="a", limit=0).ok


def test_find_files_by_content(call: Call) -> None:
    out = call("find_files_by_content", query="alpha").content.splitlines()
    assert out == ["notes/a.md:4: Alpha line", "notes/deep/b.md:2: alpha again"]
    strict = call("find_files_by_content", query="alpha", caseSensitive=True).content
    assert strict == "notes/deep/b.md:2: alpha again"
    rx = call("find_files_by_content", query=r"^(Beta|- \[ \])", useRegex=True).content
    assert rx.splitlines() == ["notes/deep/b.md:1: Beta", "todo.md:1: - [ ] buy milk"]
    ctx = call("find_files_by_content", query="Alpha line", contextLines=1).content
    assert ctx.splitlines() == [
        "notes/a.md-3- ---",
        "notes/a.md:4: Alpha line",
        "notes/a.md-5- second line",
    ]
    limited = call("find_files_by_content", query="alpha", limit=1).content
    assert "1 more files" in limited
    bad = call("find_files_by_content", query="(", useRegex=True)
    assert not bad.ok and "invalid regular expression" in bad.content
    assert "No files contain" in call("find_files_by_content", query="nothing-like-this").content
    # a literal query is not a regex
    assert "No files contain" in call("find_files_by_content", query="Al.ha").content
