"""Write an imported replay: the task file, its fixture folder, then load it back."""

from __future__ import annotations

import io
import shutil
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.scalarstring import LiteralScalarString

from trialrun.errors import UserError
from trialrun.replay._import import ReplayTask
from trialrun.rundir import write_text_atomic
from trialrun.tasks import load_tasks


def _block(value: Any) -> Any:
    """Multi-line strings as YAML literal blocks, so a person can read and edit them."""
    if isinstance(value, str) and "\n" in value:
        return LiteralScalarString(value)
    if isinstance(value, dict):
        return {k: _block(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_block(v) for v in value]
    return value


def render(replay: ReplayTask, source: str) -> str:
    yaml = YAML()
    yaml.default_flow_style = False
    yaml.width = 100
    out = io.StringIO()
    yaml.dump(_block(replay.task), out)
    stamp = datetime.now(UTC).strftime("%Y-%m-%d")
    head = [f"# Imported by `trialrun replay import` from {source} on {stamp}.",
            "# What was inferred (edit anything that is wrong):"]
    head += [f"#   - {' '.join(line.splitlines())}" for line in replay.inferred]
    return "\n".join(head) + "\n" + out.getvalue()


def write_replay(replay: ReplayTask, out: Path, source: str, *, force: bool = False) -> Path:
    """Writes `out` and fixtures/<task_id>/ beside it; refuses to overwrite without force.
    Returns the fixture folder (written only when the task has one)."""
    tid: str = replay.task["task_id"]
    fixture_dir = out.parent / "fixtures" / tid
    for path in (out, fixture_dir):
        if path.exists() and not force:
            raise UserError(f"{path}: already exists; choose another -o or pass --force")
    if replay.fixture:
        if fixture_dir.exists():
            shutil.rmtree(fixture_dir)
        for rel, body in sorted(replay.fixture.items()):
            target = fixture_dir / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(body, bytes):
                target.write_bytes(body)
            else:
                target.write_text(body, encoding="utf-8")
    out.parent.mkdir(parents=True, exist_ok=True)
    write_text_atomic(out, render(replay, source))
    report = load_tasks([out])
    if report.problems:
        raise UserError(
            f"{out}: the imported task does not load ({report.problems[0]}); "
            "please report this with the recording"
        )
    return fixture_dir
