"""The README's Python API examples run as written (from a copy of the repository's examples)."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
BLOCKS = re.findall(r"```python\n(.*?)```", (REPO / "README.md").read_text(), re.S)


def test_the_readme_has_the_examples() -> None:
    assert any("trialrun.run(" in block for block in BLOCKS)
    assert any("@grader(" in block for block in BLOCKS)


@pytest.mark.parametrize("block", BLOCKS)
def test_readme_python_block_runs(block: str, tmp_path: Path, monkeypatch, capsys) -> None:
    shutil.copytree(REPO / "examples", tmp_path / "examples")
    monkeypatch.chdir(tmp_path)
    exec(compile(block, "README.md", "exec"), {"__name__": "readme_example"})
    if "trialrun.run(" in block:
        out = capsys.readouterr().out
        assert "pass^k 100%, solve^k 83%" in out and "count-recipes 0 ['regex']" in out
        assert len(list((tmp_path / "results").iterdir())) == 1
