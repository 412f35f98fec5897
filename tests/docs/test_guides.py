"""The how-to guides and concept pages: their runnable blocks, run in order from a folder
holding a copy of examples/ (as a clone of the repository does), output compared where
shown. Only blocks that run offline in seconds are marked runnable in the guides; a
block needing the local model is `runnable-slow` and skipped here."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from docs_runnable import DOCS, REPO, blocks, console_blocks, play_page

PAGES = sorted([*DOCS.glob("index.md"), *DOCS.glob("how-to/*.md"), *DOCS.glob("concepts/*.md")])
RUNNABLE = [p for p in PAGES if any(b.kind == "runnable" for b in blocks(p))]


def _name(page: Path) -> str:
    return page.relative_to(DOCS).as_posix()


@pytest.mark.parametrize("page", RUNNABLE, ids=_name)
def test_the_runnable_blocks_of_a_page_run(page: Path, tmp_path: Path) -> None:
    work = tmp_path / "work"
    shutil.copytree(REPO / "examples", work / "examples")
    assert play_page(page, work, tmp_path / "state", slow=False) > 0


def test_the_workflow_guides_have_runnable_examples() -> None:
    names = {_name(p) for p in RUNNABLE}
    for guide in ("ci-gates", "nightly", "pytest", "benchmark-suites", "comparing-models",
                  "scaling", "viewer", "write-tasks", "judges", "agent-cli"):
        assert f"how-to/{guide}.md" in names, guide


@pytest.mark.parametrize("page", PAGES, ids=_name)
def test_every_console_block_is_marked(page: Path) -> None:
    """A console example is run by the tests or says why it cannot be."""
    marked = {b.line for b in blocks(page) if b.language == "console"}
    unmarked = [n for n in console_blocks(page) if n not in marked]
    assert not unmarked, f"{_name(page)}: console blocks at lines {unmarked} have no marker"
