"""`file_write` writes inside the workspace only: no escape by `..`, an absolute path or
a symlink, never into a FIFO; OpenJarvis's `mode` and `create_dirs` behave as there."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st
from tools_support import call


def test_write_append_and_create_dirs(tmp_path: Path) -> None:
    assert call("file_write", tmp_path, path="a.txt", content="one\n").content == (
        "Wrote 4 bytes to a.txt"
    )
    assert call("file_write", tmp_path, path="a.txt", content="two\n", mode="append").ok
    assert (tmp_path / "a.txt").read_text() == "one\ntwo\n"
    assert call("file_write", tmp_path, path="a.txt", content="new").ok
    assert (tmp_path / "a.txt").read_text() == "new"
    missing = call("file_write", tmp_path, path="out/b.txt", content="x")
    assert not missing.ok and "set create_dirs=true" in missing.content
    assert call("file_write", tmp_path, path="out/b.txt", content="x", create_dirs=True).ok
    assert (tmp_path / "out" / "b.txt").read_text() == "x"
    bad_mode = call("file_write", tmp_path, path="c.txt", content="x", mode="overwrite")
    assert not bad_mode.ok and "use 'write' or 'append'" in bad_mode.content


def test_escapes_are_refused(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    outside = tmp_path / "outside.txt"
    outside.write_text("keep")
    (ws / "link").symlink_to(outside)
    (ws / "dirlink").symlink_to(tmp_path)
    for path in ("../outside.txt", str(outside), "dirlink/outside.txt", "a/../../outside.txt"):
        result = call("file_write", ws, path=path, content="pwned", create_dirs=True)
        why = result.content
        assert not result.ok and ("outside the workspace" in why or "absolute path" in why), why
    through_link = call("file_write", ws, path="link", content="pwned")
    assert not through_link.ok and "symlink" in through_link.content
    assert outside.read_text() == "keep"


def test_a_fifo_is_refused_without_hanging(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe")
    result = call("file_write", tmp_path, path="pipe", content="x")
    assert not result.ok and "FIFO" in result.content


_PARTS = st.sampled_from(["..", ".", "", "a", "b", "link", "/", "\\", "\x00", "é", "~"])


@settings(max_examples=150, deadline=None)
@given(st.lists(_PARTS, min_size=1, max_size=6).map("/".join), st.booleans())
def test_no_path_writes_outside_the_workspace(path: str, create_dirs: bool) -> None:
    with tempfile.TemporaryDirectory() as top:
        root = Path(top)
        ws = root / "ws"
        (ws / "a").mkdir(parents=True)
        (ws / "link").symlink_to(root)
        call("file_write", ws, path=path, content="marker", create_dirs=create_dirs)
        written = [
            Path(folder) / name
            for folder, _dirs, files in os.walk(root)
            for name in files
        ]
        assert all(ws in p.parents for p in written), (path, written)
        assert all(p.resolve().is_relative_to(ws.resolve()) for p in written)
