from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from trialrun.tools import ToolContext, ToolResult, load_pack


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    """A small vault plus an `outside` folder reachable only through symlinks."""
    root = tmp_path / "vault"
    outside = tmp_path / "outside"
    (root / "notes" / "deep").mkdir(parents=True)
    outside.mkdir()
    (outside / "secret.md").write_text("TOPSECRET outside\n")
    (root / "notes" / "a.md").write_text("---\ntitle: A\n---\nAlpha line\nsecond line\n")
    (root / "notes" / "deep" / "b.md").write_text("Beta\nalpha again\n")
    (root / "todo.md").write_text("- [ ] buy milk\n")
    (root / "link_out_file").symlink_to(outside / "secret.md")
    (root / "link_out_dir").symlink_to(outside)
    (root / "dangling_out").symlink_to(outside / "not-yet.md")
    return root


@pytest.fixture
def call(vault: Path) -> Callable[..., ToolResult]:
    tools = {t.name: t for t in load_pack("vault")}
    ctx = ToolContext(workspace=vault, task_id="t")

    def run(name: str, /, **arguments: Any) -> ToolResult:
        return asyncio.run(tools[name].call(ctx, arguments))

    return run
