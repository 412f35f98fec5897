"""The layering rules issue 29 named, checked on the source (every import counts: top,
function-local and under TYPE_CHECKING)."""

from __future__ import annotations

from test_layers import IMPORTS, _unit


def test_the_runner_never_imports_tracking() -> None:
    """Early stop is a StopRule the caller hands in: the runner knows nothing of comparing."""
    wrong = sorted(f"{src} -> {dst}" for src, dst, _ in IMPORTS
                   if _unit(src) == "runner" and _unit(dst) == "tracking")  # fmt: skip
    assert wrong == []


def test_tracking_never_imports_the_runner() -> None:
    wrong = sorted(f"{src} -> {dst}" for src, dst, _ in IMPORTS
                   if _unit(src) == "tracking" and _unit(dst) == "runner")  # fmt: skip
    assert wrong == []


def test_history_never_imports_runner_internals() -> None:
    """history reaches the runner through its public face only (run, RunConfig, Filters)."""
    wrong = sorted(
        f"{src} -> {dst} {names}"
        for src, dst, names in IMPORTS
        if _unit(src) == "history"
        and _unit(dst) == "runner"
        and (dst != "trialrun.runner" or any(n.startswith("_") for n in names))
    )
    assert wrong == []
