"""Behavioural evals as pytest tests.

    from trialrun.testing import eval_test

    @eval_test("USUALLY_PASSES", prompt="What is the first item in todo.md?",
               files={"todo.md": "- buy lantern oil\\n"})
    def test_reads_the_note(rig, result):
        assert "lantern oil" in result
        assert rig.called("read_file", path="todo.md")

The plugin (`trialrun.testing._plugin`) is loaded by pytest through the `pytest11` entry
point once trialrun is installed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from trialrun.testing._spec import POLICIES, EvalSpec, eval_test

if TYPE_CHECKING:
    from trialrun.testing._rig import PROVIDER_RETRIES, ProviderError, Rig

__all__ = ["POLICIES", "PROVIDER_RETRIES", "EvalSpec", "ProviderError", "Rig", "eval_test"]


def __getattr__(name: str) -> Any:
    """The rig (and the run machinery behind it) loads on first use: the plugin is
    imported by every pytest session of a project that installs trialrun."""
    if name in ("PROVIDER_RETRIES", "ProviderError", "Rig"):
        # the pytest plugin is imported by every pytest session: run machinery loads on use
        from trialrun.testing import _rig

        return getattr(_rig, name)
    raise AttributeError(f"module 'trialrun.testing' has no attribute '{name}'")
