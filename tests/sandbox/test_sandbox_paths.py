"""Path containment: resolve_inside / resolve_note never return a path outside the root."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from trialrun.sandbox import resolve_inside, resolve_note
from trialrun.tools import ToolError


@pytest.fixture
def world(tmp_path: Path) -> tuple[Path, Path]:
    """A root with notes, an outside folder, and symlinks pointing in and out."""
    root = tmp_path / "vault"
    outside = tmp_path / "outside"
    (root / "notes").mkdir(parents=True)
    outside.mkdir()
    (outside / "secret.txt").write_text("secret")
    (root / "notes" / "a.md").write_text("A")
    (root / "b").write_text("B without extension")
    (root / "b.md").write_text("B note")
    (root / "link_out_file").symlink_to(outside / "secret.txt")
    (root / "link_out_dir").symlink_to(outside)
    (root / "dangling_out").symlink_to(tmp_path / "nowhere" / "x")
    (root / "link_in").symlink_to(root / "notes")
    (root / "rel_out").symlink_to("../outside/secret.txt")
    return root, outside


def _real_inside(root: Path, path: Path) -> bool:
    real_root = os.path.realpath(root)
    real = os.path.realpath(path)
    return real == real_root or real.startswith(real_root + os.sep)


@pytest.mark.parametrize(
    "bad",
    [
        "../outside/secret.txt",
        "..",
        "notes/../../outside",
        "/etc/passwd",
        "//etc/passwd",
        "notes/\x00a.md",
        "a" * 256,
        "notes/" + "b" * 300 + ".md",
        "x/" * 2100,
        "notes\\a.md",
        "link_out_file",
        "link_out_dir",
        "link_out_dir/secret.txt",
        "dangling_out",
        "rel_out",
        "./link_out_dir/../..",
    ],
)
def test_refused(world: tuple[Path, Path], bad: str) -> None:
    root, _ = world
    with pytest.raises(ToolError, match="refused"):
        resolve_inside(root, bad)


def test_outside_message_names_the_path(world: tuple[Path, Path]) -> None:
    root, _ = world
    with pytest.raises(ToolError) as err:
        resolve_inside(root, "../etc/passwd")
    assert str(err.value) == "refused: '../etc/passwd' is outside the vault"


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ("notes/a.md", "notes/a.md"),
        ("./notes/a.md", "notes/a.md"),
        ("notes//a.md", "notes/a.md"),
        ("notes/../b.md", "b.md"),
        ("link_in/a.md", "link_in/a.md"),
        ("new/folder/file.md", "new/folder/file.md"),
        ("", "."),
        ("/", "."),
        (".", "."),
    ],
)
def test_accepted(world: tuple[Path, Path], given: str, expected: str) -> None:
    root, _ = world
    got = resolve_inside(root, given)
    assert (
        got == Path(os.path.realpath(root)) / expected
        if expected != "."
        else got == Path(os.path.realpath(root))
    )
    assert _real_inside(root, got)


def test_root_refused_when_a_file_is_needed(world: tuple[Path, Path]) -> None:
    root, _ = world
    with pytest.raises(ToolError, match="file path is required"):
        resolve_inside(root, "", allow_root=False)


def test_resolve_note_tries_md(world: tuple[Path, Path]) -> None:
    root, _ = world
    assert resolve_note(root, "notes/a").name == "a.md"
    # the path as given wins when it exists
    assert resolve_note(root, "b").name == "b"
    (root / "b").unlink()
    assert resolve_note(root, "b").name == "b.md"
    with pytest.raises(ToolError, match="'missing' not found"):
        resolve_note(root, "missing")
    assert resolve_note(root, "missing", must_exist=False).name == "missing"
    with pytest.raises(ToolError, match="refused"):
        resolve_note(root, "link_out_file")


_path_chars = st.sampled_from(
    [
        "a",
        "b",
        ".",
        "..",
        "/",
        "\\",
        "\x00",
        "~",
        " ",
        "é",
        "link_out_dir",
        "link_in",
        "notes",
        "dangling_out",
        "rel_out",
        "x" * 200,
    ]
)


@settings(max_examples=200, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(parts=st.lists(_path_chars, max_size=12), noise=st.text(max_size=20))
def test_property_result_is_inside(world: tuple[Path, Path], parts: list[str], noise: str) -> None:
    root, _ = world
    for user_path in ("".join(parts), "/".join(parts), "/".join(parts) + noise, noise):
        try:
            got = resolve_inside(root, user_path)
        except ToolError as exc:
            assert str(exc).startswith("refused")
            continue
        assert _real_inside(root, got), (user_path, got)
        assert got.is_absolute()
