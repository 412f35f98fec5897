"""The concept pages' plots are what docs/plots.py computes now, from trialrun's own
estimators (a changed estimator shows up as a changed plot), and valid SVG."""

from __future__ import annotations

import importlib.util
import sys
import xml.etree.ElementTree as ET
from types import ModuleType

import pytest
from docs_runnable import DOCS


def _plots() -> ModuleType:
    spec = importlib.util.spec_from_file_location("docs_plots", DOCS / "plots.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


PLOTS = _plots()


@pytest.mark.parametrize("name", sorted(PLOTS.PLOTS))
def test_the_committed_plot_is_current(name: str) -> None:
    committed = (PLOTS.OUT / name).read_text(encoding="utf-8")
    assert committed == PLOTS.PLOTS[name](), f"run: PYTHONPATH=src python docs/plots.py ({name})"
    root = ET.fromstring(committed)
    assert root.tag == "{http://www.w3.org/2000/svg}svg"


@pytest.mark.parametrize("name", sorted(PLOTS.PLOTS))
def test_each_plot_is_shown_on_a_concept_page(name: str) -> None:
    pages = "".join(p.read_text() for p in (DOCS / "concepts").glob("*.md"))
    assert f"plots/{name}" in pages


def test_the_estimator_plot_starts_at_the_solve_rate() -> None:
    """k = 1: solve^k and pass@k both equal c/n (8/10), the first points of the curves."""
    svg = PLOTS.estimators()
    first_y = PLOTS.TOP + (PLOTS.H - PLOTS.BOTTOM - PLOTS.TOP) * 0.2
    assert svg.count(f"{PLOTS.LEFT},{PLOTS._n(first_y)} ") >= 2
