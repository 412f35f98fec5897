"""The Python API examples of the docs run as written (from a copy of the repository's
examples) and print what the page says. Moved from tests/architecture/test_readme_api.py
with the examples (the README is short now; the API examples live on docs/index.md)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from docs_runnable import DOCS, REPO, blocks

PAGES = sorted([DOCS / "index.md", *DOCS.glob("how-to/*.md"), *DOCS.glob("concepts/*.md")])
PYTHON = [b for p in PAGES for b in blocks(p) if b.language == "python" and b.kind == "runnable"]


def test_the_docs_have_the_api_examples() -> None:
    assert any("trialrun.run(" in b.body and b.page.name == "index.md" for b in PYTHON)
    assert any("@grader(" in b.body for b in PYTHON)


def test_no_python_block_of_the_readme_is_left_untested() -> None:
    """The README carries no code of its own: its examples are on the tested pages."""
    assert "```python" not in (REPO / "README.md").read_text()


@pytest.mark.parametrize("block", PYTHON, ids=lambda b: b.where)
def test_docs_python_block_runs(block, tmp_path: Path, monkeypatch, capsys) -> None:
    shutil.copytree(REPO / "examples", tmp_path / "examples")
    monkeypatch.chdir(tmp_path)
    exec(compile(block.body, block.where, "exec"), {"__name__": "docs_example"})
    if "trialrun.run(" in block.body:
        out = capsys.readouterr().out
        assert "pass^k 100%, solve^k 83%" in out and "count-recipes 0 ['regex']" in out
        assert len(list((tmp_path / "results").iterdir())) == 1
