"""Imports the built-in benchmarks so their decorators register them."""

from __future__ import annotations

from trialrun.benchmarks import frames, gaia, supergpqa, taubench, wildchat  # noqa: F401
